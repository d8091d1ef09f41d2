"""Dtype promotion and broadcasting of `didax.numpy`'s operands.

Layer 5, after `axis_args`. Binary functions first promote dtypes (JAX's lattice, Python scalars
weak) and broadcast shapes (scalars are left for the primitive to broadcast, as JAX 0.10
does); the functions here do both, with `broadcast_to`, the public one.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from didax import core, dtypes, lax
from didax.config import config
from didax.numpy.axis_args import shape_tuple


def check_arraylike(name: str, *args: Any) -> None:
    for i, x in enumerate(args):
        if not core.is_arraylike(x):
            raise TypeError(
                f"{name} requires ndarray or scalar arguments, got "
                f"{type(x).__name__} at position {i}."
            )


def promote(name: str, *args: Any) -> list[Any]:
    """Convert `args` to their common dtype; Python scalars become literals of that dtype."""
    check_arraylike(name, *args)
    avals = [core.get_aval(x) for x in args]
    dtype, weak = dtypes.result_type(*((a.dtype, a.weak_type) for a in avals))
    return [
        lax.convert_element_type(x, dtype, weak)
        if (a.dtype, a.weak_type) != (dtype, weak) or dtypes.is_python_scalar(x)
        else x
        for x, a in zip(args, avals, strict=True)
    ]


def broadcast(name: str, *args: Any, numpy_name: str | None = None) -> list[Any]:
    """NumPy broadcasting as JAX's numpy does it: operands of different ranks get leading
    size-1 axes (`f32[3]` -> `f32[1,3]`); the primitive broadcasts size-1 axes and scalars.
    Rank promotion warns or raises as the config option jax_numpy_rank_promotion says,
    naming `numpy_name` (the function's) if given, else `name` (the primitive's)."""
    shapes = [core.get_aval(x).shape for x in args]
    try:
        rank = len(np.broadcast_shapes(*shapes))
    except ValueError:
        if len({len(s) for s in shapes if s}) < 2:  # the primitive's error, raised eagerly too
            raise TypeError(
                f"{name} got incompatible shapes for broadcasting: "
                + ", ".join(str(s) for s in shapes if s)
                + "."
            ) from None
        raise ValueError(
            f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}"
        ) from None
    if len({len(s) for s in shapes if s}) < 2:
        return list(args)
    check_rank_promotion(numpy_name or name, *args)
    return [
        x
        if len(s) == rank
        else lax.broadcast_in_dim(x, (1,) * (rank - len(s)) + s, tuple(range(rank - len(s), rank)))
        for x, s in zip(args, shapes, strict=True)
    ]


def check_rank_promotion(name: str, *args: Any) -> None:
    """Warn or raise, as the config option jax_numpy_rank_promotion says, if `args` have
    different ranks (scalars aside): what `broadcast` checks, for functions that broadcast
    their own way. JAX's messages."""
    mode = config.read("jax_numpy_rank_promotion")
    if mode == "allow":  # the default: nothing to look at
        return
    shapes = [core.get_aval(x).shape for x in args]
    if len({len(s) for s in shapes if s}) < 2:
        return
    listed = " ".join(str(tuple(s)) for s in shapes)
    if mode == "warn":
        warnings.warn(
            f"Following NumPy automatic rank promotion for {name} on shapes {listed}. Set the "
            "jax_numpy_rank_promotion config option to 'allow' to disable this warning; for "
            "more information, see https://docs.jax.dev/en/latest/rank_promotion_warning.html.",
            stacklevel=4,
        )
        return
    raise ValueError(
        f"Operands could not be broadcast together for {name} on shapes {listed} and with the "
        "config option jax_numpy_rank_promotion='raise'. For more information, see "
        "https://docs.jax.dev/en/latest/rank_promotion_warning.html."
    )


def broadcast_nonscalars(name: str, *args: Any) -> list[Any]:
    """Operands broadcast to one shape, scalars left as they are (for `where`: `select_n`
    does not broadcast)."""
    shapes = [core.get_aval(x).shape for x in args]
    try:
        out = np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(
            f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}"
        ) from None
    result = []
    for x, s in zip(args, shapes, strict=True):
        if s == out or not s:
            result.append(x)
        else:
            dims = tuple(range(len(out) - len(s), len(out)))
            result.append(lax.broadcast_in_dim(x, out, dims))
    return result


def promote_pair(name: str, x: Any, y: Any) -> list[Any]:
    # Fast path (the eager hot loop): two arrays of one type and shape, or an array and a
    # Python scalar that is already of the array's kind, need no conversion or broadcast.
    ax, ay = getattr(x, "aval", None), getattr(y, "aval", None)
    if ax is not None:
        if ay is not None:
            if ax.dtype == ay.dtype and ax.weak_type == ay.weak_type and ax.shape == ay.shape:
                return [x, y]
        elif _scalar_fits(y, ax):
            return [x, _fitted_scalar(y, ax)]
    elif ay is not None and _scalar_fits(x, ay):
        return [_fitted_scalar(x, ay), y]
    return broadcast(name, *promote(name, x, y))


def _scalar_fits(v: Any, aval: core.ShapedArray) -> bool:
    t = type(v)
    return (t is float and aval.dtype == dtypes.default_float()) or (
        t is int and aval.dtype == dtypes.default_int()
    )


def _fitted_scalar(v: Any, aval: core.ShapedArray) -> Any:
    # A Python scalar of the array's dtype is left as it is where that changes nothing: beside
    # a weak array (JAX keeps it as written: `mul a 1.67:f32[]`), or eagerly (NumPy computes
    # with it as a weak scalar). Staged beside a strong array JAX converts it, and its literal
    # prints rounded to the dtype (`1.6699999570846558:f32[]`).
    if aval.weak_type or core.trace_state() is core.EAGER_STATE:
        return v
    return aval.dtype.type(v)  # a strong scalar constant


def to_inexact(name: str, x: Any) -> Any:
    aval = getattr(x, "aval", None)
    if aval is not None and dtypes.kind(aval.dtype) >= 2:
        return x
    check_arraylike(name, x)
    aval = core.get_aval(x)
    if dtypes.is_float(aval.dtype) and not dtypes.is_python_scalar(x):
        return x
    if dtypes.is_float(aval.dtype):
        return lax.convert_element_type(x, aval.dtype, aval.weak_type)
    return lax.convert_element_type(x, dtypes.default_float(), aval.weak_type)


def broadcast_to(x: Any, shape: Any) -> Any:
    """Like `jax.numpy.broadcast_to`."""
    shape = shape_tuple(shape)
    s = core.get_aval(x).shape
    if np.broadcast_shapes(s, shape) != shape:
        raise ValueError(f"Incompatible shapes for broadcasting: {s} and requested shape {shape}")
    return lax.broadcast_in_dim(x, shape, tuple(range(len(shape) - len(s), len(shape))))


__all__ = [
    "broadcast_to",
]
