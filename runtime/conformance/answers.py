"""An MCP server's answers read against a contract: its ``tools/list`` entry and its ``CallToolResult``.

Listing: the ``inputSchema`` and ``outputSchema`` a server lists for a tool
must be the ones the contract's generated MCP export (``exports/mcp/all.json``)
carries, keyword for keyword. Numbers compare by value (``1`` is ``1.0``, never
``true``) and ``required`` as a set; a dynamic enum's ``enum`` and
``description`` are the server's own (its values are discovered at start-up).

Success: MCP (2025-11-25, "Output Schema") requires a tool that declares an
output schema to return ``structuredContent`` that conforms to it, and every
contract declares one, so a successful result must carry an object the
output schema accepts (``format`` as an annotation, as the runtime checks).

Error: a server built with toolproof names its catalogued code in
``_meta["dev.toolproof/error"]``; its text must still be the contract's
``render.error`` of that code and message. A server in another language need
not send that key, so the code is read from what the model reads: the text
must be the contract's ``render.error`` of a catalogued code, whose ``{message}``
(or the ``message`` in ``{$}``) fits that code's message template. Where the
render names ``{code}`` or ``{$}`` the code is in the text; where it does not
(the default ``ERROR: {message}``) the message template tells the codes apart.
Only when several codes' templates fit the same text does the expected one win.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from typing import Any, Final

from toolproof.runtime.conformance.replay import ExampleFailure
from toolproof.runtime.result import ErrorInfo, ToolResult
from toolproof.runtime.serve.mcp import ERROR_META_KEY
from toolproof.runtime.spec import ToolSpec, generated_json
from toolproof.runtime.validation import SchemaValidator

__all__ = ["MCP_EXPORT", "read_result", "schema_difference"]

MCP_EXPORT: Final = "exports/mcp/all.json"
"""The generated package's MCP export: the ``tools/list`` entries of its contracts."""

_PLAIN_KEY = re.compile("[A-Za-z_][A-Za-z0-9_]*")
_JSON_MESSAGE = re.compile(r"(?<!\{)\{message\|json\}")
_SHOWN = 200


def _show(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _at(path: str, key: object) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if _PLAIN_KEY.fullmatch(str(key)) else f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def _same(got: object, want: object) -> bool:
    """Equal as JSON values: numbers by value, booleans only to booleans."""
    if isinstance(got, bool) or isinstance(want, bool):
        return type(got) is type(want) and got == want
    if isinstance(got, int | float) and isinstance(want, int | float):
        return got == want
    return type(got) is type(want) and got == want


def _difference(got: Any, want: Any, path: str) -> str | None:
    """Where ``got`` first differs from ``want``, as ``path: the server has X, the contract has Y``; None if nowhere."""
    if isinstance(got, Mapping) and isinstance(want, Mapping):
        for key, value in want.items():
            if key not in got:
                return f"{_at(path, key)}: the server has nothing, the contract has {_show(value)}"
            found = _difference(got[key], value, _at(path, key))
            if found is not None:
                return found
        extra = next((key for key in got if key not in want), None)
        if extra is None:
            return None
        return f"{_at(path, extra)}: the server has {_show(got[extra])}, the contract has nothing"
    mismatch = f"{path}: the server has {_show(got)}, the contract has {_show(want)}"
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        if path.endswith(".required") and all(isinstance(name, str) for name in (*got, *want)):
            return None if set(got) == set(want) else mismatch
        for index, (item, wanted) in enumerate(zip(got, want, strict=True)):
            found = _difference(item, wanted, _at(path, index))
            if found is not None:
                return found
        return None
    return None if _same(got, want) else mismatch


@cache
def _exported(package: str) -> Mapping[str, Mapping[str, Any]]:
    """The package's MCP export by tool name.

    Raises:
        RegistryError: the export cannot be read.
        ValueError: it is not the MCP export gen writes.
    """
    data = generated_json(package, MCP_EXPORT)
    try:
        return {tool["name"]: tool for tool in data["tools"]}
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{package}: {MCP_EXPORT} is not the MCP export gen writes; run `toolproof gen`") from exc


def _without_dynamic_enums(spec: ToolSpec, schema: Any) -> Any:
    """``schema`` without the ``enum`` and ``description`` of its dynamic-enum properties (a host fills them)."""
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if not spec.dynamic_enums or not isinstance(props, Mapping):
        return schema
    masked = {
        name: {k: v for k, v in sub.items() if k not in ("enum", "description")}
        if name in spec.dynamic_enums and isinstance(sub, Mapping)
        else sub
        for name, sub in props.items()
    }
    return {**schema, "properties": masked}


def schema_difference(spec: ToolSpec, listed: Mapping[str, Any]) -> str | None:
    """How the ``tools/list`` entry ``listed`` differs from the contract's MCP export; None when it does not.

    Raises:
        RegistryError, ValueError: the contract's MCP export cannot be read.
    """
    exported = _exported(spec.package).get(spec.name)
    if exported is None:
        return f"{spec.package}: {MCP_EXPORT} does not list '{spec.name}'; run `toolproof gen`"
    problems: list[str] = []
    for key in ("inputSchema", "outputSchema"):
        want = exported.get(key)
        if want is None:
            continue
        got = listed.get(key)
        if got is None:
            problems.append(f"tools/list gives '{spec.name}' no {key}; the contract's is {_show(want)}")
            continue
        if key == "inputSchema":
            got, want = _without_dynamic_enums(spec, got), _without_dynamic_enums(spec, want)
        found = _difference(got, want, "$")
        if found is not None:
            problems.append(f"tools/list gives '{spec.name}' an {key} other than the contract's: {found}")
    return "; ".join(problems) or None


def read_result(spec: ToolSpec, raw: Any, example: Mapping[str, Any]) -> ToolResult:
    """A server's ``CallToolResult`` for ``example`` as a ``ToolResult`` (see the module's docstring).

    Raises:
        ExampleFailure: it is no ``CallToolResult``, a success breaks the output schema, or an error's
            text is not the contract's rendering of a catalogued error (of the expected one, if any).
    """
    name = example["name"]
    if not isinstance(raw, Mapping) or not isinstance(raw.get("content"), list):
        raise ExampleFailure(f"example {name!r}: tools/call returned {_show(raw)}, not a CallToolResult")
    text = "".join(part.get("text", "") for part in raw["content"] if isinstance(part, Mapping))
    if not raw.get("isError"):
        return ToolResult(spec.name, _structured(spec, raw, name), None, text)
    meta = raw.get("_meta")
    error = meta.get(ERROR_META_KEY) if isinstance(meta, Mapping) else None
    if isinstance(error, Mapping) and isinstance(error.get("code"), str):
        code, message = error["code"], error.get("message")
        message = message if isinstance(message, str) else text
        if not _renders(spec, code, message, text):
            raise ExampleFailure(
                f"example {name!r}: the text {_show(text)} is not the contract's rendering of the error"
                f" {code!r} the server names in _meta (render.error {spec.render_error.source!r})"
            )
        output = error.get("output")  # render.error_output, when the contract has one
        info = ErrorInfo(code, message, output=output if isinstance(output, Mapping) else None)
        return ToolResult(spec.name, None, info, text)
    code, message = _read_error(spec, text, example)
    return ToolResult(spec.name, None, ErrorInfo(code, message), text)


def _structured(spec: ToolSpec, raw: Mapping[str, Any], name: str) -> Any:
    structured = raw.get("structuredContent")
    if not isinstance(structured, Mapping):
        raise ExampleFailure(
            f"example {name!r}: a successful result without structuredContent"
            f" (MCP requires it of a tool with an outputSchema), got {_show(structured)}"
        )
    validator = SchemaValidator(spec.output_schema)
    if not validator.is_valid(structured):
        raise ExampleFailure(
            f"example {name!r}: structuredContent breaks the output schema: {validator.explain(structured)}"
        )
    return structured


def _renders(spec: ToolSpec, code: str, message: str, text: str) -> bool:
    """Whether ``text`` is the contract's ``render.error`` of ``code`` with ``message``."""
    return spec.render_error.pattern({"code": code, "message": message}).fullmatch(text) is not None


def _rendering(spec: ToolSpec, code: str, hint: str | None) -> re.Pattern[str]:
    """What the contract's ``render.error`` of ``code`` can be: ``{message}`` must fit the code's message template.

    The template is spliced into the render's pattern (its groups renamed), so a
    text is matched whole, not split at the first place that looks like the end
    of the message. A message rendered as JSON (``{message|json}``) is checked
    once decoded. ``hint``, when given, is the ``{hint}`` the text must show.
    """
    known = {"code": code} if hint is None else {"code": code, "hint": hint}
    pattern = spec.render_error.pattern(known).pattern
    if not _JSON_MESSAGE.search(spec.render_error.source):
        inner = spec.errors[code].message.pattern().pattern.replace("(?P<", "(?P<m_").replace("(?P=", "(?P=m_")
        pattern = pattern.replace("(?P<message>.*?)", f"(?P<message>{inner})", 1)
    return re.compile(pattern, re.DOTALL)


def _message_in(spec: ToolSpec, code: str, text: str) -> str | None:
    """The message ``text`` carries if it is the contract's rendering of ``code``; None if it is not."""
    # The catalogue's hint first: a handler may give another, and a wildcard hint may split the text wrongly.
    match = _rendering(spec, code, spec.errors[code].hint or "").fullmatch(text)
    if match is None:
        match = _rendering(spec, code, None).fullmatch(text)
    if match is None:
        return None
    found = match.groupdict()
    message: Any = found.get("message")
    if message is not None and _JSON_MESSAGE.search(spec.render_error.source):
        try:
            message = json.loads(message)
        except ValueError:
            return None
    if "whole" in found:  # {$}: the error as JSON, {"code", "message", ...}
        try:
            whole = json.loads(found["whole"])
        except ValueError:
            return None
        if not isinstance(whole, Mapping) or whole.get("code") != code or message not in (None, whole.get("message")):
            return None
        message = whole.get("message")
    if message is None:  # the render shows no message: nothing more to read
        return text
    if not isinstance(message, str) or spec.errors[code].message.pattern().fullmatch(message) is None:
        return None
    return message


def _read_error(spec: ToolSpec, text: str, example: Mapping[str, Any]) -> tuple[str, str]:
    """The code and message of an error the server named only in its text.

    Raises:
        ExampleFailure: the example expects an error, and the text is not the contract's rendering of it.
    """
    read = {code: message for code in spec.errors if (message := _message_in(spec, code, text)) is not None}
    expected = example["expect"].get("error")
    if expected in read:
        return expected, read[expected]
    if expected is None:
        return next(iter(read.items()), ("(no catalogued error)", text))
    if read:
        rendering = f"is the contract's rendering of {', '.join(repr(code) for code in read)}, not of {expected!r}"
    else:
        rendering = "is not the contract's rendering of any catalogued error"
    entry = spec.errors.get(expected)
    template = f", message {entry.message.source!r}" if entry is not None else ""
    raise ExampleFailure(
        f"example {example['name']!r}: expected error {expected!r}; the server names no code in"
        f" _meta[{ERROR_META_KEY!r}], and its text {_show(text)} {rendering}"
        f" (render.error {spec.render_error.source!r}{template})"
    )
