"""Oracle: the incomplete gamma and beta functions (`lax.igamma`, `igammac`,
`igamma_grad_a`, `random_gamma_grad`, `betainc`) in half precisions, and at the domain
edges where SciPy's answers (didax's eager values) differ from XLA's algorithm (JAX's)."""

from __future__ import annotations

import itertools

import didax
import ml_dtypes
import numpy as np
import pytest

jax = pytest.importorskip("jax")
from helpers.oracle import JaxOracle

pytestmark = pytest.mark.oracle

BINARY = ["igamma", "igammac", "igamma_grad_a", "random_gamma_grad"]
# SciPy and XLA agree away from the huge arguments (a = x = 3e9 or 65504, where XLA's
# float32 series loses all digits: see the module docstring of didax.lax.incomplete_gamma)
EDGES = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, 1.0, 1.5, 2.0, 300.7, -2.5])


HALVES = [np.float16, ml_dtypes.bfloat16]


def _half_args(name, dtype):
    a = np.array([0.5, 2.0, 3.0], dtype)
    x = np.array([0.1, 0.3, 0.8], dtype)
    return [a, a[::-1], x] if name == "betainc" else [a, x * 5]


# JAX's answers for every name and dtype, one program (JaxOracle): eagerly, each a compile
HALF_ORACLE = JaxOracle(
    {
        "half": [
            ((name, dtype), getattr(jax.lax, name), _half_args(name, dtype))
            for name in [*BINARY, "betainc"]
            for dtype in HALVES
        ]
    }
)


@pytest.mark.parametrize("dtype", HALVES, ids=["f16", "bf16"])
@pytest.mark.parametrize("name", [*BINARY, "betainc"])
@pytest.mark.parametrize("jitted", [False, True])
def test_half_precision_computes_in_float32(name, dtype, jitted):
    args = _half_args(name, dtype)
    fn = getattr(didax.lax, name)
    got = (didax.jit(fn) if jitted else fn)(*args)
    want = HALF_ORACLE.result("half", (name, dtype))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.float32(got), np.float32(want), rtol=1e-2)


@pytest.mark.parametrize("name", ["igamma", "igammac", "igamma_grad_a"])
def test_eager_edges_are_xla_s(name):
    a, x = (np.array(v, np.float32) for v in zip(*itertools.product(EDGES, EDGES)))
    with np.errstate(all="ignore"):
        got = np.asarray(getattr(didax.lax, name)(a, x))
    want = np.asarray(getattr(jax.lax, name)(a, x))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    # rtol: at a = x = 300.7 XLA's float32 series is off by 1.2e-4 (SciPy's is right)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-6)


def test_betainc_eager_edges_are_xla_s():
    grid = itertools.product(EDGES, EDGES, [np.nan, -0.5, 0.0, 0.25, 1.0, 1.5])
    a, b, x = (np.array(v, np.float32) for v in zip(*grid))
    with np.errstate(all="ignore"):
        got = np.asarray(didax.lax.betainc(a, b, x))
    want = np.asarray(jax.lax.betainc(a, b, x))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_igamma_grad_a_runs_long_series_compiled():
    # at a = x = 3e9 float32's r + 1 == r: XLA's series takes ~8e6 steps
    a = np.float32(3e9)
    got = didax.lax.igamma_grad_a(a, a)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(jax.lax.igamma_grad_a(a, a)))
