"""The inverse trigonometric primitives `asin`, `acos`, `atan`. Like `jax.lax.asin` ...

Layer 2, after `hyperbolic` (whose CHLO lowering factory they share). NumPy's function for
eager values, CHLO's for compiled ones, as JAX lowers them; each JVP is JAX's, term for term
(`rsqrt(1 - x^2)` for `asin`, `t / (1 + x^2)` for `atan`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core
from didax.primitives import elementwise as ew
from didax.primitives.elementwise.arithmetic import _const, _unary_primitive
from didax.primitives.hyperbolic import chlo_lowering

asin_p = _unary_primitive("asin", np.arcsin, complex_ok=True)
acos_p = _unary_primitive("acos", np.arccos, complex_ok=True)
atan_p = _unary_primitive("atan", np.arctan, complex_ok=True)


def asin(x: Any) -> Any:
    """Elementwise arc sine. Like `jax.lax.asin`."""
    return asin_p.bind(x)


def acos(x: Any) -> Any:
    """Elementwise arc cosine. Like `jax.lax.acos`."""
    return acos_p.bind(x)


def atan(x: Any) -> Any:
    """Elementwise arc tangent. Like `jax.lax.atan`."""
    return atan_p.bind(x)


def _one_minus_square_rsqrt(x: Any) -> Any:
    return ew.rsqrt(ew.sub(_const(1.0, x), ew.square(x)))


core.jvp_rules.register(  # d asin x = dx / sqrt(1 - x^2)
    asin_p, ew.partials_jvp(asin_p, lambda t, x, out: ew.mul(t, _one_minus_square_rsqrt(x)))
)
core.jvp_rules.register(  # d acos x = -dx / sqrt(1 - x^2)
    acos_p,
    ew.partials_jvp(acos_p, lambda t, x, out: ew.mul(t, ew.neg(_one_minus_square_rsqrt(x)))),
)
core.jvp_rules.register(  # d atan x = dx / (1 + x^2)
    atan_p,
    ew.partials_jvp(atan_p, lambda t, x, out: ew.div(t, ew.add(_const(1.0, x), ew.square(x)))),
)
# no transpose rules: not linear (NONLINEAR in tests/lax/test_rule_coverage.py)
for _prim in (asin_p, acos_p, atan_p):
    core.lowering_rules.register(_prim, chlo_lowering(_prim.name))
