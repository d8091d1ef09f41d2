"""Oracle: `custom_gradient` and `closure_convert` (issue 24, item 4) against JAX 0.10.2:
values and gradients under grad/jit/vmap, the staged gradient's jaxpr, the TypeError of
forward mode, a vjp returning a bare cotangent, and closure_convert's hoisted tracers and its
pytree check.
"""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from helpers.jaxpr_text import canonical

jax = pytest.importorskip("jax")
jnp = jax.numpy

pytestmark = pytest.mark.oracle

LIBS = [(didax, dnp), (jax, jnp)]


def _square(m):
    @m.custom_gradient
    def f(x):
        return x**2, lambda g: (g * x,)  # deliberately not 2x: the rule is what grad uses

    return f


def _two_args(m, np_):
    @m.custom_gradient
    def h(x, y):
        return np_.sin(x) * y, lambda g: (g * 2.0, g * 3.0 * x)

    return h


def _clip_gradient(m, np_):
    @m.custom_gradient
    def clip(x):
        return x, lambda g: (np_.clip(g, -1.0, 1.0),)

    return clip


CASES = {
    "value": lambda m, np_: _square(m)(3.0),
    "grad": lambda m, np_: m.grad(_square(m))(3.0),
    "jit grad": lambda m, np_: m.jit(m.grad(_square(m)))(3.0),
    "vmap grad": lambda m, np_: m.vmap(m.grad(_square(m)))(np_.arange(3.0)),
    "two args": lambda m, np_: m.grad(_two_args(m, np_), argnums=(0, 1))(1.0, 2.0),
    "clip sum": lambda m, np_: m.grad(lambda x: _clip_gradient(m, np_)(x * 5.0).sum())(np_.ones(3)),
    "clip chain": lambda m, np_: m.grad(lambda x: 3 * _clip_gradient(m, np_)(np_.sin(x)))(2.0),
    "grad of jit": lambda m, np_: m.grad(m.jit(lambda x: _two_args(m, np_)(x, x)))(0.5),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_custom_gradient_matches_jax(case):
    got, want = (CASES[case](m, np_) for m, np_ in LIBS)
    got_leaves, want_leaves = (
        lib.tree_util.tree_leaves(v) for lib, v in ((didax, got), (jax, want))
    )
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def test_custom_gradient_jaxpr_matches_jax():
    got, want = (canonical(str(m.make_jaxpr(m.grad(_square(m)))(3.0))) for m, _ in LIBS)
    assert got == want


def test_custom_gradient_forward_mode_raises_like_jax():
    for m, _ in LIBS:
        with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
            m.jvp(_square(m), (1.0,), (1.0,))


def test_a_bare_cotangent_is_taken_for_one_argument():
    for m, _ in LIBS:

        @m.custom_gradient
        def f(x):
            return x, lambda g: g * 7.0  # not a tuple

        assert float(m.grad(f)(1.0)) == 7.0


def _outer(m, np_, seen):
    def outer(x):
        def g(y):
            return np_.sin(x * y)

        conv, consts = m.closure_convert(g, 1.0)
        seen.append(len(consts))
        return conv(2.0, *consts)

    return outer


def test_closure_convert_hoists_the_tracers_it_closes_over():
    results = []
    for m, np_ in LIBS:
        seen: list[int] = []
        outer = _outer(m, np_, seen)
        vals = [float(outer(1.5)), float(m.grad(outer)(1.5))]
        text = canonical(str(m.make_jaxpr(outer)(1.5)))
        results.append((seen, text))
        np.testing.assert_allclose(vals, [np.sin(3.0), 2 * np.cos(3.0)], rtol=1e-6)
    assert results[0] == results[1]
    assert results[0][0] == [0, 1, 1]  # eager: nothing to hoist; traced: x


def test_closure_convert_checks_the_pytree():
    for m, _ in LIBS:
        conv, consts = m.closure_convert(lambda y: y * 2, 1.0)
        assert consts == [] and float(conv(3.0)) == 6.0
        with pytest.raises(TypeError, match="same Pytree structure"):
            conv((1.0, 2.0))


def test_closure_convert_under_grad_of_two_arguments():
    def run(m, np_):
        def solve(x, w):
            conv, consts = m.closure_convert(lambda y: np_.tanh(w * y), x)  # closes over w
            return conv(x, *consts) * 2

        return m.grad(solve, argnums=(0, 1))(0.3, 1.7)

    got, want = (run(m, np_) for m, np_ in LIBS)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
