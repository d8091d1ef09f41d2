"""How a shard_map body lowers: manual over the mesh's axes, as JAX 0.10.2 lowers it.

Layer 4, in didax.parallel before shard_map.py, whose lowering rule calls `lower_body`.
With Shardy (the default, `jax_use_shardy_partitioner`) the body sits inline in an
`sdy.manual_computation` whose in and out shardings are the specs; with GSPMD each argument
is cut to the device's block (`@Sharding`, then `@SPMDFullToShardShape` to `{manual}`), the
body is a function called on the blocks and the results go back with
`@SPMDShardToFullShape`. Either way the module's `manual_mesh` is set while the body lowers,
so that its collectives act between partitions (collectives.py).
"""

from __future__ import annotations

from typing import Any

from didax.config import config
from didax.core import ShapedArray
from didax.interpreters import lowering
from didax.runtime.sharding import NamedSharding


def lower_body(ctx, args, jaxpr, mesh, in_specs, out_specs) -> list[Any]:
    """A shard_map equation's lowering (`jaxpr` its body) inside a program partitioned over
    `mesh`'s devices in the mesh's order: the body manual over every mesh axis."""
    module = ctx.module
    if module.manual_mesh is not None or module.replica_axes:
        # a ValueError, as JAX 0.10.2 raises for a pmap inside a pmap
        raise ValueError(
            f"shard_map over {mesh} inside another shard_map (a pmap inside a pmap) is not "
            "supported by didax"
        )
    devices = module.device_assignment
    if devices is None or tuple(devices) != tuple(mesh.devices.flat):
        # partition k must be mesh position k, for the body's collectives
        raise ValueError(
            f"shard_map over {mesh} in a program that does not run on the mesh's devices in "
            "the mesh's order (a jit with shardings over another mesh)"
        )
    manual = mesh.size > 1  # as JAX: on one device, no manual sharding to enter
    if manual and config.read("jax_use_shardy_partitioner"):
        return _manual_computation(ctx, args, jaxpr, mesh, in_specs, out_specs)
    blocks = [
        _to_block(ctx, x, spec, a_in, a_blk, mesh) if manual else x
        for x, spec, a_in, a_blk in zip(args, in_specs, ctx.avals_in, jaxpr.in_avals, strict=True)
    ]
    module.manual_mesh = mesh
    try:
        outs = module.call_function("shmap_body", jaxpr, blocks)
    finally:
        module.manual_mesh = None
    return [
        _from_block(ctx, y, spec, a_blk, a_out, mesh) if manual else y
        for y, spec, a_blk, a_out in zip(
            outs, out_specs, jaxpr.out_avals, ctx.avals_out, strict=True
        )
    ]


def _manual_computation(ctx, args, jaxpr, mesh, in_specs, out_specs) -> list[Any]:
    # Shardy: the body, inline in an `sdy.manual_computation` over every mesh axis, takes
    # the blocks the in_specs cut and gives those the out_specs put together, as JAX's
    ir, module, devices = ctx.ir, ctx.module, ctx.module.device_assignment

    def per_value(specs, avals):
        texts = [
            lowering.sharding_text(NamedSharding(mesh, s), a.ndim, devices)[len("#sdy.sharding") :]
            for s, a in zip(specs, avals, strict=True)
        ]
        return ir.Attribute.parse(f"#sdy.sharding_per_value<[{', '.join(texts)}]>")

    axes = ", ".join(f'"{a}"' for a in mesh.axis_names)
    op = module.sdy.ManualComputationOp(
        [ctx.tensor_type(a) for a in ctx.avals_out],
        list(args),
        per_value(in_specs, ctx.avals_in),
        per_value(out_specs, ctx.avals_out),
        ir.Attribute.parse(f"#sdy<manual_axes{{{axes}}}>"),
    )
    block = op.body.blocks.append(*[ctx.tensor_type(a) for a in jaxpr.in_avals])
    module.manual_mesh = mesh
    try:
        with ir.InsertionPoint(block):
            outs = ctx.lower_jaxpr(jaxpr, list(block.arguments))
            module.sdy.ReturnOp(outs)
    finally:
        module.manual_mesh = None
    return list(op.results)


def _custom_call(ctx: Any, target: str, x: Any, aval: ShapedArray, sharding: str) -> Any:
    ir = ctx.ir
    op = ctx.hlo.CustomCallOp(
        [ctx.tensor_type(aval)], [x], call_target_name=target, backend_config=ir.StringAttr.get("")
    )
    op.attributes["mhlo.sharding"] = ir.StringAttr.get(sharding)
    return op.results[0]


def _to_block(ctx, x, spec, aval, block, mesh) -> Any:
    # split as the spec says, then this partition's block, manually sharded from here on
    text = NamedSharding(mesh, spec).hlo_text(aval.ndim, ctx.module.device_assignment)
    x = _custom_call(ctx, "Sharding", x, aval, text)
    return _custom_call(ctx, "SPMDFullToShardShape", x, block, "{manual}")


def _from_block(ctx, y, spec, block, aval, mesh) -> Any:
    text = NamedSharding(mesh, spec).hlo_text(aval.ndim, ctx.module.device_assignment)
    y = _custom_call(ctx, "Sharding", y, block, "{manual}")
    return _custom_call(ctx, "SPMDShardToFullShape", y, aval, text)
