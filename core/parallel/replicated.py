"""pmap's one-axis mesh over several processes' devices (`didax.distributed`): a shard_map
run as one replicated program (replica k on device k of the mesh), each process passing its
devices' blocks and reading its devices' part of each result, gathered from them
(`all_gather`) onto its first device.

Layer 4, in didax.parallel after manual.py, before shard_map.py (whose impl rule calls
`replicated_impl` when the mesh spans processes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.compile.jit_primitive import derived
from didax.core import ShapedArray
from didax.interpreters import lowering, staging
from didax.jaxpr import ClosedJaxpr, eval_jaxpr
from didax.parallel import exchanges
from didax.parallel.specs import axis_frames, mapped_dim
from didax.primitives.bits import bitcast_convert_type
from didax.runtime import client
from didax.runtime.executable import Executable, compile_module
from didax.runtime.sharding import Mesh, PartitionSpec


def replicated_impl(
    args: Sequence[Any],
    jaxpr: ClosedJaxpr,
    mesh: Mesh,
    in_specs: Sequence[PartitionSpec],
    out_specs: Sequence[PartitionSpec],
) -> list[Any]:
    """The shard_map of body `jaxpr` run on `args` as one replicated program: this process's
    part of each result, a NumPy array."""
    exe = derived(
        jaxpr, ("replicated", mesh, out_specs), lambda: _compile_replicated(jaxpr, mesh, out_specs)
    )
    local = mesh.local_devices
    shards = [
        _split_input(x, aval, spec, local)
        for x, aval, spec in zip(args, jaxpr.in_avals, in_specs, strict=True)
    ]
    outs = exe.execute_replicated(shards)
    return [
        _local_output(value, aval, spec, mesh)
        for value, aval, spec in zip(outs, jaxpr.out_avals, out_specs, strict=True)
    ]


def _compile_replicated(
    jaxpr: ClosedJaxpr, mesh: Mesh, out_specs: Sequence[PartitionSpec]
) -> Executable:
    (name,) = mesh.axis_names

    # bfloat16 leaves as its 16 bits: the host reads through DLPack, which NumPy's lacks
    def program(*blocks: Any) -> list[Any]:
        outs = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *blocks)
        outs = [
            o
            if mapped_dim(s) is None
            else exchanges.all_gather(o, name, axis=mapped_dim(s), tiled=True)
            for o, s in zip(outs, out_specs, strict=True)
        ]
        return [_bits(o) if core.get_aval(o).dtype == dtypes.bfloat16 else o for o in outs]

    with axis_frames(mesh):
        gathered = staging.trace_to_jaxpr(program, jaxpr.in_avals)
    builder = lowering.lower_jaxpr_to_module(gathered, "_fun", replica_axes=((name, mesh.size),))
    return compile_module(
        builder.module,
        gathered.in_avals,
        gathered.out_avals,
        num_replicas=mesh.size,
        device_assignment=tuple(mesh.devices.flat),
    )


def _bits(x: Any) -> Any:
    return bitcast_convert_type(x, np.uint16)


def _split_input(
    x: Any, block: ShapedArray, spec: PartitionSpec, devices: Sequence[Any]
) -> list[Any]:
    # block k of `x` on device k (all of `x` on every device when it is not split)
    value = np.asarray(core.to_numpy(x), block.dtype)
    d = mapped_dim(spec)
    if d is None:
        return [client.put(value, block, device=dev) for dev in devices]
    parts = np.split(value, len(devices), axis=d)
    return [client.put(np.ascontiguousarray(p), block, device=v) for p, v in zip(parts, devices)]


def _local_output(value: np.ndarray, block: ShapedArray, spec: PartitionSpec, mesh: Mesh) -> Any:
    # this process's devices' part of the whole result, read from its first device
    if block.dtype == dtypes.bfloat16:
        value = value.view(dtypes.bfloat16)
    value = np.array(value)  # owned by the host, not a view of the device's buffer
    d = mapped_dim(spec)
    if d is None:
        return value
    local = set(mesh.local_devices)
    here = [i for i, dev in enumerate(mesh.devices.flat) if dev in local]
    return np.take(value, here, axis=d)
