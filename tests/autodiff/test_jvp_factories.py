"""The jvp rule factories (`rules.zero_jvp`, `ad_helpers.linear_jvp`,
`elementwise.partials_jvp`): a symbolic-zero tangent costs no equation."""

from __future__ import annotations

from typing import Any

import didax
import numpy as np
import pytest
from didax import lax

X = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)
Y = X[::-1] + 0.5


@pytest.mark.parametrize("op", [lax.max, lax.min], ids=["max", "min"])
@pytest.mark.parametrize("which", [0, 1])
def test_jvp_in_one_operand_stages_no_unused_equation(op, which) -> None:
    # the other operand's partial (a select of `eq`s) is skipped for its zero tangent, as
    # JAX's defjvp skips it; it used to be staged and then read by nothing (`_:` outputs)
    def f(a, b, t):
        if which == 0:
            return didax.jvp(lambda a: op(a, b), (a,), (t,))
        return didax.jvp(lambda b: op(a, b), (b,), (t,))

    closed = didax.make_jaxpr(f)(X, Y, X)
    assert " _:" not in str(closed), closed
    primal, tangent = f(X, Y, X)
    wins = (X > Y) if (op is lax.max) == (which == 0) else (X < Y)
    np.testing.assert_allclose(np.asarray(tangent), np.where(wins, X, 0.0))


# The rules written with the factories (issue 21): each operand's tangent alone, then all
# together, against JAX's jvp (JAX's own defjvp rules); a zero tangent stages nothing unused.
B = np.linspace(0.25, 1.75, 6, dtype=np.float32).reshape(2, 3)
JVP_CASES = {
    "atan2": (lambda L: L.atan2, (X - 3.0, Y)),
    "pow": (lambda L: L.pow, (B, Y / 4.0)),
    "pow_int_exponent": (lambda L: L.pow, (B, np.array([[2, 0, 3], [1, 4, -1]], np.int32))),
    "rem": (lambda L: L.rem, (X, Y / 2.0)),
    "sub": (lambda L: L.sub, (X, np.float32(2.0))),
    "clamp": (lambda L: L.clamp, (np.full((2, 3), 2.0, np.float32), X, X * 0 + 4.5)),
    "polygamma_x": (lambda L: lambda x: L.polygamma(np.float32(1.0), x), (X,)),
    "triangular_solve": (
        lambda L: lambda a, b: L.linalg.triangular_solve(a, b, left_side=True, lower=True),
        (np.tril(X[:, :2].T @ X[:, :2]) + 3 * np.eye(2, dtype=np.float32), X[:, :3]),
    ),
    "split": (lambda L: lambda x: L.split(x, (1, 2), axis=1), (X,)),
    "reduce_window_max": (
        lambda L: lambda x: L.reduce_window(x, -np.inf, L.max, (1, 2), (1, 1), "VALID"),
        (X,),
    ),
    "reduce_window_sum": (
        lambda L: lambda x: L.reduce_window(x, 0.0, L.add, (2, 2), (1, 1), "SAME"),
        (X,),
    ),
}


def _in(which: list[int], op: Any, primals: tuple) -> Any:
    # `op` as a function of the operands at `which` only, the others closed over (so their
    # tangents are symbolic zeros)
    def f(*args: Any) -> Any:
        given = dict(zip(which, args, strict=True))
        return op(*(given.get(i, p) for i, p in enumerate(primals)))

    return f


@pytest.mark.parametrize("name", list(JVP_CASES))
def test_factory_rules_match_jax(name) -> None:
    jax = pytest.importorskip("jax")
    make, primals = JVP_CASES[name]
    floats = [i for i, p in enumerate(primals) if np.asarray(p).dtype.kind == "f"]
    for which in [[i] for i in floats] + [floats]:
        args = tuple(primals[i] for i in which)
        t = tuple((np.asarray(a) * 0.5 + 1.0).astype(np.float32) for a in args)
        got = didax.jvp(_in(which, make(lax), primals), args, t)
        want = jax.jvp(_in(which, make(jax.lax), primals), args, t)
        for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)
        closed = didax.make_jaxpr(
            lambda *t: didax.jvp(_in(which, make(lax), primals), args, t)  # noqa: B023
        )(*t)
        assert " _:" not in str(closed), closed


def test_polygamma_has_no_gradient_in_its_order() -> None:
    # JAX raises ValueError ("polygamma gradient with respect to m is not supported")
    jax = pytest.importorskip("jax")
    with pytest.raises(ValueError, match="polygamma gradient with respect to"):
        jax.grad(lambda m: jax.lax.polygamma(m, 2.0))(1.0)
    with pytest.raises(ValueError, match="polygamma gradient with respect to the order m"):
        didax.grad(lambda m: lax.polygamma(m, 2.0))(1.0)
