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

from toolproof.builtin.files.audit import AuditRecord
from toolproof.builtin.skills.catalog import builtin_skills_dir
from toolproof.builtin.skills.gate import builtin_dir
from toolproof.builtin.skills.resources import skill_gate
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.host import HostOptions
from toolproof.runtime.project import ProjectConfig, activate, builtin_project, find_project, load_config
from toolproof.runtime.questions import Answer, read_answer, scripted_answer
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.result import ToolResult
from toolproof.runtime.toolbox import open_runtime, project_tools
from toolproof.testing.difference import differences, show
from toolproof.testing.fixtures import lay_fixtures

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


def bound_tool(module: str, project: Path | None = None) -> BoundTool:
    """The contract ``module`` of a project (default: the built-in tools) bound to its handler (cached)."""
    return _bound(module, _project_key(project))


def _project_key(project: Path | None) -> Path | None:
    """The settings file of the project at or above ``project``, or None for the built-in tools.

    Its owner is trusted as the owner of ``project`` (a generated test, whose code runs already).
    """
    if project is None:
        return None
    start = project if project.is_dir() else project.parent
    return find_project(start=start, trusted_owner=project.stat().st_uid).config_file


@cache
def _config(key: Path | None) -> ProjectConfig:
    config = builtin_project() if key is None else load_config(key)
    activate(config)
    return config


@cache
def _tools(key: Path | None) -> dict[str, BoundTool]:
    return {tool.spec.module: tool for tool in project_tools(_config(key))}


def _bound(module: str, key: Path | None) -> BoundTool:
    tools = _tools(key)
    if module not in tools:
        raise LookupError(f"{_config(key).name} has no contract module {module!r} (it has: {', '.join(tools)})")
    return tools[module]


def project_tool(module: str, project: Path | None = None) -> tuple[BoundTool, ProjectConfig]:
    """The contract ``module`` of the project at or above ``project`` (default: the built-in tools), and the project."""
    key = _project_key(project)
    return _bound(module, key), _config(key)


def sets_modes(files: Mapping[str, Any]) -> bool:
    """Whether fixtures set file modes (the example must then run without root's power over them)."""
    return any(isinstance(spec, Mapping) and "mode" in spec for spec in files.values())


def lay_example(example: Mapping[str, Any], base: Path) -> list[Path]:
    """Lay an example's fixtures under ``base`` and make its workspaces; returns the workspaces."""
    lay_fixtures(base, example.get("given", {}).get("files", {}))
    workspaces = [base / folder for folder in example.get("workspaces", ["workspace"])]
    for folder in workspaces:
        folder.mkdir(exist_ok=True)
    return workspaces


def example_runtime(
    config: ProjectConfig,
    tool: BoundTool,
    base: Path,
    workspaces: list[Path] | None = None,
    audit: Callable[[Any], None] | None = None,
) -> Runtime:
    """A runtime serving ``tool`` over the test folder ``base`` as examples run: its roots, the conformance secret."""
    options = HostOptions.of(
        workspace=workspaces if workspaces is not None else [base / "workspace"],
        skills=[base / "skills"],
        gate_secret=CONFORMANCE_SECRET,
        audit=audit,
        folder=base,
    )
    return open_runtime(config, options, tools=[tool])


def example_named(tool: BoundTool, name: str) -> Mapping[str, Any]:
    for example in tool.spec.examples:
        if example["name"] == name:
            return example
    raise LookupError(f"contract '{tool.spec.name}' has no example named {name!r}")


def _differs(what: str, expected: Any, got: Any, path: str = "$") -> str:
    """The differences of ``got`` from ``expected``, one indented line each, under a line naming ``what``."""
    lines = differences(expected, got, path)
    places = f"{len(lines)} place{'s' if len(lines) != 1 else ''}"
    return f"{what} differs in {places}:" + "".join(f"\n  {line}" for line in lines)


def check_expectation(name: str, expect: Mapping[str, Any], result: ToolResult) -> None:
    """Compare a result with an example's ``expect`` block.

    An output (or an error's output) that is not the expected one is shown by
    its differences (``difference.differences``), not whole.

    Raises:
        ExampleFailure: naming the example and each difference.
    """
    problems: list[str] = []
    code = expect.get("error")
    if code is not None:
        if result.error is None:
            problems.append(f"expected error '{code}', got success with output {show(result.output)}")
        else:
            if result.error.code != code:
                problems.append(f"expected error '{code}', got '{result.error.code}': {result.error.message}")
            if "message" in expect and result.error.message != expect["message"]:
                problems.append(f"expected message {expect['message']!r}, got {result.error.message!r}")
            if "error_output" in expect and result.error.output != expect["error_output"]:
                if result.error.output is None:
                    problems.append(f"expected error_output {show(expect['error_output'])}, got none")
                else:
                    problems.append(_differs("the error_output", expect["error_output"], result.error.output))
    elif result.error is not None:
        problems.append(f"expected success, got error '{result.error.code}': {result.error.message}")
    else:
        if "output" in expect and result.output != expect["output"]:
            problems.append(_differs("the output", expect["output"], result.output))
        for key in expect.get("output_has", ()):
            if not isinstance(result.output, Mapping) or key not in result.output:
                problems.append(f"expected output.{key} to be present")
        includes = expect.get("output_includes", {})
        if includes and not isinstance(result.output, Mapping):
            problems.append(f"expected an output object with {', '.join(includes)}, got {show(result.output)}")
        elif includes:
            got = {key: result.output[key] for key in includes if key in result.output}
            if got != includes:
                problems.append(_differs("the output", includes, got))
    if "text" in expect and result.text != expect["text"]:
        problems.append(f"expected text {expect['text']!r}, got {result.text!r}")
    for part in expect.get("text_contains", ()):
        if part not in result.text:
            problems.append(f"expected the text to contain {part!r}, got {result.text[:500]!r}")
    if problems:
        apart = "\n" if any("\n" in problem for problem in problems) else "; "
        raise ExampleFailure(f"example {name!r}: " + apart.join(problems))


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


def with_token(runtime: Runtime, tool: BoundTool, arguments: dict[str, Any], session: str, kind: str) -> dict[str, Any]:
    gate = skill_gate(runtime, tool.spec.name)
    if gate is None:
        raise LookupError(f"contract '{tool.spec.name}' has no skill gate")
    if kind == "valid":
        token = gate.token(session)
    elif kind == "other_session":
        token = gate.token(session + "-other")
    else:  # stale: a token for an older SKILL.md
        token = gate.token(session, digest=b"\x00" * 32)
    return {**arguments, gate.spec.token_argument: token}


def answered_call(
    runtime: Runtime, name: str, arguments: Mapping[str, Any], session: str, example: Mapping[str, Any]
) -> ToolResult:
    """Call a tool as a client that answers its questions as the example scripts them (``answers``).

    Without ``answers``, the call is a caller's that cannot be asked (a question ends it in
    ``input_unavailable``). With them, each question the tool asks must be the next one scripted, and
    every scripted answer must be asked for: an example cannot pass by asking nothing.

    Raises:
        ExampleFailure: the tool asked another question than the next one scripted, asked one when none
            was left, or never asked one the example answers.
    """
    script = list(example.get("answers", ()))
    if not script:
        return runtime.call(name, json.dumps(arguments), session=session)
    where = f"example {example['name']!r}"
    answers: dict[str, Answer] = {}
    for position, scripted in enumerate([*script, None]):
        outcome = runtime.call_asking(name, json.dumps(arguments), answers=answers, session=session)
        if isinstance(outcome, ToolResult):
            if scripted is not None:
                raise ExampleFailure(
                    f"{where}: the tool never asked '{scripted['ask']}', which answer {position + 1} answers"
                )
            return outcome
        if scripted is None:
            raise ExampleFailure(
                f"{where}: the tool asked '{outcome.name}' ({outcome.message!r}), which no answer answers"
            )
        if scripted["ask"] != outcome.name:
            raise ExampleFailure(
                f"{where}: the tool asked '{outcome.name}' ({outcome.message!r}), but answer {position + 1} answers"
                f" '{scripted['ask']}'"
            )
        wire = scripted_answer(outcome.kind, scripted["action"], scripted.get("value"))
        answer = read_answer(wire, runtime.spec(name).asks[outcome.name])
        if isinstance(answer, str):
            raise ExampleFailure(f"{where}: answer {position + 1} cannot be sent: {answer}")
        answers[outcome.name] = answer
    raise AssertionError("unreachable: the loop returns or raises at the end of the script")


def run_example(module: str, name: str, base: Path, *, project: Path | None = None) -> ToolResult:
    """Lay down an example's fixtures under ``base``, call its tool, check the result.

    Every file access the call records must resolve inside the test folder's roots.

    Args:
        module: the contract's module name.
        name: the example's name.
        base: an empty folder for the example's fixtures.
        project: a path inside the project whose contract it is (a generated
            test passes its own file); default: the built-in tools.

    Raises:
        ExampleFailure: the result differs from the example, or a read left the roots.
    """
    key = _project_key(project)
    tool = _bound(module, key)
    return replay(tool, example_named(tool, name), base, project=_config(key))


def replay(
    tool: BoundTool, example: Mapping[str, Any], base: Path, *, project: ProjectConfig | None = None
) -> ToolResult:
    """Run one example (from a contract, or from a vectors file) against ``tool`` in the folder ``base``.

    Raises:
        ExampleFailure: the result differs from the example, or a read left the roots.
    """
    name = example["name"]
    example = substitute(example, TEST_DIR, str(base.resolve()))
    workspaces = lay_example(example, base)
    records: list[AuditRecord] = []
    given = example.get("given", {})
    session = example.get("session", "conformance")
    restricted = sets_modes(given.get("files", {})) or sets_modes(given.get("after_start", {}))

    def scenario() -> ToolResult:
        runtime = example_runtime(project or builtin_project(), tool, base, workspaces, records.append)
        why = runtime.not_served(tool.spec.name)
        if why is not None and example["expect"].get("error") != "unknown_tool":  # what the host lacks, as call says
            where = "a resource comes from a factory the project's `resources` setting names"
            raise ExampleFailure(f"{name}: {why} ({where})")
        lay_fixtures(base, given.get("after_start", {}))
        arguments = dict(example["input"])
        if "skill_token" in example:
            arguments = with_token(runtime, tool, arguments, session, example["skill_token"])
        return answered_call(runtime, tool.spec.name, arguments, session, example)

    result = as_unprivileged(scenario) if restricted else scenario()
    check_expectation(name, example["expect"], result)
    roots = (
        *(w.resolve() for w in workspaces),
        (base / "skills").resolve(),
        builtin_skills_dir().resolve(),
        builtin_dir().resolve(),
    )
    for record in records:
        if record.outcome == "ok" and not any(Path(record.path).is_relative_to(root) for root in roots):
            raise ExampleFailure(f"example {name!r}: read {record.path}, outside the allowed roots")
    return result
