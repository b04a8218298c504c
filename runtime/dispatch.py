"""Dispatch one tool call: parse, validate, run the handler, check, render.

Every call ends in a ``ToolResult``: the handler's output with the text the
model reads, or a catalogued error. Nothing a caller sends, and nothing a
handler raises, escapes as an exception.

Every result can be written by every transport: arguments holding a lone
surrogate (text UTF-8 cannot carry) are refused as ``invalid_arguments`` naming
where; a lone surrogate that a handler puts in its output, a message or a text
(a file name read from disk, say) becomes U+FFFD; an output that is not JSON at
all is ``internal_error``; and a result larger than ``max_result_bytes`` is
``response_too_large``, so no host is handed more than it can send.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

import orjson

from toolproof.runtime.coercion import coerce_integers
from toolproof.runtime.context import EnumSource, ResourceCheck, Resources, ToolContext
from toolproof.runtime.errors import (
    INTERNAL_ERROR,
    INVALID_ARGUMENTS,
    RESPONSE_TOO_LARGE,
    STANDARD_ERRORS,
    UNKNOWN_TOOL,
    RegistryError,
    ToolError,
)
from toolproof.runtime.nulls import drop_absent_nulls
from toolproof.runtime.printable import encodable, encodable_json, printable
from toolproof.runtime.registry import BoundTool, bind
from toolproof.runtime.result import ErrorInfo, ToolResult, json_bytes, json_value
from toolproof.runtime.spec import ToolSpec, load_specs
from toolproof.runtime.template import Template

__all__ = ["MAX_ARGUMENT_BYTES", "MAX_RESULT_BYTES", "Runtime"]

_log = logging.getLogger("toolproof.dispatch")

MAX_ARGUMENT_BYTES = 1 << 20
"""Argument strings longer than this are refused before parsing (1 MiB)."""

MAX_RESULT_BYTES = 16 << 20
"""Results larger than this (rendered text plus output as JSON) become ``response_too_large`` (16 MiB)."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_PLAIN_KEY = re.compile("[a-zA-Z][a-zA-Z0-9_]*")
_UNKNOWN = Template(STANDARD_ERRORS[UNKNOWN_TOOL].message)
_DEFAULT_ERROR_RENDER = Template("ERROR: {message}")


class _BadArguments(Exception):
    def __init__(self, detail: str) -> None:
        self.detail = detail


def _key_path(path: str, key: str) -> str:
    """``path`` extended by one property, in the JSON-path grammar of validation messages."""
    if _PLAIN_KEY.fullmatch(key):
        return f"{path}.{key}"
    quoted = printable(key).replace("'", "\\'")
    return f"{path}['{quoted}']"


def _lone_surrogate(value: Any, path: str = "$") -> str | None:
    """Where in ``value`` a string (or a property name) holds a lone surrogate, as a message; None if nowhere."""
    if isinstance(value, str):
        found = _SURROGATE.search(value)
        if found is None:
            return None
        where = f"{printable(found.group())} at character {found.start()}"
        return f"{path}: holds a lone surrogate ({where}), which is not text"
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str) and _SURROGATE.search(key) is not None:
                return f"{_key_path(path, key)}: the property name holds a lone surrogate, which is not text"
            problem = _lone_surrogate(item, _key_path(path, str(key)))
            if problem is not None:
                return problem
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            problem = _lone_surrogate(item, f"{path}[{index}]")
            if problem is not None:
                return problem
    return None


def _text_only(value: Any) -> Any:
    """``value`` unchanged, after making sure no string in it holds a lone surrogate.

    Raises:
        _BadArguments: one does; the message names where.
    """
    try:
        orjson.dumps(value)  # fast, and refuses lone surrogates (also big integers and non-JSON types)
        return value
    except orjson.JSONEncodeError:
        pass
    try:
        problem = _lone_surrogate(value)
    except RecursionError:
        raise _BadArguments("$: arguments are nested too deeply") from None
    if problem is not None:
        raise _BadArguments(problem + "; send valid Unicode text")
    return value


def _parse(arguments: str | bytes | Mapping[str, Any] | None, limit: int) -> Any:
    if arguments is None:
        return {}
    if isinstance(arguments, Mapping):
        return _text_only(arguments)
    if len(arguments) > limit:
        raise _BadArguments(f"$: arguments are {len(arguments)} bytes long; the limit is {limit}")
    try:
        parsed = json_value(arguments)
    except RecursionError:
        raise _BadArguments("$: arguments are nested too deeply") from None
    except ValueError as exc:
        raise _BadArguments(f"$: arguments are not valid JSON ({exc})") from None
    return _text_only(parsed)


def _utf8(text: str) -> tuple[str, int]:
    """``text`` with any lone surrogate replaced by U+FFFD, and its length in UTF-8."""
    if text.isascii():
        return text, len(text)
    try:
        return text, len(text.encode("utf-8"))
    except UnicodeEncodeError:
        text = encodable(text)
        return text, len(text.encode("utf-8"))


def _as_json(output: Any) -> tuple[Any, int] | None:
    """``output`` as every transport can write it (lone surrogates made U+FFFD) and its size as JSON.

    None when it cannot be JSON at all (a type JSON has no form for).
    """
    try:
        return output, len(json_bytes(output))
    except ValueError:
        pass
    repaired = encodable_json(output)
    try:
        return repaired, len(json_bytes(repaired))
    except ValueError:
        return None


class Runtime:
    """The tools of one host: contracts bound to handlers, ready to call.

    Args:
        tools: bound tools to serve (default: the built-in tools, ``toolproof.generated``).
        resources: what the host hands its tools (see ``toolproof.runtime.context``);
            a tool whose contract ``needs`` a resource not given here is not served.
        validate_output: check every output against the contract's output schema.
        toolset: serve only the contracts of this tool set (all when None).
        max_argument_bytes: longest argument string accepted.
        max_result_bytes: largest result handed to a transport: its rendered text and its output
            as JSON, in UTF-8 bytes; a larger one is ``response_too_large``.

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
        max_result_bytes: int = MAX_RESULT_BYTES,
    ) -> None:
        bound = list(tools) if tools is not None else bind(load_specs())
        if toolset is not None:
            bound = [tool for tool in bound if toolset in tool.spec.toolsets]
        self.resources = resources if isinstance(resources, Resources) else Resources(resources)
        self.validate_output = validate_output
        self.max_argument_bytes = max_argument_bytes
        self.max_result_bytes = max_result_bytes
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

        The result can always be written as UTF-8 JSON, and is no larger than
        ``max_result_bytes`` (see the module's docstring).

        Args:
            name: the tool's wire name.
            arguments: a JSON object as text (as LLM APIs send it) or already parsed.
            session: the caller's session, for tools that keep per-session state.
        """
        tool = self._tools.get(name)
        if tool is None:
            message = _UNKNOWN.render({"tool": name, "available": ", ".join(self._tools) or "none"})
            error = ErrorInfo(UNKNOWN_TOOL, encodable(message), STANDARD_ERRORS[UNKNOWN_TOOL].hint)
            return ToolResult(encodable(name), None, error, _DEFAULT_ERROR_RENDER.render({"message": error.message}))
        result, output_size = self._run(tool, arguments, session)
        return self._sealed(tool.spec, result, output_size)

    def _run(
        self, tool: BoundTool, arguments: str | bytes | Mapping[str, Any] | None, session: str | None
    ) -> tuple[ToolResult, int]:
        """The result of one call of a served tool, and the size of its output as JSON."""
        spec = tool.spec
        name = spec.name
        try:
            args = _parse(arguments, self.max_argument_bytes)
            if tool.nulls is not None:
                args = drop_absent_nulls(tool.nulls, args)
            if not tool.input.is_valid(args):
                raise _BadArguments(tool.input.explain(args))
            args = coerce_integers(tool.integers, args) if tool.integers is not None else args
        except _BadArguments as bad:
            return self._error(spec, INVALID_ARGUMENTS, {"detail": bad.detail}), 0
        except Exception:  # a validator that cannot cope (values beyond its range)
            _log.exception("validating the arguments of %s failed", name)
            return self._error(spec, INVALID_ARGUMENTS, {"detail": "$: arguments cannot be validated"}), 0
        try:
            output = tool.handler(args, self.context(name, session))
        except ToolError as exc:
            if exc.code not in spec.errors or exc.code == INTERNAL_ERROR:
                _log.error("%s raised %r, which is not in its catalogue", name, exc)
                return self._error(spec, INTERNAL_ERROR, {}), 0
            return self._raised(spec, exc), 0
        except Exception:
            _log.exception("handler of %s failed", name)
            return self._error(spec, INTERNAL_ERROR, {}), 0
        writable = _as_json(output)
        if writable is None:
            _log.error("%s returned output that cannot be written as JSON (a %s)", name, type(output).__name__)
            return self._error(spec, INTERNAL_ERROR, {}), 0
        output, size = writable
        if size > self.max_result_bytes:  # before validating or rendering what cannot be sent anyway
            return self._too_large(spec, size), 0
        if self.validate_output:
            try:
                problem = None if tool.output.is_valid(output) else tool.output.explain(output)
            except Exception:
                _log.exception("validating the output of %s failed", name)
                problem = "it cannot be validated"
            if problem is not None:
                _log.error("%s returned output that breaks its contract: %s", name, problem)
                return self._error(spec, INTERNAL_ERROR, {}), 0
        try:
            text = spec.render_result.render(output, output)
        except Exception:
            _log.exception("rendering the result of %s failed", name)
            return self._error(spec, INTERNAL_ERROR, {}), 0
        return ToolResult(name, output, None, text), size

    def _sealed(self, spec: ToolSpec, result: ToolResult, output_size: int) -> ToolResult:
        """``result`` with lone surrogates in its texts made U+FFFD, or ``response_too_large`` past the cap."""
        text, size = _utf8(result.text)
        error = result.error
        if error is not None:
            message, message_size = _utf8(error.message)
            hint, hint_size = _utf8(error.hint) if error.hint is not None else (None, 0)
            size += message_size + hint_size
            if message is not error.message or hint is not error.hint:
                error = ErrorInfo(error.code, message, hint)
        size += output_size
        if size > self.max_result_bytes:
            return self._too_large(spec, size)
        if text is result.text and error is result.error:
            return result
        return ToolResult(result.tool, result.output, error, text)

    def _too_large(self, spec: ToolSpec, size: int) -> ToolResult:
        _log.warning("a result of %s was %d bytes, over the limit of %d", spec.name, size, self.max_result_bytes)
        result = self._error(spec, RESPONSE_TOO_LARGE, {"size": size, "limit": self.max_result_bytes})
        return replace(result, text=encodable(result.text))

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
        except (KeyError, TypeError, ValueError, RecursionError):  # a missing or unwritable parameter
            text = _DEFAULT_ERROR_RENDER.render(values)
        return ToolResult(spec.name, None, error, text)
