"""`lax.ceil`, `lax.cbrt`, `lax.exp2` (`ceil_p`, `cbrt_p`, `exp2_p`: JAX's primitives of those
names) against JAX: the rules (`check_rules`), values eagerly and under jit (negative cube
roots, infinities, NaN) within 1e-6, gradients and their jaxprs as JAX 0.10.2 prints them.
The jaxprs of the values and the TypeError for integers are rows of `op_cases/elementwise.py`
(with jvp, vmap and the other op-table tests)."""

from __future__ import annotations

import didax
import numpy as np
import pytest
from didax.primitives.elementwise import cbrt_p, ceil_p, exp2_p
from didax.test_util import check_rules

jax = pytest.importorskip("jax")
from helpers.jaxpr_text import canonical

pytestmark = pytest.mark.oracle

X = np.array([1.5, -2.5, 3.0, -0.2, 0.7], np.float32)
SPECIAL = np.array([-8.0, -0.0, 0.0, np.inf, -np.inf, np.nan, 27.0, -2.5], np.float32)
PRIMS = {"ceil": ceil_p, "cbrt": cbrt_p, "exp2": exp2_p}


@pytest.mark.parametrize("name", sorted(PRIMS))
def test_rules(name):
    check_rules(PRIMS[name], X + 0.1)  # off the integers, where ceil jumps


@pytest.mark.parametrize("name", sorted(PRIMS))
def test_values_within_1e_6(name):  # tighter than op_cases' float32 tolerance
    ours, theirs = getattr(didax.lax, name), getattr(jax.lax, name)
    for x in (X, SPECIAL):
        want = np.asarray(theirs(x))
        for fn in (ours, didax.jit(ours)):
            got = np.asarray(fn(x))
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name", ["cbrt", "exp2"])
def test_grads_and_their_jaxprs(name):
    loss = lambda lib: lib.grad(lambda x: getattr(lib.lax, name)(x).sum())  # noqa: E731
    np.testing.assert_allclose(np.asarray(loss(didax)(X)), loss(jax)(X), rtol=1e-5)
    got = str(didax.make_jaxpr(loss(didax))(X))
    assert canonical(got) == canonical(str(jax.make_jaxpr(loss(jax))(X))), got
