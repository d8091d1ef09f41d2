"""`pure_callback`: call a Python function on array values from inside transformed code,
treating it as pure (it may be deduplicated or dropped when its results are unused). The
`pure_callback` primitive; like JAX 0.10.2's `jax.pure_callback`.

Layer 4 (control_flow/), after scan.py: its vmap rule with `vmap_method="sequential"` maps
the callback over the batch with a `scan`, as JAX's `lax.map` does. Eagerly the function is
called with didax Arrays; compiled, through the host-callback path `debug.print` uses
(`primitives/debugging.host_callback`). Its results are checked against `result_avals` (shape
and, after canonicalization, dtype), with JAX's messages. It has no derivative, as in JAX:
wrap it in a `custom_jvp`/`custom_vjp`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.control_flow.scan import scan
from didax.core import NOT_MAPPED, ShapedArray
from didax.primitives import shape
from didax.primitives.debugging import as_arrays, host_callback
from didax.tree_util import PyTreeDef, tree_flatten, tree_leaves, tree_map, tree_unflatten

pure_callback_p = core.Primitive("pure_callback", multiple_results=True)

VMAP_METHODS = [
    "sequential",
    "sequential_unrolled",
    "expand_dims",
    "broadcast_all",
    "legacy_vectorized",
    None,
]


@dataclass(frozen=True)
class _FlatCallback:
    """The user's callback on flat lists of values (JAX's name, printed in the jaxpr)."""

    callback_func: Callable[..., Any]
    in_tree: PyTreeDef

    def __call__(self, *flat_args: Any) -> list[Any]:
        args, kwargs = tree_unflatten(self.in_tree, list(flat_args))
        return tree_leaves(self.callback_func(*args, **kwargs))


def pure_callback(
    callback: Callable[..., Any],
    result_shape_dtypes: Any,
    *args: Any,
    sharding: Any = None,
    vmap_method: str | None = None,
    **kwargs: Any,
) -> Any:
    """`callback(*args, **kwargs)` run in Python on the arguments' values, returning arrays of
    the shapes and dtypes of `result_shape_dtypes` (a pytree of `ShapeDtypeStruct`s). Like
    `jax.pure_callback`; `vmap_method` says how it batches ("sequential", "expand_dims",
    "broadcast_all", ...; None: vmap raises)."""
    if vmap_method not in VMAP_METHODS:
        raise ValueError(
            f"vmap_method must be on of the allowed methods {VMAP_METHODS}, but got: {vmap_method}"
        )
    leaves, in_tree = tree_flatten((args, kwargs))
    result_avals = tree_map(
        lambda s: ShapedArray(tuple(s.shape), dtypes.canonicalize(np.dtype(s.dtype))),
        result_shape_dtypes,
    )
    flat_avals, out_tree = tree_flatten(result_avals)
    outs = pure_callback_p.bind(
        *leaves,
        callback=_FlatCallback(callback, in_tree),
        result_avals=tuple(flat_avals),
        sharding=sharding,
        vmap_method=vmap_method,
    )
    return tree_unflatten(out_tree, outs)


def _call(callback: _FlatCallback, values: Sequence[Any], result_avals: Sequence) -> list:
    # the user's function on Arrays; its results as NumPy arrays of the promised types
    outs = [np.asarray(o) for o in callback(*as_arrays(values))]
    if len(outs) != len(result_avals):
        raise RuntimeError(
            f"Incorrect number of return values: Expected: {len(result_avals)}, Actual: {len(outs)}"
        )
    for i, (o, a) in enumerate(zip(outs, result_avals, strict=True)):
        if o.shape != a.shape:
            raise RuntimeError(
                f"Incorrect output shape for return value #{i}: Expected: {a.shape}, "
                f"Actual: {o.shape}"
            )
        if dtypes.canonicalize(o.dtype) != a.dtype:
            raise RuntimeError(
                f"Incorrect output dtype for return value #{i}: Expected: {a.dtype}, "
                f"Actual: {o.dtype}"
            )
    return [o.astype(a.dtype) for o, a in zip(outs, result_avals, strict=True)]


@core.impl_rules.register(pure_callback_p)
def _pure_callback_impl(*args, callback, result_avals, **params):
    return _call(callback, args, result_avals)


@core.abstract_eval_rules.register(pure_callback_p)
def _pure_callback_abstract_eval(*avals, result_avals, **params):
    return list(result_avals)


@core.jvp_rules.register(pure_callback_p)
def _pure_callback_jvp(primals, tangents, **params):
    raise ValueError(
        "Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks "
        "while taking gradients."
    )


@core.transpose_rules.register(pure_callback_p)
def _pure_callback_transpose(cts, *args, **params):
    raise ValueError(
        "Pure callbacks do not support transpose. Please use `jax.custom_vjp` to use "
        "callbacks while taking gradients."
    )


@core.vmap_rules.register(pure_callback_p)
def _pure_callback_vmap(axis_size, vals, dims, *, callback, result_avals, sharding, vmap_method):
    params = dict(callback=callback, sharding=sharding, vmap_method=vmap_method)
    if vmap_method is None:
        raise NotImplementedError(
            "vmap is only supported for the pure_callback primitive when vmap_method is one "
            "of 'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            f"'legacy_vectorized'. Got vmap_method={vmap_method}."
        )
    mapped = [d is not NOT_MAPPED for d in dims]
    vals = [
        shape.move_axis(x, d, 0, axis_size) if m else x
        for x, d, m in zip(vals, dims, mapped, strict=True)
    ]
    if vmap_method.startswith("sequential"):
        xs = [x for x, m in zip(vals, mapped, strict=True) if m]

        def body(carry: tuple, row: list) -> tuple:
            it = iter(row)
            args = [next(it) if m else x for x, m in zip(vals, mapped, strict=True)]
            return carry, pure_callback_p.bind(*args, result_avals=result_avals, **params)

        size = int(axis_size)
        unroll = size if vmap_method == "sequential_unrolled" else 1
        _, outs = scan(body, (), xs, length=size, unroll=unroll)
        return list(outs), [0] * len(outs)
    if vmap_method != "legacy_vectorized":  # expand_dims / broadcast_all: every operand batched
        size = 1 if vmap_method == "expand_dims" else axis_size
        vals = [x if m else _leading(x, size) for x, m in zip(vals, mapped, strict=True)]
    batched = tuple(a.update(shape=(axis_size, *a.shape)) for a in result_avals)
    outs = pure_callback_p.bind(*vals, result_avals=batched, **params)
    return outs, [0] * len(outs)


def _leading(x: Any, size: int) -> Any:
    aval = core.get_aval(x)
    return shape.broadcast_in_dim(x, (size, *aval.shape), tuple(range(1, aval.ndim + 1)))


@core.lowering_rules.register(pure_callback_p)
def _pure_callback_lowering(ctx, *args, callback, result_avals, **params):
    def run(*values: np.ndarray) -> tuple:
        return tuple(_call(callback, values, result_avals))

    return host_callback(ctx, run, args, result_avals, side_effect=False)
