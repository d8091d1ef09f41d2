"""Vmap rule factories for elementwise primitives (`broadcasting_vmap`,
`front_broadcasting_vmap`) and for the matrix decompositions (`leading_batch_vmap`), and
`batch_to_front`; `move_axis` is in `shape.py`, whose own
rules use it.

Layer 2, after `ad_helpers`.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from didax import core
from didax.core import NOT_MAPPED
from didax.primitives.shape import broadcast_in_dim, move_axis


def batch_to_front(x: Any, d: Any, out_shape: tuple[int, ...], axis_size: int) -> Any:
    """`x` as an operand of shape [axis_size, *out_shape], or left alone if it is an
    unbatched scalar (elementwise primitives accept scalars)."""
    shape = core.get_aval(x).shape
    if d is NOT_MAPPED:
        if not shape:
            return x
        return broadcast_in_dim(x, (axis_size, *out_shape), tuple(range(1, len(out_shape) + 1)))
    x = move_axis(x, d, 0, axis_size)
    if len(shape) - 1 == len(out_shape):
        return x
    return broadcast_in_dim(x, (axis_size, *out_shape), (0,))


def broadcasting_vmap(bind: Any) -> core.VmapRule:
    """Batching of an n-ary elementwise primitive, as JAX batches it: operands of one shape
    batched at one dim are bound as they are; otherwise batch dims go to the front, unbatched
    arrays get a size-1 batch axis and batched scalars trailing size-1 axes, and the
    primitive's size-1 broadcasting does the rest. Unbatched scalars are left alone."""

    def rule(axis_size: int, vals: Sequence[Any], dims: Sequence[Any], **params: Any) -> tuple:
        shapes = [core.get_aval(x).shape for x in vals]
        shp, dim = next((s, d) for s, d in zip(shapes, dims, strict=True) if d is not NOT_MAPPED)
        if all(s == shp and d == dim for s, d in zip(shapes, dims, strict=True) if s):
            return [bind(*vals, **params)], [dim]
        moved = [
            move_axis(x, d, 0, 1) if s else x for x, s, d in zip(vals, shapes, dims, strict=True)
        ]
        ndim = builtins.max(core.get_aval(x).ndim for x in moved)
        moved = [
            x
            if d is NOT_MAPPED or len(s) == ndim
            else broadcast_in_dim(x, (axis_size,) + (1,) * (ndim - 1), (0,))
            for x, s, d in zip(moved, shapes, dims, strict=True)
        ]
        return [bind(*moved, **params)], [0]

    return rule


def front_broadcasting_vmap(bind: Any) -> core.VmapRule:
    """Batching of an elementwise primitive that does not broadcast size-1 axes (`clamp`):
    batch dims to the front, unbatched arrays broadcast along it, unbatched scalars left."""

    def rule(axis_size: int, vals: Sequence[Any], dims: Sequence[Any], **params: Any) -> tuple:
        shapes = [core.get_aval(x).shape for x in vals]
        unbatched = [
            s if d is NOT_MAPPED else s[:d] + s[d + 1 :] for s, d in zip(shapes, dims, strict=True)
        ]
        out_shape = next((s for s in unbatched if s), ())
        moved = [
            batch_to_front(x, d, out_shape, axis_size) for x, d in zip(vals, dims, strict=True)
        ]
        return [bind(*moved, **params)], [0]

    return rule


def leading_batch_vmap(prim: core.Primitive) -> core.VmapRule:
    """Batching of a primitive that maps over its operands' leading axes (the matrix
    decompositions act on the last two): every operand's batch axis to the front (an
    unbatched one broadcast there); every output batched there too."""

    def rule(axis_size: int, vals: Sequence[Any], dims: Sequence[Any], **params: Any) -> tuple:
        moved = (move_axis(x, d, 0, axis_size) for x, d in zip(vals, dims, strict=True))
        outs = prim.bind(*moved, **params)
        outs = list(outs) if prim.multiple_results else [outs]
        return outs, [0] * len(outs)

    return rule
