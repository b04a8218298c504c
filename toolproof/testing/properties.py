"""Check what a contract's annotations claim, by calling its tool twice and watching the test folder.

The annotations mean what MCP's tool annotations mean (``readOnlyHint``,
``destructiveHint``, ``idempotentHint``), judged on the environment the test
can see: the test folder, which holds the example's fixtures and workspaces.

``read_only`` ("does not modify its environment"): no path under the folder
changes (kind, content, mode, mtime), none is added or removed, on either call.
Not ``destructive`` ("performs only additive updates"): nothing that was there
is gone. ``idempotent`` ("calling the tool repeatedly with the same arguments
will have no additional effect on its environment"): the second call leaves
the folder as the first left it (kinds, contents and modes; rewriting a file
with the same bytes is no effect). Its answer may differ: an "update status"
tool reports the previous status. ``same_answer``, the contract's own key, asks
for more: the second call answers as the first did, the same output or the
same error code.

The generated ``test_<module>_properties.py`` calls ``check_example_properties``
once per usable example; the fuzz host (``fuzz.py``) calls ``check_properties``
on arguments drawn from the input schema.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolproof.runtime.result import ToolResult
from toolproof.testing.difference import differences
from toolproof.testing.replay import (
    TEST_DIR,
    as_unprivileged,
    example_named,
    example_runtime,
    lay_example,
    project_tool,
    sets_modes,
    substitute,
    with_token,
)

__all__ = ["Hints", "PropertyFailure", "Snapshot", "check_example_properties", "check_properties", "snapshot"]

Snapshot = dict[str, tuple[str, int, int, str]]
"""Every path under a folder (POSIX, relative) → (kind, mode, mtime_ns, sha256 of a file or a link's target)."""


class PropertyFailure(AssertionError):
    """A tool's behaviour contradicts one of its contract's annotations."""


@dataclass(frozen=True, slots=True)
class Hints:
    """The annotations a contract declares, as the checks read them."""

    read_only: bool = False
    destructive: bool = True
    idempotent: bool = False
    same_answer: bool = False
    """The contract's ``same_answer``: a second identical call gives the same output or error code."""


def _entry(path: Path, st: os.stat_result) -> tuple[str, int, int, str]:
    mode = stat.S_IMODE(st.st_mode)
    if stat.S_ISLNK(st.st_mode):
        return ("symlink", mode, st.st_mtime_ns, os.readlink(path))
    if stat.S_ISDIR(st.st_mode):
        return ("dir", mode, st.st_mtime_ns, "")
    if not stat.S_ISREG(st.st_mode):  # a FIFO or socket: opening it could block
        return ("special", mode, st.st_mtime_ns, "")
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        digest = f"unreadable: {exc.errno}"
    return ("file", mode, st.st_mtime_ns, digest)


def snapshot(base: Path) -> Snapshot:
    """What is under ``base`` now, without following links (atimes left out: reads change them)."""
    found: Snapshot = {}
    for folder, dirs, names in os.walk(base):
        for name in (*dirs, *names):
            path = Path(folder) / name
            found[path.relative_to(base).as_posix()] = _entry(path, path.lstat())
    return found


def _changed(before: tuple[str, int, int, str], after: tuple[str, int, int, str], *, mtime: bool) -> str | None:
    """What changed of one path (its kind, mode, content or link target, mtime), or None."""
    (kind, mode, when, content), (new_kind, new_mode, new_when, new_content) = before, after
    parts: list[str] = []
    if kind != new_kind:
        parts.append(f"kind {kind} -> {new_kind}")
    if mode != new_mode:
        parts.append(f"mode {mode:o} -> {new_mode:o}")
    if content != new_content:
        parts.append(f"link target {content!r} -> {new_content!r}" if kind == "symlink" else "content")
    if mtime and when != new_when:
        parts.append("mtime")
    return ", ".join(parts) or None


def _changes(before: Snapshot, after: Snapshot, *, mtime: bool = True) -> list[str]:
    """Each path removed, added or changed; ``mtime=False`` leaves out a change of mtime alone."""
    added = [f"added {p}" for p in sorted(set(after) - set(before))]
    removed = [f"removed {p}" for p in sorted(set(before) - set(after))]
    changed = [
        f"changed {p} ({what})"
        for p in sorted(set(before) & set(after))
        if (what := _changed(before[p], after[p], mtime=mtime)) is not None
    ]
    return [*removed, *added, *changed]


def _answers_differ(first: ToolResult, second: ToolResult) -> str | None:
    """How the second answer differs from the first (code, or output field by field); None when alike."""
    codes = [None if r.error is None else r.error.code for r in (first, second)]
    if codes[0] != codes[1]:
        said = ["success" if code is None else f"error '{code}'" for code in codes]
        return f"the second call gave {said[1]} after {said[0]}"
    if first.output == second.output:
        return None
    lines = differences(first.output, second.output)
    return "the second output differs from the first:" + "".join(f"\n  {line}" for line in lines)


def check_properties(call: Callable[[], ToolResult], base: Path, hints: Hints, label: str) -> ToolResult:
    """Call twice and check the folder ``base`` and the two results against ``hints``.

    Args:
        call: one call of the tool with fixed arguments.
        base: the folder whose files the tool may touch.
        hints: the contract's annotations.
        label: names the call in a failure (an example's name, or the arguments).

    Returns:
        The first call's result.

    Raises:
        PropertyFailure: naming the annotation and each difference.
    """
    before = snapshot(base)
    first = call()
    middle = snapshot(base)
    second = call()
    after = snapshot(base)
    problems: list[str] = []
    if hints.read_only:
        problems += [f"read_only, but {c}" for c in _changes(before, middle) + _changes(middle, after)]
    if not hints.destructive:
        gone = (set(before) - set(middle)) | (set(middle) - set(after))
        problems += [f"not destructive, but deleted {p}" for p in sorted(gone)]
    if hints.idempotent:
        problems += [f"idempotent, but the second call {c}" for c in _changes(middle, after, mtime=False)]
    if hints.same_answer:
        differ = _answers_differ(first, second)
        if differ is not None:
            problems.append(f"same_answer, but {differ}")
    if problems:
        apart = "\n" if any("\n" in problem for problem in problems) else "; "
        raise PropertyFailure(f"{label}: " + apart.join(dict.fromkeys(problems)))
    return first


def check_example_properties(
    module: str, name: str, base: Path, hints: Hints, *, project: Path | None = None
) -> ToolResult:
    """Lay an example's fixtures under ``base`` and check ``hints`` on two calls with its input.

    The example's expectations are not checked here (the conformance test does);
    examples that change files after the host starts are not for this check.

    Raises:
        PropertyFailure: the tool contradicts an annotation.
    """
    tool, config = project_tool(module, project)
    example = substitute(example_named(tool, name), TEST_DIR, str(base.resolve()))
    given: Mapping[str, Any] = example.get("given", {})
    workspaces = lay_example(example, base)
    session = example.get("session", "conformance")
    runtime = example_runtime(config, tool, base, workspaces)
    arguments = dict(example["input"])
    if "skill_token" in example:
        arguments = with_token(runtime, tool, arguments, session, example["skill_token"])
    text = json.dumps(arguments)
    restricted = sets_modes(given.get("files", {}))

    def call() -> ToolResult:
        def once() -> ToolResult:
            return runtime.call(tool.spec.name, text, session=session)

        return as_unprivileged(once) if restricted else once()

    return check_properties(call, base, hints, f"example {name!r}")
