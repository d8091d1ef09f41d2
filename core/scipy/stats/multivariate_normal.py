"""The multivariate normal distribution. Like `jax.scipy.stats.multivariate_normal`. Layer 5,
over `didax.lax.linalg` (a Cholesky factor and a triangular solve, as JAX computes it)."""

from __future__ import annotations

import math
from typing import Any

from didax import core
from didax import numpy as jnp
from didax.lax import linalg
from didax.scipy.special import promote_args_inexact


def logpdf(x: Any, mean: Any, cov: Any, allow_singular: None = None) -> Any:
    """Log of the density of N(mean, cov) at `x` (`[..., n]`); `cov` is a scalar (a multiple
    of the identity) or an `[n, n]` matrix. Like `jax.scipy.stats.multivariate_normal.logpdf`
    (batched covariances are not supported yet).

    Raises:
      NotImplementedError: `allow_singular` given, or a batched `cov`.
      ValueError: `cov` not `[n, n]` for a mean of size n.
    """
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = promote_args_inexact("multivariate_normal.logpdf", x, mean, cov)
    if not core.get_aval(mean).shape:
        return -0.5 * jnp.square(x - mean) / cov - 0.5 * (math.log(2 * math.pi) + jnp.log(cov))
    n = core.get_aval(mean).shape[-1]
    y = x - mean
    cov_shape = core.get_aval(cov).shape
    if not cov_shape:
        quadratic = jnp.einsum("...i,...i->...", y, y)
        return -0.5 * quadratic / cov - n / 2 * (math.log(2 * math.pi) + jnp.log(cov))
    if len(cov_shape) < 2 or cov_shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    if len(cov_shape) > 2:
        raise NotImplementedError("multivariate_normal.logpdf: a batched cov (issue 24)")
    factor = linalg.cholesky(cov)
    batch = core.get_aval(y).shape[:-1]
    columns = jnp.reshape(y, (-1, n)).T  # solve L z = y for every x at once
    z = linalg.triangular_solve(factor, columns, left_side=True, lower=True)
    quadratic = jnp.reshape(jnp.sum(jnp.square(z), axis=0), batch)
    log_det = jnp.sum(jnp.log(jnp.diagonal(factor)))
    return -0.5 * quadratic - n / 2 * math.log(2 * math.pi) - log_det


def pdf(x: Any, mean: Any, cov: Any) -> Any:
    """The density of N(mean, cov). Like `jax.scipy.stats.multivariate_normal.pdf`."""
    return jnp.exp(logpdf(x, mean, cov))
