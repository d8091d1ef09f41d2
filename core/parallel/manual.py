"""How a shard_map body lowers: manual over its axes, as JAX 0.10.2 lowers it.

Layer 4, in didax.parallel before shard_map.py, whose lowering rule calls `lower_body`.
With Shardy (the default, `jax_use_shardy_partitioner`) the body sits inline in an
`sdy.manual_computation` whose in and out shardings are the specs; with GSPMD each argument
is cut to the device's block (`@Sharding`, then `@SPMDFullToShardShape` to `{manual}`, or
to a manual group replicated along the axes the body is not manual over), the body is a
function called on the blocks and the results go back with `@SPMDShardToFullShape`. Either
way the module's `manual_mesh` and `manual_axes` are set while the body lowers, so that its
collectives act between partitions (collectives.py) and its results are left open to the
partitioner along the other axes (`ModuleBuilder.typed_annotation`); a shard_map in the
body nests its manual computation (or call) inside.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

from didax.config import config
from didax.interpreters import lowering
from didax.runtime.sharding import AxisType, NamedSharding, partial_manual_text


def lower_body(ctx, args, jaxpr, mesh, in_specs, out_specs, manual) -> list[Any]:
    """A shard_map equation's lowering (`jaxpr` its body, manual over the mesh axes
    `manual`) inside a program partitioned over `mesh`'s devices in the mesh's order."""
    module = ctx.module
    outer = module.manual_axes
    around = module.manual_mesh
    if module.replica_axes or (around is not None and not _same_devices(around, mesh)):
        # a ValueError, as JAX 0.10.2 raises for a pmap inside a pmap
        raise ValueError(
            f"shard_map over {mesh} inside a pmap or a shard_map over another mesh is not "
            "supported by didax"
        )
    shardy = config.read("jax_use_shardy_partitioner")
    if outer & manual:
        raise ValueError(
            f"shard_map manual over {sorted(manual)} inside a shard_map already manual over "
            f"{sorted(outer & manual)}"
        )
    devices = module.device_assignment
    if devices is None or tuple(devices) != tuple(mesh.devices.flat):
        # partition k must be mesh position k, for the body's collectives
        raise ValueError(
            f"shard_map over {mesh} in a program that does not run on the mesh's devices in "
            "the mesh's order (a jit with shardings over another mesh)"
        )
    sizes = dict(mesh.shape)
    split = math.prod(sizes[a] for a in manual) > 1  # as JAX: else no manual computation
    if not split or shardy:
        return _manual_computation(ctx, args, jaxpr, mesh, in_specs, out_specs, manual, split)
    # GSPMD: each block cut as the in_specs say and marked manual (along the axes `manual`
    # only, a manual group replicated along the others), the body a function called on them
    blocks = [
        _to_block(ctx, x, spec, a_in, a_blk, mesh, manual)
        for x, spec, a_in, a_blk in zip(args, in_specs, ctx.avals_in, jaxpr.in_avals, strict=True)
    ]
    with _manual(module, mesh, manual):
        outs = module.call_function("shmap_body", jaxpr, blocks)
    return [
        _from_block(ctx, y, spec, a_blk, a_out, mesh, manual)
        for y, spec, a_blk, a_out in zip(
            outs, out_specs, jaxpr.out_avals, ctx.avals_out, strict=True
        )
    ]


def _same_devices(a: Any, b: Any) -> bool:
    # the same mesh but for its axis types (a nested body's has the outer's axes `Manual`)
    return a.axis_names == b.axis_names and tuple(a.devices.flat) == tuple(b.devices.flat)


@contextlib.contextmanager
def _manual(module: Any, mesh: Any, axes: frozenset) -> Iterator[None]:
    # the module lowers a body manual over `axes` of `mesh` (besides those it already was)
    saved = module.manual_mesh, module.manual_axes
    module.manual_mesh, module.manual_axes = mesh, saved[1] | axes
    try:
        yield
    finally:
        module.manual_mesh, module.manual_axes = saved


def _manual_computation(ctx, args, jaxpr, mesh, in_specs, out_specs, manual, split) -> list[Any]:
    # Shardy: the body, inline in an `sdy.manual_computation` over the axes `manual`, takes
    # the blocks the in_specs cut and gives those the out_specs put together, as JAX's; in
    # a body manual over some axes only, every dimension is left open to the partitioner
    # along the others (`{"x", ?}`). (Not `split`: the body inline, as JAX.)
    ir, module, devices = ctx.ir, ctx.module, ctx.module.device_assignment
    if not split:
        with _manual(module, mesh, manual):
            return ctx.lower_jaxpr(jaxpr, list(args))
    # (as JAX: not when its mesh's other axes are all `Explicit`, split as the types say)
    partial = len(manual) < len(mesh.axis_names) and AxisType.Auto in mesh.axis_types

    def per_value(specs, avals):
        texts = [
            lowering.sharding_text(
                NamedSharding(mesh, s), a.ndim, devices, open_dims=range(a.ndim) if partial else ()
            )[len("#sdy.sharding") :]
            for s, a in zip(specs, avals, strict=True)
        ]
        return ir.Attribute.parse(f"#sdy.sharding_per_value<[{', '.join(texts)}]>")

    axes = ", ".join(f'"{a}"' for a in mesh.axis_names if a in manual)
    op = module.sdy.ManualComputationOp(
        [ctx.tensor_type(a) for a in ctx.avals_out],
        list(args),
        per_value(in_specs, ctx.avals_in),
        per_value(out_specs, ctx.avals_out),
        ir.Attribute.parse(f"#sdy<manual_axes{{{axes}}}>"),
    )
    block = op.body.blocks.append(*[ctx.tensor_type(a) for a in jaxpr.in_avals])
    with _manual(module, mesh, manual), ir.InsertionPoint(block):
        outs = ctx.lower_jaxpr(jaxpr, list(block.arguments))
        module.sdy.ReturnOp(outs)
    return list(op.results)


def _gspmd_texts(ctx, spec, aval, block, mesh, manual) -> tuple[str, str, str]:
    # the whole value's sharding (a manual group along the axes of the shard_maps around),
    # the block's (manual along those and `manual`, a manual group replicated along any
    # others) and the calls' backend config (every dimension left to the partitioner
    # when `manual` is not every axis), as JAX writes them
    outer = ctx.module.manual_axes
    if outer:
        whole = partial_manual_text(mesh, outer, aval.ndim, spec)
    else:
        whole = NamedSharding(mesh, spec).hlo_text(aval.ndim, ctx.module.device_assignment)
    everything = frozenset(mesh.axis_names)
    inner = outer | manual
    part = "{manual}" if inner == everything else partial_manual_text(mesh, inner, block.ndim)
    config = lowering.unspecified_dims(aval.ndim) if manual != everything else ""
    return whole, part, config


def _to_block(ctx, x, spec, aval, block, mesh, manual) -> Any:
    # split as the spec says, then this partition's block, manually sharded from here on
    whole, part, config = _gspmd_texts(ctx, spec, aval, block, mesh, manual)
    module = ctx.module
    x = module.spmd_call("Sharding", x, ctx.tensor_type(aval), whole, config)
    return module.spmd_call("SPMDFullToShardShape", x, ctx.tensor_type(block), part, config)


def _from_block(ctx, y, spec, block, aval, mesh, manual) -> Any:
    whole, part, config = _gspmd_texts(ctx, spec, aval, block, mesh, manual)
    module = ctx.module
    y = module.spmd_call("Sharding", y, ctx.tensor_type(block), part, config)
    return module.spmd_call("SPMDShardToFullShape", y, ctx.tensor_type(aval), whole, config)
