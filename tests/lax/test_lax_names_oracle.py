"""The simple `jax.lax` names issue 24 adds (`broadcast broadcast_to_rank collapse
index_in_dim index_take full_like select reciprocal batch_matmul dtype broadcast_shapes
shape_as_value`, and the `population_count clz mulhi` primitives) against JAX 0.10.2:
values, dtypes, weak types, eagerly and under jit, and the jaxprs JAX prints."""

from __future__ import annotations

import didax
import numpy as np
import pytest
from didax.test_util import check_rules

jax = pytest.importorskip("jax")
from helpers.jaxpr_text import canonical
from helpers.oracle import EagerJax, JaxOracle

pytestmark = [pytest.mark.oracle, pytest.mark.filterwarnings("ignore::RuntimeWarning")]

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
I0 = np.array([0, -1, 5], np.int32)
I1 = np.array([2, 0, 1], np.int32)

CASES = [
    ("broadcast", lambda lax, x: lax.broadcast(x, (3,))),
    ("broadcast_to_rank", lambda lax, x: lax.broadcast_to_rank(x[0], 4)),
    ("collapse", lambda lax, x: lax.collapse(x, 1)),
    ("collapse-range", lambda lax, x: lax.collapse(x, 0, 2)),
    ("index_in_dim", lambda lax, x: lax.index_in_dim(x, 1, 1)),
    ("index_in_dim-squeezed", lambda lax, x: lax.index_in_dim(x, -1, 2, False)),
    ("index_take", lambda lax, x: lax.index_take(x, (I0, I1), (1, 2))),
    ("full_like", lambda lax, x: lax.full_like(x, 3.0)),
    ("full_like-dtype-shape", lambda lax, x: lax.full_like(x, 3, np.int32, (2,))),
    ("select", lambda lax, x: lax.select(lax.gt(x, 3.0), x, lax.neg(x))),
    ("reciprocal", lambda lax, x: lax.reciprocal(lax.add(x, 1.0))),
    ("batch_matmul", lambda lax, x: lax.batch_matmul(x, lax.transpose(x, (0, 2, 1)))),
    ("broadcast_like", lambda lax, x: lax.broadcast_like(x[0, 0], x)),
    ("broadcast_like-ones", lambda lax, x: lax.broadcast_like(x[:1], x)),
    ("broadcast_like-same", lambda lax, x: lax.broadcast_like(x, x)),
    ("broadcast_like-scalar", lambda lax, x: lax.broadcast_like(1.0, x)),
]


# JAX's values, compiled (helpers/oracle.py; eagerly, each of JAX's operations is a compile
# of its own); likewise for the tables below
JAX_VALUES = EagerJax(lambda: {n: (lambda x, fn=fn: fn(jax.lax, x), (X,), {}) for n, fn in CASES})


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_values_and_jaxprs(name, fn):
    want = JAX_VALUES.result(name)
    for ours in (lambda x: fn(didax.lax, x), didax.jit(lambda x: fn(didax.lax, x))):
        got = ours(X)
        assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
        np.testing.assert_allclose(got, want)
    if name == "index_take":  # JAX's `indices % sizes` is jnp's `remainder` (an inner jit)
        return
    got = str(didax.make_jaxpr(lambda x: fn(didax.lax, x))(X))
    assert canonical(got) == canonical(str(jax.make_jaxpr(lambda x: fn(jax.lax, x))(X))), got


def test_errors_as_in_jax():
    for lib in (jax, didax):
        with pytest.raises(IndexError):
            lib.lax.index_in_dim(X, 5, 1)
        with pytest.raises(ValueError):
            lib.lax.collapse(X, 2, 1)
        with pytest.raises(ValueError):
            lib.lax.batch_matmul(X, X[0])
        with pytest.raises(ValueError):
            lib.lax.broadcast_shapes((2, 3), (4,))


@pytest.mark.parametrize("value", [1, 1.0, True, 1j, float, int, np.float64, "int8", X, X[0, 0]])
def test_dtype(value):
    assert didax.lax.dtype(value) == jax.lax.dtype(value)


def test_broadcast_shapes_and_shape_as_value():
    assert didax.lax.broadcast_shapes((2, 1), (3,)) == jax.lax.broadcast_shapes((2, 1), (3,))
    for shape in ((2, 3), ()):
        got, want = didax.lax.shape_as_value(shape), jax.lax.shape_as_value(shape)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)


INTS = [
    np.array([0, 1, 5, -1, 77], np.int32),
    np.array([0, 1, 5, 200, 77], np.uint8),
    np.array([0, 1, -5, -128, 77], np.int8),
    np.array([0, 1, 5, 2**31 + 3, 77], np.uint32),
    np.array([0, 1, 5, -300, 77], np.int16),
]


BIT_COUNTS = ["population_count", "clz", "mulhi"]


def _bit_count_args(name, x):
    return (x, x[::-1].copy()) if name == "mulhi" else (x,)


JAX_BIT_COUNTS = EagerJax(  # keyed (name, dtype): each x of INTS has its own dtype
    lambda: {
        (n, x.dtype): (getattr(jax.lax, n), _bit_count_args(n, x), {})
        for n in BIT_COUNTS
        for x in INTS
    }
)


@pytest.mark.parametrize("name", BIT_COUNTS)
@pytest.mark.parametrize("x", INTS, ids=lambda x: x.dtype.name)
def test_bit_counts(name, x):
    args = _bit_count_args(name, x)
    want = np.asarray(JAX_BIT_COUNTS.result((name, x.dtype)))
    for fn in (getattr(didax.lax, name), didax.jit(getattr(didax.lax, name))):
        got = np.asarray(fn(*args))
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    got = str(didax.make_jaxpr(getattr(didax.lax, name))(*args))
    assert canonical(got) == canonical(str(jax.make_jaxpr(getattr(jax.lax, name))(*args)))
    batched = didax.vmap(getattr(didax.lax, name))(*(np.stack([a, a]) for a in args))
    np.testing.assert_array_equal(batched[1], want)


@pytest.mark.parametrize("name", ["population_count", "clz", "mulhi"])
def test_bit_counts_refuse_floats_and_bools(name):
    for lib in (jax, didax):
        for bad in (np.ones(3, np.float32), np.ones(3, bool)):
            args = (bad, bad) if name == "mulhi" else (bad,)
            with pytest.raises(TypeError):
                getattr(lib.lax, name)(*args)


RNG = np.random.default_rng(0)
WIDE = np.concatenate(
    [
        RNG.normal(size=50).astype(np.float32) * 1e3,
        np.float32([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30, -1e-30, 65504, 65520, 7e4, 3.4e38]),
    ]
)


BITS = [(5, 10), (8, 7), (4, 3), (5, 2), (8, 23), (11, 52), (2, 1)]


def _reduced(bits):
    return lambda w, h: (jax.lax.reduce_precision(w, *bits), jax.lax.reduce_precision(h, 4, 3))


JAX_REDUCED = EagerJax(
    lambda: {b: (_reduced(b), (WIDE, WIDE.astype(np.float16)), {}) for b in BITS}
)


@pytest.mark.parametrize("bits", BITS)
def test_reduce_precision_bits_as_in_jax(bits):
    want, want16 = JAX_REDUCED.result(bits)
    want = np.asarray(want).view(np.uint32)
    for fn in (
        didax.lax.reduce_precision,
        didax.jit(didax.lax.reduce_precision, static_argnums=(1, 2)),
    ):
        np.testing.assert_array_equal(np.asarray(fn(WIDE, *bits)).view(np.uint32), want)
    half = WIDE.astype(np.float16)
    want16 = np.asarray(want16).view(np.uint16)
    np.testing.assert_array_equal(
        np.asarray(didax.lax.reduce_precision(half, 4, 3)).view(np.uint16), want16
    )


def test_reduce_precision_jaxpr_grad_errors():
    f = lambda lax: lambda v: lax.reduce_precision(v * v, 5, 10)  # noqa: E731
    assert str(didax.make_jaxpr(f(didax.lax))(3.0)) == str(jax.make_jaxpr(f(jax.lax))(3.0))
    np.testing.assert_array_equal(didax.grad(f(didax.lax))(3.0), jax.grad(f(jax.lax))(3.0))
    for lib in (jax, didax):
        with pytest.raises(ValueError):
            lib.lax.reduce_precision(WIDE, 0, 3)
        with pytest.raises(TypeError):
            lib.lax.reduce_precision(np.arange(3), 5, 3)


def test_optimization_barrier():
    f = lambda lax: lambda v: lax.optimization_barrier((lax.sin(v), v * 2))[0] + lax.sin(v)  # noqa: E731
    assert str(didax.make_jaxpr(f(didax.lax))(1.0)) == str(jax.make_jaxpr(f(jax.lax))(1.0))
    want = jax.jit(f(jax.lax))(1.0)
    for fn in (f(didax.lax), didax.jit(f(didax.lax))):
        np.testing.assert_allclose(fn(1.0), want, rtol=1e-6)
    np.testing.assert_allclose(didax.grad(f(didax.lax))(1.0), jax.grad(f(jax.lax))(1.0), rtol=1e-6)
    np.testing.assert_allclose(
        didax.vmap(f(didax.lax))(np.ones(3, np.float32)), np.full(3, want), rtol=1e-6
    )


def test_empty():
    for shape, dtype in [((2, 3), np.float32), (3, np.int32)]:
        want = jax.lax.empty(shape, dtype)
        for fn in (didax.lax.empty, didax.jit(didax.lax.empty, static_argnums=(0, 1))):
            got = fn(shape, dtype)
            assert got.shape == want.shape and got.dtype == want.dtype
    # the one difference in the jaxpr: didax prints the dtype parameter `float32`, JAX
    # `<class 'numpy.float32'>`
    got = str(didax.make_jaxpr(lambda: didax.lax.empty((2,), np.float32))())
    assert (
        got
        == "{ lambda ; . let\n    a:f32[2] = empty[dtype=float32 out_sharding=None shape=(2,)] \n  in (a,) }"
    )


SHAPES = [
    ("lax.tile", lambda m, v: m.lax.tile(v, (1, 2, 1))),
    ("lax.split", lambda m, v: m.lax.split(v, (1, 2), axis=1)),
    ("lax.unstack", lambda m, v: m.lax.unstack(v, 2)),
    ("jnp.tile", lambda m, v: m.numpy.tile(v, (2, 1, 3))),
    ("jnp.tile-int", lambda m, v: m.numpy.tile(v, 2)),
    ("jnp.tile-more-axes", lambda m, v: m.numpy.tile(v, (2, 1, 1, 2))),
    ("jnp.split", lambda m, v: m.numpy.split(v, 2, axis=2)),
    ("jnp.split-indices", lambda m, v: m.numpy.split(v, [1, 3], axis=2)),
    ("jnp.array_split", lambda m, v: m.numpy.array_split(v, 3, axis=2)),
    ("jnp.hsplit", lambda m, v: m.numpy.hsplit(v, 3)),
    ("jnp.unstack", lambda m, v: m.numpy.unstack(v, axis=1)),
]


def _listed(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _loss(m, f):
    return lambda v: sum((t * t).sum() for t in _listed(f(m, v)))


BATCH = np.stack([X, X + 1])
# JAX's values, gradients and vmaps, all in one compiled program (eagerly, each of JAX's
# operations is a compile of its own: up to 15 a test); the values are exact either way
SHAPES_ORACLE = JaxOracle(
    {
        "all": [
            (
                name,
                lambda x, b, f=f: (
                    _listed(f(jax, x)),
                    jax.grad(_loss(jax, f))(x),
                    _listed(jax.vmap(lambda v: f(jax, v))(b)),
                ),
                [X, BATCH],
            )
            for name, f in SHAPES
        ]
    }
)


@pytest.mark.parametrize("name,f", SHAPES, ids=[s[0] for s in SHAPES])
def test_tile_split_unstack_as_in_jax(name, f):
    want, want_grad, want_vmap = SHAPES_ORACLE.get(name)
    for fn in (lambda v: f(didax, v), didax.jit(lambda v: f(didax, v))):
        got = _listed(fn(X))
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)
    got = str(didax.make_jaxpr(lambda v: f(didax, v))(X))
    assert got == str(jax.make_jaxpr(lambda v: f(jax, v))(X)), got
    np.testing.assert_allclose(didax.grad(_loss(didax, f))(X), want_grad)
    for g, w in zip(_listed(didax.vmap(lambda v: f(didax, v))(BATCH)), want_vmap, strict=True):
        np.testing.assert_array_equal(g, w)


def test_split_errors_as_in_jax():
    for lib in (jax, didax):
        with pytest.raises(ValueError):
            lib.lax.split(X, (1, 1), axis=1)
        with pytest.raises(ValueError):
            lib.lax.split(X, (4, -1), axis=1)
        with pytest.raises(TypeError):
            lib.lax.tile(X, (2, 2))
        with pytest.raises(ValueError):
            lib.lax.unstack(X[0, 0, 0])


def test_rules_of_the_shape_primitives():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    check_rules(didax.lax.tile_p, x, reps=(2, 1))
    check_rules(didax.lax.split_p, x, sizes=(1, 2), axis=1)
    check_rules(didax.lax.unstack_p, x, axis=1)
    check_rules(didax.lax.optimization_barrier_p, x, x)


BESSEL_X = np.float32([0.0, 0.5, -1.5, 3.0, 7.9, 8.0, 8.1, 20.0, -50.0, 1e-8, np.inf, np.nan])


BESSEL = ["bessel_i0e", "bessel_i1e"]
BESSEL_XS = np.float32([0.3, -1.2, 2.0, 9.0, 1e-9])


def _bessel_and_grads(name):
    f = getattr(jax.lax, name)
    return lambda x, xs: (f(x), jax.vmap(jax.grad(f))(xs))


JAX_BESSEL = EagerJax(
    lambda: {
        (n, d): (_bessel_and_grads(n), (BESSEL_X.astype(d), BESSEL_XS), {})
        for n in BESSEL
        for d in (np.float32, np.float16)
    }
)


@pytest.mark.parametrize("name", BESSEL)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_bessel_as_in_jax(name, dtype):
    x = BESSEL_X.astype(dtype)
    want, want_grad = JAX_BESSEL.result((name, dtype))
    want = np.asarray(want)
    for fn in (getattr(didax.lax, name), didax.jit(getattr(didax.lax, name))):
        got = np.asarray(fn(x))
        assert got.dtype == want.dtype
        np.testing.assert_allclose(
            got, want, rtol=2e-6 if dtype == np.float32 else 1e-3, equal_nan=True
        )
    xs = BESSEL_XS
    np.testing.assert_allclose(
        didax.vmap(didax.grad(getattr(didax.lax, name)))(xs), want_grad, rtol=1e-5
    )
    f = lambda lib: lib.grad(getattr(lib.lax, name))  # noqa: E731
    got = _equations(str(didax.make_jaxpr(f(didax))(1.0)))
    want_eqns = _equations(str(jax.make_jaxpr(f(jax))(1.0)))
    # JAX converts |x| (already float32) to float32 before comparing it with eps
    assert got == [e for e in want_eqns if e != "convert_element_type"], got


def _equations(text):
    return [
        line.split("= ")[1].split()[0].split("[")[0] for line in text.splitlines() if " = " in line
    ]


def test_zeta_as_in_jax():
    x, q = np.float32([2.0, 3.0, 1.5, 4.0]), np.float32([1.0, 2.0, 0.5, 3.0])
    want = jax.lax.zeta(x, q)
    for fn in (didax.lax.zeta, didax.jit(didax.lax.zeta)):
        np.testing.assert_allclose(fn(x, q), want, rtol=1e-6)
    for lib in (jax, didax):  # JAX 0.10.2 has no derivative rule for zeta
        with pytest.raises(NotImplementedError):
            lib.grad(lambda v, lib=lib: lib.lax.zeta(2.0, v))(1.5)
        with pytest.raises(TypeError):
            lib.lax.zeta(np.arange(3), np.arange(3))
