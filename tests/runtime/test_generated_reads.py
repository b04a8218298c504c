"""What a host reads of a generated folder at start: a file missing, torn, stale or a FIFO is named, never hangs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from toolproof.cli import cli
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import RegistryError
from toolproof.runtime.serve.http import HttpApp
from toolproof.runtime.serve.mcp import McpServer
from toolproof.runtime.spec import generated_dir, load_specs
from toolproof.runtime.toolbox import builtin_runtime

Server = Callable[[Runtime, str], object]
SERVERS: dict[str, tuple[str, Server]] = {
    "mcp": ("exports/mcp/all.json", lambda runtime, package: McpServer(runtime, package=package)),
    "http": ("openapi.json", lambda runtime, package: HttpApp(runtime, package=package)),
}
"""Each host, the generated file it reads at start, and how it starts."""


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A generated package of the built-in tools' exports, under a name of its own, on the import path."""
    name = f"generated_{uuid.uuid4().hex}"
    folder = tmp_path / "site" / name
    for relative in ("exports/mcp/all.json", "openapi.json", "contracts/read_file.json"):
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_bytes((generated_dir() / relative).read_bytes())
    (folder / "__init__.py").write_text('CONTRACTS = ("read_file",)\n', encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    return name


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    return builtin_runtime(workspace=[tmp_path])


def _folder(package: str) -> Path:
    return generated_dir(package)


def _problems(start: Callable[[], object], fifo: Path | None = None) -> list[str]:
    """The problems ``start`` raises as a RegistryError; fails, without hanging, when it blocks on ``fifo``."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = start()
        except Exception as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(10)
    if thread.is_alive() and fifo is not None:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # a writer that closes: the blocked read ends
        thread.join(10)
        pytest.fail(f"start-up blocked reading the FIFO at {fifo}")
    error = outcome.get("error")
    assert isinstance(error, RegistryError), outcome
    return error.problems


@pytest.mark.parametrize("host", sorted(SERVERS))
@pytest.mark.parametrize(
    ("how", "reason"),
    [
        ("missing", "cannot be loaded (No such file or directory)"),
        ("empty", "cannot be loaded (empty)"),
        ("torn", "cannot be loaded (not JSON: Expecting ':' delimiter: line 1 column 19 (char 18))"),
        ("fifo", "cannot be loaded (a FIFO, not a regular file)"),
        ("folder", "cannot be loaded (a folder, not a regular file)"),
        ("not UTF-8", "cannot be loaded (not UTF-8: invalid start byte at byte 0)"),
    ],
)
def test_a_generated_file_a_host_cannot_read_stops_its_start_naming_the_file_and_gen(
    package: str, runtime: Runtime, host: str, how: str, reason: str
) -> None:
    relative, start = SERVERS[host]
    path = _folder(package) / relative
    path.unlink()
    if how == "empty":
        path.write_bytes(b"")
    elif how == "torn":
        path.write_bytes(b'{"tools": [{"name"')
    elif how == "fifo":
        os.mkfifo(path)
    elif how == "folder":
        path.mkdir()
    elif how == "not UTF-8":
        path.write_bytes(b"\xff{}")

    problems = _problems(lambda: start(runtime, package), fifo=path if how == "fifo" else None)

    assert problems == [f"{package}: {relative} {reason}; run `toolproof gen`"]


@pytest.mark.parametrize("host", sorted(SERVERS))
def test_a_generated_file_larger_than_the_bound_is_refused_unread(
    package: str, runtime: Runtime, host: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    relative, start = SERVERS[host]
    monkeypatch.setattr("toolproof.runtime.spec.MAX_GENERATED_BYTES", 1000)

    problems = _problems(lambda: start(runtime, package))

    assert problems == [f"{package}: {relative} cannot be loaded (larger than 1000 bytes); run `toolproof gen`"]


def test_an_mcp_export_that_lacks_a_served_tool_names_it_and_gen(package: str, runtime: Runtime) -> None:
    path = _folder(package) / "exports/mcp/all.json"
    export = json.loads(path.read_text(encoding="utf-8"))
    export["tools"] = [tool for tool in export["tools"] if tool["name"] not in ("read_file", "read_skill")]
    path.write_text(json.dumps(export), encoding="utf-8")

    problems = _problems(lambda: McpServer(runtime, package=package))

    assert problems == [
        f"{package}: exports/mcp/all.json does not list 'read_file', 'read_skill', which this host serves; "
        "run `toolproof gen`"
    ]


def test_an_openapi_document_without_the_route_of_a_served_tool_names_it_and_gen(
    package: str, runtime: Runtime
) -> None:
    path = _folder(package) / "openapi.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    del document["paths"]["/tools/read_file"]
    path.write_text(json.dumps(document), encoding="utf-8")

    problems = _problems(lambda: HttpApp(runtime, package=package))

    assert problems == [
        f"{package}: openapi.json has no route for 'read_file', which this host serves; run `toolproof gen`"
    ]


@pytest.mark.parametrize("host", sorted(SERVERS))
def test_json_that_is_not_what_gen_writes_is_named_not_a_crash(package: str, runtime: Runtime, host: str) -> None:
    relative, start = SERVERS[host]
    (_folder(package) / relative).write_text('{"tools": "none", "paths": [1], "components": {}}', encoding="utf-8")
    what = {"mcp": "the MCP export", "http": "the OpenAPI document"}[host]

    problems = _problems(lambda: start(runtime, package))

    assert problems == [f"{package}: {relative} cannot be loaded (not {what} gen writes); run `toolproof gen`"]


def test_a_fifo_in_place_of_a_contract_is_refused_without_blocking(package: str) -> None:
    path = _folder(package) / "contracts" / "read_file.json"
    path.unlink()
    os.mkfifo(path)

    problems = _problems(lambda: load_specs(package), fifo=path)

    assert problems == [
        f"{package}: contracts/read_file.json cannot be loaded (a FIFO, not a regular file); run `toolproof gen`"
    ]


def test_toolsets_with_a_fifo_for_a_contract_exits_1_at_once_naming_the_file(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    assert CliRunner().invoke(cli, ["init", str(project)]).exit_code == 0
    contract = project / "generated" / "contracts" / "word_count.json"
    contract.unlink()
    os.mkfifo(contract)

    listed = subprocess.run(
        [sys.executable, "-m", "toolproof", "toolsets", "--project", str(project)],
        capture_output=True,
        text=True,
        timeout=60,  # it blocked for ever reading the FIFO
        check=False,
    )

    assert listed.returncode == 1
    assert listed.stderr == (
        "generated: contracts/word_count.json cannot be loaded (a FIFO, not a regular file); run `toolproof gen`\n"
    )
