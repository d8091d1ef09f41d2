"""`lax.cumsum`/`cumprod` (`cumsum_p`, `cumprod_p`) and `jnp.cumsum`/`cumprod` against JAX:
forward and reverse values, the primitive's rules (`check_rules`: jvp, transpose, vmap,
lowering), gradients through a zero. The values, dtypes (bool, int8, weak scalars, `dtype=`)
and jaxprs of `jnp.cumsum`/`cumprod` are rows of `op_cases/cumulative.py`."""

from __future__ import annotations

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax.primitives.cumulative import cumprod_p, cumsum_p
from didax.test_util import check_rules
from helpers.oracle import jax_quick

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

pytestmark = pytest.mark.oracle

X = np.random.default_rng(5).normal(size=(3, 5)).astype(np.float32)


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_rules_and_values(axis, reverse):
    check_rules(cumsum_p, X, axis=axis, reverse=reverse)
    want = jax.lax.cumsum(X, axis, reverse)
    for fn in (didax.lax.cumsum, didax.jit(didax.lax.cumsum, static_argnums=(1, 2))):
        np.testing.assert_allclose(np.asarray(fn(X, axis, reverse)), want, rtol=1e-5, atol=1e-5)
    ints = (X * 10).astype(np.int32)
    got = didax.jit(didax.lax.cumsum, static_argnums=(1, 2))(ints, axis, reverse)
    np.testing.assert_array_equal(np.asarray(got), jax.lax.cumsum(ints, axis, reverse))


def test_jnp_cumsum_grad_and_vmap():
    loss = lambda m: lambda x: (m.cumsum(x, axis=1) ** 2).sum()  # noqa: E731
    np.testing.assert_allclose(didax.grad(loss(jnp))(X), jax.grad(loss(jjnp))(X), rtol=1e-5)
    np.testing.assert_allclose(
        didax.vmap(jnp.cumsum, in_axes=1)(X), jax.vmap(jjnp.cumsum, in_axes=1)(X), rtol=1e-5
    )


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumprod_rules_values_and_grads(axis, reverse):
    check_rules(cumprod_p, X, axis=axis, reverse=reverse)
    with_zero = X.copy()
    with_zero[1, 2] = 0.0  # the product rule needs no division by the input
    loss = lambda lib: lambda x: lib.lax.cumprod(x, axis, reverse).sum()  # noqa: E731
    # JAX's side as one program (eagerly, each of its operations is a compile of its own)
    want, want_grad = jax_quick(
        lambda x, z: (jax.lax.cumprod(x, axis, reverse), jax.grad(loss(jax))(z)), X, with_zero
    )
    got = didax.jit(didax.lax.cumprod, static_argnums=(1, 2))(X, axis, reverse)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)
    for grad in (didax.grad(loss(didax)), didax.jit(didax.grad(loss(didax)))):
        np.testing.assert_allclose(np.asarray(grad(with_zero)), want_grad, rtol=1e-4, atol=1e-5)
