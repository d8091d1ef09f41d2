"""The stepping interpreter: `step_jaxpr` evaluates as `eval_jaxpr` does, pausing before each
equation and before returning; jit, cond, while and scan step into their bodies through the
step rules registered beside their other rules; any other primitive is bound whole."""

from __future__ import annotations

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import lax
from didax.compile.jit_primitive import jit_p
from didax.control_flow.cond import cond_p
from didax.control_flow.scan import scan_p
from didax.control_flow.while_loop import while_p
from didax.interpreters import stepping
from didax.jaxpr import eval_jaxpr

X = jnp.array([0.5, 1.0, 2.0])


def drive(closed, *args):
    """All events of a run, and its outputs."""
    run = stepping.step_jaxpr(closed.jaxpr, closed.consts, args)
    events = []
    while True:
        try:
            events.append(next(run))
        except StopIteration as stop:
            return events, stop.value


def control(x):
    y = lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x)
    z = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0), (0, y))
    w = lax.scan(lambda c, a: (c + a, c * a), 0.0, x, reverse=True)
    return didax.jit(double)(z[1]) + w[1]


def double(q):
    return q * 2


def test_pauses_before_each_equation_and_before_returning():
    closed = didax.make_jaxpr(lambda x: jnp.sin(x) * 3.0)(X)
    events, outs = drive(closed, X)
    pauses = [e for e in events if isinstance(e, stepping.Pause)]
    assert [p.eqn for p in pauses] == [*closed.eqns, None]
    assert {p.where for p in pauses} == {"program"}
    bound = [e for e in events if isinstance(e, stepping.Bound)]
    assert [b.var for b in bound] == [e.outvars[0] for e in closed.eqns]
    np.testing.assert_allclose(np.asarray(outs[0]), np.sin(np.asarray(X)) * 3.0, rtol=1e-6)


@pytest.mark.parametrize("prim", [jit_p, cond_p, while_p, scan_p], ids=lambda p: p.name)
def test_higher_order_primitives_register_step_rules(prim):
    assert prim in stepping.step_rules


@pytest.mark.parametrize("x", [X, -X], ids=["true", "false"])
def test_steps_into_bodies_with_the_same_values_as_eval(x):
    closed = didax.make_jaxpr(control)(x)
    events, outs = drive(closed, x)
    expected = eval_jaxpr(closed.jaxpr, closed.consts, x)
    np.testing.assert_allclose(np.asarray(outs[0]), np.asarray(expected[0]), rtol=1e-6)
    wheres = {e.where for e in events}
    branch = 1 if x is X else 0
    assert f"program > cond branch {branch}" in wheres
    assert f"program > cond branch {1 - branch}" not in wheres
    assert {"program > while iteration 3", "program > scan iteration 3 of 3"} <= wheres
    assert "program > while iteration 4" not in wheres
    assert "program > jit double" in wheres
    # inside a body, the pauses are the body's equations, then its return
    body = [e for e in events if isinstance(e, stepping.Pause) and e.where.endswith("jit double")]
    assert [p.eqn for p in body] == [*body[0].jaxpr.eqns, None]


def test_a_primitive_without_a_step_rule_is_bound_whole():
    closed = didax.make_jaxpr(lambda x: lax.sort(jnp.sin(x)))(X)
    events, outs = drive(closed, X)
    assert {e.where for e in events} == {"program"}
    np.testing.assert_allclose(np.asarray(outs[0]), np.sort(np.sin(np.asarray(X))), rtol=1e-6)


def test_an_empty_scan_and_a_wrong_argument_count():
    closed = didax.make_jaxpr(lambda xs: lax.scan(lambda c, a: (c + a, c * a), 0.0, xs))(
        jnp.zeros((0,))
    )
    _, (carry, ys) = drive(closed, jnp.zeros((0,)))
    assert float(carry) == 0.0 and np.shape(ys) == (0,)
    with pytest.raises(TypeError, match="takes 1 arguments, got 2"):
        next(stepping.step_jaxpr(closed.jaxpr, closed.consts, [X, X]))
