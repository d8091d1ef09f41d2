"""`didax.sharding`: meshes of devices, partition specs, and where each block of an array
lives. Like `jax.sharding`.

Layer 1, the runtime floor, after client.py and executable.py (it asks the client for
devices and for XLA's canonical form of a sharding), and the end of that floor: it installs
the `array.Runtime` protocol (`install_runtime`, at the bottom). `didax.sharding` re-exports
its public names. A `Mesh` names the axes of an n-d grid of devices; a `PartitionSpec` says, per
array dimension, which mesh axes split it; a `NamedSharding(mesh, spec)` is the pair. This
module computes, in plain Python, what XLA needs from them: the HLO sharding text of a
NamedSharding for a given device assignment (`{devices=[2,1,2]<=[4] last_tile_dim_replicate}`,
as `mhlo.sharding` attributes spell it), which block of an array each device holds
(`devices_indices_map`), and the way back from an HLO sharding XLA chose for a jitted
program's output to a NamedSharding on the program's mesh (`named_from_hlo`). XLA's SPMD
partitioner does the partitioning itself; nothing here splits a computation.
"""

from __future__ import annotations

import enum
import functools
import importlib
import itertools
import math
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import array, core
from didax.array import Array
from didax.runtime import client, executable, placement
from didax.runtime.client import SingleDeviceSharding
from didax.sharded_aval import with_spec

__all__ = [
    "AxisType",
    "Mesh",
    "NamedSharding",
    "PartitionSpec",
    "SingleDeviceSharding",
    "make_mesh",
]


class AxisType(enum.Enum):
    """How a mesh axis is partitioned. Like `jax.sharding.AxisType`: along an `Explicit`
    axis the split is part of a value's type (`float32[8@x]`, see didax.typed_sharding),
    along an `Auto` one XLA's SPMD partitioner decides; `Manual` is shard_map's."""

    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self) -> str:
        return self.name


class IndivisibleError(ValueError):
    """A dimension that does not split evenly over its mesh axes. Like JAX's."""


class DuplicateSpecError(Exception):
    """A spec mapping one mesh axis to two dimensions. Like JAX's `DuplicateSpecError`."""


# ----------------------------------------------------------------------------- Mesh


class Mesh:
    """An n-d array of devices with a name per axis. Like `jax.sharding.Mesh` (no context
    manager: JAX 0.10.2 deprecates `with mesh:`)."""

    def __init__(
        self,
        devices: Any,
        axis_names: str | Sequence[str],
        axis_types: AxisType | Sequence[AxisType] | None = None,
    ) -> None:
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        axis_names = tuple(axis_names)
        grid = np.empty(np.shape(devices), dtype=object)
        grid[...] = devices if isinstance(devices, np.ndarray) else _object_array(devices)
        if grid.ndim != len(axis_names):
            raise ValueError(
                "Mesh requires the ndim of its first argument (`devices`) to equal the length "
                f"of its second argument (`axis_names`), but got devices.ndim == {grid.ndim} "
                f"and len(axis_names) == {len(axis_names)}."
            )
        if axis_types is None:
            axis_types = (AxisType.Auto,) * len(axis_names)
        elif isinstance(axis_types, AxisType):
            axis_types = (axis_types,) * len(axis_names)
        axis_types = tuple(axis_types)
        if len(axis_types) != len(axis_names):
            raise ValueError(
                f"Number of axis names should match the number of axis_types. Got "
                f"axis_names={axis_names} and axis_types={axis_types}"
            )
        grid.flags.writeable = False
        self.devices = grid
        self.axis_names = axis_names
        self.axis_types = axis_types
        self._hash = hash(self._key())  # a mesh keys jit's layout caches on every call

    @property
    def shape(self) -> OrderedDict[str, int]:
        return OrderedDict(zip(self.axis_names, self.devices.shape, strict=True))

    @property
    def shape_tuple(self) -> tuple[tuple[str, int], ...]:
        return tuple(zip(self.axis_names, self.devices.shape, strict=True))

    axis_sizes = property(lambda self: tuple(self.devices.shape))
    size = property(lambda self: int(self.devices.size))
    empty = property(lambda self: self.devices.size == 0)
    device_ids = property(lambda self: np.vectorize(lambda d: d.id, otypes=[int])(self.devices))

    @property
    def local_devices(self) -> list[Any]:
        here = client.process_index()
        return [d for d in self.devices.flat if d.process_index == here]

    def _key(self) -> tuple:
        ids = tuple(d.id for d in self.devices.flat)
        return (ids, self.axis_sizes, self.axis_names, self.axis_types)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mesh) and self._key() == other._key()

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return (
            f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}, "
            f"axis_types={self.axis_types})"
        )

    def __str__(self) -> str:  # as JAX writes a mesh inside a NamedSharding
        if self.empty:
            return "Mesh()"
        axes = ", ".join(f"{n!r}: {s}" for n, s in self.shape_tuple)
        return f"Mesh({axes}, axis_types={self.axis_types})"


class PmapMesh(Mesh):
    """pmap's one-axis mesh. Over several processes, its operands and results are this
    process's part (as pmap's arguments), run replicated (parallel/replicated.py); another
    mesh there holds global arrays, its shard_maps partitioned programs, as JAX's."""

    def _key(self) -> tuple:
        return (*super()._key(), "pmap")


def process_local(mesh: Any) -> bool:
    """Whether `mesh` is pmap's over several processes (operands: this process's part)."""
    return isinstance(mesh, PmapMesh) and len(mesh.local_devices) != mesh.size


def _object_array(devices: Any) -> np.ndarray:
    flat = list(np.asarray(devices, dtype=object).flat)
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(np.shape(devices))


def make_mesh(
    axis_shapes: Sequence[int],
    axis_names: Sequence[str],
    axis_types: Sequence[AxisType] | None = None,
    *,
    devices: Sequence[Any] | None = None,
) -> Mesh:
    """A mesh of the first `prod(axis_shapes)` devices, in order, its axes `Explicit` unless
    `axis_types` says otherwise. Like `jax.make_mesh`.

    Raises:
      ValueError: fewer devices than the mesh has places.
    """
    axis_shapes = tuple(int(s) for s in axis_shapes)
    devices = list(client.devices() if devices is None else devices)
    size = math.prod(axis_shapes)
    if len(devices) < size:
        raise ValueError(
            f"Number of devices {len(devices)} must be >= the product of mesh_shape {axis_shapes}"
        )
    if axis_types is None:  # JAX 0.10.2's default
        axis_types = (AxisType.Explicit,) * len(axis_shapes)
    return Mesh(_object_array(devices[:size]).reshape(axis_shapes), tuple(axis_names), axis_types)


# ----------------------------------------------------------------------------- PartitionSpec


class _Unconstrained:
    def __repr__(self) -> str:
        return "UNCONSTRAINED"


class PartitionSpec(tuple):
    """Per array dimension: None (not split), a mesh axis name, or a tuple of names (split
    over their product, major to minor). Like `jax.sharding.PartitionSpec`; dimensions
    beyond the spec's length are not split."""

    UNCONSTRAINED: Any = _Unconstrained()

    def __new__(cls, *partitions: Any) -> PartitionSpec:
        return super().__new__(cls, tuple(_entry(p) for p in partitions))

    def __repr__(self) -> str:
        return f"P({', '.join(map(repr, self))}{',' if len(self) == 1 else ''})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:  # P('x') != P('x', None), as JAX's
        return isinstance(other, PartitionSpec) and tuple(self) == tuple(other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:  # equal hashes when only trailing Nones differ, as JAX's
        return hash(_trimmed(self))

    def __reduce__(self) -> tuple:
        return (PartitionSpec, tuple(self))

    def axes_of(self, dim: int) -> tuple[str, ...]:
        """The mesh axes splitting dimension `dim` (empty: not split)."""
        p = self[dim] if dim < len(self) else None
        if p is None or p is PartitionSpec.UNCONSTRAINED:
            return ()
        return p if isinstance(p, tuple) else (p,)


P = PartitionSpec


def _entry(p: Any) -> Any:
    return tuple(p) if isinstance(p, list) else p  # a list of axis names is a tuple of them


def _trimmed(spec: Sequence[Any]) -> tuple:
    parts = list(spec)
    while parts and parts[-1] is None:
        parts.pop()
    return tuple(parts)


# ----------------------------------------------------------------------------- NamedSharding


class NamedSharding:
    """An array split over a mesh: dimension i in blocks along the mesh axes `spec[i]`
    names, replicated along the mesh axes no dimension names. Like
    `jax.sharding.NamedSharding`.

    Raises:
      ValueError: the spec names an axis the mesh lacks.
      DuplicateSpecError: the spec names one mesh axis twice.
    """

    def __init__(self, mesh: Mesh, spec: PartitionSpec, *, memory_kind: str | None = None) -> None:
        if not isinstance(mesh, Mesh):
            raise TypeError(f"NamedSharding: mesh must be a didax.sharding.Mesh, got {mesh!r}")
        if not isinstance(spec, PartitionSpec):
            spec = PartitionSpec(*spec) if isinstance(spec, (tuple, list)) else PartitionSpec(spec)
        seen: set[str] = set()
        for dim in range(len(spec)):
            for name in spec.axes_of(dim):
                if name not in mesh.axis_names:
                    raise ValueError(
                        f"Resource axis: {name} of {spec!r} is not found in mesh: "
                        f"{mesh.axis_names}."
                    )
                if name in seen:
                    raise DuplicateSpecError(
                        "A single NamedSharding spec specification can map every mesh axis to "
                        f"at most one positional dimension, but {spec!r} has duplicate entries "
                        f"for `{name}`"
                    )
                seen.add(name)
        self.mesh = mesh
        self.spec = spec
        self.memory_kind = memory_kind or "device"
        self._texts: dict[tuple, str] = {}  # hlo_text by (ndim, device assignment)
        self._hash = hash((mesh, spec, self.memory_kind))

    device_set = property(lambda self: set(self.mesh.devices.flat))
    addressable_devices = property(lambda self: set(self.mesh.local_devices))
    num_devices = property(lambda self: self.mesh.size)
    _device_assignment = property(lambda self: tuple(self.mesh.devices.flat))

    @property
    def is_fully_replicated(self) -> bool:
        return all(
            self.mesh.shape[a] == 1 for d in range(len(self.spec)) for a in self.spec.axes_of(d)
        )

    @property
    def is_fully_addressable(self) -> bool:
        return len(self.mesh.local_devices) == self.mesh.size

    def __repr__(self) -> str:
        return (
            f"NamedSharding(mesh={self.mesh}, spec={self.spec!r}, memory_kind={self.memory_kind})"
        )

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, NamedSharding)
            and self.mesh == other.mesh
            and self.spec == other.spec
            and self.memory_kind == other.memory_kind
        )

    def __hash__(self) -> int:
        return self._hash

    # ----- blocks
    def tiles(self, ndim: int) -> list[int]:
        """How many blocks each of `ndim` dimensions is split into."""
        sizes = self.mesh.shape
        return [math.prod(sizes[a] for a in self.spec.axes_of(d)) for d in range(ndim)]

    def check_rank(self, ndim: int, what: str = "device_put") -> None:
        """Raise JAX's ValueError if the spec is longer than an array's rank."""
        if len(self.spec) > ndim:
            raise ValueError(
                f"One of {what} args is incompatible with its sharding annotation {self!r}: "
                f"Sharding {self!r} is only valid for values of rank at least {len(self.spec)}, "
                f"but was applied to a value of rank {ndim}."
            )

    def check_shape(self, shape: tuple[int, ...], what: str = "device_put") -> None:
        """Raise JAX's errors if an array of `shape` cannot be split this way."""
        self.check_rank(len(shape), what)
        tiles = self.tiles(len(shape))
        for axis, (n, t) in enumerate(zip(shape, tiles, strict=True)):
            if n % t:
                raise IndivisibleError(
                    f"Sharding {self!r} implies that array axis {axis} is partitioned {t} times, "
                    f"but the dimension size is {n} (full shape: {tuple(shape)}, per-dimension "
                    f"tiling factors: {tiles} should evenly divide the shape)"
                )

    def shard_shape(self, global_shape: tuple[int, ...]) -> tuple[int, ...]:
        """The shape of each device's block. Like `NamedSharding.shard_shape`."""
        self.check_shape(tuple(global_shape), "shard_shape")
        return tuple(n // t for n, t in zip(global_shape, self.tiles(len(global_shape))))

    def _coords(self) -> dict[Any, dict[str, int]]:
        # each device's position along each mesh axis
        out = {}
        for pos in np.ndindex(*self.mesh.axis_sizes):
            out[self.mesh.devices[pos]] = dict(zip(self.mesh.axis_names, pos, strict=True))
        return out

    def devices_indices_map(self, global_shape: tuple[int, ...]) -> dict[Any, tuple[slice, ...]]:
        """Each device's block of an array of `global_shape`, as a tuple of slices. Like
        `NamedSharding.devices_indices_map`."""
        shape = tuple(global_shape)
        self.check_shape(shape)
        sizes = self.mesh.shape
        out = {}
        for device, coords in self._coords().items():
            index = []
            for d, n in enumerate(shape):
                axes = self.spec.axes_of(d)
                if not axes:
                    index.append(slice(None))
                    continue
                block = 0
                for a in axes:  # major to minor
                    block = block * sizes[a] + coords[a]
                step = n // math.prod(sizes[a] for a in axes)
                index.append(slice(block * step, (block + 1) * step))
            out[device] = tuple(index)
        return out

    def addressable_devices_indices_map(
        self, global_shape: tuple[int, ...]
    ) -> dict[Any, tuple[slice, ...]]:
        local = set(self.mesh.local_devices)
        return {d: i for d, i in self.devices_indices_map(global_shape).items() if d in local}

    def replica_ids(self) -> dict[Any, int]:
        """Each device's replica number among the devices holding the same block."""
        unused = [a for a in self.mesh.axis_names if a not in _used_axes(self.spec)]
        sizes = self.mesh.shape
        out = {}
        for device, coords in self._coords().items():
            rid = 0
            for a in unused:
                rid = rid * sizes[a] + coords[a]
            out[device] = rid
        return out

    def hlo_text(self, ndim: int, assignment: Sequence[Any]) -> str:
        """The HLO sharding of an `ndim`-d array split this way, for a program whose device
        assignment is `assignment` (tile entries are positions in it), in XLA's canonical
        spelling (what `mhlo.sharding` attributes and `HloSharding` print)."""
        key = (ndim, tuple(assignment))
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = self._hlo_text(ndim, tuple(assignment))
        return text

    def _hlo_text(self, ndim: int, assignment: tuple[Any, ...]) -> str:
        mesh = self.mesh
        position = {d: i for i, d in enumerate(assignment)}
        if set(position) != set(mesh.devices.flat):
            raise ValueError(
                f"{self!r} spans devices {sorted(d.id for d in mesh.devices.flat)}, the program "
                f"runs on {sorted(d.id for d in assignment)}"
            )
        # the mesh's axes, those splitting dimension 0 first (major to minor), then those
        # of dimension 1, ..., then the unused ones (the replicas, as the last tile dim)
        used = [a for d in range(ndim) for a in self.spec.axes_of(d)]
        unused = [a for a in mesh.axis_names if a not in used]
        perm = [mesh.axis_names.index(a) for a in (*used, *unused)]
        tiles = self.tiles(ndim)
        replicas = math.prod(mesh.shape[a] for a in unused)
        if math.prod(tiles) == 1:
            return "{replicated}"
        dims = [*tiles, replicas] if replicas > 1 else tiles
        if assignment == tuple(mesh.devices.flat):  # the tile assignment is an iota, permuted
            return client.iota_sharding(tuple(dims), mesh.axis_sizes, tuple(perm), replicas > 1)
        ids = np.vectorize(position.__getitem__, otypes=[int])(mesh.devices).transpose(perm)
        flat = ",".join(str(int(i)) for i in ids.reshape(-1))
        suffix = " last_tile_dim_replicate" if replicas > 1 else ""
        return client.canonical_sharding(f"{{devices=[{','.join(map(str, dims))}]{flat}{suffix}}}")


def partial_manual_text(
    mesh: Mesh, manual: Any, ndim: int, spec: PartitionSpec | None = None
) -> str:
    """GSPMD's HLO sharding of an `ndim`-d value split as `spec` (default not split) in a
    shard_map body over `mesh` manual over the axes `manual` only (a program on the mesh's
    devices in its order): manual along those, replicated along those left
    (`{devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}`), as JAX writes it."""
    spec = PartitionSpec() if spec is None else spec
    used = [a for d in range(ndim) for a in spec.axes_of(d)]
    manual_axes = [a for a in mesh.axis_names if a in manual]
    others = [a for a in mesh.axis_names if a not in manual and a not in used]
    perm = [mesh.axis_names.index(a) for a in (*used, *manual_axes, *others)]
    replicas = math.prod(mesh.shape[a] for a in others)
    tiles = [math.prod(mesh.shape[a] for a in spec.axes_of(d)) for d in range(ndim)]
    groups = [math.prod(mesh.shape[a] for a in manual_axes), *[replicas] * (replicas > 1)]
    dims = (*tiles, *groups)
    return client.iota_sharding(dims, mesh.axis_sizes, tuple(perm), replicas > 1, True)


def typed(aval: Any, sharding: Any) -> Any:
    """`aval` with the split `sharding` makes part of its type: along the `Explicit` axes of
    a NamedSharding's mesh (`float32[8@x,2]`); `aval` itself for any other sharding."""
    if not isinstance(sharding, NamedSharding) or AxisType.Explicit not in sharding.mesh.axis_types:
        return aval
    types = dict(zip(sharding.mesh.axis_names, sharding.mesh.axis_types, strict=True))
    spec = [
        tuple(a for a in sharding.spec.axes_of(d) if types[a] is AxisType.Explicit)
        for d in range(aval.ndim)
    ]
    return with_spec(aval, tuple(spec), sharding.mesh)


def _used_axes(spec: PartitionSpec) -> set[str]:
    return {a for d in range(len(spec)) for a in spec.axes_of(d)}


def named_from_hlo(mesh: Mesh, ndim: int, text: str, assignment: Sequence[Any]) -> NamedSharding:
    """The NamedSharding on `mesh` whose HLO sharding (for `assignment`) is `text`, in its
    shortest spec (trailing Nones dropped, as JAX names the shardings XLA chose). XLA's
    choice for a jitted program's output comes back this way.

    Raises:
      NotImplementedError: no spec on `mesh` gives `text` (a sharding no mesh axes name).
    """
    for spec in _candidate_specs(mesh.axis_names, ndim):
        named = NamedSharding(mesh, spec)
        if named.hlo_text(ndim, assignment) == text:
            return named
    raise NotImplementedError(
        f"XLA chose the sharding {text} for a rank-{ndim} output, which no PartitionSpec on "
        f"{mesh} expresses; give the output a sharding (jit(out_shardings=...))"
    )


def _candidate_specs(axis_names: tuple[str, ...], ndim: int) -> list[PartitionSpec]:
    # every way to give each mesh axis to one dimension (or none), in each order within a
    # dimension; the replicated spec first, then by how many axes are used
    found: list[PartitionSpec] = []
    for choice in itertools.product(range(-1, ndim), repeat=len(axis_names)):
        groups: list[list[str]] = [[] for _ in range(ndim)]
        for name, d in zip(axis_names, choice, strict=True):
            if d >= 0:
                groups[d].append(name)
        for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
            parts = [None if not o else o[0] if len(o) == 1 else tuple(o) for o in orders]
            found.append(PartitionSpec(*_trimmed(parts)))
    found.sort(key=lambda s: sum(len(s.axes_of(d)) for d in range(len(s))))
    return found


# ----------------------------------------------------------------------------- placing arrays


def device_put(x: Any, target: Any = None) -> Any:
    """`x` as an Array on a device, or split over a mesh by a NamedSharding. Like
    `jax.device_put` for one array.

    Raises:
      ValueError: `x`'s rank is below the spec's length; IndivisibleError (a ValueError):
        a dimension does not split evenly over its mesh axes.
    """
    if isinstance(target, NamedSharding):
        return put(x, target)
    if isinstance(target, SingleDeviceSharding):
        target = target.device
    return placement.device_put(x, target)


def put(x: Any, sharding: NamedSharding) -> Any:
    """`x` split over `sharding`'s mesh: each device gets its block (a copy). The Array
    keeps its host value too, so reading it back costs nothing (one on several devices, split
    or replicated, keeps it aside, as `_gathered`: eager operations on it run on the devices
    and keep their results there, `P()` for a replicated one, as JAX's; see array.py)."""
    if isinstance(x, core.Tracer):
        return x
    if type(x) is Array and getattr(x, "_sharding", None) == sharding and x._buffer is not None:
        return x  # already so (an Array is immutable), as JAX returns it (unless deleted)
    value = np.array(core.to_numpy(x))
    # (typed by `sharding` alone: a split the value had over another mesh is gone)
    aval = core.ShapedArray(value.shape, value.dtype, core.get_aval(x).weak_type)
    sharding.check_shape(value.shape)
    devices = sharding._device_assignment
    blocks = sharding.devices_indices_map(value.shape)
    text = sharding.hlo_text(value.ndim, devices)
    buffer = client.put_sharded(value, aval, devices, text, [blocks[d] for d in devices])
    aval = typed(aval, sharding)
    if sharding.num_devices > 1:  # split, or replicated on several devices: stays there
        out = array.from_buffer(buffer, aval, sharding)
        out._gathered = value
        return out
    # (a 0-d value kept as a NumPy scalar, as `Array` keeps it)
    return array.build(value if value.ndim else value[()], buffer, aval.weak_type, aval, sharding)


def make_array_from_callback(
    shape: Sequence[int], sharding: NamedSharding | SingleDeviceSharding, data_callback: Any
) -> Array:
    """An array of `shape` split as `sharding` says, each of this process's blocks made by
    `data_callback(index)` (index: a tuple of slices of the global array). Like
    `jax.make_array_from_callback`: with several processes each makes only its own blocks.

    Raises:
      ValueError: a block of the wrong shape; IndivisibleError: `shape` does not split.
    """
    shape = tuple(int(n) for n in shape)
    if isinstance(sharding, SingleDeviceSharding):
        return placement.device_put(data_callback((slice(None),) * len(shape)), sharding.device)
    sharding.check_shape(shape)
    devices = sharding._device_assignment
    blocks = sharding.devices_indices_map(shape)
    here = client.process_index()
    values = {}
    for d in devices:
        if d.process_index == here:
            block = np.asarray(core.to_numpy(data_callback(blocks[d])))
            expected = np.empty(shape, dtype=bool)[blocks[d]].shape
            if block.shape != expected:  # JAX's message
                raise ValueError(
                    f"Expected shard shape {expected} doesn't match the single device array "
                    f"shape {block.shape}. Shape of Array is "
                    f"{core.ShapedArray(shape, block.dtype)} with sharding {sharding!r}"
                )
            values[d] = block
    dtype = next(iter(values.values())).dtype
    aval = core.ShapedArray(shape, dtype)
    text = sharding.hlo_text(len(shape), devices)
    buffer = client.put_blocks(aval, devices, text, values)
    return array.from_buffer(buffer, typed(aval, sharding), sharding)


def _read_sharded(x: Array) -> np.ndarray:
    text = x._sharding.hlo_text(x.ndim, client.sharded_devices(x._buffer))
    if text != "{replicated}" and not x._sharding.is_fully_addressable:
        raise RuntimeError(
            "Fetching value for `didax.Array` that spans non-addressable (non process local) "
            f"devices is not possible: {x._sharding!r} spans other processes' devices. "
            "Give the jitted function out_shardings that replicate what you read."
        )
    return executable.read_sharded(x._buffer, x.aval, text)


# ----------------------------------------------------------------------------- shards


class Shard:
    """One device's block of an array. Like `jax.Shard`: `.device`, `.index` (slices of the
    global array), `.replica_id`, `.data` (an Array on that device, made when first read)."""

    def __init__(self, device: Any, index: tuple[slice, ...], replica_id: int, data: Any) -> None:
        self.device = device
        self.index = index
        self.replica_id = replica_id
        self._data = data

    @property
    def data(self) -> Any:
        if isinstance(self._data, functools.partial):
            self._data = self._data()
        return self._data

    def __repr__(self) -> str:
        return (
            f"Shard(device={self.device!r}, index={self.index}, replica_id={self.replica_id}, "
            f"data={self.data})"
        )


def addressable_shards(x: array.Array) -> list[Shard]:
    """The blocks of `x` on this process's devices, in the mesh's order."""
    sharding = x.sharding
    if not isinstance(sharding, NamedSharding):
        device = sharding.device
        return [Shard(device, (slice(None),) * x.ndim, 0, x)]
    rids = sharding.replica_ids()
    return [  # (the blocks read when asked for: their indices need no value)
        Shard(d, index, rids[d], functools.partial(_block, x, index, d))
        for d, index in sharding.addressable_devices_indices_map(x.shape).items()
    ]


def _block(x: array.Array, index: tuple[slice, ...], device: Any) -> Any:
    return placement.device_put(np.asarray(x)[index], device)


def visualize_array_sharding(x: Any) -> None:
    """Print which device holds which block of the 1-d or 2-d array `x`. Like
    `jax.debug.visualize_array_sharding`, in plain text (JAX draws it with `rich`): one
    box per block, labelled with its devices (`CPU 0,1`), laid out as the blocks are."""
    print(sharding_layout(x.shape, x.sharding))


def sharding_layout(shape: tuple[int, ...], sharding: Any) -> str:
    """The text `visualize_array_sharding` prints for an array of `shape`."""
    if len(shape) not in (1, 2):
        raise ValueError(
            f"visualize_array_sharding only works for shardings with rank <= 2, got rank "
            f"{len(shape)}"
        )
    if isinstance(sharding, NamedSharding):
        indices = sharding.devices_indices_map(shape)
    else:
        indices = {sharding.device: (slice(None),) * len(shape)}
    shape2 = (1, *shape) if len(shape) == 1 else tuple(shape)
    blocks: dict[tuple[tuple[int, int], ...], list[int]] = {}
    for device, index in indices.items():
        index2 = ((slice(None),) + tuple(index)) if len(shape) == 1 else tuple(index)
        key = tuple(s.indices(n)[:2] for s, n in zip(index2, shape2, strict=True))
        blocks.setdefault(key, []).append(device.id)
    rows = sorted({k[0] for k in blocks})
    cols = sorted({k[1] for k in blocks})
    labels = {k: f"{_platform(indices)} {','.join(map(str, sorted(v)))}" for k, v in blocks.items()}
    width = max(len(s) for s in labels.values()) + 4
    lines = ["┌" + "┬".join("─" * width for _ in cols) + "┐"]
    for r, row in enumerate(rows):
        cells = [labels[(row, col)].center(width) for col in cols]
        lines.append("│" + "│".join(cells) + "│")
        if r < len(rows) - 1:
            lines.append("├" + "┼".join("─" * width for _ in cols) + "┤")
    lines.append("└" + "┴".join("─" * width for _ in cols) + "┘")
    return "\n".join(lines)


def _platform(indices: dict[Any, Any]) -> str:
    return next(iter(indices)).platform.upper()


# ----------------------------------------------------------------------------- the array runtime


class _ArrayRuntime:
    """`array.Runtime`: what an Array asks the devices, answered by this floor."""

    sharding = staticmethod(placement.array_sharding)
    eager_sharding = staticmethod(placement.eager_sharding)
    devices = staticmethod(placement.array_devices)
    read_sharded = staticmethod(_read_sharded)
    addressable_shards = staticmethod(addressable_shards)

    @staticmethod
    def allocation_error(message: str) -> Exception:
        # jaxlib's module is loaded only when an allocation is refused
        return importlib.import_module("jaxlib._jax").JaxRuntimeError(message)


array.install_runtime(_ArrayRuntime())
