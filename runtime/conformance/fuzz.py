"""Fuzz a tool from its input schema: every call must end in a valid output or a catalogued error.

``valid_arguments`` draws objects the input schema accepts (mixed with the
strings its examples use, so paths hit real fixtures); ``near_misses`` bends one
of them: boundary and out-of-range integers, whole-number floats, empty, 10 KiB
and lone-surrogate strings, an extra or missing field, a wrong type, a
non-object. ``FuzzHost`` lays the union of the examples' files in one folder and
makes each call in a thread with a time bound: ``internal_error``, an error the
contract does not catalogue, or a hang fails. The runtime checks every output
against the output schema (``validate_output``), so a bad output surfaces as
``internal_error``.

hypothesis-jsonschema would derive the strategies, but its last release (0.23.1)
fails on object schemas with current Hypothesis; ``_strategy`` covers the
keywords contracts use.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from toolproof.runtime.conformance.fixtures import lay_fixtures
from toolproof.runtime.conformance.properties import Hints, check_properties
from toolproof.runtime.conformance.replay import (
    TEST_DIR,
    as_unprivileged,
    example_runtime,
    project_tool,
    sets_modes,
    substitute,
    with_token,
)
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import INTERNAL_ERROR
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.result import ToolResult
from toolproof.runtime.skills.resources import skill_gate

__all__ = ["CALL_TIMEOUT", "FuzzFailure", "FuzzHost", "fuzz_examples", "near_misses", "valid_arguments"]

CALL_TIMEOUT = float(os.environ.get("TOOLPROOF_FUZZ_TIMEOUT", "10"))
"""Seconds one call may take before the fuzz test calls it a hang."""

HUGE = 10 * 1024
"""Length of the huge strings near misses use (bounded, so a run stays fast)."""


class FuzzFailure(AssertionError):
    """A fuzzed call ended in ``internal_error``, an uncatalogued error, or did not end in time."""


def fuzz_examples(default: int = 25) -> int:
    """How many examples each fuzz test draws: ``TOOLPROOF_FUZZ_EXAMPLES``, else ``default``."""
    return int(os.environ.get("TOOLPROOF_FUZZ_EXAMPLES", default))


def _strategy(schema: Any, seeds: tuple[str, ...]) -> st.SearchStrategy[Any]:
    """Values ``schema`` accepts (the keywords contracts use); strings also from ``seeds``."""
    if not isinstance(schema, Mapping):
        return st.none() if schema is False else _json_values()
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(list(schema["enum"]))
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([_strategy(sub, seeds) for sub in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([_strategy({**schema, "type": k}, seeds) for k in kind])
    if kind == "string":
        low, high = schema.get("minLength", 0), schema.get("maxLength", 200)
        pattern = schema.get("pattern")
        drawn = (
            st.from_regex(pattern).filter(lambda s: low <= len(s) <= high)
            if pattern
            else st.text(min_size=low, max_size=high)
        )
        fitting = [s for s in seeds if low <= len(s) <= high and (not pattern or re.search(pattern, s))]
        return st.one_of(st.sampled_from(fitting), drawn) if fitting else drawn
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "number":
        return st.floats(schema.get("minimum"), schema.get("maximum"), allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = _strategy(schema.get("items", {}), seeds)
        return st.lists(items, min_size=schema.get("minItems", 0), max_size=schema.get("maxItems", 5))
    if kind == "object" or "properties" in schema:
        props: Mapping[str, Any] = schema.get("properties", {})
        required = [name for name in schema.get("required", ()) if name in props]
        return st.fixed_dictionaries(
            {name: _strategy(props[name], seeds) for name in required},
            optional={name: _strategy(sub, seeds) for name, sub in props.items() if name not in required},
        )
    return _json_values()


def _json_values() -> st.SearchStrategy[Any]:
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
    return st.recursive(
        scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3)
    )


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)


def _usable(example: Mapping[str, Any]) -> bool:
    return bool(example["expect"].get("error") != "unknown_tool")


def _seeds(tool: BoundTool) -> tuple[str, ...]:
    found = {s for ex in tool.spec.examples if _usable(ex) for s in _strings(ex["input"])}
    found |= {p for ex in tool.spec.examples for p in ex.get("given", {}).get("files", {})}
    return tuple(sorted(found))


def valid_arguments(module: str, *, project: Path | None = None) -> st.SearchStrategy[Any]:
    """Arguments the input schema of ``module`` accepts (bound when first drawn)."""

    def build() -> st.SearchStrategy[Any]:
        tool = project_tool(module, project)[0]
        inputs = [ex["input"] for ex in tool.spec.examples if _usable(ex)]
        drawn = _strategy(tool.spec.input_schema, _seeds(tool))
        return st.one_of(st.sampled_from(inputs), drawn) if inputs else drawn

    return st.deferred(build)


_WRONG: tuple[Any, ...] = (None, True, 1.5, "1", [], {}, -1)
_EDGE_STRINGS = ("", "x" * HUGE, "\ud800", "a\udfffb", "\x00", "../" * 50, "\u202e\ufeff", "${TEST_DIR}")


def _near(arguments: Any, schema: Mapping[str, Any], draw: st.DrawFn) -> Any:
    if not isinstance(arguments, dict):
        return arguments
    props: Mapping[str, Any] = schema.get("properties", {})
    kinds = ["extra", "non_object"] + (["drop", "wrong", "edge"] if props else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "extra":
        return {**arguments, draw(st.sampled_from(["x-extra", "", "__proto__"])): draw(_json_values())}
    if kind == "non_object":
        return draw(st.sampled_from([[], "arguments", 0, None, [arguments]]))
    name = draw(st.sampled_from(sorted(props)))
    if kind == "drop":
        return {k: v for k, v in arguments.items() if k != name}
    if kind == "wrong":
        return {**arguments, name: draw(st.sampled_from(_WRONG))}
    sub = props[name] if isinstance(props[name], Mapping) else {}
    if sub.get("type") in ("integer", "number"):
        bounds = [b for key in ("minimum", "maximum") if (b := sub.get(key)) is not None]
        near = [v for b in bounds for v in (b - 1, b, b + 1)] + [0, -1, 2**31, 2**63, -(2**63) - 1, 10**30]
        value = draw(st.sampled_from(near))
        return {**arguments, name: float(value) if draw(st.booleans()) and abs(value) < 2**53 else value}
    return {**arguments, name: draw(st.sampled_from(_EDGE_STRINGS))}


def near_misses(module: str, *, project: Path | None = None) -> st.SearchStrategy[Any]:
    """Valid arguments of ``module`` with one thing bent (see the module's docstring)."""

    @st.composite
    def bent(draw: st.DrawFn) -> Any:
        tool = project_tool(module, project)[0]
        return _near(draw(valid_arguments(module, project=project)), tool.spec.input_schema, draw)

    return bent()


class FuzzHost:
    """A runtime serving one tool over a folder laid from all its examples' files."""

    def __init__(self, tool: BoundTool, runtime: Runtime, base: Path, restricted: bool) -> None:
        self.tool = tool
        self.runtime = runtime
        self.base = base
        self.restricted = restricted
        self.gated = skill_gate(runtime, tool.spec.name) is not None

    @classmethod
    @contextmanager
    def open(cls, module: str, *, project: Path | None = None) -> Iterator[FuzzHost]:
        """Lay the union of the examples' ``given.files`` in a temporary folder and serve ``module`` over it.

        A fixture that clashes with one laid before it (a file where another
        example has a folder) is left out.
        """
        tool, config = project_tool(module, project)
        with tempfile.TemporaryDirectory(prefix="toolproof-fuzz-") as folder:
            base = Path(folder).resolve()
            restricted = False
            lay_fixtures(base, {})
            for example in tool.spec.examples:
                files = substitute(example.get("given", {}).get("files", {}), TEST_DIR, str(base))
                for rel, spec in files.items():
                    try:
                        lay_fixtures(base, {rel: spec})
                    except (OSError, ValueError):
                        continue
                    restricted = restricted or sets_modes({rel: spec})
            try:
                yield cls(tool, example_runtime(config, tool, base), base, restricted)
            finally:
                for path, _, _ in os.walk(base):  # let the temporary folder go, whatever modes the fixtures set
                    Path(path).chmod(0o700)

    def _text(self, arguments: Any, token: bool) -> str:
        arguments = substitute(arguments, TEST_DIR, str(self.base))
        if token and self.gated and isinstance(arguments, dict):
            arguments = with_token(self.runtime, self.tool, arguments, "fuzz", "valid")
        return json.dumps(arguments)  # ASCII: lone surrogates travel as \\ud800 escapes, as a client may send them

    def call(self, arguments: Any, *, token: bool = False) -> ToolResult:
        """One call with ``arguments`` (a valid skill token added when ``token``), bounded in time.

        Raises:
            FuzzFailure: the call did not end within ``CALL_TIMEOUT`` seconds.
        """
        text = self._text(arguments, token)
        box: dict[str, Any] = {}

        def once() -> ToolResult:
            return self.runtime.call(self.tool.spec.name, text, session="fuzz")

        def run() -> None:
            try:
                box["result"] = as_unprivileged(once) if self.restricted else once()
            except BaseException as exc:  # handed to the caller's thread
                box["error"] = exc

        thread = threading.Thread(target=run, name="toolproof-fuzz", daemon=True)
        thread.start()
        thread.join(CALL_TIMEOUT)
        if thread.is_alive():
            raise FuzzFailure(f"{self.tool.spec.name} did not answer within {CALL_TIMEOUT:g} s: {text[:500]}")
        if "error" in box:
            raise box["error"]
        result: ToolResult = box["result"]
        return result

    def check(self, arguments: Any, *, token: bool = False) -> ToolResult:
        """Call and assert the result is an output or a catalogued error other than ``internal_error``.

        Raises:
            FuzzFailure: naming the tool, the arguments and the error.
        """
        result = self.call(arguments, token=token)
        error = result.error
        if error is not None and (error.code == INTERNAL_ERROR or error.code not in self.tool.spec.errors):
            raise FuzzFailure(
                f"{self.tool.spec.name} with {self._text(arguments, token)[:500]} ended in"
                f" {error.code!r}: {error.message}"
            )
        return result

    def check_properties(self, arguments: Any, hints: Hints, *, token: bool = False) -> ToolResult:
        """``check`` twice through ``properties.check_properties`` on the host's folder."""
        return check_properties(
            lambda: self.check(arguments, token=token), self.base, hints, self._text(arguments, token)
        )
