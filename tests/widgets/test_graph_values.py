"""Values and gradients on the graph (issue 22 item 3 ★): for a concrete call each node shows
the value it made and, for a program with one float scalar output, the cotangent that flowed
back to it (micrograd's picture, from the real jaxpr)."""

from __future__ import annotations

import didax
import didax.numpy as jnp
import numpy as np
from didax.display import graph, markup
from didax.widgets import layout, views

X = jnp.array([0.5, 1.0, 2.0])


def loss(x):
    return jnp.sum(jnp.sin(x) * x)


def test_each_node_shows_its_value_and_cotangent():
    closed = didax.make_jaxpr(loss)(X)
    values, grads = graph.flow(closed, (X,))
    x, s, p, total = (closed.jaxpr.invars[0], *(e.outvars[0] for e in closed.eqns))
    np.testing.assert_allclose(np.asarray(values[id(s)]), np.sin(X), rtol=1e-6)
    np.testing.assert_allclose(float(values[id(total)]), float(loss(X)), rtol=1e-6)
    # the cotangents: d total/d x is the gradient; d total/d sin(x) is x; d total/d p is 1
    np.testing.assert_allclose(np.asarray(grads[id(x)]), didax.grad(loss)(X), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(grads[id(s)]), X, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(grads[id(p)]), np.ones(3), rtol=1e-6)
    g = graph.graph_model(closed, args=(X,))
    sin_node = next(n for n in g.nodes if n.label == "sin")
    assert sin_node.value == "[0.4794 0.8415 0.9093]" and sin_node.grad == "[0.5 1. 2. ]"
    assert "cotangent: [0.5 1. 2. ]" in sin_node.detail
    svg = markup.graph_svg(g, layout.layout_graph(g))
    assert 'class="dx-node-grad"' in svg and "\u2207 [0.5 1. 2. ]" in svg


def test_no_cotangents_for_a_program_that_is_not_a_scalar_loss():
    closed = didax.make_jaxpr(lambda x: jnp.sin(x) * x)(X)
    g = graph.graph_model(closed, args=(X,))
    assert all(n.value for n in g.nodes if n.kind == "eqn")
    assert not any(n.grad for n in g.nodes)
    assert all(not n.value for n in graph.graph_model(closed).nodes)  # no call: no values


def test_the_graph_tab_of_a_jaxpr_view_with_its_call():
    view = views.JaxprView(didax.make_jaxpr(loss)(X), args=(X,))
    view.tabs.selected_index = 1
    assert 'class="dx-node-value"' in view.graph_panel.drawing.value
    assert 'class="dx-node-grad"' in view.graph_panel.drawing.value
