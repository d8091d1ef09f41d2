"""Stored equals live: the `text/html` a magic's view carries (what a notebook stores, and
GitHub, nbconvert or JupyterLab before the kernel starts show) is the static rendering of the
live widget: every piece of markup the widget shows (same programs, marks, tables, and the
same style, so the same colours in both themes) is in it."""

from __future__ import annotations

import didax.numpy as jnp
import ipywidgets as w
import numpy as np
import pytest
from didax import lax
from didax.display.theme import inline_styles
from didax.magics import report_views, reports, timing


def f(x):
    return jnp.sin(x) * x


def loss(x):
    return f(x).sum()


def g(x, y):
    return lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x * y)


def live_markup(widget) -> list[str]:
    """The markup of every HTML widget the live view shows (its "try it" lines aside: the
    stored one names only what works without a kernel)."""
    if isinstance(widget, w.HTML):
        return [] if 'class="dx-try"' in widget.value or not widget.value else [widget.value]
    return [v for c in getattr(widget, "children", ()) for v in live_markup(c)]


X = jnp.array([0.5, 1.0, 2.0])


@pytest.mark.parametrize(
    "make",
    [
        lambda: report_views.grad_view(
            reports.grad_report(loss, (X,), programs=True, call="loss(x)")
        ),
        lambda: report_views.vmap_view(
            reports.vmap_report(g, (np.ones((2, 3), np.float32), 2.0), in_axes=(0, None))
        ),
        lambda: report_views.jaxpr_view(reports.jaxpr_report(g, (X, 2.0), call="g(x, 2.0)")),
        lambda: report_views.jit_view(timing.jit_report(f, (X,), number=1, repeat=1)),
    ],
    ids=["grad", "vmap", "jaxpr", "jit"],
)
def test_stored_html_is_the_live_view(make):
    view = make()
    stored = view._repr_mimebundle_()["text/html"]
    pieces = live_markup(view)
    assert pieces
    for piece in pieces:  # with the stylesheet inlined (for an untrusted notebook)
        assert inline_styles(piece) in stored
    assert "try it:" in stored


def test_stored_grad_view_has_the_four_programs_and_their_marks():
    view = report_views.grad_view(reports.grad_report(loss, (X,), programs=True, call="loss(x)"))
    stored = view._repr_mimebundle_()["text/html"]
    assert stored.count('class="dx-jaxpr"') == 4
    for mark in ("eqn 2", "primal of eqn 1", "tangent of eqn 1", "transpose of eqn 0"):
        assert f"  {mark}</span>" in stored, mark
    assert "tr:nth-child(odd)" in stored  # no zebra rows where JupyterLab styles tables
