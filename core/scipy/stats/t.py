"""Student's t distribution. Like `jax.scipy.stats.t` (`logpdf`, `pdf`, as JAX). Layer 5."""

from __future__ import annotations

import math
from typing import Any

from didax import numpy as jnp
from didax.scipy.special import gammaln, promote_args_inexact


def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the t density with `df` degrees of freedom. Like `jax.scipy.stats.t.logpdf`."""
    x, df, loc, scale = promote_args_inexact("t.logpdf", x, df, loc, scale)
    y = (x - loc) / scale
    normalizer = gammaln(df / 2) - gammaln((df + 1) / 2) + 0.5 * jnp.log(df * math.pi)
    return -normalizer - jnp.log(scale) - (df + 1) / 2 * jnp.log1p(jnp.square(y) / df)


def pdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The t density. Like `jax.scipy.stats.t.pdf`."""
    return jnp.exp(logpdf(x, df, loc, scale))
