"""`toolproof conform` passes our MCP server and catches a broken one, naming each broken example."""

from __future__ import annotations

import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from toolproof.cli import cli
from toolproof.runtime.conformance.mcp import LISTING, run_conformance
from toolproof.runtime.spec import load_specs

OURS = f"{sys.executable} -m toolproof serve mcp --workspace {{workspace}} --skills {{skills}}"
BROKEN = (
    f"{sys.executable} {Path(__file__).parent / 'broken_mcp_server.py'} --workspace {{workspace}} --skills {{skills}}"
)


def test_every_example_passes_against_our_own_server() -> None:
    outcomes = run_conformance(OURS, load_specs(), jobs=2)

    failures = [f"{o.tool}: {o.example}: {o.detail}" for o in outcomes if not o.passed]
    assert failures == []
    assert len(outcomes) == sum(len(spec.examples) for spec in load_specs())


def test_the_broken_server_fails_exactly_where_it_is_broken() -> None:
    specs = [s for s in load_specs() if s.name in {"read_file_in_skill", "get_skill", "file-read", "read_skill"}]

    outcomes = run_conformance(BROKEN, specs, jobs=2)

    failed = {(o.tool, o.example) for o in outcomes if not o.passed}
    traversals = {
        ("read_file_in_skill", name)
        for name in (
            "path traversal to etc passwd is refused",
            "path traversal with backslashes is refused",
            "a traversal that lands on a real file beside the skills is refused",
            "another skill's files are out of reach",
            "a dot-dot inside the skill that stays inside is allowed",
        )
    }
    assert traversals <= failed
    assert ("get_skill", "an unknown skill is reported") in failed
    assert ("get_skill", "a skill without SKILL.MD is reported") in failed
    assert ("file-read", "reads a file with numbered lines") in failed
    assert ("file-read", "line numbers are right-aligned to the widest") in failed
    assert not {o for o in failed if o[0] == "read_skill"}, "read_skill is not broken"
    assert ("get_skill", "reads a skill's documentation") not in failed, "successes of get_skill are not broken"
    leak = next(o for o in outcomes if o.example == "path traversal to etc passwd is refused")
    assert "expected error 'path_traversal', got success" in leak.detail


def test_the_command_exits_1_naming_failures_and_writes_junit(runner: CliRunner, tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"

    result = runner.invoke(cli, ["conform", "--mcp", BROKEN, "--tool", "read_file_in_skill", "--junit", str(report)])

    assert result.exit_code == 1
    assert "FAIL read_file_in_skill: path traversal to etc passwd is refused" in result.stdout
    assert result.stdout.rstrip().splitlines()[-1].endswith("failed")
    suite = ElementTree.parse(report).getroot()
    assert suite.get("failures") == str(result.stdout.count("FAIL "))
    names = {case.get("name") for case in suite.iter("testcase") if case.find("failure") is not None}
    assert "path traversal to etc passwd is refused" in names


def test_the_command_passes_our_server_for_one_tool(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["conform", "--mcp", OURS, "--toolset", "gateway"])

    assert result.exit_code == 0, result.stdout
    assert result.stdout.rstrip().splitlines()[-1].endswith(" passed, 0 failed")


@pytest.mark.parametrize(
    ("command", "workspaces", "expected"),
    [
        (
            "srv --workspace {workspace} --skills {skills}",
            ["a", "b"],
            ["srv", "--workspace", "A", "--workspace", "B", "--skills", "S"],
        ),
        ("srv --workspace {workspace}", [], ["srv"]),
        ("srv --root={workspace} {dir}", ["a"], ["srv", "--root=A", "D"]),
    ],
)
def test_the_command_template_puts_in_the_roots(command: str, workspaces: list[str], expected: list[str]) -> None:
    from toolproof.runtime.conformance.mcp import _argv

    argv = _argv(command, Path("D"), [Path(w.upper()) for w in workspaces], Path("S"))

    assert argv == expected


def test_a_tool_the_server_does_not_list_fails_once_naming_it() -> None:
    specs = [s for s in load_specs() if s.name in {"read_skill", "file-read"}]
    only_skills = f"{sys.executable} -m toolproof serve mcp --toolset queryclaw --skills {{skills}}"

    outcomes = run_conformance(only_skills, specs, jobs=2)

    unlisted = [o for o in outcomes if o.tool == "file-read"]
    assert len(unlisted) == 1
    assert unlisted[0].example == LISTING and not unlisted[0].passed
    assert unlisted[0].detail == "the server does not list tool 'file-read' (it lists: read_skill)"
    assert all(o.passed for o in outcomes if o.tool == "read_skill")


def test_the_summary_names_the_project_and_the_tools_checked(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["conform", "--mcp", OURS, "--tool", "get_skill"])

    assert result.exit_code == 0, result.output
    examples = len(next(s for s in load_specs() if s.name == "get_skill").examples)
    assert f": 1 tool(s) checked (1 listed by the server), {examples} example(s)\n" in result.output
    assert result.output.endswith(f"{examples} passed, 0 failed\n")
