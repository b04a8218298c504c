"""One results file and one chart for every ``make bench`` script.

Each script records its section (``record``): its rows replace that section's
previous rows in ``benchmarks/results.json``, and ``benchmarks/results.svg`` is
redrawn from every section, so one ``make bench`` leaves every figure in both.
A row is a workload and one figure per system, lower is better; ratios are to
the fastest system of the row, which was measured in the same run. Each section
also records the machine's load (the 1, 5 and 15 minute load averages when the
script started and when it recorded, and the CPU count): on a shared machine a
figure means little without it.
"""

from __future__ import annotations

import json
import math
import os
import time
from html import escape
from pathlib import Path

__all__ = ["CHART", "RESULTS", "Row", "machine_load", "record", "svg"]

HERE = Path(__file__).parent
RESULTS = HERE / "results.json"
CHART = HERE / "results.svg"
ORDER = ("peers", "startup", "http", "files", "dispatch", "gen")
"""The chart's order of sections; any other section follows them."""

Row = tuple[str, str, dict[str, float]]
"""A workload, its unit, and one figure per system (lower is better)."""

_LOAD_AT_START = os.getloadavg()
"""The load averages when the benchmark script started (it imports this module first)."""

_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#7f7f7f", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf"]
_LABEL_W, _BAR_W, _BAR_H, _GAP, _HEADING = 400, 480, 11, 8, 24
_PER_LEGEND_LINE = 4


def record(section: str, title: str, rows: list[Row], systems: dict[str, str], *, quick: bool) -> None:
    """Replace ``section`` in results.json with ``rows`` and redraw results.svg from every section.

    Args:
        section: the script's name (``ORDER`` places it in the chart).
        title: what the section measures, as its heading.
        rows: the workloads, each with one figure per system.
        systems: each system's name and what it runs.
        quick: whether the figures come from a ``--quick`` run.
    """
    if not rows:
        raise ValueError(f"section {section!r} has no rows")
    document = _load()
    document["sections"][section] = {
        "title": title,
        "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "quick": quick,
        "machine": machine_load(),
        "systems": systems,
        "rows": [
            {"workload": w, "unit": u, "values": v, "ratio_to_fastest": {s: x / min(v.values()) for s, x in v.items()}}
            for w, u, v in rows
        ],
    }
    RESULTS.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    CHART.write_text(svg(_sections(document)), encoding="utf-8")
    print(f"recorded '{section}' in benchmarks/{RESULTS.name} and redrew benchmarks/{CHART.name}")


def machine_load() -> dict[str, object]:
    """The CPU count and the load averages (1, 5, 15 minutes) at the script's start and now."""
    return {"cpus": os.cpu_count(), "load_at_start": list(_LOAD_AT_START), "load_at_end": list(os.getloadavg())}


def _load() -> dict[str, dict[str, dict[str, object]]]:
    """results.json as it stands; a file from before sections (or none, or unreadable) starts afresh."""
    try:
        document = json.loads(RESULTS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"sections": {}}
    if not isinstance(document, dict) or not isinstance(document.get("sections"), dict):
        return {"sections": {}}
    return document


def _sections(document: dict[str, dict[str, dict[str, object]]]) -> list[tuple[str, list[Row]]]:
    named = document["sections"]
    ordered = [name for name in ORDER if name in named] + sorted(set(named) - set(ORDER))
    out: list[tuple[str, list[Row]]] = []
    for name in ordered:
        section = named[name]
        quick = " (quick)" if section.get("quick") else ""
        rows = section["rows"]
        assert isinstance(rows, list)
        heading = f"{section['title']}{quick}, {section['measured']}"
        out.append((heading, [(r["workload"], r["unit"], r["values"]) for r in rows]))
    return out


def svg(sections: list[tuple[str, list[Row]]]) -> str:
    """Draw ``sections`` (heading, rows): one group of bars a workload, one bar a system, as a ratio to the fastest.

    Bar length is log2 of the ratio, so 1x is a stub and each gridline doubles; the ratio is
    written at the bar's end. A system with no figure in a row gets no bar; colours follow the
    system's name across sections.
    """
    systems: list[str] = []
    for _, rows in sections:
        for _, _, values in rows:
            systems += [name for name in values if name not in systems]
    colour = {name: _COLOURS[i % len(_COLOURS)] for i, name in enumerate(systems)}
    ratios = [max(v.values()) / min(v.values()) for _, rows in sections for _, _, v in rows if v]
    span = max(1.0, math.log2(max(ratios, default=2.0)))
    legend_lines = -(-len(systems) // _PER_LEGEND_LINE)
    y = 30 + 16 * legend_lines + 10
    body: list[str] = []
    for heading, rows in sections:
        body.append(f'<text x="8" y="{y + 16}" font-size="12" font-weight="bold">{escape(heading)}</text>')
        y += _HEADING
        for workload, unit, values in rows:
            fastest = min(values.values())
            height = len(values) * _BAR_H + _GAP
            body.append(f'<text x="{_LABEL_W - 6}" y="{y + height / 2:.1f}" text-anchor="end">'
                        f"{escape(f'{workload} ({unit})')}</text>")  # fmt: skip
            for i, (name, value) in enumerate(values.items()):
                ratio = value / fastest
                length = max(2.0, _BAR_W * math.log2(ratio) / span)
                by = y + i * _BAR_H
                tip = escape(f"{name}: {value:.4g} {unit}")
                body.append(f'<rect x="{_LABEL_W}" y="{by}" width="{length:.1f}" height="{_BAR_H - 2}" '
                            f'fill="{colour[name]}"><title>{tip}</title></rect>')  # fmt: skip
                body.append(f'<text x="{_LABEL_W + length + 4:.1f}" y="{by + _BAR_H - 3}">{ratio:.2f}x</text>')
            y += height
    height = y + 24
    width = _LABEL_W + _BAR_W + 70
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        'font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        '<text x="8" y="18" font-size="14" font-weight="bold">toolproof make bench: each system as a ratio to the '
        "fastest of its row (lower is better)</text>",
    ]
    for i, name in enumerate(systems):
        left, top = 8 + (i % _PER_LEGEND_LINE) * 220, 28 + 16 * (i // _PER_LEGEND_LINE)
        out.append(f'<rect x="{left}" y="{top}" width="10" height="10" fill="{colour[name]}"/>')
        out.append(f'<text x="{left + 14}" y="{top + 9}">{escape(name)}</text>')
    for k in range(int(span) + 1):
        x = _LABEL_W + _BAR_W * k / span
        out.append(f'<line x1="{x:.1f}" y1="{30 + 16 * legend_lines}" x2="{x:.1f}" y2="{height - 16}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{height - 4}" text-anchor="middle" fill="#666">{2**k}x</text>')
    out += body
    out.append("</svg>")
    return "\n".join(out) + "\n"
