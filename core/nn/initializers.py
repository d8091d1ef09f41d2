"""`didax.nn.initializers`: functions `init(key, shape, dtype)` that make a layer's starting
weights. Like `jax.nn.initializers`.

Layer 5, after `didax.random`, whose samplers they scale. The variance-scaling family (Glorot,
He, LeCun) reads the fans from the shape as JAX does: the `in_axis`/`out_axis` sizes times the
receptive field (the axes that are neither those nor `batch_axis`). Real dtypes only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import dtypes, random
from didax import numpy as jnp

Initializer = Callable[..., Any]  # (key, shape, dtype=None) -> Array, as JAX's protocol

__all__ = [
    "Initializer",
    "constant",
    "glorot_normal",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "kaiming_normal",
    "kaiming_uniform",
    "lecun_normal",
    "lecun_uniform",
    "normal",
    "ones",
    "truncated_normal",
    "uniform",
    "variance_scaling",
    "xavier_normal",
    "xavier_uniform",
    "zeros",
]


def _dtype(dtype: Any) -> Any:
    return dtypes.default_float() if dtype is None else dtype


def zeros(key: Any, shape: Sequence[int], dtype: Any = None, out_sharding: Any = None) -> Any:
    """An array of zeros (`key` is ignored). Like `jax.nn.initializers.zeros`."""
    return jnp.zeros(shape, _dtype(dtype))


def ones(key: Any, shape: Sequence[int], dtype: Any = None, out_sharding: Any = None) -> Any:
    """An array of ones (`key` is ignored). Like `jax.nn.initializers.ones`."""
    return jnp.ones(shape, _dtype(dtype))


def constant(value: Any, dtype: Any = None) -> Initializer:
    """An initializer filling arrays with `value`. Like `jax.nn.initializers.constant`."""

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype, out_sharding: Any = None) -> Any:
        return jnp.full(shape, value, dtype=_dtype(dtype))

    return init


def uniform(scale: Any = 1e-2, dtype: Any = None) -> Initializer:
    """An initializer drawing from U[0, scale). Like `jax.nn.initializers.uniform`."""

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype, out_sharding: Any = None) -> Any:
        dtype = _dtype(dtype)
        return random.uniform(key, shape, dtype) * jnp.array(scale, dtype)

    return init


def normal(stddev: Any = 1e-2, dtype: Any = None) -> Initializer:
    """An initializer drawing from N(0, stddev^2). Like `jax.nn.initializers.normal`."""

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype, out_sharding: Any = None) -> Any:
        dtype = _dtype(dtype)
        return random.normal(key, shape, dtype) * jnp.array(stddev, dtype)

    return init


def truncated_normal(
    stddev: Any = 1e-2, dtype: Any = None, lower: Any = -2.0, upper: Any = 2.0
) -> Initializer:
    """An initializer drawing from N(0, 1) truncated to (lower, upper), times `stddev`.
    Like `jax.nn.initializers.truncated_normal`."""

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype, out_sharding: Any = None) -> Any:
        dtype = _dtype(dtype)
        return random.truncated_normal(key, lower, upper, shape, dtype) * jnp.array(stddev, dtype)

    return init


def _axes(axis: int | Sequence[int], ndim: int) -> list[int]:
    return [a % ndim for a in ([axis] if isinstance(axis, int) else axis)]


def _compute_fans(
    shape: Sequence[int],
    in_axis: int | Sequence[int],
    out_axis: int | Sequence[int],
    batch_axis: int | Sequence[int],
) -> tuple[float, float]:
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(
            f"Can't compute input and output sizes of a {len(shape)}-dimensional weights "
            "tensor with default in_axis. Must be at least 2D or specify in_axis explicitly."
        )
    ndim = len(shape)
    in_size, out_size, batch_size = (
        math.prod(shape[a] for a in _axes(axes, ndim)) for axes in (in_axis, out_axis, batch_axis)
    )
    receptive_field = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field, out_size * receptive_field


# the standard deviation of N(0, 1) truncated to (-2, 2)
_TRUNCATED_STDDEV = 0.87962566103423978


def variance_scaling(
    scale: Any,
    mode: str,
    distribution: str,
    in_axis: int | Sequence[int] = -2,
    out_axis: int | Sequence[int] = -1,
    batch_axis: int | Sequence[int] = (),
    dtype: Any = None,
) -> Initializer:
    """An initializer with variance `scale / n`, n the fan picked by `mode` ("fan_in",
    "fan_out", "fan_avg", "fan_geo_avg"), drawn from `distribution` ("truncated_normal",
    "normal", "uniform"). Like `jax.nn.initializers.variance_scaling` (real dtypes)."""

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype, out_sharding: Any = None) -> Any:
        dtype = _dtype(dtype)
        shape = tuple(shape)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode == "fan_in":
            denominator = fan_in
        elif mode == "fan_out":
            denominator = fan_out
        elif mode == "fan_avg":
            denominator = (fan_in + fan_out) / 2
        elif mode == "fan_geo_avg":
            denominator = math.sqrt(fan_in * fan_out)
        else:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = jnp.array(scale / denominator, dtype=dtype)
        if not np.issubdtype(np.dtype(dtype), np.floating):
            raise NotImplementedError(f"variance_scaling: dtype {dtype} (complex) (issue 24)")
        if distribution == "truncated_normal":
            stddev = jnp.sqrt(variance) / jnp.array(_TRUNCATED_STDDEV, dtype)
            return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
        if distribution == "normal":
            return random.normal(key, shape, dtype) * jnp.sqrt(variance)
        if distribution == "uniform":
            return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")

    return init


def _scaled(scale: float, mode: str, distribution: str, name: str) -> Callable[..., Initializer]:
    def make(
        in_axis: int | Sequence[int] = -2,
        out_axis: int | Sequence[int] = -1,
        batch_axis: int | Sequence[int] = (),
        dtype: Any = None,
    ) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)

    make.__name__ = make.__qualname__ = name
    make.__doc__ = (
        f"`variance_scaling({scale}, {mode!r}, {distribution!r})`. "
        f"Like `jax.nn.initializers.{name}`."
    )
    return make


glorot_uniform = xavier_uniform = _scaled(1.0, "fan_avg", "uniform", "glorot_uniform")
glorot_normal = xavier_normal = _scaled(1.0, "fan_avg", "truncated_normal", "glorot_normal")
lecun_uniform = _scaled(1.0, "fan_in", "uniform", "lecun_uniform")
lecun_normal = _scaled(1.0, "fan_in", "truncated_normal", "lecun_normal")
he_uniform = kaiming_uniform = _scaled(2.0, "fan_in", "uniform", "he_uniform")
he_normal = kaiming_normal = _scaled(2.0, "fan_in", "truncated_normal", "he_normal")
