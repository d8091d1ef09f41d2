"""The course notebooks' figures: box-and-arrow diagrams and loss curves, drawn as SVG.

Layer 5, beside `didax.course` (it uses NumPy only). One helper for every notebook, instead of
one pasted into each. A figure is a card with its own light background, so that it reads the
same in JupyterLab's light and dark themes, on GitHub and in nbconvert: dark ink (text, lines,
arrowheads) on white paper and on light box tints, each pair at least 4.5:1 in contrast, and
curves at least 3:1 (tests/core/test_figures.py measures them). Its `text/html` is an `<img>`
holding the SVG as a data URI: JupyterLab's sanitizer, which runs on every output of a
notebook the reader has not run (a stored course notebook, a student copy), removes an inline
`<svg>` and keeps an image; an image cannot inherit the page's theme colours, hence the card.
`text/plain` is the figure's caption.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

import numpy as np

INK = "#1f2937"  # text, lines and arrowheads
PAPER = "#ffffff"  # the card
EDGE = "#d1d5db"  # the card's border
# a box's tint: light enough for INK on it
TONES = {"blue": "#dbeafe", "amber": "#fde68a", "green": "#d1fae5", "red": "#fee2e2"}
# a curve's colour: at least 3:1 on PAPER
CURVE_COLOURS = ("#2563eb", "#dc2626")
FONT = "font-family: sans-serif"


@dataclass(frozen=True)
class Figure:
    """An SVG figure: `_repr_html_` is the markup, `repr` the caption."""

    width: int
    height: int
    parts: tuple[str, ...]
    caption: str

    def svg(self) -> str:
        key = hashlib.sha1("".join(self.parts).encode()).hexdigest()[:8]
        head = (
            f'<defs><marker id="dx-head-{key}" markerWidth="8" markerHeight="8" refX="7" '
            f'refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="{INK}"/></marker></defs>'
        )
        body = "".join(self.parts).replace("url(#dx-head)", f"url(#dx-head-{key})")
        card = (
            f'<rect x="0.5" y="0.5" width="{self.width - 1}" height="{self.height - 1}" rx="8" '
            f'fill="{PAPER}" stroke="{EDGE}"/>'
        )
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
            f'height="{self.height}" role="img" aria-label="{escape(self.caption)}" '
            f'style="{FONT}"><title>{escape(self.caption)}</title>{head}{card}{body}</svg>'
        )

    def _repr_html_(self) -> str:
        data = base64.b64encode(self.svg().encode()).decode()
        return (
            f'<img src="data:image/svg+xml;base64,{data}" width="{self.width}" '
            f'height="{self.height}" alt="{escape(self.caption)}"/>'
        )

    def __repr__(self) -> str:
        return f"[figure: {self.caption}]"


def label(x: float, y: float, text: str, *, size: int = 13, anchor: str = "start") -> str:
    """Text at (x, y), in the page's text colour."""
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="{anchor}" '
        f'fill="{INK}">{escape(text)}</text>'
    )


def box(x: float, y: float, w: float, h: float, text: str, tone: str = "blue") -> str:
    """A rounded box tinted with `tone` (a key of TONES), its text centred."""
    if tone not in TONES:
        raise ValueError(f"box tone must be one of {', '.join(TONES)}; got {tone!r}")
    rect = (
        f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="6" fill="{TONES[tone]}" '
        f'stroke="{INK}" stroke-opacity="0.7"/>'
    )
    return rect + label(x + w / 2, y + h / 2 + 5, text, anchor="middle")


def arrow(x1: float, y1: float, x2: float, y2: float) -> str:
    """A line from (x1, y1) with an arrowhead at (x2, y2)."""
    return (
        f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{INK}" '
        'stroke-width="2" marker-end="url(#dx-head)"/>'
    )


def diagram(width: int, height: int, *parts: str, caption: str) -> Figure:
    """A figure of boxes, arrows and labels; `caption` is its text for screen readers and
    for `text/plain`."""
    return Figure(width, height, parts, caption)


def loss_curve(
    curves: Mapping[str, Sequence[float]], *, width: int = 520, height: int = 220
) -> Figure:
    """Loss curves on shared axes: steps along x, the loss on a log scale along y, with
    ticks, axis titles and a legend when there is more than one curve."""
    if not 0 < len(curves) <= len(CURVE_COLOURS):
        raise ValueError(f"loss_curve draws 1 to {len(CURVE_COLOURS)} curves; got {len(curves)}")
    left, right, top, bottom = 60, 20, 15, 45
    series = {name: np.log10(np.asarray(values, np.float64)) for name, values in curves.items()}
    finite = np.concatenate([v[np.isfinite(v)] for v in series.values()])
    lo, hi = np.floor(finite.min() * 2) / 2, np.ceil(finite.max() * 2) / 2  # half decades
    steps = max(len(v) for v in series.values()) - 1
    px = lambda i: left + i * (width - left - right) / steps
    py = lambda v: top + (hi - v) * (height - top - bottom) / (hi - lo)
    parts = [
        f'<path d="M{left},{top} V{height - bottom} H{width - right}" fill="none" stroke="{INK}"/>'
    ]
    for v in np.arange(lo, hi + 0.25, 0.5):
        parts.append(f'<path d="M{left - 4},{py(v):.1f} h4" stroke="{INK}"/>')
        parts.append(label(left - 7, py(v) + 4, f"{10**v:.3g}", size=11, anchor="end"))
    for i in np.unique(np.linspace(0, steps, 5).round().astype(int)):
        parts.append(f'<path d="M{px(i):.1f},{height - bottom} v4" stroke="{INK}"/>')
        parts.append(label(px(i), height - bottom + 17, str(i), size=11, anchor="middle"))
    parts.append(label((left + width - right) / 2, height - 6, "step", anchor="middle"))
    parts.append(
        f'<text transform="translate(14,{(top + height - bottom) / 2:.0f}) rotate(-90)" '
        f'font-size="13" text-anchor="middle" fill="{INK}">loss (log scale)</text>'
    )
    for (name, logs), tone in zip(series.items(), CURVE_COLOURS, strict=False):
        points = " ".join(
            f"{px(i):.1f},{py(min(max(v, lo), hi)):.1f}"
            for i, v in enumerate(logs)
            if np.isfinite(v)
        )
        parts.append(f'<polyline points="{points}" fill="none" stroke="{tone}" stroke-width="2"/>')
        if len(series) > 1:
            y = top + 14 * (1 + list(series).index(name))
            parts.append(f'<path d="M{width - 150},{y - 4} h18" stroke="{tone}" stroke-width="3"/>')
            parts.append(label(width - 126, y, name, size=12))
    caption = "loss curve" + ("s: " + ", ".join(curves) if len(curves) > 1 else "")
    return Figure(width, height, tuple(parts), caption)
