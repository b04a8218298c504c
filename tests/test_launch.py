"""A Ctrl-C at any moment of start-up ends the command: quietly, at once, never lost.

An outside review sent SIGINT to starting hosts: between 20 and 50 ms it
printed a KeyboardInterrupt traceback (raised inside imports), near 100 ms a
``PanicException`` (raised inside jsonschema-rs's initialisation), and once in
40 runs the signal was lost in a callback whose exceptions are ignored, and
the host went on serving. Here the signal comes from within the process, a
chosen time after ``toolproof.launch.main`` starts, through a timer.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.ports import free_port

_INTERRUPTED = """
import os, signal, sys
signal.signal(signal.SIGALRM, lambda *_: os.kill(os.getpid(), signal.SIGINT))
after, sys.argv = float(sys.argv[1]), ["toolproof", *sys.argv[2:]]
from toolproof.launch import main
signal.setitimer(signal.ITIMER_REAL, after)
try:
    main()
finally:  # a command that ended before the timer must not die of its alarm on the way out
    signal.setitimer(signal.ITIMER_REAL, 0)
"""

AFTER = [0.001, 0.004, 0.01, 0.02, 0.035, 0.05, 0.08, 0.12, 0.2, 0.4]


def _interrupted(argv: list[str], after: float, cwd: Path) -> subprocess.CompletedProcess[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", _INTERRUPTED, str(after), *argv],
        cwd=cwd,
        stdin=subprocess.PIPE,  # kept open: a server that missed the signal would serve on, and time out here
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        process.wait(timeout=30)  # not communicate(): it would close stdin, and a stdio server would end on that
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail(f"still running 30 s after SIGINT at {after} s: {process.communicate()[1][-2000:]}")
    out, err = process.communicate()
    return subprocess.CompletedProcess(argv, process.returncode, out, err)


def _quiet(run: subprocess.CompletedProcess[str]) -> None:
    """Ended at once (130, nothing said), or, once the command was ready, by click's "Aborted!" (1)."""
    assert (run.returncode, run.stderr) == (130, "") or (run.returncode == 1 and run.stderr.endswith("Aborted!\n")), (
        run.returncode,
        run.stderr[-3000:],
    )


@pytest.mark.parametrize("after", AFTER)
def test_serve_mcp_over_stdio_ends_quietly_on_a_ctrl_c_at_any_moment_of_start_up(after: float, tmp_path: Path) -> None:
    _quiet(_interrupted(["serve", "mcp", "--workspace", "."], after, tmp_path))


@pytest.mark.parametrize("after", AFTER)
def test_serve_http_ends_quietly_on_a_ctrl_c_at_any_moment_of_start_up(after: float, tmp_path: Path) -> None:
    _quiet(_interrupted(["serve", "http", "--workspace", ".", "--port", str(free_port())], after, tmp_path))


@pytest.mark.parametrize("after", AFTER[::3])
def test_a_one_shot_call_ends_quietly_on_a_ctrl_c(after: float, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")

    run = _interrupted(["call", "file-read", "--args", '{"path": "a.txt"}', "--workspace", "."], after, tmp_path)

    assert (
        (run.returncode, run.stderr) == (130, "")  # during start-up
        or (run.returncode == 1 and run.stderr.endswith("Aborted!\n"))  # while the handler ran: unwound
        or (run.returncode == 0 and '"ok": true' in run.stdout)  # it ended first
    ), run


def test_the_command_and_python_m_toolproof_start_through_launch() -> None:
    from importlib.metadata import entry_points

    (script,) = [ep for ep in entry_points(group="console_scripts") if ep.name == "toolproof"]
    main_module = (Path(__file__).parents[1] / "toolproof" / "__main__.py").read_text(encoding="utf-8")

    assert script.value == "toolproof.launch:main"
    assert "from toolproof.launch import main" in main_module


def test_a_ctrl_c_while_a_handler_runs_lets_the_handler_clean_up(tmp_path: Path) -> None:
    """The quiet exit is for start-up only: a handler holding a temporary file must get to remove it."""
    subprocess.run([sys.executable, "-m", "toolproof", "init", "proj"], cwd=tmp_path, check=True, capture_output=True)
    project, marker = tmp_path / "proj", tmp_path / "marker"
    (project / "handlers" / "word_count.py").write_text(
        "import os, pathlib, time\n\n\n"
        "def handle(args, ctx):\n"
        "    marker = pathlib.Path(os.environ['MARKER'])\n"
        "    marker.write_text('started')\n"
        "    try:\n"
        "        time.sleep(30)\n"
        "        return {'words': 0}\n"
        "    finally:\n"
        "        marker.write_text('cleaned up')\n",
        encoding="utf-8",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "toolproof", "call", "word_count", "--args", '{"text": "a b"}'],
        cwd=project,
        env={**os.environ, "MARKER": str(marker)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not (marker.exists() and marker.read_text() == "started") and time.monotonic() < deadline:
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)

    assert marker.read_text() == "cleaned up"
    assert process.returncode == 1 and err.endswith("Aborted!\n"), err
