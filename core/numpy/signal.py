"""`didax.numpy.convolve` and `correlate`: 1-D convolutions on `lax.conv_general_dilated`,
as JAX writes them (the same nested `jit`s in the jaxpr: `convolve`, `_conv`, `_flip`).

Layer 5, composing `didax.numpy` and the convolution primitive. Both inputs become one-batch,
one-channel signals (`x[None, None, :]`); `mode` picks the padding: 'full' pads m-1 on both
sides, 'same' m//2 before and m-m//2-1 after, 'valid' none.
"""

from __future__ import annotations

from typing import Any

from didax import lax
from didax.numpy import (
    creation,
    inner_jit,
    promotion,
)
from didax.numpy.axis_args import _aval
from didax.primitives.convolution import conv_general_dilated

__all__ = ["convolve", "correlate"]


def _flip(m: Any) -> Any:
    return lax.rev(m, tuple(range(_aval(m).ndim)))


_flip_jit = inner_jit.inner_jit(_flip, "_flip")


def _conv(x: Any, y: Any, mode: str, op: str, preferred_element_type: Any) -> Any:
    if _aval(x).ndim != 1 or _aval(y).ndim != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    x, y = promotion.promote(op, x, y)
    if preferred_element_type is None:  # NumPy's convolutions are inexact
        x, y = promotion.to_inexact(op, x), promotion.to_inexact(op, y)
    n, m = _aval(x).shape[0], _aval(y).shape[0]
    if n == 0 or m == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {(n,)} and {(m,)}.")
    reverse = False
    if op == "correlate":
        if n < m:
            x, y, reverse = y, x, True
    else:
        if n < m:
            x, y = y, x
        y = _flip_jit(y)
    m = _aval(y).shape[0]
    if mode == "valid":
        padding = [(0, 0)]
    elif mode == "same":
        padding = [(m // 2, m - m // 2 - 1)]
    elif mode == "full":
        padding = [(m - 1, m - 1)]
    else:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    lift = lambda v: lax.broadcast_in_dim(v, (1, 1, _aval(v).shape[0]), (2,))  # noqa: E731
    out = conv_general_dilated(
        lift(x), lift(y), (1,), padding, preferred_element_type=preferred_element_type
    )
    out = lax.squeeze(out, (0, 1))
    return lax.rev(out, (0,)) if reverse else out


_conv_jit = inner_jit.inner_jit(_conv, "_conv", static_argnums=(2, 3, 4))


def _convolve(a: Any, v: Any, mode: str, preferred_element_type: Any) -> Any:
    return _conv_jit(a, v, mode, "convolve", preferred_element_type)


def _correlate(a: Any, v: Any, mode: str, preferred_element_type: Any) -> Any:
    return _conv_jit(a, v, mode, "correlate", preferred_element_type)


_convolve_jit = inner_jit.inner_jit(_convolve, "convolve", static_argnums=(2, 3))
_correlate_jit = inner_jit.inner_jit(_correlate, "correlate", static_argnums=(2, 3))


def convolve(
    a: Any, v: Any, mode: str = "full", *, precision: Any = None, preferred_element_type: Any = None
) -> Any:
    """Like `jax.numpy.convolve` (1-D)."""
    promotion.check_arraylike("convolve", a, v)
    return _convolve_jit(creation.asarray(a), creation.asarray(v), mode, preferred_element_type)


def correlate(
    a: Any,
    v: Any,
    mode: str = "valid",
    *,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """Like `jax.numpy.correlate` (1-D, real)."""
    promotion.check_arraylike("correlate", a, v)
    return _correlate_jit(creation.asarray(a), creation.asarray(v), mode, preferred_element_type)
