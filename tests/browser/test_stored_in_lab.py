"""Stored equals live, in a real JupyterLab (marker `browser`): a notebook whose `%grad
--jaxpr` ran and was saved, reopened with a new kernel (its widget models gone), shows the same
programs, the same marks in the same colours, and tables without zebra rows, as the live view
did; opened untrusted (JupyterLab sanitizes its HTML: no <style>, no CSS variables), it keeps
every mark and token in its kind's colour, in Light and in Dark."""

from __future__ import annotations

import re

import pytest
from labpage import (
    cell_output,
    hex_colour,
    normalized,
    open_notebook,
    save,
    save_and_reopen,
    set_theme,
)

pytestmark = pytest.mark.browser

CELLS = [
    "%load_ext didax",
    "import didax.numpy as jnp\n\ndef f(x):\n    return jnp.sum(jnp.sin(x) * x)\n\n"
    "x = jnp.array([0.5, 1.0, 2.0])",
    "%grad --jaxpr f(x)",
]

_MARKS = """out => [...out.querySelectorAll('.dx-view .dx-mark')].map(
  e => [e.innerText.trim(), getComputedStyle(e).color])"""
_CODE = """out => [...out.querySelectorAll('.dx-view .dx-jaxpr')].map(e => e.innerText)"""
_ROWS = """out => [...out.querySelectorAll('.dx-view table.dx-rows tr')].map(
  e => getComputedStyle(e).backgroundColor)"""


def _seen(page):
    out = cell_output(page, 2).element_handle()
    return (
        page.evaluate(_MARKS, out),
        [normalized(t) for t in page.evaluate(_CODE, out)],
        set(page.evaluate(_ROWS, out)),
    )


def test_a_stored_view_shows_what_the_live_one_showed(notebook, lab):
    """Saved from JupyterLab as a user saves (no widget state), the kernel shut down, and
    reopened: the view is there (not "Error displaying widget: model not found"), with the
    same programs, marks, colours, and no zebra rows. Nothing is stripped from the file."""
    from playwright.sync_api import expect

    base, nbdir = lab
    name = "stored_equals_live.ipynb"
    page = notebook(CELLS, name=name)
    cell_output(page, 2).locator(".dx-view .dx-jaxpr").first.wait_for(state="visible")
    live_marks, live_code, _ = _seen(page)
    assert [m for m, _ in live_marks if m == "primal of eqn 1"], live_marks
    assert len(live_code) == 4
    save_and_reopen(page, base, nbdir / name)
    stored_out = cell_output(page, 2)
    stored_out.locator(".dx-view .dx-jaxpr").first.wait_for(state="visible", timeout=60_000)
    idle = page.get_by_role("contentinfo").get_by_role("button", name=re.compile(r"\| Idle$"))
    expect(idle).to_be_visible(timeout=90_000)  # a new kernel, without the old models
    page.wait_for_timeout(1000)
    assert page.get_by_text("Error displaying widget").count() == 0
    stored_marks, stored_code, row_colours = _seen(page)
    assert stored_marks == live_marks  # same marks, same colours
    assert stored_code == live_code  # the same four programs
    assert row_colours <= {"rgba(0, 0, 0, 0)"}  # no zebra rows
    stored_out.get_by_text("graph of f", exact=False).click()  # the graph, drawn live
    expect(stored_out.locator("svg.dx-graph")).to_be_visible()
    expect(stored_out.locator("img.dx-svg-copy")).to_be_hidden()  # its copy: for untrusted


_COLOURED = """out => [...out.querySelectorAll(
  '.dx-view .dx-mark, .dx-view .dx-primitive, .dx-view .dx-keyword')].map(e =>
  [e.innerText.trim(), [...e.classList].filter(c => c !== 'dx-mark').join(' '),
   getComputedStyle(e).color])"""
_BG = """out => { let n = out; while (n) { const c = getComputedStyle(n).backgroundColor;
  if (c && c !== 'rgba(0, 0, 0, 0)') return c; n = n.parentElement; } return 'rgb(255, 255, 255)'; }"""
_SHOWN_RADIOS = """out => [...out.querySelectorAll('input')].filter(
  e => getComputedStyle(e).display !== 'none').length"""
_KIND = {
    "dx-primitive": "primitive",
    "dx-keyword": "keyword",
    "dx-unchanged": "type",
    "dx-new": "new",
    "dx-other": None,
}


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def test_an_untrusted_stored_view_keeps_its_colours_in_both_themes(notebook, lab):
    """JupyterLab sanitizes an untrusted notebook's HTML (no <style>, no var()): the stored
    view still shows every mark and token in its kind's colour, hidden radios, no zebra."""
    import nbformat
    from didax.display import theme
    from playwright.sync_api import expect

    base, nbdir = lab
    page = notebook(CELLS, name="untrusted_live.ipynb")
    live_out = cell_output(page, 2)
    live_out.locator(".dx-view .dx-jaxpr").first.wait_for(state="visible")
    live = page.evaluate(_COLOURED, live_out.element_handle())
    save(page, nbdir / "untrusted_live.ipynb")
    nb = nbformat.read(nbdir / "untrusted_live.ipynb", as_version=4)
    # a copy its reader never ran: its digest is not in the server's signature store, so
    # JupyterLab does not trust it (as a notebook downloaded from elsewhere)
    nb.metadata["didax_test_copy"] = "untrusted"
    nbformat.write(nb, nbdir / "untrusted.ipynb")
    try:
        for theme_name in ("JupyterLab Light", "JupyterLab Dark"):
            open_notebook(page, "untrusted.ipynb")
            if theme_name != "JupyterLab Light":
                set_theme(page, theme_name)
            out = cell_output(page, 2)
            out.locator(".dx-view .dx-jaxpr").first.wait_for(state="visible", timeout=60_000)
            assert out.locator("style").count() == 0  # sanitized: the stylesheet is gone
            stored = page.evaluate(_COLOURED, out.element_handle())
            assert [(t, c) for t, c, _ in stored] == [(t, c) for t, c, _ in live]
            bg = hex_colour(page.evaluate(_BG, out.element_handle()))
            for text, classes, colour in stored:
                kinds = [_KIND[c] for c in classes.split() if c in _KIND and _KIND[c]]
                if kinds:
                    assert colour == _rgb(theme.STORED[kinds[0]]), (text, classes, colour)
                    assert theme.contrast(hex_colour(colour), bg) >= 4.3, (text, colour, bg)
            assert page.evaluate(_SHOWN_RADIOS, out.element_handle()) == 0
            # the graph: its <svg> is sanitized away, its <img> copy shows instead
            out.get_by_text("graph of f", exact=False).click()
            copy = out.locator("img.dx-svg-copy")
            expect(copy).to_be_visible()
            assert copy.evaluate("e => e.complete && e.naturalWidth > 0")
            assert out.locator("svg.dx-graph").count() == 0
            assert "cotangent: [" not in out.inner_text()  # the svg's hover titles, hidden
            rows = page.evaluate(_ROWS, out.element_handle())
            assert rows and set(rows) <= {"rgba(0, 0, 0, 0)"}  # no zebra rows
    finally:  # the theme is a saved setting: the next tests expect Light
        set_theme(page, "JupyterLab Light")
