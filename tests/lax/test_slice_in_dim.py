"""`lax.slice_in_dim` against JAX 0.10.2: None bounds, negative indices, a stride, any axis;
values eagerly and under jit, and the `slice` equation JAX's jaxpr shows."""

from __future__ import annotations

import didax
import numpy as np
import pytest

jax = pytest.importorskip("jax")
from helpers.jaxpr_text import canonical

pytestmark = pytest.mark.oracle

X = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
CASES = [
    (0, 1, 1, 0),
    (None, None, 1, 2),
    (1, None, 1, 1),
    (-3, -1, 1, 2),
    (0, 4, 2, 2),
    (None, -1, 1, 1),
]


@pytest.mark.parametrize("start, limit, stride, axis", CASES)
def test_slice_in_dim_as_jax(start, limit, stride, axis):
    def ours(x):
        return didax.lax.slice_in_dim(x, start, limit, stride, axis)

    def theirs(x):
        return jax.lax.slice_in_dim(x, start, limit, stride, axis)

    want = np.asarray(theirs(X))
    for fn in (ours, didax.jit(ours)):
        got = np.asarray(fn(X))
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    got = str(didax.make_jaxpr(ours)(X))
    assert canonical(got) == canonical(str(jax.make_jaxpr(theirs)(X))), got
