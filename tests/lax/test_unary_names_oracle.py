"""The unary lax primitives of issue 24 (`asin acos atan sinh cosh asinh acosh square
rsqrt`, JAX's primitives of those names) against JAX 0.10.2: the rules (`check_rules`),
values eagerly and under jit, gradients, vmap, and the jaxprs of values and gradients as JAX
prints them."""

from __future__ import annotations

import didax
import numpy as np
import pytest
from didax.test_util import check_rules

jax = pytest.importorskip("jax")
from helpers.jaxpr_text import canonical
from helpers.oracle import JaxOracle

pytestmark = pytest.mark.oracle

# name -> operands inside the function's domain (acosh: x >= 1, asin/acos: |x| < 1)
DOMAIN = {
    "asin": np.array([0.1, -0.5, 0.7, 0.0], np.float32),
    "acos": np.array([0.1, -0.5, 0.7, 0.0], np.float32),
    "atan": np.array([0.1, -2.5, 7.0, 0.0], np.float32),
    "sinh": np.array([0.1, -2.5, 3.0, 0.0], np.float32),
    "cosh": np.array([0.1, -2.5, 3.0, 0.0], np.float32),
    "asinh": np.array([0.1, -2.5, 7.0, 0.0], np.float32),
    "acosh": np.array([1.1, 2.5, 7.0, 1.5], np.float32),
    "square": np.array([0.1, -2.5, 7.0, 0.0], np.float32),
    "rsqrt": np.array([0.1, 2.5, 7.0, 1.0], np.float32),
}
SPECIAL = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0], np.float32)
COMPLEX = np.array([0.5 + 1j, -2 - 0.25j, 1j], np.complex64)


def _grad(lib, name):
    return lib.grad(lambda x: getattr(lib.lax, name)(x).sum())


def _jax_values(name):
    theirs = getattr(jax.lax, name)
    return lambda x, s, c: (theirs(x), theirs(s), theirs(c), _grad(jax, name)(x))


@pytest.mark.parametrize("name", sorted(DOMAIN))
def test_rules_values_jaxprs(name):
    x = DOMAIN[name]
    check_rules(getattr(didax.lax, f"{name}_p"), x)
    ours, theirs = getattr(didax.lax, name), getattr(jax.lax, name)
    *wants, want_grad = ORACLE.get(name)
    for v, want in zip((x, SPECIAL, COMPLEX), wants, strict=True):
        want = np.asarray(want)
        for fn in (ours, didax.jit(ours), didax.vmap(ours)):
            got = np.asarray(fn(v))
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6, equal_nan=True)
    got = str(didax.make_jaxpr(ours)(x))
    assert canonical(got) == canonical(str(jax.make_jaxpr(theirs)(x))), got
    loss = lambda lib: _grad(lib, name)  # noqa: E731
    np.testing.assert_allclose(np.asarray(loss(didax)(x)), want_grad, rtol=1e-5)
    got = str(didax.make_jaxpr(loss(didax))(x))
    assert canonical(got) == canonical(str(jax.make_jaxpr(loss(jax))(x))), got


@pytest.mark.parametrize("name", sorted(set(DOMAIN) - {"square"}))
def test_integer_input_is_a_type_error_as_in_jax(name):
    with pytest.raises(TypeError):
        getattr(jax.lax, name)(np.arange(3))
    with pytest.raises(TypeError, match=name):
        getattr(didax.lax, name)(np.arange(3))


def test_square_takes_integers_not_bools():
    x = np.arange(-3, 4, dtype=np.int32)
    for fn in (didax.lax.square, didax.jit(didax.lax.square)):
        np.testing.assert_array_equal(fn(x), jax.lax.square(x))
    for lib in (jax, didax):
        with pytest.raises(TypeError):
            lib.lax.square(np.array([True]))


NUMPY_NAMES = ["arcsin", "asin", "arccos", "acos", "arctan", "atan", "sinh", "cosh"]
NUMPY_NAMES += ["arcsinh", "asinh", "arccosh", "acosh", "square"]
NUMPY_INPUTS = [0.5, 3, np.float32(0.25), np.array([1, 2], np.int32), True, COMPLEX]


@pytest.mark.parametrize("name", NUMPY_NAMES)
def test_numpy_functions(name):
    ours, theirs = getattr(didax.numpy, name), getattr(jax.numpy, name)
    for i, x in enumerate(NUMPY_INPUTS):
        want = ORACLE.get((name, i))
        for fn in (ours, didax.jit(ours)):
            got = fn(x)
            assert got.dtype == want.dtype and got.weak_type == want.weak_type, (x, got, want)
            np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6, equal_nan=True)
    x = np.float32(1.5)
    got = str(didax.make_jaxpr(ours)(x))
    assert canonical(got) == canonical(str(jax.make_jaxpr(theirs)(x))), got


# JAX's answers, 26 to a compiled program (eagerly, each of JAX's operations is a compile of
# its own, for each shape and dtype)
ORACLE = JaxOracle.in_chunks(
    [
        *((name, _jax_values(name), [DOMAIN[name], SPECIAL, COMPLEX]) for name in sorted(DOMAIN)),
        *(
            ((name, i), getattr(jax.numpy, name), [x])
            for name in NUMPY_NAMES
            for i, x in enumerate(NUMPY_INPUTS)
        ),
    ],
    26,
)
