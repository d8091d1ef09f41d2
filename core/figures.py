"""The course notebooks' figures: box-and-arrow diagrams and loss curves, as inline SVG.

Layer 5, beside `didax.course` (it uses NumPy only). One helper for every notebook, instead of
one pasted into each. The figures are drawn in the theme's own colours, so that they read in
JupyterLab's light and dark themes and on GitHub: text, lines and arrowheads are
`currentColor` (the output area's text colour), and a box is filled with its tone at
`TONE_OPACITY` over the page, a light tint on a light page and a dark one on a dark page, so
that text on it keeps its contrast (tests/core/test_figures.py measures it against both
themes' colours). A figure is shown as `text/html` (an inline `<svg>`, which inherits the
page's colour; an `image/svg+xml` output is drawn as an `<img>`, which does not) and as
`text/plain` (its caption).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

import numpy as np

# a box's tone: a mid colour that, as a tint at TONE_OPACITY, is light on white and dark on
# JupyterLab's dark background
TONES = {"blue": "#3b82f6", "amber": "#f59e0b", "green": "#10b981", "red": "#ef4444"}
TONE_OPACITY = 0.25
# a curve's colour: a line with at least 3:1 contrast on both themes' backgrounds
CURVE_COLOURS = ("#3b82f6", "#ef4444")
FONT = "font-family: var(--jp-content-font-family, sans-serif)"


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
            'refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="currentColor"/></marker>'
            "</defs>"
        )
        body = "".join(self.parts).replace("url(#dx-head)", f"url(#dx-head-{key})")
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
            f'height="{self.height}" role="img" aria-label="{escape(self.caption)}" '
            f'style="color: var(--jp-content-font-color1, currentColor); {FONT}">'
            f"<title>{escape(self.caption)}</title>{head}{body}</svg>"
        )

    def _repr_html_(self) -> str:
        return self.svg()

    def __repr__(self) -> str:
        return f"[figure: {self.caption}]"


def label(x: float, y: float, text: str, *, size: int = 13, anchor: str = "start") -> str:
    """Text at (x, y), in the page's text colour."""
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="{anchor}" '
        f'fill="currentColor">{escape(text)}</text>'
    )


def box(x: float, y: float, w: float, h: float, text: str, tone: str = "blue") -> str:
    """A rounded box tinted with `tone` (a key of TONES), its text centred."""
    if tone not in TONES:
        raise ValueError(f"box tone must be one of {', '.join(TONES)}; got {tone!r}")
    rect = (
        f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="6" fill="{TONES[tone]}" '
        f'fill-opacity="{TONE_OPACITY}" stroke="currentColor" stroke-opacity="0.7"/>'
    )
    return rect + label(x + w / 2, y + h / 2 + 5, text, anchor="middle")


def arrow(x1: float, y1: float, x2: float, y2: float) -> str:
    """A line from (x1, y1) with an arrowhead at (x2, y2)."""
    return (
        f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="currentColor" '
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
        f'<path d="M{left},{top} V{height - bottom} H{width - right}" fill="none" '
        'stroke="currentColor"/>'
    ]
    for v in np.arange(lo, hi + 0.25, 0.5):
        parts.append(f'<path d="M{left - 4},{py(v):.1f} h4" stroke="currentColor"/>')
        parts.append(label(left - 7, py(v) + 4, f"{10**v:.3g}", size=11, anchor="end"))
    for i in np.unique(np.linspace(0, steps, 5).round().astype(int)):
        parts.append(f'<path d="M{px(i):.1f},{height - bottom} v4" stroke="currentColor"/>')
        parts.append(label(px(i), height - bottom + 17, str(i), size=11, anchor="middle"))
    parts.append(label((left + width - right) / 2, height - 6, "step", anchor="middle"))
    parts.append(
        f'<text transform="translate(14,{(top + height - bottom) / 2:.0f}) rotate(-90)" '
        'font-size="13" text-anchor="middle" fill="currentColor">loss (log scale)</text>'
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
