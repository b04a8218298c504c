"""Replay a contract example against the runtime and check what it expects.

The generated conformance tests call ``run_example`` once per example; the
same function serves any host that wants to hold a handler to its contract.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from runtime.context import AuditRecord
from runtime.dispatch import Runtime
from runtime.fixtures import lay_fixtures
from runtime.registry import BoundTool, bind
from runtime.result import ToolResult
from runtime.spec import load_specs

__all__ = ["ExampleFailure", "check_expectation", "run_example"]


class ExampleFailure(AssertionError):
    """A result does not match what its contract example expects."""


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
        for key, value in expect.get("output_includes", {}).items():
            got = result.output.get(key, "<absent>") if isinstance(result.output, Mapping) else "<no object>"
            if got != value:
                problems.append(f"expected output.{key} = {_show(value)}, got {_show(got)}")
    if "text" in expect and result.text != expect["text"]:
        problems.append(f"expected text {expect['text']!r}, got {result.text!r}")
    if problems:
        raise ExampleFailure(f"example {name!r}: " + "; ".join(problems))


def run_example(module: str, name: str, base: Path) -> ToolResult:
    """Lay down an example's fixtures under ``base``, call its tool, check the result.

    Every file access the call records must resolve inside the test folder's roots.

    Raises:
        ExampleFailure: the result differs from the example, or a read left the roots.
    """
    tool = _bound(module)
    example = _example(tool, name)
    lay_fixtures(base, example.get("given", {}).get("files", {}))
    records: list[AuditRecord] = []
    runtime = Runtime(workspace=[base / "workspace"], skills=[base / "skills"], tools=[tool], audit=records.append)
    result = runtime.call(tool.spec.name, json.dumps(example["input"]), session=example.get("session"))
    check_expectation(name, example["expect"], result)
    roots = (*runtime.workspace, *runtime.skills)
    for record in records:
        if record.outcome == "ok" and not any(Path(record.path).is_relative_to(root) for root in roots):
            raise ExampleFailure(f"example {name!r}: read {record.path}, outside the allowed roots")
    return result
