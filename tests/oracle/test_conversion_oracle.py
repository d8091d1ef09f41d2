"""Oracle: Python and NumPy conversions of tracers (`float`, `int`, `bool`, `complex`,
`__index__`, `np.asarray`, `__array__`, `.item()`, `.tolist()`) under `grad`, `jit`, `vmap`
and `make_jaxpr`, against JAX (issue 14, item 2).

Each conversion either gives JAX's value (a concrete value where JAX has one: `int(x)` and
`x.item()` under `grad` of a function that is not jitted) or raises JAX's exception type
(`didax.errors.X` for `jax.errors.X`) with JAX's first message line. `float(x) * x` under
`grad` once returned a silently wrong gradient (3.0 for 6.0).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

pytestmark = pytest.mark.oracle

CONVERSIONS: dict[str, Callable[[Any], Any]] = {
    "float": lambda x: float(x) * x,
    "int": lambda x: int(x) * x,
    "bool": lambda x: x * bool(x),
    "complex": lambda x: complex(x).real * x,
    "index": lambda x: x * [1.0, 2.0, 3.0, 4.0][operator.index(x)],
    "np.asarray": lambda x: np.asarray(x) * x,
    "__array__": lambda x: x.__array__() * x,
    "item": lambda x: x.item() * x,
    "tolist": lambda x: x.tolist() * x,
    "range": lambda x: x * len(range(x)),
}

# (name, transformation, argument): float arguments for grad; ints reach __index__ too
TRANSFORMS = {
    "grad": (lambda m, f: m.grad(f), 3.0),
    "grad_int_index": (lambda m, f: m.grad(lambda x: f(x.astype("int32")) * x), 2.0),
    "jit": (lambda m, f: m.jit(f), 3.0),
    "jit_int": (lambda m, f: m.jit(f), 2),
    "vmap": (lambda m, f: m.vmap(f), np.ones(2, np.float32)),
    "make_jaxpr": (lambda m, f: lambda x: m.make_jaxpr(f)(x).eqns, 2),
    "jvp": (lambda m, f: lambda x: m.jvp(f, (x,), (1.0,))[1], 3.0),
}


def _outcome(module: Any, transform: Callable, fn: Callable, arg: Any) -> tuple:
    try:
        out = transform(module, fn)(arg)
    except Exception as e:  # the outcome under test
        return ("raises", type(e).__name__, type(e).__mro__, str(e).splitlines()[0])
    return ("value", out)


@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("conversion", CONVERSIONS)
def test_conversion_matches_jax(conversion: str, transform: str) -> None:
    make, arg = TRANSFORMS[transform]
    fn = CONVERSIONS[conversion]
    got = _outcome(didax, make, fn, arg)
    want = _outcome(jax, make, fn, arg)
    assert got[0] == want[0], (got, want)
    if got[0] == "value":
        if transform != "make_jaxpr":
            np.testing.assert_allclose(np.asarray(got[1]), np.asarray(want[1]), rtol=1e-6)
        return
    assert got[1] == want[1], (got, want)
    if issubclass(getattr(jax.errors, want[1], object), jax.errors.JAXTypeError):
        error = getattr(didax.errors, want[1])
        assert error in got[2]
        assert got[3] == want[3]  # JAX's first line: the operation and the aval
    else:  # a builtin TypeError / ValueError, raised before any tracer error
        assert got[2][0] is want[2][0]


# `bool` of a traced array that is not one element: NumPy's ValueError, before any tracer error
ARRAY_TRANSFORMS = {
    "jit": lambda m, f, x: m.jit(f)(x),
    "make_jaxpr": lambda m, f, x: m.make_jaxpr(f)(x),
    "grad": lambda m, f, x: m.grad(lambda v: (f(v) * v).sum())(x),
    "jvp": lambda m, f, x: m.jvp(f, (x,), (x,)),
    "vmap": lambda m, f, x: m.vmap(f)(np.stack([x, x])),
}


@pytest.mark.parametrize("shape", [(0,), (0, 3), (2,)])
@pytest.mark.parametrize("transform", ARRAY_TRANSFORMS)
def test_bool_of_an_empty_or_many_element_tracer_as_jax(transform: str, shape: tuple) -> None:
    x = np.ones(shape, np.float32)
    run = ARRAY_TRANSFORMS[transform]
    got = _outcome(didax, lambda m, f: lambda a: run(m, f, a), lambda v: v * bool(v), x)
    want = _outcome(jax, lambda m, f: lambda a: run(m, f, a), lambda v: v * bool(v), x)
    assert want[:2] == ("raises", "ValueError"), want
    assert got[:2] == want[:2] and got[3] == want[3], (got, want)


def test_float_times_x_under_grad_is_no_longer_a_wrong_gradient() -> None:
    with pytest.raises(didax.errors.ConcretizationTypeError, match="`float` function"):
        didax.grad(lambda x: float(x) * x)(3.0)
    with pytest.raises(didax.errors.TracerArrayConversionError):
        didax.grad(lambda x: dnp.sum(np.asarray(x) * x))(dnp.ones(3))


def test_item_under_grad_of_an_eager_function_is_the_concrete_value() -> None:
    assert float(didax.grad(lambda x: x.item() * x)(3.0)) == 3.0
    assert float(jax.grad(lambda x: x.item() * x)(3.0)) == 3.0


def test_the_message_points_at_the_line_that_converted() -> None:
    def f(x):
        return float(x) * x  # the line the message names

    line = f.__code__.co_firstlineno + 1
    with pytest.raises(didax.errors.ConcretizationTypeError) as info:
        didax.jit(f)(1.0)
    assert f"{__file__}:{line} (in f)" in str(info.value)


@pytest.mark.parametrize(
    "name",
    [
        "JAXTypeError",
        "ConcretizationTypeError",
        "TracerBoolConversionError",
        "TracerIntegerConversionError",
        "TracerArrayConversionError",
        "UnexpectedTracerError",
        "JaxprTypeError",
    ],
)
def test_errors_module_mirrors_jax_errors(name: str) -> None:
    ours, theirs = getattr(didax.errors, name), getattr(jax.errors, name)
    ours_bases = [c.__name__ for c in ours.__mro__ if c.__module__.startswith("didax")]
    theirs_bases = [c.__name__ for c in theirs.__mro__ if c.__module__.startswith("jax.errors")]
    assert ours_bases == theirs_bases or (name == "JaxprTypeError" and ours_bases == [name])
    builtin = [c for c in theirs.__mro__ if c.__module__ == "builtins"]
    assert [c for c in ours.__mro__ if c.__module__ == "builtins"] == builtin
