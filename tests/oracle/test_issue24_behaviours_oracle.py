"""Issue 24's wrong behaviours, against JAX: `~x` (and `^`, `<<`, `>>`, reflected `&`/`|`)
on integer and boolean Arrays, eagerly and traced; complex64 / float32 promotes in `jnp` and
in operators while `lax.div` rejects mixed dtypes (eagerly too); a custom_vjp backward rule
gets residuals that were weakly typed scalar Arrays as such Arrays, not Python floats; the
gradient of a real function of a complex input is strong, as JAX's (`real`/`imag` transpose
with a strong zero), while a holomorphic one stays weak."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from helpers.oracle import EagerJax, assert_matches, jax_quick

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

pytestmark = pytest.mark.oracle

BITS = [
    np.array([True, False, True]),
    np.array([1, -6, 0], np.int32),
    np.array([1, 6, 255], np.uint8),
]
OPERATORS = {
    "invert": lambda x: ~x,
    "xor": lambda x: x ^ x[::-1],
    "xor_scalar": lambda x: x ^ 1 if x.dtype != bool else x ^ True,
    "rxor": lambda x: (True ^ x) if x.dtype == bool else 3 ^ x,
    "rand": lambda x: (True & x) if x.dtype == bool else 3 & x,
    "ror": lambda x: (False | x) if x.dtype == bool else 8 | x,
    "lshift": lambda x: x << 2,
    "rshift": lambda x: x >> 1,
    "rlshift": lambda x: 1 << x,
    "rrshift": lambda x: 64 >> x,
}


def _operand(op: str, x: np.ndarray) -> np.ndarray:
    return np.abs(x) if x.dtype != np.uint8 and op in ("rlshift", "rrshift") else x


def _value_and_vmap(fn):
    return lambda x: (fn(x), jax.vmap(fn)(x.reshape(3, 1)))


BIT_CASES = [(op, x) for op in sorted(OPERATORS) for x in BITS]  # each x of its own dtype
# JAX's values and vmaps, compiled (helpers/oracle.py; eagerly, each of JAX's operations is a
# compile of its own)
JAX_BITS = EagerJax(
    lambda: [(_value_and_vmap(OPERATORS[op]), (_operand(op, x),), {}) for op, x in BIT_CASES]
)


@pytest.mark.parametrize("op", sorted(OPERATORS))
@pytest.mark.parametrize("x", BITS, ids=lambda x: x.dtype.name)
def test_bit_operators(op: str, x: np.ndarray) -> None:
    fn = OPERATORS[op]
    keys = [(op, x.dtype) for op, x in BIT_CASES]
    want, want_vmap = JAX_BITS.result(keys.index((op, x.dtype)))
    x = _operand(op, x)
    assert_matches(fn(dnp.asarray(x)), want)
    assert_matches(didax.jit(fn)(x), want)
    assert_matches(didax.vmap(fn)(x.reshape(3, 1)), want_vmap)


def test_invert_of_float_is_a_type_error() -> None:
    x = np.ones(2, np.float32)
    with pytest.raises(TypeError):
        ~jnp.asarray(x)
    with pytest.raises(TypeError):
        ~dnp.asarray(x)
    with pytest.raises(TypeError):
        didax.jit(lambda t: ~t)(x)


C = np.array([1 + 2j, -3j], np.complex64)
F = np.array([2.0, 0.5], np.float32)


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, c, f: c / f,
        lambda lib, c, f: f / c,
        lambda lib, c, f: lib.divide(c, f),
        lambda lib, c, f: lib.true_divide(f, c),
        lambda lib, c, f: c / np.float32(2),
        lambda lib, c, f: c * f + f,
    ],
    ids=["c/f", "f/c", "divide", "true_divide", "c/np.float32", "mixed"],
)
def test_complex_by_float_promotes(fn) -> None:
    def jax_side(c, f):  # one program (eagerly, each of JAX's operations is a compile)
        return fn(jnp, c, f), jax.grad(lambda f: jnp.abs(fn(jnp, c, f)).sum())(f)

    want, want_grad = jax_quick(jax_side, C, F)
    assert_matches(fn(dnp, dnp.asarray(C), dnp.asarray(F)), want)
    assert_matches(didax.jit(lambda c, f: fn(dnp, c, f))(C, F), want)
    assert_matches(didax.vmap(lambda c, f: fn(dnp, c, f))(C, F), want)
    assert_matches(didax.grad(lambda f: dnp.abs(fn(dnp, dnp.asarray(C), f)).sum())(F), want_grad)


def test_lax_div_rejects_mixed_dtypes_eagerly_as_staged() -> None:
    with pytest.raises(TypeError, match="same dtypes"):
        jax.lax.div(C, F)
    with pytest.raises(TypeError, match="same dtypes"):
        didax.lax.div(dnp.asarray(C), dnp.asarray(F))
    with pytest.raises(TypeError, match="same dtypes"):
        didax.jit(didax.lax.div)(C, F)


def _residual_kinds(lib, numpy, transform, x) -> list:
    seen = []

    @lib.custom_vjp
    def f(x):
        return numpy.sin(x)

    def fwd(x):
        return f(x), (numpy.cos(x), x * 2.0)

    def bwd(res, g):
        seen.append([(isinstance(r, float), getattr(r, "weak_type", None)) for r in res])
        seen.append((isinstance(g, float), getattr(g, "weak_type", None)))
        return (g * res[0],)

    f.defvjp(fwd, bwd)
    out = transform(lib, f)(x)
    return [out, seen]


@pytest.mark.parametrize(
    "transform",
    [
        lambda lib, f: lib.grad(f),
        lambda lib, f: lib.grad(lambda x: f(x * 2.0)),
        lambda lib, f: lib.value_and_grad(f),
        lambda lib, f: lib.jit(lib.grad(f)),
    ],
    ids=["grad", "grad_inner", "value_and_grad", "jit_grad"],
)
def test_custom_vjp_bwd_gets_weak_arrays(transform) -> None:
    want_out, want_seen = _residual_kinds(jax, jnp, transform, 0.5)
    got_out, got_seen = _residual_kinds(didax, dnp, transform, 0.5)
    assert got_seen == want_seen
    for g, w in zip(jax.tree.leaves(got_out), jax.tree.leaves(want_out), strict=True):
        assert_matches(g, w)


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, z: lib.numpy.real(z),
        lambda lib, z: lib.numpy.imag(z),
        lambda lib, z: lib.numpy.abs(z) ** 2,
        lambda lib, z: lib.numpy.real(z * z),
        lambda lib, z: lib.numpy.real(lib.numpy.conj(z) * 3.0),
        lambda lib, z: lib.numpy.real(z * np.complex64(2)),  # a strong operand: convert
    ],
    ids=["real", "imag", "abs2", "real_sq", "conj", "strong_operand"],
)
def test_complex_gradients_keep_jax_weak_type(fn) -> None:
    zs = (3.0 + 4.0j, np.complex64(3 + 4j))

    def jax_side(zs, w, ct):  # one program (a Python scalar argument is weak, as eagerly)
        grads = [jax.grad(lambda z: fn(jax, z))(z) for z in zs]
        holomorphic = jax.grad(lambda z: z * z, holomorphic=True)(w)
        return grads, holomorphic, jax.vjp(lambda z: z * z, w)[1](ct)[0]

    grads, holomorphic, pulled = jax_quick(jax_side, zs, 3.0 + 4.0j, 1.0 + 0j)
    for z, want in zip(zs, grads, strict=True):
        assert_matches(didax.grad(lambda z: fn(didax, z))(z), want)
    assert_matches(didax.grad(lambda z: z * z, holomorphic=True)(3.0 + 4.0j), holomorphic)
    assert_matches(didax.vjp(lambda z: z * z, 3.0 + 4.0j)[1](1.0 + 0j)[0], pulled)
