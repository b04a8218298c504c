"""``toolproof breaking``: one before/after pair per rule, git refs, severities and report formats.

Each folder of ``tests/generator/breaking/`` holds ``before/contracts``,
``after/contracts`` and ``expect.txt``: the whole text report of
``toolproof breaking --project after --against before`` run in that folder.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
from pathlib import Path
from typing import Final

import pytest
from click.testing import CliRunner

from toolproof import __version__
from toolproof.cli import cli
from toolproof.generator.breaking import compare, load_against
from toolproof.generator.breaking_rules import RULES, BreakingError, Category, Severity, load_severities
from toolproof.generator.project import config_for
from toolproof.runtime.project import builtin_project, default_config

CASES = Path(__file__).parent / "breaking"
_REPIN = "clients that pinned it (tools.lock.json) see a changed definition: review it, then pin the new digest"
REPO = Path(__file__).resolve().parents[2]
RULES_PAGE = REPO / "docs" / "contracts" / "breaking.md"


def _cases() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if (p / "expect.txt").is_file())


def _expected_exit(report: str) -> int:
    return 1 if any(" error [" in line for line in report.splitlines()) else 0


def _case(tmp_path: Path, name: str) -> Path:
    """A copy of one case, to add files to."""
    return Path(shutil.copytree(CASES / name, tmp_path / name))


def _git(cwd: Path, *args: str) -> str:
    identity = ("-c", "user.name=toolproof", "-c", "user.email=toolproof@example.invalid", "-c", "commit.gpgsign=false")
    done = subprocess.run(
        ["git", *identity, *args], cwd=cwd, capture_output=True, text=True, encoding="utf-8", check=True
    )
    return done.stdout


@pytest.mark.parametrize("name", _cases())
def test_each_case_reports_exactly_its_expected_findings(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    expected = (CASES / name / "expect.txt").read_text(encoding="utf-8")
    monkeypatch.chdir(CASES / name)

    result = runner.invoke(cli, ["breaking", "--project", "after", "--against", "before"])

    assert result.stdout == expected
    assert result.exit_code == _expected_exit(expected), result.stderr


def test_every_rule_has_a_case_named_after_it() -> None:
    missing = sorted(rule for rule in RULES if not (CASES / rule.lower() / "expect.txt").is_file())

    assert missing == []


def test_every_rule_is_reported_by_its_own_case() -> None:
    silent = [
        rule for rule in RULES if f"[{rule}]" not in (CASES / rule.lower() / "expect.txt").read_text(encoding="utf-8")
    ]

    assert silent == []


def test_the_asymmetric_cases_break_only_in_the_direction_that_hurts() -> None:
    def exit_of(name: str) -> int:
        return _expected_exit((CASES / name / "expect.txt").read_text(encoding="utf-8"))

    assert exit_of("wire_input_field_required") == 1  # input optional → required breaks callers
    assert exit_of("wire_output_field_optional") == 1  # output required → optional breaks readers
    assert exit_of("wire_input_field_optional") == 0  # input required → optional is fine
    assert exit_of("wire_output_field_required") == 0  # output optional → required is fine
    assert exit_of("wire_input_enum_widened") == 0  # callers may send more
    assert exit_of("wire_output_enum_widened") == 1  # readers may receive a value they do not handle
    assert exit_of("input_union_branch_added") == 0
    assert exit_of("output_union_branch_removed") == 0


def test_the_docs_document_every_rule_with_its_category_and_level() -> None:
    text = RULES_PAGE.read_text(encoding="utf-8")
    section = text[text.index("# Breaking changes") :]

    missing = [
        rule.id
        for rule in RULES.values()
        if f"| `{rule.id}` | {rule.category.value} | {rule.level.value} | {rule.doc} |" not in section
    ]

    assert missing == []


def test_a_contracts_folder_works_as_the_ref_too(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = (CASES / "wire_tool_removed" / "expect.txt").read_text(encoding="utf-8")
    monkeypatch.chdir(CASES / "wire_tool_removed")

    result = runner.invoke(cli, ["breaking", "--project", "after", "--against", "before/contracts"])

    assert result.exit_code == 1
    assert result.stdout == expected.replace("against before\n", "against before/contracts\n")


# -- one subschema, reached from anywhere ---------------------------------------------------------------------------

_SITES = {
    "a property": "S",
    "array items": "{type: array, items: S}",
    "map values": "{type: object, additionalProperties: S}",
    "a tuple place": "{type: array, prefixItems: [S, {type: integer}], minItems: 2, maxItems: 2}",
    "an anyOf branch": "{anyOf: [S, {type: integer}]}",
    "a oneOf branch": "{oneOf: [S, {type: integer}]}",
    "an allOf part": "{allOf: [S, {type: string}]}",
}


def _field_contract(side: str, site: str, schema: str, defs: str) -> str:
    """The echo contract with one more optional field ``f`` on ``side``, its schema ``site`` around ``schema``."""
    text = (CASES / "unchanged" / "before" / "contracts" / "echo.yaml").read_text(encoding="utf-8")
    head, _, tail = text.partition("output:\n")
    before = head if side == "input" else tail
    field = f"    f: {_SITES[site].replace('S', schema)}\n"
    after = before.replace("  required: [", f"{field}  required: [", 1)
    after = after.replace("  additionalProperties: false\n", f"  additionalProperties: false\n{defs}", 1)
    return head.replace(before, after) + "output:\n" + tail if side == "input" else head + "output:\n" + after


def _wire_findings(tmp_path: Path, side: str, site: str, values: tuple[str, str], *, ref: bool) -> list[str]:
    """The WIRE findings (rule: message) when the enum of field ``f`` on ``side`` goes from one list to the other."""
    for folder, enum in zip(("before", "after"), values, strict=True):
        inline = f"{{type: string, enum: [{enum}]}}"
        schema, defs = ('{$ref: "#/$defs/mode"}', f"  $defs:\n    mode: {inline}\n") if ref else (inline, "")
        contracts = tmp_path / folder / "contracts"
        contracts.mkdir(parents=True)
        (contracts / "echo.yaml").write_text(_field_contract(side, site, schema, defs), encoding="utf-8")
    runner = CliRunner()
    after, before = str(tmp_path / "after"), str(tmp_path / "before")
    result = runner.invoke(cli, ["breaking", "--project", after, "--against", before, "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    findings = json.loads(result.stdout)["findings"]
    return [f"{f['rule']}: {f['message']}" for f in findings if f["category"] == "WIRE"]


@pytest.mark.parametrize("site", _SITES)
def test_an_input_enum_narrowed_through_a_ref_is_judged_as_inline_wherever_it_stands(tmp_path: Path, site: str) -> None:
    values = ("plain, loud, soft", "plain, loud")

    inline = _wire_findings(tmp_path / "inline", "input", site, values, ref=False)
    via_ref = _wire_findings(tmp_path / "ref", "input", site, values, ref=True)

    assert via_ref == inline
    assert [f for f in inline if f.startswith("WIRE_INPUT_ENUM_NARROWED: ")] != []


@pytest.mark.parametrize("site", _SITES)
def test_an_output_enum_widened_through_a_ref_is_judged_as_inline_wherever_it_stands(tmp_path: Path, site: str) -> None:
    values = ("calm, loud", "calm, loud, soft")

    inline = _wire_findings(tmp_path / "inline", "output", site, values, ref=False)
    via_ref = _wire_findings(tmp_path / "ref", "output", site, values, ref=True)

    assert via_ref == inline
    assert [f for f in inline if f.startswith("WIRE_OUTPUT_ENUM_WIDENED: ")] != []


# -- git refs ------------------------------------------------------------------------------------------------------


def test_an_unchanged_tree_reports_nothing_against_head_of_this_repository(tmp_path: Path) -> None:
    if not (REPO / ".git").exists():
        pytest.skip("not run from a git checkout")
    clone = tmp_path / "clone"  # HEAD of this repository, apart from any uncommitted change
    _git(tmp_path, "clone", "--quiet", "--shared", "--no-checkout", str(REPO), str(clone))
    contracts = config_for(REPO).relative(config_for(REPO).contracts)
    _git(clone, "checkout", "--quiet", "HEAD", "--", contracts, "pyproject.toml")
    config = config_for(clone)

    old = load_against("HEAD", config)
    new = load_against(str(clone), config)
    findings = compare(old, new, load_severities(config), enums={"skills": []}, folder=contracts)

    assert sorted(c.name for c in old) == sorted(c.name for c in new) != []
    assert findings == []


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository whose project (in ``tools/``) lost an output field in its last commit."""
    root = tmp_path / "repo"
    project = root / "tools"
    shutil.copytree(CASES / "wire_output_field_removed" / "before" / "contracts", project / "contracts")
    _git(tmp_path, "init", "--quiet", str(root))
    _git(root, "add", ".")
    _git(root, "commit", "--quiet", "-m", "one")
    shutil.rmtree(project / "contracts")
    shutil.copytree(CASES / "wire_output_field_removed" / "after" / "contracts", project / "contracts")
    _git(root, "commit", "--quiet", "-am", "two")
    return project


def test_a_git_ref_is_compared_from_the_repository_root(runner: CliRunner, repo: Path) -> None:
    expected = (CASES / "wire_output_field_removed" / "expect.txt").read_text(encoding="utf-8")

    result = runner.invoke(cli, ["breaking", "--project", str(repo), "--against", "HEAD~1"])

    assert result.exit_code == 1
    assert result.stdout == expected.replace("against before\n", "against HEAD~1\n")


def test_uncommitted_changes_are_compared_with_head(runner: CliRunner, repo: Path) -> None:
    contract = repo / "contracts" / "echo.yaml"
    contract.write_text(
        contract.read_text(encoding="utf-8").replace("hint: Whisper it.", "hint: Say it softly."), encoding="utf-8"
    )

    result = runner.invoke(cli, ["breaking", "--project", str(repo), "--against", "HEAD"])

    assert result.exit_code == 0
    assert result.stdout == (
        "contracts/echo.yaml:27:11: warning [MODEL_ERROR_HINT_CHANGED] MODEL: error 'too_loud' hint changed; "
        "the model reads the new text\n"
        "no breaking changes in 1 contract(s) against HEAD\n"
    )


def test_an_unknown_git_ref_exits_2_with_one_line(runner: CliRunner, repo: Path) -> None:
    result = runner.invoke(cli, ["breaking", "--project", str(repo), "--against", "no-such-ref"])

    assert result.exit_code == 2
    assert result.stderr == "toolproof: unknown git ref 'no-such-ref' (and no folder of that name)\n"
    assert result.stdout == ""


EMPTY_REF: Final = (
    "toolproof: --against '' names no ref: pass a git ref (main, origin/main, a commit), a folder of contracts"
    " or toolproof==VERSION; in CI an empty value is a `git merge-base` that found no such ref\n"
)


def test_an_empty_against_is_refused_instead_of_comparing_the_project_with_itself(
    runner: CliRunner, repo: Path
) -> None:
    result = runner.invoke(cli, ["breaking", "--project", str(repo), "--against", ""])  # its last commit breaks

    assert result.exit_code == 2
    assert result.stderr == EMPTY_REF
    assert result.stdout == ""


def test_a_ref_that_looks_like_an_option_is_not_passed_to_git(runner: CliRunner, repo: Path) -> None:
    result = runner.invoke(cli, ["breaking", "--project", str(repo), "--against=--output=x"])

    assert result.exit_code == 2
    assert result.stderr == "toolproof: unknown git ref '--output=x' (and no folder of that name)\n"


ADDED_TO_EMPTY: Final = (
    "contracts/echo.yaml:1:7: info [WIRE_TOOL_ADDED] WIRE: tool 'echo' was added "
    "(the baseline holds no contracts: every tool is new)\n"
)


def test_a_ref_without_the_contracts_folder_reports_every_tool_added(runner: CliRunner, repo: Path) -> None:
    """The pull request that adopts toolproof: its base has no contracts yet, which breaks no caller."""
    root = repo.parent
    (root / "README.md").write_text("tools\n", encoding="utf-8")
    _git(root, "add", "README.md")
    _git(root, "commit", "--quiet", "-m", "readme")
    _git(root, "rm", "--quiet", "-r", "--cached", "tools")
    _git(root, "commit", "--quiet", "-m", "untrack the tools")

    result = runner.invoke(cli, ["breaking", "--project", str(repo), "--against", "HEAD"])

    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"{ADDED_TO_EMPTY}no breaking changes in 1 contract(s) against HEAD\n"


@pytest.fixture
def adopting(tmp_path: Path) -> Path:
    """A repository whose only commit, on ``main``, predates its project (``svc/``, not committed yet)."""
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "--quiet", "-b", "main")
    (root / "README").write_text("hi\n", encoding="utf-8")
    _git(root, "add", "README")
    _git(root, "commit", "--quiet", "-m", "first")
    shutil.copytree(CASES / "wire_output_field_removed" / "after" / "contracts", root / "svc" / "contracts")
    return root / "svc"


def test_adopting_toolproof_passes_against_a_base_without_contracts(runner: CliRunner, adopting: Path) -> None:
    before_commit = runner.invoke(cli, ["breaking", "--project", str(adopting), "--against", "main"])
    _git(adopting, "add", "-A", ".")
    _git(adopting, "commit", "--quiet", "-m", "add the tools")
    after_commit = runner.invoke(cli, ["breaking", "--project", str(adopting), "--against", "HEAD~1"])

    assert (before_commit.exit_code, after_commit.exit_code) == (0, 0), before_commit.stderr + after_commit.stderr
    assert before_commit.stdout == f"{ADDED_TO_EMPTY}no breaking changes in 1 contract(s) against main\n"
    assert after_commit.stdout == f"{ADDED_TO_EMPTY}no breaking changes in 1 contract(s) against HEAD~1\n"


def test_lint_against_a_base_without_contracts_passes(runner: CliRunner, adopting: Path) -> None:
    result = runner.invoke(cli, ["lint", "--project", str(adopting), "--against", "main"])

    assert result.exit_code == 0, result.stderr
    assert result.stdout == "1 contract(s) OK\n"


def test_a_ref_whose_contracts_folder_holds_no_contract_is_an_empty_baseline(runner: CliRunner, adopting: Path) -> None:
    (adopting / "contracts" / "echo.yaml").rename(adopting / "echo.yaml")
    (adopting / "contracts" / ".gitkeep").write_text("", encoding="utf-8")
    _git(adopting, "add", "contracts/.gitkeep")
    _git(adopting, "commit", "--quiet", "-m", "an empty contracts folder")
    (adopting / "echo.yaml").rename(adopting / "contracts" / "echo.yaml")

    result = runner.invoke(cli, ["breaking", "--project", str(adopting), "--against", "HEAD"])

    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"{ADDED_TO_EMPTY}no breaking changes in 1 contract(s) against HEAD\n"


def test_a_ref_where_the_contracts_folder_is_a_file_exits_2(runner: CliRunner, adopting: Path) -> None:
    (adopting / "contracts").rename(adopting / "kept")
    (adopting / "contracts").write_text("not a folder\n", encoding="utf-8")
    _git(adopting, "add", "contracts")
    _git(adopting, "commit", "--quiet", "-m", "a file where the folder goes")
    (adopting / "contracts").unlink()
    (adopting / "kept").rename(adopting / "contracts")

    result = runner.invoke(cli, ["breaking", "--project", str(adopting), "--against", "HEAD"])

    assert result.exit_code == 2
    assert result.stderr == "toolproof: HEAD: svc/contracts is not a folder there\n"


def test_an_unknown_ref_is_still_an_error_when_the_base_has_no_contracts(runner: CliRunner, adopting: Path) -> None:
    result = runner.invoke(cli, ["breaking", "--project", str(adopting), "--against", "mian"])

    assert result.exit_code == 2
    assert result.stderr == "toolproof: unknown git ref 'mian' (and no folder of that name)\n"
    assert result.stdout == ""


def test_compare_with_no_old_contracts_says_each_tool_is_new() -> None:
    new = load_against(str(CASES / "wire_tool_added" / "after"), default_config(CASES / "wire_tool_added" / "after"))

    findings = compare([], new, load_severities(default_config(CASES)), enums={}, folder="contracts")

    assert [(f.rule, f.level, f.message) for f in findings] == [
        (
            "WIRE_TOOL_ADDED",
            Severity.INFO,
            f"tool '{name}' was added (the baseline holds no contracts: every tool is new)",
        )
        for name in ("echo", "ping")
    ]


def test_a_git_ref_outside_any_repository_exits_2(runner: CliRunner, tmp_path: Path) -> None:
    project = _case(tmp_path, "unchanged") / "after"

    result = runner.invoke(cli, ["breaking", "--project", str(project), "--against", "main"])

    assert result.exit_code == 2
    assert result.stderr == f"toolproof: main: not a folder, and {project} is not in a git repository\n"


# -- folders and versions ------------------------------------------------------------------------------------------


def test_a_folder_without_contracts_exits_2(runner: CliRunner, tmp_path: Path) -> None:
    project = _case(tmp_path, "unchanged") / "after"
    empty = tmp_path / "empty"
    empty.mkdir()

    result = runner.invoke(cli, ["breaking", "--project", str(project), "--against", str(empty)])

    assert result.exit_code == 2
    assert result.stderr == f"toolproof: {empty}: no contracts there (not a project, no contracts/ folder, no *.yaml)\n"


@pytest.mark.parametrize("settings", ["pyproject.toml", None])
def test_a_folder_whose_contracts_folder_is_empty_is_an_empty_baseline(
    runner: CliRunner, tmp_path: Path, settings: str | None
) -> None:
    """A project (or a folder with a contracts/ folder) that has no contracts yet: every tool is new."""
    project = _case(tmp_path, "unchanged") / "after"
    base = tmp_path / "base"
    (base / "contracts").mkdir(parents=True)
    if settings is not None:
        (base / settings).write_text('[project]\nname = "base"\n\n[tool.toolproof]\n', encoding="utf-8")

    result = runner.invoke(cli, ["breaking", "--project", str(project), "--against", str(base)])

    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"{ADDED_TO_EMPTY}no breaking changes in 1 contract(s) against {base}\n"


def test_a_folder_that_does_not_exist_exits_2(runner: CliRunner, repo: Path, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder"

    result = runner.invoke(cli, ["breaking", "--project", str(repo), "--against", str(missing)])

    assert result.exit_code == 2
    assert result.stderr == f"toolproof: unknown git ref '{missing}' (and no folder of that name)\n"


def test_contracts_at_the_ref_that_do_not_parse_exit_2(runner: CliRunner, tmp_path: Path) -> None:
    case = _case(tmp_path, "unchanged")
    (case / "before" / "contracts" / "echo.yaml").write_text("name: [\n", encoding="utf-8")

    result = runner.invoke(cli, ["breaking", "--project", str(case / "after"), "--against", str(case / "before")])

    assert result.exit_code == 2
    assert result.stderr.startswith("toolproof: the contracts at ")
    assert "do not load: contracts/echo.yaml:2:1: " in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_the_installed_versions_builtin_contracts_are_a_ref() -> None:
    contracts = load_against(f"toolproof=={__version__}", builtin_project())

    files = sorted(Path(c.source).name for c in contracts)

    assert files == sorted(p.name for p in (REPO / "toolproof/builtin/contracts").glob("*.yaml"))


def test_another_toolproof_version_is_refused(runner: CliRunner, tmp_path: Path) -> None:
    project = _case(tmp_path, "unchanged") / "after"

    result = runner.invoke(cli, ["breaking", "--project", str(project), "--against", "toolproof==0.0.0"])

    assert result.exit_code == 2
    assert result.stderr == (
        f"toolproof: toolproof==0.0.0: the installed toolproof is {__version__}; install 0.0.0 or pass a folder\n"
    )


# -- severities ----------------------------------------------------------------------------------------------------


def _pinned(tmp_path: Path, pins: str) -> Path:
    case = _case(tmp_path, "wire_output_field_removed")
    (case / "after" / "breaking.toml").write_text(pins, encoding="utf-8")
    return case


def test_a_rule_pinned_to_warning_needs_no_major_bump(runner: CliRunner, tmp_path: Path) -> None:
    case = _pinned(tmp_path, 'WIRE_OUTPUT_FIELD_REMOVED = "warning"\nEXPORT_DIGEST_CHANGED = "off"\n')

    result = runner.invoke(cli, ["breaking", "--project", str(case / "after"), "--against", str(case / "before")])

    assert result.exit_code == 0
    assert result.stdout == (
        "contracts/echo.yaml:19:5: warning [WIRE_OUTPUT_FIELD_REMOVED] WIRE: output field 'tone' was removed; "
        "readers that use it break\n"
        f"no breaking changes in 1 contract(s) against {case / 'before'}\n"
    )


def test_fail_on_warning_fails_on_a_warning(runner: CliRunner, tmp_path: Path) -> None:
    case = _pinned(tmp_path, 'WIRE_OUTPUT_FIELD_REMOVED = "warning"\n')
    args = ["breaking", "--project", str(case / "after"), "--against", str(case / "before"), "--fail-on", "warning"]

    result = runner.invoke(cli, args)

    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == f"0 error(s), 1 warning(s) in 1 contract(s) against {case / 'before'}"


def test_a_rule_pinned_off_is_not_reported(runner: CliRunner, tmp_path: Path) -> None:
    agreed = "# removing tone was agreed with every reader\nWIRE_OUTPUT_FIELD_REMOVED = 'off'\n"
    case = _pinned(tmp_path, f"{agreed}EXPORT_DIGEST_CHANGED = 'off'\n")

    result = runner.invoke(cli, ["breaking", "--project", str(case / "after"), "--against", str(case / "before")])

    assert result.exit_code == 0
    assert result.stdout == f"no breaking changes in 1 contract(s) against {case / 'before'}\n"


def test_version_not_bumped_pinned_off_leaves_the_breaking_change(runner: CliRunner, tmp_path: Path) -> None:
    case = _pinned(tmp_path, 'VERSION_NOT_BUMPED = "off"\n')

    result = runner.invoke(cli, ["breaking", "--project", str(case / "after"), "--against", str(case / "before")])

    assert result.exit_code == 1
    assert "[VERSION_NOT_BUMPED]" not in result.stdout
    assert "error [WIRE_OUTPUT_FIELD_REMOVED]" in result.stdout


def test_an_unknown_rule_id_is_refused(runner: CliRunner, tmp_path: Path) -> None:
    case = _pinned(tmp_path, 'WIRE_OUTPUT_FIELD_REMOVE = "off"\n')

    result = runner.invoke(cli, ["breaking", "--project", str(case / "after"), "--against", str(case / "before")])

    assert result.exit_code == 2
    assert result.stderr == (
        "toolproof: breaking.toml: unknown rule ID 'WIRE_OUTPUT_FIELD_REMOVE'; "
        "did you mean WIRE_OUTPUT_FIELD_REMOVED?\n"
    )


def test_an_unknown_level_is_refused(runner: CliRunner, tmp_path: Path) -> None:
    case = _pinned(tmp_path, 'WIRE_OUTPUT_FIELD_REMOVED = "fatal"\n')

    result = runner.invoke(cli, ["breaking", "--project", str(case / "after"), "--against", str(case / "before")])

    assert result.exit_code == 2
    assert result.stderr == (
        "toolproof: breaking.toml: WIRE_OUTPUT_FIELD_REMOVED = 'fatal' is not one of error, warning, info, off\n"
    )


def test_a_severities_file_that_is_not_toml_is_refused(runner: CliRunner, tmp_path: Path) -> None:
    case = _pinned(tmp_path, "WIRE_OUTPUT_FIELD_REMOVED = \n")

    result = runner.invoke(cli, ["breaking", "--project", str(case / "after"), "--against", str(case / "before")])

    assert result.exit_code == 2
    assert result.stderr.startswith("toolproof: breaking.toml: is not valid TOML (")
    assert len(result.stderr.splitlines()) == 1


def test_the_defaults_are_the_rule_table() -> None:
    levels = load_severities(default_config(CASES / "unchanged" / "after"))

    assert levels == {rule.id: rule.level for rule in RULES.values()}
    assert RULES["VERSION_NOT_BUMPED"].category is Category.VERSION


def test_severities_may_live_in_the_project_settings(tmp_path: Path) -> None:
    settings = tmp_path / "pyproject.toml"
    settings.write_text('[tool.toolproof.breaking]\nERRORS_CODE_ADDED = "info"\n', encoding="utf-8")
    config = dataclasses.replace(default_config(tmp_path), config_file=settings)

    levels = load_severities(config)

    assert levels["ERRORS_CODE_ADDED"] is Severity.INFO


def test_a_toolproof_toml_pins_them_in_its_breaking_table(tmp_path: Path) -> None:
    settings = tmp_path / "toolproof.toml"
    settings.write_text('contracts = "contracts"\n\n[breaking]\nMODEL_TITLE_CHANGED = "off"\n', encoding="utf-8")
    config = dataclasses.replace(default_config(tmp_path), config_file=settings)

    levels = load_severities(config)

    assert levels["MODEL_TITLE_CHANGED"] is Severity.OFF


def test_severities_that_are_not_a_table_are_refused(tmp_path: Path) -> None:
    settings = tmp_path / "pyproject.toml"
    settings.write_text('[tool.toolproof]\nbreaking = ["WIRE_TOOL_ADDED"]\n', encoding="utf-8")
    config = dataclasses.replace(default_config(tmp_path), config_file=settings)

    with pytest.raises(BreakingError) as caught:
        load_severities(config)

    assert str(caught.value) == (
        "pyproject.toml [tool.toolproof.breaking]: the severities must be a table of RULE_ID = level"
    )


def test_severities_in_both_places_are_refused(tmp_path: Path) -> None:
    settings = tmp_path / "pyproject.toml"
    settings.write_text('[tool.toolproof.breaking]\nERRORS_CODE_ADDED = "info"\n', encoding="utf-8")
    (tmp_path / "breaking.toml").write_text('ERRORS_CODE_ADDED = "off"\n', encoding="utf-8")
    config = dataclasses.replace(default_config(tmp_path), config_file=settings)

    with pytest.raises(BreakingError) as caught:
        load_severities(config)

    assert str(caught.value) == (
        "breaking.toml and pyproject.toml [tool.toolproof.breaking] both pin severities; keep one"
    )


# -- formats -------------------------------------------------------------------------------------------------------


def test_json_reports_every_finding_as_data(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CASES / "wire_output_field_removed")

    result = runner.invoke(cli, ["breaking", "--project", "after", "--against", "before", "--format", "json"])

    assert result.exit_code == 1
    assert json.loads(result.stdout) == {
        "against": "before",
        "contracts": 1,
        "fail_on": "error",
        "failed": True,
        "findings": [
            {
                "rule": "EXPORT_DIGEST_CHANGED",
                "category": "EXPORT",
                "level": "info",
                "file": "contracts/echo.yaml",
                "line": 1,
                "column": 7,
                "message": f"the tool's pinned digest sha256:7b2746007453… → sha256:ad6eaa51d4ac…; {_REPIN}",
            },
            {
                "rule": "VERSION_NOT_BUMPED",
                "category": "VERSION",
                "level": "error",
                "file": "contracts/echo.yaml",
                "line": 2,
                "column": 10,
                "message": "1 breaking change(s) but version 1.0.0 → 1.0.0 is not a major version bump; "
                "make it 2.0.0 or later",
            },
            {
                "rule": "WIRE_OUTPUT_FIELD_REMOVED",
                "category": "WIRE",
                "level": "error",
                "file": "contracts/echo.yaml",
                "line": 19,
                "column": 5,
                "message": "output field 'tone' was removed; readers that use it break",
            },
        ],
        "summary": "2 error(s), 0 warning(s) in 1 contract(s) against before",
    }


def test_github_annotates_each_finding(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CASES / "major_version_bump")

    result = runner.invoke(cli, ["breaking", "--project", "after", "--against", "before", "--format", "github"])

    assert result.exit_code == 0
    assert result.stdout == (
        "::notice file=contracts/echo.yaml,line=1,col=7,title=EXPORT_DIGEST_CHANGED::EXPORT: the tool's pinned digest "
        f"sha256:7b2746007453… → sha256:3f1baabf1738…; {_REPIN}\n"
        "::warning file=contracts/echo.yaml,line=6,col=64,title=EXPORT_ANNOTATION_CHANGED::EXPORT: annotation "
        "idempotent true → false; hosts that decide approval or retries by it act differently\n"
        "::notice file=contracts/echo.yaml,line=19,col=5,title=WIRE_OUTPUT_FIELD_REMOVED::WIRE: output field 'tone' "
        "was removed; readers that use it break (allowed by major version bump 1.x → 2.0.0)\n"
        "no breaking changes in 1 contract(s) against before\n"
    )


def test_github_escapes_what_would_end_a_command(runner: CliRunner, tmp_path: Path) -> None:
    case = _case(tmp_path, "unchanged")
    contract = case / "after" / "contracts" / "echo.yaml"
    contract.write_text(
        contract.read_text(encoding="utf-8").replace("title: Echo\n", 'title: "100% echo"\n'), encoding="utf-8"
    )
    args = ["breaking", "--project", str(case / "after"), "--against", str(case / "before"), "--format", "github"]

    result = runner.invoke(cli, args)

    assert result.stdout.splitlines()[1] == (  # after the digest's notice, at the name (line 1)
        '::warning file=contracts/echo.yaml,line=3,col=8,title=MODEL_TITLE_CHANGED::MODEL: the tool title "Echo" '
        '→ "100%25 echo"'
    )


def test_an_unknown_format_is_a_usage_error(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CASES / "unchanged")

    result = runner.invoke(cli, ["breaking", "--project", "after", "--against", "before", "--format", "xml"])

    assert result.exit_code == 2
    assert "Invalid value for '--format'" in result.stderr
