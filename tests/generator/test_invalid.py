"""Each invalid contract produces exactly the problems its header names, with file:line:col."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolproof.generator import Level, load_project

INVALID = Path(__file__).parent / "invalid"
CASES = sorted(INVALID.glob("*.yaml"))


def _expected(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# problems:", f"{path.name} must start with '# problems:'"
    return [line.removeprefix("#   ") for line in lines[1:] if line.startswith("#   ")]


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_invalid_contract_reports_its_problem(case: Path, tmp_path: Path) -> None:
    (tmp_path / "contracts").mkdir()
    shutil.copy(case, tmp_path / "contracts" / case.name)

    project = load_project(tmp_path)

    errors = [str(p) for p in project.problems if p.level is Level.ERROR]
    assert errors == _expected(case)
    assert not project.ok
    assert project.contracts == []


def test_every_rule_has_an_invalid_contract() -> None:
    names = {c.stem for c in CASES}
    rules = {
        "yaml_syntax",
        "meta_missing_errors",
        "input_not_json_schema",
        "output_not_json_schema",
        "example_input_breaks_schema",
        "example_output_breaks_schema",
        "example_unknown_error_code",
        "example_message_mismatch",
        "placeholder_names_nothing",
        "unknown_keyword",
        "unknown_keyword_at_every_depth",
        "flow_mapping_cut",
        "params_not_json_schema",
        "params_unknown_keyword",
        "ref_unresolved",
        "yaml_tab",
        "invalid_regex",
        "regex_not_ecma",
        "strict_types",
        "strict_tuple",
        "strict_required",
    }
    assert rules <= names


ECHO = """\
name: {name}
version: 1.0.0
title: Echo
description: Echo a word back.
annotations: {{read_only: true, destructive: false, idempotent: true, open_world: false}}
input: {{type: object, properties: {{word: {{type: string}}}}, required: [word]}}
output: {{type: object, properties: {{echo: {{type: string}}}}, required: [echo]}}
errors: {{}}
examples:
  - name: echoes
    input: {{word: hi}}
    expect: {{output: {{echo: hi}}}}
"""


def test_duplicate_tool_names_are_reported_in_the_second_file(tmp_path: Path) -> None:
    folder = tmp_path / "contracts"
    folder.mkdir()
    (folder / "echo.yaml").write_text(ECHO.format(name="echo"), encoding="utf-8")
    (folder / "echo_.yaml").write_text(ECHO.format(name="echo_"), encoding="utf-8")
    (folder / "echo2.yaml").write_text(ECHO.format(name="echo"), encoding="utf-8")

    problems = [str(p) for p in load_project(tmp_path).problems if p.level is Level.ERROR]

    assert (
        "contracts/echo2.yaml:1:7: error [TP103] duplicate tool name 'echo' (also in contracts/echo.yaml)" in problems
    )


def test_two_names_for_one_module_are_reported(tmp_path: Path) -> None:
    folder = tmp_path / "contracts"
    folder.mkdir()
    (folder / "my_tool.yaml").write_text(ECHO.format(name="my_tool"), encoding="utf-8")
    (folder / "my_tool2.yaml").write_text(ECHO.format(name="my-tool"), encoding="utf-8")

    problems = [str(p) for p in load_project(tmp_path).problems if p.level is Level.ERROR]

    assert (
        "contracts/my_tool2.yaml:1:7: error [TP104] tool 'my-tool' maps to module 'my_tool' as does "
        "contracts/my_tool.yaml" in problems
    )


@pytest.mark.parametrize(("suffix", "kind"), [("properties", "properties"), ("fuzz", "fuzz")])
def test_a_tool_whose_generated_file_is_another_tool_s_is_refused(tmp_path: Path, suffix: str, kind: str) -> None:
    folder = tmp_path / "contracts"
    folder.mkdir()
    (folder / "echo.yaml").write_text(ECHO.format(name="echo"), encoding="utf-8")
    (folder / f"echo_{suffix}.yaml").write_text(ECHO.format(name=f"echo_{suffix}"), encoding="utf-8")

    problems = [str(p) for p in load_project(tmp_path).problems if p.level is Level.ERROR]

    assert problems == [
        f"contracts/echo_{suffix}.yaml:1:7: error [TP104] tool 'echo_{suffix}' and tool 'echo' (contracts/echo.yaml)"
        f" would both generate tests/test_echo_{kind}.py in the generated folder; rename one"
    ]


@pytest.mark.parametrize(
    ("name", "module"),
    [
        ("__init__", "__init__"),
        ("__main__", "__main__"),
        ("contracts", "contracts"),
        ("Tests", "tests"),
        ("docs", "docs"),
        ("exports", "exports"),
    ],
)
def test_a_tool_whose_module_is_a_name_the_generated_package_keeps_is_refused(
    tmp_path: Path, name: str, module: str
) -> None:
    folder = tmp_path / "contracts"
    folder.mkdir()
    (folder / f"{module}.yaml").write_text(ECHO.format(name=name), encoding="utf-8")

    project = load_project(tmp_path)

    assert [str(p) for p in project.problems if p.level is Level.ERROR] == [
        f"contracts/{module}.yaml:1:7: error [TP104] tool '{name}' maps to module '{module}', a name the generated"
        " package keeps for itself (__init__, __main__, contracts, defs, docs, exports, tests); rename the tool"
    ]


def test_an_error_without_an_example_is_a_warning_not_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "contracts"
    folder.mkdir()
    text = ECHO.format(name="echo").replace("errors: {}", "errors:\n  too_loud: {message: 'too loud'}")
    (folder / "echo.yaml").write_text(text, encoding="utf-8")

    project = load_project(tmp_path)

    assert project.ok
    assert [str(p) for p in project.problems] == [
        "contracts/echo.yaml:9:3: warning [TP310] error 'too_loud' has no example"
    ]


def test_an_error_no_example_can_set_up_says_why_and_is_not_asked_for_one(tmp_path: Path) -> None:
    folder = tmp_path / "contracts"
    folder.mkdir()
    error = "errors:\n  db_down: {message: 'The database is down', no_example: the host's database cannot be stopped}"
    (folder / "echo.yaml").write_text(ECHO.format(name="echo").replace("errors: {}", error), encoding="utf-8")

    project = load_project(tmp_path)

    assert project.ok
    assert [str(p) for p in project.problems] == []


def test_an_empty_no_example_reason_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "contracts"
    folder.mkdir()
    error = "errors:\n  db_down: {message: 'The database is down', no_example: ''}"
    (folder / "echo.yaml").write_text(ECHO.format(name="echo").replace("errors: {}", error), encoding="utf-8")

    project = load_project(tmp_path)

    assert not project.ok
    assert any("no_example" in str(p) for p in project.problems), [str(p) for p in project.problems]


def test_an_empty_contracts_folder_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "contracts").mkdir()

    project = load_project(tmp_path)

    assert [str(p) for p in project.problems] == ["contracts:1:1: error [TP401] no contracts found (contracts/*.yaml)"]
