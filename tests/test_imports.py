"""A host that only serves tools never imports the generator's weight (Jinja, python-jsonschema's dumps)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.testing.resource_project import make_resource_project

_UNMEASURED = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_PROCESS_")}
"""The environment less coverage's subprocess hook: what a process imports is the question, not coverage's own."""


def _imported(argv: list[str], cwd: Path, stdin: str = "") -> set[str]:
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "toolproof", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
        env=_UNMEASURED,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")}


_HELLO = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


@pytest.mark.parametrize(
    ("argv", "stdin"),
    [
        (["call", "read_file_in_skill", "--args", '{"skill_name": "x", "file_path": "y"}'], ""),
        (
            ["serve", "mcp"],
            "\n".join(
                json.dumps(m)
                for m in (
                    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _HELLO},
                    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                )
            )
            + "\n",
        ),
    ],
    ids=["call", "serve-mcp"],
)
def test_serving_never_imports_click_jinja_yaml_python_jsonschema_or_the_generator(
    argv: list[str], stdin: str, tmp_path: Path
) -> None:
    """The usual lines of `call` and `serve mcp` are read without click (toolproof.command_line)."""
    modules = _imported(argv, tmp_path, stdin)

    assert "toolproof.runtime.dispatch" in modules  # the measurement saw the run
    heavy = {"click", "jinja2", "yaml", "jsonschema"}  # jsonschema_rs is another package: a call validates with it
    ours = ("toolproof.generator", "toolproof.cli")
    assert not {m for m in modules if m.split(".")[0] in heavy or m.startswith(ours)}


def test_a_call_never_imports_other_commands_or_numpy(tmp_path: Path) -> None:
    modules = _imported(["call", "read_file_in_skill", "--args", '{"skill_name": "x", "file_path": "y"}'], tmp_path)

    assert "toolproof.runtime.dispatch" in modules  # the measurement saw the run
    assert not {
        m for m in modules if m.startswith(("toolproof.generator.cli", "toolproof.testing", "numpy", "uvicorn"))
    }


def _under_a_settings_file(folder: Path) -> bool:
    """Whether a project's settings file lies in ``folder`` or above it (then reading it needs tomllib)."""
    return any((d / name).is_file() for d in (folder, *folder.parents) for name in ("pyproject.toml", "toolproof.toml"))


def test_a_one_shot_call_of_a_file_tool_imports_no_skill_code_and_nothing_it_does_not_use(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n", encoding="utf-8")

    modules = _imported(["call", "file-read", "--args", '{"path": "a.txt"}', "--workspace", "."], tmp_path)

    assert {"toolproof.builtin.files.reading", "jsonschema_rs"} <= modules  # the handler ran, and the call validated
    never = {
        "toolproof.builtin.skills.catalog",  # and html, the frontmatter parser
        "toolproof.builtin.skills.frontmatter",
        "toolproof.builtin.skills.gate",  # and tempfile, shutil, hmac
        "html",
        "tempfile",
        "shutil",
        "hashlib",  # the line index hashes with _blake2, without OpenSSL
        "pkgutil",  # only binding every tool looks for stray handler modules
        "toolproof.runtime.serve.commands",  # the servers' commands, and their options' limits
        "toolproof.runtime.serve.limits",
        "email.utils",  # jsonschema-rs imports it for its build time, ~15 ms: validation._BuildTime spares it
        "difflib",  # only a handler that is not found needs a "did you mean"
        "socket",
    }
    if not _under_a_settings_file(tmp_path):
        never.add("tomllib")
    assert not never & modules


def test_serving_mcp_answers_tools_list_without_compiling_a_validator(tmp_path: Path) -> None:
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _HELLO}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    stdin = "\n".join(json.dumps(m) for m in (hello, listing)) + "\n"

    modules = _imported(["serve", "mcp", "--workspace", "."], tmp_path, stdin)

    assert "toolproof.runtime.serve.mcp" in modules  # the measurement saw the run
    assert not {m for m in modules if m.startswith("jsonschema_rs")}  # the first tools/call imports it
    assert "toolproof.builtin.skills.gate" in modules  # read_file is gated: its SKILL.md was checked at start-up
    assert "hashlib" not in modules  # ... without hashing it: hashlib loads OpenSSL, ~3 ms; the first token pays it
    assert "difflib" not in modules  # every handler was found: no "did you mean" to work out
    assert (
        not {  # nothing has been read yet: the reading layer waits for the first read (~5 ms of dataclasses)
            "toolproof.builtin.files.reading",
            "toolproof.builtin.files.lines",
            "toolproof.builtin.files.index",
            "toolproof.builtin.files.audit",
            "toolproof.builtin.files.numbering",
        }
        & modules
    )
    if not _under_a_settings_file(tmp_path):
        assert "tomllib" not in modules


def test_a_project_host_compares_its_contracts_with_gen_without_loading_openssl(tmp_path: Path) -> None:
    project = make_resource_project(tmp_path / "notes")

    modules = _imported(["call", "word_count", "--args", '{"text": "a b"}'], project)

    assert "toolproof.runtime.serve.freshness" in modules  # the contracts were compared with the recorded digests
    assert "hashlib" not in modules  # ... by CPython's own sha256: hashlib would load OpenSSL, ~3 ms


def test_serving_without_otel_never_imports_opentelemetry_nor_the_telemetry_module(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _HELLO}
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "file-read", "arguments": {"path": "a.txt"}},
    }
    stdin = "\n".join(json.dumps(m) for m in (hello, call)) + "\n"

    served = _imported(["serve", "mcp", "--workspace", "."], tmp_path, stdin)
    called = _imported(["call", "file-read", "--args", '{"path": "a.txt"}', "--workspace", "."], tmp_path)

    assert "toolproof.builtin.files.reading" in served & called  # the call ran
    assert not {m for m in served | called if m.startswith("opentelemetry")}
    assert "toolproof.runtime.serve.telemetry" not in served | called


_COMPILES = """
import re, sys
compiled = []
real = re.compile
def compile(pattern, flags=0):
    compiled.append(sys._getframe(1).f_globals.get("__name__") or "")
    return real(pattern, flags)
re.compile = compile
import toolproof.command_line, toolproof.runtime.serve.run, toolproof.runtime.serve.mcp
import toolproof.builtin.files.access, toolproof.builtin.files.decoding, toolproof.builtin.files.workspace
import toolproof.builtin.handlers._skills, toolproof.builtin.skills.gate, toolproof.builtin.skills.catalog
print(" ".join(sorted({name for name in compiled if name.startswith("toolproof")})))
"""


def test_the_start_up_path_compiles_no_regular_expression_until_one_is_used() -> None:
    """Module-level patterns are ``LazyPattern``s (~0.1-0.3 ms a compile); only the template parser's, used at once."""
    run = subprocess.run(
        [sys.executable, "-c", _COMPILES], capture_output=True, text=True, timeout=60, check=True, env=_UNMEASURED
    )

    assert run.stdout.split() == ["toolproof.runtime.template"]
