"""Signed zeros, eager against JAX's compiled results: XLA orders -0.0 below +0.0 in `min` and
`max` (NumPy returns the first of two equal operands), and its running sums combine every entry
with the scan's +0.0 padding. Eager didax follows XLA; each row here once differed (found by
the edge-value property test, issue 21), one of them by dtype: `minimum(float32 array, 0.0)`
came back float64, so `nn.celu` raised a TypeError."""

from __future__ import annotations

import didax
import didax.numpy as jnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")

pytestmark = pytest.mark.oracle

Z = np.array([-0.0, 0.0, -0.0, -0.0, 1.0, -1.0], np.float32)


def _cases(lib):
    lax, np_ = lib.lax, lib.numpy
    return {
        "minimum(x, 0.0)": lambda x: np_.minimum(x, 0.0),
        "minimum(0.0, x)": lambda x: np_.minimum(0.0, x),
        "maximum(x, -0.0)": lambda x: np_.maximum(x, -0.0),
        "lax.min(x, reversed x)": lambda x: lax.min(x, x[::-1]),
        "reduce_window min": lambda x: lax.reduce_window(x, np.inf, lax.min, (2,), (1,), "VALID"),
        "reduce_window max": lambda x: lax.reduce_window(x, -np.inf, lax.max, (3,), (1,), "SAME"),
        "lax.cumsum": lambda x: lax.cumsum(x),
        "lax.cumsum reverse": lambda x: lax.cumsum(x, reverse=True),
        "numpy.cumsum": lambda x: np_.cumsum(x),
        "lax.cumlogsumexp": lambda x: lax.cumlogsumexp(x),
        "nn.celu": lambda x: lib.nn.celu(x),
        "lax.conj of a real array": lambda x: lax.conj(x),
    }


@pytest.mark.parametrize("name", list(_cases(didax)))
def test_eager_signed_zeros_match_jax_jit(name: str) -> None:
    want = np.asarray(jax.jit(_cases(jax)[name])(Z))
    got = np.asarray(_cases(didax)[name](jnp.asarray(Z)))
    assert got.dtype == want.dtype, name
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)  # exact up to the last bit
    for part in (np.real, np.imag):
        np.testing.assert_array_equal(np.signbit(part(got)), np.signbit(part(want)), err_msg=name)
