"""`lax.map` and `lax.associative_scan`: loops written with other primitives. Like
`jax.lax.map` and `jax.lax.associative_scan`.

Layer 4, after `scan`. `map` is a `scan` with no carry; with `batch_size` it scans over
batches, each mapped by the vmap interpreter, and maps the remainder the same way, as JAX's.
`associative_scan` is JAX's recursive odd/even scheme (combine adjacent pairs, scan the
half-size result, fill in the even positions, interleave with pads), so its jaxprs are
JAX's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from didax import core, dtypes, tree_util
from didax.control_flow.scan import scan
from didax.interpreters import vmap as vmap_interp
from didax.primitives import comparison, concatenation, shape
from didax.primitives.elementwise import add


def _vmapped(f: Callable, xs: Any) -> Any:
    # f mapped over the leading axis of every leaf of xs
    leaves, tree = tree_util.tree_flatten(xs)
    size = core.get_aval(leaves[0]).shape[0]
    out_tree = []

    def flat(*xs_: Any) -> list[Any]:
        out_leaves, t = tree_util.tree_flatten(f(tree_util.tree_unflatten(tree, xs_)))
        out_tree[:] = [t]
        return out_leaves

    outs, dims = vmap_interp.vmap_flat(flat, size, [0] * len(leaves), leaves)
    outs = vmap_interp.move_out_axes(outs, dims, [0] * len(outs), size)
    return tree_util.tree_unflatten(out_tree[0], outs)


def _batch_and_remainder(xs: Any, batch_size: int) -> tuple[Any, Any]:
    leaves, tree = tree_util.tree_flatten(xs)
    if not leaves:
        return xs, None
    n = core.get_aval(leaves[0]).shape[0]
    num_batches, remainder = (0, n) if batch_size == 0 else divmod(n, batch_size)
    elems = num_batches * batch_size

    def scan_leaf(x: Any) -> Any:  # (a whole-array slice is no slice, as JAX's indexing)
        s = core.get_aval(x).shape
        part = x if elems == n else concatenation.slice(x, (0,) * len(s), (elems, *s[1:]))
        return shape.reshape(part, (num_batches, batch_size, *s[1:]))

    def remainder_leaf(x: Any) -> Any:
        s = core.get_aval(x).shape
        return x if elems == 0 else concatenation.slice(x, (elems, *[0] * (len(s) - 1)), s)

    scan_xs = (
        None if num_batches == 0 else tree_util.tree_unflatten(tree, [scan_leaf(x) for x in leaves])
    )
    rest = (
        None
        if remainder == 0
        else tree_util.tree_unflatten(tree, [remainder_leaf(x) for x in leaves])
    )
    return scan_xs, rest


def map(f: Callable[[Any], Any], xs: Any, *, batch_size: int | None = None) -> Any:  # noqa: A001
    """`f` applied to each slice of `xs` along its leading axis, as a `scan`; with
    `batch_size`, `batch_size` slices at a time under vmap. Like `jax.lax.map`."""
    if batch_size is None:
        _, ys = scan(lambda _, x: ((), f(x)), (), xs)
        return ys
    scan_xs, rest = _batch_and_remainder(xs, batch_size)

    def flatten(y: Any) -> Any:
        s = core.get_aval(y).shape
        return shape.reshape(y, (s[0] * s[1], *s[2:]))

    if scan_xs is None:
        return _vmapped(f, rest)
    _, scan_ys = scan(lambda _, x: ((), _vmapped(f, x)), (), scan_xs)
    if rest is None:
        return tree_util.tree_map(flatten, scan_ys)
    rest_ys = _vmapped(f, rest)
    return tree_util.tree_map(
        lambda y, r: concatenation.concatenate([flatten(y), r], 0), scan_ys, rest_ys
    )


def _interleave(a: Any, b: Any, axis: int) -> Any:
    # a's entries at the even positions, b's at the odd ones: two pads, then add (or `or`)
    aa, ba = core.get_aval(a), core.get_aval(b)
    a_pad, b_pad = [(0, 0, 0)] * aa.ndim, [(0, 0, 0)] * ba.ndim
    same = aa.shape[axis] == ba.shape[axis]
    a_pad[axis] = (0, 1 if same else 0, 1)
    b_pad[axis] = (1, 0 if same else 1, 1)
    op = comparison.bitwise_or if aa.dtype == dtypes.bool_ else add
    zero_a = np.zeros((), aa.dtype)
    zero_b = np.zeros((), ba.dtype)
    return op(concatenation.pad(a, zero_a, a_pad), concatenation.pad(b, zero_b, b_pad))


def associative_scan(fn: Callable, elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """All prefix combinations `fn(... fn(fn(e0, e1), e2) ...)` of an associative `fn`
    along `axis`, in log-depth. Like `jax.lax.associative_scan`."""
    if not callable(fn):
        raise TypeError("lax.associative_scan: fn argument should be callable.")
    flat, tree = tree_util.tree_flatten(elems)
    ndim = core.get_aval(flat[0]).ndim
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    axis %= ndim
    if reverse:
        flat = [shape.rev(e, (axis,)) for e in flat]
    n = core.get_aval(flat[0]).shape[axis]
    if not all(core.get_aval(e).shape[axis] == n for e in flat[1:]):
        shapes = [core.get_aval(e).shape for e in flat]
        raise ValueError(
            f"Array inputs to associative_scan must have the same first dimension. (saw: {shapes})"
        )

    def combine(a: list, b: list) -> list:
        c = fn(tree_util.tree_unflatten(tree, a), tree_util.tree_unflatten(tree, b))
        return tree_util.tree_leaves(c)

    def sl(e: Any, start: int, limit: int | None, stride: int = 1) -> Any:
        return concatenation.slice_in_dim(e, start, limit, stride, axis)

    def scan_(es: list) -> list:
        m = core.get_aval(es[0]).shape[axis]
        if m < 2:
            return es
        reduced = combine([sl(e, 0, -1, 2) for e in es], [sl(e, 1, None, 2) for e in es])
        odd = scan_(reduced)
        if m % 2 == 0:
            even = combine([sl(e, 0, -1) for e in odd], [sl(e, 2, None, 2) for e in es])
        else:
            even = combine(odd, [sl(e, 2, None, 2) for e in es])
        even = [
            concatenation.concatenate([sl(e, 0, 1), r], axis) for e, r in zip(es, even, strict=True)
        ]
        return [_interleave(e, o, axis) for e, o in zip(even, odd, strict=True)]

    out = scan_(flat)
    if reverse:
        out = [shape.rev(e, (axis,)) for e in out]
    return tree_util.tree_unflatten(tree, out)


__all__ = ["associative_scan", "map"]
