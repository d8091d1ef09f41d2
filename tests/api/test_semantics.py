"""Semantics that used to differ from JAX 0.10.2 (issue 11, item 7), each against JAX:
custom_jvp/custom_vjp under jvp and grad call the rule on values without tracing the function
again; weak types survive broadcasting under grad; `jnp.array` of tracers stages JAX's
equations in JAX's order; `lax.stop_gradient` takes pytrees; the function `vjp` returns is a
pytree that goes into and out of `jit`."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
pytestmark = pytest.mark.oracle

LIBS = ((didax, dnp), (jax, jnp))


def _custom_jvp_program(lib, m):
    calls = []

    @lib.custom_jvp
    def f(x):
        calls.append("f")
        if x > 0:  # Python control flow on the value: fine when called on values
            return m.sin(x)
        return 0.0 * x

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        calls.append("rule")
        return f(x), m.cos(x) * t

    outs = [lib.jvp(f, (2.0,), (1.0,)), lib.grad(f)(2.0), lib.grad(lib.grad(f))(2.0)]
    return outs, calls


def test_custom_jvp_rule_on_values_without_retracing():
    (d_out, d_calls), (j_out, j_calls) = (_custom_jvp_program(*lib) for lib in LIBS)
    assert d_calls == j_calls
    for g, w in zip(jax.tree_util.tree_leaves(d_out), jax.tree_util.tree_leaves(j_out)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def _custom_vjp_program(lib, m):
    calls = []

    @lib.custom_vjp
    def f(x, y):
        calls.append("f")
        return m.sin(x) * y

    def fwd(x, y):
        calls.append("fwd")
        return f(x, y), (m.cos(x), m.sin(x), y)

    def bwd(res, g):
        calls.append("bwd")
        cos_x, sin_x, y = res
        return cos_x * g * y, sin_x * g

    f.defvjp(fwd, bwd)
    return [lib.grad(f)(2.0, 3.0), lib.grad(f, argnums=(0, 1))(1.0, 2.0)], calls


def test_custom_vjp_fwd_on_values_without_retracing():
    (d_out, d_calls), (j_out, j_calls) = (_custom_vjp_program(*lib) for lib in LIBS)
    assert d_calls == j_calls
    for g, w in zip(jax.tree_util.tree_leaves(d_out), jax.tree_util.tree_leaves(j_out)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
        assert np.asarray(g).dtype == np.asarray(w).dtype


@pytest.mark.parametrize(
    "make",
    [
        lambda m: lambda b: m.sum(m.ones(3) + b),
        lambda m: lambda b: m.sum(m.ones(3) * b),
        lambda m: lambda b: m.sum(m.sin(m.ones(3) * b)),
        lambda m: lambda b: m.sin(b) * 2.0,
    ],
)
def test_weak_type_survives_broadcasting_under_grad(make):
    got, want = didax.grad(make(dnp))(0.5), jax.grad(make(jnp))(0.5)
    assert repr(got) == repr(want)
    assert str(didax.make_jaxpr(didax.grad(make(dnp)))(0.5)) == str(
        jax.make_jaxpr(jax.grad(make(jnp)))(0.5)
    )


def test_array_of_tracers_staged_in_jax_order():
    def f(m):
        return lambda x, y: m.array([x * 2, y + 1, x])

    assert str(didax.make_jaxpr(f(dnp))(1.0, 2.0)) == str(jax.make_jaxpr(f(jnp))(1.0, 2.0))


def test_stop_gradient_on_pytrees():
    def loss(lib, m):
        def f(p):
            frozen = lib.lax.stop_gradient(p)
            return m.sum(frozen["a"] * p["a"]) + frozen["b"][0] * p["b"][0]

        return lib.grad(f)({"a": m.arange(3.0), "b": (m.float32(2.0),)})

    got, want = loss(didax, dnp), loss(jax, jnp)
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want)
    jax.tree_util.tree_map(
        lambda g, w: np.testing.assert_allclose(np.asarray(g), np.asarray(w)), got, want
    )


def _vjp_by_hand(lib, m):
    def f(x):
        return m.sin(x) * x

    @lib.jit
    def fwd(x):
        return lib.vjp(f, x)

    @lib.jit
    def bwd(f_vjp, ct):
        return f_vjp(ct)

    y, f_vjp = fwd(m.arange(3.0))
    return y, bwd(f_vjp, m.ones(3)), len(lib.tree_util.tree_leaves(f_vjp))


def test_vjp_function_is_a_pytree_through_jit():
    (dy, dct, dn), (jy, jct, jn) = (_vjp_by_hand(*lib) for lib in LIBS)
    assert dn == jn
    np.testing.assert_allclose(np.asarray(dy), np.asarray(jy), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(dct[0]), np.asarray(jct[0]), rtol=1e-6)


def test_partial_is_a_pytree():
    for lib in (didax, jax):
        p = lib.tree_util.Partial(lambda a, b: a + b, 1.0)
        assert lib.tree_util.tree_leaves(p) == [1.0]
        assert lib.jit(lambda q, x: q(x))(p, 2.0) == 3.0
