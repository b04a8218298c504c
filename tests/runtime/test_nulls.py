"""Strict-mode nulls read as absent, only where the contract does not accept null."""

from __future__ import annotations

from typing import Any

from toolproof.runtime.nulls import drop_absent_nulls, plan_for

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "offset": {"type": "integer"},
        "since": {"type": ["string", "null"]},
        "mode": {"enum": ["a", None]},
        "filter": {
            "type": "object",
            "properties": {"min": {"type": "number"}, "tag": {"type": "string"}},
            "required": ["tag"],
        },
    },
    "required": ["path"],
}


def test_optional_non_nullable_nulls_are_dropped_at_every_depth() -> None:
    plan = plan_for(SCHEMA)
    assert plan is not None

    value = {"path": "a", "offset": None, "since": None, "mode": None, "filter": {"min": None, "tag": "x"}}

    assert drop_absent_nulls(plan, value) == {"path": "a", "since": None, "mode": None, "filter": {"tag": "x"}}


def test_required_nulls_stay_so_validation_reports_them() -> None:
    plan = plan_for(SCHEMA)
    assert plan is not None

    assert drop_absent_nulls(plan, {"path": None}) == {"path": None}
    assert drop_absent_nulls(plan, {"path": "a", "filter": {"tag": None}}) == {"path": "a", "filter": {"tag": None}}


def test_nothing_is_copied_when_nothing_changes() -> None:
    plan = plan_for(SCHEMA)
    assert plan is not None
    value = {"path": "a", "offset": 3}

    assert drop_absent_nulls(plan, value) is value


def test_schemas_without_droppable_fields_have_no_plan() -> None:
    assert plan_for({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}) is None
    assert plan_for({"type": "string"}) is None
