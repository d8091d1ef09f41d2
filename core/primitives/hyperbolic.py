"""The inverse hyperbolic primitives beyond `tanh`: `atanh` (JAX's "custom interpreters"
page inverts `tanh` with it). Like `jax.lax.atanh`.

Layer 2, after `elementwise`. NumPy's function for eager values, CHLO's for compiled ones, as
JAX lowers them; the JVP is JAX's `1 / (1 + x) / (1 - x)`, term for term.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core
from didax.primitives import elementwise, rules
from didax.runtime import client

atanh_p = core.Primitive("atanh")


def atanh(x: Any) -> Any:
    """Elementwise inverse hyperbolic tangent. Like `jax.lax.atanh`."""
    return atanh_p.bind(x)


core.impl_rules.register(
    atanh_p, rules.elementwise_impl(np.arctanh, rules.float_aval("atanh", True), True)
)
core.abstract_eval_rules.register(atanh_p, rules.float_aval("atanh", True))
core.eager_rules.register(atanh_p, rules.eager_unary(np.arctanh, True))


def _atanh_partial(x_dot, x, out):
    one = np.array(1, core.get_aval(x).dtype)
    # d/dx atanh x = 1 / (1 - x^2), as (1 + x)^-1 * t / (1 - x)
    inv = elementwise.integer_pow(elementwise.add(one, x), -1)
    return elementwise.div(elementwise.mul(inv, x_dot), elementwise.sub(one, x))


core.jvp_rules.register(atanh_p, elementwise.partials_jvp(atanh_p, _atanh_partial))


# no transpose rule: atanh is not linear (NONLINEAR in tests/lax/test_rule_coverage.py)
core.vmap_rules.register(atanh_p, rules.vectorized_vmap(atanh))


@core.lowering_rules.register(atanh_p)
def _atanh_lowering(ctx, x):
    return [client.runtime().chlo.atanh(x)]
