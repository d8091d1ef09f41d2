"""Sharding rules (sharding in types): how the shape primitives, reductions, `dot_general`,
slices and cumulative ops split their results over a mesh's `Explicit` axes, as JAX 0.10.2's
rules do, with JAX's `ShardingTypeError` where it has no rule.

Layer 2, the last module of didax.primitives. Elementwise primitives need no entry (their
results are split as their operands, `typed_sharding.result_avals`); these are the
primitives that move, drop or combine dimensions. Kept together rather than beside each
primitive: one page shows how a split travels through a program, the rule of each family a
few lines, and the spec helpers they share (`typed_sharding`) in one place.
"""

from __future__ import annotations

from typing import Any

from didax import core
from didax.primitives import concatenation, cumulative, dot, reductions, shape
from didax.primitives.slicing import gather_p
from didax.runtime.sharding import typed
from didax.typed_sharding import ShardingTypeError, check_unique, join, spec_of


def _sizes(avals_in) -> dict:
    mesh = next(a.mesh for a in avals_in if type(a) is core.ShardedArray)
    return dict(zip(mesh.axis_names, mesh.axis_sizes, strict=True))


def _entry(axes: tuple) -> Any:  # as JAX prints one dimension's partition
    return None if not axes else axes[0] if len(axes) == 1 else axes


# ----------------------------------------------------------------------------- shape


@core.sharding_rules.register(shape.transpose_p)
def _transpose_sharding(avals_in, avals_out, *, permutation):
    spec = spec_of(avals_in[0])
    return [tuple(spec[p] for p in permutation)]


def _reduction_sharding(avals_in, avals_out, *, axes, out_sharding=None, **params):
    if out_sharding is not None:  # given: the result's split
        return [spec_of(typed(avals_out[0], out_sharding))]
    spec = spec_of(avals_in[0])
    return [tuple(s for d, s in enumerate(spec) if d not in axes)]


for _prim in (
    shape.reduce_sum_p,
    reductions.reduce_max_p,
    reductions.reduce_min_p,
    reductions.reduce_prod_p,
    reductions.argmax_p,
):
    core.sharding_rules.register(_prim, _reduction_sharding)


@core.sharding_rules.register(shape.broadcast_in_dim_p)
def _broadcast_in_dim_sharding(avals_in, avals_out, *, shape, broadcast_dimensions, sharding):
    (x,), (out,) = avals_in, avals_out
    if sharding is not None:  # `out_sharding=`: the result's split, as given
        return [spec_of(typed(out, sharding))]
    spec = [()] * out.ndim
    for d, o in enumerate(broadcast_dimensions):
        if x.shape[d] == out.shape[o]:
            spec[o] = spec_of(x)[d]
    return [tuple(spec)]


@core.sharding_rules.register(shape.squeeze_p)
def _squeeze_sharding(avals_in, avals_out, *, dimensions):
    spec = spec_of(avals_in[0])
    return [tuple(s for d, s in enumerate(spec) if d not in dimensions)]


@core.sharding_rules.register(shape.reshape_p)
def _reshape_sharding(avals_in, avals_out, *, new_sizes, dimensions, sharding):
    (x,) = avals_in
    if sharding is not None:  # `out_sharding=`: the result's split, as given
        return [spec_of(typed(avals_out[0], sharding))]
    spec = spec_of(x)
    if [n for n in x.shape if n != 1] == [n for n in new_sizes if n != 1]:
        kept = iter(s for n, s in zip(x.shape, spec, strict=True) if n != 1)
        return [tuple(() if n == 1 else next(kept) for n in new_sizes)]
    if dimensions is not None:
        _reshape_error(x, new_sizes)
    sizes = _sizes(avals_in)
    out: list[tuple] = []
    # dimensions in groups of equal size (a dimension split in several, several merged)
    i = j = 0
    while i < x.ndim or j < len(new_sizes):
        if i >= x.ndim or j >= len(new_sizes):  # trailing dimensions of size 1
            out.extend([()] * (len(new_sizes) - j))
            break
        gi, gj = [i], [j]
        a, b = x.shape[i], new_sizes[j]
        while a != b:
            if a < b:
                i += 1
                gi.append(i)
                a *= x.shape[i]
            else:
                j += 1
                gj.append(j)
                b *= new_sizes[j]
        i, j = i + 1, j + 1
        axes = [spec[d] for d in gi]
        while axes and not axes[-1]:
            axes.pop()
        if len(gi) > 1 and len(gj) > 1 and axes:
            _reshape_error(x, new_sizes)
        if any(not s for s in axes):  # a split dimension after an unsplit one
            _reshape_error(x, new_sizes)
        out.extend(
            _split_partitions(
                sizes, [a for s in axes for a in s], [new_sizes[k] for k in gj], x, new_sizes
            )
        )
    return [tuple(out)]


def _split_partitions(sizes, axes, dims, x, new_sizes) -> list[tuple]:
    # JAX's: the axes go to the dimensions major to minor, each taking what divides it
    rest = iter(axes)
    parts = []
    for n in dims:
        mine = []
        while n > 1:
            a = next(rest, None)
            if a is None:
                break
            n, r = divmod(n, sizes[a])
            if r:
                _reshape_error(x, new_sizes)
            mine.append(a)
        parts.append(tuple(mine))
    if next(rest, None) is not None:
        _reshape_error(x, new_sizes)
    return parts


def _reshape_error(x, new_sizes):
    raise ShardingTypeError(
        "This reshape is not supported. Please specify the sharding of the output via the "
        "`out_sharding` argument of jax.lax.reshape. Got operand type: "
        f"{x.strip_weak_type()}, new sizes: {tuple(new_sizes)}"
    )


# ----------------------------------------------------------------------------- dot_general


@core.sharding_rules.register(dot.dot_general_p)
def _dot_general_sharding(avals_in, avals_out, *, dimension_numbers, out_sharding=None, **params):
    if out_sharding is not None:  # given: the result's split (JAX reduces over the rest)
        return [spec_of(typed(avals_out[0], out_sharding))]
    lhs, rhs = avals_in
    ls, rs = spec_of(lhs), spec_of(rhs)
    (lc, rc), (lb, rb) = dimension_numbers
    lb_spec = tuple(_entry(ls[d]) for d in lb)
    rb_spec = tuple(_entry(rs[d]) for d in rb)
    _match(
        lb_spec,
        rb_spec,
        "dot_general requires lhs batch dimensions and rhs batch dimensions to have the "
        f"consistent sharding, got {lb_spec} and {rb_spec}.",
    )
    lc_spec = tuple(_entry(ls[d]) for d in lc)
    rc_spec = tuple(_entry(rs[d]) for d in rc)
    _match(
        lc_spec,
        rc_spec,
        "dot_general requires contracting dimensions to have consistent sharding, got "
        f"{lc_spec} and {rc_spec}.",
    )
    if any(a is not None and b is not None for a, b in zip(lc_spec, rc_spec, strict=True)):
        raise ShardingTypeError(
            "Contracting dimensions are sharded and it is ambiguous how the output should be "
            "sharded. Please specify the output sharding via the `out_sharding` parameter. "
            f"Got lhs_contracting_spec={lc_spec} and rhs_contracting_spec={rc_spec}"
        )
    spec = (
        *(ls[d] for d in lb),
        *(s for d, s in enumerate(ls) if d not in (*lc, *lb)),
        *(s for d, s in enumerate(rs) if d not in (*rc, *rb)),
    )
    return [check_unique("dot_general", avals_in, avals_out[0], spec)]


def _match(a: tuple, b: tuple, msg: str) -> None:
    if any(x is not None and y is not None and x != y for x, y in zip(a, b, strict=True)):
        raise ShardingTypeError(msg)


# ----------------------------------------------------------------------------- slices, joins


@core.sharding_rules.register(concatenation.slice_p)
def _slice_sharding(avals_in, avals_out, *, start_indices, limit_indices, strides):
    (x,), (out,) = avals_in, avals_out
    spec = spec_of(x)
    for d, s in enumerate(spec):
        if s and out.shape[d] != x.shape[d]:
            raise ShardingTypeError(
                f"slicing on sharded dims is not implemented yet. Got operand type "
                f"{x.strip_weak_type()} sliced along dimension {d}"
            )
    return [spec]


@core.sharding_rules.register(concatenation.concatenate_p)
def _concatenate_sharding(avals_in, avals_out, *, dimension):
    return [join("concatenate", [spec_of(a) for a in avals_in])]


@core.sharding_rules.register(concatenation.stack_p)
def _stack_sharding(avals_in, avals_out, *, axis):
    spec = list(join("stack", [spec_of(a) for a in avals_in]))
    spec.insert(axis, ())
    return [tuple(spec)]


def _cumulative_sharding(avals_in, avals_out, *, axis, reverse):
    (x,) = avals_in
    if spec_of(x)[axis]:
        raise ShardingTypeError(
            "Input should be unsharded over the axis being reduced. Got input "
            f"type={x.strip_weak_type()} and axis={axis}"
        )
    return [spec_of(x)]


for _prim in (
    cumulative.cumsum_p,
    cumulative.cumprod_p,
    cumulative.cummax_p,
    cumulative.cummin_p,
    cumulative.cumlogsumexp_p,
):
    core.sharding_rules.register(_prim, _cumulative_sharding)


@core.sharding_rules.register(gather_p)
def _gather_sharding(avals_in, avals_out, *, dimension_numbers, slice_sizes, **params):
    # JAX's: the sliced dimensions must be taken whole or be unsplit, the indices unsplit
    # but for batching dimensions matching the operand's; otherwise JAX asks for out_sharding
    operand, indices = avals_in
    dn = dimension_numbers
    ospec, ispec = spec_of(operand), list(spec_of(indices))
    batching = list(zip(dn.operand_batching_dims, dn.start_indices_batching_dims, strict=True))
    if (
        any(slice_sizes[d] != operand.shape[d] and ospec[d] for d in dn.start_index_map)
        or any(ospec[o] and ispec[i] and ospec[o] != ispec[i] for o, i in batching)
        or any(s for i, s in enumerate(ispec) if i not in dn.start_indices_batching_dims)
    ):
        raise ShardingTypeError(
            "Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather "
            "indexing as out sharding could not be resolved unambiguously (or would require "
            f"collectives on inputs). Got operand={operand.strip_weak_type()!r}, "
            f"indices={indices.strip_weak_type()!r}"
        )
    for o, i in batching:
        ispec[i] = ispec[i] or ospec[o]
    kept = iter(
        d
        for d in range(operand.ndim)
        if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims
    )
    from_indices = iter(ispec)
    out = avals_out[0]
    return [
        tuple(
            ospec[next(kept)] if k in dn.offset_dims else next(from_indices)
            for k in range(out.ndim)
        )
    ]
