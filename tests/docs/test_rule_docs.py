"""Every lint and breaking-change rule has what its documentation page shows: an example and a fix."""

from __future__ import annotations

import pytest

from toolproof.generator import breaking_rules, problems


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
