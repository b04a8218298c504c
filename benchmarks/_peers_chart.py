"""A hand-written SVG of the peer figures: one row per workload, one bar per system, as a ratio to the fastest."""

from __future__ import annotations

import math
from html import escape

__all__ = ["svg"]

_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#7f7f7f", "#9467bd", "#8c564b"]
_LABEL_W, _BAR_W, _BAR_H, _GAP = 330, 520, 11, 10


def svg(rows: list[tuple[str, dict[str, float]]], systems: list[str], title: str) -> str:
    """Return an SVG drawing of ``rows`` (workload, {system: value, lower is better}).

    Bar length is log2 of the ratio to the fastest system of the row, so 1x is a stub and each
    gridline doubles; the ratio is written at the bar's end. A system with no figure gets no bar.
    """
    top = max((max(v.values()) / min(v.values()) for _, v in rows if v), default=2.0)
    span = max(1.0, math.log2(top))
    per_row = len(systems) * _BAR_H + _GAP
    legend_h = 22
    height = 40 + legend_h + len(rows) * per_row + 20
    width = _LABEL_W + _BAR_W + 90
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        'font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="8" y="18" font-size="14" font-weight="bold">{escape(title)}</text>',
    ]
    for i, name in enumerate(systems):
        left = 8 + i * 175
        out.append(f'<rect x="{left}" y="28" width="10" height="10" fill="{_COLOURS[i % len(_COLOURS)]}"/>')
        out.append(f'<text x="{left + 14}" y="37">{escape(name)}</text>')
    y0 = 40 + legend_h
    for k in range(int(span) + 1):
        x = _LABEL_W + _BAR_W * k / span
        out.append(f'<line x1="{x:.1f}" y1="{y0 - 4}" x2="{x:.1f}" y2="{height - 16}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{height - 4}" text-anchor="middle" fill="#666">{2**k}x</text>')
    for r, (workload, values) in enumerate(rows):
        y = y0 + r * per_row
        out.append(f'<text x="{_LABEL_W - 6}" y="{y + per_row / 2}" text-anchor="end">{escape(workload)}</text>')
        fastest = min(values.values()) if values else 1.0
        for i, name in enumerate(systems):
            if name not in values:
                continue
            ratio = values[name] / fastest
            length = max(2.0, _BAR_W * math.log2(ratio) / span)
            by = y + i * _BAR_H
            colour = _COLOURS[i % len(_COLOURS)]
            out.append(f'<rect x="{_LABEL_W}" y="{by}" width="{length:.1f}" height="{_BAR_H - 2}" fill="{colour}"/>')
            out.append(f'<text x="{_LABEL_W + length + 4:.1f}" y="{by + _BAR_H - 3}">{ratio:.2f}x</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
