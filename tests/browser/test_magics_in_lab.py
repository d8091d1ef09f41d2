"""The magics in a real JupyterLab, seen by Debian Chromium (marker `browser`): each magic's
output renders with its program's text visible, no "Error displaying widget", no Python error
output; and an ipywidgets widget renders at all, so the widget manager is known to work.

The expected texts are computed here, in this process, with the same didax the kernel runs.
Checks compare whitespace-normalized text, so they hold for today's HTML report and for a
widget view that lays the same jaxpr out in spans or rows."""

from __future__ import annotations

import re

import didax
import pytest
from labpage import cell_output, error_outputs, normalized

pytestmark = pytest.mark.browser

SETUP = """\
import didax, didax.numpy as jnp

def f(x):
    return jnp.sum(jnp.sin(x) * 3.0)

x = jnp.array([0.5, 1.0, 2.0])
xs = jnp.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
"""
MAGICS = ["%jaxpr f(x)", "%grad --jaxpr f(x)", "%vmap f(xs)", "%jit -n 2 -r 2 f(x)"]


def _namespace() -> dict:
    ns: dict = {}
    exec(SETUP, ns)
    return ns


def _equations(program: object) -> list[str]:
    """The lines of a printed jaxpr, normalized: each must appear in the page's text."""
    return [normalized(line) for line in str(program).splitlines() if line.strip()]


def _assert_shows(output, lines: list[str], *, visible: bool = True) -> None:
    text = normalized(output.inner_text() if visible else output.text_content())
    missing = [line for line in lines if line not in text]
    assert not missing, f"not shown: {missing}\n--- output text ---\n{text[:3000]}"


def _assert_clean(page) -> None:
    assert error_outputs(page) == []
    assert page.get_by_text("Error displaying widget").count() == 0
    # a widget without a live model or widget manager falls back to its text/plain repr,
    # e.g. "VBox(children=..." or "HTML(value=..."
    fallback = re.compile(r"^\w+\((children|value|layout)=")
    assert page.locator(".jp-OutputArea-output").get_by_text(fallback).count() == 0


def test_magics_render_their_programs(notebook):
    ns = _namespace()
    f, x, xs = ns["f"], ns["x"], ns["xs"]
    page = notebook(["%load_ext didax", SETUP, *MAGICS])
    _assert_clean(page)
    jaxpr_of_f = _equations(didax.make_jaxpr(f)(x))
    _assert_shows(cell_output(page, 2), jaxpr_of_f)  # %jaxpr
    _assert_shows(cell_output(page, 3), jaxpr_of_f)  # %grad --jaxpr: the forward program
    _assert_shows(cell_output(page, 4), _equations(didax.make_jaxpr(didax.vmap(f))(xs)))
    # %jit: the StableHLO it compiled (may sit in a folded section, so textContent)
    stablehlo = didax.jit(f).lower(x).as_text()
    ops = [normalized(s) for s in stablehlo.splitlines() if "stablehlo." in s]
    assert ops, stablehlo
    _assert_shows(cell_output(page, 5), ops, visible=False)


def test_ipywidgets_widget_renders(notebook):
    page = notebook(
        [
            "import ipywidgets as w\n"
            "w.HTML(value='<b class=\"ci-probe\">widget manager works: ' + str(6 * 7) + '</b>')"
        ]
    )
    probe = cell_output(page, 0).locator(".widget-html .ci-probe")
    probe.wait_for(state="visible", timeout=30_000)
    assert probe.inner_text() == "widget manager works: 42"
    _assert_clean(page)


def test_requests_leaving_localhost_are_aborted_and_reported(page, outside_requests):
    """The guard itself: an image on a non-local host is never fetched, and is reported."""
    url = "http://192.0.2.1/probe.png"  # TEST-NET-1: never a real host
    page.set_content(f'<img id="probe" src="{url}">')
    page.wait_for_function("() => document.getElementById('probe').complete")
    loaded = page.evaluate("() => document.getElementById('probe').naturalWidth")
    assert loaded == 0 and outside_requests == [url]
    outside_requests.clear()  # seen and checked: the teardown's assertion has nothing left
