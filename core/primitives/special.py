"""Special functions as lax primitives: `erf_inv` (the inverse error function), which
`random.normal` and `random.truncated_normal` use, as JAX's do.

Also `erf` and `nextafter` (for `truncated_normal`).

Layer 2. The lowering is CHLO's `erf_inv`, which XLA expands to a polynomial (Giles,
"Approximating the erfinv function", 2010); the NumPy impl evaluates that same polynomial in
float32, so eager values differ from compiled ones only where NumPy's `log1p` and XLA's differ
in the last bit (as eager `log` does elsewhere in didax).
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import numpy as np
from didax import core
from didax.primitives import elementwise, rules, vmap_helpers
from didax.runtime import client

erf_inv_p = core.Primitive("erf_inv")

# Giles' single-precision coefficients, highest degree first: for w < 5 and for w >= 5.
_SMALL_W = (
    2.81022636e-08,
    3.43273939e-07,
    -3.5233877e-06,
    -4.39150654e-06,
    0.00021858087,
    -0.00125372503,
    -0.00417768164,
    0.246640727,
    1.50140941,
)
_LARGE_W = (
    -0.000200214257,
    0.000100950558,
    0.00134934322,
    -0.00367342844,
    0.00573950773,
    -0.0076224613,
    0.00943887047,
    1.00167406,
    2.83297682,
)


def erf_inv(x: Any) -> Any:
    """Elementwise inverse error function. Like `jax.lax.erf_inv`."""
    return erf_inv_p.bind(x)


def _erf_inv_numpy(x: np.ndarray) -> np.ndarray:
    dtype = x.dtype
    x32 = x.astype(np.float32)
    with np.errstate(all="ignore"):
        w = -np.log1p(x32 * -x32)
        small = w < np.float32(5)
        w = np.where(small, w - np.float32(2.5), np.sqrt(w) - np.float32(3))
        p = np.where(small, np.float32(_SMALL_W[0]), np.float32(_LARGE_W[0]))
        for a, b in zip(_SMALL_W[1:], _LARGE_W[1:], strict=True):
            p = np.where(small, np.float32(a), np.float32(b)) + p * w
        out = np.where(np.abs(x32) == 1, x32 * np.float32(np.inf), p * x32)
    return np.asarray(out, dtype)


core.impl_rules.register(
    erf_inv_p, rules.elementwise_impl(_erf_inv_numpy, rules.float_aval("erf_inv"), True)
)
core.abstract_eval_rules.register(erf_inv_p, rules.float_aval("erf_inv"))


def _erf_inv_jvp(t, x, y):  # d/dx erfinv(x) = sqrt(pi)/2 * exp(erfinv(x)^2)
    scale = elementwise.mul(
        np.float32(np.sqrt(np.pi) / 2).astype(core.get_aval(y).dtype),
        elementwise.exp(elementwise.mul(y, y)),
    )
    return elementwise.mul(t, scale)


core.jvp_rules.register(erf_inv_p, elementwise.partials_jvp(erf_inv_p, _erf_inv_jvp))


# no transpose rule: erf_inv is not linear (NONLINEAR in tests/lax/test_rule_coverage.py)
core.vmap_rules.register(erf_inv_p, rules.vectorized_vmap(erf_inv))


@core.lowering_rules.register(erf_inv_p)
def _erf_inv_lowering(ctx, x):
    return [client.runtime().chlo.erf_inv(x)]


# ----------------------------------------------------------------------------- erf

erf_p = core.Primitive("erf")


def erf(x: Any) -> Any:
    """Elementwise error function. Like `jax.lax.erf`."""
    return erf_p.bind(x)


_erf_numpy = np.vectorize(math.erf, otypes=[np.float64])  # NumPy has no erf; float64, rounded

core.impl_rules.register(
    erf_p,
    rules.elementwise_impl(
        lambda x: np.asarray(_erf_numpy(x), x.dtype), rules.float_aval("erf"), True
    ),
)
core.abstract_eval_rules.register(erf_p, rules.float_aval("erf"))


def _erf_jvp(t, x, y):  # d/dx erf(x) = 2/sqrt(pi) * exp(-x^2)
    dtype = core.get_aval(y).dtype
    scale = elementwise.mul(
        np.array(2 / np.sqrt(np.pi), dtype),
        elementwise.exp(elementwise.neg(elementwise.mul(x, x))),
    )
    return elementwise.mul(t, scale)


core.jvp_rules.register(erf_p, elementwise.partials_jvp(erf_p, _erf_jvp))


# no transpose rule: erf is not linear (NONLINEAR in tests/lax/test_rule_coverage.py)
core.vmap_rules.register(erf_p, rules.vectorized_vmap(erf))


@core.lowering_rules.register(erf_p)
def _erf_lowering(ctx, x):
    return [client.runtime().chlo.erf(x)]


# ----------------------------------------------------------------------------- nextafter

nextafter_p = core.Primitive("nextafter")


def nextafter(x1: Any, x2: Any) -> Any:
    """The next float after `x1` towards `x2`, elementwise. Like `jax.lax.nextafter`."""
    return nextafter_p.bind(x1, x2)


core.impl_rules.register(
    nextafter_p, rules.elementwise_impl(np.nextafter, rules.naryop_aval("nextafter", "float"))
)
core.abstract_eval_rules.register(nextafter_p, rules.naryop_aval("nextafter", "float"))


core.jvp_rules.register(nextafter_p, rules.zero_jvp(nextafter_p))  # piecewise constant, as JAX's


# no transpose rule: zero derivative (ZERO_DERIVATIVE in tests/lax/test_rule_coverage.py)
core.vmap_rules.register(nextafter_p, vmap_helpers.broadcasting_vmap(nextafter))


@core.lowering_rules.register(nextafter_p)
def _nextafter_lowering(ctx, x1, x2):
    x1, x2 = rules.broadcast_operands(ctx, (x1, x2))
    return [client.runtime().chlo.next_after(x1, x2)]


# ----------------------------------------------------------------------------- erfc, lgamma,
# digamma, polygamma: SciPy's functions for eager values (float64, rounded to the operand's
# dtype), CHLO's for compiled ones, as JAX lowers them.


def _scipy_special() -> Any:
    # SciPy's special functions are loaded on the first eager call, not at `import didax`
    # (they cost ~120 ms to import; this is not a cycle-dodging import)
    return importlib.import_module("scipy.special")


def _scipy_impl(fn: Any, name: str) -> core.ImplRule:
    def numpy_fn(*xs: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.asarray(fn(*(x.astype(np.float64) for x in xs)), xs[-1].dtype)

    aval = rules.float_aval(name) if name != "polygamma" else _polygamma_aval
    return rules.elementwise_impl(numpy_fn, aval, True)


def _unary_jvp(prim: core.Primitive, derivative: Any) -> core.JvpRule:
    # d prim(x) = derivative(x, prim(x)) dx
    return elementwise.partials_jvp(
        prim, lambda x_dot, x, y: elementwise.mul(x_dot, derivative(x, y))
    )


erfc_p = core.Primitive("erfc")


def erfc(x: Any) -> Any:
    """Elementwise complementary error function `1 - erf(x)`. Like `jax.lax.erfc`."""
    return erfc_p.bind(x)


def _erfc_numpy(x: np.ndarray) -> np.ndarray:
    return _scipy_special().erfc(x)


core.impl_rules.register(erfc_p, _scipy_impl(_erfc_numpy, "erfc"))
core.abstract_eval_rules.register(erfc_p, rules.float_aval("erfc"))


def _erfc_derivative(x, y):  # d/dx erfc(x) = -2/sqrt(pi) * exp(-x^2)
    scale = np.array(-2 / np.sqrt(np.pi), core.get_aval(y).dtype)
    return elementwise.mul(scale, elementwise.exp(elementwise.neg(elementwise.mul(x, x))))


core.jvp_rules.register(erfc_p, _unary_jvp(erfc_p, _erfc_derivative))
# no transpose rule: erfc is not linear (NONLINEAR in tests/lax/test_rule_coverage.py)
core.vmap_rules.register(erfc_p, rules.vectorized_vmap(erfc))


@core.lowering_rules.register(erfc_p)
def _erfc_lowering(ctx, x):
    return [client.runtime().chlo.erfc(x)]


lgamma_p = core.Primitive("lgamma")


def lgamma(x: Any) -> Any:
    """Elementwise log of the absolute value of the gamma function. Like `jax.lax.lgamma`."""
    return lgamma_p.bind(x)


def _lgamma_numpy(x: np.ndarray) -> np.ndarray:
    return np.where(np.isneginf(x), np.inf, _scipy_special().gammaln(x))  # XLA: +inf at -inf


core.impl_rules.register(lgamma_p, _scipy_impl(_lgamma_numpy, "lgamma"))
core.abstract_eval_rules.register(lgamma_p, rules.float_aval("lgamma"))
# d/dx log|gamma(x)| = digamma(x)
core.jvp_rules.register(lgamma_p, _unary_jvp(lgamma_p, lambda x, y: digamma(x)))
# no transpose rule: lgamma is not linear (NONLINEAR in tests/lax/test_rule_coverage.py)
core.vmap_rules.register(lgamma_p, rules.vectorized_vmap(lgamma))


@core.lowering_rules.register(lgamma_p)
def _lgamma_lowering(ctx, x):
    return [client.runtime().chlo.lgamma(x)]


digamma_p = core.Primitive("digamma")


def digamma(x: Any) -> Any:
    """Elementwise digamma function, the derivative of `lgamma`. Like `jax.lax.digamma`."""
    return digamma_p.bind(x)


def _digamma_numpy(x: np.ndarray) -> np.ndarray:
    pole = (x <= 0) & (x == np.floor(x))  # XLA: NaN at 0 and the negative integers
    return np.where(pole, np.nan, _scipy_special().digamma(x))


core.impl_rules.register(digamma_p, _scipy_impl(_digamma_numpy, "digamma"))
core.abstract_eval_rules.register(digamma_p, rules.float_aval("digamma"))


def _digamma_derivative(x, y):  # d/dx digamma(x) = polygamma(1, x)
    return polygamma(np.array(1, core.get_aval(y).dtype), x)


core.jvp_rules.register(digamma_p, _unary_jvp(digamma_p, _digamma_derivative))
# no transpose rule: digamma is not linear (NONLINEAR in tests/lax/test_rule_coverage.py)
core.vmap_rules.register(digamma_p, rules.vectorized_vmap(digamma))


@core.lowering_rules.register(digamma_p)
def _digamma_lowering(ctx, x):
    return [client.runtime().chlo.digamma(x)]


polygamma_p = core.Primitive("polygamma")


def polygamma(m: Any, x: Any) -> Any:
    """Elementwise polygamma function of order `m`. Like `jax.lax.polygamma`."""
    return polygamma_p.bind(m, x)


_polygamma_aval = rules.naryop_aval("polygamma", "float")


def _polygamma_numpy(m: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.where(np.isposinf(x), np.nan, _scipy_special().polygamma(m, x))  # XLA: NaN at inf


core.impl_rules.register(polygamma_p, _scipy_impl(_polygamma_numpy, "polygamma"))
core.abstract_eval_rules.register(polygamma_p, _polygamma_aval)


def _polygamma_m_partial(t, m, x, out):
    raise ValueError("polygamma gradient with respect to the order m is not supported")


def _polygamma_x_partial(t, m, x, out):  # d/dx polygamma(m, x) = polygamma(m + 1, x)
    one = np.array(1, core.get_aval(out).dtype)
    return elementwise.mul(t, polygamma(elementwise.add(m, one), x))


core.jvp_rules.register(
    polygamma_p, elementwise.partials_jvp(polygamma_p, _polygamma_m_partial, _polygamma_x_partial)
)


# no transpose rule: polygamma is not linear (NONLINEAR in tests/lax/test_rule_coverage.py)
core.vmap_rules.register(polygamma_p, vmap_helpers.broadcasting_vmap(polygamma))


@core.lowering_rules.register(polygamma_p)
def _polygamma_lowering(ctx, m, x):
    m, x = rules.broadcast_operands(ctx, (m, x))
    return [client.runtime().chlo.polygamma(m, x)]
