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
from helpers.oracle import EagerJax

pytestmark = pytest.mark.oracle

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


SHAPES = [(4, 4), (5, 3), (3, 5)]


def _input(index, shape):
    """The matrix of case `index` at `shape` (its own seed: the same in any test order)."""
    return np.random.default_rng([9, index, *shape]).normal(size=shape).astype(np.float32)


def _call(m, index):
    name, kwargs = CASES[index]
    return lambda a: getattr(m, name)(a, **kwargs)


def _loss(m, index):
    return lambda a: sum((y**2).sum() for y in jax.tree.leaves(_call(m, index)(a)))


def _has_grad(index):
    name, kwargs = CASES[index]
    return name in ("lu", "qr") or kwargs.get("compute_uv") is False


# JAX's decomposition ("value") of every case and shape, and its gradient of the loss ("grad")
ANSWERS = [
    (kind, index, shape)
    for index in range(len(CASES))
    for shape in SHAPES
    if CASES[index][0] != "eigh" or shape[0] == shape[1]
    for kind in ("value", "grad")[: 1 + _has_grad(index)]
]


def _jax_calls():
    fns = {"value": _call, "grad": lambda m, index: jax.grad(_loss(m, index))}
    return [(fns[kind](jsl, index), (_input(index, shape),), {}) for kind, index, shape in ANSWERS]


# JAX's answers, as compiled programs (helpers/oracle.py; eagerly, each of JAX's operations
# is a compile of its own: up to 15 a test)
JAX_ANSWERS = EagerJax(_jax_calls, chunk=12)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{n}{k}" for n, k in CASES])
def test_scipy_linalg_decompositions(shape, index):
    name, kwargs = CASES[index]
    if name == "eigh" and shape[0] != shape[1]:
        return
    x = _input(index, shape)
    f = lambda m: _call(m, index)  # noqa: E731
    want = JAX_ANSWERS.result(ANSWERS.index(("value", index, shape)))
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
    if _has_grad(index):
        np.testing.assert_allclose(
            np.asarray(didax.grad(_loss(dsl, index))(x)),
            np.asarray(JAX_ANSWERS.result(ANSWERS.index(("grad", index, shape)))),
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
