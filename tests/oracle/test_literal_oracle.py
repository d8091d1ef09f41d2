"""Oracle: literals in jaxprs print as JAX 0.10.2 prints them.

JAX keeps a Python scalar literal as written (`mul a 1.67:f32[]`, `(1+2j):c64[]`), while a
NumPy scalar or a value converted to a narrower dtype prints rounded to its dtype
(`1.6699999570846558:f32[]`, `1.669921875:f16[]`). Checked over many values and dtypes, weak
and strong, with x64 off and on.
"""

from __future__ import annotations

import didax
import didax.numpy as dnp
import ml_dtypes
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

pytestmark = pytest.mark.oracle
from helpers.jaxpr_text import canonical
from helpers.oracle import x64_in_both

FLOATS = [
    0.1,
    1.67,
    1e-8,
    1e20,
    3.0,
    -0.0,
    1 / 3,
    123456789.0,
    2.5e-40,
    6.02214076e23,
    float("inf"),
    -float("inf"),
    float("nan"),
    65504.0,
]
COMPLEXES = [1 + 2j, 1.67 + 0.1j, 0.1j, -1e-8 + 3j, complex(1 / 3, -2 / 3), 2j * 1e20]
ARRAY_DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16, np.complex64]


def texts(f, arg):
    got = didax.make_jaxpr(lambda x: f(dnp, x))(arg)
    want = jax.make_jaxpr(lambda x: f(jnp, x))(arg)
    return canonical(str(got)), canonical(str(want))


@pytest.mark.parametrize("dtype", ARRAY_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("value", FLOATS + COMPLEXES, ids=repr)
def test_python_scalar_literals(dtype, value):
    # (a complex scalar makes a float array complex: the literal is then complex64)
    got, want = texts(lambda np_, x: x * value, np.ones(2, dtype))
    assert got == want


@pytest.mark.parametrize("value", FLOATS + COMPLEXES, ids=repr)
def test_numpy_scalar_literals(value):
    dtype = np.complex64 if isinstance(value, complex) else np.float32
    got, want = texts(lambda np_, x: x + dtype(value), np.ones((), dtype))
    assert got == want


@pytest.mark.parametrize("value", [0, 1, -7, 2**31 - 1, True, False])
def test_integer_and_bool_literals(value):
    got, want = texts(lambda np_, x: x * value, np.ones(2, np.int32))
    assert got == want
    got, want = texts(lambda np_, x: x * value, np.ones(2, np.float32))
    assert got == want


def test_literals_under_grad_and_jit():
    def f(np_, x):
        lib = didax if np_ is dnp else jax
        return lib.grad(lambda y: np_.sin(y) * 1.3 + y**2 * 0.1)(x)

    got, want = texts(f, 1.0)  # weak: the literals stay as written
    assert got == want
    assert "1.3:f32[]" in got and "0.1:f32[]" in got
    got, want = texts(f, np.float32(1.0))  # strong: rounded to float32
    assert got == want
    assert "1.2999999523162842:f32[]" in got


@pytest.fixture
def x64():
    with x64_in_both():
        yield


@pytest.mark.parametrize("value", FLOATS + COMPLEXES, ids=repr)
def test_literals_with_x64(x64, value):
    got, want = texts(lambda np_, x: x * value, 2.0)  # a weak float64 argument
    assert got == want
    got, want = texts(lambda np_, x: x * value, np.ones(2, np.float32))
    assert got == want
