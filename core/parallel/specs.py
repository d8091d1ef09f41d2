"""PartitionSpecs over a mesh, for shard_map and pmap: the axis frames a body is traced in,
the type of each device's block, the dimension a spec splits, and the checks of shard_map's mesh, specs, arguments and outputs
(with JAX's messages); the check of its outputs' varying axes is `vma.check_outputs`.

Layer 4, in didax.parallel after the collectives, before shard_map.py (which calls these
checks before and after tracing a body).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence
from typing import Any

from didax import core, typed_sharding, vma
from didax.control_flow import common
from didax.core import ShapedArray
from didax.runtime.sharding import (
    AxisType,
    DuplicateSpecError,
    Mesh,
    NamedSharding,
    PartitionSpec,
    process_local,
    typed,
)
from didax.sharded_aval import with_spec
from didax.tree_util import tree_flatten

P = PartitionSpec


@contextlib.contextmanager
def axis_frames(mesh: Mesh, check_vma: bool = False, manual: Any = None) -> Iterator[None]:
    """Bind the mesh axes the body is manual over (`manual`, default every one) with their
    sizes, for the collectives traced inside; with `check_vma`, as axes that values' types
    say they vary along."""
    order = mesh.axis_names if check_vma else None
    manual = manual or frozenset(mesh.axis_names)
    with contextlib.ExitStack() as stack:
        for name, size in mesh.shape_tuple:
            if name in manual:
                stack.enter_context(core.axis_frame(name, size, order))
        stack.enter_context(typed_sharding.shard_map_body(mesh, manual))
        yield


def axis_sizes(mesh: Mesh) -> dict[Any, int]:
    """Each mesh axis's size, as this process sees its operands: the mesh's own, except for
    pmap's one-axis mesh over several processes, whose operands hold this process's devices'
    part (its local device count)."""
    if not process_local(mesh):
        return dict(mesh.shape)
    return {mesh.axis_names[0]: len(mesh.local_devices)}


def block_factors(spec: PartitionSpec, ndim: int, sizes: dict[Any, int]) -> list[int]:
    return [math.prod(sizes[a] for a in spec.axes_of(d)) for d in range(ndim)]


def block_aval(
    aval: ShapedArray, spec: PartitionSpec, sizes: dict[Any, int], manual: Any = None
) -> ShapedArray:
    """One device's block of an operand of type `aval` split as `spec`: in a body manual
    over the axes `manual` only, still split along the (`Explicit`) others its type names,
    as JAX's (`f32[4,4@y]`); else not split."""
    factors = block_factors(spec, aval.ndim, sizes)
    shape = tuple(n // f for n, f in zip(aval.shape, factors, strict=True))
    if type(aval) is core.ShardedArray:
        block = ShapedArray(shape, aval.dtype, aval.weak_type)
        if not manual:
            return block
        free = tuple(tuple(a for a in axes if a not in manual) for axes in aval.spec)
        return with_spec(block, free, aval.mesh)
    return aval.update(shape=shape)


def outer_spec(aval: ShapedArray, spec: PartitionSpec) -> PartitionSpec:
    """The split of a shard_map's result put together as `spec` from blocks of type `aval`
    (still split along free `Explicit` axes: both, per dimension)."""
    dims = [spec.axes_of(d) + typed_sharding.spec_of(aval)[d] for d in range(aval.ndim)]
    return P(*[None if not axes else axes[0] if len(axes) == 1 else axes for axes in dims])


def unblock_aval(
    aval: ShapedArray, spec: PartitionSpec, sizes: dict[Any, int], varying: frozenset = frozenset()
) -> ShapedArray:
    """The type of the blocks of type `aval` put together as `spec` says (outside the
    shard_map: varying along no mesh axis, or, nested in another, along `varying`)."""
    factors = block_factors(spec, aval.ndim, sizes)
    shape = tuple(n * f for n, f in zip(aval.shape, factors, strict=True))
    return core.with_vma(aval.update(shape=shape), varying, getattr(aval, "mesh_axes", ()))


def result_aval(
    aval: ShapedArray, spec: PartitionSpec, mesh: Mesh, manual: frozenset
) -> ShapedArray:
    """The type outside of a shard_map's result of body type `aval` put together as `spec`
    (the body manual over `manual`): split along its spec's and its free `Explicit` axes,
    varying along the outer manual axes it varies along."""
    block = unblock_aval(aval, spec, axis_sizes(mesh), aval.vma - manual)
    return typed(block, NamedSharding(mesh, outer_spec(aval, spec)))


def body_aval(
    aval: ShapedArray, spec: PartitionSpec, mesh: Mesh, check_vma: bool, manual: Any = None
) -> ShapedArray:
    """The body's type of an operand of type `aval` split as `spec` (the body manual over
    `manual`): its block, varying along the axes the spec names (and those `aval` varies
    along, in a nested shard_map) when `check_vma` (JAX's `{V:x}`)."""
    block = block_aval(aval, spec, axis_sizes(mesh), manual)
    if not check_vma:
        return block
    return core.with_vma(block, vma.spec_axes(spec) | aval.vma, mesh.axis_names)


def mapped_dim(spec: PartitionSpec) -> int | None:
    """The one dimension a one-axis mesh's spec splits, or None."""
    dims = [d for d in range(len(spec)) if spec.axes_of(d)]
    return dims[0] if dims else None


def vma_spec(vma: frozenset, mesh: Mesh) -> PartitionSpec:
    # dimension 0 split along the axes `vma` names, in the mesh's order
    names = tuple(a for a in mesh.axis_names if a in vma)
    return P(names[0] if len(names) == 1 else names) if names else P()


def insert_none(spec: PartitionSpec, d: int) -> PartitionSpec:
    # the spec after inserting an unsplit axis at `d` (padded with None up to it, as JAX)
    parts = [*spec, *[None] * (d - len(spec))]
    return P(*parts[:d], None, *parts[d:])


def vary_as(x: Any, spec: PartitionSpec) -> Any:
    missing = vma.spec_axes(spec) - core.get_aval(x).vma
    return vma.casts().pvary.bind(x, **vma.pvary_params(missing)) if missing else x


def static_key(statics: Sequence[Any]) -> tuple | None:
    # static arguments key the trace when hashable (None: trace every call)
    try:
        hash(tuple(statics))
    except TypeError:
        return None
    return tuple(statics)


def holds_tracer(xs: Sequence[Any]) -> bool:
    return any(isinstance(x, core.Tracer) for x in xs)


# ----------------------------------------------------------------------------- checks
# shard_map's arguments, specs and outputs, checked with JAX's messages.


def specs_tuple(specs: Any) -> Any:
    return tuple(specs) if isinstance(specs, list) else specs


def fn_name(f: Any) -> str:
    return getattr(f, "__name__", str(f))


def inferred_specs(
    mesh: Mesh, avals: Sequence[ShapedArray], axis_names: frozenset
) -> list[PartitionSpec]:
    """JAX's `in_specs` default: each argument split as its type says, when the axes named
    (`axis_names`, default every mesh axis) are all `Explicit` (JAX's TypeError otherwise)."""
    names = axis_names or frozenset(mesh.axis_names)
    types = dict(zip(mesh.axis_names, mesh.axis_types, strict=True))
    if any(types[a] is not AxisType.Explicit for a in names):
        axis_types = ", ".join(str(types[a]) for a in names)
        raise TypeError(
            "shard_map in_specs argument must be a pytree of `jax.sharding.PartitionSpec` "
            f"instances, but it was `None` when axis_names={names} are of type {axis_types}"
        )
    return [typed_sharding.named(a, mesh).spec for a in avals]


def check_manual(in_specs: Any, out_specs: Any, manual: frozenset) -> None:
    """JAX's check that the specs name only the axes the body is manual over."""
    for which, specs in (("in", in_specs), ("out", out_specs)):
        leaves, tree = tree_flatten(specs, is_leaf=lambda s: isinstance(s, PartitionSpec))
        msgs = [
            f"  {which}_specs{path} refers to {a!r}"
            for path, s in zip(common.leaf_path_names(tree), leaves, strict=True)
            if isinstance(s, PartitionSpec)
            for d in range(len(s))
            for a in s.axes_of(d)
            if a not in manual
        ]
        if msgs:
            raise ValueError(
                f"shard_map {which}_specs argument must refer to an axis marked as manual "
                f"({manual}), but:\n\n" + "\n\n".join(msgs) + f"\n\nCheck the {which}_specs "
                "values passed to shard_map."
            )


def context_mesh(mesh: Mesh | None) -> Mesh | None:
    """shard_map's mesh: `mesh`, or the body's around it (a nested shard_map), or the
    context mesh (`set_mesh`).

    Raises:
      ValueError: in a shard_map body, a mesh given (as JAX's: not its abstract mesh).
    """
    around = typed_sharding.body_mesh()
    if mesh is None:
        return typed_sharding.get_mesh() if around is None else around
    if around is not None and mesh != around:
        raise ValueError(
            f"The context mesh {typed_sharding.get_abstract_mesh()} should match the mesh "
            f"passed to shard_map {mesh}"
        )
    return mesh


def manual_axes(mesh: Mesh, axis_names: frozenset) -> frozenset:
    """The axes a shard_map's body is newly manual over: `axis_names` (default, as JAX's,
    every mesh axis but those a shard_map around it is already manual over).

    Raises:
      DuplicateSpecError: `axis_names` names an axis already manual (JAX's type outside
        `jit`: its specs would map the axis twice), or none is left.
    """
    outer = outer_manual(mesh)
    already = sorted(a for a in axis_names if a in outer)
    manual = (axis_names or frozenset(mesh.axis_names)) - outer
    if already or not manual:
        raise DuplicateSpecError(
            f"shard_map over the mesh axes {sorted(axis_names or mesh.axis_names)} inside a "
            f"shard_map already manual over {already or sorted(outer)}: pass axis_names "
            "naming only the others"
        )
    return manual


def outer_manual(mesh: Mesh) -> frozenset:
    """The axes of `mesh` a shard_map around is manual over (typed `Manual` in its body)."""
    return frozenset(
        a for a, t in zip(mesh.axis_names, mesh.axis_types, strict=True) if t is AxisType.Manual
    )


def check_mesh(mesh: Any, axis_names: Any) -> None:
    if mesh is None:
        raise ValueError(
            "The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to enter into a mesh "
            "context"
        )
    if not isinstance(mesh, Mesh):
        raise TypeError(
            "shard_map requires a `jax.sharding.Mesh` or a `jax.sharding.AbstractMesh` "
            f"instance for its second argument, but got {mesh} of type {type(mesh)}."
        )
    if mesh.empty:
        raise ValueError(f"shard_map requires a non-empty mesh. Got {mesh}")
    if not isinstance(axis_names, (frozenset, set)):
        raise TypeError(
            "`axis_names` argument of shard_map should be of type `frozenset` or `set`. "
            f"Got type: {type(axis_names)}"
        )
    names = frozenset(axis_names) or frozenset(mesh.axis_names)
    if not names <= frozenset(mesh.axis_names):
        raise ValueError(
            f"jax.shard_map requires axis_names={names} to be a subset of "
            f"mesh.axis_names={frozenset(mesh.axis_names)}"
        )


def check_specs(prefix: str, specs: Any, mesh: Mesh) -> None:
    if prefix == "in" and specs is None:
        raise TypeError(
            "shard_map in_specs argument must be a pytree of `jax.sharding.PartitionSpec` "
            "instances, but it was None.\nInstead of `in_specs=None`, did you mean "
            "`in_specs=P()`, where `P = jax.sharding.PartitionSpec`?"
        )
    leaves, _ = tree_flatten(specs, is_leaf=lambda x: isinstance(x, PartitionSpec) or x is None)
    if prefix == "in":  # None: a static argument
        leaves = [p for p in leaves if p is not None]
    for p in leaves:
        if not isinstance(p, PartitionSpec):
            raise TypeError(
                f"shard_map {prefix}_specs argument must be a pytree of "
                f"`jax.sharding.PartitionSpec` instances, but {prefix}_specs contains {p} of "
                f"type {type(p).__name__}."
            )
    names = frozenset(mesh.axis_names)
    for p in leaves:
        for d in range(len(p)):
            for name in p.axes_of(d):
                if name not in names:
                    raise ValueError(
                        f"shard_map {prefix}_specs argument must refer to an axis marked as "
                        f"manual ({names}), but {prefix}_specs refers to {name!r}. Check the "
                        f"{prefix}_specs values passed to shard_map."
                    )


def check_args(
    f: Any, mesh: Mesh, avals: Sequence[ShapedArray], specs: Sequence[PartitionSpec]
) -> None:
    sizes = dict(mesh.shape)
    for aval, spec in zip(avals, specs, strict=True):
        if len(spec) > aval.ndim:
            raise ValueError(
                f"shard_map applied to the function '{fn_name(f)}' was given an argument of "
                f"type {aval.str_short()} with in_specs entry {spec} of length {len(spec)}, "
                f"which requires an argument of rank at least {len(spec)}."
            )
        for d in range(aval.ndim):
            axes = spec.axes_of(d)
            size = math.prod(sizes[a] for a in axes)
            if aval.shape[d] % size:
                axis = f"axes {axes}" if len(axes) > 1 else f"axis '{axes[0]}'"
                raise ValueError(
                    f"shard_map applied to the function '{fn_name(f)}' was given argument arrays "
                    "with axis sizes that are not evenly divisible by the corresponding mesh "
                    f"axis sizes: an argument of shape {aval.str_short()} with in_specs entry "
                    f"{spec} maps array axis {d} (of size {aval.shape[d]}) to mesh {axis} (of "
                    f"size {size}), but {size} does not evenly divide {aval.shape[d]}"
                )


def out_rank_error(
    f: Any, out_specs: Any, out_tree: Any, outs: Sequence[Any], specs: Sequence[PartitionSpec]
) -> str:
    # JAX's message, naming each output by its path and its spec by the spec's own path
    _, spec_tree = tree_flatten(specs_tuple(out_specs), is_leaf=lambda x: isinstance(x, P))
    spec_paths = common.leaf_path_names(spec_tree)

    def spec_path(path: str) -> str:
        inside = [q for q in spec_paths if path.startswith(q) and path[len(q) : len(q) + 1] in "["]
        return max(inside, key=len, default="")

    name, msgs, scalar = fn_name(f), [], False
    for path, x, spec in zip(common.leaf_path_names(out_tree), outs, specs, strict=True):
        aval = core.get_aval(x)
        if len(spec) <= aval.ndim:
            continue
        scalar = scalar or not aval.ndim
        msgs.append(
            f"* out_specs{spec_path(path)} is {spec} which has length {len(spec)}, but "
            f"{name}(*args){path} has shape {aval.strip_weak_type()}, which has rank "
            f"{aval.ndim} (and {aval.ndim} < {len(spec)})"
        )
    if len(msgs) == 1:
        msgs = [msgs[0][2:]]
    msg = (
        f"shard_map applied to the function '{name}' was given an out_specs entry which is too "
        "long to be compatible with the corresponding output value from the function:\n\n"
        + "\n\n".join(msgs)
        + "\n\nEntries in out_specs must be of length no greater than the number of axes in "
        "the corresponding output value.\n\nEither revise the spec to be shorter, or modify "
        f"'{name}' so that its outputs have sufficient rank."
    )
    if scalar:
        msg += (
            "\n\nFor scalar values (rank 0), consider using an out_specs entry of `P()`, where "
            "`P = jax.sharding.PartitionSpec`. In particular, for rank 0 outputs which are not "
            "constant over the mesh, add at least one (singleton) axis to them so that they "
            "can be concatenated using out_specs."
        )
    return msg
