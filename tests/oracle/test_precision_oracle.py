"""`precision=` against JAX: accepted by lax.dot, dot_general, conv and jnp.dot, matmul,
einsum, tensordot, vecdot (levels, their strings and pairs), recorded in the jaxpr as JAX
records it, and lowered to StableHLO's precision_config as JAX lowers it."""

from __future__ import annotations

import re

import didax
import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
from helpers.jaxpr_text import canonical

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(2)
A = RNG.normal(size=(2, 3)).astype(np.float32)
B = RNG.normal(size=(3, 4)).astype(np.float32)
C = RNG.normal(size=(2, 3)).astype(np.float32)
IMG = RNG.normal(size=(1, 2, 5, 5)).astype(np.float32)
KER = RNG.normal(size=(3, 2, 2, 2)).astype(np.float32)

PRECISIONS = [
    None,
    "highest",
    "float32",
    "high",
    "bfloat16_3x",
    "tensorfloat32",
    "default",
    "fastest",
    ("high", "default"),
]


def _cases(lib, np_lib, precision):
    P = lib.lax.Precision
    p = precision
    return [
        (lambda a, b: np_lib.dot(a, b, precision=p), (A, B)),
        (lambda a, b: np_lib.matmul(a, b, precision=p), (A, B)),
        (lambda a, b: np_lib.einsum("ij,jk->ik", a, b, precision=p), (A, B)),
        (lambda a, b: np_lib.tensordot(a, b, axes=1, precision=p), (A, B)),
        (lambda a, c: np_lib.vecdot(a, c, precision=p), (A, C)),
        (lambda a, c: np_lib.inner(a, c, precision=p), (A, C)),
        (lambda a, c: np_lib.vdot(a, c, precision=p), (A, C)),
        (lambda a, b: np_lib.linalg.matmul(a, b, precision=p), (A, B)),
        (lambda a, b: lib.lax.dot(a, b, precision=p), (A, B)),
        (lambda a, b: lib.lax.dot_general(a, b, (((1,), (0,)), ((), ())), precision=p), (A, B)),
        (lambda x, w: lib.lax.conv(x, w, (1, 1), "SAME", precision=p), (IMG, KER)),
        (lambda a, b: np_lib.dot(a, b, precision=P.HIGHEST), (A, B)),
    ]


def _hlo_precisions(text: str) -> list[str]:
    return re.findall(r"precision(?:_config)? = \[[^\]]*\]", text)


@pytest.mark.parametrize("precision", PRECISIONS, ids=str)
def test_precision_in_jaxprs_values_and_lowering(precision):
    for (f, args), (jf, _) in zip(
        _cases(didax, dnp, precision), _cases(jax, jnp, precision), strict=True
    ):
        got, want = str(didax.make_jaxpr(f)(*args)), str(jax.make_jaxpr(jf)(*args))
        assert canonical(got) == canonical(want), (got, want)
        np.testing.assert_allclose(
            np.asarray(f(*args)), np.asarray(jf(*args)), rtol=1e-5, atol=1e-5
        )
        got_hlo = didax.jit(f).lower(*args).as_text()
        want_hlo = jax.jit(jf).lower(*args).as_text()
        assert _hlo_precisions(got_hlo) == _hlo_precisions(want_hlo), (got_hlo, want_hlo)


def test_precision_values_and_errors():
    P, JP = didax.lax.Precision, jax.lax.Precision
    for name in ("highest", "float32", "high", "default", "bfloat16", "fastest", "tensorfloat32"):
        assert P(name).name == JP(name).name
    assert repr(P.HIGH) == "Precision.HIGH"
    for bad in ("foo", 3, (P.HIGH,)):
        with pytest.raises(ValueError):
            jax.lax.dot(A, B, precision=bad)
        with pytest.raises(ValueError, match="Precision argument must be one of"):
            didax.lax.dot(A, B, precision=bad)
    with pytest.raises(ValueError, match="dimension_numbers must be specified"):
        didax.lax.dot(A, A)


def test_precision_survives_grad():
    f = lambda lib: (
        lambda x, w: lib.lax.conv(x, w, (1, 1), "SAME", precision=("high", "highest")).sum()
    )  # noqa: E731
    got = str(didax.make_jaxpr(didax.grad(f(didax)))(IMG, KER))
    want = str(jax.make_jaxpr(jax.grad(f(jax)))(IMG, KER))
    assert canonical(got) == canonical(want), (got, want)
