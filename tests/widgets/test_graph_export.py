"""The graph leaves the notebook as an SVG file (`JaxprView.graph_svg()`, the Graph tab's
"export SVG" link), and `%grad --jaxpr` draws f's graph with values and cotangents in its own
view, statically (no kernel needed, so a stored notebook shows it too)."""

from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as ET

import didax
import didax.numpy as jnp
from didax.display import theme
from didax.magics import reports
from didax.magics.report_views import grad_view
from didax.widgets import views

X = jnp.array([0.5, 1.0, 2.0])
SVG = "{http://www.w3.org/2000/svg}"


def loss(x):
    return jnp.sum(jnp.sin(x) * x)


def test_graph_svg_is_a_standalone_svg_file_with_its_own_style():
    closed = didax.make_jaxpr(loss)(X)
    svg = views.JaxprView(closed, args=(X,)).graph_svg()
    root = ET.fromstring(svg)  # well-formed XML
    assert root.tag == SVG + "svg"
    style = root.find(SVG + "style")
    assert style is not None and "background: #ffffff" in style.text
    assert f"--dx-primitive: {theme.PALETTE['primitive'][0]}" in style.text  # light palette
    assert ".dx-view" not in style.text  # its rules apply to the file itself
    assert "prefers-color-scheme" not in style.text  # a file: light, whatever the viewer
    nodes = [g for g in root.iter(SVG + "g") if "dx-node-eqn" in g.get("class", "")]
    assert len(nodes) == len(closed.eqns)
    grads = [t for t in root.iter(SVG + "text") if t.get("class") == "dx-node-grad"]
    assert len(grads) >= 3  # the call's cotangents are in the file too


def test_export_button_offers_the_svg_as_a_download():
    closed = didax.make_jaxpr(loss)(X)
    panel = views.GraphPanel(closed)
    assert panel.export.value == ""
    export = next(
        c for c in panel.children[0].children if getattr(c, "description", "") == "export SVG"
    )
    export.click()
    m = re.search(
        r'download="graph.svg" href="data:image/svg\+xml;base64,([^"]+)"', panel.export.value
    )
    assert m and base64.b64decode(m.group(1)).decode() == panel.svg_file()


def test_grad_view_draws_fs_graph_with_values_and_cotangents_statically():
    report = reports.grad_report(loss, (X,), programs=True, call="loss(x)")
    bundle = grad_view(report)._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}  # still no kernel needed
    html = bundle["text/html"]
    assert (
        "graph of f" in html and '<svg xmlns="http://www.w3.org/2000/svg" class="dx-graph"' in html
    )
    assert html.count('<text class="dx-node-grad"') >= 3
    assert html.count('<text class="dx-node-value"') >= 3


def test_a_redrawn_graph_withdraws_the_old_file():
    closed = didax.make_jaxpr(loss)(X)
    panel = views.GraphPanel(closed)
    panel.offer_svg()
    assert "graph.svg" in panel.export.value
    panel.redraw()
    assert panel.export.value == ""
