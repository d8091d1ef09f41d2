"""The `jit` primitive, `jit_p`, and its rules; the per-jaxpr cache of what they derive.

Layer 4 (autodidax part 3, "Adding jit"; seed 003, jit as the `xla_call` primitive).
Under an outer transformation `jit` binds `jit_p[name, jaxpr, in_shardings, out_shardings]`,
one equation whose rules transform the inner jaxpr (`jvp_jaxpr`, `vmap_jaxpr`, partial
evaluation, transposition) into a new `jit` equation, its shardings following its values;
evaluated, it compiles its jaxpr once (`executable`, or partitioned over the mesh of its
shardings, `stages.ShardedRun`) and runs it. The user-facing `jit` and its per-function
caches are in `jit.py`; the AOT stages and sharded programs in `stages.py`.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import core
from didax.compile import debugging
from didax.compile.sharding_constraint import sharding_constraint_p
from didax.compile.stages import Entry, Layout, ShardedRun, make_layout, partition
from didax.config import config
from didax.core import Zero
from didax.interpreters import lowering, partial_eval, stepping, transpose
from didax.interpreters.jvp import jvp_jaxpr
from didax.interpreters.vmap import batched_out_dims, vmap_jaxpr
from didax.jaxpr import (
    ClosedJaxpr,
    Jaxpr,
    JaxprEqn,
    Literal,
    Var,
    eval_jaxpr,
    holds_own_program,
    pp_eqn_rules,
    pp_params_rules,
)
from didax.runtime import client
from didax.runtime.executable import Executable, buffer_to_numpy, compile_module
from didax.runtime.sharding import Mesh, NamedSharding, PartitionSpec, process_local
from didax.tree_util import tree_structure

jit_p = core.Primitive("jit", multiple_results=True)

# ----------------------------------------------------------------------------- per-jaxpr caches

# What the rules derive from a `jit` equation's jaxpr (its executable, its jvp and vmap
# jaxprs), kept exactly as long as the jaxpr: transforming or evaluating the same equation
# again (a jitted function called under jvp in a loop) reuses them instead of recompiling.
#
# Where caches live (STYLE.md §4): a `jit` object owns its executable cache (keyed on argument
# types, `CACHE_SIZE` entries). This table is not a global keyed by object ids: it is a
# WeakKeyDictionary keyed by the jaxpr objects themselves, so an entry is state *of that
# jaxpr* and dies with it (bounded by the live jaxprs). It must sit here, not on a `jit`
# object, because the same jaxpr reaches the rules from many places (a staged `jit` equation,
# its jvp, its transpose) that share no jit object; and not on `ClosedJaxpr` (layer 1),
# which would then hold executables of layer 4.
_derived: weakref.WeakKeyDictionary[ClosedJaxpr, dict] = weakref.WeakKeyDictionary()
_derived_lock = threading.Lock()  # guards the table, not `make()` (which may nest `derived`)


def derived(jaxpr: ClosedJaxpr, key: Any, make: Callable[[], Any]) -> Any:
    """`make()`, computed once per (jaxpr, key) while `jaxpr` is alive. Rules of `jit_p`
    (and of other higher-order primitives) use it to cache what they derive from a jaxpr.
    Threads racing on a miss may each compute it; the first result stored is kept."""
    with _derived_lock:
        table = _derived.get(jaxpr)
        if table is None:
            table = _derived[jaxpr] = {}
        if key in table:
            return table[key]
    value = make()
    with _derived_lock:
        return table.setdefault(key, value)


def executable(jaxpr: ClosedJaxpr, name: str) -> Executable:
    """The compiled program of `jaxpr` (compiled on first use, then cached with it)."""
    return derived(jaxpr, ("executable",), lambda: compile_jaxpr(jaxpr, name)[0])


def compile_jaxpr(
    jaxpr: ClosedJaxpr, name: str, aliases: Sequence[int | None] = (), *, device: Any = None
) -> tuple[Executable, dict[str, float]]:
    """Lower and compile `jaxpr` for one device (the first unless `device` is given)."""
    t0 = time.perf_counter()
    builder = lowering.lower_jaxpr_to_module(jaxpr, name, aliases)
    t1 = time.perf_counter()
    exe = compile_module(
        builder.module, jaxpr.in_avals, jaxpr.out_avals, builder.host_callbacks, device=device
    )
    return exe, {"lower": t1 - t0, "compile": time.perf_counter() - t1}


# ----------------------------------------------------------------------------- shardings
# A `jit` equation carries, per input and per output, the NamedSharding given to `jit`
# (`in_shardings=`/`out_shardings=`) or UNSPECIFIED, as JAX's does: its rules pass them on
# (a tangent is split as its primal, a cotangent as its primal's input or output, a residual
# is UNSPECIFIED), the enclosing program is partitioned over their mesh (jit.py) and they
# are lowered as `@Sharding` annotations on the called function's arguments and results.


class UnspecifiedValue:
    """No sharding given: XLA's partitioner chooses. Like JAX's `UNSPECIFIED`."""

    def __repr__(self) -> str:
        return "UnspecifiedValue"

    def __reduce__(self) -> str:  # one value: copied or pickled, still `is UNSPECIFIED`
        return "UNSPECIFIED"


UNSPECIFIED: Any = UnspecifiedValue()


def unspecified(n: int) -> tuple:
    """The shardings of `n` values with none given."""
    return (UNSPECIFIED,) * n


def _given(shardings: tuple) -> bool:
    return shardings.count(UNSPECIFIED) != len(shardings)


def _batched_sharding(s: Any, dim: Any, ndim: int) -> Any:
    # the batch dimension `dim` of an `ndim`-d value is not split; a replicated value stays so
    if s is UNSPECIFIED or dim is None or dim is core.NOT_MAPPED or s.is_fully_replicated:
        return s
    parts = [*s.spec, *[None] * (ndim - 1 - len(s.spec))]
    parts.insert(dim, None)
    while parts and parts[-1] is None:  # the shortest spec, as JAX names it
        parts.pop()
    return NamedSharding(s.mesh, PartitionSpec(*parts))


def named_shardings(closed: ClosedJaxpr) -> tuple[Any, ...]:
    """The shardings named inside `closed` (nested jaxprs too): of its
    `with_sharding_constraint`s, its nested jits' `in_shardings`/`out_shardings`, and its
    shard_maps' meshes (replicated). A program holding any is partitioned over their mesh,
    as JAX takes the mesh from them."""
    found = []
    stack = [closed.jaxpr]
    while stack:
        jaxpr = stack.pop()
        for eqn in jaxpr.eqns:
            if eqn.primitive is sharding_constraint_p:
                found.append(eqn.params["sharding"])
            elif eqn.primitive is jit_p:
                shardings = (*eqn.params["in_shardings"], *eqn.params["out_shardings"])
                found += [s for s in shardings if s is not UNSPECIFIED]
            mesh = eqn.params.get("mesh")  # a shard_map (not pmap's over several processes)
            if isinstance(mesh, Mesh) and not process_local(mesh):
                found.append(NamedSharding(mesh, PartitionSpec()))
            for v in eqn.params.values():
                for x in v if isinstance(v, tuple) else (v,):
                    if isinstance(x, (Jaxpr, ClosedJaxpr)):
                        stack.append(getattr(x, "jaxpr", x))
    return tuple(found)


def _sharded_impl(
    args: Sequence[Any], name: str, jaxpr: ClosedJaxpr, in_s: tuple, out_s: tuple, inner: tuple
):
    # A jit equation with shardings, or shardings inside, evaluated (a jitted function's
    # transformed call under grad or jvp): its program partitioned over their mesh, as jit.py
    # runs a direct call, returning Arrays split as given (or as XLA chose)
    def compile_run() -> tuple[Entry, Layout, ShardedRun]:
        in_tree = tree_structure((tuple(jaxpr.in_avals), {}))  # as jit's: (positional, keyword)
        entry = Entry(jaxpr, in_tree, tree_structure(list(jaxpr.out_avals)), 0.0)
        layout = make_layout(entry, args, in_s, out_s, inner)
        return entry, layout, partition(entry, name, layout)

    _, layout, run = derived(jaxpr, ("sharded", in_s, out_s), compile_run)
    return run.call(args, layout)[0]


# ----------------------------------------------------------------------------- jit_p rules


def _jit_impl(
    *args: Any,
    name: str,
    jaxpr: ClosedJaxpr,
    in_shardings: tuple,
    out_shardings: tuple,
    inline: bool = False,
) -> list:
    # inline: part of its caller's program, evaluated the way the caller is, eagerly (unless
    # it has shardings: JAX keeps such a jit its own program); a program holding a shard_map
    # (pmap) runs equation by equation, each shard_map as its own program partitioned over
    # its mesh
    sharded = _given(in_shardings) or _given(out_shardings)
    if inline and not sharded:
        return _eval_eagerly(jaxpr, args)
    own, inner = derived(
        jaxpr, ("impl",), lambda: (holds_own_program(jaxpr), named_shardings(jaxpr))
    )
    if own:
        return _eval_eagerly(jaxpr, args)
    if sharded or inner:  # Arrays out
        return _sharded_impl(args, name, jaxpr, in_shardings, out_shardings, inner)
    exe = executable(jaxpr, name)
    buffers = [client.put(np.asarray(x, a.dtype), a) for x, a in zip(args, jaxpr.in_avals)]
    outs = [buffer_to_numpy(b, a) for b, a in zip(exe.execute(buffers), jaxpr.out_avals)]
    if config.check_special:  # a nan/inf out: found again equation by equation, as JAX does
        debugging.check_or_rerun(f"jit({name})", outs, lambda: _eval_eagerly(jaxpr, args))
    return outs  # NumPy out


def _eval_eagerly(jaxpr: ClosedJaxpr, args: Sequence[Any]) -> list:
    with core.new_base_main():
        outs = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)
    return [core.to_numpy(x) for x in outs]


core.impl_rules.register(jit_p, _jit_impl)


@stepping.step_rules.register(jit_p)
def _jit_step(where, *args, name, jaxpr, **params):  # step into the jitted program
    return (yield from stepping.step_closed(jaxpr, args, f"{where} > jit {name}".strip()))


@core.abstract_eval_rules.register(jit_p)
def _jit_abstract_eval(*avals, name, jaxpr, **params):
    expected = jaxpr.in_avals
    if len(avals) != len(expected) or not all(map(core.types_match, avals, expected)):
        raise TypeError(
            f"jit[name={name}]: called with arguments of types "
            f"({', '.join(a.str_short() for a in avals)}) but its jaxpr takes "
            f"({', '.join(a.str_short() for a in expected)})"
        )
    return list(jaxpr.out_avals)


@core.jvp_rules.register(jit_p)
def _jit_jvp(primals, tangents, *, name, jaxpr, in_shardings, out_shardings, inline=False):
    nonzeros = tuple(not isinstance(t, Zero) for t in tangents)
    jvp_closed, nonzeros_out = derived(
        jaxpr, ("jvp", nonzeros), lambda: jvp_jaxpr(jaxpr, nonzeros, instantiate=False)
    )
    outs = jit_p.bind(  # a tangent is split as its primal
        *primals,
        *(t for t in tangents if not isinstance(t, Zero)),
        name=name,
        jaxpr=jvp_closed,
        in_shardings=(*in_shardings, *partial_eval.kept(in_shardings, nonzeros)),
        out_shardings=(*out_shardings, *partial_eval.kept(out_shardings, nonzeros_out)),
        inline=inline,
    )
    n = len(jaxpr.out_avals)
    nonzero_tangents = iter(outs[n:])
    tangents_out = [
        next(nonzero_tangents) if nz else Zero(a)
        for nz, a in zip(nonzeros_out, jaxpr.out_avals, strict=True)
    ]
    return outs[:n], tangents_out


@core.vmap_rules.register(jit_p)
def _jit_vmap(axis_size, vals, dims, *, name, jaxpr, in_shardings, out_shardings, inline=False):
    # batched outputs come back along axis 0; unbatched ones stay unbatched (as in JAX, so
    # that `jacfwd` of a jitted function keeps its primal output unbatched)
    def batch() -> tuple[ClosedJaxpr, list]:
        found = batched_out_dims(jaxpr, axis_size, dims)
        out_dims = [None if d is None or d is core.NOT_MAPPED else 0 for d in found]
        return vmap_jaxpr(jaxpr, axis_size, dims, out_dims), out_dims

    batched, out_dims = derived(jaxpr, ("vmap", axis_size, tuple(dims)), batch)
    outs = jit_p.bind(
        *vals,
        name=name,
        jaxpr=batched,
        in_shardings=tuple(map(_batched_sharding, in_shardings, dims, _ranks(batched.in_avals))),
        out_shardings=tuple(
            map(_batched_sharding, out_shardings, out_dims, _ranks(batched.out_avals))
        ),
        inline=inline,
    )
    return outs, [core.NOT_MAPPED if d is None else d for d in out_dims]


def _ranks(avals: Sequence[core.ShapedArray]) -> list[int]:
    return [a.ndim for a in avals]


# A nested jit is a private function of the module, called where the equation was; an inline
# one (`jit(f, inline=True)`, as didax.numpy's helpers are) is lowered in place, as in JAX.
# In a partitioned program its shardings annotate the function's arguments and results.
@core.lowering_rules.register(jit_p)
def _jit_lowering(ctx, *args, name, jaxpr, in_shardings, out_shardings, inline=False):
    module = ctx.module
    ins = _texts(in_shardings, jaxpr.in_avals, module.device_assignment)
    outs = _texts(out_shardings, jaxpr.out_avals, module.device_assignment)
    if inline:
        args = [x if t is None else module.sharding_annotation(x, t) for x, t in zip(args, ins)]
        results = ctx.lower_jaxpr(jaxpr, args)
        return [x if t is None else module.sharding_annotation(x, t) for x, t in zip(results, outs)]
    return module.call_function(name, jaxpr, args, ins, outs)


def _texts(shardings: tuple, avals: Sequence[core.ShapedArray], devices: Any) -> tuple:
    # the HLO sharding of each value given one, in a partitioned program (one device: none)
    if devices is None:
        return (None,) * len(avals)
    return tuple(
        None if s is UNSPECIFIED else lowering.sharding_text(s, a.ndim, devices)
        for s, a in zip(shardings, avals, strict=True)
    )


@pp_params_rules.register(jit_p)
def _jit_pp(params):
    # JAX prints the name, then the other params sorted: shardings only when one is given
    # (not `inline`)
    shown = [("jaxpr", params["jaxpr"])]
    for key in ("in_shardings", "out_shardings"):
        if _given(params[key]):
            shown.append((key, _tuple_text(params[key])))
    return [("name", params["name"]), *sorted(shown, key=lambda kv: kv[0])]


def _tuple_text(shardings: tuple) -> str:
    return f"({', '.join(map(repr, shardings))}{',' if len(shardings) == 1 else ''})"


@pp_eqn_rules.register(jit_p)
def _jit_pp_eqn(printer, eqn, unused):
    # JAX names an inline jit's inner variables after the outer ones (unless the inner jaxpr
    # is printed once, up front, as a shared `let`)
    inner = eqn.params["jaxpr"]
    inner = inner.jaxpr if isinstance(inner, ClosedJaxpr) else inner
    lhs = printer.lhs(eqn, unused)  # the outer outvars are named first
    if id(inner) not in printer.shared:
        names = printer.names
        passed: set[Var] = set()  # an outer variable passed twice names one inner var
        for outer, var in zip(eqn.invars, inner.invars, strict=True):
            if not isinstance(outer, Literal) and outer not in passed:
                passed.add(outer)
                names.names.setdefault(var, names[outer])
        for outer, var in zip(eqn.outvars, inner.outvars, strict=True):
            if not isinstance(var, Literal) and var not in names.names:
                names.names[var] = "_" if outer in unused else names[outer]  # as JAX prints
    return printer.default_eqn(eqn, unused, lhs)


# Reverse mode: the known part of a jit runs as one jit (outputs, then residuals), the unknown
# part is staged as another; transposing a jit is a jit of the transposed jaxpr. So grad of a
# jitted function keeps one compiled call forward and one backward, as in JAX. Residuals have
# no sharding given; the other values keep theirs.
@partial_eval.partial_eval_jaxpr_rules.register(jit_p)
def _jit_partial_eval(unks_in, eqn):
    name, jaxpr = eqn.params["name"], eqn.params["jaxpr"]
    in_s, out_s = eqn.params["in_shardings"], eqn.params["out_shardings"]
    inline = eqn.params.get("inline", False)
    known, unknown, unks_out, forwarded = derived(
        jaxpr, ("partial_eval", tuple(unks_in)), lambda: _split(jaxpr, unks_in)
    )
    knowns = [not unk for unk in unks_in]
    ins_known = [x for x, k in zip(eqn.invars, knowns, strict=True) if k]
    ins_unknown = [x for x, unk in zip(eqn.invars, unks_in, strict=True) if unk]
    n_computed = sum(f is None for f in forwarded)  # residuals the known jit returns, last
    new_res = iter([Var(a) for a in known.out_avals[len(known.out_avals) - n_computed :]])
    # a residual that is one of the known inputs is passed on directly, not returned
    residuals = [ins_known[f] if f is not None else next(new_res) for f in forwarded]
    computed = [r for r, f in zip(residuals, forwarded, strict=True) if f is None]
    outs_known = [v for v, unk in zip(eqn.outvars, unks_out, strict=True) if not unk]
    outs_unknown = [v for v, unk in zip(eqn.outvars, unks_out, strict=True) if unk]
    eqn_known = eqn_unknown = None
    if outs_known or computed:
        known_out_s = partial_eval.kept(out_s, [not unk for unk in unks_out]) + unspecified(
            len(computed)
        )
        eqn_known = JaxprEqn(
            jit_p,
            ins_known,
            [*outs_known, *computed],
            {
                "name": name,
                "jaxpr": known,
                "in_shardings": partial_eval.kept(in_s, knowns),
                "out_shardings": known_out_s,
                "inline": inline,
            },
        )
    if outs_unknown:
        eqn_unknown = JaxprEqn(
            jit_p,
            [*residuals, *ins_unknown],
            outs_unknown,
            {
                "name": name,
                "jaxpr": unknown,
                "in_shardings": unspecified(len(residuals)) + partial_eval.kept(in_s, unks_in),
                "out_shardings": partial_eval.kept(out_s, unks_out),
                "inline": inline,
            },
        )
    return eqn_known, eqn_unknown, unks_out


@partial_eval.dce_rules.register(jit_p)
def _jit_dce(used_outputs, eqn):
    return partial_eval.prune_call(used_outputs, eqn, ("in_shardings",), ("out_shardings",))


def _split(
    jaxpr: ClosedJaxpr, unks_in: Sequence[bool]
) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], list[int | None]]:
    """`partial_eval_jaxpr`, with residuals that are just known inputs taken out of the known
    jaxpr's outputs (as JAX forwards them): for each residual, the index of the known input
    it is, or None when the known jaxpr computes it."""
    known, unknown, unks_out, num_res = partial_eval.partial_eval_jaxpr(jaxpr, unks_in)
    k = known.jaxpr
    n_out = len(k.outvars) - num_res
    forwarded = [
        k.invars.index(v) if isinstance(v, Var) and v in k.invars else None
        for v in k.outvars[n_out:]
    ]
    if any(f is not None for f in forwarded):
        outvars = k.outvars[:n_out] + [
            v for v, f in zip(k.outvars[n_out:], forwarded, strict=True) if f is None
        ]
        known = ClosedJaxpr(Jaxpr(k.constvars, k.invars, outvars, k.eqns), known.consts)
    return known, unknown, unks_out, forwarded


@core.transpose_rules.register(jit_p)
def _jit_transpose(cts, *args, name, jaxpr, in_shardings, out_shardings, inline=False):
    linear = tuple(isinstance(x, core.UndefinedPrimal) for x in args)
    ct_nonzero = tuple(not isinstance(ct, Zero) for ct in cts)
    transposed = derived(
        jaxpr,
        ("transpose", linear, ct_nonzero),
        lambda: transpose.transpose_jaxpr(jaxpr, linear, ct_nonzero),
    )
    residuals = [x for x, lin in zip(args, linear, strict=True) if not lin]
    outs = iter(
        jit_p.bind(  # a cotangent is split as the value it is the cotangent of
            *residuals,
            *(ct for ct in cts if not isinstance(ct, Zero)),
            name=name,
            jaxpr=transposed,
            in_shardings=(
                *partial_eval.kept(in_shardings, [not lin for lin in linear]),
                *partial_eval.kept(out_shardings, ct_nonzero),
            ),
            out_shardings=partial_eval.kept(in_shardings, linear),
            inline=inline,
        )
    )
    return [next(outs) if lin else None for lin in linear]
