"""Every lint and breaking-change rule has what its page shows, an example and a fix, and each example is proven:
laid over a contract lint passes, it makes lint (or ``toolproof breaking``) report its rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pytest
import yaml
from click.testing import CliRunner

from toolproof.cli import cli
from toolproof.generator import breaking_rules, load_project, problems


@pytest.mark.parametrize(
    ("rules", "docs"),
    [(problems.RULES, problems.DOCS), (breaking_rules.RULES, breaking_rules.DOCS)],
    ids=["lint", "breaking"],
)
def test_every_rule_has_an_example_and_a_fix_and_no_page_names_a_rule_that_is_gone(
    rules: dict[str, object], docs: dict[str, problems.RuleDoc | breaking_rules.RuleDoc]
) -> None:
    assert sorted(docs) == sorted(rules)
    for rule_id, doc in docs.items():
        assert doc.example.strip(), rule_id
        assert doc.fix.strip().endswith((".", ")", "`")), rule_id


def test_each_lint_example_quotes_the_rule_only_under_its_own_id() -> None:
    for rule_id, doc in problems.DOCS.items():
        quoted = {word.strip("[]") for word in doc.example.split() if word.startswith("[TP")}
        assert quoted <= {rule_id}, rule_id


_BASE: Final = """
name: echo
version: 1.0.0
title: Echo
description: Echo a word back.
annotations: {read_only: true, destructive: false, idempotent: true, open_world: false}
input:
  type: object
  properties:
    word: {type: string, minLength: 1}
  required: [word]
  additionalProperties: false
output:
  type: object
  properties:
    echo: {type: string}
  required: [echo]
  additionalProperties: false
errors:
  too_loud: {message: "The word '{word}' is too loud", hint: Whisper., status: 403}
render:
  result: "{echo}"
examples:
  - name: echoes
    input: {word: hi}
    expect: {output: {echo: hi}, text: hi}
  - name: too loud
    input: {word: HI}
    expect: {error: too_loud}
"""
"""A contract lint passes; each rule's example is laid over it."""

_NOT_A_CONTRACT_FRAGMENT: Final = {
    "TP001": "the file's bytes, type or link",
    "TP002": "YAML text that does not parse",
    "TP003": "YAML text (a tab)",
    "TP005": "YAML aliases, which parsing expands",
    "TP006": "a file with no document",
    "TP007": "YAML text (a repeated key, which parsing drops)",
    "TP102": "the file's name",
    "TP103": "two contracts",
    "TP104": "two contracts",
    "TP215": "a shared definition file",
    "TP217": "a shared definition file",
    "TP312": "the project's settings",
    "TP313": "the project's settings and its package.json",
    "TP401": "the project's settings",
    "TP402": "the project's settings",
    "TP405": "the project's settings",
    "TP406": "the project's settings",
    "TP407": "an earlier revision",
    "TP408": "the handlers package",
    "TP411": "the project's settings",
    "TP421": "the project's settings",
    "TP422": "the project's settings",
    "TP423": "the project's settings",
    **dict.fromkeys(("TP430", "TP431", "TP432", "TP433", "TP434", "TP435"), "the project's settings"),
    **dict.fromkeys(("TP601", "TP602", "TP603", "TP604", "TP605", "TP606", "TP607"), "the project's settings"),
    "TP704": "two contracts",
    "TP708": "a description of over 1,024 characters, not shown whole",
}
"""Rules whose example is not a part of one contract, with what it is instead."""


def _kind_base(base: dict[str, Any], fragment: Any) -> dict[str, Any]:
    """The base a fragment is laid over: without output, annotations and render for a resource or prompt (its kind
    implies them)."""
    if isinstance(fragment, dict) and "kind" in fragment:
        return {k: v for k, v in base.items() if k not in ("output", "annotations", "render")}
    return base


def _lay_over(base: Any, fragment: Any, key: str = "") -> Any:
    """``fragment`` over ``base``: mappings merge, lists and values are replaced, and so is each named property."""
    if not (isinstance(base, dict) and isinstance(fragment, dict)):
        return fragment
    if key == "properties":
        return {**base, **fragment}
    return {**base, **{k: _lay_over(base[k], v, k) if k in base else v for k, v in fragment.items()}}


@pytest.mark.parametrize("rule_id", sorted(set(problems.DOCS) - set(_NOT_A_CONTRACT_FRAGMENT)))
def test_each_lint_example_laid_over_a_valid_contract_makes_lint_report_its_rule(rule_id: str, tmp_path: Path) -> None:
    base = yaml.safe_load(_BASE)
    assert load_project(_project(tmp_path / "base", base), show_losses=True).ok

    fragment = yaml.safe_load(problems.DOCS[rule_id].example)
    contract = _lay_over(_kind_base(base, fragment), fragment)
    found = load_project(_project(tmp_path / "example", contract), show_losses=True, fit=True).problems

    assert rule_id in {problem.rule.id for problem in found}


def _project(root: Path, contract: dict[str, Any], *, declared: bool = False) -> Path:
    """A project of ``contract``; ``declared``: its settings declare the OAuth scopes it names (lint's TP420)."""
    (root / "contracts").mkdir(parents=True)
    text = yaml.safe_dump(contract, sort_keys=False, allow_unicode=True)
    (root / "contracts" / f"{contract['name']}.yaml").write_text(text, encoding="utf-8")
    if declared and contract.get("scopes"):
        scopes = json.dumps(contract["scopes"])
        (root / "pyproject.toml").write_text(f"[tool.toolproof.serve]\nscopes = {scopes}\n", encoding="utf-8")
    return root


_NOT_TWO_REVISIONS_OF_ONE_CONTRACT: Final = {"WIRE_TOOL_ADDED": "the earlier revision has no contract"}


def _revisions(example: str) -> tuple[str, str]:
    """A breaking example's two sides: the text after its ``# before`` line, and after its ``# after`` line."""
    lines = example.split("\n")
    cut = next(i for i, line in enumerate(lines) if line.startswith("# after"))
    assert lines[0].startswith("# before")
    return "\n".join(lines[1:cut]), "\n".join(lines[cut + 1 :])


@pytest.mark.parametrize("rule_id", [r for r in breaking_rules.DOCS if r not in _NOT_TWO_REVISIONS_OF_ONE_CONTRACT])
def test_each_breaking_example_laid_over_a_valid_contract_makes_breaking_report_its_rule(
    rule_id: str, tmp_path: Path
) -> None:
    base = yaml.safe_load(_BASE)
    base["examples"] = [{"name": "refuses an empty call", "input": {}, "expect": {"error": "invalid_arguments"}}]
    before, after = _revisions(breaking_rules.DOCS[rule_id].example)
    old = _lay_over(_kind_base(base, yaml.safe_load(before) or {}), yaml.safe_load(before) or {})
    new = _lay_over(_kind_base(base, yaml.safe_load(after) or {}), yaml.safe_load(after) or {})
    against = _project(tmp_path / "old", old, declared=True)
    project = _project(tmp_path / "new", new, declared=True)

    result = CliRunner().invoke(
        cli, ["breaking", "--against", str(against), "--project", str(project), "--format", "json"]
    )

    assert rule_id in {finding["rule"] for finding in json.loads(result.stdout)["findings"]}, result.output
