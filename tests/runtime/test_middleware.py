"""Middleware (``Runtime.use``): run around the calls of its tool sets, in order, and never a crash of the host."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from toolproof.runtime.context import Caller, calling_as
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.middleware import Call, Middleware, Proceed
from toolproof.runtime.result import ToolResult
from toolproof.runtime.toolbox import builtin_runtime


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    return builtin_runtime(workspace=[tmp_path])


def _recording(name: str, seen: list[str]) -> Middleware:
    def around(call: Call, proceed: Proceed) -> ToolResult:
        seen.append(f"{name} before {call.tool}")
        result = proceed()
        seen.append(f"{name} after {result.error.code if result.error else 'ok'}")
        return result

    return around


def test_middleware_runs_around_each_call_first_added_outermost(runtime: Runtime) -> None:
    seen: list[str] = []
    runtime.use(_recording("outer", seen))
    runtime.use(_recording("inner", seen))

    result = runtime.call("file-read", {"path": "notes.txt"})

    assert result.error is None
    assert seen == ["outer before file-read", "inner before file-read", "inner after ok", "outer after ok"]


def test_a_failed_call_reaches_the_middleware_as_its_error_result(runtime: Runtime) -> None:
    seen: list[str] = []
    runtime.use(_recording("m", seen))

    runtime.call("file-read", {"path": "missing.txt"})

    assert seen == ["m before file-read", "m after file_not_found"]


def test_middleware_sees_the_caller_and_the_arguments_parsed_even_when_sent_as_text(runtime: Runtime) -> None:
    calls: list[Call] = []

    def keep(call: Call, proceed: Proceed) -> ToolResult:
        calls.append(call)
        return proceed()

    runtime.use(keep)
    caller = Caller(subject="u1", client_id="c1", scopes=frozenset({"a"}), issuer="https://as.example")
    with calling_as(caller):
        runtime.call("file-read", '{"path": "notes.txt"}', session="s1")
    runtime.call("file-read", "not json")

    assert calls == [
        Call("file-read", {"path": "notes.txt"}, caller, "s1"),
        Call("file-read", None, None, None),
    ]


def test_middleware_runs_only_around_the_tool_sets_it_names(runtime: Runtime) -> None:
    seen: list[str] = []
    runtime.use(_recording("m", seen), toolsets=["gateway"])

    runtime.call("file-read", {"path": "notes.txt"})  # in tool set aintern
    runtime.call("read_file", {"path": "notes.txt"})  # in tool set gateway

    assert len(seen) == 2 and seen[0] == "m before read_file"
    assert not any("file-read" in line for line in seen)


def test_a_middleware_may_answer_without_running_the_call(runtime: Runtime) -> None:
    ran: list[str] = []
    own = ToolResult("file-read", {"content": "from the middleware"}, None, "from the middleware")

    def answer(call: Call, proceed: Proceed) -> ToolResult:
        return own

    def inner(call: Call, proceed: Proceed) -> ToolResult:
        ran.append(call.tool)
        return proceed()

    runtime.use(answer)
    runtime.use(inner)

    assert runtime.call("file-read", {"path": "notes.txt"}) is own
    assert ran == []


@pytest.mark.parametrize(
    ("broken", "logged"),
    [
        (lambda call, proceed: 1 / 0, "middleware"),
        (lambda call, proceed: {"not": "a result"}, "returned a dict, not the ToolResult"),
    ],
)
def test_a_middleware_that_raises_or_returns_no_result_ends_the_call_in_internal_error_and_the_host_goes_on(
    runtime: Runtime, caplog: pytest.LogCaptureFixture, broken: object, logged: str
) -> None:
    runtime.use(broken, toolsets=["aintern"])  # type: ignore[arg-type]

    with caplog.at_level(logging.ERROR, logger="toolproof.runtime"):
        failed = runtime.call("file-read", {"path": "notes.txt"})
    other = runtime.call("read_file", {"path": "notes.txt"})

    assert failed.error is not None and failed.error.code == "internal_error"
    assert logged in caplog.text
    assert other.error is None or other.error.code != "internal_error"
