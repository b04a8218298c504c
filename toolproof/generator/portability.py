"""Examples any language can pass: expected texts only toolproof's Python runtime writes (TP311).

``toolproof conform`` holds a server in any language to a contract's examples,
so an example must pin what the contract decides, not what one runtime happens
to write. Reported, for each example:

- the message of a standard error whose words the runtime chooses: ``invalid_arguments``
  (``Invalid arguments: {detail}``, where the detail is the Python validator's sentence, with
  Python's quoting: ``(got '')``) and ``response_too_large`` (a size in the runtime's own JSON
  bytes), pinned by ``message``, by a ``text`` or ``error_output`` that shows the message, or by a
  ``text_contains`` that reaches past the JSON path. The code and the path are what any
  validator agrees on: ``text_contains: ["Invalid arguments: $.word:"]``;
- a rendered value whose JSON Python writes otherwise than ECMAScript's ``JSON.stringify``
  (and so most languages): a float with an integral value (``2.0``, which JavaScript writes ``2``),
  an exponent (``1e+16``, ``1e-07``), and an object or array (``{"a": 1}`` with Python's spaces),
  in a success's ``text`` or ``text_contains``, and a ``number`` param read from an error's ``message``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any, Final

from toolproof.generator.problems import Problem
from toolproof.generator.source import JsonPath, Source
from toolproof.runtime.errors import ASK_ERRORS, INVALID_ARGUMENTS, RESPONSE_TOO_LARGE, STANDARD_ERRORS
from toolproof.runtime.template import WHOLE, Template, TemplateSyntaxError, format_value

__all__ = ["portable_json", "python_only_texts"]

_RULE: Final = "python-specific-text"
_RUNTIME_WORDED: Final = {
    INVALID_ARGUMENTS: "its detail is the Python validator's sentence",
    RESPONSE_TOO_LARGE: "its size counts the bytes of the Python runtime's JSON",
}
"""Standard errors whose message the runtime words from its own findings, with why no other runtime matches it."""
_MESSAGE_FIELDS: Final = frozenset({"message", WHOLE, "detail", "size"})
_PATH_PIN: Final = re.compile(r"(?:.*Invalid arguments: )?\$(?:\.[A-Za-z_$][\w$]*|\[[^\]]*\])*:?")
"""A ``text_contains`` entry of an ``invalid_arguments`` example that pins no more than the JSON path."""
_JSON_AS_JS: Final = "JSON.stringify"


def portable_json(value: Any) -> str:
    """``value`` as ECMAScript's ``JSON.stringify`` writes it: no spaces, numbers in their shortest form.

    Strings inside are written as Python's JSON writes them with ``ensure_ascii=False``, which is
    what ``JSON.stringify`` writes for every well-formed string.
    """
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        return _es_number(value)
    if isinstance(value, int | str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ",".join(portable_json(item) for item in value) + "]"
    if isinstance(value, Mapping):
        pairs = (json.dumps(str(key), ensure_ascii=False) + ":" + portable_json(item) for key, item in value.items())
        return "{" + ",".join(pairs) + "}"
    return json.dumps(value, ensure_ascii=False)


def _es_number(value: float) -> str:
    """ECMAScript's ``Number::toString`` of ``value`` (Python's ``repr`` has the same shortest digits)."""
    if not math.isfinite(value):
        return "null"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    exact = Decimal(repr(abs(value))).as_tuple()
    digits = "".join(map(str, exact.digits))
    stripped = digits.rstrip("0")
    k, n = len(stripped), int(exact.exponent) + len(digits)  # value = 0.stripped x 10**n
    if k <= n <= 21:
        return sign + stripped + "0" * (n - k)
    if 0 < n <= 21:
        return sign + stripped[:n] + "." + stripped[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + stripped
    power = n - 1
    mantissa = stripped[0] + ("." + stripped[1:] if k > 1 else "")
    return f"{sign}{mantissa}e{'+' if power >= 0 else '-'}{abs(power)}"


def _template(text: Any) -> Template | None:
    try:
        return Template(text) if isinstance(text, str) else None
    except TemplateSyntaxError:
        return None


def _fields_in(shape: Any) -> Iterator[str]:
    """The placeholders of every template string in a ``render.error_output`` shape."""
    if isinstance(shape, str):
        template = _template(shape)
        yield from template.fields if template is not None else ()
    elif isinstance(shape, Mapping):
        for value in shape.values():
            yield from _fields_in(value)
    elif isinstance(shape, list):
        for value in shape:
            yield from _fields_in(value)


def python_only_texts(source: Source) -> list[Problem]:
    """Every place an example of ``source`` pins a text only toolproof's Python runtime writes (see the docstring).

    ``source`` must have passed the contract format's meta-schema.
    """
    data = source.data
    render = data.get("render", {})
    error_render = _template(render.get("error", "ERROR: {message}"))
    result_render = _template(render.get("result", "{$}"))
    shape_shows_message = bool(set(_fields_in(render.get("error_output"))) & _MESSAGE_FIELDS)
    problems: list[Problem] = []
    for i, example in enumerate(data["examples"]):
        at: JsonPath = ("examples", i, "expect")
        expect = example["expect"]
        code = expect.get("error")
        if code in _RUNTIME_WORDED:
            why = f"the message of the standard error '{code}' is the Python runtime's: {_RUNTIME_WORDED[code]}"
            fix = 'pin the code and the JSON path (text_contains: ["Invalid arguments: $.word:"])'
            if code != INVALID_ARGUMENTS:
                fix = "pin the code alone"
            if "message" in expect:
                problems.append(source.problem((*at, "message"), _RULE, f"{why}; {fix}"))
            shows = error_render is None or bool(set(error_render.fields) & _MESSAGE_FIELDS)
            if "text" in expect and shows:
                problems.append(source.problem((*at, "text"), _RULE, f"the text shows it: {why}; {fix}"))
            if "error_output" in expect and shape_shows_message:
                message = f"render.error_output shows the message: {why}; {fix}"
                problems.append(source.problem((*at, "error_output"), _RULE, message))
            for j, part in enumerate(expect.get("text_contains", ())):
                if code != INVALID_ARGUMENTS or not _PATH_PIN.fullmatch(part):
                    reach = f"text_contains {part!r} reaches past the JSON path: {why}; {fix}"
                    problems.append(source.problem((*at, "text_contains", j), _RULE, reach))
        elif code is None and result_render is not None:
            problems.extend(_rendered_values(source, at, expect, result_render))
        elif code is not None and "message" in expect:
            problems.extend(_message_numbers(source, at, data, code, expect["message"]))
    return problems


def _rendered_values(source: Source, at: JsonPath, expect: Mapping[str, Any], render: Template) -> Iterator[Problem]:
    """A success's pinned text that shows a value as Python writes its JSON, not as ``JSON.stringify`` does."""
    output = expect.get("output", expect.get("output_includes"))
    texts: list[tuple[tuple[str | int, ...], str]] = [(("text",), expect["text"])] if "text" in expect else []
    texts += [(("text_contains", j), part) for j, part in enumerate(expect.get("text_contains", ()))]
    if not isinstance(output, Mapping) or not texts:
        return
    seen: set[str] = set()
    for name in render.fields:
        if name in seen:
            continue
        seen.add(name)
        if name == WHOLE:
            if "output" not in expect:
                continue
            value: Any = expect["output"]
        elif name in output:
            value = output[name]
        else:
            continue
        if isinstance(value, str):
            continue
        python, portable = format_value(value), portable_json(value)
        if python == portable:
            continue
        for where, text in texts:
            if python in text:
                placeholder = "{" + name + "}"
                yield source.problem(
                    (*at, *where),
                    _RULE,
                    f"the text shows {placeholder} as Python writes its JSON, {_clip(python)}; {_JSON_AS_JS}"
                    f" (and so most languages) writes {_clip(portable)}: pin the output, not its rendering",
                )
                break


def _message_numbers(
    source: Source, at: JsonPath, data: Mapping[str, Any], code: str, message: str
) -> Iterator[Problem]:
    """A catalogued error's pinned message whose ``number`` param shows as Python writes a float (``2.0``)."""
    entry = data["errors"].get(code)
    template = _template(entry.get("message")) if isinstance(entry, Mapping) else None
    if template is None or code in STANDARD_ERRORS or code in ASK_ERRORS:
        return
    match = template.pattern().fullmatch(message)
    if match is None:
        return
    params = entry.get("params", {}) if isinstance(entry, Mapping) else {}
    for name, shown in match.groupdict().items():
        schema = params.get(name) if isinstance(params, Mapping) else None
        if not isinstance(schema, Mapping) or schema.get("type") != "number":
            continue
        try:
            number = float(shown)
        except ValueError:
            continue
        if math.isfinite(number) and format_value(number) == shown and _es_number(number) != shown:
            yield source.problem(
                (*at, "message"),
                _RULE,
                f"the message shows the number {{{name}}} as Python writes a float, {shown!r};"
                f" {_JSON_AS_JS} (and so most languages) writes {_es_number(number)!r}",
            )


def _clip(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")
