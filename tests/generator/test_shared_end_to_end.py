"""Issue 29 end to end: the support desk's ``person`` and ``status``, written once, used by five tools.

A project made by ``toolproof init`` gets the desk's contracts and one shared file; lint and gen pass, each stub
uses the one generated type, every export takes every example, the published JSON needs no resolver, and removing
a status value makes ``breaking`` name every tool it reaches. All through the CLI, as a user drives it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Final

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from tests.generator import desk
from toolproof.cli import cli
from toolproof.runtime.project import load_config
from toolproof.runtime.serve.freshness import stale_contracts

EXPORTS: Final = '["mcp", "openai", "openai-responses", "anthropic", "gemini", "jsonschema", "typescript", "vectors"]'


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The desk project, initialised, written and generated once."""
    root = tmp_path_factory.mktemp("desk") / "desk"
    runner = CliRunner()
    assert runner.invoke(cli, ["init", str(root)]).exit_code == 0
    desk.write(root)
    settings = root / "pyproject.toml"
    text = settings.read_text(encoding="utf-8")
    text = text.replace('# exports = ["mcp", "openai", "anthropic"]', f"exports = {EXPORTS}")
    settings.write_text(text, encoding="utf-8")
    result = runner.invoke(cli, ["gen", "--project", str(root)])
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture
def project(made: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(made, tmp_path / "desk"))


def _examples(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    return desk.TOOLS[name][3], desk.TOOLS[name][4]


def test_the_desk_written_once_passes_lint_and_gen_check(runner: CliRunner, made: Path) -> None:
    lint = runner.invoke(cli, ["lint", "--project", str(made)])
    check = runner.invoke(cli, ["gen", "--check", "--project", str(made)])

    assert lint.exit_code == 0, lint.output
    assert check.exit_code == 0, check.output


def test_each_stub_uses_the_one_shared_type_and_no_copy_of_it(made: Path) -> None:
    defs = (made / "generated" / "defs.py").read_text(encoding="utf-8")
    stubs = {name: (made / "generated" / f"{name}.py").read_text(encoding="utf-8") for name in desk.TOOLS}

    assert defs.count("class Person(TypedDict):") == 1
    assert 'Status = Literal["open", "pending", "closed"]' in defs
    assert "from .defs import Person, Status" in stubs["get_ticket"]
    assert "from .defs import Status" in stubs["set_status"]
    assert all("class Person" not in stub and "PersonTypedDict" not in stub for stub in stubs.values())
    declarations = (made / "generated" / "exports" / "typescript" / "defs.d.ts").read_text(encoding="utf-8")
    assert "export type Person = {" in declarations


def test_every_export_takes_every_example_of_every_desk_tool(made: Path) -> None:
    exports = made / "generated" / "exports"
    schemas: dict[str, list[tuple[str, dict[str, Any]]]] = {name: [] for name in desk.TOOLS}
    for tool in json.loads((exports / "mcp" / "all.json").read_text(encoding="utf-8"))["tools"]:
        schemas[tool["name"]] += [("input", tool["inputSchema"]), ("output", tool["outputSchema"])]
    for tool in json.loads((exports / "openai" / "all.json").read_text(encoding="utf-8")):
        schemas[tool["function"]["name"]].append(("input", tool["function"]["parameters"]))
    for tool in json.loads((exports / "openai-responses" / "all.json").read_text(encoding="utf-8")):
        schemas[tool["name"]].append(("input", tool["parameters"]))
    for tool in json.loads((exports / "anthropic" / "all.json").read_text(encoding="utf-8")):
        schemas[tool["name"]].append(("input", tool["input_schema"]))
    for tool in json.loads((exports / "gemini" / "all.json").read_text(encoding="utf-8"))["functionDeclarations"]:
        schemas[tool["name"]].append(("input", tool["parametersJsonSchema"]))
    for name in desk.TOOLS:
        document = json.loads((exports / "jsonschema" / f"{name}.json").read_text(encoding="utf-8"))
        for side in ("input", "output"):
            schemas[name].append((side, {**document, "$ref": f"#/$defs/{side.title()}"}))

    for name, found in schemas.items():
        given, expected = _examples(name)
        assert len(found) == 8, name
        for side, schema in found:
            assert "_defs/" not in json.dumps(schema), (name, side)  # standalone: no reference leaves it
            errors = list(Draft202012Validator(schema).iter_errors(given if side == "input" else expected))
            assert errors == [], (name, side, errors)


def test_the_published_contract_json_and_vectors_need_no_resolver(made: Path) -> None:
    generated = made / "generated"
    for name in desk.TOOLS:
        for path in (generated / "contracts" / f"{name}.json", generated / "exports" / "vectors" / f"{name}.json"):
            text = path.read_text(encoding="utf-8")
            assert "_defs/" not in text, path
    contract = json.loads((generated / "contracts" / "get_ticket.json").read_text(encoding="utf-8"))
    assert set(contract["output"]["$defs"]) == {"Person", "Status"}


def test_a_shared_file_edited_after_gen_makes_gen_check_and_the_host_call_the_code_stale(
    runner: CliRunner, project: Path
) -> None:
    shared = project / "contracts" / "_defs" / "desk.yaml"
    shared.write_text(desk.DEFS.replace("Someone the desk knows.", "A person."), encoding="utf-8")

    check = runner.invoke(cli, ["gen", "--check", "--project", str(project)])
    stale = stale_contracts(load_config(project / "pyproject.toml"))

    assert check.exit_code == 1
    assert "generated/defs.py" in check.output
    assert stale == [
        "contracts/_defs/desk.yaml (shared definitions) changed after the code of the contracts using it"
        " was generated; run `toolproof gen`"
    ]


def test_removing_a_status_value_from_the_shared_definition_makes_breaking_name_every_tool_it_reaches(
    runner: CliRunner, made: Path, project: Path
) -> None:
    shared = project / "contracts" / "_defs" / "desk.yaml"
    shared.write_text(desk.DEFS.replace("[open, pending, closed]", "[open, closed]"), encoding="utf-8")

    result = runner.invoke(cli, ["breaking", "--against", str(made), "--project", str(project)])

    assert result.exit_code == 1, result.output
    at_definition = [line for line in result.stdout.splitlines() if line.startswith("contracts/_defs/desk.yaml:")]
    assert at_definition, result.stdout
    named = " ".join(at_definition)
    assert all(tool in named for tool in ("get_ticket", "open_ticket", "set_status"))
    assert "error [WIRE_INPUT_ENUM_NARROWED]" in named
