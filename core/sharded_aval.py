"""The aval of a value split over a mesh's `Explicit` axes (sharding in types, JAX 0.10.2's
default): `ShardedArray`, printed `float32[8@x,2]`, and `with_spec`, which makes one.

Layer 1, right after array.py (whose `ShapedArray` it extends, as `VaryingArray` does for
check_vma's types). The rules that give a result's split are in typed_sharding.py.
"""

from __future__ import annotations

from typing import Any

from didax import dtypes
from didax.array import ShapedArray, vma_suffix, with_vma


class ShardedArray(ShapedArray):
    """The aval of a value split over the `Explicit` axes of a mesh (sharding in types, JAX
    0.10.2's default): `spec` holds, per dimension, the tuple of mesh axes splitting it
    (`float32[8@x,2]`), `mesh` the mesh (any hashable; `runtime.sharding.Mesh`); in a
    shard_map body manual over some axes, `vma` the manual axes it varies along, as a
    `VaryingArray`'s (`f32[4,4@y]{V:x}`). Made only for such values, so every other aval
    stays a plain ShapedArray."""

    __slots__ = ("spec", "mesh", "vma", "mesh_axes")  # (varying along `vma` in a shard_map)

    def update(self, **changes: Any) -> ShapedArray:  # keeps the sharding when the rank does
        spec = changes.pop("spec", self.spec)
        vma = changes.pop("vma", self.vma)
        mesh_axes = changes.pop("mesh_axes", self.mesh_axes)
        out = with_vma(ShapedArray.update(self, **changes), vma, mesh_axes)
        return with_spec(out, spec, self.mesh) if len(spec) == out.ndim else out

    def strip_weak_type(self) -> ShapedArray:
        return self.update(weak_type=False) if self.weak_type else self

    def _dims(self) -> str:  # 8@x, 8@(x,y): JAX's
        return ",".join(
            f"{n}@{a[0] if len(a) == 1 else '(' + ','.join(a) + ')'}" if a else str(n)
            for n, a in zip(self.shape, self.spec, strict=True)
        )

    def str_short(self) -> str:
        return (
            f"{dtypes.short_name(self.dtype)}[{self._dims()}]{vma_suffix(self.vma, self.mesh_axes)}"
        )

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is ShardedArray
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.weak_type == other.weak_type
            and self.spec == other.spec
            and self.mesh == other.mesh
            and self.vma == other.vma
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type, self.spec))

    def __str__(self) -> str:
        weak = "~" if self.weak_type else ""
        return f"{weak}{self.dtype.name}[{self._dims()}]{vma_suffix(self.vma, self.mesh_axes)}"

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.dtype.name}[{self._dims()}]{weak})"


def with_spec(aval: ShapedArray, spec: tuple, mesh: Any) -> ShapedArray:
    """`aval` split as `spec` (per dimension, a tuple of mesh axes) over `mesh`'s explicit
    axes (a plain ShapedArray when no dimension is split); it keeps the mesh axes it varies
    along (in a shard_map body)."""
    if not any(spec):
        if type(aval) is ShapedArray:
            return aval
        plain = ShapedArray(aval.shape, aval.dtype, aval.weak_type)
        return with_vma(plain, aval.vma, aval.mesh_axes)
    out = object.__new__(ShardedArray)
    out.shape, out.dtype, out.weak_type = aval.shape, aval.dtype, aval.weak_type
    out.spec, out.mesh = tuple(tuple(a) for a in spec), mesh
    out.vma, out.mesh_axes = aval.vma, aval.mesh_axes
    return out


def reshaped(aval: ShapedArray, shape: tuple, d: int, inserted: Any) -> ShapedArray:
    """`aval` of `shape`: dimension `d` inserted (split along `inserted`, `()` for none) or
    removed (`inserted` None; a batch dimension, a scanned one); a split aval keeps its other
    dimensions' split."""
    if type(aval) is not ShardedArray:
        return aval.update(shape=shape)
    spec = list(aval.spec)
    if inserted is None:
        del spec[d]
    else:
        spec.insert(d, inserted)
    return aval.update(shape=shape, spec=tuple(spec))
