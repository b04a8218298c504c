"""Lint passes exactly when ajv compiles: every schema of every contract, under ``new Ajv2020({strict: true})``.

ajv (with ajv-formats) is installed into .venv/node by the Makefile; ``ajv_compile.cjs`` compiles
the schemas it reads on stdin. The contracts checked are this repository's, the golden cases',
and the invalid contracts whose problem ajv's strict mode also refuses; then a table of small
schemas pins rule by rule that lint and ajv agree, and the few places they knowingly differ.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from toolproof.generator.checks import check_source
from toolproof.generator.kinds import implied
from toolproof.generator.problems import Level
from toolproof.generator.schemalint import check_schema
from toolproof.generator.shared import bundle, load_shared
from toolproof.generator.source import JsonPath, Source, load_source

ROOT = Path(__file__).parents[2]
NODE_MODULES = ROOT / ".venv" / "node" / "node_modules"
SCRIPT = Path(__file__).parent / "ajv_compile.cjs"
OURS = sorted(
    [
        *(ROOT / "toolproof/builtin/contracts").glob("*.yaml"),
        *(ROOT / "tests/generator/cases").glob("*/contracts/*.yaml"),
    ]
)
INVALID = Path(__file__).parent / "invalid"
REFUSED_BY_BOTH = [
    *(
        "enum_empty",
        "flow_mapping_cut",
        "ignored_keyword",
        "input_not_json_schema",
        "invalid_regex",
        "output_not_json_schema",
    ),
    *("params_not_json_schema", "params_unknown_keyword", "pattern_matches_property", "ref_unresolved"),
    *("regex_not_ecma", "schema_dialect", "strict_required", "strict_tuple", "strict_types", "unknown_format"),
    *("unknown_keyword", "unknown_keyword_at_every_depth"),
]

# name: (schema, whether lint and ajv both accept it)
AGREED: dict[str, tuple[Any, bool]] = {
    "a closed object": (
        {"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}, "required": ["a"],
         "additionalProperties": False},
        True,
    ),
    "an x- annotation": ({"type": "string", "x-mcp-header": "X-Name"}, True),
    "a nullable type": ({"type": ["string", "null"], "minLength": 1, "default": None}, True),
    "a known format": ({"type": "string", "format": "date-time"}, True),
    "an OpenAPI format on an integer": ({"type": "integer", "format": "int32"}, True),
    "a closed tuple": ({"type": "array", "prefixItems": [{"type": "string"}], "minItems": 1, "items": False}, True),
    "a fixed tuple": ({"type": "array", "prefixItems": [{"type": "string"}], "minItems": 1, "maxItems": 1}, True),
    "a $ref into $defs": ({"$ref": "#/$defs/word", "$defs": {"word": {"type": "string"}}}, True),
    "a $ref into definitions": ({"$ref": "#/definitions/word", "definitions": {"word": {"type": "string"}}}, True),
    "a recursive $ref": ({"type": "object", "properties": {"child": {"$ref": "#"}}}, True),
    "a lookbehind": ({"type": "string", "pattern": "(?<=a)b"}, True),
    "an escaped dash in a class": ({"type": "string", "pattern": "^[\\w\\-]+$"}, True),
    "escaped braces": ({"type": "string", "pattern": "^\\{a\\}$"}, True),
    "a counted quantifier": ({"type": "string", "pattern": "^a{2,3}$"}, True),
    "class escapes": ({"type": "string", "pattern": "^\\d+\\b\\s*\\w$"}, True),
    "if and then": ({"if": {"type": "string"}, "then": {"type": "string", "minLength": 1}}, True),
    "required of a sibling allOf": (
        {"type": "object", "allOf": [{"properties": {"a": {}}}, {"required": ["a"]}]},
        True,
    ),
    "required in dependentSchemas": (
        {"type": "object", "properties": {"a": {}, "b": {}}, "dependentSchemas": {"a": {"required": ["b"]}}},
        True,
    ),
    "integer under number": ({"type": "number", "anyOf": [{"type": "integer"}, {"minimum": 5}]}, True),
    "contains with minContains": ({"type": "array", "contains": {"type": "string"}, "minContains": 1}, True),
    "propertyNames with a pattern": ({"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}}, True),
    "an unknown keyword": ({"type": "object", "requird": ["a"]}, False),
    "a keyword without a value": ({"type": "string", "description": None}, False),
    "a flow mapping cut": ({"type": "string", "description": "The body", "frontmatter stripped": None}, False),
    "a nested unknown keyword": ({"type": "array", "items": {"type": "string", "maxLenght": 1}}, False),
    "minLength without a type": ({"minLength": 1}, False),
    "minimum beside an enum": ({"enum": [1, 2], "minimum": 1}, False),
    "a union type": ({"type": ["string", "integer"]}, False),
    "a type its context forbids": ({"type": "object", "anyOf": [{"type": "string"}]}, False),
    "number under integer": ({"type": "integer", "anyOf": [{"type": "number"}]}, False),
    "a typed keyword in additionalProperties": ({"type": "object", "additionalProperties": {"minLength": 1}}, False),
    "an open tuple": ({"type": "array", "prefixItems": [{}]}, False),
    "required without properties": ({"type": "object", "required": ["a"]}, False),
    "required of a closed object": (
        {"type": "object", "properties": {}, "required": ["a"], "additionalProperties": False},
        False,
    ),
    "a $ref to nothing": ({"$ref": "#/$defs/x"}, False),
    "a $ref out of the schema": ({"$ref": "other.json"}, False),
    "a pattern that does not compile": ({"type": "string", "pattern": "(a"}, False),
    "a Python \\Z": ({"type": "string", "pattern": "a\\Z"}, False),
    "an escaped dash outside a class": ({"type": "string", "pattern": "a\\-b"}, False),
    "a lone brace": ({"type": "string", "pattern": "{a}"}, False),
    "a possessive quantifier": ({"type": "string", "pattern": "a++"}, False),
    "a Python named group": ({"type": "string", "pattern": "(?P<n>a)"}, False),
    "inline flags": ({"type": "string", "pattern": "(?i)a"}, False),
    "a repeated lookahead": ({"type": "string", "pattern": "(?=a)*b"}, False),
    "a patternProperties key that does not compile": ({"type": "object", "patternProperties": {"(a": {}}}, False),
    "an unknown format": ({"type": "string", "format": "date_time"}, False),
    "then without if": ({"then": {}}, False),
    "if alone": ({"if": {}}, False),
    "minContains without contains": ({"type": "array", "minContains": 1}, False),
    "minContains 0 alone": ({"type": "array", "contains": {}, "minContains": 0}, False),
    "minContains above maxContains": ({"type": "array", "contains": {}, "minContains": 3, "maxContains": 2}, False),
    "a property a pattern matches": (
        {"type": "object", "properties": {"ab": {}}, "patternProperties": {"^a": {}}},
        False,
    ),
    "an unknown type": ({"type": "int"}, False),
    "another dialect": ({"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}, False),
}  # fmt: skip

# name: (schema, lint accepts it, ajv accepts it); the comment above each says why they differ
DIFFERENT: dict[str, tuple[Any, bool, bool]] = {
    # $anchor is a 2020-12 core keyword; ajv 8 has no keyword of that name in strict mode.
    "$anchor": ({"$anchor": "word", "type": "string"}, True, False),
    # nullable is OpenAPI 3.0's spelling, which ajv keeps for OpenAPI users; JSON Schema writes a type list.
    "nullable": ({"type": "string", "nullable": True}, False, True),
    # ajv's strictRequired sees only the properties of keywords it compiled before `required` (anyOf comes first).
    "required in anyOf of a parent's property": (
        {"type": "object", "properties": {"a": {}}, "anyOf": [{"required": ["a"]}]},
        True,
        False,
    ),
    # iri, iri-reference, idn-email and idn-hostname are 2020-12 formats ajv-formats does not implement.
    "format iri": ({"type": "string", "format": "iri"}, True, False),
    # ajv compiles neither contentSchema nor unreferenced $defs, so it never sees the typo inside.
    "a typo in contentSchema": (
        {"type": "string", "contentMediaType": "application/json", "contentSchema": {"typo": 1}},
        False,
        True,
    ),
    "a typo in an unreferenced $defs": ({"type": "string", "$defs": {"unused": {"typo": 1}}}, False, True),
    # The runtime validates with Python's re, which cannot compile ECMA-262-only syntax.
    "an ECMA-262 named group": ({"type": "string", "pattern": "(?<n>a)"}, False, True),
    "a Unicode property escape": ({"type": "string", "pattern": "\\p{L}"}, False, True),
}


Verdicts = dict[str, tuple[bool, str | None]]
"""ajv's verdict on each schema, by id: whether it compiled, and its error if not."""


def _schemas(source: Source) -> Iterator[tuple[JsonPath, Any]]:
    data = source.data
    implied(data)  # a resource's or prompt's output, as lint checks it
    yield ("input",), data["input"]
    yield ("output",), data["output"]
    for code, entry in data["errors"].items():
        for name, schema in entry.get("params", {}).items():
            yield ("errors", code, "params", name), schema


def _ajv(schemas: dict[str, Any]) -> Verdicts:
    node = shutil.which("node")
    assert node is not None, "node is needed (the Makefile installs TypeScript and ajv with npm)"
    assert (NODE_MODULES / "ajv").is_dir(), "ajv is installed by `make gen` (npm, into .venv/node)"
    items = [{"id": key, "schema": schema} for key, schema in schemas.items()]
    done = subprocess.run(
        [node, str(SCRIPT)],
        input=json.dumps(items),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={"NODE_PATH": str(NODE_MODULES), "PATH": str(Path(node).parent)},
    )
    return {r["id"]: (r["ok"], r["error"]) for r in json.loads(done.stdout)}


def _source(path: Path) -> Source:
    """The contract at ``path``, its shared definitions (``_defs/`` beside it) bundled in, as ``load_project`` does."""
    source, problems = load_source(path, path.name)
    assert source is not None, problems
    assert bundle(source, load_shared(path.parent, lambda shared: shared.name, within=())) == []
    return source


@pytest.fixture(scope="module")
def compiled() -> Verdicts:
    """ajv's verdict on every schema these tests name, from one node run."""
    schemas: dict[str, Any] = {}
    for path in [*OURS, *(INVALID / f"{name}.yaml" for name in REFUSED_BY_BOTH)]:
        for at, schema in _schemas(_source(path)):
            schemas[f"{path}#{'/'.join(map(str, at))}"] = schema
    for name, (schema, *_) in {**AGREED, **DIFFERENT}.items():
        schemas[name] = schema
    return _ajv(schemas)


def _ajv_accepts(compiled: Verdicts, path: Path) -> bool:
    return all(ok for key, (ok, _) in compiled.items() if key.startswith(f"{path}#"))


def _lint_accepts_snippet(schema: Any, tmp_path: Path) -> bool:
    path = tmp_path / "snippet.yaml"
    path.write_text(json.dumps({"schema": schema}), encoding="utf-8")
    return not any(p.level is Level.ERROR for p in check_schema(_source(path), ("schema",)))


@pytest.mark.parametrize("path", OURS, ids=[str(p.relative_to(ROOT)) for p in OURS])
def test_our_contracts_pass_lint_and_compile_under_ajv_strict(path: Path, compiled: Verdicts) -> None:
    lint_ok = not any(p.level is Level.ERROR for p in check_source(_source(path)))

    assert lint_ok
    assert _ajv_accepts(compiled, path), {k: v for k, v in compiled.items() if k.startswith(str(path)) and not v[0]}


@pytest.mark.parametrize("name", REFUSED_BY_BOTH)
def test_invalid_contracts_fail_lint_and_ajv_strict_alike(name: str, compiled: Verdicts) -> None:
    path = INVALID / f"{name}.yaml"
    lint_ok = not any(p.level is Level.ERROR for p in check_source(_source(path)))

    assert not lint_ok
    assert not _ajv_accepts(compiled, path)


@pytest.mark.parametrize("name", sorted(AGREED))
def test_lint_and_ajv_strict_agree_on_each_rule(name: str, compiled: Verdicts, tmp_path: Path) -> None:
    schema, accepted = AGREED[name]

    assert _lint_accepts_snippet(schema, tmp_path) is accepted
    assert compiled[name][0] is accepted, compiled[name][1]


@pytest.mark.parametrize("name", sorted(DIFFERENT))
def test_the_known_differences_from_ajv_stay_as_documented(name: str, compiled: Verdicts, tmp_path: Path) -> None:
    schema, lint_accepts, ajv_accepts = DIFFERENT[name]

    assert _lint_accepts_snippet(schema, tmp_path) is lint_accepts
    assert compiled[name][0] is ajv_accepts, compiled[name][1]


SHIPPED: Final = ("contract.schema.json", "contract-format.schema.json", "error-meta.schema.json")
"""The JSON Schemas the package ships for other tools to validate with: contracts, published contracts, `_meta`."""


def test_the_schemas_we_ship_compile_under_ajv_strict() -> None:
    folder = ROOT / "toolproof" / "generator"
    schemas = {name: json.loads((folder / name).read_text(encoding="utf-8")) for name in SHIPPED}

    verdicts = _ajv(schemas)

    assert {name: error for name, (ok, error) in verdicts.items() if not ok} == {}
