"""`didax.scipy.linalg.qr`, `svd`, `eigh`, `lu` against JAX: values, dtypes, result types,
jaxprs (qr, svd, eigh) and gradients."""

from __future__ import annotations

import didax
import didax.scipy.linalg as dsl
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jsl = pytest.importorskip("jax.scipy.linalg")
from helpers.jaxpr_text import canonical

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(9)

CASES = [
    ("qr", {}),
    ("qr", {"mode": "economic"}),
    ("qr", {"mode": "r"}),
    ("qr", {"pivoting": True}),
    ("qr", {"mode": "r", "pivoting": True}),
    ("svd", {}),
    ("svd", {"full_matrices": False}),
    ("svd", {"compute_uv": False}),
    ("lu", {}),
    ("lu", {"permute_l": True}),
    ("eigh", {}),
    ("eigh", {"eigvals_only": True, "lower": False}),
]


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)], ids=str)
@pytest.mark.parametrize("name, kwargs", CASES, ids=[f"{n}{k}" for n, k in CASES])
def test_scipy_linalg_decompositions(shape, name, kwargs):
    if name == "eigh" and shape[0] != shape[1]:
        return
    x = RNG.normal(size=shape).astype(np.float32)
    f = lambda m: lambda a: getattr(m, name)(a, **kwargs)  # noqa: E731
    want = f(jsl)(x)
    got = f(dsl)(x)
    assert isinstance(got, tuple) == isinstance(want, tuple)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), atol=1e-4, rtol=1e-4)
    jitted = didax.jit(f(dsl))(x)
    for g, w in zip(jax.tree.leaves(jitted), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), atol=1e-4, rtol=1e-4)
    if name != "lu":  # (lu's inner tril/triu are no inner jits in didax.numpy)
        got_j, want_j = str(didax.make_jaxpr(f(dsl))(x)), str(jax.make_jaxpr(f(jsl))(x))
        assert canonical(got_j) == canonical(want_j), (got_j, want_j)
    if name in ("lu", "qr") or kwargs.get("compute_uv") is False:
        loss = lambda m: lambda a: sum((y**2).sum() for y in jax.tree.leaves(f(m)(a)))  # noqa: E731
        np.testing.assert_allclose(
            np.asarray(didax.grad(loss(dsl))(x)),
            np.asarray(jax.grad(loss(jsl))(x)),
            atol=2e-3,
            rtol=2e-3,
        )


def test_scipy_eigh_not_implemented_cases():
    a = np.eye(3, dtype=np.float32)
    for kwargs in ({"b": a}, {"type": 2}, {"eigvals": (0, 1)}):
        with pytest.raises(NotImplementedError):
            dsl.eigh(a, **kwargs)
    with pytest.raises(ValueError, match="Unsupported QR decomposition mode"):
        dsl.qr(a, mode="raw")
