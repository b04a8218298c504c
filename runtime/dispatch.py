"""Dispatch one tool call: parse, validate, run the handler, check, render.

Every call ends in a ``ToolResult``: the handler's output with the text the
model reads, or a catalogued error. Nothing a caller sends, and nothing a
handler raises, escapes as an exception.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

import orjson

from toolproof.runtime.context import EnumSource, ResourceCheck, Resources, ToolContext
from toolproof.runtime.errors import (
    INTERNAL_ERROR,
    INVALID_ARGUMENTS,
    STANDARD_ERRORS,
    UNKNOWN_TOOL,
    RegistryError,
    ToolError,
)
from toolproof.runtime.nulls import drop_absent_nulls
from toolproof.runtime.registry import BoundTool, bind
from toolproof.runtime.result import ErrorInfo, ToolResult
from toolproof.runtime.spec import ToolSpec, load_specs
from toolproof.runtime.template import Template

__all__ = ["MAX_ARGUMENT_BYTES", "Runtime"]

_log = logging.getLogger("toolproof.dispatch")

MAX_ARGUMENT_BYTES = 1 << 20
"""Argument strings longer than this are refused before parsing (1 MiB)."""

_LONG_DIGITS = re.compile(r"\d{19}")
_LONG_DIGITS_B = re.compile(rb"\d{19}")
_UNKNOWN = Template(STANDARD_ERRORS[UNKNOWN_TOOL].message)
_DEFAULT_ERROR_RENDER = Template("ERROR: {message}")


class _BadArguments(Exception):
    def __init__(self, detail: str) -> None:
        self.detail = detail


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def _parse(arguments: str | bytes | Mapping[str, Any] | None, limit: int) -> Any:
    if arguments is None:
        return {}
    if isinstance(arguments, Mapping):
        return arguments
    if len(arguments) > limit:
        raise _BadArguments(f"$: arguments are {len(arguments)} bytes long; the limit is {limit}")
    # orjson turns integers beyond 64 bits into floats, losing digits; the
    # standard library keeps them exact, and says where invalid text goes wrong.
    long_digits = _LONG_DIGITS_B if isinstance(arguments, bytes) else _LONG_DIGITS
    if long_digits.search(arguments) is None:  # type: ignore[arg-type]
        try:
            return orjson.loads(arguments)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(arguments, parse_constant=_reject_constant)
    except RecursionError:
        raise _BadArguments("$: arguments are nested too deeply") from None
    except ValueError as exc:
        raise _BadArguments(f"$: arguments are not valid JSON ({exc})") from None


class Runtime:
    """The tools of one host: contracts bound to handlers, ready to call.

    Args:
        tools: bound tools to serve (default: the built-in tools, ``toolproof.generated``).
        resources: what the host hands its tools (see ``toolproof.runtime.context``);
            a tool whose contract ``needs`` a resource not given here is not served.
        validate_output: check every output against the contract's output schema.
        toolset: serve only the contracts of this tool set (all when None).
        max_argument_bytes: longest argument string accepted.

    Raises:
        RegistryError: a contract has no handler, a handler module serves no
            contract, two resources share a name, or a resource cannot serve a
            tool that needs it.
    """

    def __init__(
        self,
        tools: Iterable[BoundTool] | None = None,
        *,
        resources: Iterable[object] = (),
        validate_output: bool = True,
        toolset: str | None = None,
        max_argument_bytes: int = MAX_ARGUMENT_BYTES,
    ) -> None:
        bound = list(tools) if tools is not None else bind(load_specs())
        if toolset is not None:
            bound = [tool for tool in bound if toolset in tool.spec.toolsets]
        self.resources = resources if isinstance(resources, Resources) else Resources(resources)
        self.validate_output = validate_output
        self.max_argument_bytes = max_argument_bytes
        self.unavailable: dict[str, tuple[str, ...]] = {}
        """Tools left out because the host did not supply what they need: name → missing resources."""
        served: list[BoundTool] = []
        problems: list[str] = []
        for tool in bound:
            missing = tuple(need for need in tool.spec.needs if need not in self.resources)
            if missing:
                self.unavailable[tool.spec.name] = missing
                continue
            for need in tool.spec.needs:
                resource = self.resources[need]
                if isinstance(resource, ResourceCheck):
                    problems.extend(resource.check(tool.spec))
            served.append(self._fill_enums(tool))
        if problems:
            raise RegistryError(problems)
        self._tools: dict[str, BoundTool] = {tool.spec.name: tool for tool in served}

    def _fill_enums(self, tool: BoundTool) -> BoundTool:
        """Give each dynamic-enum field the values its source has now (e.g. the discovered skills)."""
        if not tool.spec.dynamic_enums:
            return tool
        props = dict(tool.spec.input_schema.get("properties", {}))
        for field_name, source in tool.spec.dynamic_enums.items():
            values = self._enum_values(source)
            if values is not None:
                props[field_name] = {**props[field_name], "enum": values}
        schema = {**tool.spec.input_schema, "properties": props}
        return BoundTool.build(replace(tool.spec, input_schema=schema), tool.handler)

    def _enum_values(self, source: str) -> list[str] | None:
        for resource in self.resources.values():
            if isinstance(resource, EnumSource):
                values = resource.enum_values(source)
                if values is not None:
                    return values
        return None

    @property
    def specs(self) -> list[ToolSpec]:
        """The contracts served, in declared order."""
        return [tool.spec for tool in self._tools.values()]

    def context(self, tool: str, session: str | None = None) -> ToolContext:
        """The context a handler of ``tool`` receives for a call in ``session``."""
        bound = self._tools.get(tool)
        return ToolContext(tool, session, bound.spec if bound is not None else None, self.resources)

    def call(
        self,
        name: str,
        arguments: str | bytes | Mapping[str, Any] | None,
        *,
        session: str | None = None,
    ) -> ToolResult:
        """Run one tool call and return its result; never raises for bad input.

        Args:
            name: the tool's wire name.
            arguments: a JSON object as text (as LLM APIs send it) or already parsed.
            session: the caller's session, for tools that keep per-session state.
        """
        tool = self._tools.get(name)
        if tool is None:
            message = _UNKNOWN.render({"tool": name, "available": ", ".join(self._tools) or "none"})
            return ToolResult(
                name,
                None,
                ErrorInfo(UNKNOWN_TOOL, message, STANDARD_ERRORS[UNKNOWN_TOOL].hint),
                _DEFAULT_ERROR_RENDER.render({"message": message}),
            )
        spec = tool.spec
        try:
            args = _parse(arguments, self.max_argument_bytes)
            if tool.nulls is not None:
                args = drop_absent_nulls(tool.nulls, args)
            if not tool.input.is_valid(args):
                raise _BadArguments(tool.input.explain(args))
        except _BadArguments as bad:
            return self._error(spec, INVALID_ARGUMENTS, {"detail": bad.detail})
        except Exception:  # a validator that cannot cope (values beyond its range)
            _log.exception("validating the arguments of %s failed", name)
            return self._error(spec, INVALID_ARGUMENTS, {"detail": "$: arguments cannot be validated"})
        try:
            output = tool.handler(args, self.context(name, session))
        except ToolError as exc:
            if exc.code not in spec.errors or exc.code == INTERNAL_ERROR:
                _log.error("%s raised %r, which is not in its catalogue", name, exc)
                return self._error(spec, INTERNAL_ERROR, {})
            return self._raised(spec, exc)
        except Exception:
            _log.exception("handler of %s failed", name)
            return self._error(spec, INTERNAL_ERROR, {})
        if self.validate_output and not tool.output.is_valid(output):
            _log.error("%s returned output that breaks its contract: %s", name, tool.output.explain(output))
            return self._error(spec, INTERNAL_ERROR, {})
        try:
            text = spec.render_result.render(output, output)
        except Exception:
            _log.exception("rendering the result of %s failed", name)
            return self._error(spec, INTERNAL_ERROR, {})
        return ToolResult(name, output, None, text)

    def _raised(self, spec: ToolSpec, exc: ToolError) -> ToolResult:
        entry = spec.errors[exc.code]
        hint = exc.hint if exc.hint is not None else entry.hint
        return self._result(spec, ErrorInfo(exc.code, exc.message, hint), exc.params)

    def _error(self, spec: ToolSpec, code: str, params: Mapping[str, object]) -> ToolResult:
        entry = spec.errors[code]
        return self._result(spec, ErrorInfo(code, entry.message.render(params), entry.hint), params)

    def _result(self, spec: ToolSpec, error: ErrorInfo, params: Mapping[str, object]) -> ToolResult:
        values = {**params, "code": error.code, "message": error.message, "hint": error.hint or ""}
        try:
            text = spec.render_error.render(values, error.to_dict())
        except KeyError:
            text = _DEFAULT_ERROR_RENDER.render(values)
        return ToolResult(spec.name, None, error, text)
