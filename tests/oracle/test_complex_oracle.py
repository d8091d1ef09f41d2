"""Oracle: complex numbers end to end, against JAX 0.10.2 (x64 off).

Promotion with Python complex scalars (weak) and complex arrays; every elementwise,
reduction and dot operation JAX accepts complex for, eager and under `jit`; the `real`,
`imag`, `conj`, `complex` primitives and `jnp.angle`; the TypeErrors of operations that reject
complex; autodiff: C-linear jvp, `grad` of real functions of complex inputs, `holomorphic=`,
transposes of the complex primitives; and the jaxprs, complex literals included.
"""

from __future__ import annotations

from functools import partial

import didax
import didax.numpy as dnp
import ml_dtypes
import numpy as np
import pytest
from didax.test_util import check_grads
from helpers.grouped import Grouped
from helpers.oracle import EagerJax, assert_matches, jax_quick

jax = pytest.importorskip("jax")
jnp = jax.numpy

pytestmark = pytest.mark.oracle
from helpers.jaxpr_text import canonical

Z = np.array([1 + 2j, -0.5 + 0.3j, 2.0 - 1.5j], np.complex64)
W = np.array([0.25 - 1j, 1.5 + 0.5j, -1.0 + 0.75j], np.complex64)
X = np.array([0.5, -1.25, 2.0], np.float32)


def assert_tree_matches(got, want):
    got_leaves, want_leaves = didax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert_matches(g, w)


# ----------------------------------------------------------------------------- promotion

SCALARS = [True, 2, 1.5, 1 + 2j]
DTYPES = ["bool", "int32", "float16", "bfloat16", "float32", "complex64"]
DTYPE = {name: np.dtype(ml_dtypes.bfloat16 if name == "bfloat16" else name) for name in DTYPES}


def _with_scalar(dtype, scalar, lib, np_):
    x = np_.ones(2, dtype=DTYPE[dtype])
    return x + scalar, scalar * x


def _with_array(a, b, lib, np_):
    x = np_.ones(2, dtype=DTYPE[a])
    y = np_.full(2, 2, dtype=DTYPE[b])
    return x * y


def _matches_jax(key, make):
    """didax's `make(didax, dnp)` matches JAX's (JAX_SIDE, below)."""
    assert_tree_matches(make(didax, dnp), JAX_SIDE.result(key))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
def test_promotion_with_python_scalars(dtype, scalar):
    _matches_jax(("scalar", dtype, repr(scalar)), partial(_with_scalar, dtype, scalar))


ARRAY_PAIRS = [(a, b) for a in DTYPES for b in DTYPES if "complex64" in (a, b)]


@pytest.mark.parametrize(("a", "b"), ARRAY_PAIRS)
def test_promotion_of_arrays_with_complex(a, b):
    _matches_jax(("arrays", a, b), partial(_with_array, a, b))


def _scalars_and_arrays(lib, np_):
    return (
        np_.asarray(1j),
        np_.array([1 + 2j, 3]),
        np_.asarray(np.array([1 + 2j], np.complex128)),  # complex128 -> complex64
        np_.zeros(2, np.complex64),
        np_.asarray(2.0) + 1j,
        np_.ones(2, np_.int32) * 1j,
        np_.exp(1j),  # a weak complex scalar gives weak results
        lib.lax.real(1j),
        lib.lax.abs(2j),
        lib.jvp(np_.exp, (1j,), (1.0 + 0j,)),
    )


def test_scalars_and_arrays_of_complex():
    _matches_jax("scalars_and_arrays", _scalars_and_arrays)
    assert complex(dnp.asarray(1 + 2j)) == 1 + 2j


# ----------------------------------------------------------------------------- operations

UNARY = {
    "negative": lambda np_, z: -z,
    "exp": lambda np_, z: np_.exp(z),
    "log": lambda np_, z: np_.log(z),
    "sin": lambda np_, z: np_.sin(z),
    "cos": lambda np_, z: np_.cos(z),
    "tan": lambda np_, z: np_.tan(z),
    "tanh": lambda np_, z: np_.tanh(z),
    "sqrt": lambda np_, z: np_.sqrt(z),
    "expm1": lambda np_, z: np_.expm1(z),
    "log1p": lambda np_, z: np_.log1p(z),
    "abs": lambda np_, z: np_.abs(z),
    "sign": lambda np_, z: np_.sign(z),
    "square": lambda np_, z: z**2,
    "cube": lambda np_, z: z**3,
    "inverse": lambda np_, z: z**-1,
    "pow_float": lambda np_, z: z**2.5,
    "real": lambda np_, z: np_.real(z),
    "imag": lambda np_, z: np_.imag(z),
    "conj": lambda np_, z: np_.conj(z),
    "conj_method": lambda np_, z: z.conj(),
    "real_property": lambda np_, z: (z.real, z.imag),
    "angle": lambda np_, z: np_.angle(z),
    "angle_deg": lambda np_, z: np_.angle(z, deg=True),
    "sum": lambda np_, z: np_.sum(z),
    "prod": lambda np_, z: np_.prod(z),
    "mean": lambda np_, z: np_.mean(z),
    "cumsum": lambda np_, z: np_.cumsum(z),
    "dot": lambda np_, z: np_.dot(z, z),
    "outer_matmul": lambda np_, z: z[:, None] @ z[None, :],
    "astype_float32": lambda np_, z: z.astype(np_.float32),
    "eq": lambda np_, z: (z == z[0], z != 1j),
    "where": lambda np_, z: np_.where(np_.abs(z) > 1, z, 0j),
    "reshape_transpose": lambda np_, z: np_.reshape(z, (3, 1)).T,
    "concatenate": lambda np_, z: np_.concatenate([z, z * 1j]),
    "index": lambda np_, z: (z[1], z[::-1]),
    "sort": lambda np_, z: np_.sort(np_.concatenate([z, z[::-1].real + 0j, z.conj()])),
    "isfinite": lambda np_, z: np_.isfinite(z / np_.asarray([1, 0, 1], np_.float32)),
    "isinf_isnan": lambda np_, z: (np_.isinf(z / 0), np_.isnan(z * np_.nan)),
    "isclose": lambda np_, z: (np_.isclose(z, z + 1e-7), np_.allclose(z, z * (1 + 1e-3j))),
    "round": lambda np_, z: np_.round(z * 3.3),
    "var_std": lambda np_, z: (np_.var(z), np_.std(z)),
    "norm": lambda np_, z: np_.linalg.norm(z),
    "max_reduction": lambda np_, z: np_.max(z),
}


def _jitted(lib, table, inputs):
    """`lib.jit` of each of a table's functions (sorted by name) as one program
    (helpers/grouped.py); `inputs(np_module)` their arguments."""
    np_ = dnp if lib is didax else jnp
    return Grouped(lib.jit, lambda: [(f, inputs(np_)) for _, f in sorted(table.items())])


# Both libraries' `jit`s of each table as one program each. Checked when grouped (2026-11-26):
# every result has the bits of its own `jit`.
JITTED_UNARY = {
    lib: _jitted(
        lib,
        {n: partial(UNARY[n], dnp if lib is didax else jnp) for n in UNARY},
        lambda np_: (np_.asarray(Z),),
    )
    for lib in (didax, jax)
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("jitted", [False, True], ids=["eager", "jit"])
def test_complex_operations(name, jitted):
    if jitted:
        index = sorted(UNARY).index(name)
        assert_tree_matches(JITTED_UNARY[didax].result(index), JITTED_UNARY[jax].result(index))
        return
    _matches_jax(("unary", name), lambda lib, np_: UNARY[name](np_, lib.numpy.asarray(Z)))


BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
    "mul_real": lambda a, b: a * b.real,
    "maximum": lambda a, b: jax_or_didax(a).numpy.maximum(a, b.real + a.imag * 1j),
    "minimum": lambda a, b: jax_or_didax(a).numpy.minimum(a, b.real + a.imag * 1j),
    "less": lambda a, b: (a < b, a <= a.real + b.imag * 1j, a > b, a >= b),
    "complex": lambda a, b: jax_or_didax(a).lax.complex(a.real, b.imag),
    "clamp": lambda a, b: jax_or_didax(a).lax.clamp(b[0], a, b[1]),
}


def jax_or_didax(x):
    return didax if isinstance(x, didax.Array) or isinstance(x, didax.core.Tracer) else jax


JITTED_BINARY = {  # checked as JITTED_UNARY
    lib: _jitted(lib, BINARY, lambda np_: (np_.asarray(Z), np_.asarray(W))) for lib in (didax, jax)
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("jitted", [False, True], ids=["eager", "jit"])
def test_complex_binary_operations(name, jitted):
    if jitted:
        index = sorted(BINARY).index(name)
        assert_tree_matches(JITTED_BINARY[didax].result(index), JITTED_BINARY[jax].result(index))
        return
    _matches_jax(("binary", name), lambda lib, np_: BINARY[name](np_.asarray(Z), np_.asarray(W)))


REJECTED = {
    "lt": lambda lib, z: lib.lax.lt(z, z),
    "ge": lambda lib, z: lib.lax.ge(z, z),
    "floor": lambda lib, z: lib.lax.floor(z),
    "round": lambda lib, z: lib.lax.round(z),
    "is_finite": lambda lib, z: lib.lax.is_finite(z),
    "rem": lambda lib, z: lib.lax.rem(z, z),
    "real_of_float": lambda lib, z: lib.lax.real(lib.lax.abs(z)),
    "complex_of_ints": lambda lib, z: lib.lax.complex(1, 2),
    "complex_of_complex": lambda lib, z: lib.lax.complex(z, z),
    "argmax": lambda lib, z: lib.numpy.argmax(z),
}


def test_clip_of_complex_raises_as_jax():
    for lib in (jax, didax):
        with pytest.raises(ValueError, match="Clip received a complex value"):
            lib.numpy.clip(lib.numpy.asarray(Z), 0, 1)


@pytest.mark.parametrize("name", sorted(REJECTED))
@pytest.mark.parametrize("jitted", [False, True], ids=["eager", "jit"])
def test_operations_that_reject_complex(name, jitted):
    for lib in (jax, didax):
        f = lambda z, lib=lib: REJECTED[name](lib, z)  # noqa: E731
        with pytest.raises(TypeError):
            (lib.jit(f) if jitted else f)(lib.numpy.asarray(Z))


def test_reject_message_names_the_operation_and_dtype():
    with pytest.raises(TypeError, match="floor does not accept dtype complex64"):
        didax.lax.floor(dnp.asarray(Z))
    with pytest.raises(TypeError, match="lt does not accept dtype complex64"):
        didax.make_jaxpr(didax.lax.lt)(Z, Z)


# ----------------------------------------------------------------------------- autodiff

REAL_OF_COMPLEX = {
    "abs_squared": lambda np_, z: np_.sum(np_.abs(z) ** 2),
    "abs": lambda np_, z: np_.sum(np_.abs(z)),
    "real_square": lambda np_, z: np_.real(np_.sum(z * z)),
    "imag_sin": lambda np_, z: np_.imag(np_.sum(np_.sin(z))),
    "conj_product": lambda np_, z: np_.real(np_.sum(np_.conj(z) * z * (2 + 1j))),
    "angle": lambda np_, z: np_.sum(np_.angle(z)),
    "exp_abs": lambda np_, z: np_.sum(np_.abs(np_.exp(z * 0.5j))),
    "div_real": lambda np_, z: np_.real(np_.sum(1.0 / z)),
}


def _grads_of_real(name, lib, np_):
    f = lambda z: REAL_OF_COMPLEX[name](np_, z)  # noqa: E731
    return lib.grad(f)(Z), lib.jit(lib.grad(f))(Z), lib.value_and_grad(f)(Z)


@pytest.mark.parametrize("name", sorted(REAL_OF_COMPLEX))
def test_grad_of_real_function_of_complex_input(name):
    _matches_jax(("real_of_complex", name), partial(_grads_of_real, name))


HOLOMORPHIC = {
    "poly": lambda np_, z: np_.sum(z * z * 3.0 + z),
    "exp_sin": lambda np_, z: np_.sum(np_.exp(z) * np_.sin(z)),
    "log_sqrt": lambda np_, z: np_.sum(np_.log(z) + np_.sqrt(z)),
    "tanh_div": lambda np_, z: np_.sum(np_.tanh(z) / (z + 2.0)),
    "pow": lambda np_, z: np_.sum(z**3 + z**1.5),
}


@pytest.mark.parametrize("name", sorted(HOLOMORPHIC))
def test_holomorphic_derivatives(name):
    def make(lib, np_, z, w):
        f = lambda z: HOLOMORPHIC[name](np_, z)  # noqa: E731
        g = lambda z: f(z) * z  # noqa: E731 - a vector-valued holomorphic function
        return (
            lib.grad(f, holomorphic=True)(z),
            lib.jacfwd(g, holomorphic=True)(z),
            lib.jacrev(g, holomorphic=True)(z),
            lib.jvp(g, (z,), (w,)),
            lib.vjp(g, z)[1](w),
        )

    # JAX's side as one program (eagerly, each of its operations is a compile of its own)
    want = jax_quick(lambda z, w: make(jax, jnp, z, w), Z, W)
    assert_tree_matches(make(didax, dnp, Z, W), want)


def _jvp_and_vjp(lib, np_):
    f = lambda z, x: np_.sin(z) * x + np_.conj(z) * np_.abs(z)  # noqa: E731
    out, pullback = lib.vjp(f, Z, X)
    return lib.jvp(f, (Z, X), (W, X)), out, pullback(W)


def test_jvp_is_complex_linear_and_vjp_matches():
    _matches_jax("jvp_and_vjp", _jvp_and_vjp)


def _real_input(lib, np_):
    f = lambda x: np_.real(np_.exp(1j * x) * (2 - 1j)).sum()  # noqa: E731
    return lib.grad(f)(X), lib.jacfwd(lambda x: np_.abs(x * (1 + 1j)))(X)


def test_real_input_complex_intermediate():
    _matches_jax("real_input", _real_input)


def _complex_parts(lib, np_):
    f = lambda x, y: np_.abs(lib.lax.complex(x, y)) ** 2 + np_.imag(lib.lax.complex(x, y))  # noqa: E731
    return lib.grad(f, argnums=(0, 1))(np.float32(1.5), np.float32(-2.0))


def test_grad_of_complex_parts():
    _matches_jax("complex_parts", _complex_parts)


TRANSPOSED = {
    "real": (lambda lib, z: lib.lax.real(z), Z, X),
    "imag": (lambda lib, z: lib.lax.imag(z), Z, X),
    "conj": (lambda lib, z: lib.lax.conj(z), Z, W),
    "conj_of_real": (lambda lib, x: lib.lax.conj(x), X, W),
    "complex_x": (lambda lib, x: lib.lax.complex(x, X), X, W),
    "mul_by_complex_constant": (lambda lib, z: z * (2 - 3j), Z, W),
}


def _transposed(name, lib, np_):
    f, primal, ct = TRANSPOSED[name]
    return lib.linear_transpose(lambda v: f(lib, v), primal)(ct)


def test_linear_transposes_of_complex_primitives():
    for name in TRANSPOSED:
        _matches_jax(("transpose", name), partial(_transposed, name))


def test_grad_errors_as_jax():
    cases = [
        ("complex output", lambda lib: lib.grad(lambda z: (z * z).sum())(Z)),
        ("holomorphic real input", lambda lib: lib.grad(lambda x: x.sum(), holomorphic=True)(X)),
        (
            "holomorphic real output",
            lambda lib: lib.grad(lambda z: lib.numpy.abs(z).sum(), holomorphic=True)(Z),
        ),
        ("jacfwd complex input", lambda lib: lib.jacfwd(lambda z: z * z)(Z)),
        ("jacrev complex output", lambda lib: lib.jacrev(lambda z: z * z)(Z)),
        ("jacfwd holomorphic real", lambda lib: lib.jacfwd(lambda x: x, holomorphic=True)(X)),
        ("jacrev holomorphic real", lambda lib: lib.jacrev(lambda x: x, holomorphic=True)(X)),
    ]
    for name, call in cases:
        with pytest.raises(TypeError) as want:
            call(jax)
        with pytest.raises(TypeError) as got:
            call(didax)
        assert str(got.value) == str(want.value), name


def test_check_grads_on_complex_functions():
    # second order in complex64: central differences of a pullback lose ~1e-2 to rounding
    check_grads(lambda z: dnp.sin(z) * dnp.conj(z), (Z,), order=2, atol=2e-2, rtol=2e-2)
    check_grads(lambda z: dnp.abs(z) * dnp.real(z) + dnp.imag(z), (Z,), order=1)
    check_grads(lambda x, y: didax.lax.complex(x, y) ** 2, (X, X[::-1]), order=2)


def _scaled(conjugated: bool):
    # `z * (2 + 1j)` with a hand-written pullback: JAX's convention transposes without
    # conjugating, so the conjugated pullback is wrong and check_grads must say so
    @didax.custom_vjp
    def f(z):
        return z * (2 + 1j)

    factor = (2 - 1j) if conjugated else (2 + 1j)
    f.defvjp(lambda z: (f(z), None), lambda _, ct: (ct * factor,))
    return f


def test_check_grads_uses_jax_convention_for_complex_cotangents():
    check_grads(_scaled(conjugated=False), (Z,), order=1, modes=("rev",))
    with pytest.raises(AssertionError):
        check_grads(_scaled(conjugated=True), (Z,), order=1, modes=("rev",))


# JAX's side of the tests above that compare whole computations, by key: compiled programs
# where they trace under `jit` (helpers/oracle.py; eagerly, each of JAX's operations is a
# compile of its own), eagerly where not
JAX_MAKERS = {
    **{("scalar", d, repr(s)): partial(_with_scalar, d, s) for d in DTYPES for s in SCALARS},
    **{("arrays", a, b): partial(_with_array, a, b) for a, b in ARRAY_PAIRS},
    "scalars_and_arrays": _scalars_and_arrays,
    **{("unary", n): lambda lib, np_, n=n: UNARY[n](np_, lib.numpy.asarray(Z)) for n in UNARY},
    **{
        ("binary", n): lambda lib, np_, n=n: BINARY[n](np_.asarray(Z), np_.asarray(W))
        for n in BINARY
    },
    **{("real_of_complex", n): partial(_grads_of_real, n) for n in REAL_OF_COMPLEX},
    "jvp_and_vjp": _jvp_and_vjp,
    "real_input": _real_input,
    "complex_parts": _complex_parts,
    **{("transpose", n): partial(_transposed, n) for n in TRANSPOSED},
}
JAX_SIDE = EagerJax(lambda: {k: (m, (jax, jnp), {}) for k, m in JAX_MAKERS.items()}, chunk=16)


# ----------------------------------------------------------------------------- jaxprs

JAXPRS = {
    "literal": (lambda lib, np_, z: z * (1 + 2j) + 0.5j, Z),
    "weak_float_to_complex": (lambda lib, np_, x: x * (1.67 + 0.1j), np.float32(1.0)),
    "parts": (lambda lib, np_, z: (np_.real(z), np_.imag(z), np_.conj(z), np_.abs(z)), Z),
    "angle": (lambda lib, np_, z: np_.angle(z), Z),
    "complex": (lambda lib, np_, x: lib.lax.complex(x, x), X),
    "reductions": (lambda lib, np_, z: np_.sum(z) + np_.prod(z), Z),
    "dot": (lambda lib, np_, z: z @ z, Z),
    "grad_real": (lambda lib, np_, z: lib.grad(lambda v: np_.real(v * v))(z), np.complex64(1 + 1j)),
    "grad_abs": (lambda lib, np_, z: lib.grad(lambda v: np_.abs(v))(z), np.complex64(1 + 1j)),
    "grad_imag": (lambda lib, np_, z: lib.grad(lambda v: np_.imag(v) * 2.0)(z), np.complex64(1j)),
    "holomorphic": (
        lambda lib, np_, z: lib.grad(lambda v: np_.sin(v) * v, holomorphic=True)(z),
        np.complex64(1 + 1j),
    ),
}


@pytest.mark.parametrize("name", sorted(JAXPRS))
def test_complex_jaxprs_print_as_jax(name):
    f, arg = JAXPRS[name]
    got = didax.make_jaxpr(lambda a: f(didax, dnp, a))(arg)
    want = jax.make_jaxpr(lambda a: f(jax, jnp, a))(arg)
    assert canonical(str(got)) == canonical(str(want))
