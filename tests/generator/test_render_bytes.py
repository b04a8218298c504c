"""orjson writes the generated JSON byte for byte as the standard library does, or hands over to it."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from toolproof.generator import load_project
from toolproof.generator import render as render_module
from toolproof.generator.jsontext import dump_json, dump_json_stdlib

REPO = Path(__file__).resolve().parents[2]
CASES = sorted(p for p in (Path(__file__).parent / "cases").iterdir() if p.is_dir())


@pytest.mark.parametrize("root", [REPO, *CASES], ids=["this repo", *(c.name for c in CASES)])
def test_rendering_with_orjson_gives_the_bytes_the_standard_library_gives(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = load_project(root)
    assert project.ok, [str(p) for p in project.problems]
    fast = project.render()
    monkeypatch.setattr(render_module, "dump_json", dump_json_stdlib)

    reference = project.render()

    assert list(fast) == list(reference)
    differing = [path for path in fast if fast[path].encode("utf-8") != reference[path].encode("utf-8")]
    assert differing == []
    assert any(path.endswith(".json") for path in fast)


@pytest.mark.parametrize(
    "value",
    [
        {"text": 'café → \u2028 \x01 \x7f "quoted" \\ tab\t'},
        [],
        {},
        {"empty": [], "nested": [{}, [[]]]},
        2**64 - 1,
        -(2**63),
        10**30,
        {1: "an int key"},
        1e16,
        1e-05,
        1e15,
        0.0001,
        5e-324,
        1.7976931348623157e308,
        -0.0,
        math.nan,
        {"default": None, "limit": math.inf},
        {"looks like a number": "1e5: 1e5", "n": 1.5},
        {"minimum": 1e-05, "maximum": 2.5e-07},
        {"text": "ends in 1e-05", "items": [1, 2.5e-05, "0.00001"]},
        [[0.1, 1e-05], {"x": -3e-06}],
        [True, False, None, "x", 0, -1],
        ("a", "tuple"),
    ],
    ids=repr,
)
def test_dump_json_matches_the_standard_library(value: Any) -> None:
    assert dump_json(value).encode("utf-8") == dump_json_stdlib(value).encode("utf-8")
