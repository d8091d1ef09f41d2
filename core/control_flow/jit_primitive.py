"""The `jit` primitive, `jit_p`, and its rules; the per-jaxpr cache of what they derive.

Layer 4 (autodidax part 3, "Adding jit"; seed 003, jit as the `xla_call` primitive).
Under an outer transformation `jit` binds `jit_p[name, jaxpr]`, one equation whose rules
transform the inner jaxpr (`jvp_jaxpr`, `vmap_jaxpr`, partial evaluation, transposition)
into a new `jit` equation; evaluated, it compiles its jaxpr once (`executable`) and runs it.
The user-facing `jit` and its per-function caches are in `jit.py`; the AOT stages in
`stages.py`.
"""

from __future__ import annotations

import threading
import time
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import backend, core
from didax.core import Zero
from didax.interpreters import lowering, partial_eval, transpose
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

jit_p = core.Primitive("jit", multiple_results=True)

# ----------------------------------------------------------------------------- per-jaxpr caches

# What the rules derive from a `jit` equation's jaxpr (its executable, its jvp and vmap
# jaxprs), kept exactly as long as the jaxpr: transforming or evaluating the same equation
# again (a jitted function called under jvp in a loop) reuses them instead of recompiling.
#
# Where caches live (STYLE.md §4): a `jit` object owns its executable cache (keyed on argument
# types, `CACHE_SIZE` entries). This table is the one module-level cache, and it is not a
# global keyed by object ids: it is a WeakKeyDictionary keyed by the jaxpr objects themselves,
# so an entry is state *of that jaxpr* and dies with it. It must sit here, not on a `jit`
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


def executable(jaxpr: ClosedJaxpr, name: str) -> backend.Executable:
    """The compiled program of `jaxpr` (compiled on first use, then cached with it)."""
    return derived(jaxpr, ("executable",), lambda: compile_jaxpr(jaxpr, name)[0])


def compile_jaxpr(
    jaxpr: ClosedJaxpr, name: str, aliases: Sequence[int | None] = ()
) -> tuple[backend.Executable, dict[str, float]]:
    t0 = time.perf_counter()
    builder = lowering.lower_jaxpr_to_module(jaxpr, name, aliases)
    t1 = time.perf_counter()
    exe = backend.compile_module(
        builder.module, jaxpr.in_avals, jaxpr.out_avals, builder.host_callbacks
    )
    return exe, {"lower": t1 - t0, "compile": time.perf_counter() - t1}


def donation_aliases(jaxpr: ClosedJaxpr, donated: Sequence[bool]) -> list[int | None]:
    """For each input, the output that reuses its buffer, or None. As JAX pairs them: each
    output, in order, takes the first donated input of its shape and dtype not yet taken.
    A donated input no output can use is kept (not deleted), with JAX's warning."""
    waiting: dict[tuple, list[int]] = {}
    for i, (aval, d) in enumerate(zip(jaxpr.in_avals, donated, strict=True)):
        if d:
            waiting.setdefault((aval.shape, aval.dtype), []).append(i)
    aliases: list[int | None] = [None] * len(donated)
    for k, aval in enumerate(jaxpr.out_avals):
        inputs = waiting.get((aval.shape, aval.dtype))
        if inputs:
            aliases[inputs.pop(0)] = k
    unused = [str(a) for a, d, k in zip(jaxpr.in_avals, donated, aliases) if d and k is None]
    if unused:
        warnings.warn(
            f"Some donated buffers were not usable: {', '.join(unused)}.\n"
            "See an explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation.",
            stacklevel=1,  # as JAX
        )
    return aliases


# ----------------------------------------------------------------------------- jit_p rules


def _jit_impl(*args: Any, name: str, jaxpr: ClosedJaxpr, inline: bool = False) -> list:
    # inline: part of its caller's program, evaluated the way the caller is, eagerly; a
    # program holding a shard_map (pmap) runs equation by equation, each shard_map as its
    # own program partitioned over its mesh
    if inline or derived(jaxpr, ("own_program",), lambda: holds_own_program(jaxpr)):
        with core.new_base_main():
            outs = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)
        return [core.to_numpy(x) for x in outs]
    exe = executable(jaxpr, name)
    buffers = [backend.put(np.asarray(x, a.dtype), a) for x, a in zip(args, jaxpr.in_avals)]
    outs = exe.execute(buffers)
    return [backend.buffer_to_numpy(b, a) for b, a in zip(outs, jaxpr.out_avals)]  # NumPy out


core.impl_rules.register(jit_p, _jit_impl)


@core.abstract_eval_rules.register(jit_p)
def _jit_abstract_eval(*avals, name, jaxpr, inline=False):
    expected = jaxpr.in_avals
    if len(avals) != len(expected) or not all(map(core.types_match, avals, expected)):
        raise TypeError(
            f"jit[name={name}]: called with arguments of types "
            f"({', '.join(a.str_short() for a in avals)}) but its jaxpr takes "
            f"({', '.join(a.str_short() for a in expected)})"
        )
    return list(jaxpr.out_avals)


@core.jvp_rules.register(jit_p)
def _jit_jvp(primals, tangents, *, name, jaxpr, inline=False):
    nonzeros = tuple(not isinstance(t, Zero) for t in tangents)
    jvp_closed, nonzeros_out = derived(
        jaxpr, ("jvp", nonzeros), lambda: jvp_jaxpr(jaxpr, nonzeros, instantiate=False)
    )
    outs = jit_p.bind(
        *primals,
        *(t for t in tangents if not isinstance(t, Zero)),
        name=name,
        jaxpr=jvp_closed,
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
def _jit_vmap(axis_size, vals, dims, *, name, jaxpr, inline=False):
    # batched outputs come back along axis 0; unbatched ones stay unbatched (as in JAX, so
    # that `jacfwd` of a jitted function keeps its primal output unbatched)
    def batch() -> tuple[ClosedJaxpr, list]:
        found = batched_out_dims(jaxpr, axis_size, dims)
        out_dims = [None if d is None or d is core.NOT_MAPPED else 0 for d in found]
        return vmap_jaxpr(jaxpr, axis_size, dims, out_dims), out_dims

    batched, out_dims = derived(jaxpr, ("vmap", axis_size, tuple(dims)), batch)
    outs = jit_p.bind(*vals, name=name, jaxpr=batched, inline=inline)
    return outs, [core.NOT_MAPPED if d is None else d for d in out_dims]


# A nested jit is a private function of the module, called where the equation was; an inline
# one (`jit(f, inline=True)`, as didax.numpy's helpers are) is lowered in place, as in JAX.
@core.lowering_rules.register(jit_p)
def _jit_lowering(ctx, *args, name, jaxpr, inline=False):
    if inline:
        return ctx.lower_jaxpr(jaxpr, args)
    return ctx.module.call_function(name, jaxpr, args)


@pp_params_rules.register(jit_p)
def _jit_pp(params):  # JAX prints the name, then the jaxpr; nothing else (not `inline`)
    return [("name", params["name"]), ("jaxpr", params["jaxpr"])]


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
            if not isinstance(var, Literal) and var not in names.names and outer not in unused:
                names.names[var] = names[outer]
    return printer.default_eqn(eqn, unused, lhs)


# Reverse mode: the known part of a jit runs as one jit (outputs, then residuals), the unknown
# part is staged as another; transposing a jit is a jit of the transposed jaxpr. So grad of a
# jitted function keeps one compiled call forward and one backward, as in JAX.
@partial_eval.partial_eval_jaxpr_rules.register(jit_p)
def _jit_partial_eval(unks_in, eqn):
    name, jaxpr = eqn.params["name"], eqn.params["jaxpr"]
    inline = eqn.params.get("inline", False)
    known, unknown, unks_out, forwarded = derived(
        jaxpr, ("partial_eval", tuple(unks_in)), lambda: _split(jaxpr, unks_in)
    )
    ins_known = [x for x, unk in zip(eqn.invars, unks_in, strict=True) if not unk]
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
        eqn_known = JaxprEqn(
            jit_p,
            ins_known,
            [*outs_known, *computed],
            {"name": name, "jaxpr": known, "inline": inline},
        )
    if outs_unknown:
        eqn_unknown = JaxprEqn(
            jit_p,
            [*residuals, *ins_unknown],
            outs_unknown,
            {"name": name, "jaxpr": unknown, "inline": inline},
        )
    return eqn_known, eqn_unknown, unks_out


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
def _jit_transpose(cts, *args, name, jaxpr, inline=False):
    linear = tuple(isinstance(x, core.UndefinedPrimal) for x in args)
    ct_nonzero = tuple(not isinstance(ct, Zero) for ct in cts)
    transposed = derived(
        jaxpr,
        ("transpose", linear, ct_nonzero),
        lambda: transpose.transpose_jaxpr(jaxpr, linear, ct_nonzero),
    )
    residuals = [x for x, lin in zip(args, linear, strict=True) if not lin]
    outs = iter(
        jit_p.bind(
            *residuals,
            *(ct for ct in cts if not isinstance(ct, Zero)),
            name=name,
            jaxpr=transposed,
            inline=inline,
        )
    )
    return [next(outs) if lin else None for lin in linear]
