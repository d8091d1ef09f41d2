"""A graph you can open up (issue 22 item 3): a `cond`, `while` or `jit` equation expands in
place into its nested jaxprs' equations, framed and named by path; operands flow into the
body, its results into the equation; selecting it again collapses it."""

from __future__ import annotations

import re

import didax
import didax.numpy as jnp
from didax import lax
from didax.display import graph, markup
from didax.widgets import layout, views

X = jnp.array([0.5, 1.0, 2.0])


def control(x):
    y = lax.cond(x.sum() > 0, jnp.sin, lambda v: jnp.cos(v) * 2.0, x)
    return didax.jit(lambda q: q * 2)(y)


def test_expanding_a_cond_shows_both_branches_in_place():
    closed = didax.make_jaxpr(control)(X)
    k = next(i for i, e in enumerate(closed.eqns) if e.primitive.name == "cond")
    assert [label for _, label in graph.expandable(closed)] == [f"eqn {k} cond", "eqn 4 jit"]
    folded = graph.graph_model(closed)
    opened = graph.graph_model(closed, expanded={k})
    inner = [n for n in opened.nodes if n.group]
    assert [(n.group, n.label) for n in inner] == [
        (f"eqn {k}/branch 0", "cos"),
        (f"eqn {k}/branch 0", "mul"),
        (f"eqn {k}/branch 1", "sin"),
    ]
    assert len(opened.nodes) == len(folded.nodes) + 3
    cond = next(n for n in opened.nodes if n.label == "cond")
    by_id = {n.id: n for n in opened.nodes}
    into_cond = {by_id[e.src].label for e in opened.edges if e.dst == cond.id}
    assert {"mul", "sin"} <= into_cond  # each branch's result flows into the cond
    x_node = next(n for n in opened.nodes if n.kind == "input")
    assert {by_id[e.dst].label for e in opened.edges if e.src == x_node.id} >= {"cos", "sin"}
    placed = layout.layout_graph(opened)
    svg = markup.graph_svg(opened, placed)
    assert svg.count('class="dx-group"') == 2 and f">eqn {k}/branch 1</text>" in svg
    width, height = map(float, re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).groups())
    for x, y, w, h in re.findall(
        r'class="dx-group" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', svg
    ):
        assert float(x) + float(w) <= width and float(y) + float(h) <= height


def test_the_graph_tab_expands_and_collapses():
    closed = didax.make_jaxpr(control)(X)
    view = views.JaxprView(closed)
    view.tabs.selected_index = 1
    panel = view.graph_panel
    before = panel.drawing.value.count("dx-node-eqn")
    panel.expand.value = (4,)  # the jit
    assert panel.drawing.value.count("dx-node-eqn") == before + 1  # its one mul
    assert ">eqn 4/jaxpr</text>" in panel.drawing.value
    panel.expand.value = ()
    assert panel.drawing.value.count("dx-node-eqn") == before
