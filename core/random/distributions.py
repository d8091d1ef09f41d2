"""More samplers of `jax.random`: `laplace logistic cauchy rademacher pareto rayleigh
maxwell double_sided_maxwell weibull_min lognormal triangular wald t chisquare f
generalized_normal ball geometric multivariate_normal`, and `key_impl`, `key_dtype`.

Layer 5 (`didax.random`, after `samplers`). Each is JAX 0.10.2's transformation of uniform,
normal, exponential or gamma draws, step for step and under JAX's jit names
(`jit[name=_laplace]`), so that the same key gives JAX's bits. Not here: `poisson`,
`binomial`, `multinomial` (rejection loops), `orthogonal` (it needs a QR decomposition).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np
from didax import core, dtypes, lax
from didax import numpy as jnp
from didax.numpy import linalg as jnp_linalg
from didax.numpy.axis_args import shape_tuple
from didax.random.prng import _eager_jit, _key_data_of, _named_jit, key_fry, split
from didax.random.samplers import (
    _bernoulli,
    _exponential,
    _float_dtype,
    _gamma,
    _normal,
    _uniform,
)

__all__ = [
    "ball",
    "cauchy",
    "chisquare",
    "double_sided_maxwell",
    "f",
    "generalized_normal",
    "geometric",
    "key_dtype",
    "key_impl",
    "laplace",
    "logistic",
    "lognormal",
    "maxwell",
    "multivariate_normal",
    "pareto",
    "rademacher",
    "rayleigh",
    "t",
    "triangular",
    "wald",
    "weibull_min",
]


def _c(value: Any, dtype: Any) -> Any:
    return np.array(value, dtype)


def _shape_of(name: str, shape: Sequence[int] | None, *params: Any) -> tuple[int, ...]:
    param_shapes = [np.shape(p) for p in params]
    if shape is None:
        return np.broadcast_shapes(*param_shapes) if param_shapes else ()
    shape = shape_tuple(shape)
    if param_shapes and np.broadcast_shapes(shape, *param_shapes) != shape:
        raise ValueError(
            f"{name} parameter shapes must be broadcast-compatible with shape argument, and "
            "the result of broadcasting the shapes must equal the shape argument, but got "
            f"result {np.broadcast_shapes(shape, *param_shapes)} for shape argument {shape}."
        )
    return shape


def _int_dtype(name: str, dtype: Any) -> np.dtype:
    dtype = dtypes.canonicalize(np.dtype(int) if dtype is None else dtype)
    if not dtypes.is_int(dtype):
        raise ValueError(f"dtype argument to `{name}` must be an int dtype, got {dtype}")
    return dtype


# ----------------------------------------------------------------------------- no parameters


def _laplace_body(data: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    lo = _c(-1.0, dtype) + ml_dtypes.finfo(dtype).epsneg
    u = _uniform(data, lo, _c(1.0, dtype), shape, dtype)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


_laplace = _named_jit(_laplace_body, "_laplace", (1, 2))


def laplace(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Standard Laplace floats. Like `jax.random.laplace`."""
    data, _ = _key_data_of("laplace", key)
    return _laplace(data, shape_tuple(shape), _float_dtype("laplace", dtype))


def _logistic_body(data: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    x = _uniform(data, _c(ml_dtypes.finfo(dtype).tiny, dtype), _c(1.0, dtype), shape, dtype)
    return lax.sub(lax.log(x), lax.log1p(lax.neg(x)))


_logistic = _named_jit(_logistic_body, "_logistic", (1, 2))


def logistic(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Standard logistic floats. Like `jax.random.logistic`."""
    data, _ = _key_data_of("logistic", key)
    return _logistic(data, shape_tuple(shape), _float_dtype("logistic", dtype))


def _cauchy_body(data: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    u = _uniform(data, _c(ml_dtypes.finfo(dtype).eps, dtype), _c(1.0, dtype), shape, dtype)
    return lax.tan(lax.mul(_c(np.pi, dtype), lax.sub(u, _c(0.5, dtype))))


_cauchy = _named_jit(_cauchy_body, "_cauchy", (1, 2))


def cauchy(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Standard Cauchy floats. Like `jax.random.cauchy`."""
    data, _ = _key_data_of("cauchy", key)
    return _cauchy(data, shape_tuple(shape), _float_dtype("cauchy", dtype))


def _rademacher_body(data: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    b = lax.convert_element_type(_bernoulli(data, 0.5, shape, "low"), dtype)
    return lax.convert_element_type(jnp.subtract(jnp.multiply(2, b), 1), dtype)


_rademacher = _named_jit(_rademacher_body, "_rademacher", (1, 2))


def rademacher(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """-1 or +1 with equal probability. Like `jax.random.rademacher`."""
    data, _ = _key_data_of("rademacher", key)
    dtype = dtypes.canonicalize(np.dtype(int) if dtype is None else dtype)
    return _rademacher(data, shape_tuple(shape), dtype)


def _maxwell_body(data: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    return jnp_linalg.norm(_normal(data, (*shape, 3), dtype), axis=-1)


_maxwell = _named_jit(_maxwell_body, "_maxwell", (1, 2))


def maxwell(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Maxwell floats: the norm of three standard normals. Like `jax.random.maxwell`."""
    data, _ = _key_data_of("maxwell", key)
    return _maxwell(data, shape_tuple(shape), _float_dtype("maxwell", dtype))


def _double_sided_maxwell_body(data, loc, scale, shape, dtype):  # noqa: ANN001, ANN202
    params = np.broadcast_shapes(np.shape(loc), np.shape(scale))
    shape = (shape or params) + params
    maxwell_key, rademacher_key = split(data)
    rvs = _maxwell(maxwell_key, shape, dtype)
    sign = _rademacher(rademacher_key, shape, dtype)
    return jnp.add(jnp.multiply(jnp.multiply(sign, rvs), scale), loc)


_double_sided_maxwell = _named_jit(_double_sided_maxwell_body, "_double_sided_maxwell", (3, 4))


def double_sided_maxwell(
    key: Any, loc: Any, scale: Any, shape: Sequence[int] = (), dtype: Any = None
) -> Any:
    """Maxwell floats with a random sign, scaled and shifted. Like
    `jax.random.double_sided_maxwell`."""
    data, _ = _key_data_of("double_sided_maxwell", key)
    dtype = _float_dtype("double_sided_maxwell", dtype)
    return _double_sided_maxwell(data, loc, scale, shape_tuple(shape), dtype)


# ----------------------------------------------------------------------------- one parameter


def _pareto_body(data: Any, b: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    b = lax.convert_element_type(b, dtype)
    return lax.exp(jnp.divide(_exponential(data, shape, dtype), b))


_pareto = _named_jit(_pareto_body, "_pareto", (2, 3))


def pareto(key: Any, b: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Pareto(b) floats. Like `jax.random.pareto`."""
    data, _ = _key_data_of("pareto", key)
    dtype = _float_dtype("pareto", dtype)
    return _pareto(data, b, _shape_of("pareto", shape, b), dtype)


def _rayleigh_body(data: Any, scale: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    u = _uniform(data, 0.0, 1.0, shape, dtype)
    scale = jnp.broadcast_to(lax.convert_element_type(scale, dtype), shape)
    two = lax.full((), -2, dtype)
    return lax.mul(scale, lax.sqrt(lax.mul(lax.log(u), two)))


_rayleigh = _named_jit(_rayleigh_body, "_rayleigh", (2, 3))


def rayleigh(key: Any, scale: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Rayleigh(scale) floats. Like `jax.random.rayleigh`."""
    data, _ = _key_data_of("rayleigh", key)
    dtype = _float_dtype("rayleigh", dtype)
    return _rayleigh(data, jnp.asarray(scale), _shape_of("rayleigh", shape, scale), dtype)


def _weibull_min_body(data, scale, concentration, shape, dtype):  # noqa: ANN001, ANN202
    u = _uniform(data, 0, 1, shape, dtype)
    inverse_cdf = jnp.power(
        jnp.negative(jnp.log1p(jnp.negative(u))), jnp.divide(1.0, concentration)
    )
    return jnp.multiply(inverse_cdf, scale)


_weibull_min = _named_jit(_weibull_min_body, "_weibull_min", (3, 4))


def weibull_min(
    key: Any, scale: Any, concentration: Any, shape: Sequence[int] = (), dtype: Any = None
) -> Any:
    """Weibull(scale, concentration) floats. Like `jax.random.weibull_min`."""
    data, _ = _key_data_of("weibull_min", key)
    dtype = _float_dtype("weibull_min", dtype)
    return _weibull_min(data, scale, concentration, shape_tuple(shape), dtype)


def _lognormal_body(data: Any, sigma: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    sigma = lax.convert_element_type(sigma, dtype)
    return lax.exp(jnp.multiply(_normal(data, shape, dtype), sigma))


# JAX's `jit(inline=True)`: compiled when called eagerly, inlined into a trace
_lognormal = _eager_jit(_lognormal_body, "_lognormal", (2, 3))
_ONE = np.float32(1)  # lognormal's default sigma, as JAX's


def lognormal(
    key: Any, sigma: Any = _ONE, shape: Sequence[int] | None = None, dtype: Any = None
) -> Any:
    """exp(sigma * N(0, 1)) floats. Like `jax.random.lognormal`."""
    data, _ = _key_data_of("lognormal", key)
    dtype = _float_dtype("lognormal", dtype)
    return _lognormal(data, sigma, _shape_of("lognormal", shape, sigma), dtype)


def _wald_body(data: Any, mean: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    k1, k2 = split(data, 2)
    mean = jnp.broadcast_to(lax.convert_element_type(mean, dtype), shape)
    v = _normal(k1, shape, dtype)
    z = _uniform(k2, 0.0, 1.0, shape, dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    m, a, d = jnp.multiply, jnp.add, jnp.divide
    sqrt_term = lax.sqrt(a(m(m(4, mean), y), m(mean_sq, y_sq)))
    x = jnp.subtract(a(mean, d(m(mean_sq, y), 2)), m(d(mean, 2), sqrt_term))
    return lax.select_n(lax.le(z, d(mean, a(mean, x))), d(mean_sq, x), x)


_wald = _named_jit(_wald_body, "_wald", (2, 3))


def wald(key: Any, mean: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Wald (inverse Gaussian) floats. Like `jax.random.wald`."""
    data, _ = _key_data_of("wald", key)
    dtype = _float_dtype("wald", dtype)
    return _wald(data, jnp.asarray(mean), _shape_of("wald", shape, mean), dtype)


def _t_body(data: Any, df: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = split(data)
    n = _normal(key_n, shape, dtype)
    half_df = lax.div(df, lax.full((), 2, dtype))
    g = _gamma(key_g, half_df, shape, dtype, False)
    return jnp.multiply(n, jnp.sqrt(jnp.divide(half_df, g)))


_t = _named_jit(_t_body, "_t", (2, 3))


def t(key: Any, df: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Student's t(df) floats. Like `jax.random.t`."""
    data, _ = _key_data_of("t", key)
    dtype = _float_dtype("t", dtype)
    return _t(data, df, _shape_of("t", shape, df), dtype)


def _chisquare_body(data: Any, df: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    df = lax.convert_element_type(df, dtype)
    two = lax.full((), 2, dtype)
    log_g = _gamma(data, lax.div(df, two), shape, dtype, True)
    return lax.mul(jnp.exp(log_g), two)


_chisquare = _named_jit(_chisquare_body, "_chisquare", (2, 3))


def chisquare(key: Any, df: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Chi-square(df) floats. Like `jax.random.chisquare`."""
    data, _ = _key_data_of("chisquare", key)
    dtype = _float_dtype("chisquare", dtype)
    return _chisquare(data, df, _shape_of("chisquare", shape, df), dtype)


def _f_body(data: Any, dfnum: Any, dfden: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    dfden = lax.convert_element_type(dfden, dtype)
    dfnum = lax.convert_element_type(dfnum, dtype)
    key_dfd, key_dfn = split(data)
    num = lax.div(_chisquare(key_dfn, dfnum, shape, dtype), dfnum)
    den = lax.div(_chisquare(key_dfd, dfden, shape, dtype), dfden)
    return lax.div(num, den)


_f = _named_jit(_f_body, "_f", (3, 4))


def f(
    key: Any, dfnum: Any, dfden: Any, shape: Sequence[int] | None = None, dtype: Any = None
) -> Any:
    """F(dfnum, dfden) floats. Like `jax.random.f`."""
    data, _ = _key_data_of("f", key)
    dtype = _float_dtype("f", dtype)
    return _f(data, dfnum, dfden, _shape_of("f", shape, dfnum, dfden), dtype)


def _generalized_normal_body(data: Any, p: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    keys = split(data)
    g = _gamma(keys[0], jnp.divide(1, p), shape, dtype, False)
    r = _rademacher(keys[1], shape, dtype)
    return jnp.multiply(r, jnp.power(g, jnp.divide(1, p)))


_generalized_normal = _named_jit(_generalized_normal_body, "_generalized_normal", (2, 3))


def generalized_normal(key: Any, p: float, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Generalized normal floats of power `p`. Like `jax.random.generalized_normal`."""
    data, _ = _key_data_of("generalized_normal", key)
    dtype = _float_dtype("generalized_normal", dtype)
    return _generalized_normal(data, p, shape_tuple(shape), dtype)


def _ball_body(data: Any, p: Any, d: int, shape: tuple[int, ...], dtype: Any) -> Any:
    k1, k2 = split(data)
    g = _generalized_normal(k1, p, (*shape, d), dtype)
    e = _exponential(k2, shape, dtype)
    norm = jnp.sum(jnp.power(jnp.abs(g), p), axis=-1)
    return jnp.divide(g, jnp.power(jnp.add(norm, e), jnp.divide(1, p))[..., None])


_ball = _named_jit(_ball_body, "_ball", (2, 3, 4))


def ball(key: Any, d: int, p: float = 2, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Points uniform in the d-dimensional unit p-norm ball. Like `jax.random.ball`."""
    data, _ = _key_data_of("ball", key)
    dtype = _float_dtype("ball", dtype)
    return _ball(data, p, int(d), shape_tuple(shape), dtype)


def _geometric_body(data: Any, p: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    p = jnp.asarray(p)
    if not dtypes.is_float(core.get_aval(p).dtype):
        p = lax.convert_element_type(p, dtypes.default_float())
    u = _uniform(data, 0.0, 1.0, shape, core.get_aval(p).dtype)
    u = jnp.where(jnp.equal(u, 0), 1, u)
    log_one_minus_p = jnp.broadcast_to(lax.log1p(lax.neg(p)), shape)
    g = jnp.add(lax.floor(lax.div(lax.log(u), log_one_minus_p)), 1)
    return lax.convert_element_type(g, dtype)


_geometric = _named_jit(_geometric_body, "_geometric", (2, 3))


def geometric(key: Any, p: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """The number of Bernoulli(p) trials to the first success. Like `jax.random.geometric`."""
    data, _ = _key_data_of("geometric", key)
    dtype = _int_dtype("geometric", dtype)
    return _geometric(data, p, _shape_of("geometric", shape, p), dtype)


def _triangular_body(data, left, mode, right, shape, dtype):  # noqa: ANN001, ANN202
    left = jnp.broadcast_to(lax.convert_element_type(left, dtype), shape)
    right = jnp.broadcast_to(lax.convert_element_type(right, dtype), shape)
    mode = jnp.broadcast_to(lax.convert_element_type(mode, dtype), shape)
    s, m = jnp.subtract, jnp.multiply
    fc = jnp.divide(s(mode, left), s(right, left))
    u = _uniform(data, 0.0, 1.0, shape, dtype)
    out1 = jnp.add(left, lax.sqrt(m(m(u, s(right, left)), s(mode, left))))
    out2 = s(right, lax.sqrt(m(m(s(1, u), s(right, left)), s(right, mode))))
    return lax.select_n(jnp.less(u, fc), out2, out1)


_triangular = _eager_jit(_triangular_body, "_triangular", (4, 5))  # inline, as JAX's


def triangular(
    key: Any,
    left: Any,
    mode: Any,
    right: Any,
    shape: Sequence[int] | None = None,
    dtype: Any = None,
) -> Any:
    """Triangular(left, mode, right) floats. Like `jax.random.triangular`."""
    data, _ = _key_data_of("triangular", key)
    dtype = _float_dtype("triangular", dtype)
    shape = _shape_of("triangular", shape, left, mode, right)
    return _triangular(data, left, mode, right, shape, dtype)


def _multivariate_normal_body(data, mean, cov, shape, dtype, method):  # noqa: ANN001, ANN202
    if np.ndim(mean) < 1:
        raise ValueError(
            f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {np.ndim(mean)}"
        )
    if np.ndim(cov) < 2:
        raise ValueError(
            f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {np.ndim(cov)}"
        )
    n = np.shape(mean)[-1]
    if np.shape(cov)[-2:] != (n, n):
        raise ValueError(
            f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, but got "
            f"cov.shape == {np.shape(cov)}."
        )
    if shape is None:
        shape = np.broadcast_shapes(np.shape(mean)[:-1], np.shape(cov)[:-2])
    else:
        _shape_of("normal", shape, np.zeros(np.shape(mean)[:-1]), np.zeros(np.shape(cov)[:-2]))
    if method != "cholesky":
        raise NotImplementedError(
            f"multivariate_normal: method={method!r} needs jnp.linalg's svd/eigh, which didax "
            "does not have yet; method='cholesky' works"
        )
    factor = jnp_linalg.cholesky(cov)
    samples = _normal(data, (*shape, n), dtype)
    return jnp.add(mean, jnp.einsum("...ij,...j->...i", factor, samples))


_multivariate_normal = _named_jit(_multivariate_normal_body, "_multivariate_normal", (3, 4, 5))


def multivariate_normal(
    key: Any,
    mean: Any,
    cov: Any,
    shape: Sequence[int] | None = None,
    dtype: Any = None,
    method: str = "cholesky",
) -> Any:
    """Normal vectors with mean `mean` and covariance `cov`. Like
    `jax.random.multivariate_normal`."""
    data, _ = _key_data_of("multivariate_normal", key)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    mean, cov = jnp.asarray(mean), jnp.asarray(cov)
    common = jnp.result_type(mean, cov)
    if not dtypes.is_float(np.dtype(common)):
        common = dtypes.default_float()
    mean = lax.convert_element_type(mean, common)
    cov = lax.convert_element_type(cov, common)
    dtype = (
        core.get_aval(mean).dtype if dtype is None else _float_dtype("multivariate_normal", dtype)
    )
    shape = None if shape is None else shape_tuple(shape)
    return _multivariate_normal(data, mean, cov, shape, dtype, method)


def key_impl(keys: Any) -> str:
    """The name of the keys' PRNG implementation: "threefry2x32", didax's only one. Like
    `jax.random.key_impl`."""
    _key_data_of("key_impl", keys, allow_batched=True)
    return "threefry2x32"


def key_dtype(impl_spec: Any = None) -> Any:
    """The dtype of typed keys (`key<fry>`). Like `jax.random.key_dtype`."""
    if impl_spec not in (None, "threefry2x32"):
        raise ValueError(f"didax has the threefry2x32 PRNG only, got {impl_spec!r}")
    return key_fry
