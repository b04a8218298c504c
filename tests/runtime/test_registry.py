"""The registry fails loudly, naming every missing handler and every extra module."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolproof.runtime.errors import RegistryError
from toolproof.runtime.registry import bind
from toolproof.runtime.spec import ToolSpec, load_specs


def _spec(name: str, handler: str) -> ToolSpec:
    return ToolSpec.from_data(
        {
            "name": name,
            "module": name,
            "version": "1.0.0",
            "title": name,
            "description": name,
            "handler": handler,
            "annotations": {},
            "input": {"type": "object"},
            "output": {"type": "object"},
            "errors": {},
            "render": {"result": "{$}", "error": "{message}"},
            "source": f"contracts/{name}.yaml",
            "sha256": "0",
        }
    )


@pytest.fixture
def package(tmp_path: Path) -> Iterator[str]:
    """A throwaway handlers package: ``served`` has a handler, ``stray`` serves nothing."""
    pkg = tmp_path / "fake_handlers"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "served.py").write_text("def handle(args, ctx):\n    return {}\n", encoding="utf-8")
    (pkg / "stray.py").write_text("def handle(args, ctx):\n    return {}\n", encoding="utf-8")
    (pkg / "_private.py").write_text("", encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    yield "fake_handlers"
    sys.path.remove(str(tmp_path))
    for name in [m for m in sys.modules if m.startswith("fake_handlers")]:
        del sys.modules[name]


def test_missing_and_extra_handlers_are_all_named(package: str) -> None:
    specs = [
        _spec("served", f"{package}.served:handle"),
        _spec("ghost", f"{package}.ghost:handle"),
        _spec("wrong_attr", f"{package}.served:nothing"),
    ]

    with pytest.raises(RegistryError) as info:
        bind(specs, handlers_package=package)

    problems: list[Any] = info.value.problems
    assert len(problems) == 3
    assert problems[0].startswith(
        "contract 'ghost' (contracts/ghost.yaml in toolproof.builtin.generated) "
        "has no handler fake_handlers.ghost:handle"
    )
    assert problems[1].startswith(
        "contract 'wrong_attr' (contracts/wrong_attr.yaml in toolproof.builtin.generated) has no handler"
    )
    assert problems[2] == "handler module fake_handlers.stray serves no contract; remove it or add a contract"


def test_a_complete_set_binds(package: str) -> None:
    specs = [_spec("served", f"{package}.served:handle"), _spec("stray", f"{package}.stray:handle")]

    bound = bind(specs, handlers_package=package)

    assert [tool.spec.name for tool in bound] == ["served", "stray"]


def test_the_project_registry_binds_every_generated_contract() -> None:
    bound = bind(load_specs())

    assert {tool.spec.name for tool in bound} >= {"read_file_in_skill"}


def test_a_missing_contract_file_is_a_registry_error() -> None:
    with pytest.raises(RegistryError) as info:
        load_specs(modules=("no_such_module",))

    assert "toolproof.builtin.generated: contracts/no_such_module.json cannot be loaded" in info.value.problems[0]
