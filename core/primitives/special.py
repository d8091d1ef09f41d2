"""Special functions as lax primitives: `erf_inv` (the inverse error function), which
`random.normal` and `random.truncated_normal` use, as JAX's do.

Also `erf` and `nextafter` (for `truncated_normal`).

Layer 2. The lowering is CHLO's `erf_inv`, which XLA expands to a polynomial (Giles,
"Approximating the erfinv function", 2010); the NumPy impl evaluates that same polynomial in
float32, so eager values differ from compiled ones only where NumPy's `log1p` and XLA's differ
in the last bit (as eager `log` does elsewhere in didax).
"""

from __future__ import annotations

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


@core.jvp_rules.register(erf_inv_p)
def _erf_inv_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    y = erf_inv(x)
    if isinstance(x_dot, core.Zero):
        return [y], [x_dot]
    # d/dx erfinv(x) = sqrt(pi)/2 * exp(erfinv(x)^2)
    scale = elementwise.mul(
        np.float32(np.sqrt(np.pi) / 2).astype(core.get_aval(y).dtype),
        elementwise.exp(elementwise.mul(y, y)),
    )
    return [y], [elementwise.mul(x_dot, scale)]


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


@core.jvp_rules.register(erf_p)
def _erf_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    y = erf(x)
    if isinstance(x_dot, core.Zero):
        return [y], [x_dot]
    # d/dx erf(x) = 2/sqrt(pi) * exp(-x^2)
    dtype = core.get_aval(y).dtype
    scale = elementwise.mul(
        np.array(2 / np.sqrt(np.pi), dtype),
        elementwise.exp(elementwise.neg(elementwise.mul(x, x))),
    )
    return [y], [elementwise.mul(x_dot, scale)]


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


@core.jvp_rules.register(nextafter_p)
def _nextafter_jvp(primals, tangents):
    out = nextafter(*primals)
    return [out], [core.Zero.like(out)]  # piecewise constant, as JAX's


# no transpose rule: zero derivative (ZERO_DERIVATIVE in tests/lax/test_rule_coverage.py)
core.vmap_rules.register(nextafter_p, vmap_helpers.broadcasting_vmap(nextafter))


@core.lowering_rules.register(nextafter_p)
def _nextafter_lowering(ctx, x1, x2):
    x1, x2 = rules.broadcast_operands(ctx, (x1, x2))
    return [client.runtime().chlo.next_after(x1, x2)]
