"""A contract's ``timeout``: past it a call ends in ``timed_out``, and the pool of such handlers is bounded."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from toolproof.generator import Level, load_project
from toolproof.runtime.context import ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import STANDARD_ERRORS, TIMED_OUT, ToolError
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.spec import ToolSpec
from toolproof.runtime.timeouts import EXIT_GRACE

HANG_BOUND = 10.0
"""Seconds a call that must time out may take at most: a bound on hanging, not a speed target."""


def _spec(timeout: float | None) -> ToolSpec:
    return ToolSpec.from_data(
        {
            "name": "nap",
            "module": "nap",
            "handler": "tests:nap",
            **({"timeout": timeout} if timeout is not None else {}),
            "input": {
                "type": "object",
                "properties": {"seconds": {"type": "number", "minimum": 0}, "mode": {"type": "string"}},
                "required": ["seconds"],
                "additionalProperties": False,
            },
            "output": {"type": "object", "properties": {"slept": {"type": "number"}}, "required": ["slept"]},
            "errors": {"too_sleepy": {"message": "Too sleepy for {seconds} s"}},
            "render": {"result": "slept {slept}", "error": "ERROR: {message}"},
            "examples": [],
            "source": "contracts/nap.yaml",
        }
    )


release = threading.Event()
"""Set to let a handler called with ``mode: wait`` go on."""


def _nap(args: Any, ctx: ToolContext) -> Any:
    seconds = args["seconds"]
    mode = args.get("mode")
    if mode == "raise":
        raise ToolError("too_sleepy", f"Too sleepy for {seconds} s", {"seconds": seconds})
    if mode == "broken":
        return {"slept": "a while"}
    if mode == "wait":
        release.wait(HANG_BOUND)
    time.sleep(seconds)
    return {"slept": seconds}


def _runtime(timeout: float | None = 0.2, workers: int = 4) -> Runtime:
    return Runtime(tools=[BoundTool.build(_spec(timeout), _nap)], timeout_workers=workers)


def test_a_handler_that_sleeps_past_its_timeout_ends_in_timed_out_within_the_bound() -> None:
    runtime = _runtime(timeout=0.2)

    started = time.monotonic()
    result = runtime.call("nap", {"seconds": 3})
    elapsed = time.monotonic() - started

    assert result.error is not None and result.error.code == TIMED_OUT
    assert result.error.message == "The tool did not finish within 0.2 s."
    assert result.error.hint == STANDARD_ERRORS[TIMED_OUT].hint
    assert result.text == "ERROR: The tool did not finish within 0.2 s."
    assert elapsed < HANG_BOUND


def test_timed_out_is_a_standard_error_served_with_504() -> None:
    assert STANDARD_ERRORS[TIMED_OUT].status == 504
    assert _spec(None).errors[TIMED_OUT].status == 504


def test_a_fast_handler_under_a_timeout_returns_its_output() -> None:
    result = _runtime(timeout=HANG_BOUND).call("nap", {"seconds": 0})

    assert result.error is None
    assert result.output == {"slept": 0}
    assert result.text == "slept 0"


def test_a_tool_without_a_timeout_runs_its_handler_inline() -> None:
    seen: list[threading.Thread] = []

    def handler(args: Any, ctx: ToolContext) -> Any:
        seen.append(threading.current_thread())
        return {"slept": 0}

    runtime = Runtime(tools=[BoundTool.build(_spec(None), handler)])

    assert runtime.call("nap", {"seconds": 0}).error is None
    assert seen == [threading.current_thread()]


def test_a_catalogued_error_under_a_timeout_is_returned_as_raised() -> None:
    result = _runtime(timeout=HANG_BOUND).call("nap", {"seconds": 1, "mode": "raise"})

    assert result.error is not None and result.error.code == "too_sleepy"
    assert result.error.message == "Too sleepy for 1 s"


def test_output_that_breaks_the_contract_under_a_timeout_is_internal_error() -> None:
    result = _runtime(timeout=HANG_BOUND).call("nap", {"seconds": 0, "mode": "broken"})

    assert result.error is not None and result.error.code == "internal_error"


def test_bad_arguments_under_a_timeout_are_invalid_arguments() -> None:
    result = _runtime(timeout=HANG_BOUND).call("nap", {"seconds": -1})

    assert result.error is not None and result.error.code == "invalid_arguments"


def test_a_saturated_pool_fails_a_call_with_a_timeout_fast() -> None:
    runtime = _runtime(timeout=0.1, workers=1)
    release.clear()
    try:
        first = runtime.call("nap", {"seconds": 0, "mode": "wait"})  # times out, its handler still waits
        started = time.monotonic()
        second = runtime.call("nap", {"seconds": 0}, session="other")
        elapsed = time.monotonic() - started
    finally:
        release.set()

    assert first.error is not None and first.error.code == TIMED_OUT
    assert second.error is not None and second.error.code == TIMED_OUT
    assert elapsed < HANG_BOUND


def test_a_worker_is_free_again_once_its_timed_out_handler_finishes() -> None:
    runtime = _runtime(timeout=0.1, workers=1)
    release.clear()
    try:
        assert runtime.call("nap", {"seconds": 0, "mode": "wait"}).error is not None
    finally:
        release.set()
    deadline = time.monotonic() + HANG_BOUND
    result = runtime.call("nap", {"seconds": 0})
    while result.error is not None and time.monotonic() < deadline:
        time.sleep(0.05)
        result = runtime.call("nap", {"seconds": 0})

    assert result.error is None


_EXITING = """
import sys, time
from pathlib import Path
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.registry import BoundTool
from tests.runtime.test_timeouts import _spec

def handler(args, ctx):
    time.sleep(args["seconds"])
    Path(sys.argv[1]).write_text("finished")
    return {"slept": args["seconds"]}

runtime = Runtime(tools=[BoundTool.build(_spec(0.1), handler)])
print(runtime.call("nap", {"seconds": float(sys.argv[2])}).error.code, flush=True)
"""


def _exit_after_a_timed_out_call(tmp_path: Path, seconds: float) -> tuple[subprocess.CompletedProcess[str], float]:
    root = Path(__file__).resolve().parents[2]
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", _EXITING, str(tmp_path / "mark"), str(seconds)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=HANG_BOUND + EXIT_GRACE,
    )
    return done, time.monotonic() - started


def test_a_handler_that_never_returns_does_not_keep_the_process_from_exiting(tmp_path: Path) -> None:
    done, elapsed = _exit_after_a_timed_out_call(tmp_path, 600)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "timed_out\n"
    assert "exiting with 1 handler(s) still running past their timeout" in done.stderr
    assert elapsed < HANG_BOUND
    assert not (tmp_path / "mark").exists()


def test_a_handler_finishing_soon_after_its_timeout_is_let_finish_at_exit(tmp_path: Path) -> None:
    done, _ = _exit_after_a_timed_out_call(tmp_path, 0.5)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "timed_out\n"
    assert (tmp_path / "mark").read_text() == "finished"
    assert "still running" not in done.stderr


def _contract(folder: Path, timeout: str) -> None:
    (folder / "contracts").mkdir()
    (folder / "contracts" / "nap.yaml").write_text(
        "name: nap\n"
        "version: 1.0.0\n"
        "title: Nap\n"
        "description: Sleep a while.\n"
        f"timeout: {timeout}\n"
        "annotations: {read_only: true, destructive: false, idempotent: true, open_world: false}\n"
        "input: {type: object, properties: {}, additionalProperties: false}\n"
        "output: {type: object, properties: {slept: {type: number}}, required: [slept]}\n"
        "errors: {}\n"
        "examples:\n"
        "  - name: naps\n"
        "    input: {}\n"
        "    expect: {output: {slept: 0}}\n",
        encoding="utf-8",
    )


def test_a_declared_timeout_reaches_the_generated_contract_and_the_spec(tmp_path: Path) -> None:
    _contract(tmp_path, "1.5")

    project = load_project(tmp_path)

    assert [str(p) for p in project.problems if p.level is Level.ERROR] == []
    data = project.contracts[0].data()
    assert data["timeout"] == 1.5
    assert ToolSpec.from_data(data).timeout == 1.5


def test_a_timeout_of_zero_is_a_lint_error(tmp_path: Path) -> None:
    _contract(tmp_path, "0")

    project = load_project(tmp_path)

    assert [str(p) for p in project.problems if p.level is Level.ERROR] == [
        "contracts/nap.yaml:5:10: error [TP101] contract format: $.timeout: must be greater than 0 (got 0)"
    ]


def test_a_negative_timeout_is_a_lint_error(tmp_path: Path) -> None:
    _contract(tmp_path, "-2.5")

    project = load_project(tmp_path)

    assert [str(p) for p in project.problems if p.level is Level.ERROR] == [
        "contracts/nap.yaml:5:10: error [TP101] contract format: $.timeout: must be greater than 0 (got -2.5)"
    ]
