"""The `jax.numpy` names issue 24 adds (the list in `numpy_missing_names.txt`, emptied),
against JAX 0.10.2: values, dtypes, weak types and shapes eagerly and under `jit` (static
keyword arguments), the exception type where JAX raises, and gradients where JAX defines
them. One row per call."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
pytestmark = [pytest.mark.oracle, pytest.mark.filterwarnings("ignore::RuntimeWarning")]

F = np.array([0.5, -3.25, 0.0, np.inf, -np.inf, np.nan, 7.0], np.float32)
X = np.arange(12, dtype=np.float32).reshape(3, 4)
V = np.array([5, 1, 4, 1, 3, 9, 2, 6], np.int32)
I3 = np.array([0, 1, 2, 1], np.int32)
CHOICES = [np.arange(4), np.arange(4) * 10, np.arange(4) * 100]
C = np.array([1 + 2j, -1 + 0.5j], np.complex64)

# (name, args, kwargs, jit?): kwargs are static under jit
CASES = [
    ("frexp", (F,), {}, True),
    ("frexp", (3,), {}, True),
    ("frexp", (np.array([1, 2, -3], np.int32),), {}, True),
    ("frexp", (C,), {}, True),
    ("modf", (F,), {}, True),
    ("modf", (2.5,), {}, True),
    ("spacing", (F,), {}, True),
    ("spacing", (np.float16([1, -2]),), {}, True),
    ("spacing", (3,), {}, True),
    ("spacing", (C,), {}, True),
    ("sinc", (F,), {}, True),
    ("sinc", (3,), {}, True),
    ("logaddexp", (F, F[::-1].copy()), {}, True),
    ("logaddexp", (2, 3), {}, True),
    ("logaddexp", (C, C[::-1].copy()), {}, True),
    ("logaddexp2", (F, np.float32(1.0)), {}, True),
    ("logaddexp2", (C, C[::-1].copy()), {}, True),
    ("ldexp", (np.float32([1.5, -2, 0, np.inf]), np.int32([3, -2, 5, 1])), {}, True),
    ("ldexp", (np.int32(3), 4), {}, True),
    ("ldexp", (1.5, 2.0), {}, True),
    ("gcd", (np.int32([12, -18, 0, 7]), np.int32([8, 12, 0, -21])), {}, True),
    ("gcd", (12, 18), {}, True),
    ("gcd", (1.5, 2), {}, True),
    ("lcm", (np.int32([4, -6, 0, 7]), np.int32([6, 4, 5, 3])), {}, True),
    ("lcm", (4, 6), {}, True),
    ("bitwise_count", (np.int32([0, 1, -7, 255]),), {}, True),
    ("bitwise_count", (np.array([True, False]),), {}, True),
    ("bitwise_count", (np.uint8(200),), {}, True),
    ("packbits", (np.int32([1, 0, 1, 1, 0, 0, 0, 1, 1, 1]),), {}, True),
    ("packbits", (np.arange(24).reshape(2, 12) % 3 == 0,), dict(axis=1, bitorder="little"), True),
    ("packbits", (F,), {}, True),
    ("unpackbits", (np.uint8([3, 200, 17]),), {}, True),
    (
        "unpackbits",
        (np.uint8([[3, 200], [1, 2]]),),
        dict(axis=0, count=10, bitorder="little"),
        True,
    ),
    ("unpackbits", (np.uint8([3, 200]),), dict(count=4), True),
    ("unpackbits", (np.int32([3]),), {}, True),
    ("insert", (X, 1, np.float32(-1)), dict(axis=1), False),
    ("insert", (V, [0, 2, 2], [7, 8, 9]), {}, False),
    ("insert", (V, slice(0, 4, 2), 0), {}, False),
    ("insert", (X, -1, [1, 2, 3, 4]), dict(axis=0), False),
    ("insert", (V, [1.5], 0), {}, False),
    ("compress", (np.array([True, False, True]), X), dict(axis=0), False),
    ("compress", (np.array([1, 0, 1, 1]), X), dict(axis=1, size=3, fill_value=-1), False),
    ("compress", ([0, 1], X), {}, False),
    ("compress", ([0, 1, 0, 0, 1], V[:4]), {}, False),
    ("extract", (V > 2, V), {}, False),
    ("extract", (V > 2, V), dict(size=6, fill_value=-5), False),
    ("choose", (I3, CHOICES), {}, False),
    ("choose", (np.int32([0, 3, -1]), [np.zeros(3), np.ones(3)]), dict(mode="wrap"), False),
    ("choose", (np.int32([0, 3, -1]), [np.zeros(3), np.ones(3)]), dict(mode="clip"), False),
    ("choose", (np.int32([0, 3]), [np.zeros(2), np.ones(2)]), {}, False),
    ("place", (X, X > 5, np.float32([-1, -2])), dict(inplace=False), False),
    ("place", (X, X > 5, [1.0]), {}, False),
    ("put", (X, [0, 5, 50], [9, 8, 7]), dict(inplace=False), False),
    ("put", (X, [0, 5, 50], [9, 8]), dict(inplace=False, mode="clip"), False),
    ("put", (X, [0, -5], [9]), dict(inplace=False, mode="wrap"), False),
    ("put", (X, [0], [9]), {}, False),
    (
        "put_along_axis",
        (X, np.array([[0], [2], [1]]), np.float32(-1)),
        dict(axis=1, inplace=False),
        True,
    ),
    ("put_along_axis", (V, np.array([0, 3]), 7), dict(axis=None, inplace=False), True),
    ("put_along_axis", (V, np.array([0, 3]), 7), dict(axis=None), True),
    ("fill_diagonal", (X, np.float32(7)), dict(inplace=False), False),
    ("fill_diagonal", (np.zeros((3, 3, 3)), np.array([1.0, 2])), dict(inplace=False), False),
    ("fill_diagonal", (X, 1.0), {}, False),
    ("partition", (V,), dict(kth=3), True),
    ("partition", (X[:, ::-1].copy(),), dict(kth=1, axis=1), True),
    ("partition", (np.uint32([3, 0, 2, 0]),), dict(kth=1), True),
    ("partition", (C,), dict(kth=1), True),
    ("argpartition", (V,), dict(kth=3), True),
    ("argpartition", (np.int32([[3, 1, 1, 2], [0, 0, 5, 1]]),), dict(kth=2), True),
    ("sort_complex", (V,), {}, True),
    ("sort_complex", (np.array([1 + 2j, 1 - 1j, 0j], np.complex64),), {}, True),
    ("trim_zeros", (np.array([0, 0, 1, 2, 0, 3, 0]),), {}, False),
    ("trim_zeros", (np.array([0, 0, 1, 2, 0, 3, 0]), "f"), {}, False),
    ("trim_zeros", (np.array([[0, 0], [0, 1.0]]),), {}, False),
    ("block", ([[X, X], [X, X]],), {}, True),
    ("block", ([np.ones(2), 3.0],), {}, True),
    ("block", ((np.ones(2), 3.0),), {}, False),
]


def _outcome(fn, args, kwargs):
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the type is compared with JAX's
        return e


def _check_same(got, want, what):
    if isinstance(want, Exception):
        assert isinstance(got, Exception), f"{what}: JAX raised {want!r}, didax gave {got}"
        assert isinstance(got, type(want)) or isinstance(want, type(got)), (what, got, want)
        return
    assert not isinstance(got, Exception), f"{what}: didax raised {got!r}"
    wants = want if isinstance(want, (tuple, list)) else (want,)
    gots = got if isinstance(got, (tuple, list)) else (got,)
    assert len(gots) == len(wants), what
    for g, w in zip(gots, wants, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape, (what, g, w)
        assert g.weak_type == w.weak_type, (what, "weak_type", g, w)
        if np.issubdtype(w.dtype, np.inexact):
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6, equal_nan=True, err_msg=what)
        else:
            np.testing.assert_array_equal(g, w, err_msg=what)


@pytest.mark.parametrize(
    "name,args,kwargs,jit", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_values_against_jax(name, args, kwargs, jit):
    want = _outcome(getattr(jnp, name), args, kwargs)
    _check_same(_outcome(getattr(dnp, name), args, kwargs), want, f"{name} eager")
    if jit:
        fn = didax.jit(getattr(dnp, name), static_argnames=tuple(kwargs))
        _check_same(_outcome(fn, args, kwargs), want, f"{name} jit")


GRADS = [
    ("frexp", lambda m, x: m.frexp(x)[0], 3.0),
    ("ldexp", lambda m, x: m.ldexp(x, 3), 3.0),
    ("modf", lambda m, x: m.modf(x)[0] * 2 + m.modf(x)[1], 3.5),
    ("sinc", lambda m, x: m.sinc(x), 0.3),
    ("sinc0", lambda m, x: m.sinc(x), 0.0),
    ("logaddexp", lambda m, x: m.logaddexp(x, 2.0), 1.0),
    ("logaddexp-inf", lambda m, x: m.logaddexp(x, -np.inf), 1.0),
    ("logaddexp2", lambda m, x: m.logaddexp2(x, 1.0), 0.3),
    ("insert", lambda m, x: m.insert(m.ones(3) * x, 1, x * x).sum(), 2.0),
    ("place", lambda m, x: m.place(m.ones(4), m.arange(4) > 1, x, inplace=False).sum(), 2.0),
    ("partition", lambda m, x: (m.partition(m.array([3.0, 1.0, 2.0]) * x, 1) ** 2)[0], 2.0),
]


@pytest.mark.parametrize("name,f,x", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_against_jax(name, f, x):
    want = jax.grad(lambda v: f(jnp, v))(x)
    for g in (didax.grad(lambda v: f(dnp, v)), didax.jit(didax.grad(lambda v: f(dnp, v)))):
        np.testing.assert_allclose(g(x), want, rtol=1e-5)


def test_mask_indices():
    for k in (0, 1, -1):
        got, want = dnp.mask_indices(4, dnp.triu, k), jnp.mask_indices(4, jnp.triu, k)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
