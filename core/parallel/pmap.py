"""`pmap`: one program, run at once on N devices, one slice of the inputs on each.

Layer 4, after shard_map (seed: "Understanding Jaxprs", `xla_pmap`). JAX 0.10.2 writes
`pmap(f)` as `jit(shard_map(f))`: its jaxpr is a `jit[name=_fun]` whose one equation is a
`shard_map` over a one-axis mesh of N devices (`mesh=Mesh('i': 4, ...)`), each operand's
mapped axis split in N blocks of size 1 (`in_specs=(P('i',), P())`), and a body that squeezes
the block, runs `f` and expands the result back. didax stages the same program, prints it as
JAX does, and runs it the same way: the jit finds the shard_map's mesh and is partitioned
over its devices by XLA (shard_map.py), so the results are Arrays split over the devices
(`NamedSharding(mesh, P('i'))`), which a later pmap or jit takes as they are.

Several processes (`didax.distributed`): the mesh holds every process's devices; each process
passes its own slice (leading axis = its local device count) and gets its own slice back, on
the host (shard_map.py's replicated program).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from didax import api_util, core
from didax.compile import jit as jit_module
from didax.core import ShapedArray
from didax.parallel.shard_map import shard_map_p, shard_map_params, trace_body
from didax.parallel.specs import P, block_aval, context_mesh
from didax.primitives import shape
from didax.runtime import client
from didax.runtime.sharding import IndivisibleError, Mesh, PartitionSpec, PmapMesh
from didax.tree_util import broadcast_prefix, tree_flatten, tree_unflatten

DEFAULT_AXIS_NAME = "_internal_pmap_axis_name"  # JAX's name for pmap without axis_name


def axis_spec(axis_name: Any, axis: int | None) -> PartitionSpec:
    """The spec of an operand mapped at `axis` (None: not mapped), as JAX writes it."""
    return P() if axis is None else P(*(None,) * axis, axis_name)


# ----------------------------------------------------------------------------- pmap


def pmap(
    fun: Callable[..., Any],
    axis_name: Any = None,
    *,
    in_axes: Any = 0,
    out_axes: Any = 0,
    static_broadcasted_argnums: int | Iterable[int] = (),
    devices: Sequence[Any] | None = None,
    backend: str | None = None,  # noqa: A002 - JAX's keyword; one CPU backend here
    axis_size: int | None = None,
    donate_argnums: int | Iterable[int] = (),
) -> Callable[..., Any]:
    """Map `fun` over an axis of its arguments, running one copy on each device, at once.
    Like `jax.pmap` (0.10.2: a `jit` of a `shard_map`, and printed as that).

    `in_axes`/`out_axes` as in `vmap` (ints or None, pytree prefixes); collectives in `fun`
    (`lax.psum(x, axis_name)`, ...) act across the devices. `devices` picks them (default:
    the first N of `didax.devices()`, N the mapped axis size). Static arguments
    (`static_broadcasted_argnums`) must be hashable; each new value compiles anew. Donation
    is accepted and has no effect.

    Raises:
      ValueError: no argument is mapped; `in_axes` is not a prefix of the arguments; a
        mapped axis does not split over the devices (`IndivisibleError`).
    """
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun!r}")
    if devices is not None:
        if not devices:
            raise ValueError("'devices' argument to pmap must be non-empty, or None.")
        devices = tuple(devices)
    axis_name = DEFAULT_AXIS_NAME if axis_name is None else axis_name
    static = tuple(
        api_util.ensure_index_tuple(static_broadcasted_argnums, "static_broadcasted_argnums")
    )
    for spec, what in ((in_axes, "in_axes"), (out_axes, "out_axes")):
        leaves, _ = tree_flatten(spec, is_leaf=lambda x: x is None)
        if not all(x is None or type(x) is int for x in leaves):
            raise TypeError(
                f"pmap {what} must be an int, None, or (nested) container with those types "
                f"as leaves, but got {spec}."
            )
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    return PmapFunction(fun, axis_name, in_axes, out_axes, static, devices, axis_size)


class PmapFunction:
    """A function mapped by `pmap` over devices: call it."""

    def __init__(
        self,
        fun: Callable[..., Any],
        axis_name: Any,
        in_axes: Any,
        out_axes: Any,
        static: tuple[int, ...],
        devices: tuple[Any, ...] | None,
        axis_size: int | None,
    ) -> None:
        self._fun = fun
        self._axis_name = axis_name
        self._in_axes = in_axes
        self._out_axes = out_axes
        self._static = static
        self._devices = devices
        self._axis_size = axis_size
        self._jitted: dict[tuple, tuple[jit_module.JitFunction, list]] = {}
        self._meshes: dict[tuple, Mesh] = {}
        # name and docstring, not `__dict__` (a pmap of a pmap would take the inner's state)
        functools.update_wrapper(self, fun, updated=())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        jitted, _, leaves = self._prepare(args, kwargs)
        return jitted(*leaves)

    def lower(self, *args: Any, **kwargs: Any) -> Any:
        """The program these arguments run, lowered: its StableHLO (`.as_text()`) and
        XLA's (`.compile().as_text()`). Like `jax.pmap(f).lower` (a jit's `Lowered`)."""
        jitted, _, leaves = self._prepare(args, kwargs)
        return jitted.lower(*leaves)

    def _prepare(self, args: tuple, kwargs: dict) -> tuple[jit_module.JitFunction, list, list]:
        if self._static and max(self._static) >= len(args):
            raise ValueError(
                f"pmapped function has static_broadcasted_argnums={self._static} but was "
                f"called with only {len(args)} positional argument"
                f"{'s' if len(args) > 1 else ''}. All static broadcasted arguments must be "
                "passed positionally."
            )
        dyn_args = tuple(a for i, a in enumerate(args) if i not in self._static)
        statics = tuple(args[i] for i in self._static)
        for i, a in zip(self._static, statics):
            try:
                hash(a)
            except TypeError:
                raise ValueError(
                    "Non-hashable static arguments are not supported, as this can lead to "
                    f"unexpected cache-misses. Static argument (index {i}) of type {type(a)} "
                    f"for function {getattr(self._fun, '__name__', '?')} is non-hashable."
                ) from None
        leaves, in_tree = tree_flatten((dyn_args, kwargs))
        axes = self._in_axes_flat(dyn_args, kwargs, in_tree, len(leaves))
        mesh = self._mesh(leaves, axes)
        key = (in_tree, axes, mesh, statics)
        found = self._jitted.get(key)
        if found is None:
            found = self._jitted[key] = self._make(in_tree, axes, mesh, args)
        jitted, out_trees = found
        return jitted, out_trees, leaves

    def _in_axes_flat(
        self, dyn_args: tuple, kwargs: dict, in_tree: Any, n: int
    ) -> tuple[int | None, ...]:
        in_axes = self._in_axes
        if self._static and isinstance(in_axes, tuple):
            in_axes = tuple(a for i, a in enumerate(in_axes) if i not in self._static)
        try:
            axes = broadcast_prefix((in_axes, 0), in_tree, "pmap in_axes")
        except ValueError as e:
            raise ValueError(
                f"{e}\n\nThe 'full pytree' here is the tuple of arguments passed positionally "
                "to the pmapped function, and the value of `in_axes` must be a tree prefix "
                "of that tuple. But it was not a prefix.\n\nCheck that the value of the "
                "`in_axes` argument to `pmap` is a tree prefix of the tuple of arguments "
                "passed positionally to the pmapped function."
            ) from None
        return tuple(axes)

    def _mesh(self, leaves: list[Any], axes: tuple[int | None, ...]) -> Mesh:
        # as JAX: the first mapped argument that has a shape (Python scalars have none) sets
        # the size; a mapped axis beyond a rank, or of size 0, is a ValueError too
        shaped = [
            (x.shape, a) for x, a in zip(leaves, axes) if a is not None and hasattr(x, "shape")
        ]
        if not shaped:
            raise ValueError("pmap requires at least one argument with a mapped axis.")
        for x, a in zip(leaves, axes, strict=True):
            if a is not None and not -(rank := core.get_aval(x).ndim) <= a < rank:
                raise ValueError(
                    f"pmap was requested to map its argument along axis {a}, which implies "
                    f"that its rank should be at least {a + 1 if a >= 0 else -a}, but is only "
                    f"{rank} (its shape is {core.get_aval(x).shape})"
                )
        local_size = shaped[0][0][shaped[0][1]]
        if local_size == 0:
            raise ValueError(
                f"pmap got an argument whose mapped axis has size 0 (shape {shaped[0][0]}): "
                "it maps one element per device, and needs at least one"
            )
        nprocs = client.process_count()
        if nprocs == 1 and self._axis_size is not None and self._axis_size != local_size:
            raise ValueError(
                f"Specified axis_size {self._axis_size} doesn't match received axis_size "
                f"{local_size}."
            )
        if self._devices is not None:
            devices = self._devices
        elif nprocs > 1:  # every process's devices, process by process
            everything = client.devices()
            devices = tuple(d for p in range(nprocs) for d in everything if d.process_index == p)
        else:
            devices = tuple(client.devices())
        size = self._axis_size or local_size * nprocs
        mesh = self._meshes.get(devices[:size])
        if mesh is None:  # one Mesh per set of devices: jit's caches key on it
            mesh = self._meshes[devices[:size]] = _mesh(self._axis_name, devices[:size])
        n_local = len(mesh.local_devices)
        for x, a in zip(leaves, axes, strict=True):
            if a is not None:
                aval = core.get_aval(x)
                if aval.shape[a] % n_local or aval.shape[a] != n_local:
                    raise IndivisibleError(_indivisible(mesh, aval, a))
        return mesh

    def _make(
        self, in_tree: Any, axes: tuple[int | None, ...], mesh: Mesh, args: tuple
    ) -> tuple[jit_module.JitFunction, list]:
        fun, static, out_axes = self._fun, self._static, self._out_axes
        (name,) = mesh.axis_names
        in_specs = [axis_spec(name, a) for a in axes]
        out_trees: list[Any] = []  # the output's tree, and its specs, once traced
        out_specs: list[PartitionSpec] = []

        def body(*blocks: Any) -> list[Any]:
            leaves = [x if a is None else shape.squeeze(x, (a,)) for x, a in zip(blocks, axes)]
            dyn_args, kwargs = tree_unflatten(in_tree, leaves)
            it = iter(dyn_args)
            full = [args[i] if i in static else next(it) for i in range(len(args))]
            out_leaves, out_tree = tree_flatten(fun(*full, **kwargs))
            out_trees.append(out_tree)
            dsts = broadcast_prefix(out_axes, out_tree, "pmap out_axes")
            out_specs[:] = [axis_spec(name, d) for d in dsts]
            return [
                x if d is None else shape.expand_dims(x, (d,)) for x, d in zip(out_leaves, dsts)
            ]

        def _fun(*flat_args: Any) -> Any:  # JAX's name for it: jit[name=_fun]
            context_mesh(mesh)  # a pmap in a shard_map's (or pmap's) body: JAX's ValueError
            sizes = {name: len(mesh.local_devices)}
            blocks = [block_aval(core.get_aval(x), s, sizes) for x, s in zip(flat_args, in_specs)]
            closed, consts = trace_body(body, mesh, blocks)
            specs = [*(P() for _ in consts), *in_specs]
            outs = shard_map_p.bind(
                *consts, *flat_args, jaxpr=closed, **shard_map_params(mesh, specs, out_specs)
            )
            return tree_unflatten(out_trees[-1], outs)  # (the AOT stages give it back so too)

        return jit_module.jit(_fun), out_trees


def _mesh(axis_name: Any, devices: Sequence[Any]) -> Mesh:
    grid = np.empty(len(devices), dtype=object)
    grid[:] = list(devices)
    return PmapMesh(grid, (axis_name,))


def _indivisible(mesh: Mesh, aval: ShapedArray, axis: int) -> str:
    tiling = [1] * aval.ndim
    tiling[axis] = mesh.size
    spec = axis_spec(mesh.axis_names[0], axis)
    return (
        f"Sharding NamedSharding(mesh={mesh}, spec={spec!r}, memory_kind=device) implies "
        f"that array axis {axis} is partitioned {mesh.size} times, but the dimension size is "
        f"{aval.shape[axis]} (full shape: {aval.shape}, per-dimension tiling factors: "
        f"{tiling} should evenly divide the shape)"
    )
