"""`pmap`: one program, run at once on N devices, one slice of the inputs on each.

Layer 4, after jit (seed: "Understanding Jaxprs", `xla_pmap`). JAX 0.10.2 writes `pmap(f)` as
`jit(shard_map(f))`: its jaxpr is a `jit[name=_fun]` whose one equation is a `shard_map` over a
one-axis mesh of N devices (`mesh=Mesh('i': 4, ...)`), each operand's mapped axis split in N
blocks of size 1 (`in_specs=(P('i',), P())`), and a body that squeezes the block, runs `f` and
expands the result back. didax stages the same program and prints it as JAX does.

Evaluating it: the body is lowered ONCE, to a replicated XLA program (`num_replicas=N` and a
device assignment, `backend.compile_module`), in which a collective over pmap's axis is a
cross-replica op (`stablehlo.all_reduce` with `replica_groups`, `replica_id` for axis_index;
see primitives/parallel.py). Replica k gets block k of every mapped operand (and all of an
unmapped one) as a buffer on device k. A direct call (`_call_sharded`) keeps the results on
the devices: each is one Array split over pmap's mesh (`NamedSharding(Mesh('i': 4),
P('i'))`, block k from replica k), as JAX 0.10.2's pmap returns it. Elsewhere (under a
transformation, inside a jit, with several processes) the program ends by gathering each
mapped result from every replica (`all_gather`) and the host reads one copy
(`assemble_output`). A `jit` holding a `shard_map` runs equation by equation (the body's
program is the one compiled program), as a jit holding a print does.

The body's rules re-trace it with pmap's axis bound (`core.axis_frame`), so that its
collectives stage with their names: jvp and transpose give new shard_maps (a cotangent of an
unmapped input is psummed over the axis, one of an unmapped output divided by N, as JAX's
shard_map does with `check_vma=False`), vmap batches the body along another axis, and partial
evaluation splits it in a known and an unknown shard_map whose residuals are mapped.

Several processes (`didax.distributed`): the mesh holds every process's devices; each process
passes its own slice (leading axis = its local device count) and gets its own slice back.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from didax import api_util, backend, core, dtypes
from didax.array import Array
from didax.control_flow import common
from didax.control_flow import jit as jit_module
from didax.control_flow.jit_primitive import derived
from didax.core import NOT_MAPPED, ShapedArray, Zero
from didax.interpreters import lowering, partial_eval, staging, transpose
from didax.interpreters.jvp import jvp_jaxpr
from didax.interpreters.vmap import batched_out_dims, vmap_jaxpr
from didax.jaxpr import ClosedJaxpr, JaxprEqn, Literal, Var, eval_jaxpr
from didax.primitives import parallel, shape
from didax.primitives.bits import bitcast_convert_type
from didax.sharding import IndivisibleError, Mesh, NamedSharding
from didax.sharding import PartitionSpec as P
from didax.tree_util import broadcast_prefix, tree_flatten, tree_unflatten

DEFAULT_AXIS_NAME = "_internal_pmap_axis_name"  # JAX's name for pmap without axis_name


# ----------------------------------------------------------------------------- mesh and specs
# pmap's mesh is a one-axis `sharding.Mesh` of its devices, and an operand's spec a
# `PartitionSpec` naming that axis at the mapped dimension (`P(None, 'i')` maps axis 1).


def pmap_mesh(axis_name: Any, devices: Sequence[Any]) -> Mesh:
    """pmap's devices along its one named axis (prints as JAX's `Mesh('i': 4, ...)`)."""
    grid = np.empty(len(devices), dtype=object)
    grid[:] = list(devices)
    return Mesh(grid, (axis_name,))


def _name(mesh: Mesh) -> Any:
    return mesh.axis_names[0]


def _mapped(spec: P) -> int | None:
    """The mapped dimension of an operand with this spec, or None."""
    return len(spec) - 1 if spec else None


def axis_spec(axis_name: Any, axis: int | None) -> P:
    """The spec of an operand mapped at `axis` (None: not mapped), as JAX writes it."""
    return P() if axis is None else P(*(None,) * axis, axis_name)


def block_aval(aval: ShapedArray, spec: P) -> ShapedArray:
    """One device's block of an operand of type `aval`: its mapped axis has size 1."""
    if _mapped(spec) is None:
        return aval
    shp = list(aval.shape)
    shp[_mapped(spec)] = 1
    return aval.update(shape=tuple(shp))


def unblock_aval(aval: ShapedArray, spec: P, n: int) -> ShapedArray:
    """The type of `n` blocks of type `aval` put together along the mapped axis."""
    if _mapped(spec) is None:
        return aval
    shp = list(aval.shape)
    shp[_mapped(spec)] *= n
    return aval.update(shape=tuple(shp))


# ----------------------------------------------------------------------------- shard_map_p

shard_map_p = core.Primitive("shard_map", multiple_results=True)
# It runs its own replicated program: a jit holding it evaluates equation by equation, and
# this program is the one compiled (`core.own_program`).
core.own_program.add(shard_map_p)


def _axis_frame(mesh: Mesh) -> Any:
    return core.axis_frame(_name(mesh), mesh.size)


def _params(mesh: Mesh, in_specs: Sequence[P], out_specs: Sequence[P]) -> dict:
    return {
        "mesh": mesh,
        "in_specs": tuple(in_specs),
        "out_specs": tuple(out_specs),
        "check_vma": False,
        "newly_manual_axes": frozenset({_name(mesh)}),
    }


def _trace_body(
    fn: Callable[..., list[Any]], mesh: Mesh, in_avals: Sequence[ShapedArray]
) -> tuple[ClosedJaxpr, list[Any]]:
    # with pmap's axis bound, so that collectives stage with their names; consts hoisted
    with _axis_frame(mesh):
        return common.trace_jaxpr_fn(fn, in_avals)


@core.abstract_eval_rules.register(shard_map_p)
def _shard_map_abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, **params):
    n = len(mesh.local_devices)
    for aval, spec, expected in zip(avals, in_specs, jaxpr.in_avals, strict=True):
        if not core.types_match(block_aval(aval, spec), expected) or (
            _mapped(spec) is not None and aval.shape[_mapped(spec)] != n
        ):
            raise TypeError(
                f"shard_map: an operand of type {aval.str_short()} with spec {spec!r} does "
                f"not give the body's block type {expected.str_short()} on {n} devices"
            )
    return [unblock_aval(a, s, n) for a, s in zip(jaxpr.out_avals, out_specs, strict=True)]


@core.impl_rules.register(shard_map_p)
def _shard_map_impl(*args, jaxpr, mesh, in_specs, out_specs, **params):
    exe = derived(jaxpr, ("replicated", mesh, out_specs), lambda: _compile(jaxpr, mesh, out_specs))
    local = mesh.local_devices
    shards = [
        split_input(x, aval, spec, local)
        for x, aval, spec in zip(args, jaxpr.in_avals, in_specs, strict=True)
    ]
    outs = exe.execute_replicated(shards)
    return [
        assemble_output(value, aval, spec, mesh)
        for value, aval, spec in zip(outs, jaxpr.out_avals, out_specs, strict=True)
    ]


def _compile(jaxpr: ClosedJaxpr, mesh: Mesh, out_specs: Sequence[P]) -> backend.Executable:
    gathered, builder = _lower(jaxpr, mesh, out_specs)
    return backend.compile_module(
        builder.module,
        gathered.in_avals,
        gathered.out_avals,
        num_replicas=mesh.size,
        device_assignment=list(mesh.devices.flat),
    )


def _lower(
    jaxpr: ClosedJaxpr, mesh: Mesh, out_specs: Sequence[P]
) -> tuple[ClosedJaxpr, lowering.ModuleBuilder]:
    # The body, then every mapped result gathered from all devices (all_gather), so that each
    # replica ends with the whole result and the host reads one copy (`assemble_output`).
    # bfloat16 leaves as its 16 bits: the host reads through DLPack, which NumPy's lacks.
    def program(*blocks: Any) -> list[Any]:
        outs = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *blocks)
        outs = [
            o
            if _mapped(s) is None
            else parallel.all_gather(o, _name(mesh), axis=_mapped(s), tiled=True)
            for o, s in zip(outs, out_specs, strict=True)
        ]
        return [_bits(o) if core.get_aval(o).dtype == dtypes.bfloat16 else o for o in outs]

    with _axis_frame(mesh):
        gathered = staging.trace_to_jaxpr(program, jaxpr.in_avals)
    builder = lowering.lower_jaxpr_to_module(
        gathered, "_fun", replica_axes=((_name(mesh), mesh.size),)
    )
    return gathered, builder


def _bits(x: Any) -> Any:
    return bitcast_convert_type(x, np.uint16)


def split_input(x: Any, block: ShapedArray, spec: P, devices: Sequence[Any]) -> list[Any]:
    """One buffer per device: block k of `x` along its mapped axis on device k (all of `x`
    on every device when it is not mapped)."""
    value = np.asarray(core.to_numpy(x), block.dtype)
    if _mapped(spec) is None:
        return [backend.put(value, block, device=d) for d in devices]
    parts = np.split(value, len(devices), axis=_mapped(spec))
    return [backend.put(np.ascontiguousarray(p), block, device=d) for p, d in zip(parts, devices)]


def assemble_output(value: np.ndarray, block: ShapedArray, spec: P, mesh: Mesh) -> Any:
    """pmap's result on the gathering path (under a transformation, in a jit, with several
    processes): its host copy, from the whole result gathered on this process's first
    device (this process's devices' part of it, with several processes). A direct call
    keeps its results on the devices instead (`_call_sharded`)."""
    if block.dtype == dtypes.bfloat16:
        value = value.view(dtypes.bfloat16)
    value = np.array(value)  # owned by the host, not a view of the device's buffer
    if _mapped(spec) is None or mesh.size == len(mesh.local_devices):
        return value
    here = [i for i, d in enumerate(mesh.devices.flat) if d in set(mesh.local_devices)]
    return np.take(value, here, axis=_mapped(spec))


@core.jvp_rules.register(shard_map_p)
def _shard_map_jvp(primals, tangents, *, jaxpr, mesh, in_specs, out_specs, **params):
    nonzeros = tuple(not isinstance(t, Zero) for t in tangents)
    with _axis_frame(mesh):
        body, nonzeros_out = jvp_jaxpr(jaxpr, nonzeros, instantiate=False)
    tangent_specs = [s for s, nz in zip(in_specs, nonzeros, strict=True) if nz]
    out_tangent_specs = [s for s, nz in zip(out_specs, nonzeros_out, strict=True) if nz]
    outs = shard_map_p.bind(
        *primals,
        *(t for t in tangents if not isinstance(t, Zero)),
        jaxpr=body,
        **_params(mesh, [*in_specs, *tangent_specs], [*out_specs, *out_tangent_specs]),
    )
    n = len(out_specs)
    nonzero_tangents = iter(outs[n:])
    avals_out = core.abstract_eval_rules[shard_map_p](
        *map(core.get_aval, primals), jaxpr=jaxpr, **_params(mesh, in_specs, out_specs)
    )
    tangents_out = [
        next(nonzero_tangents) if nz else Zero(a)
        for nz, a in zip(nonzeros_out, avals_out, strict=True)
    ]
    return outs[:n], tangents_out


@core.transpose_rules.register(shard_map_p)
def _shard_map_transpose(cts, *args, jaxpr, mesh, in_specs, out_specs, **params):
    linear = [isinstance(x, core.UndefinedPrimal) for x in args]
    ct_nonzero = [not isinstance(ct, Zero) for ct in cts]
    with _axis_frame(mesh):
        body = transpose.transpose_jaxpr(jaxpr, linear, ct_nonzero)
    residuals = [x for x, lin in zip(args, linear, strict=True) if not lin]
    res_specs = [s for s, lin in zip(in_specs, linear, strict=True) if not lin]
    ct_specs = [s for s, nz in zip(out_specs, ct_nonzero, strict=True) if nz]
    lin_specs = [s for s, lin in zip(in_specs, linear, strict=True) if lin]
    n_res, n = len(residuals), mesh.size

    # check_vma=False, as JAX: an unmapped output's cotangent reached every device (divide
    # by N); an unmapped input's cotangent is the sum of every device's (psum)
    def fn(*ins: Any) -> list[Any]:
        cts_in, res = ins[: len(ct_specs)], ins[len(ct_specs) :]
        cts_in = [_over(ct, n) if _mapped(s) is None else ct for ct, s in zip(cts_in, ct_specs)]
        outs = eval_jaxpr(body.jaxpr, body.consts, *res, *cts_in)
        return [
            parallel.psum(ct, _name(mesh)) if _mapped(s) is None else ct
            for ct, s in zip(outs, lin_specs, strict=True)
        ]

    in_avals = [*body.in_avals[n_res:], *body.in_avals[:n_res]]
    new_body, consts = _trace_body(fn, mesh, in_avals)
    outs = iter(
        shard_map_p.bind(
            *consts,
            *(ct for ct in cts if not isinstance(ct, Zero)),
            *residuals,
            jaxpr=new_body,
            **_params(mesh, [*(P() for _ in consts), *ct_specs, *res_specs], lin_specs),
        )
    )
    return [next(outs) if lin else None for lin in linear]


def _over(ct: Any, n: int) -> Any:
    return core.operator_table["divide"](ct, np.array(n, core.get_aval(ct).dtype))


@core.vmap_rules.register(shard_map_p)
def _shard_map_vmap(axis_size, vals, dims, *, jaxpr, mesh, in_specs, out_specs, **params):
    # the batch axis stays whole on every device: a new unmapped axis of each block; outputs
    # that do not depend on it stay unbatched (jacfwd needs its primal outputs so)
    with _axis_frame(mesh):
        found = batched_out_dims(jaxpr, axis_size, dims)
        out_dims = [None if d is None or d is NOT_MAPPED else 0 for d in found]
        body = vmap_jaxpr(jaxpr, axis_size, dims, out_dims)
    new_in = [s if d is NOT_MAPPED else _insert_none(s, d) for s, d in zip(in_specs, dims)]
    new_out = [s if d is None else _insert_none(s, 0) for s, d in zip(out_specs, out_dims)]
    outs = shard_map_p.bind(*vals, jaxpr=body, **_params(mesh, new_in, new_out))
    return outs, [NOT_MAPPED if d is None else d for d in out_dims]


def _insert_none(spec: P, d: int) -> P:
    # the spec after inserting an unmapped axis at `d`
    if _mapped(spec) is None or d > _mapped(spec):
        return spec
    return P(*spec[:d], None, *spec[d:])


@partial_eval.partial_eval_jaxpr_rules.register(shard_map_p)
def _shard_map_partial_eval(unks_in, eqn):
    p = eqn.params
    mesh, jaxpr, in_specs, out_specs = p["mesh"], p["jaxpr"], p["in_specs"], p["out_specs"]
    with _axis_frame(mesh):
        known, unknown, unks_out, num_res = partial_eval.partial_eval_jaxpr(jaxpr, unks_in)
    n_known_out = len(known.out_avals) - num_res
    res_avals = known.out_avals[n_known_out:]
    res_spec = axis_spec(_name(mesh), 0)  # each device's residual: a block of a new axis

    def known_fn(*ins: Any) -> list[Any]:
        outs = eval_jaxpr(known.jaxpr, known.consts, *ins)
        return [*(shape.expand_dims(r, (0,)) for r in outs[n_known_out:]), *outs[:n_known_out]]

    def unknown_fn(*ins: Any) -> list[Any]:
        res = [shape.squeeze(r, (0,)) for r in ins[:num_res]]
        return eval_jaxpr(unknown.jaxpr, unknown.consts, *res, *ins[num_res:])

    k_specs = [s for s, u in zip(in_specs, unks_in, strict=True) if not u]
    u_specs = [s for s, u in zip(in_specs, unks_in, strict=True) if u]
    ko_specs = [s for s, u in zip(out_specs, unks_out, strict=True) if not u]
    uo_specs = [s for s, u in zip(out_specs, unks_out, strict=True) if u]
    res_blocks = [a.update(shape=(1, *a.shape)) for a in res_avals]
    known_body, k_consts = _trace_body(known_fn, mesh, known.in_avals)
    unknown_body, u_consts = _trace_body(
        unknown_fn, mesh, [*res_blocks, *unknown.in_avals[num_res:]]
    )
    if k_consts or u_consts:
        raise NotImplementedError("shard_map: partial evaluation of a body with consts")
    n_local = len(mesh.local_devices)
    res_vars = [Var(unblock_aval(a, res_spec, n_local)) for a in res_blocks]
    ins_known = [x for x, u in zip(eqn.invars, unks_in, strict=True) if not u]
    ins_unknown = [x for x, u in zip(eqn.invars, unks_in, strict=True) if u]
    outs_known = [v for v, u in zip(eqn.outvars, unks_out, strict=True) if not u]
    outs_unknown = [v for v, u in zip(eqn.outvars, unks_out, strict=True) if u]
    eqn_known = eqn_unknown = None
    if outs_known or res_vars:
        params = _params(mesh, k_specs, [*(res_spec for _ in res_vars), *ko_specs])
        eqn_known = JaxprEqn(
            shard_map_p, ins_known, [*res_vars, *outs_known], {"jaxpr": known_body, **params}
        )
    if outs_unknown:
        params = _params(mesh, [*(res_spec for _ in res_vars), *u_specs], uo_specs)
        eqn_unknown = JaxprEqn(
            shard_map_p, [*res_vars, *ins_unknown], outs_unknown, {"jaxpr": unknown_body, **params}
        )
    return eqn_known, eqn_unknown, unks_out


@core.lowering_rules.register(shard_map_p)
def _shard_map_lowering(ctx, *args, jaxpr, mesh, **params):
    # a ValueError, as JAX 0.10.2 raises for a pmap inside a pmap
    raise ValueError(
        f"shard_map over {mesh} inside another compiled program (a pmap inside a pmap) "
        "is not supported by didax; a jit holding a pmap runs it as its own program"
    )


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
        # name and docstring, not `__dict__` (a pmap of a pmap would take the inner's state)
        functools.update_wrapper(self, fun, updated=())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        jitted, out_trees, leaves = self._prepare(args, kwargs)
        if core.trace_state() is core.EAGER_STATE and backend.process_count() == 1:
            outs = _call_sharded(jitted, leaves)  # results split over the devices, as JAX's
            if outs is not None:
                return tree_unflatten(out_trees[-1], outs)
        outs = jitted(*leaves)
        return tree_unflatten(out_trees[-1], outs)

    def lower(self, *args: Any, **kwargs: Any) -> PmapLowered:
        """The replicated program these arguments run: its StableHLO (`.as_text()`), and
        XLA's (`.compile().as_text()`). Like `jax.pmap(f).lower`, whose text differs (JAX
        lowers pmap as a shard_map for XLA's SPMD partitioner)."""
        jitted, _, leaves = self._prepare(args, kwargs)
        (eqn,) = [e for e in jitted.trace(*leaves).jaxpr.jaxpr.eqns if e.primitive is shard_map_p]
        p = eqn.params
        return PmapLowered(p["jaxpr"], p["mesh"], p["out_specs"])

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
        sizes = [
            core.get_aval(x).shape[a] for x, a in zip(leaves, axes, strict=True) if a is not None
        ]
        if not sizes:
            raise ValueError("pmap requires at least one argument with a mapped axis.")
        local_size = sizes[0]
        nprocs = backend.process_count()
        if nprocs == 1 and self._axis_size is not None and self._axis_size != local_size:
            raise ValueError(
                f"Specified axis_size {self._axis_size} doesn't match received axis_size "
                f"{local_size}."
            )
        if self._devices is not None:
            devices = self._devices
        elif nprocs > 1:  # every process's devices, process by process
            everything = backend.devices()
            devices = tuple(d for p in range(nprocs) for d in everything if d.process_index == p)
        else:
            devices = tuple(backend.devices())
        size = self._axis_size or local_size * nprocs
        mesh = pmap_mesh(self._axis_name, devices[:size])
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
        in_specs = [axis_spec(_name(mesh), a) for a in axes]
        out_trees: list[Any] = []  # the output's tree, and its specs, once traced
        out_specs: list[P] = []

        def body(*blocks: Any) -> list[Any]:
            leaves = [x if a is None else shape.squeeze(x, (a,)) for x, a in zip(blocks, axes)]
            dyn_args, kwargs = tree_unflatten(in_tree, leaves)
            it = iter(dyn_args)
            full = [args[i] if i in static else next(it) for i in range(len(args))]
            out_leaves, out_tree = tree_flatten(fun(*full, **kwargs))
            out_trees.append(out_tree)
            dsts = broadcast_prefix(out_axes, out_tree, "pmap out_axes")
            out_specs[:] = [axis_spec(_name(mesh), d) for d in dsts]
            return [
                x if d is None else shape.expand_dims(x, (d,)) for x, d in zip(out_leaves, dsts)
            ]

        def _fun(*flat_args: Any) -> list[Any]:  # JAX's name for it: jit[name=_fun]
            blocks = [block_aval(core.get_aval(x), s) for x, s in zip(flat_args, in_specs)]
            closed, consts = _trace_body(body, mesh, blocks)
            specs = [*(P() for _ in consts), *in_specs]
            return shard_map_p.bind(
                *consts, *flat_args, jaxpr=closed, **_params(mesh, specs, out_specs)
            )

        return jit_module.jit(_fun), out_trees


def _call_sharded(jitted: jit_module.JitFunction, leaves: list[Any]) -> list[Any] | None:
    """A direct call of pmap's `jit[_fun]` (one `shard_map` equation) whose results stay on
    the devices: each an Array split over the mesh (a NamedSharding, block k on device k),
    as JAX 0.10.2's pmap returns them. None when the program is not that one equation or
    has bfloat16 results: the call then runs as a jit, its results gathered to the host."""
    closed = jitted.trace(*leaves).jaxpr
    j = closed.jaxpr
    if len(j.eqns) != 1 or j.eqns[0].primitive is not shard_map_p:
        return None
    eqn = j.eqns[0]
    if list(j.outvars) != list(eqn.outvars):
        return None
    p = eqn.params
    jaxpr, mesh, in_specs, out_specs = p["jaxpr"], p["mesh"], p["in_specs"], p["out_specs"]
    if any(a.dtype == dtypes.bfloat16 for a in jaxpr.out_avals):
        return None
    env = {**dict(zip(j.constvars, closed.consts)), **dict(zip(j.invars, leaves))}
    args = [x.val if isinstance(x, Literal) else env[x] for x in eqn.invars]
    exe, handlers, avals, shardings = derived(
        jaxpr, ("sharded results", mesh, out_specs), lambda: _compile_split(jaxpr, mesh, out_specs)
    )
    local = mesh.local_devices
    shards = [
        split_input(x, aval, spec, local)
        for x, aval, spec in zip(args, jaxpr.in_avals, in_specs, strict=True)
    ]
    outs = exe.execute_replicated_to(shards, handlers)
    return [
        Array(None, buffer=b, aval=a, sharding=s)
        for b, a, s in zip(outs, avals, shardings, strict=True)
    ]


def _compile_split(jaxpr: ClosedJaxpr, mesh: Mesh, out_specs: Sequence[P]) -> tuple:
    # the body alone (no gathering of its results), and how its results are put together
    builder = lowering.lower_jaxpr_to_module(
        jaxpr, "_fun", replica_axes=((_name(mesh), mesh.size),)
    )
    devices = list(mesh.devices.flat)
    exe = backend.compile_module(
        builder.module,
        jaxpr.in_avals,
        jaxpr.out_avals,
        num_replicas=mesh.size,
        device_assignment=devices,
    )
    avals = [unblock_aval(a, s, mesh.size) for a, s in zip(jaxpr.out_avals, out_specs)]
    shardings = [NamedSharding(mesh, s) for s in out_specs]
    texts = [s.hlo_text(a.ndim, devices) for s, a in zip(shardings, avals, strict=True)]
    return exe, backend.result_handlers(avals, devices, texts), avals, shardings


def _indivisible(mesh: Mesh, aval: ShapedArray, axis: int) -> str:
    tiling = [1] * aval.ndim
    tiling[axis] = mesh.size
    spec = axis_spec(_name(mesh), axis)
    return (
        f"Sharding NamedSharding(mesh={mesh}, spec={spec!r}, memory_kind=device) implies "
        f"that array axis {axis} is partitioned {mesh.size} times, but the dimension size is "
        f"{aval.shape[axis]} (full shape: {aval.shape}, per-dimension tiling factors: "
        f"{tiling} should evenly divide the shape)"
    )


class PmapLowered:
    """pmap's replicated program for one signature, lowered. Like `jax.stages.Lowered`."""

    def __init__(self, jaxpr: ClosedJaxpr, mesh: Mesh, out_specs: Sequence[P]) -> None:
        self.jaxpr = jaxpr  # the body: one device's program
        self.mesh = mesh
        self._out_specs = tuple(out_specs)
        self._builder = _lower(jaxpr, mesh, out_specs)[1]

    def as_text(self, debug_info: bool = False) -> str:
        """The StableHLO module (`mhlo.num_replicas`, cross-replica collectives)."""
        return lowering.module_text(self._builder, debug_info)

    def compile(self) -> PmapCompiled:
        """Compile with XLA for the mesh's devices."""
        return PmapCompiled(_compile(self.jaxpr, self.mesh, self._out_specs))


class PmapCompiled:
    """pmap's replicated program, compiled: XLA's HLO and cost. Like `jax.stages.Compiled`."""

    def __init__(self, exe: backend.Executable) -> None:
        self._exe = exe

    def as_text(self) -> str:
        """XLA's optimized HLO."""
        return self._exe.as_text()

    def cost_analysis(self) -> dict[str, float]:
        """XLA's estimate: 'flops', 'transcendentals', 'bytes accessed'."""
        return self._exe.cost_analysis()
