"""An MCP server's ``CallToolResult`` read against a contract's example.

Success: MCP (2025-06-18 on, "Output Schema") requires a tool that declares an
output schema to return ``structuredContent`` that conforms to it, and every
contract declares one, so a successful result must carry an object the
output schema accepts, as the runtime checks it (its formats asserted, ``validation.FORMATS``).
Under an older revision (see ``revisions``) a result carries only its content:
where the contract renders the whole output (``render.result: "{$}"``) the text
is read as the output; elsewhere the text must be the contract's rendering of
the example's output, which is then all that is checked (``expectation``).

Error: a server built with toolproof names its catalogued code in
``_meta["dev.toolproof/error"]``; its text must still be the contract's
``render.error`` of that code and message. A server in another language need
not send that key, so the code is read from what the model reads: the text
must be the contract's ``render.error`` of a catalogued code, whose ``{message}``
(or the ``message`` in ``{$}``) fits that code's message template. Where the
render names ``{code}`` or ``{$}`` the code is in the text; where it does not
(the default ``ERROR: {message}``) the message template tells the codes apart.
Only when several codes' templates fit the same text does the expected one win.
Where the render shows ``{hint}``, the text must show the hint ``_meta`` names,
else the catalogue's: a server that sends no ``_meta`` proves its code by the
text alone, so its hint is the catalogue's. An error's output is read from
``_meta["dev.toolproof/error"].output``, else from ``structuredContent``; when an
example expects something conform found in neither place, the failure says
where it looked (``missing``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from toolproof.runtime.result import ErrorInfo, ToolResult
from toolproof.runtime.serve.mcp import ERROR_META_KEY
from toolproof.runtime.spec import ToolSpec
from toolproof.runtime.validation import SchemaValidator
from toolproof.testing.listing import show
from toolproof.testing.replay import ExampleFailure
from toolproof.testing.revisions import LATEST, structured

__all__ = ["expectation", "missing", "read_result"]

_JSON_MESSAGE = re.compile(r"(?<!\{)\{message\|json\}")
_WHOLE_OUTPUT: Final = ("{$}", "{$|json}")
_OUTPUT_KEYS: Final = ("output", "output_has", "output_includes")


def read_result(spec: ToolSpec, raw: Any, example: Mapping[str, Any], revision: str = LATEST) -> ToolResult:
    """A server's ``CallToolResult`` for ``example`` as a ``ToolResult`` (see the module's docstring).

    Args:
        spec: the contract.
        raw: the ``result`` of the ``tools/call`` answer.
        example: the contract's example the call replays.
        revision: the MCP revision the server negotiated.

    Raises:
        ExampleFailure: it is no ``CallToolResult``, a success breaks the output schema (or, from
            2025-06-18, carries no ``structuredContent``), or an error's text is not the contract's
            rendering of a catalogued error (of the expected one, if any).
    """
    name = example["name"]
    if not isinstance(raw, Mapping) or not isinstance(raw.get("content"), list):
        raise ExampleFailure(f"example {name!r}: tools/call returned {show(raw)}, not a CallToolResult")
    text = "".join(part.get("text", "") for part in raw["content"] if isinstance(part, Mapping))
    if not raw.get("isError"):
        if raw.get("structuredContent") is not None or structured(revision):
            return ToolResult(spec.name, _structured(spec, raw, name), None, text)
        output = _whole_output(spec, text, name, revision) if spec.render_result.source in _WHOLE_OUTPUT else None
        return ToolResult(spec.name, output, None, text)
    meta = raw.get("_meta")
    error = meta.get(ERROR_META_KEY) if isinstance(meta, Mapping) else None
    structured_error = raw.get("structuredContent")
    if isinstance(error, Mapping) and isinstance(error.get("code"), str):
        code, message = error["code"], error.get("message")
        message = message if isinstance(message, str) else text
        hint = error.get("hint") if isinstance(error.get("hint"), str) else _catalogue_hint(spec, code)
        if not _renders(spec, code, message, text, hint):
            said = "" if not _renders(spec, code, message, text, None) else f" with the hint {show(hint)}"
            raise ExampleFailure(
                f"example {name!r}: the text {show(text)} is not the contract's rendering of the error"
                f" {code!r} the server names in _meta{said} (render.error {spec.render_error.source!r})"
            )
        output = error.get("output")  # render.error_output, when the contract has one
        output = output if isinstance(output, Mapping) else structured_error
        info = ErrorInfo(code, message, hint, output=output if isinstance(output, Mapping) else None)
        return ToolResult(spec.name, None, info, text)
    code, message = _read_error(spec, text, example)
    output = structured_error if isinstance(structured_error, Mapping) else None
    return ToolResult(spec.name, None, ErrorInfo(code, message, output=output), text)


def missing(example: Mapping[str, Any], result: ToolResult) -> list[str]:
    """What ``example`` expects that the server's answer does not hold at all, each saying where conform looked.

    An answer that holds it with another value is left to ``check_expectation``, which shows the difference.
    """
    expect = example["expect"]
    found: list[str] = []
    if "error_output" in expect and result.error is not None and result.error.output is None:
        found.append(
            f"expected error_output {show(expect['error_output'])}, got none: looked in"
            f" result._meta[{json.dumps(ERROR_META_KEY)}].output and structuredContent"
        )
    return found


def _catalogue_hint(spec: ToolSpec, code: str) -> str:
    """The hint the contract's catalogue gives ``code`` ("" for none, as the runtime renders it)."""
    entry = spec.errors.get(code)
    return (entry.hint if entry is not None else None) or ""


def _structured(spec: ToolSpec, raw: Mapping[str, Any], name: str) -> Any:
    content = raw.get("structuredContent")
    if not isinstance(content, Mapping):
        raise ExampleFailure(
            f"example {name!r}: a successful result without structuredContent"
            f" (MCP requires it of a tool with an outputSchema), got {show(content)}"
        )
    validator = SchemaValidator(spec.output_schema)
    if not validator.is_valid(content):
        raise ExampleFailure(
            f"example {name!r}: structuredContent breaks the output schema: {validator.explain(content)}"
        )
    return content


def _whole_output(spec: ToolSpec, text: str, name: str, revision: str) -> Any:
    """The output a text shows when the contract renders the whole output as JSON."""
    try:
        output = json.loads(text)
    except ValueError:
        raise ExampleFailure(
            f"example {name!r}: under MCP {revision} a success carries no structuredContent, and its text"
            f" {show(text)} is not the JSON of the output (render.result {spec.render_result.source!r})"
        ) from None
    validator = SchemaValidator(spec.output_schema)
    if not validator.is_valid(output):
        problem = validator.explain(output)
        raise ExampleFailure(f"example {name!r}: the output in the text breaks the output schema: {problem}")
    return output


def expectation(spec: ToolSpec, expect: Mapping[str, Any], raw: Any, revision: str = LATEST) -> Mapping[str, Any]:
    """What of an example's ``expect`` block the server's ``CallToolResult`` ``raw`` can show.

    All of it, except for a success with no ``structuredContent`` under a revision
    before 2025-06-18 whose text is not the whole output as JSON: its output is
    unseen, so the text must be the contract's ``render.result`` of the expected
    output (unless the example names the text itself), and nothing more of the
    output is checked.
    """
    unseen = (
        not structured(revision)
        and isinstance(raw, Mapping)
        and not raw.get("isError")
        and raw.get("structuredContent") is None
        and spec.render_result.source not in _WHOLE_OUTPUT
    )
    if not unseen or "error" in expect:
        return expect
    kept = {key: value for key, value in expect.items() if key not in _OUTPUT_KEYS}
    output = expect.get("output")
    if isinstance(output, Mapping) and "text" not in kept:
        try:
            kept["text"] = spec.render_result.render(output, output)
        except KeyError:  # a placeholder the output lacks: the contract's own examples would fail first
            pass
    return kept


def _renders(spec: ToolSpec, code: str, message: str, text: str, hint: str | None) -> bool:
    """Whether ``text`` is the contract's ``render.error`` of ``code`` with ``message`` (and ``hint``, unless None)."""
    known = {"code": code, "message": message} if hint is None else {"code": code, "message": message, "hint": hint}
    return spec.render_error.pattern(known).fullmatch(text) is not None


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


def _message_in(spec: ToolSpec, code: str, text: str, *, any_hint: bool = False) -> str | None:
    """The message ``text`` carries if it is the contract's rendering of ``code``; None if it is not.

    The text must show the catalogue's hint where the render has ``{hint}``; with ``any_hint``, any hint.
    """
    match = _rendering(spec, code, None if any_hint else _catalogue_hint(spec, code)).fullmatch(text)
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
    hinted = expected in spec.errors and "hint" in spec.render_error.fields
    if read:
        rendering = f"is the contract's rendering of {', '.join(repr(code) for code in read)}, not of {expected!r}"
    elif hinted and _message_in(spec, expected, text, any_hint=True) is not None:
        rendering = (
            f"renders {expected!r} with a hint other than the catalogue's {show(_catalogue_hint(spec, expected))}"
            " (a handler's own hint must be named in _meta)"
        )
    else:
        rendering = "is not the contract's rendering of any catalogued error"
    entry = spec.errors.get(expected)
    template = f", message {entry.message.source!r}" if entry is not None else ""
    raise ExampleFailure(
        f"example {example['name']!r}: expected error {expected!r}; the server names no code in"
        f" _meta[{ERROR_META_KEY!r}], and its text {show(text)} {rendering}"
        f" (render.error {spec.render_error.source!r}{template})"
    )
