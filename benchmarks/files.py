"""Line windows on a 10 MiB file of source-like lines, next to `cat` and `wc -l` in the same run.

Run with ``make bench``. Cases: a 2000-line window from the middle through the
gateway read_file and AIntern file-read (end to end: dispatch, scan, decode,
format; both tools report the total line count, as their documents require),
the same window from the scanner alone with and without the total, a repeated
window (line index cached), and the first window of a file that is one 10 MiB line.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _harness import Case, print_table, run

from toolproof.runtime.files import lines as lines_module
from toolproof.runtime.files.audit import AuditRecord
from toolproof.runtime.files.lines import clear_index_cache, read_window
from toolproof.runtime.skills.resources import skill_gate
from toolproof.runtime.toolbox import builtin_runtime

SIZE = 10 * 1024 * 1024
WINDOW = 2000


def _quiet(record: AuditRecord) -> None:
    """Keep no audit records, so logging does not blur the figures."""


def _source_like(path: Path) -> int:
    """About 59-byte lines of code, one in 300 with a non-ASCII comment; returns the line count."""
    rng = random.Random(7)
    words = ["self", "value", "result", "items", "config", "index", "return", "async", "await", "data"]
    extras = ["# café", "# — note", "# über", "# → next", "# straße"]
    out, size, count = [], 0, 0
    while size < SIZE - 200:
        line = "    " * rng.randint(0, 3) + " ".join(rng.choice(words) for _ in range(rng.randint(3, 8)))
        if count % 300 == 0:
            line += "  " + rng.choice(extras)
        encoded = (line + "\n").encode("utf-8")
        out.append(encoded)
        size += len(encoded)
        count += 1
    path.write_bytes(b"".join(out))
    return count


def _spawn(*argv: str) -> None:
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)


def main() -> None:
    """Lay down the files, time each case, print the table with ratios to `cat`."""
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        total = _source_like(ws / "src_10m.txt")
        (ws / "oneline_10m.txt").write_bytes(b"x" * SIZE)
        middle = total // 2
        runtime = builtin_runtime(workspace=[ws], audit=_quiet, gate_secret=b"bench", validate_output=False)
        gate = skill_gate(runtime, "read_file")
        assert gate is not None
        token = gate.token("bench")
        gateway = json.dumps({"path": "src_10m.txt", "offset": middle, "limit": WINDOW, "skillToken": token})
        aintern = json.dumps({"path": "src_10m.txt", "start_line": middle, "max_lines": WINDOW})
        one_line = json.dumps({"path": "oneline_10m.txt", "limit": WINDOW, "skillToken": token})
        checks = [runtime.call("read_file", gateway, session="bench"), runtime.call("file-read", aintern)]
        assert all(r.ok for r in checks), [r.error for r in checks]
        fd = os.open(ws / "src_10m.txt", os.O_RDONLY)
        one_fd = os.open(ws / "oneline_10m.txt", os.O_RDONLY)
        st = os.fstat(fd)
        identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        vector_chunk = lines_module.VECTOR_CHUNK
        read_window(fd, size=SIZE, start=1, limit=1, max_line_bytes=8000, count_total=True)  # import numpy now

        def gateway_cold() -> object:
            clear_index_cache()
            return runtime.call("read_file", gateway, session="bench")

        def aintern_cold() -> object:
            clear_index_cache()
            return runtime.call("file-read", aintern)

        def scan(count_total: bool) -> object:
            window = read_window(
                fd, size=SIZE, start=middle, limit=WINDOW, max_line_bytes=8000, count_total=count_total
            )
            lines = [line.decode("utf-8") for line in window.lines]
            return "\n".join(f"{n}\t{line}" for n, line in enumerate(lines, middle))

        def scan_at(first: int, vectorised: bool) -> object:
            clear_index_cache()
            if not vectorised:
                lines_module.VECTOR_CHUNK = SIZE * 2  # type: ignore[misc]  # what numpy buys: the same pass without it
            try:
                return read_window(
                    fd, size=SIZE, start=first, limit=WINDOW, max_line_bytes=8000, count_total=True, identity=identity
                )
            finally:
                lines_module.VECTOR_CHUNK = vector_chunk  # type: ignore[misc]

        def one_line_scan() -> object:
            window = read_window(one_fd, size=SIZE, start=1, limit=WINDOW, max_line_bytes=8000, count_total=False)
            return [line.decode("utf-8", "replace") for line in window.lines]

        def one_line_gateway() -> object:
            clear_index_cache()
            return runtime.call("read_file", one_line, session="bench")

        target = str(ws / "src_10m.txt")
        rows = run(
            [
                Case("cat FILE > /dev/null", lambda: _spawn("cat", target)),
                Case("wc -l FILE", lambda: _spawn("wc", "-l", target)),
                Case("read_file window, end to end (with total)", gateway_cold),
                Case("file-read window, end to end (with total)", aintern_cold),
                Case("scanner, window + total at start, numpy count", lambda: scan_at(1, True)),
                Case("scanner, window + total at start, bytes.count", lambda: scan_at(1, False)),
                Case("scanner, window + total in middle, numpy count", lambda: scan_at(middle, True)),
                Case("scanner, window + total in middle, bytes.count", lambda: scan_at(middle, False)),
                Case("scanner, window + total at end, numpy count", lambda: scan_at(total - WINDOW, True)),
                Case("scanner, window + total at end, bytes.count", lambda: scan_at(total - WINDOW, False)),
                Case("scanner + format, no total", lambda: scan(False)),
                Case("scanner + format, with total", lambda: scan(True)),
                Case(
                    "read_file window, repeated (index cached)",
                    lambda: runtime.call("read_file", gateway, session="bench"),
                ),
                Case("file-read window, repeated (index cached)", lambda: runtime.call("file-read", aintern)),
                Case("one 10 MiB line: scanner, first window", one_line_scan),
                Case("one 10 MiB line: read_file end to end (with total)", one_line_gateway),
            ],
            rounds=11,
        )
        os.close(fd)
        os.close(one_fd)
    print(f"\n10 MiB file, {total} lines; window = lines {middle}..{middle + WINDOW - 1}")
    print_table("Line windows (median per call; ratios to `cat` of the same file)", rows, "cat FILE > /dev/null")


if __name__ == "__main__":
    main()
