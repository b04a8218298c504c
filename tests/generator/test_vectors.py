"""The language-neutral vectors replay through the Python runtime using only what the files say."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolproof.builtin import generated
from toolproof.testing.replay import bound_tool, replay

VECTORS = Path(__file__).parents[2] / "toolproof/builtin/generated" / "exports" / "vectors"


def _cases() -> list[tuple[str, dict[str, Any]]]:
    cases: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(VECTORS.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        assert document["format"] == "toolproof-vectors/1"
        cases.extend((document["tool"], example) for example in document["examples"])
    return cases


CASES = _cases()


def test_every_contract_has_vectors_with_its_conventions() -> None:
    names = {json.loads(p.read_text(encoding="utf-8"))["tool"] for p in VECTORS.glob("*.json")}

    assert names == set(generated.TOOLS)
    assert len(CASES) > 100


@pytest.mark.parametrize(("tool", "example"), CASES, ids=[f"{t}:{e['name']}" for t, e in CASES])
def test_vector_replays_through_the_runtime(tool: str, example: dict[str, Any], tmp_path: Path) -> None:
    replay(bound_tool(generated.TOOLS[tool]), example, tmp_path)
