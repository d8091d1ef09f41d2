"""The Graph tab never crashes on size: a long chain lays out from a deep call stack (no
recursion that grows with the program), pieces stack without overlap, and a program longer
than one window is drawn a window at a time."""

from __future__ import annotations

import re
import sys

import didax
import didax.numpy as jnp
from didax.display import graph, markup, program
from didax.widgets import layout, views


def chain(n: int) -> didax.ClosedJaxpr:
    def f(x):
        for i in range(n):
            x = jnp.sin(x) if i % 2 else x * 1.5
        return x

    return didax.make_jaxpr(f)(jnp.ones(3))


def at_depth(depth: int, fn):
    return fn() if depth == 0 else at_depth(depth - 1, fn)


def test_graph_of_a_long_chain_draws_from_a_deep_call_stack():
    closed = chain(2000)
    panel = views.GraphPanel(closed)
    limit = sys.getrecursionlimit()
    at_depth(limit - 200, panel.draw)
    assert sys.getrecursionlimit() == limit  # grandalf did not have to raise it
    assert panel.placed is not None and len(panel.placed.boxes) == 2002
    assert "<svg" in panel.drawing.value


def test_pieces_stack_top_to_bottom_and_every_edge_points_down():
    closed = chain(2 * layout.PIECE + 7)
    g = graph.graph_model(closed)
    placed = layout.layout_graph(g)
    assert set(placed.boxes) == {n.id for n in g.nodes}
    assert {e for e, _ in placed.routes} == set(g.edges)
    for e, pts in placed.routes:
        assert placed.boxes[e.dst][1] > placed.boxes[e.src][1]
        assert all(0 <= x <= placed.width and 0 <= y <= placed.height for x, y in pts)
    for x, y, w, h in placed.boxes.values():  # nothing clipped
        assert x - w / 2 >= 0 and x + w / 2 <= placed.width
        assert y - h / 2 >= 0 and y + h / 2 <= placed.height


def test_a_long_program_is_drawn_a_window_at_a_time():
    n = graph.WINDOW * 2 + 10
    closed = chain(n)
    panel = views.GraphPanel(closed)
    panel.draw()
    first = panel.graph
    assert first is not None and (first.start, first.stop, first.total) == (0, graph.WINDOW, n)
    assert [n_.kind for n_ in first.nodes].count("output") == 0  # out 0 is made later
    assert f"equations 0-{graph.WINDOW - 1:,} of {n:,} drawn" in panel.drawing.value
    panel.move(graph.WINDOW * 2)
    last = panel.graph
    assert last is not None and (last.start, last.stop) == (graph.WINDOW * 2, n)
    kinds = [n_.kind for n_ in last.nodes]
    # the input x (unused here) and the value made by the window's predecessor come in as inputs
    assert kinds.count("input") == 2 and kinds.count("eqn") == 10 and kinds.count("output") == 1
    came_in = [n_ for n_ in last.nodes if n_.kind == "input"][1]
    assert f"made by eqn {graph.WINDOW * 2 - 1} (not drawn)" in came_in.detail


def test_edges_carry_their_types_and_labels_stay_in_the_drawing():
    closed = didax.make_jaxpr(lambda x, y: jnp.sin(x) * y + jnp.cos(x))(jnp.ones(3), 2.0)
    g = graph.graph_model(closed)
    assert {e.text for e in g.edges} >= {"a:f32[3]", "b:f32[]"}
    placed = layout.layout_graph(g)
    svg = markup.graph_svg(g, placed)
    assert ">a:f32[3]</text>" in svg
    width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1))
    for x, text in re.findall(r'class="dx-edge-label" x="([\d.]+)"[^>]*>([^<]*)<', svg):
        assert float(x) + markup._LABEL_EM * len(text) <= width, text


def test_a_program_longer_than_the_text_window_shows_its_first_equations():
    # a view renders at most TEXT_WINDOW top-level equations (20,000 took 4-5 s to render
    # whole): the first ones, named as the whole program names them, and a note
    n = program.TEXT_WINDOW + 150
    closed = chain(n)
    view = views.JaxprView(closed)
    model = view.jaxpr_model
    assert model.shown_eqns == program.TEXT_WINDOW and model.n_top_eqns == n
    assert len(model.lines) <= program.TEXT_WINDOW + 4  # `{ lambda`, `let`, `in`
    whole = str(closed).split("\n")
    assert model.text().split("\n")[:-1] == whole[: len(model.lines) - 1]
    html = view.code.value
    assert len(re.findall(r'class="dx-l[ "]', html)) <= program.TEXT_WINDOW + 4  # rows
    note = f"showing the first {program.TEXT_WINDOW:,} of {n:,} equations"
    assert note in html and note in view.text()
    stored = view._repr_mimebundle_()
    assert note in stored["text/plain"] and stored["text/plain"].count("\n") <= n - 100
    assert note in stored["text/html"]
    # its output is made after the equations shown: no printed name, and the row says so
    assert [(r.label, r.text) for r in model.outputs] == [
        ("\u2026:f32[3]", "output 0 (made after those shown)")
    ]


def test_a_program_within_the_text_window_is_shown_whole():
    closed = chain(50)
    model = views.JaxprView(closed).jaxpr_model
    assert model.shown_eqns is None and model.note() == "" and model.text() == str(closed)
