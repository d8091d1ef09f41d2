"""The Graph tab and `%rules` in a real JupyterLab (marker `browser`): a concrete call's graph
shows each node's value and cotangent, a nested jaxpr expands in place and collapses again,
edges keep 3:1 contrast on the page's background, and `%rules sin` shows didax's rule code
with links to its files."""

from __future__ import annotations

import pytest
from didax.display import markup
from labpage import cell_output, error_outputs

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
]

_RGB = """e => getComputedStyle(e).stroke"""
_BG = """e => { let n = e; while (n) { const c = getComputedStyle(n).backgroundColor;
  if (c && c !== 'rgba(0, 0, 0, 0)') return c; n = n.parentElement; } return 'rgb(255, 255, 255)'; }"""


def _hex(rgb: str) -> str:
    r, g, b = (int(float(v)) for v in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    return f"#{r:02x}{g:02x}{b:02x}"


def test_graph_values_expand_collapse_and_rules(notebook):
    page = notebook(CELLS)
    assert error_outputs(page) == []
    out = cell_output(page, 2)
    out.get_by_text("Graph", exact=True).click()
    svg = out.locator("svg.dx-graph")
    svg.wait_for(state="visible")
    assert svg.locator("text.dx-node-grad").count() >= 3  # cotangents on the nodes
    assert svg.locator("text.dx-node-value").count() >= 3
    edge = svg.locator("path.dx-edge").first
    assert markup.contrast(_hex(edge.evaluate(_RGB)), _hex(edge.evaluate(_BG))) >= 3.0
    eqns = svg.locator("g.dx-node-eqn").count()
    expand = out.locator("select")  # the 'expand' list: open the cond in place
    expand.select_option(label=expand.locator("option").first.inner_text())
    out.locator("svg.dx-graph rect.dx-group").first.wait_for(state="visible")
    assert out.locator("svg.dx-graph rect.dx-group").count() == 2  # its two branches
    assert out.locator("svg.dx-graph g.dx-node-eqn").count() == eqns + 2
    expand.select_option([])  # and closed again
    out.locator("svg.dx-graph rect.dx-group").first.wait_for(state="detached")
    assert out.locator("svg.dx-graph g.dx-node-eqn").count() == eqns

    rules = cell_output(page, 3)
    rules.locator(".dx-view a.dx-link").first.wait_for(state="visible")
    assert "mul(t, cos(x))" in rules.inner_text()
    href = rules.locator("a.dx-link").nth(2).get_attribute("href")
    assert href.endswith("primitives/elementwise/arithmetic.py")
