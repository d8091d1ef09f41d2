"""`didax.nn`'s functions: activations, `one_hot`, `standardize`. Like `jax.nn`'s.

Layer 5, after `didax.numpy` and `didax.numpy.stable` (the softmax family, re-exported by
`didax.nn`). No primitives of its own: each function composes `didax.numpy` and `didax.lax`
(the exact `gelu` uses `lax.erfc`, as JAX's). Where JAX defines a custom JVP (`relu`,
`relu6`, `softplus`'s logaddexp, `log1mexp`), so does didax, so that gradients at the kinks and
in the tails are JAX's. Where JAX's function is an inner `jit`, didax's is an `inner_jit` of the
same name, so a jaxpr shows the same `jit[name=...]` equation.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from didax import core, dtypes, lax
from didax import numpy as jnp
from didax.control_flow.custom_derivatives import custom_jvp
from didax.numpy.axis_args import canonical_axes
from didax.numpy.inner_jit import inner_jit
from didax.numpy.promotion import promote, to_inexact
from didax.numpy.stable import logsumexp
from didax.primitives.special import erfc


def _zeros_like(g: Any) -> Any:
    aval = core.get_aval(g)
    return lax.full(aval.shape, 0, aval.dtype)


# Default parameters: JAX's jitted activations see only the arguments given, so a default
# shows in the jaxpr as a literal inside the inner jit, a given value as one of its inputs.
_ONE, _SLOPE, _FOUR = 1.0, 1e-2, 4


def _given(x: Any, param: Any, default: Any) -> tuple[Any, ...]:
    return (x,) if param is default else (x, param)


def identity(x: Any) -> Any:
    """`x` itself, as an Array. Like `jax.nn.identity`."""
    return jnp.asarray(x)


def _relu(x: Any) -> Any:
    """`max(x, 0)`. Like `jax.nn.relu`, whose derivative at 0 is 0 (not max's 0.5)."""
    return jnp.maximum(x, 0)  # a weak 0 keeps integer inputs integer, as in JAX


# As JAX's: a custom_jvp around an inner jit, with one jvp rule per argument.
relu = custom_jvp(inner_jit(_relu, "relu"))
relu.defjvps(lambda g, ans, x: lax.select_n(x > 0, _zeros_like(g), g))


def _relu6(x: Any) -> Any:
    """`min(max(x, 0), 6)`. Like `jax.nn.relu6`, whose derivative at 0 and 6 is 0."""
    return jnp.minimum(jnp.maximum(x, 0), 6.0)


relu6 = custom_jvp(inner_jit(_relu6, "relu6"))
relu6.defjvps(lambda g, ans, x: lax.select_n((x > 0) & (x < 6), _zeros_like(g), g))


def sigmoid(x: Any) -> Any:
    """`1 / (1 + exp(-x))`. Like `jax.nn.sigmoid`."""
    return lax.logistic(x)  # as in JAX, integer inputs are a TypeError


def logaddexp(x1: Any, x2: Any) -> Any:
    # log(e^x1 + e^x2) = max + log1p(e^-|x1 - x2|); x1 + x2 where the difference is NaN
    # (inf - inf), in lax ops, as JAX's jnp.logaddexp
    amax = lax.max(x1, x2)
    delta = lax.sub(x1, x2)
    is_nan = lax.ne(delta, delta)
    total = lax.add(x1, x2)
    out = lax.add(amax, lax.log1p(lax.exp(lax.neg(lax.abs(delta)))))
    return lax.select_n(is_nan, out, total)


_logaddexp = custom_jvp(logaddexp)


def _replace_inf(x: Any) -> Any:
    return jnp.where(jnp.isposinf(x), 0.0, x)


@_logaddexp.defjvp
def _logaddexp_jvp(primals, tangents):
    (x1, x2), (t1, t2) = primals, tangents
    out = _logaddexp(x1, x2)
    # d/dxi log(e^x1 + e^x2) = e^(xi - out); +inf values count as 0, as in JAX
    safe_out = _replace_inf(out)
    return out, t1 * jnp.exp(_replace_inf(x1) - safe_out) + t2 * jnp.exp(
        _replace_inf(x2) - safe_out
    )


def _softplus(x: Any) -> Any:
    """`log(1 + exp(x))`. Like `jax.nn.softplus`."""
    x = to_inexact("softplus", jnp.asarray(x))
    return _logaddexp(*promote("softplus", x, 0.0))  # a 0 as weak as x


softplus = inner_jit(_softplus, "softplus")


def _sparse_plus(x: Any) -> Any:
    """0 for x <= -1, x for x >= 1, (x + 1)^2 / 4 between. Like `jax.nn.sparse_plus`."""
    x = jnp.asarray(x)
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


sparse_plus = inner_jit(_sparse_plus, "sparse_plus")


def _soft_sign(x: Any) -> Any:
    """`x / (|x| + 1)`. Like `jax.nn.soft_sign`."""
    x = jnp.asarray(x)
    return x / (jnp.abs(x) + 1)


soft_sign = inner_jit(_soft_sign, "soft_sign")


def _sparse_sigmoid(x: Any) -> Any:
    """`clip((x + 1) / 2, 0, 1)`. Like `jax.nn.sparse_sigmoid`."""
    return 0.5 * jnp.clip(jnp.asarray(x) + 1.0, 0.0, 2.0)


sparse_sigmoid = inner_jit(_sparse_sigmoid, "sparse_sigmoid")


def _silu(x: Any) -> Any:
    """`x * sigmoid(x)`. Like `jax.nn.silu` (also called `swish`)."""
    x = jnp.asarray(x)
    return x * sigmoid(x)


silu = swish = inner_jit(_silu, "silu")


def _mish(x: Any) -> Any:
    """`x * tanh(softplus(x))`. Like `jax.nn.mish`."""
    x = jnp.asarray(x)
    return x * jnp.tanh(softplus(x))


mish = inner_jit(_mish, "mish")


def _log_sigmoid(x: Any) -> Any:
    """`log(sigmoid(x))`, computed as `-softplus(-x)`. Like `jax.nn.log_sigmoid`."""
    return -softplus(-jnp.asarray(x))


log_sigmoid = inner_jit(_log_sigmoid, "log_sigmoid")


def _elu(x: Any, alpha: Any = _ONE) -> Any:
    x = jnp.asarray(x)
    positive = x > 0
    safe_x = jnp.where(x > 0, 0.0, x)  # expm1 of large positive x would overflow
    return jnp.where(positive, x, alpha * jnp.expm1(safe_x))


_elu_jit = inner_jit(_elu, "elu")


def elu(x: Any, alpha: Any = _ONE) -> Any:
    """`x` for x > 0, `alpha * (exp(x) - 1)` otherwise. Like `jax.nn.elu`."""
    return _elu_jit(*_given(x, alpha, _ONE))


def _leaky_relu(x: Any, negative_slope: Any = _SLOPE) -> Any:
    x = jnp.asarray(x)
    return jnp.where(x >= 0, x, negative_slope * x)


_leaky_relu_jit = inner_jit(_leaky_relu, "leaky_relu")


def leaky_relu(x: Any, negative_slope: Any = _SLOPE) -> Any:
    """`x` for x >= 0, `negative_slope * x` otherwise. Like `jax.nn.leaky_relu`."""
    return _leaky_relu_jit(*_given(x, negative_slope, _SLOPE))


def _hard_tanh(x: Any) -> Any:
    """`x` clipped to [-1, 1]. Like `jax.nn.hard_tanh`."""
    x = jnp.asarray(x)
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


hard_tanh = inner_jit(_hard_tanh, "hard_tanh")


def _celu(x: Any, alpha: Any = _ONE) -> Any:
    return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


_celu_jit = inner_jit(_celu, "celu")


def celu(x: Any, alpha: Any = _ONE) -> Any:
    """`max(x, 0) + alpha * (exp(min(x, 0) / alpha) - 1)`. Like `jax.nn.celu`."""
    return _celu_jit(*_given(x, alpha, _ONE))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _selu(x: Any) -> Any:
    """`scale * elu(x, alpha)` with the self-normalizing constants. Like `jax.nn.selu`."""
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


selu = inner_jit(_selu, "selu")


def gelu(x: Any, approximate: bool = True) -> Any:
    """Gaussian error linear unit: `x * Phi(x)`, or its tanh approximation when `approximate`.
    Like `jax.nn.gelu`."""
    x = to_inexact("gelu", jnp.asarray(x))
    dtype = core.get_aval(x).dtype
    if approximate:
        sqrt_2_over_pi = np.sqrt(2 / np.pi).astype(dtype)
        cdf = 0.5 * (1.0 + jnp.tanh(sqrt_2_over_pi * (x + 0.044715 * (x**3))))
        return x * cdf
    sqrt_half = np.sqrt(0.5).astype(dtype)
    return jnp.array(0.5 * x * erfc(-x * sqrt_half), dtype=dtype)


def _glu(x: Any, axis: int) -> Any:
    x = jnp.asarray(x)
    if core.get_aval(x).shape[axis] % 2 != 0:  # JAX asserts this
        raise AssertionError("axis size must be divisible by 2")
    x1, x2 = jnp.split(x, 2, axis)
    return x1 * sigmoid(x2)


_glu_jit = inner_jit(_glu, "glu", static_argnums=(1,))


def glu(x: Any, axis: int = -1) -> Any:
    """Gated linear unit: the first half of `x` along `axis` times the sigmoid of the second.
    Like `jax.nn.glu`."""
    return _glu_jit(x, axis)


def _hard_sigmoid(x: Any) -> Any:
    """`relu6(x + 3) / 6`. Like `jax.nn.hard_sigmoid`."""
    return relu6(jnp.asarray(x) + 3.0) / 6.0


hard_sigmoid = inner_jit(_hard_sigmoid, "hard_sigmoid")


def _hard_silu(x: Any) -> Any:
    """`x * hard_sigmoid(x)`. Like `jax.nn.hard_silu` (also called `hard_swish`)."""
    x = jnp.asarray(x)
    return x * hard_sigmoid(x)


hard_silu = hard_swish = inner_jit(_hard_silu, "hard_silu")


def _squareplus(x: Any, b: Any = _FOUR) -> Any:
    x = jnp.asarray(x)
    return (x + jnp.sqrt(jnp.square(x) + b)) / 2


_squareplus_jit = inner_jit(_squareplus, "squareplus")


def squareplus(x: Any, b: Any = _FOUR) -> Any:
    """`(x + sqrt(x^2 + b)) / 2`. Like `jax.nn.squareplus`."""
    return _squareplus_jit(*_given(x, b, _FOUR))


def _log1mexp(x: Any) -> Any:
    x = jnp.asarray(x)
    # two forms, each accurate on its side of log 2 (Maechler, "Accurately computing log(1 -
    # exp(-|a|))", 2012)
    c = jnp.log(2.0)
    return jnp.where(x < c, jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


log1mexp = custom_jvp(inner_jit(_log1mexp, "log1mexp"))
log1mexp.defjvps(lambda t, ans, x: t / jnp.expm1(x))  # d/dx log(1 - e^-x) = 1 / (e^x - 1)


def tanh(x: Any, /) -> Any:
    """Elementwise hyperbolic tangent. Like `jax.nn.tanh` (which is `jax.numpy.tanh`)."""
    return jnp.tanh(x)


def logmeanexp(x: Any, axis: Any = None, where: Any = None, keepdims: bool = False) -> Any:
    """`log(mean(exp(x)))`, computed stably. Like `jax.nn.logmeanexp` (without `where=`)."""
    if where is not None:
        raise NotImplementedError("logmeanexp: where= is not supported by didax (issue 24)")
    x = to_inexact("logmeanexp", jnp.asarray(x))
    axes = canonical_axes("logmeanexp", x, axis)
    shape = core.get_aval(x).shape
    count = int(np.prod([shape[a] for a in axes]))
    lse = logsumexp(x, axis=axes, keepdims=keepdims)
    return lse - jnp.log(jnp.asarray(count, core.get_aval(lse).dtype))


def _standardize(x: Any, axis: Any, mean: Any, variance: Any, epsilon: Any, algorithm: str):
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True)
    if variance is None:
        if algorithm == "stable":
            variance = jnp.mean(jnp.square(jnp.subtract(x, mean)), axis, keepdims=True)
        elif algorithm == "fast":
            variance = jnp.mean(jnp.square(x), axis, keepdims=True) - jnp.square(mean)
            variance = jnp.clip(variance, 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return jnp.subtract(x, mean) * lax.rsqrt(variance + epsilon)


_standardize_jit = inner_jit(_standardize, "standardize", static_argnums=(1, 5))


def standardize(
    x: Any,
    axis: Any = -1,
    mean: Any = None,
    variance: Any = None,
    epsilon: Any = 1e-5,
    where: Any = None,
    *,
    algorithm: str = "fast",
) -> Any:
    """`(x - mean) / sqrt(variance + epsilon)` along `axis`. Like `jax.nn.standardize`
    (without `where=`)."""
    if where is not None:
        raise NotImplementedError("standardize: where= is not supported by didax (issue 24)")
    axis = tuple(axis) if isinstance(axis, list) else axis
    return _standardize_jit(x, axis, mean, variance, epsilon, algorithm)


def _one_hot(x: Any, num_classes: int, dtype: Any, axis: int) -> Any:
    ndim = core.get_aval(x).ndim
    out_axis = operator.index(axis) % (ndim + 1) if -ndim - 1 <= axis <= ndim else None
    if out_axis is None:
        raise ValueError(f"one_hot: axis {axis} is out of bounds for an output of rank {ndim + 1}")
    lhs = lax.expand_dims(x, (out_axis,))
    rhs_shape = [1] * ndim
    rhs_shape.insert(out_axis, num_classes)
    rhs = lax.broadcasted_iota(core.get_aval(x).dtype, tuple(rhs_shape), out_axis)
    return lax.convert_element_type(lhs == rhs, dtype)


_one_hot_jit = inner_jit(_one_hot, "_one_hot", static_argnums=(1, 2, 3))


def one_hot(x: Any, num_classes: int, *, dtype: Any = None, axis: int = -1) -> Any:
    """One-hot encodes the integers `x` along a new `axis` of size `num_classes` (indices
    outside [0, num_classes) give all zeros). Like `jax.nn.one_hot`."""
    num_classes = operator.index(
        core.concrete_or_error(
            num_classes, "The error arose in jax.nn.one_hot argument `num_classes`."
        )
    )
    dtype = dtypes.default_float() if dtype is None else dtypes.canonicalize(dtype)
    return _one_hot_jit(jnp.asarray(x), num_classes, dtype, axis)
