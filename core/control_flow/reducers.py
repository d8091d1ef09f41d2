"""`lax.reduce` and `lax.reduce_window` with a user's reduction, and the generic `reduce` and
`reduce_window` primitives they bind when the reduction is no known monoid. Like `jax.lax`'s.

Layer 4: the wrappers stage the user's `computation` to a jaxpr (a higher-order primitive's
parameter). A known monoid binds the first-order primitive JAX binds instead:
`(0, add)` is `reduce_sum` / `reduce_window_sum`, `(-inf, max)` `reduce_max` /
`reduce_window_max`, `(inf, min)` the minima, `(1, mul)` `reduce_prod`, and on booleans or
integers `(all ones, bitwise_and)`, `(0, bitwise_or)`, `(0, bitwise_xor)` `reduce_and`,
`reduce_or`, `reduce_xor`.

Generic `reduce`: eagerly and in its jvp it folds the reduced entries pairwise, as a tree
(JAX's jvp is this tree too; the order of a float reduction is unspecified in both);
batching moves the batch axis out of the reduced ones; lowering is `stablehlo.reduce` whose
body is the computation's jaxpr. Generic `reduce_window` folds each window's entries in
order eagerly and lowers to `stablehlo.reduce_window`; its jvp is JAX's, one reduce_window
over (operands, tangents) with the computation's jvp (no transpose: reverse mode fails, as
in JAX).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import core, dtypes, tree_util
from didax.core import NOT_MAPPED, ShapedArray, Zero
from didax.interpreters import jvp as jvp_interp
from didax.interpreters import staging
from didax.interpreters import vmap as vmap_interp
from didax.jaxpr import ClosedJaxpr, eval_jaxpr
from didax.primitives import (
    ad_helpers,
    bits,
    comparison,
    concatenation,
    convolution,
    creation,
    reductions,
    shape,
    windows,
)
from didax.primitives.elementwise import add, max, min, mul

# ----------------------------------------------------------------------------- monoids


def _scalar_value(x: Any) -> Any:
    # the value of a concrete scalar init, or None (a tracer, or not a scalar)
    if isinstance(x, core.Tracer) or np.ndim(x) != 0:
        return None
    return np.asarray(core.to_numpy(x) if hasattr(x, "aval") else x)


def _monoid(computation: Callable, init: Any, dtype: np.dtype) -> str | None:
    v = _scalar_value(init)
    if v is None:
        return None
    floats = dtypes.is_float(dtype)
    if computation is add and v == 0:
        return "add"
    if computation is mul and v == 1:
        return "mul"
    if computation is max and v == (-np.inf if floats else _least(dtype)):
        return "max"
    if computation is min and v == (np.inf if floats else _greatest(dtype)):
        return "min"
    if not floats and computation is comparison.bitwise_and and v == np.array(-1).astype(dtype):
        return "and"
    if not floats and computation is comparison.bitwise_or and v == 0:
        return "or"
    if not floats and computation is bits.bitwise_xor and v == 0:
        return "xor"
    return None


def _least(dtype: np.dtype) -> Any:
    return False if dtype == dtypes.bool_ else np.iinfo(dtype).min


def _greatest(dtype: np.dtype) -> Any:
    return True if dtype == dtypes.bool_ else np.iinfo(dtype).max


_REDUCE_MONOIDS = {
    "add": shape.reduce_sum,
    "mul": reductions.reduce_prod,
    "max": reductions.reduce_max,
    "min": reductions.reduce_min,
    "and": reductions.reduce_and,
    "or": reductions.reduce_or,
    "xor": reductions.reduce_xor,
}
_WINDOW_MONOIDS = {
    "add": windows.reduce_window_sum,
    "max": windows.reduce_window_max,
    "min": windows.reduce_window_min,
}


def _stage_computation(
    name: str, computation: Callable, init_values: Any, init_avals: list[ShapedArray]
) -> tuple[ClosedJaxpr, Any]:
    # the computation as a jaxpr of (accumulators, values) -> accumulators; the concrete
    # arrays it closes over stay its consts (JAX's keep them too, then fail to run them)
    scalars = [ShapedArray((), a.dtype) for a in init_avals]
    pair_tree = tree_util.tree_structure((init_values, init_values))
    flat_fn, out_tree = tree_util.flatten_fun(computation, pair_tree)
    closed = staging.trace_to_jaxpr(flat_fn, scalars + scalars)
    traced = [c for c in closed.consts if isinstance(c, core.Tracer)]
    if traced:
        raise NotImplementedError(
            f"Reduction computations can't close over Tracers: {name}'s computation closes "
            f"over a value being traced, {core.get_aval(traced[0]).str_short()}"
        )
    return closed, out_tree()


# ----------------------------------------------------------------------------- reduce

reduce_p = core.Primitive("reduce", multiple_results=True)


def reduce(
    operands: Any, init_values: Any, computation: Callable, dimensions: Sequence[int]
) -> Any:
    """Reduce `operands` over `dimensions` with `computation` from `init_values` (pytrees of
    the same structure). Like `jax.lax.reduce`."""
    flat_ops, tree = tree_util.tree_flatten(operands)
    flat_inits, init_tree = tree_util.tree_flatten(init_values)
    if tree != init_tree:
        raise ValueError(
            f"Operands must have the same tree structure as init_values: {tree} vs. {init_tree}"
        )
    if len(flat_ops) == 0:
        raise ValueError("reduce must have at least one operand.")
    dims = tuple(int(d) for d in dimensions)
    if len(flat_ops) == 1:
        monoid = _monoid(computation, flat_inits[0], core.get_aval(flat_ops[0]).dtype)
        if monoid is not None:
            return tree_util.tree_unflatten(tree, [_REDUCE_MONOIDS[monoid](flat_ops[0], dims)])
    init_avals = [core.get_aval(x) for x in flat_inits]
    closed, out_tree = _stage_computation("reduce", computation, init_values, init_avals)
    if out_tree != tree:
        raise ValueError(
            f"reduce output must have the same tree structure as the operands {tree} vs. {out_tree}"
        )
    outs = reduce_p.bind(
        *flat_ops, *flat_inits, computation=computation, jaxpr=closed, dimensions=dims
    )
    return tree_util.tree_unflatten(tree, outs)


def _apply(jaxpr: ClosedJaxpr, size: int, xs: list[Any]) -> list[Any]:
    # the scalar computation on `size`-long vectors (accumulators, values), by vmap
    outs, _ = vmap_interp.vmap_flat(
        lambda *a: eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *a),
        size,
        [0] * len(xs),
        xs,
        [0] * (len(xs) // 2),
    )
    return outs


def _reduce_tree(jaxpr: ClosedJaxpr, xs: list[Any], inits: list[Any], dims: tuple[int, ...]):
    # move the reduced axes to the front as one axis, then halve it until one entry is left
    aval = core.get_aval(xs[0])
    kept = [i for i in range(aval.ndim) if i not in dims]
    n = int(np.prod([aval.shape[d] for d in dims], dtype=np.int64))
    kept_shape = tuple(aval.shape[i] for i in kept)
    xs = [shape.reshape(shape.transpose(x, (*dims, *kept)), (n, *kept_shape)) for x in xs]
    if n == 0:
        return [creation.full(kept_shape, i, core.get_aval(i).dtype) for i in inits]
    m = int(np.prod(kept_shape, dtype=np.int64))
    while core.get_aval(xs[0]).shape[0] > 1:
        n = core.get_aval(xs[0]).shape[0]
        n1 = (n + 1) // 2
        first = [concatenation.slice_in_dim(x, 0, n1, axis=0) for x in xs]
        second = [concatenation.slice_in_dim(x, n1, n, axis=0) for x in xs]
        if n - n1 != n1:  # one init pads the shorter half
            config = [(0, 1, 0)] + [(0, 0, 0)] * len(kept_shape)
            second = [concatenation.pad(x, i, config) for x, i in zip(second, inits, strict=True)]
        flat = [shape.reshape(x, (n1 * m,)) for x in first + second]
        xs = [shape.reshape(o, (n1, *kept_shape)) for o in _apply(jaxpr, n1 * m, flat)]
    return [shape.reshape(x, kept_shape) for x in xs]


def _reduce_impl(*args, computation, jaxpr, dimensions):
    k = len(args) // 2
    outs = _reduce_tree(jaxpr, list(args[:k]), list(args[k:]), dimensions)
    return [core.to_numpy(o) for o in outs]


core.impl_rules.register(reduce_p, _reduce_impl)


@core.abstract_eval_rules.register(reduce_p)
def _reduce_abstract_eval(*avals, computation, jaxpr, dimensions):
    k = len(avals) // 2
    ops, inits = avals[:k], avals[k:]
    if any(o.shape != ops[0].shape for o in ops):
        raise ValueError(f"reduce: operands must have the same shape, got {[o.shape for o in ops]}")
    for o, i in zip(ops, inits, strict=True):
        if o.dtype != i.dtype or i.shape:
            raise TypeError(
                f"reduce: operand {o.str_short()} and init value {i.str_short()} must have one "
                "dtype, the init a scalar"
            )
    kept = tuple(s for d, s in enumerate(ops[0].shape) if d not in dimensions)
    return [ShapedArray(kept, o.dtype) for o in ops]


@core.jvp_rules.register(reduce_p)
def _reduce_jvp(primals, tangents, *, computation, jaxpr, dimensions):
    k = len(primals) // 2
    inits = list(primals[k:])

    def tree(*xs: Any) -> list[Any]:
        return _reduce_tree(jaxpr, list(xs), inits, dimensions)

    return jvp_interp.jvp_flat(tree, list(primals[:k]), list(tangents[:k]))


@core.vmap_rules.register(reduce_p)
def _reduce_vmap(axis_size, vals, dims, *, computation, jaxpr, dimensions):
    k = len(vals) // 2
    if any(d is not NOT_MAPPED for d in dims[k:]):
        raise NotImplementedError("reduce: batched init values")
    ops = [shape.move_axis(x, d, 0, axis_size) for x, d in zip(vals[:k], dims[:k], strict=True)]
    new_dims = tuple(d + 1 for d in dimensions)
    outs = reduce_p.bind(*ops, *vals[k:], computation=computation, jaxpr=jaxpr, dimensions=new_dims)
    return list(outs), [0] * k


@core.lowering_rules.register(reduce_p)
def _reduce_lowering(ctx, *args, computation, jaxpr, dimensions):
    k = len(args) // 2
    op = ctx.hlo.ReduceOp(
        [ctx.tensor_type(a) for a in ctx.avals_out], list(args[:k]), list(args[k:]), dimensions
    )
    scalars = [ctx.tensor_type(ShapedArray((), a.dtype)) for a in ctx.avals_in[k:]]
    block = op.regions[0].blocks.append(*scalars, *scalars)
    with ctx.ir.InsertionPoint(block):
        ctx.hlo.return_(ctx.lower_jaxpr(jaxpr, list(block.arguments)))
    return list(op.results)


# ----------------------------------------------------------------------------- reduce_window

reduce_window_p = core.Primitive("reduce_window", multiple_results=True)


def reduce_window(
    operand: Any,
    init_value: Any,
    computation: Callable,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    padding: str | Sequence[tuple[int, int]] = "VALID",
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Any:
    """Reduce each window of `operand` with `computation` from `init_value`. Like
    `jax.lax.reduce_window`."""
    flat_ops, tree = tree_util.tree_flatten(operand)
    flat_inits, init_tree = tree_util.tree_flatten(init_value)
    if tree != init_tree:
        raise ValueError(
            f"Operands must have the same tree structure as init_values: {tree} vs. {init_tree}"
        )
    if len(flat_ops) != len(flat_inits):
        raise ValueError(
            "Must have same total number of operands as init_values: "
            f" {len(flat_ops)} vs. {len(flat_inits)}"
        )
    if len(flat_ops) == 0:
        raise ValueError("reduce_window must have at least one operand.")
    if window_strides is None:
        window_strides = (1,) * len(window_dimensions)
    if isinstance(padding, str):
        dilated = (
            window_dimensions
            if window_dilation is None
            else windows.dilate_shape(window_dimensions, window_dilation)
        )
        op_shape = core.get_aval(flat_ops[0]).shape
        padding = convolution.padtype_to_pads(op_shape, dilated, window_strides, padding)
    params = windows.window_params(
        window_dimensions, window_strides, padding, base_dilation, window_dilation
    )
    if len(flat_ops) == 1:
        monoid = _monoid(computation, flat_inits[0], core.get_aval(flat_ops[0]).dtype)
        if monoid in _WINDOW_MONOIDS:
            out = _WINDOW_MONOIDS[monoid](flat_ops[0], **params)
            return tree_util.tree_unflatten(tree, [out])
    init_avals = [core.get_aval(x) for x in flat_inits]
    closed, out_tree = _stage_computation("reduce_window", computation, init_value, init_avals)
    if out_tree != tree:
        raise ValueError(
            "reduce_window output must have the same tree structure as the operands "
            f"{tree} vs. {out_tree}"
        )
    outs = reduce_window_p.bind(*flat_ops, *flat_inits, jaxpr=closed, consts=(), **params)
    return tree_util.tree_unflatten(tree, outs)


def _reduce_window_impl(*args, jaxpr, consts, **params):
    k = len(args) // 2
    ops = [np.asarray(core.to_numpy(a)) for a in args[:k]]
    inits = [np.asarray(core.to_numpy(a)) for a in args[k:]]
    wins = [windows.flat_windows(x, i, params) for x, i in zip(ops, inits, strict=True)]
    out_shape = wins[0].shape[:-1]
    size = int(np.prod(out_shape, dtype=np.int64))
    acc = [np.broadcast_to(i, (size,)) for i in inits]
    for j in range(wins[0].shape[-1]):
        vals = [w[..., j].reshape(size) for w in wins]
        acc = [core.to_numpy(o) for o in _apply(jaxpr, size, [*acc, *vals])] if size else acc
    return [np.asarray(a).reshape(out_shape).astype(x.dtype) for a, x in zip(acc, ops, strict=True)]


core.impl_rules.register(reduce_window_p, _reduce_window_impl)


@core.abstract_eval_rules.register(reduce_window_p)
def _reduce_window_abstract_eval(*avals, jaxpr, consts, **params):
    k = len(avals) // 2
    return [windows.window_aval("reduce_window", a, **params) for a in avals[:k]]


@core.jvp_rules.register(reduce_window_p)
def _reduce_window_jvp(primals, tangents, *, jaxpr, consts, **params):
    # one reduce_window over (operands, tangents) whose computation is the jvp of the user's
    k = len(primals) // 2
    if not all(isinstance(t, Zero) for t in tangents[k:]):
        raise TypeError("reduce_window jvp does not support non-zero init_value_tangent.")
    ops, inits = list(primals[:k]), list(primals[k:])
    op_dots = [ad_helpers.instantiate(t) for t in tangents[:k]]
    init_dots = [ad_helpers.instantiate(t) for t in tangents[k:]]

    def computation(left: list, right: list) -> list:
        fn = lambda *xs: eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *xs)  # noqa: E731
        outs, out_dots = jvp_interp.jvp_flat(fn, [*left[:k], *right[:k]], [*left[k:], *right[k:]])
        return [*outs, *out_dots]

    both = reduce_window(
        [*ops, *op_dots],
        [*inits, *init_dots],
        computation,
        params["window_dimensions"],
        params["window_strides"],
        params["padding"],
        params["base_dilation"],
        params["window_dilation"],
    )
    return list(both[:k]), list(both[k:])


@core.vmap_rules.register(reduce_window_p)
def _reduce_window_vmap(axis_size, vals, dims, *, jaxpr, consts, **params):
    k = len(vals) // 2
    if any(d is not NOT_MAPPED for d in dims[k:]):
        raise NotImplementedError("reduce_window: batched init values")
    ops = [shape.move_axis(x, d, 0, axis_size) for x, d in zip(vals[:k], dims[:k], strict=True)]
    batched = windows.with_batch_window(params, 0)
    outs = reduce_window_p.bind(*ops, *vals[k:], jaxpr=jaxpr, consts=consts, **batched)
    return list(outs), [0] * k


@core.lowering_rules.register(reduce_window_p)
def _reduce_window_lowering(ctx, *args, jaxpr, consts, **params):
    k = len(args) // 2
    dts = [a.dtype for a in ctx.avals_in[k:]]
    return windows.reduce_window_hlo(
        ctx, args[:k], args[k:], dts, lambda a, b: ctx.lower_jaxpr(jaxpr, [*a, *b]), params
    )
