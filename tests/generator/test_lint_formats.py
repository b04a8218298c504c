"""`toolproof lint --format text|json|github|sarif|junit`: each report, and the exit codes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from toolproof.cli import cli
from toolproof.generator.problems import RULES, Level, rule
from toolproof.generator.reports import FORMATS, render_report

MINIMAL = Path(__file__).parent / "cases" / "minimal" / "contracts" / "echo.yaml"
TYPO = "contracts/shout.yaml:9:26: error [TP201] unknown keyword 'requird' (did you mean 'required'?)"
LOSS = (
    "contracts/echo.yaml:9:11: note [TP404] openai: echo:input/properties/word:minLength moved to description "
    "(OpenAI strict mode rejects it; the runtime still enforces it)"
)

ACCEPT_ALL = """\
[tool.toolproof.export.accept-losses]
openai = ["*:input/properties/*:minLength", "*:output"]
openai-responses = ["*:input/properties/*:minLength", "*:output"]
anthropic = ["*:input/properties/*:minLength", "*:output"]
gemini-openapi = ["*:input:additionalProperties", "*:output"]
"""

SARIF_BASICS = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool", "results"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name", "rules"],
                                "properties": {
                                    "name": {"type": "string"},
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["id", "shortDescription", "defaultConfiguration"],
                                            "properties": {"id": {"type": "string"}},
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["ruleId", "ruleIndex", "level", "message", "locations"],
                            "properties": {
                                "level": {"enum": ["error", "warning", "note", "none"]},
                                "message": {"type": "object", "required": ["text"]},
                                "locations": {
                                    "type": "array",
                                    "minItems": 1,
                                    "items": {
                                        "type": "object",
                                        "required": ["physicalLocation"],
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "required": ["artifactLocation", "region"],
                                                "properties": {
                                                    "artifactLocation": {"type": "object", "required": ["uri"]},
                                                    "region": {
                                                        "type": "object",
                                                        "required": ["startLine", "startColumn"],
                                                        "properties": {
                                                            "startLine": {"type": "integer", "minimum": 1},
                                                            "startColumn": {"type": "integer", "minimum": 1},
                                                        },
                                                    },
                                                },
                                            }
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}
"""What SARIF 2.1.0 requires of the parts a lint report uses (the full schema is not shipped offline)."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with a good contract (whose losses are notes) and one with a misspelled keyword."""
    (tmp_path / "contracts").mkdir()
    shutil.copy(MINIMAL, tmp_path / "contracts" / "echo.yaml")
    text = MINIMAL.read_text(encoding="utf-8").replace("name: echo", "name: shout")
    (tmp_path / "contracts" / "shout.yaml").write_text(
        text.replace(
            "    word: {type: string, minLength: 1, description: The word to echo.}",
            "    word: {type: string, requird: true}",
        ),
        encoding="utf-8",
    )
    return tmp_path


def _lint(runner: CliRunner, root: Path, *options: str) -> tuple[int, str, str]:
    result = runner.invoke(cli, ["lint", *options, "--project", str(root)])
    return result.exit_code, result.stdout, result.stderr


def test_the_cli_offers_every_report_format() -> None:
    assert FORMATS == ("text", "json", "github", "sarif", "junit")


def test_text_prints_level_and_rule_on_stderr_and_exits_1_on_an_error(runner: CliRunner, project: Path) -> None:
    code, out, err = _lint(runner, project)

    assert code == 1
    assert out == ""
    assert err.splitlines() == [TYPO, "1 error(s), 0 warning(s) in contracts"]


def test_text_exits_0_with_notes_and_warnings_only(runner: CliRunner, project: Path) -> None:
    (project / "contracts" / "shout.yaml").unlink()

    code, out, err = _lint(runner, project, "--verbose")

    assert code == 0
    assert out == "1 contract(s) OK\n"
    assert LOSS in err.splitlines()


SUMMARY = (
    "echo: 2 rewrites for openai, 2 for openai-responses, 2 for anthropic, 2 for gemini-openapi;"
    " run with --verbose to list them"
)


def test_text_and_github_sum_up_a_tools_losses_in_one_note_counting_them_by_provider(
    runner: CliRunner, project: Path
) -> None:
    (project / "contracts" / "shout.yaml").unlink()

    text = _lint(runner, project)
    github = _lint(runner, project, "--format", "github")

    assert text == (0, "1 contract(s) OK\n", f"contracts/echo.yaml:7:3: note [TP404] {SUMMARY}\n")
    assert github == (0, f"::notice file=contracts/echo.yaml,line=7,col=3,title=TP404 export-loss::{SUMMARY}\n", "")


def test_a_summary_counts_only_the_losses_not_accepted(runner: CliRunner, project: Path) -> None:
    (project / "contracts" / "shout.yaml").unlink()
    (project / "pyproject.toml").write_text(
        ACCEPT_ALL.replace('"*:input/properties/*:minLength", ', "", 1), encoding="utf-8"
    )

    code, _, err = _lint(runner, project)

    assert code == 0
    assert err == "contracts/echo.yaml:9:11: note [TP404] echo: 1 rewrite for openai; run with --verbose to list them\n"


def test_json_and_sarif_list_each_loss_as_verbose_text_does(runner: CliRunner, project: Path) -> None:
    (project / "contracts" / "shout.yaml").unlink()

    _, _, verbose = _lint(runner, project, "--verbose")
    _, json_report, _ = _lint(runner, project, "--format", "json")
    _, sarif_report, _ = _lint(runner, project, "--format", "sarif")

    each = [line for line in verbose.splitlines() if "[TP404]" in line]
    assert len(each) == 8 and LOSS in each
    assert [p["rule"] for p in json.loads(json_report)["problems"]] == ["TP404"] * 8
    assert [r["ruleId"] for r in json.loads(sarif_report)["runs"][0]["results"]] == ["TP404"] * 8


def test_json_is_one_document_with_every_problem(runner: CliRunner, project: Path) -> None:
    code, out, err = _lint(runner, project, "--format", "json")

    assert code == 1
    assert err == ""
    report = json.loads(out)
    assert report["files"] == ["contracts/echo.yaml", "contracts/shout.yaml"]
    assert report["summary"]["errors"] == 1
    assert report["summary"]["notes"] == len(report["problems"]) - 1
    assert {
        "file": "contracts/shout.yaml",
        "line": 9,
        "column": 26,
        "level": "error",
        "rule": "TP201",
        "name": "unknown-keyword",
        "message": "unknown keyword 'requird' (did you mean 'required'?)",
    } in report["problems"]


def test_github_writes_one_workflow_command_per_problem(runner: CliRunner, project: Path) -> None:
    code, out, _ = _lint(runner, project, "--format", "github")

    (project / "contracts" / "shout.yaml").unlink()
    clean, notes, _ = _lint(runner, project, "--format", "github", "--verbose")

    assert code == 1
    assert out == (
        "::error file=contracts/shout.yaml,line=9,col=26,title=TP201 unknown-keyword::unknown keyword 'requird' "
        "(did you mean 'required'?)\n"
    )
    assert clean == 0
    assert (
        "::notice file=contracts/echo.yaml,line=9,col=11,title=TP404 export-loss::openai: "
        "echo:input/properties/word:minLength moved to description (OpenAI strict mode rejects it; the runtime "
        "still enforces it)"
    ) in notes.splitlines()
    assert all(line.startswith("::notice ") for line in notes.splitlines())


def test_github_escapes_what_workflow_commands_reserve() -> None:
    problem = rule("yaml-syntax").at("contracts/a,b:c.yaml", 2, 3, "100% broken\nhere")

    report = render_report("github", [problem], ["contracts/a,b:c.yaml"], Path("."))

    assert (
        report == "::error file=contracts/a%2Cb%3Ac.yaml,line=2,col=3,title=TP002 yaml-syntax::100%25 broken%0Ahere\n"
    )


def test_sarif_is_2_1_0_with_the_metadata_of_every_rule(runner: CliRunner, project: Path) -> None:
    code, out, _ = _lint(runner, project, "--format", "sarif")

    assert code == 1
    report = json.loads(out)
    assert list(Draft202012Validator(SARIF_BASICS).iter_errors(report)) == []
    run = report["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(RULES)
    assert rules[list(RULES).index("TP201")] == {
        "id": "TP201",
        "name": "unknown-keyword",
        "shortDescription": {"text": RULES["TP201"].summary},
        "defaultConfiguration": {"level": "error"},
    }
    typo = next(r for r in run["results"] if r["ruleId"] == "TP201")
    assert rules[typo["ruleIndex"]]["id"] == "TP201"
    assert typo["level"] == "error"
    assert typo["message"] == {"text": "unknown keyword 'requird' (did you mean 'required'?)"}
    assert typo["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "contracts/shout.yaml", "uriBaseId": "PROJECTROOT"},
        "region": {"startLine": 9, "startColumn": 26},
    }
    assert run["originalUriBaseIds"]["PROJECTROOT"]["uri"] == project.resolve().as_uri() + "/"


def test_junit_has_one_test_case_per_contract_failing_on_errors(runner: CliRunner, project: Path) -> None:
    code, out, _ = _lint(runner, project, "--format", "junit")

    assert code == 1
    suites = ElementTree.fromstring(out.encode("utf-8"))
    assert suites.tag == "testsuites"
    assert (suites.get("tests"), suites.get("failures")) == ("2", "1")
    cases = {case.get("name"): case for case in suites.iter("testcase")}
    assert list(cases) == ["contracts/echo.yaml", "contracts/shout.yaml"]
    assert cases["contracts/echo.yaml"].find("failure") is None
    failure = cases["contracts/shout.yaml"].find("failure")
    assert failure is not None
    assert failure.get("type") == "TP201"
    assert failure.get("message") == "1 error(s); first: unknown keyword 'requird' (did you mean 'required'?)"
    assert failure.text == TYPO


def test_junit_shows_notes_and_warnings_as_output_of_a_passing_case(runner: CliRunner, project: Path) -> None:
    (project / "contracts" / "shout.yaml").unlink()

    code, out, _ = _lint(runner, project, "--format", "junit", "--verbose")

    assert code == 0
    case = ElementTree.fromstring(out.encode("utf-8")).find("testsuite/testcase")
    assert case is not None
    assert case.find("failure") is None
    assert LOSS in (case.findtext("system-out") or "").splitlines()


def test_a_clean_project_gives_an_empty_report_in_each_format(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "contracts").mkdir()
    shutil.copy(MINIMAL, tmp_path / "contracts" / "echo.yaml")
    (tmp_path / "pyproject.toml").write_text(ACCEPT_ALL, encoding="utf-8")

    reports = {fmt: _lint(runner, tmp_path, "--strict-export", "--format", fmt) for fmt in FORMATS}

    assert {fmt: code for fmt, (code, _, _) in reports.items()} == dict.fromkeys(FORMATS, 0)
    assert reports["text"][1:] == ("1 contract(s) OK\n", "")
    assert reports["github"][1] == ""
    assert json.loads(reports["json"][1])["problems"] == []
    assert json.loads(reports["sarif"][1])["runs"][0]["results"] == []
    suites = ElementTree.fromstring(reports["junit"][1].encode("utf-8"))
    assert (suites.get("tests"), suites.get("failures")) == ("1", "0")


def test_an_unknown_format_is_a_usage_error(runner: CliRunner, project: Path) -> None:
    code, _, err = _lint(runner, project, "--format", "xml")

    assert code == 2
    assert "Invalid value for '--format'" in err


def test_every_level_maps_to_a_sarif_and_github_level() -> None:
    problems = [rule("yaml-syntax").at("c.yaml", 1, 1, "m", level) for level in Level]

    sarif = json.loads(render_report("sarif", problems, ["c.yaml"], Path(".")))
    github = render_report("github", problems, ["c.yaml"], Path(".")).splitlines()

    assert [r["level"] for r in sarif["runs"][0]["results"]] == ["error", "warning", "note"]
    assert [line.split(" ", 1)[0] for line in github] == ["::error", "::warning", "::notice"]
