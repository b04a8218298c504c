"""Shared definitions (issue 29): written once in ``contracts/_defs/`` or a contract's ``$defs``, bundled at load."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from tests.generator import desk
from toolproof.generator import load_project

ECHO: Final = """\
name: {name}
version: 1.0.0
title: Echo
description: Echo a word back.
annotations: {{read_only: true, destructive: false, idempotent: true, open_world: false}}
{extra}input:
  type: object
  properties:
    word: {word}
  required: [word]
  additionalProperties: false
output:
  type: object
  properties:
    echo: {echo}
  required: [echo]
  additionalProperties: false
errors: {{}}
examples:
  - name: echoes
    input: {{word: hi}}
    expect: {{output: {{echo: hi}}}}
"""
WORD: Final = "{$ref: '_defs/words.yaml#/$defs/Word'}"


def _project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "contracts" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _echo(name: str = "echo", word: str = WORD, echo: str = WORD, extra: str = "") -> str:
    return ECHO.format(name=name, word=word, echo=echo, extra=extra)


def _problems(root: Path) -> list[str]:
    return [str(p) for p in load_project(root).problems]


def test_input_and_output_that_share_a_definition_each_hold_a_standalone_copy(tmp_path: Path) -> None:
    root = _project(tmp_path, {"echo.yaml": _echo(), "_defs/words.yaml": "$defs:\n  Word: {type: string}\n"})

    project = load_project(root)

    assert project.ok, project.problems
    (contract,) = project.contracts
    for schema in (contract.input_schema, contract.output_schema):
        assert schema["$defs"] == {"Word": {"type": "string"}}
    assert contract.input_schema["properties"]["word"] == {"$ref": "#/$defs/Word"}
    assert contract.shared["Word"].file == "contracts/_defs/words.yaml"
    assert "contracts/_defs/words.yaml" in contract.sources


def test_a_definition_the_shared_file_lacks_is_reported_at_the_ref_with_a_did_you_mean(tmp_path: Path) -> None:
    word = "{$ref: '_defs/words.yaml#/$defs/Wrod'}"
    root = _project(tmp_path, {"echo.yaml": _echo(word=word), "_defs/words.yaml": "$defs:\n  Word: {type: string}\n"})

    assert _problems(root) == [
        "contracts/echo.yaml:9:18: error [TP208] $ref '_defs/words.yaml#/$defs/Wrod': _defs/words.yaml has no"
        " definition 'Wrod' (did you mean 'Word'?)"
    ]


def test_a_shared_file_misspelled_in_a_ref_is_reported_with_a_did_you_mean(tmp_path: Path) -> None:
    word = "{$ref: '_defs/word.yaml#/$defs/Word'}"
    root = _project(tmp_path, {"echo.yaml": _echo(word=word), "_defs/words.yaml": "$defs:\n  Word: {type: string}\n"})

    assert _problems(root) == [
        "contracts/echo.yaml:9:18: error [TP208] $ref '_defs/word.yaml#/$defs/Word': there is no shared definition"
        " file _defs/word.yaml (did you mean '_defs/words.yaml'?)"
    ]


def test_a_mistake_inside_a_shared_definition_is_reported_once_at_the_shared_file_not_per_tool(
    tmp_path: Path,
) -> None:
    files = {f"echo{i}.yaml": _echo(name=f"echo{i}") for i in range(3)}
    files["_defs/words.yaml"] = "$defs:\n  Word: {type: string, minLenght: 1}\n"
    root = _project(tmp_path, files)

    assert _problems(root) == [
        "contracts/_defs/words.yaml:2:24: error [TP201] unknown keyword 'minLenght' (did you mean 'minLength'?)"
    ]


def test_refs_that_loop_through_two_shared_files_with_no_constraint_are_one_ref_cycle(tmp_path: Path) -> None:
    files = {
        "echo.yaml": _echo(),
        "_defs/words.yaml": "$defs:\n  Word: {$ref: 'other.yaml#/$defs/Other'}\n",
        "_defs/other.yaml": "$defs:\n  Other: {$ref: 'words.yaml#/$defs/Word'}\n",
    }
    root = _project(tmp_path, files)

    found = [p for p in load_project(root).problems if p.rule.id == "TP214"]

    assert [(p.file, p.line) for p in found] == [("contracts/_defs/other.yaml", 2)]  # one loop, one problem


def test_a_shared_definition_that_refers_to_another_file_brings_it_along(tmp_path: Path) -> None:
    files = {
        "echo.yaml": _echo(echo="{$ref: '_defs/more.yaml#/$defs/Echo'}", word="{type: string}"),
        "_defs/words.yaml": "$defs:\n  Word: {type: string}\n",
        "_defs/more.yaml": "$defs:\n  Echo: {$ref: 'words.yaml#/$defs/Word'}\n",
    }
    root = _project(tmp_path, files)

    project = load_project(root)

    assert project.ok, project.problems
    assert project.contracts[0].output_schema["$defs"] == {"Echo": {"$ref": "#/$defs/Word"}, "Word": {"type": "string"}}


def test_input_and_output_reach_the_contracts_own_defs_without_copying_them(tmp_path: Path) -> None:
    extra = "$defs:\n  Word: {type: string, minLength: 1}\n"
    local = "{$ref: '#/$defs/Word'}"
    root = _project(tmp_path, {"echo.yaml": _echo(word=local, echo=local, extra=extra)})

    project = load_project(root)

    assert project.ok, project.problems
    assert project.contracts[0].output_schema["$defs"] == {"Word": {"type": "string", "minLength": 1}}
    assert project.contracts[0].shared == {}


def test_a_shared_definition_and_a_local_one_of_the_same_name_in_one_schema_clash(tmp_path: Path) -> None:
    text = _echo().replace(
        "  additionalProperties: false\nerrors", "  additionalProperties: false\n  $defs: {Word: {}}\nerrors"
    )
    root = _project(tmp_path, {"echo.yaml": text, "_defs/words.yaml": "$defs:\n  Word: {type: string}\n"})

    found = [str(p) for p in load_project(root).problems if p.rule.id == "TP216"]

    assert found == [
        "contracts/echo.yaml:15:18: error [TP216] definition 'Word' of contracts/_defs/words.yaml and the one of the"
        " schema's own $defs would share one name in this schema's $defs; rename one"
    ]


def test_each_stub_imports_the_one_generated_type_of_a_shared_definition_instead_of_a_copy(tmp_path: Path) -> None:
    desk.write(tmp_path)

    files = load_project(tmp_path).render()

    defs = files["generated/defs.py"]
    assert "class Person(TypedDict):" in defs
    assert 'Status = Literal["open", "pending", "closed"]' in defs
    assert "# source: contracts/_defs/desk.yaml" in defs
    stubs = {path: text for path, text in files.items() if path.count("/") == 1 and path.endswith(".py")}
    for name in desk.TOOLS:
        stub = stubs[f"generated/{name}.py"]
        assert "from .defs import " in stub
        assert "class Person" not in stub and "Literal[" not in stub.split("ErrorCode")[0]


def test_a_ref_to_a_misspelled_contract_level_definition_is_reported_with_a_did_you_mean(tmp_path: Path) -> None:
    extra = "$defs:\n  Word: {type: string}\n"
    root = _project(
        tmp_path, {"echo.yaml": _echo(word="{$ref: '#/$defs/Word'}", echo="{$ref: '#/$defs/Wrd'}", extra=extra)}
    )

    assert _problems(root) == [
        "contracts/echo.yaml:17:18: error [TP208] $ref '#/$defs/Wrd': neither the schema nor the contract's $defs"
        " defines 'Wrd' (did you mean 'Word'?)"
    ]


def test_a_mistake_inside_a_contract_level_definition_is_reported_once_where_it_is_written(tmp_path: Path) -> None:
    extra = "$defs:\n  Word: {type: string, minLenght: 1}\n"
    local = "{$ref: '#/$defs/Word'}"
    root = _project(tmp_path, {"echo.yaml": _echo(word=local, echo=local, extra=extra)})

    assert _problems(root) == [
        "contracts/echo.yaml:7:24: error [TP201] unknown keyword 'minLenght' (did you mean 'minLength'?)"
    ]


def test_a_contract_level_definition_no_schema_uses_is_a_warning_where_it_is_written(tmp_path: Path) -> None:
    extra = "$defs:\n  Word: {type: string}\n  Spare: {type: integer}\n"
    local = "{$ref: '#/$defs/Word'}"
    root = _project(tmp_path, {"echo.yaml": _echo(word=local, echo=local, extra=extra)})

    assert _problems(root) == [
        "contracts/echo.yaml:8:3: warning [TP217] definition 'Spare' of the contract's $defs is used by no schema;"
        " use it ($ref: '#/$defs/Spare') or remove it"
    ]


def test_an_export_loss_inside_a_shared_definition_is_located_where_the_definition_is_written(tmp_path: Path) -> None:
    desk.write(tmp_path)

    losses = [p for p in load_project(tmp_path, show_losses=True).problems if p.rule.id == "TP404"]

    person = [p for p in losses if "/$defs/Person/" in p.message]
    assert person and all((p.file, p.line) == ("contracts/_defs/desk.yaml", 3) for p in person)


def test_two_shared_definitions_whose_generated_types_would_share_a_name_clash(tmp_path: Path) -> None:
    files = {"echo.yaml": _echo(), "_defs/words.yaml": "$defs:\n  Word: {type: string}\n  word: {type: string}\n"}
    root = _project(tmp_path, files)

    found = [str(p) for p in load_project(root).problems if p.rule.id == "TP216"]

    assert found == [
        "contracts/_defs/words.yaml:3:3: error [TP216] definition 'word' and 'Word' of contracts/_defs/words.yaml"
        " would both be the generated type Word (each becomes one generated type): rename one"
    ]


LOOP_OF_ODD_KEYS: Final = """\
$defs:
  Word: {type: string}
  Ticket:
    type: object
    properties:
      "owner-of": {$ref: "#/$defs/Person"}
      "state-now": {$ref: "#/$defs/State"}
      "next-ticket": {$ref: "#/$defs/Ticket"}
  Person:
    type: object
    properties:
      "open-tickets": {type: array, items: {$ref: "#/$defs/Ticket"}}
  State: {enum: [open, closed]}
"""


def test_shared_types_whose_keys_are_no_identifiers_import_though_they_name_types_defined_after_them(
    tmp_path: Path,
) -> None:
    import importlib.util
    import sys

    ticket = "  $defs:\n    Held: {$ref: '_defs/words.yaml#/$defs/Ticket'}\n"
    contract = _echo().replace("  required: [word]\n", "  required: [word]\n" + ticket, 1)
    contract = contract.replace("    word: " + WORD, "    word: " + WORD + "\n    held: {$ref: '#/$defs/Held'}", 1)
    root = _project(tmp_path, {"echo.yaml": contract, "_defs/words.yaml": LOOP_OF_ODD_KEYS})
    project = load_project(root)
    assert project.ok, [str(p) for p in project.problems]

    module = tmp_path / "defs.py"
    module.write_text(project.render()["generated/defs.py"], encoding="utf-8")
    spec = importlib.util.spec_from_file_location("shared_defs_under_test", module)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded
    try:
        spec.loader.exec_module(loaded)  # a NameError here: a functional TypedDict named a later type unquoted
    finally:
        del sys.modules[spec.name]

    assert {"Ticket", "Person", "State"} <= set(loaded.__all__)
