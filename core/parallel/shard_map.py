"""`shard_map`: one function run on every device of a mesh, each on its block of the inputs.

Layer 4, after jit. `shard_map(f, mesh=, in_specs=, out_specs=)` splits each input over the
mesh as its PartitionSpec says (`P('x', None)`: dimension 0 in blocks along mesh axis 'x',
the input whole along every axis its spec does not name), runs `f` on each device's blocks,
and puts the results together as `out_specs` say (an output whose spec leaves out an axis is
taken from one device along it: `f` promises it is the same on all of them). Collectives in
`f` (`lax.psum(x, 'x')`, `lax.all_gather(x, ('x', 'y'))`, ...) act across the mesh axes they
name. It is one primitive, `shard_map_p`, printed as JAX 0.10.2 prints it; `pmap` (pmap.py) is
a jit of one over a one-axis mesh.

Lowering, as JAX's: inside an SPMD program over the mesh's devices (jit finds the mesh in the
jaxpr and partitions the call over it, stages.py), the body is manual over its axes
(`newly_manual_axes`; parallel/manual.py: Shardy's `sdy.manual_computation`, or GSPMD's
custom calls), so that its collectives act between partitions
(parallel/collectives.py); along the other ("free") axes the partitioner still splits its
values. While a body is traced, the context's abstract mesh has its manual axes `Manual`
(`typed_sharding.shard_map_body`): a shard_map inside, given no mesh, nests in it (a
manual computation inside the outer one). Called outside jit,
`shard_map_p`'s impl runs the same program (a jit of the one equation). On a mesh of several
processes (pmap under `didax.distributed`) it runs as a replicated program instead
(replicated.py), whose collectives act across replicas and whose results each process reads
its part of.

The rules re-trace the body with the mesh's axes bound (`core.axis_frame`), so its collectives
stage with their names: jvp and transpose give new shard_maps (as JAX's with
`check_vma=False`: a cotangent of an output not split along some axes is divided by their
size before it, one of an input not split along some axes is psummed over them inside), vmap
batches the body along another axis, and partial evaluation splits it in a known and an
unknown shard_map as JAX's linearization does (residuals first, each device's concatenated
along axis 0 over every mesh axis; residuals that are inputs or outputs passed on as they
are).

With `check_vma=True` (the default) the body's types say along which mesh axes each value
varies, as JAX 0.10.2's do: an input varies along the axes its spec names (`f32[2]{V:x}`),
a result along the union of its operands' axes, and an operand varying along fewer gets a
`pvary` equation first (the staging trace inserts it: `interpreters/staging.py`); psum
becomes `psum_invariant`, whose result no longer varies along the summed axes
(parallel/collectives.py and exchanges.py have the collectives' rules). The axis frames of
such a body carry
the mesh's axis names (`axis_frames(mesh, check_vma)`), which is how collectives and the
staging trace know they are in one. An output varying along an axis its out_spec leaves
out raises JAX's ValueError (`vma.check_outputs`); one varying along fewer is cast with `pvary`.
The types do the transpose's work: the transpose of a `pvary` is a psum, so cotangents are
neither divided nor psummed as with check_vma=False. Residuals are split along the axes
they vary along only.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import core, typed_sharding, vma
from didax.compile import jit as jit_module
from didax.compile.jit_primitive import derived
from didax.control_flow import common
from didax.core import NOT_MAPPED, ShapedArray, Zero
from didax.interpreters import partial_eval, transpose
from didax.interpreters.jvp import jvp_jaxpr
from didax.interpreters.vmap import batched_out_dims, vmap_jaxpr
from didax.jaxpr import ClosedJaxpr, JaxprEqn, Var, eval_jaxpr, pp_params_rules
from didax.parallel import collectives
from didax.parallel.manual import lower_body
from didax.parallel.replicated import replicated_impl
from didax.parallel.specs import (
    axis_frames,
    axis_sizes,
    block_aval,
    block_factors,
    body_aval,
    check_args,
    check_manual,
    check_mesh,
    check_specs,
    context_mesh,
    fn_name,
    holds_tracer,
    inferred_specs,
    insert_none,
    manual_axes,
    out_rank_error,
    outer_manual,
    result_aval,
    specs_tuple,
    static_key,
    unblock_aval,
    vary_as,
    vma_spec,
)
from didax.primitives import shape
from didax.primitives.convert import convert_element_type
from didax.primitives.elementwise import div
from didax.runtime.sharding import AxisType, Mesh, PartitionSpec, process_local
from didax.tree_util import broadcast_prefix, tree_flatten, tree_unflatten

P = PartitionSpec


# ----------------------------------------------------------------------------- shard_map_p

shard_map_p = core.Primitive("shard_map", multiple_results=True)
# Never part of a program for one device: a jit holding it is partitioned over its mesh, or
# (a mesh of several processes) runs equation by equation (`core.own_program`).
core.own_program.add(shard_map_p)
core.unconstrained_results.add(shard_map_p)  # (a nested one's results, as JAX's)


def shard_map_params(
    mesh: Mesh,
    in_specs: Sequence[PartitionSpec],
    out_specs: Sequence[PartitionSpec],
    check_vma: bool = False,
    manual: Any = None,
) -> dict:
    """shard_map_p's params but the body, as JAX names them (`manual`: the axes the body is
    manual over, default every mesh axis)."""
    return {
        "mesh": mesh,
        "in_specs": tuple(in_specs),
        "out_specs": tuple(out_specs),
        "check_vma": check_vma,
        "newly_manual_axes": frozenset(manual or mesh.axis_names),
    }


def trace_body(
    fn: Callable[..., list[Any]],
    mesh: Mesh,
    in_avals: Sequence[ShapedArray],
    check_vma: bool = False,
    manual: Any = None,
) -> tuple[ClosedJaxpr, list[Any]]:
    """Stage `fn` on blocks of types `in_avals` with the mesh's (manual) axes bound; consts
    hoisted."""
    with axis_frames(mesh, check_vma, manual):
        return common.trace_jaxpr_fn(fn, in_avals)


@pp_params_rules.register(shard_map_p)
def _shard_map_pp(params):  # JAX prints a set of axis names sorted
    names = ", ".join(sorted(map(repr, params["newly_manual_axes"])))
    mesh = params["mesh"]  # a nested one's: the abstract mesh of the body around it
    if AxisType.Manual in mesh.axis_types:
        mesh = typed_sharding.AbstractMesh(mesh)
    shown = {**params, "newly_manual_axes": f"frozenset({{{names}}})", "mesh": mesh}
    return sorted(shown.items())


@core.abstract_eval_rules.register(shard_map_p)
def _shard_map_abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, **params):
    manual = params["newly_manual_axes"]
    sizes = axis_sizes(mesh)
    for aval, spec, expected in zip(avals, in_specs, jaxpr.in_avals, strict=True):
        factors = block_factors(spec, aval.ndim, sizes)
        if any(n % f for n, f in zip(aval.shape, factors)) or not core.types_match(
            block_aval(aval, spec, sizes, manual), expected
        ):
            raise TypeError(
                f"shard_map: an operand of type {aval.str_short()} with spec {spec!r} does "
                f"not give the body's block type {expected.str_short()} on {mesh}"
            )
    return [result_aval(a, s, mesh, manual) for a, s in zip(jaxpr.out_avals, out_specs)]


@core.impl_rules.register(shard_map_p)
def _shard_map_impl(*args, jaxpr, mesh, in_specs, out_specs, **params):
    if process_local(mesh):
        return replicated_impl(args, jaxpr, mesh, in_specs, out_specs)
    # impl rules give NumPy values (the eager trace wraps them): read the split results
    manual = params["newly_manual_axes"]
    outs = run_partitioned(args, jaxpr, mesh, in_specs, out_specs, params["check_vma"], manual)
    return [core.to_numpy(o) for o in outs]


def run_partitioned(
    args: Sequence[Any],
    jaxpr: ClosedJaxpr,
    mesh: Mesh,
    in_specs: Sequence[PartitionSpec],
    out_specs: Sequence[PartitionSpec],
    check_vma: bool,
    manual: frozenset,
) -> list[Any]:
    """Run a shard_map as JAX does outside jit: a jit of the one equation, partitioned
    over the mesh; the results are Arrays split over it."""
    params = {"jaxpr": jaxpr, **shard_map_params(mesh, in_specs, out_specs, check_vma, manual)}
    key = ("eager", mesh, tuple(in_specs), tuple(out_specs), check_vma, manual)
    jitted = derived(jaxpr, key, lambda: jit_module.jit(_one_equation(params)))
    return jitted(*args)


def _one_equation(params: dict) -> Callable[..., list[Any]]:
    def shmap_body(*args: Any) -> list[Any]:
        return shard_map_p.bind(*args, **params)

    return shmap_body


# ----------------------------------------------------------------------------- rules


@core.jvp_rules.register(shard_map_p)
def _shard_map_jvp(primals, tangents, *, jaxpr, mesh, in_specs, out_specs, check_vma, **params):
    manual = params["newly_manual_axes"]
    nonzeros = tuple(not isinstance(t, Zero) for t in tangents)
    with axis_frames(mesh, check_vma, manual):
        body, nonzeros_out = jvp_jaxpr(jaxpr, nonzeros, instantiate=False)
    tangent_specs = [s for s, nz in zip(in_specs, nonzeros, strict=True) if nz]
    out_tangent_specs = [s for s, nz in zip(out_specs, nonzeros_out, strict=True) if nz]
    outs = shard_map_p.bind(
        *primals,
        *(t for t in tangents if not isinstance(t, Zero)),
        jaxpr=body,
        **shard_map_params(
            mesh, [*in_specs, *tangent_specs], [*out_specs, *out_tangent_specs], check_vma, manual
        ),
    )
    n = len(out_specs)
    nonzero_tangents = iter(outs[n:])
    sizes = axis_sizes(mesh)
    avals_out = [unblock_aval(a, s, sizes) for a, s in zip(jaxpr.out_avals, out_specs)]
    tangents_out = [
        next(nonzero_tangents) if nz else Zero(a)
        for nz, a in zip(nonzeros_out, avals_out, strict=True)
    ]
    return outs[:n], tangents_out


@core.transpose_rules.register(shard_map_p)
def _shard_map_transpose(cts, *args, jaxpr, mesh, in_specs, out_specs, check_vma, **params):
    manual = params["newly_manual_axes"]
    linear = [isinstance(x, core.UndefinedPrimal) for x in args]
    ct_nonzero = [not isinstance(ct, Zero) for ct in cts]
    with axis_frames(mesh, check_vma, manual):
        body = transpose.transpose_jaxpr(jaxpr, linear, ct_nonzero)
    residuals = [x for x, lin in zip(args, linear, strict=True) if not lin]
    res_specs = [s for s, lin in zip(in_specs, linear, strict=True) if not lin]
    ct_specs = [s for s, nz in zip(out_specs, ct_nonzero, strict=True) if nz]
    lin_specs = [s for s, lin in zip(in_specs, linear, strict=True) if lin]
    n_res, sizes = len(residuals), dict(mesh.shape)

    # with check_vma=False, as JAX: an output's cotangent reached every device along the
    # axes its spec leaves out (divide by their size, before the shard_map, as JAX); an
    # input's cotangent is the sum of the cotangents of every device along the axes its spec
    # leaves out (psum, inside). With check_vma the types did it: the transpose of the
    # `pvary` that made an invariant input vary is a psum (psum_invariant), and of the psum
    # that made an output invariant, a pvary.
    cts = [
        ct
        if isinstance(ct, Zero) or check_vma
        else _over(ct, math.prod(sizes[a] for a in _unmentioned(mesh, s, manual)))
        for ct, s in zip(cts, out_specs, strict=True)
    ]

    # a cotangent takes its input's weak type inside, before the psum, as JAX's does
    lin_avals = [a for a, lin in zip(jaxpr.in_avals, linear, strict=True) if lin]

    def fn(*ins: Any) -> list[Any]:
        cts_in, res = ins[: len(ct_specs)], ins[len(ct_specs) :]
        outs = eval_jaxpr(body.jaxpr, body.consts, *res, *cts_in)
        outs = [_weak_as(ct, a) for ct, a in zip(outs, lin_avals, strict=True)]
        if check_vma:
            return outs
        return [
            collectives.psum(ct, _unmentioned(mesh, s, manual))
            for ct, s in zip(outs, lin_specs, strict=True)
        ]

    in_avals = [*body.in_avals[n_res:], *body.in_avals[:n_res]]
    new_body, consts = trace_body(fn, mesh, in_avals, check_vma, manual)
    outs = iter(
        shard_map_p.bind(
            *consts,
            *(ct for ct in cts if not isinstance(ct, Zero)),
            *residuals,
            jaxpr=new_body,
            **shard_map_params(
                mesh,
                [*(P() for _ in consts), *ct_specs, *res_specs],
                lin_specs,
                check_vma,
                manual,
            ),
        )
    )
    return [next(outs) if lin else None for lin in linear]


def _unmentioned(mesh: Mesh, spec: PartitionSpec, manual: frozenset) -> tuple[Any, ...]:
    # the manual axes `spec` does not split along, in the mesh's order
    return tuple(a for a in vma.unmentioned(mesh, spec) if a in manual)


def _weak_as(ct: Any, aval: ShapedArray) -> Any:
    ct_aval = core.get_aval(ct)
    if ct_aval.weak_type == aval.weak_type or ct_aval.dtype != aval.dtype:
        return ct
    return convert_element_type(ct, aval.dtype, weak_type=aval.weak_type)


def _over(ct: Any, n: int) -> Any:
    if n == 1:
        return ct
    return div(ct, np.array(n, core.get_aval(ct).dtype))


@core.vmap_rules.register(shard_map_p)
def _shard_map_vmap(
    axis_size, vals, dims, *, jaxpr, mesh, in_specs, out_specs, check_vma, **params
):
    manual = params["newly_manual_axes"]
    # the batch axis stays whole on every device: a new unsplit axis of each block, where
    # the body's rules leave it (as JAX); outputs that do not depend on it stay unbatched
    # (jacfwd needs its primal outputs so)
    with axis_frames(mesh, check_vma, manual):
        found = batched_out_dims(jaxpr, axis_size, dims)
        out_dims = [None if d is None or d is NOT_MAPPED else d for d in found]
        body = vmap_jaxpr(jaxpr, axis_size, dims, out_dims)
    new_in = [s if d is NOT_MAPPED else insert_none(s, d) for s, d in zip(in_specs, dims)]
    new_out = [s if d is None else insert_none(s, d) for s, d in zip(out_specs, out_dims)]
    outs = shard_map_p.bind(
        *vals, jaxpr=body, **shard_map_params(mesh, new_in, new_out, check_vma, manual)
    )
    return outs, [NOT_MAPPED if d is None else d for d in out_dims]


@partial_eval.partial_eval_jaxpr_rules.register(shard_map_p)
def _shard_map_partial_eval(unks_in, eqn):
    manual = eqn.params["newly_manual_axes"]
    # As JAX's linearization of a shard_map: the known shard_map returns the residuals first
    # (each device's, concatenated along axis 0 over every mesh axis; a scalar as a 1-element
    # vector), then its known outputs; a residual that is a known input or output is not
    # returned but passed on as it is, with its spec.
    p = eqn.params
    mesh, jaxpr, in_specs, out_specs = p["mesh"], p["jaxpr"], p["in_specs"], p["out_specs"]
    check_vma = p["check_vma"]
    with axis_frames(mesh, check_vma, manual):
        known, unknown, unks_out, num_res = partial_eval.partial_eval_jaxpr(jaxpr, unks_in)
    n_known_out = len(known.out_avals) - num_res
    names = tuple(a for a in mesh.axis_names if a in manual)
    res_spec = P(names[0] if len(names) == 1 else tuple(names))
    k_specs = [s for s, u in zip(in_specs, unks_in, strict=True) if not u]
    u_specs = [s for s, u in zip(in_specs, unks_in, strict=True) if u]
    ko_specs = [s for s, u in zip(out_specs, unks_out, strict=True) if not u]
    uo_specs = [s for s, u in zip(out_specs, unks_out, strict=True) if u]
    ins_known = [x for x, u in zip(eqn.invars, unks_in, strict=True) if not u]
    ins_unknown = [x for x, u in zip(eqn.invars, unks_in, strict=True) if u]
    outs_known = [v for v, u in zip(eqn.outvars, unks_out, strict=True) if not u]
    outs_unknown = [v for v, u in zip(eqn.outvars, unks_out, strict=True) if u]

    # where each residual comes from: a known input, a known output, or a new output
    inner_ins = {v: i for i, v in enumerate(known.jaxpr.invars)}
    inner_outs = {
        v: i for i, v in enumerate(known.jaxpr.outvars[:n_known_out]) if isinstance(v, Var)
    }
    sizes = axis_sizes(mesh)
    new_res: list[int] = []  # indices of the residuals the known shard_map returns
    res_atoms: list[Any] = []  # each residual, outside
    res_specs: list[PartitionSpec] = []
    res_blocks: list[ShapedArray] = []  # each residual's type in the unknown body
    scalar = []  # residuals sent as 1-element vectors
    for r, v in enumerate(known.jaxpr.outvars[n_known_out:]):
        aval = known.out_avals[n_known_out + r]
        if isinstance(v, Var) and v in inner_ins:
            res_atoms.append(ins_known[inner_ins[v]])
            res_specs.append(k_specs[inner_ins[v]])
            res_blocks.append(aval)
        elif isinstance(v, Var) and v in inner_outs:
            res_atoms.append(outs_known[inner_outs[v]])
            res_specs.append(ko_specs[inner_outs[v]])
            res_blocks.append(aval)
        else:
            # with check_vma, as JAX: split along the axes the residual varies along only
            spec = vma_spec(aval.vma, mesh) if check_vma else res_spec
            block = aval if aval.ndim else aval.update(shape=(1,))
            res_atoms.append(Var(result_aval(block, spec, mesh, manual)))
            res_specs.append(spec)
            res_blocks.append(block)
            new_res.append(r)
        scalar.append(r in new_res and not aval.ndim)
    res_vars = [res_atoms[r] for r in new_res]
    if not check_vma:  # the residuals' blocks, untyped
        res_blocks = [block_aval(a.aval, s, sizes) for a, s in zip(res_atoms, res_specs)]

    def known_fn(*ins: Any) -> list[Any]:
        outs = eval_jaxpr(known.jaxpr, known.consts, *ins)
        res = outs[n_known_out:]
        res = [shape.expand_dims(res[r], (0,)) if scalar[r] else res[r] for r in new_res]
        return [*res, *outs[:n_known_out]]

    def unknown_fn(*ins: Any) -> list[Any]:
        res = [shape.squeeze(x, (0,)) if sc else x for x, sc in zip(ins[:num_res], scalar)]
        return eval_jaxpr(unknown.jaxpr, unknown.consts, *res, *ins[num_res:])

    known_body, k_consts = trace_body(known_fn, mesh, known.in_avals, check_vma, manual)
    unknown_body, u_consts = trace_body(
        unknown_fn, mesh, [*res_blocks, *unknown.in_avals[num_res:]], check_vma, manual
    )
    if k_consts or u_consts:
        raise NotImplementedError("shard_map: partial evaluation of a body with consts")
    eqn_known = eqn_unknown = None
    if outs_known or res_vars:
        new_specs = [res_specs[r] for r in new_res]
        params = shard_map_params(mesh, k_specs, [*new_specs, *ko_specs], check_vma, manual)
        eqn_known = JaxprEqn(
            shard_map_p, ins_known, [*res_vars, *outs_known], {"jaxpr": known_body, **params}
        )
    if outs_unknown:
        params = shard_map_params(mesh, [*res_specs, *u_specs], uo_specs, check_vma, manual)
        eqn_unknown = JaxprEqn(
            shard_map_p, [*res_atoms, *ins_unknown], outs_unknown, {"jaxpr": unknown_body, **params}
        )
    return eqn_known, eqn_unknown, unks_out


@partial_eval.dce_rules.register(shard_map_p)
def _shard_map_dce(used_outputs, eqn):
    return partial_eval.prune_call(used_outputs, eqn, ("in_specs",), ("out_specs",))


@core.lowering_rules.register(shard_map_p)
def _shard_map_lowering(ctx, *args, jaxpr, mesh, in_specs, out_specs, **params):
    manual = params["newly_manual_axes"]
    return lower_body(ctx, args, jaxpr, mesh, in_specs, out_specs, manual)


# ----------------------------------------------------------------------------- shard_map


class _Infer:
    def __repr__(self) -> str:
        return "Infer"


Infer = _Infer()  # JAX's default in_specs: read from the arguments' types (Explicit axes)


def shard_map(
    f: Callable[..., Any] | None = None,
    /,
    *,
    out_specs: Any,
    in_specs: Any = Infer,
    mesh: Mesh | None = None,
    axis_names: Any = frozenset(),
    check_vma: bool = True,
) -> Any:
    """Map `f` over blocks of its arguments, one block per device of `mesh`. Like
    `jax.shard_map`.

    `in_specs` (a PartitionSpec, or a pytree prefix of the positional arguments of them)
    says how each argument is split over the mesh; `out_specs` (a prefix of `f`'s output)
    how the results are put together. Collectives in `f` name mesh axes. Called outside
    `jit`, it runs as a jit of itself. `mesh` defaults to the context mesh (`set_mesh`),
    `in_specs` to the arguments' `Explicit` types. `axis_names` names the axes the body is
    manual over (default all): collectives and specs name only those, and the
    partitioner splits its values along the others. Inside a body, a shard_map given
    no `mesh` nests over axes the outer one is not manual over. With
    `check_vma` (the default), the body's types say
    along which mesh axes each value varies (printed `f32[2]{V:x}`, with JAX's `pvary` and
    `psum_invariant` equations), and an output that may vary along a mesh axis its out_spec
    leaves out raises JAX's ValueError (see the module docstring).

    Raises:
      TypeError: `f` not callable, `mesh` not a Mesh, `in_specs` missing, a spec that is
        not a PartitionSpec.
      ValueError: no mesh, a spec naming an axis the mesh lacks, a spec longer than its
        array's rank, a dimension not divisible by its mesh axes' size, specs that are not
        a tree prefix of the arguments (or output), an output varying along an axis its
        out_spec leaves out (with `check_vma`), a spec naming an axis the body is not manual
        over, a `mesh` given inside a shard_map body.
      DuplicateSpecError: nested over an axis the shard_map around it is manual over.
      NotImplementedError: a mesh spanning several processes.
    """
    options = dict(
        mesh=mesh,
        in_specs=in_specs,
        out_specs=out_specs,
        axis_names=axis_names,
        check_vma=check_vma,
    )
    if f is None:
        return lambda g: _shard_map(g, **options)
    return _shard_map(f, **options)


def _shard_map(
    f: Callable[..., Any],
    *,
    mesh: Mesh | None,
    in_specs: Any,
    out_specs: Any,
    axis_names: Any,
    check_vma: bool,
) -> Callable[..., Any]:
    if not callable(f):
        raise TypeError(
            f"shard_map requires a callable for its first argument, but got {f} of type {type(f)}."
        )

    @functools.wraps(f)
    def wrapped(*args: Any) -> Any:
        __tracebackhide__ = True
        m = context_mesh(mesh)
        check_mesh(m, axis_names)
        manual = manual_axes(m, frozenset(axis_names))
        leaves, in_tree = tree_flatten(args)
        if in_specs is Infer:  # each argument split as its type says (Explicit axes)
            specs = inferred_specs(m, [core.get_aval(x) for x in leaves], frozenset(axis_names))
        else:
            if in_specs is not None:
                check_specs("in", in_specs, m)
            try:
                specs = broadcast_prefix(specs_tuple(in_specs), in_tree, "shard_map in_specs")
            except ValueError as e:
                raise ValueError(f"shard_map in_specs: {e}") from None
        check_specs("out", out_specs, m)
        check_manual(in_specs, out_specs, manual)
        # a None spec: a static argument, passed to `f` as it is (JAX's)
        statics = [x for x, s in zip(leaves, specs, strict=True) if s is None]
        leaves = [x for x, s in zip(leaves, specs, strict=True) if s is not None]
        which = [s is not None for s in specs]
        specs = [s for s in specs if s is not None]
        avals = [core.get_aval(x) for x in leaves]
        check_args(f, m, avals, specs)
        eager = core.trace_state() is core.EAGER_STATE
        key = (in_tree, tuple(avals), tuple(specs), tuple(which), static_key(statics))
        found = traces.get(key) if eager and key[-1] is not None else None
        if found is None:
            found = _trace(
                f, m, in_tree, avals, specs, statics, which, out_specs, check_vma, manual
            )
            if check_vma:
                outer = outer_manual(m)
                vma.check_outputs(fn_name(f), m, found[0].out_avals, found[3], outer)
            if eager and key[-1] is not None and not holds_tracer(found[1]):
                traces[key] = found  # a later call with these types runs this trace again
        closed, consts, out_tree, out_specs_flat = found
        params = shard_map_params(
            m, [*(P() for _ in consts), *specs], out_specs_flat, check_vma, manual
        )
        everything = [*consts, *leaves]
        if core.trace_state() is core.EAGER_STATE and not any(
            isinstance(x, core.Tracer) for x in everything
        ):  # straight to the partitioned program: its results stay split over the m
            outs = run_partitioned(
                everything, closed, m, params["in_specs"], out_specs_flat, check_vma, manual
            )
        else:
            outs = shard_map_p.bind(*everything, jaxpr=closed, **params)
        return tree_unflatten(out_tree, outs)

    traces: dict[tuple, tuple] = {}  # by argument types, traced outside any transformation
    return wrapped


def _trace(
    f: Callable[..., Any],
    mesh: Mesh,
    in_tree: Any,
    avals: Sequence[ShapedArray],
    specs: Sequence[PartitionSpec],
    statics: Sequence[Any],
    which: Sequence[bool],
    out_specs: Any,
    check_vma: bool,
    manual: Any,
) -> tuple[ClosedJaxpr, list[Any], Any, list[PartitionSpec]]:
    # `f` staged on each device's blocks: its jaxpr, consts, output tree and output specs
    out_trees: list[Any] = []
    out_specs_flat: list[PartitionSpec] = []

    def body(*blocks: Any) -> list[Any]:
        dyn, static = iter(blocks), iter(statics)
        everything = [next(dyn) if w else next(static) for w in which]
        outs, out_tree = tree_flatten(f(*tree_unflatten(in_tree, everything)))
        out_trees.append(out_tree)
        try:
            found = broadcast_prefix(specs_tuple(out_specs), out_tree, "shard_map out_specs")
        except ValueError as e:
            raise ValueError(f"shard_map out_specs: {e}") from None
        if any(len(s) > core.get_aval(x).ndim for x, s in zip(outs, found, strict=True)):
            raise ValueError(out_rank_error(f, out_specs, out_tree, outs, found))
        out_specs_flat[:] = found
        if check_vma:  # as JAX: an output its spec splits along more axes is cast to vary
            outs = [vary_as(x, s) for x, s in zip(outs, found, strict=True)]
        return outs

    blocks = [body_aval(a, s, mesh, check_vma, manual) for a, s in zip(avals, specs, strict=True)]
    closed, consts = trace_body(body, mesh, blocks, check_vma, manual)
    return closed, consts, out_trees[-1], list(out_specs_flat)
