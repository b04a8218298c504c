"""Every check a contract must pass, collected as problems with file:line:col.

Checks, in order: the meta-schema; input, output and every error's params are
valid JSON Schema, as strict as ajv's strict mode (``schemalint``); the file is
named after its module; catalogue codes and template placeholders; render
templates; each example against the schemas and the catalogue. Across files:
duplicate tool and module names. Each problem names its rule (``problems.RULES``).

Examples are judged by the runtime's own validator (``SchemaValidator``: the
same compiled jsonschema-rs check, ECMA-262 patterns, asserted formats), with
the nulls it reads as absent dropped from inputs first, so an example lint
passes is one the runtime, the conformance tests and the fuzz tests agree on.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from functools import cache, lru_cache
from importlib import resources
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, relevance

from toolproof.generator.kindchecks import kind_problems
from toolproof.generator.kinds import IMPLIED_KEYS, implied
from toolproof.generator.naming import PACKAGE_ENTRIES, module_name, tool_files
from toolproof.generator.portability import python_only_texts
from toolproof.generator.problems import Level, Problem
from toolproof.generator.schemalint import check_schema, number_hint
from toolproof.generator.source import JsonPath, Source
from toolproof.generator.vocabulary import did_you_mean
from toolproof.runtime.errors import ASK_ERRORS, INVALID_ARGUMENTS, STANDARD_ERRORS, inherited_errors
from toolproof.runtime.nulls import NullPlan, drop_absent_nulls, plan_for
from toolproof.runtime.questions import form_problems, requested_schema, scripted_answer
from toolproof.runtime.template import WHOLE, Template, TemplateSyntaxError
from toolproof.runtime.validation import SchemaValidator, describe

__all__ = ["check_source", "check_together", "meta_schema", "module_clash"]

_ERROR_RENDER_FIELDS = frozenset({"message", "code", "hint", WHOLE})

_TEXT_SHOWN = 80
"""Most characters of a text a TP309 message shows, around the first difference."""


@cache
def meta_schema() -> dict[str, Any]:
    """The contract format's meta-schema, shipped inside the generator."""
    text = resources.files("toolproof.generator").joinpath("contract.schema.json").read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


@cache
def _meta_validator() -> Draft202012Validator:
    return Draft202012Validator(meta_schema())


@cache
def _meta_fast() -> Any:
    return jsonschema_rs.Draft202012Validator(meta_schema(), validate_formats=False)


def _sorted_errors(errors: Iterable[Any]) -> list[Any]:
    return sorted(errors, key=lambda e: (list(map(str, e.absolute_path)), relevance(e)))


@lru_cache(maxsize=4096)
def _template(text: str) -> Template:
    """The parsed template (immutable), parsed once per text: a catalogue repeats its messages in every example."""
    return Template(text)


class _Schema:
    """One schema of a contract as the runtime checks it: its validator, and for an input the nulls it drops."""

    __slots__ = ("_nulls", "_validator")

    def __init__(self, schema: Any, *, is_input: bool = False) -> None:
        self._validator = SchemaValidator(schema)
        self._nulls: NullPlan | None = plan_for(schema) if is_input else None

    def _seen(self, instance: Any) -> Any:
        """``instance`` as the validator sees it: the nulls the runtime reads as absent dropped from an input."""
        return instance if self._nulls is None else drop_absent_nulls(self._nulls, instance)

    def is_valid(self, instance: Any) -> bool:
        """Whether the runtime accepts ``instance``; it refuses what its validator cannot judge."""
        try:
            return self._validator.is_valid(self._seen(instance))
        except Exception:  # a value beyond the validator's range: the runtime answers invalid_arguments
            return False

    def errors(self, instance: Any) -> list[Any]:
        """Every error of ``instance``, by place then relevance; empty when the runtime accepts it."""
        if self.is_valid(instance):
            return []
        try:
            errors = self._validator.errors(self._seen(instance))
        except Exception:  # python-jsonschema cannot judge it either
            errors = []
        return _sorted_errors(errors) or [ValidationError("the runtime's validator cannot judge this value")]


_OUTPUT_URI = "urn:toolproof:output"
"""The base URI the output schema is given when one of its fields is checked alone (``_field_schema``)."""


def _field_schema(root: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The schema of the output field ``key``, its ``$ref``\\ s resolving against the whole output schema.

    The field's schema alone would lose the root its ``$ref: "#/$defs/..."`` names. Here the
    output schema is a resource of its own (its ``$id``, or ``_OUTPUT_URI``) inside a schema whose
    one assertion is a reference to that field: references within it, nested ones too, resolve as
    they do when the whole output is checked.
    """
    uri = root["$id"] if isinstance(root.get("$id"), str) else _OUTPUT_URI
    where = "/properties/" + key.replace("~", "~0").replace("/", "~1")
    return {"$defs": {"output": {**root, "$id": uri}}, "$ref": uri + "#" + quote(where, safe="/~")}


def _fast_valid(fast: Any, instance: Any) -> bool:
    """True when the compiled validator ``fast`` (if any) finds ``instance`` valid: no need to ask python-jsonschema."""
    if fast is None:
        return False
    try:
        return bool(fast.is_valid(instance))
    except Exception:  # a value JSON cannot hold: let python-jsonschema judge it
        return False


def _errors(check: Callable[[], Draft202012Validator], fast: Any, instance: Any) -> list[Any]:
    """Every error of ``instance``, most relevant first; the compiled validator clears the happy path.

    python-jsonschema (``check()``) runs only when jsonschema_rs finds a problem (or cannot judge,
    e.g. a YAML date), since only it explains errors in the words the messages are built from.
    """
    if _fast_valid(fast, instance):
        return []
    return _sorted_errors(check().iter_errors(instance))


class _Checker:
    def __init__(self, source: Source) -> None:
        self.source = source
        self.data: Any = source.data
        self.problems: list[Problem] = []

    def add(self, path: JsonPath, rule_name: str, message: str, *, key: bool = False) -> None:
        self.problems.append(self.source.problem(path, rule_name, message, key=key))

    def run(self) -> list[Problem]:
        if not isinstance(self.data, dict):
            self.add((), "contract-format", "a contract is a YAML mapping (name: ..., input: ...)")
            return self.problems
        if self._kind_keys():
            return self.problems
        meta_errors = _errors(_meta_validator, _meta_fast(), self.data)
        for error in meta_errors:
            path = tuple(error.absolute_path)
            if error.validator == "additionalProperties" and isinstance(error.instance, dict):
                allowed = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
                extra = next((k for k in error.instance if k not in allowed), None)
                if extra is not None:
                    self.add((*path, extra), "contract-format", f"contract format: {describe(error)}", key=True)
                    continue
            self.add(path, "contract-format", f"contract format: {describe(error)}")
        if meta_errors:
            return self.problems
        implied(self.data)  # a resource's or prompt's output and annotations: checked as a tool's are
        self.problems.extend(check_schema(self.source, ("input",)))
        self.problems.extend(check_schema(self.source, ("output",)))
        for code, entry in self.data["errors"].items():
            for name in entry.get("params", {}):
                self.problems.extend(check_schema(self.source, ("errors", code, "params", name)))
        for name, ask in self.data.get("asks", {}).items():
            if "schema" in ask:
                self.problems.extend(check_schema(self.source, ("asks", name, "schema")))
            for param in ask.get("params", {}):
                self.problems.extend(check_schema(self.source, ("asks", name, "params", param)))
        self._file_name()
        templates_ok = self._errors()
        templates_ok = self._render() and templates_ok
        self._gate()
        self._dynamic_enums()
        templates_ok = self._asks() and templates_ok
        self.problems.extend(kind_problems(self.source))
        if not any(p.level is Level.ERROR for p in self.problems) and templates_ok and not self.source.settled:
            self._examples()  # settled: a $ref bundling could not resolve, reported there
            self.problems.extend(python_only_texts(self.source))
        return self.problems

    def _kind_keys(self) -> bool:
        """Report the keys a contract's kind forbids (the meta-schema would say only "False schema"); True if any."""
        kind = self.data.get("kind", "tool")
        kinds = ("tool", "resource", "prompt")
        if kind not in kinds:  # one message for the mistake, not the meta-schema's every consequence of it
            guess = did_you_mean(kind, kinds) if isinstance(kind, str) else None
            hint = f" (did you mean '{guess}'?)" if guess else ""
            self.add(("kind",), "contract-format", f"kind {kind!r} is none of tool, resource, prompt{hint}")
            return True
        found = False
        if kind in ("resource", "prompt"):
            for key in IMPLIED_KEYS:
                if key in self.data:
                    message = f"a {kind} contract writes no '{key}': its kind implies it, or has none"
                    self.add((key,), "contract-format", message, key=True)
                    found = True
        for key in ("resource", "completions"):
            if key in self.data and kind != "resource" and (key == "resource" or kind not in ("prompt", "resource")):
                self.add((key,), "contract-format", f"'{key}' belongs to a kind: resource contract", key=True)
                found = True
        return found

    def _file_name(self) -> None:
        expected = module_name(self.data["name"])
        stem = PurePosixPath(self.source.path).stem
        if stem != expected:
            self.add(
                ("name",),
                "file-name",
                f"the file of tool '{self.data['name']}' must be named {expected}.yaml, not {stem}.yaml",
            )

    def _errors(self) -> bool:
        ok = True
        inputs = set(self.data["input"].get("properties", {}))
        for code, entry in self.data["errors"].items():
            if code in STANDARD_ERRORS or code in ASK_ERRORS:
                self.add(
                    ("errors", code),
                    "standard-code",
                    f"error code '{code}' is a standard code every contract inherits",
                    key=True,
                )
            try:
                template = _template(entry["message"])
            except TemplateSyntaxError as exc:
                self.add(("errors", code, "message"), "template-syntax", f"message of error '{code}': {exc.detail}")
                ok = False
                continue
            params = set(entry.get("params", {}))
            for name in dict.fromkeys(template.fields):
                if name not in inputs and name not in params:
                    self.add(
                        ("errors", code, "message"),
                        "unknown-placeholder",
                        f"placeholder {{{name}}} names no input field and no param of error '{code}'",
                    )
            for name in params - set(template.fields):
                self.add(
                    ("errors", code, "params", name),
                    "unused-param",
                    f"param '{name}' is not used in the message",
                    key=True,
                )
        return ok

    def _render(self) -> bool:
        render = self.data.get("render", {})
        required = set(self.data["output"].get("required", ()))
        result_ok = self._render_template(
            render,
            "result",
            lambda name: name == WHOLE or name in required,
            "must name a required output field (or be {$})",
        )
        error_ok = self._render_template(
            render,
            "error",
            lambda name: name in _ERROR_RENDER_FIELDS,
            "must be one of {message}, {code}, {hint}, {$}",
        )
        if error_ok and "error" in render:
            self._hints(render["error"])
        return result_ok and error_ok and self._error_output()

    def _hints(self, render_error: str) -> None:
        """A catalogue error without a hint, when ``render.error`` names ``{hint}``: its text would hold an empty one.

        The runtime renders a missing hint as an empty string, so ``"{message} ({hint})"``
        ends that error's text in ``()``. Standard errors all have hints.
        """
        template = _template(render_error)
        if "hint" not in template.fields or not _ERROR_RENDER_FIELDS.issuperset(template.fields):
            return  # another placeholder is an error of its own (unknown-placeholder)
        for code, entry in self.data["errors"].items():
            if entry.get("hint"):
                continue
            values = {"code": code, "message": entry["message"], "hint": ""}
            shown = repr(template.render(values, {"code": code, "message": entry["message"]}))[1:-1]
            message = (
                f"error '{code}' has no hint, but render.error names {{hint}}: its text would read '{shown}';"
                " give the error a hint (a retry that can work, or not to retry)"
            )
            self.add(("errors", code), "missing-hint", message, key=True)

    def _error_output(self) -> bool:
        """Each template of ``render.error_output`` parses and names a value some error can have."""
        shape = self.data.get("render", {}).get("error_output")
        if shape is None:
            return True
        names = set(self.data["input"].get("properties", {})) | _ERROR_RENDER_FIELDS - {WHOLE}
        for entry in self.data["errors"].values():
            names |= set(entry.get("params", {}))
        for std in inherited_errors(bool(self.data.get("asks"))).values():
            names |= set(_template(std.message).fields)
        ok = True
        for key, value in shape.items():
            if not isinstance(value, str):
                continue
            try:
                fields = _template(value).fields
            except TemplateSyntaxError as exc:
                self.add(("render", "error_output", key), "template-syntax", f"render.error_output.{key}: {exc.detail}")
                ok = False
                continue
            for name in dict.fromkeys(fields):
                if name not in names:
                    message = (
                        f"placeholder {{{name}}} of render.error_output.{key} names no input field, "
                        "no error param and none of {message}, {code}, {hint}"
                    )
                    self.add(("render", "error_output", key), "error-output", message)
        return ok

    def _render_template(self, render: dict[str, str], key: str, allowed: Callable[[str], bool], rule: str) -> bool:
        if key not in render:
            return True
        try:
            fields = _template(render[key]).fields
        except TemplateSyntaxError as exc:
            self.add(("render", key), "template-syntax", f"render.{key}: {exc.detail}")
            return False
        for name in dict.fromkeys(fields):
            if not allowed(name):
                self.add(("render", key), "unknown-placeholder", f"placeholder {{{name}}} {rule}")
        return True

    def _gate(self) -> None:
        gate = self.data.get("skill_gate")
        if gate is None:
            return
        inputs = self.data["input"].get("properties", {})
        outputs = self.data["output"].get("properties", {})
        for key in ("path_argument", "token_argument"):
            if gate[key] not in inputs:
                self.add(("skill_gate", key), "skill-gate", f"'{gate[key]}' is not an input field")
        if gate["token_argument"] in self.data["input"].get("required", ()):
            self.add(
                ("skill_gate", "token_argument"),
                "skill-gate",
                "the token field cannot be required: the SKILL.md read has none",
            )
        if gate["token_output"] not in outputs:
            self.add(("skill_gate", "token_output"), "skill-gate", f"'{gate['token_output']}' is not an output field")
        elif gate["token_output"] in self.data["output"].get("required", ()):
            self.add(
                ("skill_gate", "token_output"),
                "skill-gate",
                "the token output field cannot be required: only one read returns it",
            )
        for key in ("missing_error", "invalid_error"):
            if gate[key] not in self.data["errors"]:
                self.add(("skill_gate", key), "skill-gate", f"error code '{gate[key]}' is not in the catalogue")

    def _dynamic_enums(self) -> None:
        inputs = self.data["input"].get("properties", {})
        for name in self.data.get("dynamic_enums", {}):
            prop = inputs.get(name)
            if not isinstance(prop, dict) or prop.get("type") != "string":
                self.add(("dynamic_enums", name), "dynamic-enum", f"'{name}' must be a string input field", key=True)
            elif "enum" in prop:
                message = f"'{name}' gets its enum at start-up; do not write one"
                self.add(("input", "properties", name, "enum"), "dynamic-enum", message)

    def _asks(self) -> bool:
        """Each question's kind has what it needs, its form is one elicitation can send, its message parses."""
        ok = True
        inputs = set(self.data["input"].get("properties", {}))
        for name, ask in self.data.get("asks", {}).items():
            at: JsonPath = ("asks", name)
            kind = ask["kind"]
            if kind == "choice" and "choices" not in ask:
                self.add(at, "ask-form", f"question '{name}' is a choice: list its choices")
            if kind != "choice" and "choices" in ask:
                self.add((*at, "choices"), "ask-form", f"question '{name}' is a {kind}: only a choice has choices")
            if kind == "value" and "schema" not in ask:
                self.add(at, "ask-form", f"question '{name}' asks for a value: give the form as its schema")
            if kind != "value" and "schema" in ask:
                self.add((*at, "schema"), "ask-form", f"question '{name}' is a {kind}: only a value has a schema")
            if kind == "value" and "schema" in ask:
                for path, problem in form_problems(ask["schema"]):
                    self.add((*at, "schema", *path), "ask-form", f"the form of question '{name}': {problem}")
            try:
                template = _template(ask["message"])
            except TemplateSyntaxError as exc:
                self.add((*at, "message"), "template-syntax", f"message of question '{name}': {exc.detail}")
                ok = False
                continue
            params = set(ask.get("params", {}))
            for field in dict.fromkeys(template.fields):
                if field not in inputs and field not in params:
                    message = f"placeholder {{{field}}} names no input field and no param of question '{name}'"
                    self.add((*at, "message"), "unknown-placeholder", message)
            for param in params - set(template.fields):
                self.add(
                    (*at, "params", param), "unused-param", f"param '{param}' is not used in the message", key=True
                )
        return ok

    def _answers(self, at: JsonPath, example: Mapping[str, Any], answered: set[str]) -> None:
        """An example's scripted answers name declared questions, and each accepted value fits its question's form."""
        asks = self.data.get("asks", {})
        for j, scripted in enumerate(example.get("answers", ())):
            where: JsonPath = (*at, "answers", j)
            ask = asks.get(scripted["ask"])
            if ask is None:
                known = f"it asks {', '.join(asks)}" if asks else "it declares no asks"
                message = f"the answer names question '{scripted['ask']}', which the contract does not ask ({known})"
                self.add((*where, "ask"), "example-answers", message)
                continue
            answered.add(scripted["ask"])
            kind, action, has_value = ask["kind"], scripted["action"], "value" in scripted
            if has_value and (action != "accept" or kind == "confirm"):
                why = "a confirmation has none" if kind == "confirm" else f"a {action} carries none"
                self.add((*where, "value"), "example-answers", f"the answer gives a value, but {why}", key=True)
            elif action == "accept" and kind != "confirm" and not has_value:
                self.add(where, "example-answers", f"accepting question '{scripted['ask']}' ({kind}) needs its value")
            elif action == "accept" and has_value:
                form = requested_schema(kind, ask.get("choices", ()), ask.get("schema"))
                content = scripted_answer(kind, action, scripted["value"])["content"]
                for error in _Schema(form).errors(content):
                    message = f"the answer does not fit the form of question '{scripted['ask']}': {_described(error)}"
                    self.add((*where, "value"), "example-answers", message)

    def _examples(self) -> None:
        examples = self.data["examples"]
        input_check, output_check = _Schema(self.data["input"], is_input=True), _Schema(self.data["output"])
        props = self.data["output"].get("properties", {})
        field_checks: dict[str, _Schema] = {}
        seen: dict[str, int] = {}
        covered: set[str] = set()
        answered: set[str] = set()
        for i, example in enumerate(examples):
            at: JsonPath = ("examples", i)
            name = example["name"]
            self._answers(at, example, answered)
            if name in seen:
                self.add(
                    (*at, "name"),
                    "duplicate-example",
                    f"duplicate example name '{name}' (also example {seen[name] + 1})",
                )
            seen[name] = i
            for path in example.get("given", {}).get("files", {}):
                if ".." in path.split("/"):  # a part of the path, as PurePosixPath(path).parts holds it
                    self.add(
                        (*at, "given", "files", path),
                        "fixture-path",
                        f"fixture path '{path}' must not contain '..'",
                        key=True,
                    )
            if "skill_token" in example and "skill_gate" not in self.data:
                self.add(
                    (*at, "skill_token"),
                    "example-skill-token",
                    "skill_token needs a skill_gate in the contract",
                    key=True,
                )
            expect = example["expect"]
            code = expect.get("error")
            if code == INVALID_ARGUMENTS:
                # A dynamic enum is only known at start-up, so a value outside it looks valid here.
                if input_check.is_valid(example["input"]) and not self.data.get("dynamic_enums"):
                    self.add(
                        (*at, "input"),
                        "example-input-valid",
                        "the example expects invalid_arguments, but its input is valid",
                    )
            else:
                for error in input_check.errors(example["input"]):
                    self.add(
                        (*at, "input", *error.absolute_path),
                        "example-input",
                        f"example input breaks the input schema: {_described(error)}",
                    )
            if "output" in expect:
                for error in output_check.errors(expect["output"]):
                    self.add(
                        (*at, "expect", "output", *error.absolute_path),
                        "example-output",
                        f"example output breaks the output schema: {_described(error)}",
                    )
            for key, value in expect.get("output_includes", {}).items():
                if key not in props:
                    message = f"'{key}' is not an output field"
                    self.add((*at, "expect", "output_includes", key), "example-output", message, key=True)
                    continue
                if key not in field_checks:
                    field_checks[key] = _Schema(_field_schema(self.data["output"], key))
                for error in field_checks[key].errors(value):
                    where = (*at, "expect", "output_includes", key, *error.absolute_path)
                    error.path.appendleft(key)  # the message names the field within the output: $.words
                    self.add(where, "example-output", f"example output breaks the output schema: {_described(error)}")
            if "error_output" in expect and "error_output" not in self.data.get("render", {}):
                message = "the example expects an error_output, but the contract has no render.error_output"
                self.add((*at, "expect", "error_output"), "error-output", message, key=True)
            if code is not None:
                covered.add(code)
                self._expected_error(at, example, code)
            elif "text" in expect and "output" in expect:
                rendered = self._render_result(expect["output"])
                if rendered is not None and rendered != expect["text"]:
                    self.add(
                        (*at, "expect", "text"),
                        "example-text",
                        "the text does not match the output rendered by render.result: "
                        + _difference(expect["text"], rendered),
                    )
        for code, entry in self.data["errors"].items():
            if code not in covered and not entry.get("no_example"):
                self.add(("errors", code), "error-without-example", f"error '{code}' has no example", key=True)
        for name in self.data.get("asks", {}):
            if name not in answered:
                message = (
                    f"no example answers question '{name}': script the answer in one (answers: [{{ask: {name}, ...}}])"
                )
                self.add(("asks", name), "unscripted-ask", message, key=True)

    def _render_result(self, output: Mapping[str, Any]) -> str | None:
        template = _template(self.data.get("render", {}).get("result", "{$}"))
        try:
            return template.render(output, output)
        except KeyError:
            return None

    def _expected_error(self, at: JsonPath, example: Mapping[str, Any], code: str) -> None:
        expect = example["expect"]
        catalogue = self.data["errors"]
        inherited = inherited_errors(bool(self.data.get("asks")))
        if code in inherited:
            template = _template(inherited[code].message)
        elif code in catalogue:
            template = _template(catalogue[code]["message"])
        else:
            self.add((*at, "expect", "error"), "example-error-code", f"error code '{code}' is not in the catalogue")
            return
        message = expect.get("message")
        if message is None:
            return
        known = {k: v for k, v in example["input"].items() if k in template.fields}
        if not template.pattern(known).fullmatch(message):
            self.add(
                (*at, "expect", "message"),
                "example-message",
                f"the message does not match the template of '{code}': {template.source!r}",
            )
            return
        if "text" in expect:
            render = _template(self.data.get("render", {}).get("error", "ERROR: {message}"))
            values = {"message": message, "code": code, "hint": ""}
            if WHOLE not in render.fields and "hint" not in render.fields:
                rendered = render.render(values)
                if rendered != expect["text"]:
                    self.add(
                        (*at, "expect", "text"),
                        "example-text",
                        "the text does not match the message rendered by render.error: "
                        + _difference(expect["text"], rendered),
                    )


def _difference(text: str, rendered: str) -> str:
    """Both texts, clipped to ``_TEXT_SHOWN`` characters from a little before where they first differ."""
    first = next((i for i, (a, b) in enumerate(zip(text, rendered, strict=False)) if a != b), None)
    if first is None:
        first = min(len(text), len(rendered))
    start = 0 if max(len(text), len(rendered)) <= _TEXT_SHOWN else max(first - 20, 0)

    def clip(value: str) -> str:
        part = value[start : start + _TEXT_SHOWN]
        return ("..." if start else "") + repr(part)[1:-1] + ("..." if start + _TEXT_SHOWN < len(value) else "")

    return f"expected '{clip(text)}', rendered '{clip(rendered)}'"


def _described(error: Any) -> str:
    """``describe(error)``, with a hint when a YAML 1.1 string stands where a number belongs (``1e6``)."""
    hint = number_hint(error.instance) if error.validator == "type" else None
    return describe(error) + (f" ({hint})" if hint else "")


def check_source(source: Source) -> list[Problem]:
    """Every problem in one parsed contract."""
    return _Checker(source).run()


def module_clash(name: str, others: Mapping[str, str]) -> str | None:
    """Why gen cannot write tool ``name`` beside other tools, or None when it can.

    A tool's module may not be a name the generated package keeps for itself
    (``naming.PACKAGE_ENTRIES``), and no file gen writes for it (``naming.tool_files``)
    may be one it writes for another tool: ``word_count_properties``'s conformance
    tests would take the place of ``word_count``'s property tests, either way round.
    ``toolproof new`` asks before it writes; lint reports it as ``module-clash``.

    Args:
        name: the tool's wire name.
        others: each file gen writes for the other tools, relative to the generated folder, by how a
            message names its tool (``tool 'word_count' (contracts/word_count.yaml)``).

    Returns:
        The reason, a sentence without advice (the caller adds what to do), or None.
    """
    module = module_name(name)
    if module in PACKAGE_ENTRIES:
        return (
            f"tool '{name}' maps to module '{module}', a name the generated package keeps for itself"
            f" ({', '.join(sorted(PACKAGE_ENTRIES))})"
        )
    shared = next((path for path in tool_files(module).values() if path in others), None)
    if shared is None:
        return None
    return f"tool '{name}' and {others[shared]} would both generate {shared} in the generated folder"


def check_together(sources: Iterable[Source]) -> list[Problem]:
    """Problems across contracts: duplicate tool names, module names, and generated files two tools share."""
    problems: list[Problem] = []
    names: dict[str, Source] = {}
    modules: dict[str, Source] = {}
    files: dict[str, str] = {}
    """Each file gen writes for the tools met so far (``naming.tool_files``), by how a message names its tool."""
    for source in sources:
        data = source.data
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            continue
        name = data["name"]
        if name in names:
            problems.append(
                source.problem(
                    ("name",), "duplicate-tool", f"duplicate tool name '{name}' (also in {names[name].path})"
                )
            )
        else:
            names[name] = source
            module = module_name(name)
            if module in modules and module not in PACKAGE_ENTRIES:
                other = modules[module]
                problems.append(
                    source.problem(
                        ("name",), "module-clash", f"tool '{name}' maps to module '{module}' as does {other.path}"
                    )
                )
            elif (clash := module_clash(name, files)) is not None:
                advice = "rename the tool" if module in PACKAGE_ENTRIES else "rename one"
                problems.append(source.problem(("name",), "module-clash", f"{clash}; {advice}"))
            modules[module] = source
            files |= dict.fromkeys(tool_files(module).values(), f"tool '{name}' ({source.path})")
    return problems
