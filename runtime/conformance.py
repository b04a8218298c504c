"""Replay a contract example against the runtime and check what it expects.

The generated conformance tests call ``run_example`` once per example; the
same function serves any host that wants to hold a handler to its contract.
"""

from __future__ import annotations

import ctypes
import json
import os
import threading
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from runtime.context import AuditRecord
from runtime.dispatch import Runtime
from runtime.fixtures import lay_fixtures
from runtime.registry import BoundTool, bind
from runtime.result import ToolResult
from runtime.spec import load_specs

__all__ = ["ExampleFailure", "bound_tool", "check_expectation", "replay", "run_example"]


class ExampleFailure(AssertionError):
    """A result does not match what its contract example expects."""


T = TypeVar("T")

DAC_CAPABILITIES = (1, 2)
"""CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH: what lets root ignore file permissions."""


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _drop_dac_capabilities() -> None:
    """Give up, in the calling thread only, root's power to ignore file permissions."""
    libc = ctypes.CDLL(None, use_errno=True)
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = (_CapData * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capget failed")
    mask = ~sum(1 << cap for cap in DAC_CAPABILITIES) & 0xFFFFFFFF
    data[0].effective &= mask
    data[0].permitted &= mask
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def as_unprivileged(fn: Callable[[], T]) -> T:
    """Run ``fn`` so that file modes bind even when the process runs as root.

    Root ignores permission bits, so an example's unreadable fixture would read
    fine. Capabilities are per thread on Linux: ``fn`` runs in a thread of its
    own that first drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH.
    """
    if os.geteuid() != 0:
        return fn()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            _drop_dac_capabilities()
            box["value"] = fn()
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=run, name="toolproof-unprivileged")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value


def bound_tool(module: str) -> BoundTool:
    """The generated contract ``module`` bound to its handler (cached)."""
    return _bound(module)


@cache
def _bound(module: str) -> BoundTool:
    (spec,) = load_specs((module,))
    (tool,) = bind([spec], check_extra=False)
    return tool


def _example(tool: BoundTool, name: str) -> Mapping[str, Any]:
    for example in tool.spec.examples:
        if example["name"] == name:
            return example
    raise LookupError(f"contract '{tool.spec.name}' has no example named {name!r}")


def _show(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return text if len(text) < 2000 else text[:2000] + "..."


def check_expectation(name: str, expect: Mapping[str, Any], result: ToolResult) -> None:
    """Compare a result with an example's ``expect`` block.

    Raises:
        ExampleFailure: naming the example and each difference.
    """
    problems: list[str] = []
    code = expect.get("error")
    if code is not None:
        if result.error is None:
            problems.append(f"expected error '{code}', got success with output {_show(result.output)}")
        else:
            if result.error.code != code:
                problems.append(f"expected error '{code}', got '{result.error.code}': {result.error.message}")
            if "message" in expect and result.error.message != expect["message"]:
                problems.append(f"expected message {expect['message']!r}, got {result.error.message!r}")
    elif result.error is not None:
        problems.append(f"expected success, got error '{result.error.code}': {result.error.message}")
    else:
        if "output" in expect and result.output != expect["output"]:
            problems.append(f"expected output {_show(expect['output'])}, got {_show(result.output)}")
        for key in expect.get("output_has", ()):
            if not isinstance(result.output, Mapping) or key not in result.output:
                problems.append(f"expected output.{key} to be present")
        for key, value in expect.get("output_includes", {}).items():
            got = result.output.get(key, "<absent>") if isinstance(result.output, Mapping) else "<no object>"
            if got != value:
                problems.append(f"expected output.{key} = {_show(value)}, got {_show(got)}")
    if "text" in expect and result.text != expect["text"]:
        problems.append(f"expected text {expect['text']!r}, got {result.text!r}")
    for part in expect.get("text_contains", ()):
        if part not in result.text:
            problems.append(f"expected the text to contain {part!r}, got {result.text[:500]!r}")
    if problems:
        raise ExampleFailure(f"example {name!r}: " + "; ".join(problems))


TEST_DIR = "${TEST_DIR}"
"""Stands for the test folder's absolute path in an example's strings."""


def substitute(value: Any, marker: str, replacement: str) -> Any:
    """``value`` with ``marker`` replaced in every string it holds (keys included)."""
    if isinstance(value, str):
        return value.replace(marker, replacement)
    if isinstance(value, list):
        return [substitute(item, marker, replacement) for item in value]
    if isinstance(value, Mapping):
        return {substitute(k, marker, replacement): substitute(v, marker, replacement) for k, v in value.items()}
    return value


CONFORMANCE_SECRET = b"toolproof-conformance"
"""The gate secret examples run under, so their tokens are reproducible."""


def _with_token(
    runtime: Runtime, tool: BoundTool, arguments: dict[str, Any], session: str, kind: str
) -> dict[str, Any]:
    gate = runtime.gate(tool.spec.name)
    if gate is None:
        raise LookupError(f"contract '{tool.spec.name}' has no skill gate")
    if kind == "valid":
        token = gate.token(session)
    elif kind == "other_session":
        token = gate.token(session + "-other")
    else:  # stale: a token for an older SKILL.md
        token = gate.token(session, digest=b"\x00" * 32)
    return {**arguments, gate.spec.token_argument: token}


def run_example(module: str, name: str, base: Path) -> ToolResult:
    """Lay down an example's fixtures under ``base``, call its tool, check the result.

    Every file access the call records must resolve inside the test folder's roots.

    Raises:
        ExampleFailure: the result differs from the example, or a read left the roots.
    """
    tool = _bound(module)
    return replay(tool, _example(tool, name), base)


def replay(tool: BoundTool, example: Mapping[str, Any], base: Path) -> ToolResult:
    """Run one example (from a contract, or from a vectors file) against ``tool`` in the folder ``base``.

    Raises:
        ExampleFailure: the result differs from the example, or a read left the roots.
    """
    name = example["name"]
    example = substitute(example, TEST_DIR, str(base.resolve()))
    lay_fixtures(base, example.get("given", {}).get("files", {}))
    workspaces = [base / folder for folder in example.get("workspaces", ["workspace"])]
    for folder in workspaces:
        folder.mkdir(exist_ok=True)
    records: list[AuditRecord] = []
    given = example.get("given", {})
    session = example.get("session", "conformance")
    restricted = any(
        isinstance(spec, Mapping) and "mode" in spec
        for spec in (*given.get("files", {}).values(), *given.get("after_start", {}).values())
    )

    def scenario() -> tuple[Runtime, ToolResult]:
        runtime = Runtime(
            workspace=workspaces,
            skills=[base / "skills"],
            tools=[tool],
            audit=records.append,
            gate_secret=CONFORMANCE_SECRET,
        )
        lay_fixtures(base, given.get("after_start", {}))
        arguments = dict(example["input"])
        if "skill_token" in example:
            arguments = _with_token(runtime, tool, arguments, session, example["skill_token"])
        return runtime, runtime.call(tool.spec.name, json.dumps(arguments), session=session)

    runtime, result = as_unprivileged(scenario) if restricted else scenario()
    check_expectation(name, example["expect"], result)
    roots = runtime.roots
    for record in records:
        if record.outcome == "ok" and not any(Path(record.path).is_relative_to(root) for root in roots):
            raise ExampleFailure(f"example {name!r}: read {record.path}, outside the allowed roots")
    return result
