"""Click an equation's primitive to read its rules, in a real JupyterLab (marker `browser`):
in a `%%jaxpr` view, a click on `sin` shows didax's code for sin's rules (its jvp: `mul(t,
cos(x))`) below the program, a click on `cos` shows cos's instead, `close` hides them; the
stored copy (saved, reopened with a new kernel: no widget state) does the same without a
kernel, and an untrusted copy (no stylesheet) lists each primitive's rules as a fold. The
stepper the view opens shows them on a click as well."""

from __future__ import annotations

import re

import pytest
from labpage import cell_output, error_outputs, open_notebook, save_and_reopen

pytestmark = pytest.mark.browser

CELLS = [
    "%load_ext didax",
    "import didax.numpy as jnp\nfrom didax import lax\n\n"
    "def loss(x):\n"
    "    y = lax.cond(x.sum() > 0, jnp.sin, jnp.cos, jnp.sin(x))\n"
    "    return jnp.sum(y * x)\n\n"
    "x = jnp.array([0.5, 1.0, 2.0])",
    "%%jaxpr\nloss(x)",
    "%grad --jaxpr loss(x)",
]
JVP = "mul(t, cos(x))"  # sin's derivative, in the jvp rule's code


def _name(out, text):
    return out.locator("label.dx-prim:visible").filter(has_text=re.compile(f"^{text}$")).first


def _click_sin_then_cos_then_close(out):
    from playwright.sync_api import expect

    shown = out.locator(".dx-rules-of:visible")
    expect(shown).to_have_count(0)  # nothing until a name is clicked
    _name(out, "sin").click()
    expect(shown).to_have_count(1)
    text = shown.inner_text()
    assert "the rules of sin" in text and "jvp rule: partials_jvp" in text, text
    assert JVP in text and "lowering rule" in text
    _name(out, "cos").click()  # another primitive: its rules instead
    expect(shown).to_have_count(1)
    expect(shown).to_contain_text("the rules of cos")
    assert JVP not in shown.inner_text()
    shown.get_by_text("close").click()
    expect(shown).to_have_count(0)
    # cond's name heads its fold (a <summary>): the click shows its rules, the fold stays open
    lines = out.locator(".dx-code .dx-l:visible").count()
    _name(out, "cond").click()
    expect(shown).to_contain_text("the rules of cond")
    assert out.locator(".dx-code .dx-l:visible").count() == lines
    # the nested branch's sin shows the same block as the top-level one
    out.locator("label.dx-prim:visible").filter(has_text=re.compile("^sin$")).last.click()
    expect(shown).to_contain_text(JVP)


def test_click_a_primitive_to_read_its_rules_live_stored_and_untrusted(notebook, lab):
    import nbformat
    from playwright.sync_api import expect

    base, nbdir = lab
    name = "rules_click.ipynb"
    page = notebook(CELLS, name=name)
    assert error_outputs(page) == []
    out = cell_output(page, 2)
    out.locator(".jupyter-widgets .dx-jaxpr").first.wait_for(state="visible")
    _click_sin_then_cos_then_close(out)  # the live widget
    # %grad's programs side by side: mul in the transposed program shows mul's transpose
    grad = cell_output(page, 3)
    grad.locator("label.dx-prim:visible").filter(has_text=re.compile("^mul$")).last.click()
    expect(grad.locator(".dx-rules-of:visible")).to_contain_text("transpose rule")
    # the stepper's program ("step through") shows a primitive's rules on a click too
    out.get_by_role("button", name="step through").click()
    stepper = out.locator(".dx-view.dx-stepper")
    stepper.locator(".dx-current").first.wait_for(state="visible")
    expect(stepper.locator(".dx-rules-of:visible")).to_have_count(0)
    _name(stepper, "sin").click()
    expect(stepper.locator(".dx-rules-of:visible")).to_contain_text(JVP)

    save_and_reopen(page, base, nbdir / name)
    out = cell_output(page, 2)
    out.locator(".dx-standin .dx-jaxpr").first.wait_for(state="visible", timeout=60_000)
    assert page.get_by_text("Error displaying widget").count() == 0
    _click_sin_then_cos_then_close(out)  # the stored copy: no widget, no kernel needed

    nb = nbformat.read(nbdir / name, as_version=4)
    nb.metadata["didax_test_copy"] = "untrusted"  # not run here: Lab sanitizes its HTML
    nbformat.write(nb, nbdir / "rules_untrusted.ipynb")
    open_notebook(page, "rules_untrusted.ipynb")
    out = cell_output(page, 2)
    out.locator(".dx-view .dx-jaxpr").first.wait_for(state="visible", timeout=60_000)
    assert out.locator("style").count() == 0
    fold = out.locator("details.dx-rules-of:visible").filter(has_text="the rules of sin")
    expect(fold).to_have_count(1)
    assert JVP not in fold.inner_text()  # closed
    fold.locator("summary").click()
    expect(fold).to_contain_text(JVP)


def test_click_a_primitive_in_the_stored_html_alone(page):
    """The view's stored `text/html` on a page of its own (as nbconvert's HTML or any static
    page shows it: its stylesheet, no JupyterLab, no kernel): the click shows the rules."""
    import didax.numpy as jnp
    from didax.magics import report_views, reports
    from playwright.sync_api import expect

    def loss(x):
        return jnp.sum(jnp.sin(x) * x)

    view = report_views.jaxpr_view(reports.jaxpr_report(loss, (jnp.ones(3),), call="loss(x)"))
    page.set_content(f"<html><body>{view._repr_mimebundle_()['text/html']}</body></html>")
    shown = page.locator(".dx-rules-of:visible")
    expect(shown).to_have_count(0)
    _name(page, "sin").click()
    expect(shown).to_contain_text(JVP)
    _name(page, "mul").click()
    expect(shown).to_contain_text("the rules of mul")
    expect(shown).to_have_count(1)
