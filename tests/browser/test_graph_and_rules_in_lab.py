"""The Graph tab and `%rules` in a real JupyterLab (marker `browser`): a concrete call's graph
shows each node's value and cotangent, a nested jaxpr expands in place and collapses again,
edges keep 3:1 contrast on the page's background in Light and in Dark, and `%rules sin`
shows didax's rule code with links to its files that open in JupyterLab through the root's
didax_source link."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import didax
import pytest
from didax.display import markup
from labpage import cell_output, error_outputs, hex_colour, set_theme

pytestmark = pytest.mark.browser

CELLS = [
    "%load_ext didax",
    "import didax, didax.numpy as jnp\nfrom didax import lax\n\n"
    "def loss(x):\n"
    "    y = lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x)\n"
    "    return jnp.sum(y * x)\n\n"
    "x = jnp.array([0.5, 1.0, 2.0])",
    "%jaxpr loss(x)",
    "%rules sin",
    "%grad --jaxpr loss(x)",
]

_RGB = """e => getComputedStyle(e).stroke"""
_BG = """e => { let n = e; while (n) { const c = getComputedStyle(n).backgroundColor;
  if (c && c !== 'rgba(0, 0, 0, 0)') return c; n = n.parentElement; } return 'rgb(255, 255, 255)'; }"""


def test_graph_values_expand_collapse_and_rules(notebook, lab):
    # the server's root holds the notebooks and a didax_source link to the package, as
    # demo_notebooks/ does: the rules' links go through it and open in JupyterLab
    source = lab[1] / "didax_source"
    if not source.exists():
        source.symlink_to(Path(didax.__file__).parent, target_is_directory=True)
    from playwright.sync_api import expect

    page = notebook(CELLS)
    assert error_outputs(page) == []
    out = cell_output(page, 2)
    out.get_by_text("Graph", exact=True).click()
    svg = out.locator("svg.dx-graph")
    svg.wait_for(state="visible")
    assert svg.locator("text.dx-node-grad").count() >= 3  # cotangents on the nodes
    assert svg.locator("text.dx-node-value").count() >= 3
    edge = svg.locator("path.dx-edge").first
    backgrounds = set()
    try:  # >= 3:1 on the page's background, in Light (as opened) and in Dark
        for theme in ("JupyterLab Light", "JupyterLab Dark"):
            set_theme(page, theme)
            stroke, bg = hex_colour(edge.evaluate(_RGB)), hex_colour(edge.evaluate(_BG))
            assert markup.contrast(stroke, bg) >= 3.0, (theme, stroke, bg)
            backgrounds.add(bg)
    finally:  # the theme is a saved setting: the steps and tests after expect Light
        set_theme(page, "JupyterLab Light")
    assert len(backgrounds) == 2, backgrounds  # measured on two backgrounds
    eqns = svg.locator("g.dx-node-eqn").count()
    expand = out.get_by_label("expand", exact=True)  # the list: open the cond in place
    expand.select_option(label=expand.locator("option").first.inner_text())
    out.locator("svg.dx-graph rect.dx-group").first.wait_for(state="visible")
    assert out.locator("svg.dx-graph rect.dx-group").count() == 2  # its two branches
    assert out.locator("svg.dx-graph g.dx-node-eqn").count() == eqns + 2
    expand.select_option([])  # and closed again
    out.locator("svg.dx-graph rect.dx-group").first.wait_for(state="detached")
    assert out.locator("svg.dx-graph g.dx-node-eqn").count() == eqns

    # the Text tab: click a primitive's name, read its rules (test_rules_click_in_lab.py)
    out.get_by_text("Text", exact=True).click()
    out.locator("label.dx-prim:visible", has_text="sin").first.click()
    expect(out.locator(".dx-rules-of:visible")).to_contain_text("mul(t, cos(x))")
    out.get_by_text("Graph", exact=True).click()

    # export: the button offers the drawing as a file, a standalone SVG
    out.get_by_role("button", name="export SVG").click()
    with page.expect_download() as saved:
        out.get_by_text("save graph.svg").click()
    root = ET.parse(saved.value.path()).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    drawn = [g for g in root.iter() if "dx-node-eqn" in (g.get("class") or "")]
    assert len(drawn) == eqns

    # %grad --jaxpr: f's graph with values and cotangents, in its own (static) view
    grad = cell_output(page, 4)
    grad.get_by_text("graph of f", exact=False).click()  # open the fold
    static = grad.locator("svg.dx-graph")
    static.wait_for(state="visible")
    assert static.locator("text.dx-node-grad").count() >= 3
    assert static.locator("text.dx-node-value").count() >= 3

    rules = cell_output(page, 3)
    rules.locator(".dx-view a.dx-link").first.wait_for(state="visible")
    assert "mul(t, cos(x))" in rules.inner_text()
    href = rules.locator("a.dx-link").nth(2).get_attribute("href")
    # (JupyterLab resolves a stored link against the notebook: a /files/ URL in the root)
    assert "/files/didax_source/primitives/elementwise/arithmetic.py" in href, href
    rules.locator("a.dx-link").nth(2).click()
    tab = page.get_by_role("tab", name="arithmetic.py")
    expect(tab).to_have_attribute("aria-selected", "true", timeout=30_000)
    editor = page.locator(".jp-FileEditor .cm-content").first
    expect(editor).to_contain_text("Elementwise arithmetic primitives", timeout=30_000)
    # (its checkpoint goes to the server's own folder, not beside it in the package: conftest)
    checkpoints = Path(didax.__file__).parent / "primitives" / "elementwise" / ".ipynb_checkpoints"
    page.wait_for_timeout(1000)
    assert not checkpoints.exists()
