"""What a tool definition costs in tokens, counted offline, per provider.

The count is of the definition's JSON text as a request carries it (compact, the keys in their
order), encoded with ``o200k_base``: the encoding of OpenAI's current models (GPT-4o, GPT-4.1, the
o-series, GPT-5). ``bpe-openai`` (the ``tokens`` extra) ships that encoding inside its wheel, so
counting needs no network; without it, a plain estimate stands in (UTF-8 bytes / 4) and every
report says so.

What the count is, provider by provider (``ACCURACY``): for OpenAI's formats it is the exact token
count of the text (bpe-openai gives tiktoken's tokens; ``benchmarks/tokens.py`` checks it against
tiktoken on the built-in contracts); the API renders tools into a prompt form of its own, so what
it bills adds a fixed overhead per request we cannot see offline. Anthropic's and Google's
tokenizers are not published: for their formats, and for MCP (a host hands the definition to its
own model), the o200k count is an estimate.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

__all__ = ["ACCURACY", "Counter", "TokenCount", "counter", "definition_text", "tool_costs"]

ENCODING: Final = "o200k_base"
ACCURACY: Final = {
    "openai": "exact",
    "openai-responses": "exact",
    "anthropic": "estimate",
    "mcp": "estimate",
    "gemini": "estimate",
    "gemini-openapi": "estimate",
}
"""Whether a format's count is the exact token count of its text (with the tokenizer installed) or an estimate."""


@dataclass(frozen=True, slots=True)
class Counter:
    """A token counter: its name, and whether it is the real encoding (False: the byte estimate)."""

    name: str
    real: bool
    count: Callable[[str], int]

    def accuracy(self, fmt: str) -> str:
        """``exact`` or ``estimate``: what a count of ``fmt``'s text by this counter is."""
        return ACCURACY.get(fmt, "estimate") if self.real else "estimate"


def _estimate(text: str) -> int:
    return math.ceil(len(text.encode("utf-8")) / 4)


@cache
def counter() -> Counter:
    """The ``o200k_base`` counter when bpe-openai is installed (``toolproof[tokens]``), else the byte estimate."""
    with warnings.catch_warnings():  # bpe-openai 0.1.4 loads its data with importlib.resources.open_binary
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import bpe_openai  # type: ignore[import-untyped, import-not-found, unused-ignore]  # untyped; optional
        except ImportError:
            return Counter("estimate (UTF-8 bytes / 4; install toolproof[tokens] for o200k_base)", False, _estimate)
        encoding = bpe_openai.get_encoding(ENCODING)
        encoding.encode("")  # the encoding's data loads on first use: here, under the filter

    def count(text: str) -> int:
        return len(encoding.encode(text))

    return Counter(ENCODING, True, count)


def definition_text(definition: Any) -> str:
    """A definition as a request carries it: compact JSON, keys in their order, non-ASCII as is."""
    return json.dumps(definition, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class TokenCount:
    """The tokens of each tool's definition in one format, and of the whole tool set as one request's array."""

    format: str
    tools: Mapping[str, int]
    total: int
    accuracy: str


def tool_definitions(fmt: str, data: Any) -> list[tuple[str, Any]]:
    """(name, definition) of each tool in an export's data, whatever the format's envelope."""
    if fmt == "mcp":
        items = data["tools"]
    elif fmt in ("gemini", "gemini-openapi"):
        items = data["functionDeclarations"]
    else:
        items = data
    return [(item["function"]["name"] if fmt == "openai" else item["name"], item) for item in items]


def tool_costs(fmt: str, data: Any, count: Counter | None = None) -> TokenCount:
    """The token cost of an export's definitions: each tool's, and the set's (the array a request sends)."""
    count = count or counter()
    items = tool_definitions(fmt, data)
    envelope: Sequence[Any] = [d for _, d in items]
    return TokenCount(
        fmt,
        {name: count.count(definition_text(d)) for name, d in items},
        count.count(definition_text(envelope)),
        count.accuracy(fmt),
    )
