"""A read within the tools' limits costs the host a small multiple of the file, never hundreds of MB.

file-read (seed 003) takes any ``max_lines``: numbered, the ten million empty
lines of a 10 MiB file come to over 100 MB, which no result may carry. The
handler sees that from the window's size before numbering it and refuses with
``response_too_large``, saying how many lines fit. A legacy-encoded file is
decoded whole, and its window is cut from the text without listing every line.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import pytest

from tests.builtin.handlers.host import Host, error_of, open_host
from tests.builtin.trees import lay_hostile as _lay_out
from toolproof.runtime.dispatch import MAX_RESULT_BYTES, Runtime
from toolproof.runtime.registry import bind
from toolproof.runtime.result import ToolResult
from toolproof.runtime.spec import load_specs
from toolproof.runtime.toolbox import builtin_runtime

TEN_MIB = 10 * 1024 * 1024
MIB = 1 << 20


@pytest.fixture
def host(tmp_path: Path) -> Host:
    return open_host(tmp_path)


def _peak(call: Callable[[], ToolResult]) -> tuple[ToolResult, int]:
    """The result of ``call`` and the most memory Python held for it at once, in bytes."""
    tracemalloc.start()
    try:
        result = call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


def _read(host: Host, args: dict[str, Any]) -> Callable[[], ToolResult]:
    return lambda: host.call("file-read", args)


def test_millions_of_numbered_lines_are_refused_as_too_large_before_they_are_built(host: Host, tmp_path: Path) -> None:
    (tmp_path / "blank.txt").write_bytes(b"\n" * TEN_MIB)

    result, peak = _peak(_read(host, {"path": "blank.txt", "max_lines": 100_000_000}))

    content = TEN_MIB * (8 + len(" | ") + 1) - 1  # each line: its 8-digit number, the separator, an LF but the last
    least = 2 * content + TEN_MIB - 1  # in the text, and in the output's JSON with each LF escaped in two bytes
    assert error_of(result) == (
        "response_too_large",
        f"The result is too large to return: about {least} bytes; the limit is {MAX_RESULT_BYTES}.",
    )
    assert result.error is not None
    fit = TEN_MIB * MAX_RESULT_BYTES // least * 9 // 10
    assert result.error.hint == (
        f"Ask for fewer lines: about {fit} of the {TEN_MIB} lines asked for fit in one call. "
        "Set max_lines (or end_line) to at most that, then read on with start_line."
    )
    assert peak < 64 * MIB, f"the call held {peak // MIB} MiB at once"  # was ~700 MiB


def test_as_many_lines_as_the_hint_says_fit_are_returned(host: Host, tmp_path: Path) -> None:
    (tmp_path / "blank.txt").write_bytes(b"\n" * TEN_MIB)
    refused = host.call("file-read", {"path": "blank.txt", "max_lines": 100_000_000})
    assert refused.error is not None and refused.error.hint is not None
    fit = int(refused.error.hint.split("about ")[1].split(" ")[0])

    result = host.call("file-read", {"path": "blank.txt", "max_lines": fit})

    assert result.ok, result.text[:200]
    assert result.output["lines_returned"] == fit
    assert result.output["content"].endswith(f"\n{fit} | ")


def test_a_whole_file_of_short_lines_that_fits_is_numbered_within_a_few_times_its_text(
    host: Host, tmp_path: Path
) -> None:
    (tmp_path / "short.txt").write_bytes(b"x\n" * 2_500_000)

    result, peak = _peak(_read(host, {"path": "short.txt", "max_lines": 100_000_000}))

    assert result.ok, result.text[:200]
    content = result.output["content"]
    assert len(content) == 2_500_000 * len("2500000 | x\n") - 1
    assert content.startswith("      1 | x\n      2 | x\n")
    assert content.endswith("\n2500000 | x")
    assert peak < 4 * len(content), f"the call held {peak // MIB} MiB at once for {len(content) // MIB} MiB"


def test_a_window_of_a_large_legacy_file_costs_no_list_of_all_its_lines(host: Host, tmp_path: Path) -> None:
    (tmp_path / "legacy.txt").write_bytes(b"caf\xe9\n" + b"ab\n" * (TEN_MIB // 3 - 2))

    result, peak = _peak(_read(host, {"path": "legacy.txt", "start_line": 2_000_000, "max_lines": 2}))

    assert result.ok, result.text[:200]
    assert result.output["encoding"] == "windows-1252"
    assert result.output["content"] == "2000000 | ab\n2000001 | ab"
    assert result.output["total_lines"] == TEN_MIB // 3 - 1
    assert peak < 80 * MIB, f"the call held {peak // MIB} MiB at once"  # was ~320 MiB


def test_lines_without_numbers_are_not_refused_by_the_numbered_budget(host: Host, tmp_path: Path) -> None:
    (tmp_path / "blank.txt").write_bytes(b"\n" * TEN_MIB)

    result = host.call("file-read", {"path": "blank.txt", "max_lines": 100_000_000, "include_line_numbers": False})

    assert result.ok, result.text[:200]
    assert result.output["lines_returned"] == TEN_MIB


SECRET: Final = "hostile-calls-secret-of-32-bytes"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile").resolve()
    _lay_out(folder)
    return folder


@pytest.fixture(scope="module")
def runtime(base: Path) -> Runtime:
    return builtin_runtime(workspace=[base / "ws"], skills=[base / "skills"], gate_secret=SECRET.encode())


def test_a_result_over_the_hosts_cap_is_response_too_large(runtime: Runtime) -> None:
    tools = bind(load_specs(modules=("read_file",)), check_extra=False)
    small = Runtime(tools, resources=runtime.resources, max_result_bytes=10_000)
    token = small.call("read_file", {"path": "builtin://read_file/SKILL.md"}).output["skillToken"]

    result = small.call("read_file", {"path": "lines.txt", "skillToken": token})

    assert result.error is not None and result.error.code == "response_too_large"
    assert result.error.hint == "Ask for less: a smaller range or limit, or a narrower request."
    assert small.call("read_file", {"path": "lines.txt", "skillToken": token, "limit": 100}).ok
