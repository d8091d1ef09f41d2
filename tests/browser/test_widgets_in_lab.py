"""didax.widgets in a real JupyterLab, seen by Debian Chromium (marker `browser`): each magic's
view and a ClosedJaxpr's view render (as widgets where they need the kernel); the Graph tab draws an SVG with a node per
equation; folding a nested jaxpr hides its lines; clicking a variable highlights its binding
and uses; the stepper's buttons step through the kernel; a hostile `__name__` renders as text
and nothing runs. Screenshots of each view go to test-artifacts/."""

from __future__ import annotations

from pathlib import Path

import didax
import pytest
from labpage import cell_output, error_outputs, normalized

pytestmark = pytest.mark.browser

SETUP = """\
import didax, didax.numpy as jnp
from didax import lax

def f(x):
    return jnp.sum(jnp.sin(x) * 3.0)

def g(x):
    y = lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x)
    return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0), (0, y))[1]

x = jnp.array([0.5, 1.0, 2.0])
xs = jnp.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
"""
CELLS = [
    "%load_ext didax",  # 0
    SETUP,  # 1
    "%jaxpr g(x)",  # 2
    "%grad --jaxpr f(x)",  # 3
    "%vmap f(xs)",  # 4
    "%jit -n 2 -r 2 f(x)",  # 5
    "didax.make_jaxpr(f)(x)",  # 6
]


def _shot(locator, request, what: str) -> None:
    artifacts = Path(request.config.rootpath) / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    locator.screenshot(path=str(artifacts / f"{request.node.name}-{what}.png"))


def _assert_clean(page) -> None:
    assert error_outputs(page) == []
    assert page.get_by_text("Error displaying widget").count() == 0


def test_views_render_and_respond(notebook, request):
    page = notebook(CELLS)
    _assert_clean(page)
    for i in range(2, 7):  # every magic's view and the ClosedJaxpr's: widgets where they
        # need the kernel (%jaxpr, %jit, a ClosedJaxpr), HTML where they do not (%grad, %vmap)
        widget = ".widget-html " if i in (2, 5, 6) else ".jp-RenderedHTML "
        view = cell_output(page, i).locator(widget + ".dx-view").first
        view.wait_for(state="visible")
    _shot(cell_output(page, 2), request, "jaxpr")
    _shot(cell_output(page, 3), request, "grad")
    # %grad --jaxpr: the stage diff marks the later stages' equations (new / unchanged)
    assert cell_output(page, 3).locator(".dx-mark.dx-new").count() >= 1
    _shot(cell_output(page, 5), request, "jit")

    out = cell_output(page, 2)
    # folding: a nested jaxpr's <details> closes on a click, and its inner lines hide
    fold = out.locator("details.dx-fold").first
    assert fold.evaluate("e => e.open")
    inner = fold.locator(".dx-l").nth(1)
    assert inner.is_visible()
    fold.locator("> summary").click()
    assert not fold.evaluate("e => e.open") and not inner.is_visible()
    fold.locator("> summary").click()

    # clicking a variable highlights its binding and every use
    binder = out.locator("label.dx-var.dx-bind").nth(1)
    var_class = next(c for c in binder.get_attribute("class").split() if c[4:].isdigit())
    uses = out.locator(f"label.{var_class}:not(.dx-bind)")
    assert uses.count() >= 1
    before = uses.first.evaluate("e => getComputedStyle(e).backgroundColor")
    binder.click()
    after = uses.first.evaluate("e => getComputedStyle(e).backgroundColor")
    assert before != after and binder.evaluate("e => getComputedStyle(e).outlineStyle") == "solid"

    # the Graph tab draws an SVG with one node per top-level equation (and the ends)
    out.get_by_text("Graph", exact=True).click()
    nodes = out.locator("svg.dx-graph g.dx-node-eqn")
    nodes.first.wait_for(state="visible")
    ns: dict = {}
    exec(SETUP, ns)
    assert nodes.count() == len(didax.make_jaxpr(ns["g"])(ns["x"]).eqns)
    _shot(out, request, "graph")
    out.get_by_text("Text", exact=True).click()

    # the stepper's buttons evaluate through the kernel
    out.get_by_role("button", name="step through").click()
    out.get_by_role("button", name="next").first.click()
    out.get_by_text("step 1: next is", exact=False).wait_for()
    out.get_by_role("button", name="next").first.click()
    out.get_by_text("step 2: next is", exact=False).wait_for()
    out.get_by_role("button", name="run to end").click()
    out.get_by_text("done after", exact=False).wait_for()
    assert "while iteration 3" in normalized(out.inner_text())
    _shot(out, request, "stepper")
    _assert_clean(page)


def test_hostile_name_renders_as_text_and_nothing_runs(notebook, lab_page):
    dialogs: list[str] = []

    def seen(dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    lab_page.on("dialog", seen)
    evil = "<img src=x onerror=alert(1)>"
    cells = [
        "%load_ext didax",
        "import didax, didax.numpy as jnp\n"
        "def evil(x):\n    return jnp.sum(jnp.sin(x))\n"
        f"evil.__name__ = {evil!r}\n"
        "x = jnp.ones(3)",
        "%jaxpr didax.jit(evil)(x)",
        "%grad evil(x)",
    ]
    page = notebook(cells)
    _assert_clean(page)
    for i in (2, 3):
        out = cell_output(page, i)
        out.locator(".dx-view").first.wait_for(state="visible")
        assert out.locator("img").count() == 0
        assert evil in out.inner_text()
    page.wait_for_timeout(500)
    page.remove_listener("dialog", seen)  # the page is the session's: the next tests use it
    assert dialogs == []
