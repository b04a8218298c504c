"""Line windows on a 10 MiB file of source-like lines, next to `cat` and `wc -l` in the same run.

Run with ``make bench``. Cases: a 2000-line window at the start, middle and end
through the gateway read_file, and from the middle through AIntern file-read
(end to end: dispatch, scan, decode, number; both tools report the total line
count, as their documents require), first with a cold line index and then
repeated (index cached; also in a 1 MiB file, to show the cost is flat in the
file's size), the same window from the scanner alone with and without numpy,
numbering 2000 lines one at a time and in one format, and the first window of a
file that is one 10 MiB line. Targets: a first window at any position within
1.3x `cat`, a repeated one within 0.5x.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _harness import Case, print_table, run
from _results import Row, record

from toolproof.builtin.files import ends as ends_module
from toolproof.builtin.files.audit import AuditRecord
from toolproof.builtin.files.lines import clear_index_cache, read_window
from toolproof.builtin.files.numbering import numbered
from toolproof.builtin.skills.resources import skill_gate
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
        (ws / "cold_10m.txt").write_bytes((ws / "src_10m.txt").read_bytes())  # first reads, made cold each time
        (ws / "src_1m.txt").write_bytes((ws / "src_10m.txt").read_bytes()[: 1024 * 1024])
        (ws / "oneline_10m.txt").write_bytes(b"x" * SIZE)
        middle = total // 2
        runtime = builtin_runtime(workspace=[ws], audit=_quiet, gate_secret=b"bench", validate_output=False)
        gate = skill_gate(runtime, "read_file")
        assert gate is not None
        token = gate.token("bench")

        def gateway(name: str, offset: int) -> str:
            return json.dumps({"path": name, "offset": offset, "limit": WINDOW, "skillToken": token})

        aintern = json.dumps({"path": "src_10m.txt", "start_line": middle, "max_lines": WINDOW})
        positions = {"start": 1, "middle": middle, "end": total - WINDOW + 1}
        windows = {where: gateway("src_10m.txt", at) for where, at in positions.items()}
        cold = {where: gateway("cold_10m.txt", at) for where, at in positions.items()}
        cold_aintern = json.dumps({"path": "cold_10m.txt", "start_line": middle, "max_lines": WINDOW})
        small = gateway("src_1m.txt", 9000)
        one_line = json.dumps({"path": "oneline_10m.txt", "limit": WINDOW, "skillToken": token})
        checks = [runtime.call("read_file", w, session="bench") for w in [*windows.values(), small]]
        checks.append(runtime.call("file-read", aintern))
        assert all(r.ok for r in checks), [r.error for r in checks]
        fd = os.open(ws / "src_10m.txt", os.O_RDONLY)
        one_fd = os.open(ws / "oneline_10m.txt", os.O_RDONLY)
        st = os.fstat(fd)
        identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        vector_chunk = ends_module.VECTOR_CHUNK
        read_window(fd, size=SIZE, start=1, limit=1, max_line_bytes=8000, count_total=True)  # import numpy now
        sample = read_window(fd, size=SIZE, start=middle, limit=WINDOW, max_line_bytes=8000, count_total=False)

        stamp = [st.st_mtime_ns]

        def first(tool: str, args: str) -> Callable[[], object]:
            """The call on a file whose mtime just moved: a cold line index, while the others stay cached."""
            path = ws / json.loads(args)["path"]

            def call() -> object:
                stamp[0] += 1_000_000
                os.utime(path, ns=(stamp[0], stamp[0]))
                return runtime.call(tool, args, session="bench")

            return call

        def again(tool: str, args: str) -> Callable[[], object]:
            return lambda: runtime.call(tool, args, session="bench")

        def scan(count_total: bool) -> object:
            window = read_window(
                fd, size=SIZE, start=middle, limit=WINDOW, max_line_bytes=8000, count_total=count_total
            )
            window.data.decode("utf-8")  # what read_lines checks
            return numbered(window.data, window.count, middle, "\t")

        def scan_at(first: int, vectorised: bool) -> object:
            clear_index_cache()
            if not vectorised:
                ends_module.VECTOR_CHUNK = SIZE * 2  # type: ignore[misc]  # what numpy buys: the same pass without it
            try:
                return read_window(
                    fd, size=SIZE, start=first, limit=WINDOW, max_line_bytes=8000, count_total=True, identity=identity
                )
            finally:
                ends_module.VECTOR_CHUNK = vector_chunk  # type: ignore[misc]

        def per_line() -> object:
            lines = sample.data.decode("utf-8").split("\n")
            return "\n".join(map("{}\t{}".format, range(middle, middle + len(lines)), lines))

        def one_line_scan() -> object:
            window = read_window(one_fd, size=SIZE, start=1, limit=WINDOW, max_line_bytes=8000, count_total=False)
            return [line.decode("utf-8", "replace") for line in window.lines]

        target = str(ws / "src_10m.txt")
        rows = run(
            [
                Case("cat FILE > /dev/null", lambda: _spawn("cat", target)),
                Case("wc -l FILE", lambda: _spawn("wc", "-l", target)),
                *(Case(f"read_file first window at {w}, end to end", first("read_file", a)) for w, a in cold.items()),
                Case("file-read first window in middle, end to end", first("file-read", cold_aintern)),
                *(
                    Case(f"read_file window at {w}, repeated (index cached)", again("read_file", a))
                    for w, a in windows.items()
                ),
                Case("file-read window in middle, repeated", again("file-read", aintern)),
                Case("read_file window in a 1 MiB file, repeated", again("read_file", small)),
                Case("scanner, window + total at start, numpy count", lambda: scan_at(1, True)),
                Case("scanner, window + total at start, bytes.count", lambda: scan_at(1, False)),
                Case("scanner, window + total in middle, numpy count", lambda: scan_at(middle, True)),
                Case("scanner, window + total at end, numpy count", lambda: scan_at(total - WINDOW, True)),
                Case("scanner + decode + number, no total", lambda: scan(False)),
                Case("scanner + decode + number, with total", lambda: scan(True)),
                Case("numbering 2000 lines, a line at a time", per_line),
                Case("numbering 2000 lines, one format", lambda: numbered(sample.data, WINDOW, middle, "\t")),
                Case("one 10 MiB line: scanner, first window", one_line_scan),
                Case("one 10 MiB line: read_file end to end (with total)", first("read_file", one_line)),
            ],
            rounds=11,
        )
        os.close(fd)
        os.close(one_fd)
    print(f"\n10 MiB file, {total} lines; middle window = lines {middle}..{middle + WINDOW - 1}")
    print_table("Line windows (median per call; ratios to `cat` of the same file)", rows, "cat FILE > /dev/null")
    us = {row.name: row.median_us for row in rows}
    floors = {"floor": us["cat FILE > /dev/null"], "floor: wc -l": us["wc -l FILE"]}
    table: list[Row] = []
    for where in positions:
        first_ms = us[f"read_file first window at {where}, end to end"] / 1e3
        scans = {name: value / 1e3 for name, value in floors.items()}
        table.append((f"first 2000-line window + total at {where}, 10 MiB, in process", "ms",
                      {"toolproof": first_ms, **scans}))  # fmt: skip
    for where in positions:
        again_ms = us[f"read_file window at {where}, repeated (index cached)"] / 1e3
        table.append((f"repeated 2000-line window at {where}, 10 MiB, in process", "ms",
                      {"toolproof": again_ms, "floor": floors["floor"] / 1e3}))  # fmt: skip
    systems = {
        "toolproof": "Runtime.call of read_file (gateway), in process",
        "floor": "cat FILE > /dev/null (spawned)",
        "floor: wc -l": "wc -l FILE (spawned)",
    }
    quick = "--quick" in sys.argv[1:]
    record("files", "Line windows in process (targets: first <= 1.3x cat, repeated <= 0.5x cat)", table, systems,
           quick=quick)  # fmt: skip


if __name__ == "__main__":
    main()
