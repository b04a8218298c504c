"""Resources: what a host supplies, what a contract needs, and what a handler reads, typed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from toolproof.runtime.context import Resources, ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import INTERNAL_ERROR, RegistryError
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.spec import ToolSpec


@dataclass(frozen=True)
class Database:
    resource: ClassVar[str] = "database"
    rows: tuple[str, ...]


@dataclass(frozen=True)
class Colours:
    """A resource that fills the `colour` enum and refuses tools named `refused`."""

    resource: ClassVar[str] = "colours"
    names: tuple[str, ...]

    def enum_values(self, source: str) -> list[str] | None:
        return list(self.names) if source == "colours" else None

    def check(self, spec: ToolSpec) -> list[str]:
        return [f"colours cannot serve {spec.name}"] if spec.name == "refused" else []


class Impostor:
    resource: ClassVar[str] = "database"


def _spec(name: str, needs: list[str], **extra: Any) -> ToolSpec:
    return ToolSpec.from_data(
        {
            "name": name,
            "module": name,
            "handler": f"tests:{name}",
            "annotations": {},
            "input": {"type": "object", "properties": {"colour": {"type": "string"}}},
            "output": {"type": "object"},
            "errors": {},
            "render": {"result": "{$}", "error": "ERROR: {message}"},
            "needs": needs,
            "source": f"contracts/{name}.yaml",
            **extra,
        }
    )


def _count(args: Any, ctx: ToolContext) -> Any:
    return {"rows": len(ctx.need(Database).rows)}


def _tool(name: str, needs: list[str], **extra: Any) -> BoundTool:
    return BoundTool.build(_spec(name, needs, **extra), _count)


def test_a_handler_reads_the_resource_its_contract_needs() -> None:
    runtime = Runtime([_tool("count", ["database"])], resources=[Database(("a", "b"))])

    assert runtime.call("count", {}).output == {"rows": 2}


def test_a_tool_whose_needs_are_not_supplied_is_not_served_and_says_why() -> None:
    runtime = Runtime([_tool("count", ["database"]), _tool("free", [])], resources=[])

    assert [spec.name for spec in runtime.specs] == ["free"]
    assert runtime.unavailable == {"count": ("database",)}
    assert runtime.call("count", {}).error is not None
    assert runtime.call("count", {}).error.code == "unknown_tool"  # type: ignore[union-attr]


def test_a_handler_that_reads_an_undeclared_resource_fails_as_internal_error() -> None:
    runtime = Runtime([_tool("count", [])], resources=[])

    result = runtime.call("count", {})

    assert result.error is not None and result.error.code == INTERNAL_ERROR


def test_a_resource_of_the_wrong_class_under_a_name_is_internal_error_not_a_crash() -> None:
    runtime = Runtime([_tool("count", ["database"])], resources=[Impostor()])

    result = runtime.call("count", {})

    assert result.error is not None and result.error.code == INTERNAL_ERROR


def test_two_resources_with_one_name_stop_start_up() -> None:
    with pytest.raises(RegistryError) as info:
        Resources([Database(()), Database(("x",))])

    assert info.value.problems[0].startswith("two resources are named 'database'")


def test_an_object_without_a_resource_name_is_refused() -> None:
    with pytest.raises(TypeError, match="has no `resource: ClassVar\\[str\\]` name"):
        Resources([object()])


def test_a_resource_fills_dynamic_enums_at_start_up() -> None:
    tool = _tool("paint", ["colours"], dynamic_enums={"colour": "colours"})
    runtime = Runtime([tool], resources=[Colours(("red", "green"))])

    (spec,) = runtime.specs
    assert spec.input_schema["properties"]["colour"]["enum"] == ["red", "green"]
    refused = runtime.call("paint", {"colour": "blue"})
    assert refused.error is not None and refused.error.code == "invalid_arguments"


def test_a_resource_check_that_fails_stops_start_up_naming_the_tool() -> None:
    with pytest.raises(RegistryError) as info:
        Runtime([_tool("refused", ["colours"])], resources=[Colours(())])

    assert info.value.problems == ["colours cannot serve refused"]


def test_a_context_reads_contract_settings_with_a_default() -> None:
    spec = _spec("linked", [], symlinks="deny")
    ctx = ToolContext("linked", None, spec)

    assert ctx.setting("symlinks") == "deny"
    assert ctx.setting("hardlinks", "allow") == "allow"
    assert ToolContext("bare").setting("symlinks", "within_root") == "within_root"
