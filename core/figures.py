"""The course notebooks' figures: box-and-arrow diagrams and loss curves.

Layer 6, beside the views (it draws through didax.display.markup, the one writer of markup,
and uses NumPy). One helper for every notebook, instead of one pasted into each. A figure
is drawn as the views are: an inline SVG whose colours are JupyterLab's theme variables with
theme.py's palette (text and lines in the text colour, boxes in a light or a dark tint, curves
in palette colours, each readable on Light's and on Dark's background; tests/core/
test_figures.py measures them), and a copy as an `<img>` (the light palette, or the dark one
where the page is dark) that shows only where JupyterLab's sanitizer removed the SVG (a
notebook the reader has not run).
`text/plain` is the figure's caption.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from didax.display import markup
from didax.display.theme import CURVE_KINDS, TINTS


@dataclass(frozen=True)
class Figure:
    """A figure: `_repr_html_` is the markup, `repr` the caption."""

    width: int
    height: int
    parts: tuple[str, ...]
    caption: str

    def _repr_html_(self) -> str:
        return markup.figure_html(self.width, self.height, self.parts, self.caption)

    def __repr__(self) -> str:
        return f"[figure: {self.caption}]"


def label(x: float, y: float, text: str, *, size: int = 13, anchor: str = "start") -> str:
    """Text at (x, y), in the theme's text colour."""
    return markup.figure_text(x, y, text, size=size, anchor=anchor)


def box(x: float, y: float, w: float, h: float, text: str, tone: str = "blue") -> str:
    """A rounded box tinted with `tone` (a key of theme.TINTS), its text centred."""
    if tone not in TINTS:
        raise ValueError(f"box tone must be one of {', '.join(TINTS)}; got {tone!r}")
    return markup.figure_box(x, y, w, h, text, tone)


def arrow(x1: float, y1: float, x2: float, y2: float) -> str:
    """A line from (x1, y1) with an arrowhead at (x2, y2)."""
    return markup.figure_arrow(x1, y1, x2, y2)


def diagram(width: int, height: int, *parts: str, caption: str) -> Figure:
    """A figure of boxes, arrows and labels; `caption` is its text for screen readers and
    for `text/plain`."""
    return Figure(width, height, parts, caption)


def loss_curve(
    curves: Mapping[str, Sequence[float]], *, width: int = 520, height: int = 220
) -> Figure:
    """Loss curves on shared axes: steps along x, the loss on a log scale along y, with
    ticks, axis titles and a legend when there is more than one curve."""
    if not 0 < len(curves) <= len(CURVE_KINDS):
        raise ValueError(f"loss_curve draws 1 to {len(CURVE_KINDS)} curves; got {len(curves)}")
    left, right, top, bottom = 60, 20, 15, 45
    series = {name: np.log10(np.asarray(values, np.float64)) for name, values in curves.items()}
    finite = np.concatenate([v[np.isfinite(v)] for v in series.values()])
    lo, hi = np.floor(finite.min() * 2) / 2, np.ceil(finite.max() * 2) / 2  # half decades
    steps = max(len(v) for v in series.values()) - 1
    px = lambda i: left + i * (width - left - right) / steps
    py = lambda v: top + (hi - v) * (height - top - bottom) / (hi - lo)
    parts = [markup.figure_path(f"M{left},{top} V{height - bottom} H{width - right}")]
    for v in np.arange(lo, hi + 0.25, 0.5):
        parts.append(markup.figure_path(f"M{left - 4},{py(v):.1f} h4"))
        parts.append(label(left - 7, py(v) + 4, f"{10**v:.3g}", size=11, anchor="end"))
    for i in np.unique(np.linspace(0, steps, 5).round().astype(int)):
        parts.append(markup.figure_path(f"M{px(i):.1f},{height - bottom} v4"))
        parts.append(label(px(i), height - bottom + 17, str(i), size=11, anchor="middle"))
    parts.append(label((left + width - right) / 2, height - 6, "step", anchor="middle"))
    middle = (top + height - bottom) / 2
    parts.append(markup.figure_text(14, middle, "loss (log scale)", anchor="middle", rotate=True))
    for k, (name, logs) in enumerate(series.items()):
        points = [
            f"{px(i):.1f},{py(min(max(v, lo), hi)):.1f}"
            for i, v in enumerate(logs)
            if np.isfinite(v)
        ]
        parts.append(markup.figure_path("M" + " L".join(points), curve=k, width=2))
        if len(series) > 1:
            y = top + 14 * (1 + k)
            parts.append(markup.figure_path(f"M{width - 150},{y - 4} h18", curve=k, width=3))
            parts.append(label(width - 126, y, name, size=12))
    caption = "loss curve" + ("s: " + ", ".join(curves) if len(curves) > 1 else "")
    return Figure(width, height, tuple(parts), caption)
