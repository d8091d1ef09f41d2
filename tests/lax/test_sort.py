"""`lax.sort` (`sort_p`) against JAX: values (NaN, -0.0, ties, several keys), eval == jit,
vmap at each axis, jvp and grad (tangents sorted with the keys, cotangents by the inverse
permutation), and the jaxpr text."""

from __future__ import annotations

import didax
import didax.lax as dlax
import numpy as np
import pytest

jax = pytest.importorskip("jax")
from helpers.jaxpr_text import canonical

pytestmark = pytest.mark.oracle

X = np.array([[3.0, np.nan, -0.0, 0.0, 1.0, 1.0], [2, 1, 5, 4, 3, 0]], np.float32)
W = np.arange(6.0, dtype=np.float32)


@pytest.mark.parametrize("dimension", [0, 1, -1])
def test_sort_values_eval_and_jit(dimension):
    want = jax.lax.sort(X, dimension=dimension)
    for fn in (dlax.sort, didax.jit(dlax.sort, static_argnums=1)):
        got = fn(X, dimension)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        assert np.signbit(np.asarray(got)).tolist() == np.signbit(np.asarray(want)).tolist()


def test_sort_several_keys_and_payload():
    k1 = np.array([1, 0, 1, 0, 1], np.int32)
    k2 = np.array([2.0, 3.0, 1.0, 3.0, 2.0], np.float32)
    v = np.arange(5, dtype=np.int32)
    for num_keys in (1, 2):
        want = jax.lax.sort((k1, k2, v), num_keys=num_keys)
        for fn in (dlax.sort, didax.jit(dlax.sort, static_argnums=(1, 2, 3))):
            got = fn((k1, k2, v), -1, True, num_keys)
            for g, w in zip(got, want, strict=True):
                np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
                assert np.asarray(g).dtype == w.dtype


@pytest.mark.parametrize("in_axes", [0, 1])
def test_sort_vmap(in_axes):
    got = didax.vmap(dlax.sort, in_axes=in_axes)(X)
    want = jax.vmap(jax.lax.sort, in_axes=in_axes)(X)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_sort_jvp_and_grad():
    x = X[1]
    t = np.linspace(-1, 1, 6).astype(np.float32)
    got = didax.jvp(dlax.sort, (x,), (t,))
    want = jax.jvp(jax.lax.sort, (x,), (t,))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w))

    def loss(lax):
        return lambda x: (lax.sort(x) * W).sum()

    want = jax.grad(loss(jax.lax))(x)
    for fn in (didax.grad(loss(dlax)), didax.jit(didax.grad(loss(dlax)))):
        np.testing.assert_allclose(np.asarray(fn(x)), np.asarray(want))
    got = didax.vmap(didax.grad(loss(dlax)))(X)
    want = jax.vmap(jax.grad(loss(jax.lax)))(X)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want))


def test_sort_grad_of_payload():
    keys = np.array([2.0, 0.0, 1.0], np.float32)

    def loss(lax):
        return lambda v: (lax.sort((keys, v), num_keys=1)[1] * W[:3]).sum()

    v = np.ones(3, np.float32)
    np.testing.assert_allclose(
        np.asarray(didax.grad(loss(dlax))(v)), np.asarray(jax.grad(loss(jax.lax))(v))
    )


def test_sort_jaxpr_text():
    got = str(didax.make_jaxpr(lambda x: dlax.sort(x, dimension=0))(X))
    want = str(jax.make_jaxpr(lambda x: jax.lax.sort(x, dimension=0))(X))
    assert canonical(got) == canonical(want)


def test_sort_errors():
    with pytest.raises(TypeError):  # JAX: TypeError, ValueError
        dlax.sort((np.ones(3), np.ones(4)))
    with pytest.raises(ValueError):
        dlax.sort((np.ones(3),), num_keys=2)


@pytest.mark.parametrize("dims", [(0,), (1,), (0, 1)])
def test_rev_eval_jit_vmap_grad(dims):
    want = jax.lax.rev(X, dims)
    for fn in (dlax.rev, didax.jit(dlax.rev, static_argnums=1)):
        np.testing.assert_array_equal(np.asarray(fn(X, dims)), np.asarray(want))
    got = didax.vmap(lambda x: dlax.rev(x, (0,)), in_axes=1)(X)
    np.testing.assert_array_equal(
        np.asarray(got), np.asarray(jax.vmap(lambda x: jax.lax.rev(x, (0,)), in_axes=1)(X))
    )
    w = np.arange(12.0, dtype=np.float32).reshape(2, 6)
    x = X[:, :2].repeat(3, axis=1)
    got = didax.grad(lambda x: (dlax.rev(x, dims) * w).sum())(np.nan_to_num(x))
    want = jax.grad(lambda x: (jax.lax.rev(x, dims) * w).sum())(np.nan_to_num(x))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want))
    assert str(didax.make_jaxpr(lambda x: dlax.rev(x, dims))(X)) == str(
        jax.make_jaxpr(lambda x: jax.lax.rev(x, dims))(X)
    )
