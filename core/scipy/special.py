"""`didax.scipy.special`: special functions over `didax.lax`. Like `jax.scipy.special`.

Layer 5. The primitives are JAX's (`erf`, `erfc`, `erf_inv`, `lgamma`, `digamma`,
`polygamma`, `logistic`, `igamma`, `igammac`, `regularized_incomplete_beta`); the rest composes them with `didax.numpy`, with custom JVPs where
JAX has them (`logit`, `xlogy`, `xlog1py`, `log_ndtr`), so that derivatives at 0 and in the
tails are JAX's. Differences from JAX, by design of this small version: `ndtri` is
`sqrt(2) * erf_inv(2p - 1)` (JAX evaluates Cephes' rational approximations; the two agree to
float32 precision for p in [1e-4, 1 - 1e-4], JAX's is more accurate in the far tails), and
`betaln` is `lgamma(a) + lgamma(b) - lgamma(a + b)`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from didax import core, dtypes, lax
from didax import numpy as jnp
from didax.control_flow.custom_derivatives import custom_jvp
from didax.lax import incomplete_gamma as _incomplete_gamma
from didax.numpy.promotion import promote, to_inexact
from didax.numpy.stable import log_softmax as _log_softmax
from didax.numpy.stable import logsumexp  # noqa: F401 - JAX's scipy.special.logsumexp
from didax.numpy.stable import softmax as _softmax
from didax.primitives import special as _special

__all__ = [
    "beta",
    "betainc",
    "betaln",
    "boxcox",
    "boxcox1p",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfinv",
    "expit",
    "factorial",
    "gamma",
    "gammainc",
    "gammaincc",
    "gammaln",
    "gammasgn",
    "kl_div",
    "log_ndtr",
    "log_softmax",
    "loggamma",
    "logit",
    "logsumexp",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "rel_entr",
    "softmax",
    "xlog1py",
    "xlogy",
]


def promote_args_inexact(name: str, *args: Any) -> list[Any]:
    """`args` as Arrays of their common inexact dtype (integers become the default float),
    as JAX's `promote_args_inexact` makes them; shared by didax.scipy.stats."""
    # JAX's promote_args_inexact: common dtype, then integers to the default float
    return [to_inexact(name, a) for a in promote(name, *(jnp.asarray(a) for a in args))]


def softmax(x: Any, /, *, axis: Any = None) -> Any:
    """`exp(x) / sum(exp(x))` over `axis` (all axes by default). Like
    `jax.scipy.special.softmax`."""
    return _softmax(x, axis=axis)


def log_softmax(x: Any, /, *, axis: Any = None) -> Any:
    """`x - logsumexp(x)` over `axis` (all axes by default). Like
    `jax.scipy.special.log_softmax`."""
    return _log_softmax(x, axis=axis)


def erf(x: Any) -> Any:
    """The error function. Like `jax.scipy.special.erf`."""
    return _special.erf(*promote_args_inexact("erf", x))


def erfc(x: Any) -> Any:
    """`1 - erf(x)`. Like `jax.scipy.special.erfc`."""
    return _special.erfc(*promote_args_inexact("erfc", x))


def erfinv(x: Any) -> Any:
    """The inverse error function. Like `jax.scipy.special.erfinv`."""
    return _special.erf_inv(*promote_args_inexact("erfinv", x))


def expit(x: Any) -> Any:
    """The logistic sigmoid `1 / (1 + exp(-x))`. Like `jax.scipy.special.expit`."""
    return lax.logistic(*promote_args_inexact("expit", x))


@custom_jvp
def _logit(x: Any) -> Any:
    return jnp.log(x / (1 - x))


@_logit.defjvp
def _logit_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _logit(x), x_dot / (x * (1 - x))  # d/dx log(x / (1 - x)) = 1 / (x (1 - x))


def logit(x: Any) -> Any:
    """`log(x / (1 - x))`, the inverse of `expit`. Like `jax.scipy.special.logit`."""
    return _logit(*promote_args_inexact("logit", x))


@custom_jvp
def _xlogy(x: Any, y: Any) -> Any:
    # 0 log 0 = 0; a NaN y stays NaN even where x is 0, as SciPy's
    return jnp.where((x != 0) | jnp.isnan(y), x * jnp.log(y), jnp.zeros_like(x))


@_xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = _xlogy(x, y)
    return out, (x_dot * jnp.log(y) + y_dot * x / y).astype(out.dtype)


def xlogy(x: Any, y: Any) -> Any:
    """`x * log(y)`, 0 where x is 0. Like `jax.scipy.special.xlogy`."""
    return _xlogy(*promote_args_inexact("xlogy", x, y))


@custom_jvp
def _xlog1py(x: Any, y: Any) -> Any:
    return jnp.where(x != 0, x * jnp.log1p(y), jnp.zeros_like(x))


@_xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = _xlog1py(x, y)
    return out, (x_dot * jnp.log1p(y) + y_dot * x / (1 + y)).astype(out.dtype)


def xlog1py(x: Any, y: Any) -> Any:
    """`x * log(1 + y)`, 0 where x is 0. Like `jax.scipy.special.xlog1py`."""
    return _xlog1py(*promote_args_inexact("xlog1py", x, y))


@custom_jvp
def _xlogx(x: Any) -> Any:
    return _xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _xlogx(x), x_dot * (jnp.log(x) + 1)  # d/dx x log x = log x + 1 (-inf at 0)


def entr(x: Any) -> Any:
    """`-x log x` for x > 0, 0 at 0, -inf below. Like `jax.scipy.special.entr`."""
    (x,) = promote_args_inexact("entr", x)
    return jnp.where(x < 0, -jnp.inf, -_xlogx(x))


def rel_entr(p: Any, q: Any) -> Any:
    """`p log(p / q)`: 0 where p = 0 and q >= 0, inf where undefined. Like
    `jax.scipy.special.rel_entr`."""
    p, q = promote_args_inexact("rel_entr", p, q)
    both_positive = (p > 0) & (q > 0)
    # safe operands where the value is a constant, so that its gradient is 0, not NaN
    safe_p, safe_q = jnp.where(both_positive, p, 1), jnp.where(both_positive, q, 1)
    value = _xlogx(safe_p) - _xlogy(safe_p, safe_q)
    return jnp.where(both_positive, value, jnp.where((p == 0) & (q >= 0), 0.0, jnp.inf))


def kl_div(p: Any, q: Any) -> Any:
    """`p log(p / q) - p + q`: q where p = 0 and q >= 0, inf where undefined. Like
    `jax.scipy.special.kl_div`."""
    p, q = promote_args_inexact("kl_div", p, q)
    return rel_entr(p, q) - p + q


def ndtr(x: Any) -> Any:
    """The standard normal CDF. Like `jax.scipy.special.ndtr`."""
    (x,) = promote_args_inexact("ndtr", x)
    half_sqrt2 = np.sqrt(0.5).astype(core.get_aval(x).dtype)
    w = x * half_sqrt2
    z = jnp.abs(w)
    # erf near 0, erfc in the tails (where 1 + erf(w) would lose the small value)
    tail = jnp.where(w > 0, 2.0 - _special.erfc(z), _special.erfc(z))
    return 0.5 * jnp.where(z < half_sqrt2, 1.0 + _special.erf(w), tail)


def ndtri(p: Any) -> Any:
    """The inverse of `ndtr`. Like `jax.scipy.special.ndtri` (see the module docstring)."""
    (p,) = promote_args_inexact("ndtri", p)
    return np.sqrt(2.0).astype(core.get_aval(p).dtype) * _special.erf_inv(2.0 * p - 1.0)


def _log_ndtr_asymptotic(x: Any, series_order: int) -> Any:
    # log Phi(x) for x << 0: log(phi(x) / -x) + log(1 + sum_n (-1)^n (2n-1)!! / x^(2n))
    x2 = jnp.square(x)
    total, term = jnp.ones_like(x), jnp.ones_like(x)
    for n in range(1, series_order + 1):
        term = term * -(2 * n - 1) / x2
        total = total + term
    return -0.5 * x2 - jnp.log(-x) - 0.5 * math.log(2 * math.pi) + jnp.log(total)


def _log_ndtr(series_order: int, x: Any) -> Any:
    dtype = core.get_aval(x).dtype
    lower, upper = (-20.0, 8.0) if dtype == np.float64 else (-10.0, 5.0)
    safe_low = jnp.minimum(x, lower)
    safe_mid = jnp.clip(x, lower, upper)
    upper_part = -ndtr(-jnp.maximum(x, upper))  # log(1 - e) = -e for tiny e
    middle = jnp.log(ndtr(safe_mid))
    low_part = _log_ndtr_asymptotic(safe_low, series_order)
    return jnp.where(x > upper, upper_part, jnp.where(x > lower, middle, low_part))


_log_ndtr = custom_jvp(_log_ndtr, nondiff_argnums=(0,))


@_log_ndtr.defjvp
def _log_ndtr_jvp(series_order, primals, tangents):
    (x,), (x_dot,) = primals, tangents
    out = _log_ndtr(series_order, x)
    # d/dx log Phi(x) = phi(x) / Phi(x) = exp(-x^2 / 2 - log Phi(x)) / sqrt(2 pi)
    return out, x_dot * jnp.exp(-0.5 * jnp.square(x) - out - 0.5 * math.log(2 * math.pi))


def log_ndtr(x: Any, series_order: int = 3) -> Any:
    """`log(ndtr(x))`, accurate in both tails. Like `jax.scipy.special.log_ndtr`."""
    if not isinstance(series_order, int) or not 0 <= series_order <= 30:
        raise ValueError(f"series_order must be an int in [0, 30], got {series_order!r}")
    (x,) = promote_args_inexact("log_ndtr", x)
    return _log_ndtr(series_order, x)


def gammaln(x: Any) -> Any:
    """`log |Gamma(x)|`. Like `jax.scipy.special.gammaln`."""
    return _special.lgamma(*promote_args_inexact("gammaln", x))


def digamma(x: Any) -> Any:
    """The logarithmic derivative of Gamma. Like `jax.scipy.special.digamma`."""
    return _special.digamma(*promote_args_inexact("digamma", x))


def polygamma(n: Any, x: Any) -> Any:
    """The n-th derivative of `digamma`, for integer n >= 0. Like
    `jax.scipy.special.polygamma`."""
    n_arr = jnp.asarray(n)
    if not jnp.issubdtype(n_arr.dtype, jnp.integer):
        raise ValueError(
            f"Argument `n` to polygamma must be of integer type. Got dtype {n_arr.dtype}."
        )
    (x,) = promote_args_inexact("polygamma", x)
    n_float = lax.convert_element_type(n_arr, core.get_aval(x).dtype)
    n_float, x = promote("polygamma", n_float, x)
    return _special.polygamma(*jnp.broadcast_arrays(n_float, x))


def gammasgn(x: Any) -> Any:
    """The sign of Gamma(x): NaN at the poles (0 is signed). Like
    `jax.scipy.special.gammasgn`."""
    (x,) = promote_args_inexact("gammasgn", x)
    dtype = core.get_aval(x).dtype
    floor_x = jnp.floor(x)
    pole = ((x < 0) & (x == floor_x)) | jnp.isnan(x)
    negative = ((x < 0) & (jnp.remainder(floor_x, 2) != 0)) | ((x == 0) & jnp.signbit(x))
    one = np.ones((), dtype)  # typed constants: the sign is as strong as x
    return jnp.where(pole, np.array(np.nan, dtype), jnp.where(negative, -one, one))


def gamma(x: Any) -> Any:
    """The gamma function. Like `jax.scipy.special.gamma`."""
    (x,) = promote_args_inexact("gamma", x)
    return gammasgn(x) * jnp.exp(_special.lgamma(x))


def loggamma(x: Any) -> Any:
    """The log of the gamma function, real for x > 0 and NaN elsewhere (real inputs). Like
    `jax.scipy.special.loggamma`."""
    (x,) = promote_args_inexact("loggamma", x)
    return jnp.where(x > 0, _special.lgamma(x), jnp.nan)


def betaln(a: Any, b: Any) -> Any:
    """`log |B(a, b)|`. Like `jax.scipy.special.betaln` (see the module docstring)."""
    a, b = promote_args_inexact("betaln", a, b)
    return _special.lgamma(a) + _special.lgamma(b) - _special.lgamma(a + b)


def beta(a: Any, b: Any) -> Any:
    """The beta function `Gamma(a) Gamma(b) / Gamma(a + b)`. Like `jax.scipy.special.beta`."""
    a, b = promote_args_inexact("beta", a, b)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * jnp.exp(betaln(a, b))


def gammainc(a: Any, x: Any) -> Any:
    """The regularized lower incomplete gamma function `P(a, x)`. Like
    `jax.scipy.special.gammainc`."""
    return _incomplete_gamma.igamma(*promote_args_inexact("gammainc", a, x))


def gammaincc(a: Any, x: Any) -> Any:
    """The regularized upper incomplete gamma function `1 - P(a, x)`. Like
    `jax.scipy.special.gammaincc`."""
    return _incomplete_gamma.igammac(*promote_args_inexact("gammaincc", a, x))


def betainc(a: Any, b: Any, x: Any) -> Any:
    """The regularized incomplete beta function `I_x(a, b)`. Like
    `jax.scipy.special.betainc`."""
    a, b, x = promote_args_inexact("betainc", a, b, x)
    if dtypes.is_complex(core.get_aval(x).dtype):
        raise ValueError("betainc does not support complex-valued inputs.")
    return _incomplete_gamma.betainc(a, b, x)


def multigammaln(a: Any, d: int) -> Any:
    """The log of the multivariate gamma function of dimension `d`. Like
    `jax.scipy.special.multigammaln`."""
    d = core.concrete_or_error(d, "d argument of multigammaln")
    (a,) = promote_args_inexact("multigammaln", a)
    d = int(d)
    constant = d * (d - 1) / 4 * math.log(math.pi)
    terms = [_special.lgamma(a - j / 2) for j in range(d)]
    return constant + sum(terms[1:], terms[0])


def factorial(n: Any, exact: bool = False) -> Any:
    """`Gamma(n + 1)`, 0 for n < 0. Like `jax.scipy.special.factorial` (exact=False only,
    as in JAX)."""
    if exact:
        raise NotImplementedError("factorial with exact=True")
    (n,) = promote_args_inexact("factorial", n)
    return jnp.where(n < 0, 0.0, jnp.exp(_special.lgamma(n + 1)))


def boxcox(x: Any, lmbda: Any) -> Any:
    """The Box-Cox transform: `(x^l - 1) / l`, `log x` at l = 0. Like
    `jax.scipy.special.boxcox`."""
    x, lmbda = promote_args_inexact("boxcox", x, lmbda)
    log_x = jnp.log(x)
    safe = jnp.where(lmbda == 0, 1.0, lmbda)
    return jnp.where(lmbda == 0, log_x, jnp.expm1(safe * log_x) / safe)


def boxcox1p(x: Any, lmbda: Any) -> Any:
    """`boxcox(1 + x, lmbda)`, accurate for small x. Like `jax.scipy.special.boxcox1p`."""
    x, lmbda = promote_args_inexact("boxcox1p", x, lmbda)
    log_x = jnp.log1p(x)
    safe = jnp.where(lmbda == 0, 1.0, lmbda)
    return jnp.where(lmbda == 0, log_x, jnp.expm1(safe * log_x) / safe)
