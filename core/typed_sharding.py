"""Sharding in types (JAX 0.10.2's default): the context mesh, and how a primitive's results
are split over a mesh's `Explicit` axes.

Layer 1, after runtime.sharding (meshes, specs, NamedShardings) and vma. A value split over
`Explicit` mesh axes has a `sharded_aval.ShardedArray` aval (`float32[8@x,2]`): `spec`, per
dimension, the axes splitting it. The staging trace asks `result_avals` for each equation's
result types: a primitive's rule in `core.sharding_rules` (registered beside the lax
wrappers, in primitives/sharding_rules.py) gives its results' specs; a higher-order one
keeps its jaxprs' types; any other is elementwise when every split operand has its results'
shape, else `ShardingTypeError` names it. `set_mesh` sets the mesh a bare `PartitionSpec` refers to
(`out_sharding=P('x')`, `reshard(x, P())`), as `jax.set_mesh`; it is process state, like a
config option (not a ContextVar: STYLE §4).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from didax import core, vma
from didax.core import ShapedArray
from didax.runtime.sharding import AxisType, Mesh, NamedSharding, PartitionSpec
from didax.sharded_aval import ShardedArray, with_spec


class ShardingTypeError(Exception):
    """Operands whose shardings no rule reconciles. Like JAX's `ShardingTypeError` (an
    Exception, not a TypeError)."""


# ----------------------------------------------------------------------------- the context mesh


class AbstractMesh:
    """A mesh's axis names, sizes and types, without its devices. Like
    `jax.sharding.AbstractMesh`."""

    def __init__(self, mesh: Mesh | None) -> None:
        self._mesh = mesh
        self.axis_names = () if mesh is None else mesh.axis_names
        self.axis_sizes = () if mesh is None else mesh.axis_sizes
        self.axis_types = () if mesh is None else mesh.axis_types
        self.empty = mesh is None

    shape_tuple = property(lambda self: tuple(zip(self.axis_names, self.axis_sizes, strict=True)))
    size = property(lambda self: self._mesh.size if self._mesh is not None else 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbstractMesh) and (
            self.shape_tuple,
            self.axis_types,
        ) == (other.shape_tuple, other.axis_types)

    def __hash__(self) -> int:
        return hash((self.shape_tuple, self.axis_types))

    def __repr__(self) -> str:
        if self.empty:
            return "AbstractMesh((), axis_types=())"
        axes = ", ".join(f"{n!r}: {s}" for n, s in self.shape_tuple)
        platform = next(iter(self._mesh.devices.flat)).platform
        types = (
            f"({', '.join(map(repr, self.axis_types))}{',' if len(self.axis_types) == 1 else ''})"
        )
        return (
            f"AbstractMesh({axes}, axis_types={types}, device_kind={platform}, "
            f"num_cores=None, platform={platform})"
        )

    __str__ = __repr__


_context_mesh: Mesh | None = None  # process state, set by `set_mesh` (as a config option)
# The mesh of the shard_map body being traced, its manual axes typed `Manual` (as JAX's
# abstract mesh there): a shard_map inside, given no mesh, nests in it.
_body_mesh: Mesh | None = None


class set_mesh:  # noqa: N801 - a function to its callers, as `jax.set_mesh`
    """Make `mesh` the context mesh: a bare `PartitionSpec` means a split over it. Takes
    effect at once; used as a `with` statement, the previous mesh comes back at its end.
    Like `jax.set_mesh`."""

    def __init__(self, mesh: Mesh) -> None:
        global _context_mesh
        if not isinstance(mesh, Mesh):
            raise ValueError(f"Expected mesh of type `jax.sharding.Mesh`. Got {type(mesh)}")
        self._previous, self._mesh = _context_mesh, mesh
        _context_mesh = mesh

    def __enter__(self) -> Mesh:
        return self._mesh

    def __exit__(self, *exc: Any) -> None:
        global _context_mesh
        _context_mesh = self._previous


def get_mesh() -> Mesh | None:
    """The context mesh (None outside `set_mesh`)."""
    return _context_mesh


def get_abstract_mesh() -> AbstractMesh:
    """The context mesh, without its devices (in a shard_map body, its mesh with the axes it
    is manual over `Manual`). Like `jax.sharding.get_abstract_mesh`."""
    return AbstractMesh(_context_mesh if _body_mesh is None else _body_mesh)


def body_mesh() -> Mesh | None:
    """The mesh of the shard_map body being traced, its manual axes `Manual` (None outside)."""
    return _body_mesh


@contextlib.contextmanager
def shard_map_body(mesh: Mesh, manual: Any) -> Iterator[None]:
    """Trace a shard_map body over `mesh` manual over the axes `manual` (those of `mesh`
    already `Manual` too: a nested body)."""
    global _body_mesh
    types = tuple(
        AxisType.Manual if n in manual else t
        for n, t in zip(mesh.axis_names, mesh.axis_types, strict=True)
    )
    previous, _body_mesh = _body_mesh, Mesh(mesh.devices, mesh.axis_names, types)
    try:
        yield
    finally:
        _body_mesh = previous


def resolve(target: Any) -> NamedSharding:
    """A NamedSharding from `target`, a NamedSharding or a spec over the context mesh.

    Raises:
      ValueError: a PartitionSpec outside `set_mesh` (JAX's message).
    """
    if isinstance(target, NamedSharding):
        return target
    if not isinstance(target, PartitionSpec):
        target = PartitionSpec(*target) if isinstance(target, (tuple, list)) else target
    if _context_mesh is None:
        raise ValueError(
            "Using PartitionSpec when you are not under a mesh context is not allowed. Please "
            "pass a NamedSharding instance or enter into a mesh context via `jax.set_mesh`. "
            f"Got {target!r}"
        )
    return NamedSharding(_context_mesh, target)


# ----------------------------------------------------------------------------- avals


def named(aval: ShapedArray, mesh: Mesh | None = None) -> NamedSharding | None:
    """The NamedSharding an aval's type says, one spec entry per dimension as JAX gives a
    result's (`P('x', None)`); for an aval with no split, replicated over `mesh` (None
    without one)."""
    if type(aval) is ShardedArray:
        return NamedSharding(aval.mesh, PartitionSpec(*[_entry(a) for a in aval.spec]))
    return None if mesh is None else NamedSharding(mesh, PartitionSpec(*[None] * aval.ndim))


def full_spec(sharding: NamedSharding, ndim: int) -> NamedSharding:
    """`sharding` with its spec padded with None to `ndim` entries (a result's, as JAX)."""
    spec = sharding.spec
    if len(spec) >= ndim:
        return sharding
    return NamedSharding(sharding.mesh, PartitionSpec(*spec, *[None] * (ndim - len(spec))))


def _entry(axes: tuple) -> Any:
    return None if not axes else axes[0] if len(axes) == 1 else axes


def spec_of(aval: ShapedArray) -> tuple:
    """Per dimension, the axes splitting `aval` (all empty for an unsplit one)."""
    return aval.spec if type(aval) is ShardedArray else ((),) * aval.ndim


def mesh_of(avals: Sequence[ShapedArray]) -> Any:
    return next(a.mesh for a in avals if type(a) is ShardedArray)


# ----------------------------------------------------------------------------- propagation


def result_avals(
    primitive: core.Primitive,
    avals_in: Sequence[ShapedArray],
    avals_out: Sequence[ShapedArray],
    params: dict[str, Any],
) -> list[ShapedArray]:
    """The results' types of `primitive` applied to `avals_in`, one or more of them split
    over `Explicit` axes (`avals_out`: its abstract evaluation, unsplit)."""
    mesh = mesh_of(avals_in)
    rule = core.sharding_rules._rules.get(primitive)
    if rule is not None:
        specs = rule(avals_in, avals_out, **params)
    elif any(vma.holds_jaxpr(v) for v in params.values()):
        return list(avals_out)  # higher-order: typed by its jaxprs' types (jit, cond, ...)
    else:
        specs = [_elementwise(primitive, avals_in, a) for a in avals_out]
    return [with_spec(a, s or (), mesh) for a, s in zip(avals_out, specs, strict=True)]


def _elementwise(primitive: core.Primitive, avals_in: Sequence[ShapedArray], out: ShapedArray):
    split = [a for a in avals_in if type(a) is ShardedArray]
    if any(
        a.ndim != out.ndim or any(n not in (1, m) for n, m in zip(a.shape, out.shape))
        for a in split
    ):
        raise ShardingTypeError(
            f"{primitive.name}: no sharding rule for operands "
            f"{', '.join(a.str_short() for a in avals_in)} (didax has none for this primitive)"
        )
    # a dimension of size 1 broadcast (JAX's `mul` of f32[1,4] and f32[4,4]) adds no split
    specs = [
        tuple(s if n == m else () for s, n, m in zip(a.spec, a.shape, out.shape)) for a in split
    ]
    return join(primitive.name, specs)


def join(name: str, specs: Sequence[tuple]) -> tuple:
    """The one spec of operands combined elementwise: per dimension the split of those that
    are split (JAX's message when two differ)."""
    out = []
    for dims in zip(*specs, strict=True):
        split = {d for d in dims if d}
        if len(split) > 1:
            raise ShardingTypeError(
                f"{name} got incompatible shardings for broadcasting: "
                + ", ".join(str(tuple(_entry(d) for d in s)) for s in specs)
                + "."
            )
        out.append(next(iter(split)) if split else ())
    return tuple(out)


def check_unique(
    name: str, avals_in: Sequence[ShapedArray], out: ShapedArray, spec: tuple
) -> tuple:
    """`spec`, unless it names one mesh axis for two dimensions (JAX's error shows both)."""
    seen = [a for axes in spec for a in axes]
    if len(seen) != len(set(seen)):
        plain = ShapedArray(out.shape, out.dtype, out.weak_type)  # (JAX's: no varying axes)
        result = with_spec(plain, spec, mesh_of(avals_in)).str_short()
        raise ShardingTypeError(
            f"{name} operation with inputs: {', '.join(a.str_short() for a in avals_in)} "
            f"produces an illegally sharded result: {result}"
        )
    return spec
