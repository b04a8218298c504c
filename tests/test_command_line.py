"""`serve mcp` and `call` read without click say and do exactly what click's commands say and do.

The entry point reads these two commands' usual lines itself (``toolproof.command_line``), so a host
starts without importing click; every line it does not fully understand, and every mistake, is click's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from toolproof import command_line
from toolproof.cli import main as click_main

_WORKSPACE_CALL = ["call", "file-read", "--args", '{"path": "a.txt"}', "--workspace", "."]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current folder: a workspace with ``a.txt`` and a ``file.txt`` that is not a folder."""
    (tmp_path / "a.txt").write_text("one\ntwo\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    "argv",
    [
        ["call", "--help"],
        ["call", "-h"],
        ["serve", "mcp", "--help"],
        ["--version"],
        ["serve", "http"],
        ["gen"],
        ["call"],  # no tool: click's "Missing argument"
        ["call", "a", "b"],  # two tools
        ["call", "-x"],
        ["call", "-", "--workspace", "."],
        ["call", "t", "--args"],  # the value is missing
        ["call", "t", "--args", "-1"],  # click takes it; read leaves a value starting with - to click
        ["call", "t", "--toolset", "a", "--toolset", "b"],  # click keeps the last; read does not guess
        ["call", "t", "-v", "-v"],
        ["call", "t", "-vh"],
        ["call", "t", "--verbose=yes"],
        ["call", "t", "--workspace", "missing"],
        ["call", "t", "--workspace", "a.txt"],  # a file, not a folder
        ["call", "t", "--workspace="],
        ["call", "t", "--", "--args"],
        ["call", "t", "--work", "."],  # click accepts no abbreviation: its "No such option"
        ["call", "t", "--transport", "stdio"],  # call has no --transport
        ["serve", "mcp", "extra"],
        ["serve", "mcp", "--transport", "http"],
        ["serve", "mcp", "--port", "8000"],  # an HTTP option: click's to read and ignore
        ["serve", "mcp", "--otel"],
        ["serve", "mcp", "--args", "{}"],  # serve has no --args
    ],
)
def test_a_line_it_does_not_fully_understand_is_left_to_click(argv: list[str], folder: Path) -> None:
    assert command_line.read(argv) is None


def test_a_variable_click_reads_leaves_the_line_to_click(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert command_line.read(["serve", "mcp"]) is not None

    monkeypatch.setenv("TOOLPROOF_OTEL", "1")
    assert command_line.read(["serve", "mcp"]) is None
    monkeypatch.delenv("TOOLPROOF_OTEL")
    monkeypatch.setenv("_TOOLPROOF_COMPLETE", "bash_source")
    assert command_line.read(["call", "file-read"]) is None


def test_a_call_line_is_read_as_click_reads_it(folder: Path) -> None:
    argv = ["call", "--workspace=.", "file-read", "--args={}", "-v", "--skills", "sub", "--workspace", "sub"]
    argv += ["--toolset", "t", "--session", "s", "--project", "p", "--allow-stale", "--no-output-validation"]

    line = command_line.read(argv)

    assert line is not None
    assert (line.command, line.tool) == (("call",), "file-read")
    assert line.values == {"--args": "{}", "--toolset": "t", "--session": "s", "--project": "p"}
    assert line.folders == {"--workspace": [".", "sub"], "--skills": ["sub"]}
    assert line.flags == {"verbose", "allow_stale", "no_output_validation"}


def test_a_serve_mcp_line_is_read_as_click_reads_it(folder: Path) -> None:
    line = command_line.read(["serve", "mcp", "--transport", "stdio", "--workspace", ".", "--allow-stale"])

    assert line is not None
    assert (line.command, line.values, line.folders, line.flags) == (
        ("serve", "mcp"),
        {"--transport": "stdio"},
        {"--workspace": ["."]},
        {"allow_stale"},
    )


_Ending = tuple[object, str, str]
"""A command's exit code, stdout and stderr."""


def _ended(run: Callable[[], None], capsys: pytest.CaptureFixture[str]) -> _Ending:
    """What a command printed and the code it ended with (0 when it returned)."""
    try:
        run()
        code: object = 0
    except SystemExit as exc:
        code = exc.code or 0
    out, err = capsys.readouterr()
    return code, out, err


def _both(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[_Ending, _Ending]:
    """``argv`` run by click's ``main`` and without click: each one's exit code, stdout and stderr."""
    line = command_line.read(argv)
    assert line is not None, argv  # the case is one the entry point runs without click
    monkeypatch.setattr(sys, "argv", ["toolproof", *argv])
    by_click = _ended(click_main, capsys)
    without = _ended(lambda: command_line.run(line), capsys)
    return by_click, without


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (_WORKSPACE_CALL, 0),
        (["call", "file-read", "--args", '{"path": 3}', "--workspace", "."], 0),  # a tool error is data
        (["call", "file-read", "--args", "{not json", "--workspace", "."], 0),
        (["call", "file-reed", "--workspace", "."], 2),  # unknown: click's usage error, the tools named
        (["call", "file-read"], 2),  # not served without a workspace: says to pass --workspace
        (["call", "file-read", "--toolset", "nope"], 2),
        (["call", "file-read", "--project", "missing"], 2),
        (["serve", "mcp", "--toolset", "nope"], 2),
        (["serve", "mcp", "--toolset", "skill-docs", "--skills", "sub"], 0),  # served till stdin's end
    ],
)
def test_without_click_a_command_prints_and_ends_as_with_click(
    argv: list[str], code: int, folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with open(os.devnull, encoding="utf-8") as nothing:  # a server serves till stdin's end
        monkeypatch.setattr(sys, "stdin", nothing)
        by_click, without = _both(argv, capsys, monkeypatch)

    assert by_click == without
    assert by_click[0] == code


def test_no_tool_to_serve_is_the_same_usage_error_without_click(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every tool of the set needs a workspace that was not given: the warnings, then click's usage error."""
    by_click, without = _both(["serve", "mcp", "--toolset", "aintern"], capsys, monkeypatch)

    assert by_click == without
    code, _, err = without
    assert code == 2
    assert err.startswith("warning: ")
    assert err.endswith("Usage: toolproof serve mcp [OPTIONS]\nTry 'toolproof serve mcp --help' for help.\n\n"
                        "Error: no tool to serve in tool set 'aintern'\n")  # fmt: skip


def test_the_installed_command_runs_a_usual_line_without_importing_click(folder: Path) -> None:
    """The console script goes through ``launch``: the call is answered and click is never imported."""
    probe = "import sys, runpy; sys.argv = ['toolproof', *sys.argv[1:]]; from toolproof.launch import main; main(); "
    probe += "print('click' in sys.modules, file=sys.stderr)"
    run = subprocess.run(
        [sys.executable, "-c", probe, *_WORKSPACE_CALL], capture_output=True, text=True, timeout=60, check=False
    )

    assert run.returncode == 0, run.stderr
    assert '"ok": true' in run.stdout
    assert run.stderr.splitlines()[-1] == "False"
