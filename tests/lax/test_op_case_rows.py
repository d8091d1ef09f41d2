"""The case rows of tests/op_cases_lax_helper.py against JAX: values under eval and jit,
the exception type where JAX raises, and gradients of the float arguments."""

from __future__ import annotations

import didax
import numpy as np
import pytest
from op_cases import close_over
from op_cases_lax_helper import CASES

jax = pytest.importorskip("jax")

pytestmark = pytest.mark.oracle


def _same(got, want, tol=2e-4):
    got, want = jax.tree.leaves(got), jax.tree.leaves(want)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, atol=tol, rtol=tol)


def _loss(fn):
    return lambda *xs: sum((y.astype("float32") ** 2).sum() for y in jax.tree.leaves(fn(*xs)))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_case_row(case):
    args = case.make_inputs(np.random.default_rng(case.seed))
    if case.raises is not None:
        with pytest.raises(case.raises):
            case.jax_fn(*args)
        with pytest.raises(case.raises):
            case.didax_fn(*args)
        return
    want = case.jax_fn(*args)
    _same(case.didax_fn(*args), want)
    arrays = case.array_positions
    f, xs = close_over(case.didax_fn, args, arrays)
    _same(didax.jit(f)(*xs), want)
    floats = case.float_positions
    if case.differentiable and floats:
        df, dxs = close_over(case.didax_fn, args, floats)
        jf, _ = close_over(case.jax_fn, args, floats)
        argnums = tuple(range(len(floats)))
        got = didax.grad(_loss(df), argnums=argnums)(*dxs)
        _same(got, jax.grad(_loss(jf), argnums=argnums)(*dxs), 2e-3)
