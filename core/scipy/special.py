"""`didax.scipy.special`: `logsumexp`. Like `jax.scipy.special`.

Layer 5, over `didax.nn`'s stable logsumexp; `b=` weights and `return_sign=` follow JAX.
"""

from __future__ import annotations

from typing import Any

from didax import lax
from didax import numpy as jnp
from didax.numpy.axis_args import canonical_axes
from didax.numpy.promotion import to_inexact
from didax.numpy.stable import logsumexp as stable_logsumexp

__all__ = ["logsumexp"]


def logsumexp(
    a: Any, axis: Any = None, b: Any = None, keepdims: bool = False, return_sign: bool = False
) -> Any:
    """`log(sum(b * exp(a)))`, computed stably. Like `jax.scipy.special.logsumexp`."""
    if b is None and not return_sign:
        return stable_logsumexp(a, axis=axis, keepdims=keepdims)
    a = to_inexact("logsumexp", jnp.asarray(a))
    axes = canonical_axes("logsumexp", a, axis)
    peak = lax.stop_gradient(jnp.max(a, axis=axes, keepdims=True))
    peak = jnp.where(jnp.isfinite(peak), peak, 0.0)
    terms = jnp.exp(a - peak)
    if b is not None:
        terms = terms * b
    total = jnp.sum(terms, axis=axes, keepdims=True)
    sign = lax.sign(total)
    out = jnp.log(jnp.abs(total)) + peak
    if not keepdims:
        out, sign = (jnp.squeeze(v, axis=axes) for v in (out, sign))
    return (out, sign) if return_sign else out
