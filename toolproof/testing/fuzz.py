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

Valid arguments are valid: the strategies (``strategies.schema_values``)
resolve ``$ref`` and honour the keywords contracts use, and what they draw is
filtered through the input schema's validator; an example is sampled only when
it expects no ``invalid_arguments`` and its input passes the schema. So
``invalid_arguments`` is a failure for any arguments the served input schema
accepts (after the runtime drops the nulls it reads as absent), unless the
runtime refuses them for a reason it documents beyond the schema: a string
holding a lone surrogate, arguments longer than ``max_argument_bytes``, or a
value its validator cannot cope with.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from toolproof.builtin.skills.resources import skill_gate
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import INTERNAL_ERROR, INVALID_ARGUMENTS, UNKNOWN_TOOL
from toolproof.runtime.nulls import drop_absent_nulls
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.result import ToolResult
from toolproof.runtime.validation import SchemaValidator
from toolproof.testing.fixtures import lay_fixtures
from toolproof.testing.properties import Hints, check_properties
from toolproof.testing.replay import (
    TEST_DIR,
    as_unprivileged,
    example_runtime,
    project_tool,
    sets_modes,
    substitute,
    with_token,
)
from toolproof.testing.strategies import json_values, schema_values

__all__ = ["CALL_TIMEOUT", "FuzzFailure", "FuzzHost", "fuzz_examples", "near_misses", "valid_arguments"]

CALL_TIMEOUT = float(os.environ.get("TOOLPROOF_FUZZ_TIMEOUT", "10"))
"""Seconds one call may take before the fuzz test calls it a hang."""

HUGE = 10 * 1024
"""Length of the huge strings near misses use (bounded, so a run stays fast)."""


class FuzzFailure(AssertionError):
    """A fuzzed call ended in ``internal_error``, an uncatalogued error, a refusal of valid arguments, or a hang."""


def fuzz_examples(default: int = 25) -> int:
    """How many examples each fuzz test draws: ``TOOLPROOF_FUZZ_EXAMPLES``, else ``default``."""
    return int(os.environ.get("TOOLPROOF_FUZZ_EXAMPLES", default))


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
    return bool(example["expect"].get("error") != UNKNOWN_TOOL)


def _accepts(validator: SchemaValidator, arguments: Any) -> bool:
    """Whether ``validator`` accepts ``arguments``; False when it cannot tell (a value beyond its range)."""
    try:
        return validator.is_valid(arguments)
    except Exception:  # the runtime refuses such arguments too, as invalid_arguments
        return False


def _seeds(tool: BoundTool) -> tuple[str, ...]:
    found = {s for ex in tool.spec.examples if _usable(ex) for s in _strings(ex["input"])}
    found |= {p for ex in tool.spec.examples for p in ex.get("given", {}).get("files", {})}
    return tuple(sorted(found))


def valid_arguments(module: str, *, project: Path | None = None) -> st.SearchStrategy[Any]:
    """Arguments the input schema of ``module`` accepts (bound when first drawn).

    Drawn from the schema and filtered through its validator, mixed with the
    inputs of the examples that expect no ``invalid_arguments`` and pass it.
    """

    def build() -> st.SearchStrategy[Any]:
        tool = project_tool(module, project)[0]
        inputs = [
            ex["input"]
            for ex in tool.spec.examples
            if _usable(ex) and ex["expect"].get("error") != INVALID_ARGUMENTS and _accepts(tool.input, ex["input"])
        ]
        drawn = schema_values(tool.spec.input_schema, _seeds(tool)).filter(lambda value: _accepts(tool.input, value))
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
        return {**arguments, draw(st.sampled_from(["x-extra", "", "__proto__"])): draw(json_values())}
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
        served = next(spec for spec in runtime.specs if spec.name == tool.spec.name)
        self._served = SchemaValidator(served.input_schema)
        """The input schema as the runtime serves it (dynamic enums filled from the folder's resources)."""

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

        ``invalid_arguments`` passes only for arguments the runtime may refuse:
        those the served input schema rejects, and those ``_refusable`` names.

        Raises:
            FuzzFailure: naming the tool, the arguments and the error.
        """
        result = self.call(arguments, token=token)
        error = result.error
        if error is None:
            return result
        wrong = error.code == INTERNAL_ERROR or error.code not in self.tool.spec.errors
        if wrong or (error.code == INVALID_ARGUMENTS and not self._refusable(arguments, token=token)):
            accepted = "" if wrong else ", though the input schema accepts them"
            raise FuzzFailure(
                f"{self.tool.spec.name} with {self._text(arguments, token)[:500]} ended in"
                f" {error.code!r}{accepted}: {error.message}"
            )
        return result

    def _refusable(self, arguments: Any, *, token: bool = False) -> bool:
        """Whether the runtime may answer ``arguments`` (as ``call`` sends them) with ``invalid_arguments``.

        It may when the input schema it serves rejects them once it has dropped
        the nulls it reads as absent, and for what it refuses beyond the schema:
        text holding a lone surrogate, arguments longer than its
        ``max_argument_bytes``, values its validator cannot cope with.
        """
        text = self._text(arguments, token)
        if len(text) > self.runtime.max_argument_bytes:
            return True
        sent = json.loads(text)
        try:
            json.dumps(sent, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: not text
            return True
        except RecursionError:
            return True
        if self.tool.nulls is not None:
            sent = drop_absent_nulls(self.tool.nulls, sent)
        return not _accepts(self._served, sent)

    def check_properties(self, arguments: Any, hints: Hints, *, token: bool = False) -> ToolResult:
        """``check`` twice through ``properties.check_properties`` on the host's folder."""
        return check_properties(
            lambda: self.check(arguments, token=token), self.base, hints, self._text(arguments, token)
        )
