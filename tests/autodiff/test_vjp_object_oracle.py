"""Oracle: the object `vjp` returns (JAX 0.10.2's `VJP`, issue 24 item 4): callable with
the output's cotangent, a pytree carrying its residuals into and out of `jit`, with JAX's
`in_tree`, `out_tree`, `opaque_residuals` and `jaxpr` (the linearized program)."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

pytestmark = pytest.mark.oracle

LIBS = [(didax, dnp), (jax, jnp)]
X = np.array([0.3, -1.2, 2.0], np.float32)


def _f(np_):
    return lambda x, y: (np_.sin(x) * y, {"s": np_.sum(x * x)})


def _vjp(m, np_):
    out, f_vjp = m.vjp(_f(np_), X, np.float32(2.0))
    return out, f_vjp


def test_vjp_object_attributes_match_jax():
    (_, got), (_, want) = (_vjp(*lib) for lib in LIBS)
    assert type(got).__name__ == type(want).__name__ == "VJP"
    assert str(got.in_tree) == str(want.in_tree)
    assert str(got.out_tree) == str(want.out_tree)
    # the linearized program: one tangent per float input, one per output
    assert [str(v.aval.str_short()) for v in got.jaxpr.invars] == ["f32[3]", "f32[]"]
    assert len(got.jaxpr.outvars) == len(want.jaxpr.outvars) == 2
    assert all(isinstance(r, didax.Array) for r in got.opaque_residuals)
    assert len(got.opaque_residuals) == len(got.jaxpr.constvars)


def test_vjp_object_cotangents_match_jax():
    ct = (np.array([1.0, 2.0, 3.0], np.float32), {"s": np.float32(0.5)})
    (_, got), (_, want) = (_vjp(*lib) for lib in LIBS)
    for g, w in zip(got(ct), want(ct), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def test_vjp_object_is_a_pytree_through_jit():
    results = []
    for m, np_ in LIBS:
        f_vjp = m.jit(lambda x, m=m, np_=np_: m.vjp(np_.sin, x)[1])(X)
        assert type(f_vjp).__name__ == "VJP"
        leaves = m.tree_util.tree_leaves(f_vjp)
        assert leaves and all(hasattr(x, "shape") for x in leaves)
        g = m.jit(lambda v, ct: v(ct))(f_vjp, np.ones(3, np.float32))
        results.append(np.asarray(g[0]))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)
    np.testing.assert_allclose(results[0], np.cos(X), rtol=1e-6)


def test_vjp_object_rejects_extra_arguments_like_jax():
    for m, np_ in LIBS:
        _, f_vjp = _vjp(m, np_)
        with pytest.raises(TypeError):
            f_vjp(1.0, 2.0)


def test_closed_over_numpy_constant_is_one_constvar_of_a_staged_grad():
    # the pullback gets the array the forward pass used, not an Array made from it: a staged
    # grad then refers to one constant, as JAX's jaxpr does (two constvars before)
    ct = np.array([1.0, 2.0, 3.0], np.float32)
    texts = [
        str(m.make_jaxpr(m.grad(lambda x, np_=np_: (np_.sin(x) * ct).sum()))(X)) for m, np_ in LIBS
    ]
    assert [t.split(".", 1)[0] for t in texts] == ["{ lambda a:f32[3]; b:f32[3]"] * 2, texts
