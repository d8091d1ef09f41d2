"""The hyperbolic primitives beyond `tanh`: `sinh`, `cosh` and the inverses `asinh`, `acosh`,
`atanh` (JAX's "custom interpreters" page inverts `tanh` with it). Like `jax.lax.sinh` ...

Layer 2, after `elementwise`. NumPy's function for eager values, CHLO's for compiled ones, as
JAX lowers them; each JVP is JAX's, term for term (`rsqrt(x^2 + 1)` for `asinh`, ...).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core
from didax.primitives import elementwise
from didax.primitives.elementwise.arithmetic import _const, _unary_primitive
from didax.runtime import client

sinh_p = _unary_primitive("sinh", np.sinh, complex_ok=True)
cosh_p = _unary_primitive("cosh", np.cosh, complex_ok=True)
asinh_p = _unary_primitive("asinh", np.arcsinh, complex_ok=True)
acosh_p = _unary_primitive("acosh", np.arccosh, complex_ok=True)
atanh_p = _unary_primitive("atanh", np.arctanh, complex_ok=True)


def sinh(x: Any) -> Any:
    """Elementwise hyperbolic sine. Like `jax.lax.sinh`."""
    return sinh_p.bind(x)


def cosh(x: Any) -> Any:
    """Elementwise hyperbolic cosine. Like `jax.lax.cosh`."""
    return cosh_p.bind(x)


def asinh(x: Any) -> Any:
    """Elementwise inverse hyperbolic sine. Like `jax.lax.asinh`."""
    return asinh_p.bind(x)


def acosh(x: Any) -> Any:
    """Elementwise inverse hyperbolic cosine. Like `jax.lax.acosh`."""
    return acosh_p.bind(x)


def atanh(x: Any) -> Any:
    """Elementwise inverse hyperbolic tangent. Like `jax.lax.atanh`."""
    return atanh_p.bind(x)


ew = elementwise
core.jvp_rules.register(sinh_p, ew.partials_jvp(sinh_p, lambda t, x, out: ew.mul(t, cosh(x))))
core.jvp_rules.register(cosh_p, ew.partials_jvp(cosh_p, lambda t, x, out: ew.mul(t, sinh(x))))
core.jvp_rules.register(  # d asinh x = dx / sqrt(x^2 + 1)
    asinh_p,
    ew.partials_jvp(
        asinh_p, lambda t, x, out: ew.mul(t, ew.rsqrt(ew.add(ew.square(x), _const(1.0, x))))
    ),
)
core.jvp_rules.register(  # d acosh x = dx / sqrt(x^2 - 1)
    acosh_p,
    ew.partials_jvp(
        acosh_p, lambda t, x, out: ew.mul(t, ew.rsqrt(ew.sub(ew.square(x), _const(1.0, x))))
    ),
)


def _atanh_partial(x_dot, x, out):
    one = _const(1.0, x)
    # d/dx atanh x = 1 / (1 - x^2), as (1 + x)^-1 * t / (1 - x)
    inv = ew.integer_pow(ew.add(one, x), -1)
    return ew.div(ew.mul(inv, x_dot), ew.sub(one, x))


core.jvp_rules.register(atanh_p, ew.partials_jvp(atanh_p, _atanh_partial))


# no transpose rules: not linear (NONLINEAR in tests/lax/test_rule_coverage.py)
def chlo_lowering(name: str) -> core.LoweringRule:
    """Lowering to the CHLO op `name` (`chlo.sinh`), as JAX lowers the ops XLA expands."""

    def rule(ctx: core.LoweringContext, x: Any) -> list:
        return [getattr(client.runtime().chlo, name)(x)]

    return rule


for _prim in (sinh_p, cosh_p, asinh_p, acosh_p, atanh_p):
    core.lowering_rules.register(_prim, chlo_lowering(_prim.name))
