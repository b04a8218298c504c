"""The token counts are exact where the docs say so: bpe-openai against tiktoken, OpenAI's own tokenizer."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from toolproof.generator.tokens import _estimate, counter

pytestmark = pytest.mark.slow  # bpe-openai loads its encodings in ~4 s, tiktoken o200k_base in ~2 s

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "tokens.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_tokens", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_bpe_openai_counts_every_built_in_definition_as_tiktoken_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = _script()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # tiktoken_o200k sets it; restored after the test
    reference = script.tiktoken_o200k(tmp_path / "cache")
    texts = [text for items in script.texts().values() for text in items]

    assert len(texts) > 50
    assert [counter().count(t) for t in texts] == [reference(t) for t in texts]


def test_the_byte_estimate_stays_within_a_quarter_of_the_exact_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = _script()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    reference = script.tiktoken_o200k(tmp_path / "cache")
    texts = [text for items in script.texts().values() for text in items]

    ratios = [_estimate(t) / reference(t) for t in texts]

    assert 0.75 <= min(ratios) and max(ratios) <= 1.25  # the docs call it an estimate; this is how rough
