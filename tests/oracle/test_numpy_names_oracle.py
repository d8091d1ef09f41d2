"""The `jax.numpy` names issue 24 adds (the list in `numpy_missing_names.txt`, emptied),
against JAX 0.10.2: values, dtypes, weak types and shapes eagerly and under `jit` (static
keyword arguments), the exception type where JAX raises, and gradients where JAX defines
them. One row per call."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from helpers.grouped import Grouped
from helpers.oracle import EagerJax, jax_quick

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
    ("i0", (np.float32([0, 0.5, -3, 10, -20]),), {}, True),
    ("i0", (2,), {}, True),
    ("i0", (np.int32([1, 2]),), {}, True),
    ("i0", (C,), {}, True),
    ("kaiser", (5, 3.0), {}, False),
    ("kaiser", (1, 2.0), {}, False),
    ("kaiser", (0, 1.0), {}, False),
    ("kaiser", (8, 14.0), {}, False),
]


def _outcome(fn, args, kwargs):
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the type is compared with JAX's
        return e


def _leaves(x):
    if isinstance(x, (tuple, list)):
        return [leaf for part in x for leaf in _leaves(part)]
    return [x]


def _check_same(got, want, what):
    if isinstance(want, Exception):
        assert isinstance(got, Exception), f"{what}: JAX raised {want!r}, didax gave {got}"
        assert isinstance(got, type(want)) or isinstance(want, type(got)), (what, got, want)
        return
    assert not isinstance(got, Exception), f"{what}: didax raised {got!r}"
    wants, gots = _leaves(want), _leaves(got)
    assert len(gots) == len(wants), what
    for g, w in zip(gots, wants, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape, (what, g, w)
        assert g.weak_type == w.weak_type, (what, "weak_type", g, w)
        if np.issubdtype(w.dtype, np.inexact):
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6, equal_nan=True, err_msg=what)
        else:
            np.testing.assert_array_equal(g, w, err_msg=what)


def _check_values(table, index):
    name, args, kwargs, jit = table[index]
    if jit:
        didax_jit, jax_jit, position = JITTED[id(table)]
        want = jax_jit.outcome(position[index])
    else:
        want = EAGER[id(table)].outcome(index)
    _check_same(_outcome(getattr(dnp, name), args, kwargs), want, f"{name} eager")
    if jit:
        _check_same(didax_jit.outcome(position[index]), want, f"{name} jit")


@pytest.mark.parametrize(
    "index", range(len(CASES)), ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_values_against_jax(index):
    _check_values(CASES, index)


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
    ("i0", lambda m, x: m.i0(x), 1.5),
    ("i0-at-0", lambda m, x: m.i0(x), 0.0),
]


# their `jit`s as one program; checked when grouped (2026-11-26): the bits of each own `jit`
JITTED_GRADS = Grouped(
    didax.jit, lambda: [(didax.grad(lambda v, f=f: f(dnp, v)), (x,)) for _, f, x in GRADS]
)
# JAX's gradients likewise, one program (eagerly, each of JAX's operations is a compile of its
# own: up to 55 a test)
JAX_GRADS = Grouped(
    jax.jit, lambda: [(jax.grad(lambda v, f=f: f(jnp, v)), (x,)) for _, f, x in GRADS]
)


@pytest.mark.parametrize("index", range(len(GRADS)), ids=[g[0] for g in GRADS])
def test_gradients_against_jax(index):
    _, f, x = GRADS[index]
    want = JAX_GRADS.result(index)
    np.testing.assert_allclose(didax.grad(lambda v: f(dnp, v))(x), want, rtol=1e-5)
    np.testing.assert_allclose(JITTED_GRADS.result(index), want, rtol=1e-5)


def test_mask_indices():
    for k in (0, 1, -1):
        got, want = dnp.mask_indices(4, dnp.triu, k), jnp.mask_indices(4, jnp.triu, k)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)


RNG = np.random.default_rng(0)
SAMPLE = RNG.normal(size=(50, 3)).astype(np.float32)
WEIGHTS = RNG.random(50).astype(np.float32)
Y = (np.arange(20, dtype=np.float32) ** 1.5).reshape(4, 5)
P = np.float32([0, 1, 6, 7, 13, 2, -5, 20])

MORE_CASES = [
    ("gradient", (Y,), {}, False),
    ("gradient", (Y, 2.0), {}, False),
    ("gradient", (Y,), dict(axis=1), True),
    ("gradient", (Y, np.float32([0, 1, 3, 4.5, 5])), dict(axis=1), True),
    ("gradient", (np.arange(5),), {}, True),
    ("gradient", (Y, 1.0, 2.0), {}, False),
    ("gradient", (np.ones(1),), {}, False),
    ("unwrap", (P,), {}, True),
    ("unwrap", (P,), dict(discont=4), False),
    ("unwrap", (P,), dict(period=6), False),
    ("unwrap", (np.int32([0, 5, 11, 2]),), dict(period=6), False),
    ("unwrap", (np.stack([P, P * 2]),), dict(axis=1), True),
    ("unwrap", (C,), {}, False),
    ("histogramdd", (SAMPLE,), {}, False),
    ("histogramdd", (SAMPLE,), dict(bins=[3, 4, 5]), False),
    ("histogramdd", (SAMPLE,), dict(weights=WEIGHTS, density=True), False),
    ("histogramdd", (SAMPLE,), dict(range=[(-1, 1), None, (0, 2)]), False),
    ("histogram2d", (SAMPLE[:, 0], SAMPLE[:, 1]), dict(bins=4), False),
    ("histogram2d", (SAMPLE[:, 0], SAMPLE[:, 1]), dict(bins=[3, 4]), False),
    ("histogram2d", (SAMPLE[:, 0], SAMPLE[:, 1]), dict(bins=np.linspace(-2, 2, 6)), False),
    ("histogram2d", (SAMPLE[:, 0], SAMPLE[:, 1]), dict(weights=WEIGHTS, density=True), False),
    ("polydiv", (np.float32([1, -3, 2, 5]), np.float32([1, 2])), {}, False),
    ("polydiv", (np.float32([2, 0, 1]), np.float32([1, 1, 1, 1])), {}, False),
    ("polydiv", (np.int32([1, 2, 3]), np.int32([2])), {}, False),
    ("polydiv", ([1, 2], np.int32([2])), {}, False),
    ("frombuffer", (b"\x01\x02\x03\x04",), dict(dtype=np.uint8), False),
    ("frombuffer", (np.float32([1.5, 2]).tobytes(),), dict(dtype=np.float32), False),
    ("fromstring", ("1 2 3",), dict(sep=" "), False),
    ("from_dlpack", (np.arange(3),), {}, False),
    ("fromfile", ("x",), {}, False),
    ("fromiter", (iter([1]),), {}, False),
]


@pytest.mark.parametrize(
    "index", range(len(MORE_CASES)), ids=[f"{c[0]}-{i}" for i, c in enumerate(MORE_CASES)]
)
def test_more_values_against_jax(index):
    _check_values(MORE_CASES, index)


def _jitted(table):
    """The table's jitted cases as one didax program and one JAX program (helpers/grouped.py;
    keyword arguments, static under `jit`, closed over), and the place of each case's call."""
    indices = [i for i, case in enumerate(table) if case[3]]
    calls = lambda lib: lambda: [_closed(lib, *table[i][:3]) for i in indices]  # noqa: E731
    position = {i: k for k, i in enumerate(indices)}
    return Grouped(didax.jit, calls(dnp)), Grouped(jax.jit, calls(jnp)), position


def _closed(lib, name, args, kwargs):
    return lambda *a: getattr(lib, name)(*a, **kwargs), args


# Checked when grouped (2026-11-26): every didax result has the bits of its own `jit`; every
# JAX result has the bits, dtype and weak type of eager JAX's (the oracle before), and where
# eager JAX raises, the program raises the same type.
JITTED = {id(table): _jitted(table) for table in (CASES, MORE_CASES)}
# JAX's eager outcomes of the other cases (helpers/oracle.py: compiled programs where they
# trace under `jit`, eagerly where JAX needs concrete values)
EAGER = {
    id(table): EagerJax(lambda table=table: [(getattr(jnp, c[0]), c[1], c[2]) for c in table])
    for table in (CASES, MORE_CASES)
}


FUNCTIONAL = [
    ("vectorize", lambda m: m.vectorize(lambda a, b: a * b + 1)(X, np.arange(4.0))),
    ("vectorize-sig", lambda m: m.vectorize(lambda a, b: a @ b, signature="(n),(n)->()")(X, X[0])),
    (
        "vectorize-2out",
        lambda m: m.vectorize(lambda a: (a.sum(), a.max()), signature="(n)->(),()")(X),
    ),
    ("vectorize-excl", lambda m: m.vectorize(lambda a, p: a**p, excluded={1})(X, 2)),
    ("vectorize-jit", lambda m: didax.jit(m.vectorize(lambda a: a * 2)) if m is dnp else None),
    ("apply_along_axis", lambda m: m.apply_along_axis(lambda r: r.sum() * r, 1, X)),
    ("apply_along_axis-0", lambda m: m.apply_along_axis(m.sort, 0, X)),
    ("apply_over_axes", lambda m: m.apply_over_axes(m.sum, X, [0, 1])),
    ("fromfunction", lambda m: m.fromfunction(lambda i, j: i + 2 * j, (3, 4))),
    ("fromfunction-int", lambda m: m.fromfunction(lambda i: i * i, (5,), dtype=int)),
    ("piecewise", lambda m: m.piecewise(F, [F < 0, F > 1], [lambda v: -v, lambda v: v * v, 0.5])),
    ("piecewise-const", lambda m: m.piecewise(F, [F < 0], [-1.0])),
    ("ufunc", lambda m: m.frompyfunc(lambda a, b: a * b + 1, 2, 1)(X, 2.0)),
    ("ufunc-outer", lambda m: m.frompyfunc(lambda a, b: a * b + 1, 2, 1).outer(X[0], X[1])),
    ("ufunc-reduce", lambda m: m.frompyfunc(lambda a, b: a * b + 1, 2, 1, identity=1).reduce(X, 1)),
    ("ufunc-reduce-noid", lambda m: m.frompyfunc(lambda a, b: a * b + 1, 2, 1).reduce(X)),
    ("ufunc-accumulate", lambda m: m.frompyfunc(lambda a, b: a * b + 1, 2, 1).accumulate(X, 1)),
    ("einsum_path", lambda m: m.einsum_path("ij,jk,kl->il", X, X.T, X, optimize="greedy")[0]),
    ("einsum_path-false", lambda m: m.einsum_path("ij,jk,kl->il", X, X.T, X, optimize=False)[0]),
]


# JAX's outcomes (helpers/oracle.py: compiled where they trace under `jit`)
EAGER_FUNCTIONAL = EagerJax(lambda: [(fn, (jnp,), {}) for _, fn in FUNCTIONAL])


@pytest.mark.parametrize("index", range(len(FUNCTIONAL)), ids=[c[0] for c in FUNCTIONAL])
def test_functional_against_jax(index):
    name, fn = FUNCTIONAL[index]
    want, got = EAGER_FUNCTIONAL.outcome(index), fn(dnp)
    if name == "vectorize-jit":
        want, got = jnp.ones(3) * 2, got(np.ones(3, np.float32))
    if name.startswith("einsum_path"):
        assert got == want
        return
    _check_same(got, want, name)


def test_functional_gradients():
    f = lambda m, v: m.piecewise(v, [v < 0], [lambda t: t * t, lambda t: 3 * t])  # noqa: E731
    np.testing.assert_allclose(
        didax.grad(lambda v: f(dnp, v))(2.0), jax_quick(jax.grad(lambda v: f(jnp, v)), 2.0)
    )
    g = lambda m, x: m.gradient(x * x).sum() + m.unwrap(x * x).sum()  # noqa: E731
    x = np.float32([1, 2, 3, 4])
    want = jax_quick(jax.grad(lambda v: g(jnp, v)), x)
    np.testing.assert_allclose(didax.grad(lambda v: g(dnp, v))(x), want)


def test_host_io(tmp_path):
    x = dnp.arange(6.0).reshape(2, 3)
    dnp.save(tmp_path / "x.npy", x)
    y = dnp.load(tmp_path / "x.npy")
    assert isinstance(y, type(x)) and y.dtype == np.float32
    np.testing.assert_array_equal(y, x)
    dnp.save(tmp_path / "b.npy", dnp.ones(2, dnp.bfloat16))
    assert dnp.load(tmp_path / "b.npy").dtype == jnp.load(tmp_path / "b.npy").dtype
    assert dnp.array_str(x) == jnp.array_str(jnp.arange(6.0).reshape(2, 3))
    assert dnp.array_repr(x).startswith("Array(")
    with dnp.printoptions(precision=2):
        assert dnp.get_printoptions()["precision"] == 2 == jnp.get_printoptions()["precision"]
    assert dnp.ComplexWarning is jnp.ComplexWarning


NARROW = ["float4_e2m1fn", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn"]
NARROW += ["float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "int4"]
NARROW += ["uint2", "uint4"]


@pytest.mark.parametrize("name", NARROW)
def test_narrow_scalar_types(name):
    value = 1.5 if "float" in name else 1
    want = getattr(jnp, name)(value)
    got = getattr(dnp, name)(value)
    assert got.dtype == want.dtype and float(got) == float(want)
    twice = didax.jit(lambda v: v + v)(got)
    assert twice.dtype == want.dtype and float(twice) == float(want + want)
    assert str(didax.make_jaxpr(lambda v: v + v)(got)) == str(jax.make_jaxpr(lambda v: v + v)(want))


VMAPPED = [
    ("frexp", lambda v: dnp.frexp(v)[0]),
    ("ldexp", lambda v: dnp.ldexp(v, 3)),
    ("logaddexp", lambda v: dnp.logaddexp(v, v[::-1])),
    ("sinc", dnp.sinc),
    ("gcd", lambda v: dnp.gcd(v.astype(np.int32), 6)),
    ("partition", lambda v: dnp.partition(v, 2)),
    ("argpartition", lambda v: dnp.argpartition(v, 2)),
    ("insert", lambda v: dnp.insert(v, 1, -1.0)),
    ("put_along_axis", lambda v: dnp.put_along_axis(v, dnp.array([0, 2]), 5.0, 0, inplace=False)),
    ("gradient", dnp.gradient),
    ("unwrap", dnp.unwrap),
    ("i0", dnp.i0),
    ("spacing", dnp.spacing),
]


@pytest.mark.parametrize("name,f", VMAPPED, ids=[v[0] for v in VMAPPED])
def test_vmap_matches_a_loop(name, f):
    xs = np.float32([[0.5, 3.0, -2.0, 7.0, 1.0], [4.0, -1.0, 2.5, 0.0, 9.0]])
    got = didax.vmap(f)(xs)
    want = np.stack([np.asarray(f(x)) for x in xs])
    np.testing.assert_allclose(got, want, rtol=1e-6)


PX = np.linspace(0, 1, 8).astype(np.float32)
PY = (3 * PX**2 - PX + 0.5 + 0.01 * np.sin(20 * PX)).astype(np.float32)
POLYFIT = [
    dict(deg=2),
    dict(deg=1),
    dict(deg=2, full=True),
    dict(deg=2, cov=True),
    dict(deg=2, cov="unscaled"),
    dict(deg=2, w=np.linspace(1, 2, 8).astype(np.float32)),
]


TWO = np.stack([PY, 2 * PY], 1)
# JAX's fits, one program (helpers/oracle.py); the last, of two columns
EAGER_POLYFIT = EagerJax(
    lambda: [(jnp.polyfit, (PX, PY), kw) for kw in POLYFIT] + [(jnp.polyfit, (PX, TWO, 2), {})]
)


@pytest.mark.parametrize("index", range(len(POLYFIT)), ids=[str(k) for k in range(len(POLYFIT))])
def test_polyfit_as_in_jax(index):
    kwargs = POLYFIT[index]
    want = _leaves(EAGER_POLYFIT.outcome(index))
    got = _leaves(dnp.polyfit(PX, PY, **kwargs))
    for g, w in zip(got, want, strict=True):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)  # least squares in float32
    np.testing.assert_allclose(
        dnp.polyfit(PX, TWO, 2), EAGER_POLYFIT.outcome(len(POLYFIT)), rtol=1e-4, atol=1e-5
    )


ROOTS = [[1, -3, 2], [0, 0, 1, -3, 2], [1, 0, 0, -1], [2.0], [1, 2, 3, 4, 5], [0, 0, 0]]
# JAX's roots of each, stripped (eagerly: the strip needs concrete values) and not
EAGER_ROOTS = EagerJax(
    lambda: [
        (jnp.roots, (np.float32(p),), dict(strip_zeros=s)) for p in ROOTS for s in (True, False)
    ]
)


@pytest.mark.parametrize("p", ROOTS, ids=str)
def test_roots_as_in_jax(p):
    index = 2 * ROOTS.index(p)
    p = np.float32(p)
    want, got = EAGER_ROOTS.outcome(index), dnp.roots(p)
    assert got.dtype == want.dtype and got.shape == want.shape
    order = lambda v: np.sort_complex(np.asarray(v))  # noqa: E731 - eigenvalue order may differ
    np.testing.assert_allclose(order(got), order(want), atol=1e-5)
    want = EAGER_ROOTS.outcome(index + 1)
    for fn in (dnp.roots, didax.jit(dnp.roots, static_argnames="strip_zeros")):
        got = fn(p, strip_zeros=False)
        assert got.shape == want.shape
        np.testing.assert_allclose(order(got), order(want), atol=1e-5, equal_nan=True)
    if p.size >= 2:
        with pytest.raises(TypeError):  # ConcretizationTypeError, as JAX's
            didax.jit(dnp.roots)(p)
