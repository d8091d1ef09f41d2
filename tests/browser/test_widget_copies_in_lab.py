"""The ipywidgets views (`%jaxpr`, `%jit`, a displayed ClosedJaxpr) in a real JupyterLab
(marker `browser`): live, each shows its widget once; saved as a user saves (no widget
state), the kernel shut down and the notebook reopened, each shows its program as static
HTML, and no "Error displaying widget: model not found"; opened untrusted, each shows it once.

JupyterLab's widget renderer (@jupyter-widgets/jupyterlab-manager) does not fall back to the
bundle's next mime type when the model is missing: it writes the error text instead. The
views therefore follow their widget with a stand-in output (views.py says how); this test
is what shows the fallback works."""

from __future__ import annotations

import re

import didax
import pytest
from labpage import (
    cell_output,
    close_all,
    error_outputs,
    normalized,
    open_notebook,
    save,
    shutdown_kernels,
)

pytestmark = pytest.mark.browser

SETUP = """\
import didax, didax.numpy as jnp

def f(x):
    return jnp.sum(jnp.sin(x) * 3.0)

x = jnp.array([0.5, 1.0, 2.0])
"""
CELLS = ["%load_ext didax", SETUP, "%jaxpr f(x)", "%jit -n 2 -r 2 f(x)", "didax.make_jaxpr(f)(x)"]
JAXPR_CELLS = (2, 4)
JIT_CELL = 3

# what a reader sees of an output: its visible text, and the visible "no widget" messages
_VISIBLE_ERRORS = """out => [...out.querySelectorAll('.jp-OutputArea-output')].filter(
  e => e.offsetParent !== null && /Error displaying widget|Loading widget/.test(e.innerText)
).map(e => e.innerText)"""


def _expected() -> tuple[list[str], list[str]]:
    ns: dict = {}
    exec(SETUP, ns)
    jaxpr = [normalized(s) for s in str(didax.make_jaxpr(ns["f"])(ns["x"])).splitlines()]
    stablehlo = didax.jit(ns["f"]).lower(ns["x"]).as_text()
    ops = [normalized(s) for s in stablehlo.splitlines() if "stablehlo." in s]
    assert jaxpr and ops
    return [s for s in jaxpr if s], ops


def _assert_visible(page, jaxpr: list[str], ops: list[str]) -> None:
    for index, lines in [*((i, jaxpr) for i in JAXPR_CELLS), (JIT_CELL, ops)]:
        out = cell_output(page, index)
        text = normalized(out.inner_text())  # visible text only
        missing = [s for s in lines if s not in text]
        assert not missing, f"cell {index} does not show {missing}\n{text[:2000]}"
        assert page.evaluate(_VISIBLE_ERRORS, out.element_handle()) == []


def test_widget_views_show_their_program_when_stored(notebook, lab):
    import nbformat
    from playwright.sync_api import expect

    base, nbdir = lab
    jaxpr, ops = _expected()
    name = "widget_copies.ipynb"
    page = notebook(CELLS, name=name)
    assert error_outputs(page) == []
    # live: the widgets (their buttons, tabs), each program shown once
    for index in JAXPR_CELLS:
        out = cell_output(page, index)
        expect(out.get_by_role("tab", name="Graph")).to_be_visible()
        assert out.locator(".dx-code:visible").count() == 1
    expect(cell_output(page, JIT_CELL).get_by_role("tab", name="optimized HLO")).to_be_visible()
    _assert_visible(page, jaxpr, ops)
    save(page, nbdir / name)
    close_all(page)
    shutdown_kernels(base)
    nb = nbformat.read(nbdir / name, as_version=4)
    assert nb.cells[2].outputs and not nb.metadata.get("widgets")  # saved, no widget state

    open_notebook(page, name)
    idle = page.get_by_role("contentinfo").get_by_role("button", name=re.compile(r"\| Idle$"))
    expect(idle).to_be_visible(timeout=90_000)  # a new kernel, without the old models
    # the fact the stand-ins exist for: JupyterLab did not fall back to each bundle's
    # text/html, its widget renderer wrote the error (hidden by the stand-in's rules)
    errors = page.get_by_text("Error displaying widget: model not found")
    expect(errors).to_have_count(len(JAXPR_CELLS) + 1)
    _assert_visible(page, jaxpr, ops)
    for index in JAXPR_CELLS:  # the static copy, once
        assert cell_output(page, index).locator(".dx-code:visible").count() == 1

    # untrusted (a copy its reader never ran): JupyterLab shows each bundle's own text/html,
    # sanitized; the stand-in stays hidden, so the program shows once
    nb.metadata["didax_test_copy"] = "untrusted"
    nbformat.write(nb, nbdir / "widget_copies_untrusted.ipynb")
    open_notebook(page, "widget_copies_untrusted.ipynb")
    cell_output(page, 2).locator(".dx-code").first.wait_for(state="visible", timeout=60_000)
    assert cell_output(page, 2).locator("style").count() == 0  # sanitized
    _assert_visible(page, jaxpr, ops)
    for index in JAXPR_CELLS:
        assert cell_output(page, index).locator(".dx-code:visible").count() == 1
