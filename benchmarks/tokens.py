"""How exact toolproof's token counts are: bpe-openai against tiktoken, and the byte estimate against both.

tiktoken is OpenAI's own tokenizer, but it downloads its encodings on first use. Here it reads
``o200k_base`` from a cache filled with the copy bpe-openai ships, after checking that copy's sha256
against the hash tiktoken pins for OpenAI's published file: the reference is OpenAI's data run by OpenAI's
code, with no network. Every tool definition of the built-in contracts, in every provider format, and
each tool set, is counted by all three; the script prints, per format, whether bpe-openai and tiktoken
agree on every count and how far the byte estimate (what toolproof counts without the ``tokens`` extra)
is from the exact count.

Run: ``python benchmarks/tokens.py`` (``make bench`` runs it too).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path

O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
"""The hash ``tiktoken_ext.openai_public`` pins for OpenAI's o200k_base file."""


def tiktoken_o200k(cache: Path) -> Callable[[str], int]:
    """tiktoken's o200k_base count, its encoding read from bpe-openai's copy once its hash is OpenAI's.

    Raises:
        ValueError: bpe-openai's copy is not OpenAI's file.
    """
    from toolproof.generator.tokens import counter

    counter()  # imports bpe-openai, whose import warns of a deprecated call toolproof filters there
    data = gzip.decompress(resources.files("bpe_openai.data").joinpath("o200k_base.tiktoken.gz").read_bytes())
    if hashlib.sha256(data).hexdigest() != O200K_SHA256:
        raise ValueError("bpe-openai's o200k_base is not the file OpenAI publishes")
    cache.mkdir(parents=True, exist_ok=True)
    (cache / hashlib.sha1(O200K_URL.encode()).hexdigest()).write_bytes(data)  # tiktoken's cache key
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    import tiktoken

    encoding = tiktoken.get_encoding("o200k_base")
    return lambda text: len(encoding.encode(text, disallowed_special=()))


def texts() -> dict[str, list[str]]:
    """The text of every built-in tool definition and tool set, by definition format."""
    from toolproof.generator import load_project
    from toolproof.generator.exports import DEFINITION_FORMATS
    from toolproof.generator.tokens import definition_text, tool_definitions
    from toolproof.runtime.project import builtin_project

    exports = load_project(builtin_project()).exports()
    out: dict[str, list[str]] = {}
    for fmt in DEFINITION_FORMATS:
        out[fmt] = []
        for exported in exports[fmt].values():
            items = tool_definitions(fmt, exported.data)
            out[fmt] += [definition_text(d) for _, d in items] + [definition_text([d for _, d in items])]
    return out


def main() -> int:
    from toolproof.generator.tokens import _estimate, counter

    count = counter()
    if not count.real:
        print("bpe-openai is not installed: pip install 'toolproof[tokens]'", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as folder:
        reference = tiktoken_o200k(Path(folder))
        print(f"{'format':<17} {'texts':>5}  {'bpe-openai = tiktoken':<21}  estimate / exact (min, mean, max)")
        for fmt, items in texts().items():
            exact = [reference(t) for t in items]
            same = sum(1 for t, e in zip(items, exact, strict=True) if count.count(t) == e)
            ratios = [_estimate(t) / e for t, e in zip(items, exact, strict=True)]
            shown = f"{min(ratios):.2f}, {statistics.mean(ratios):.2f}, {max(ratios):.2f}"
            print(f"{fmt:<17} {len(items):>5}  {f'{same} of {len(items)}':<21}  {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
