"""Partial evaluation: run what is known now, stage what is not; `linearize` is jvp + this.

Layer 3, after vmap (autodidax part 4, "Partial evaluation"; seed 003, "linearize"). A
`PartialEvalTracer` carries a `PartialVal`: a *known* value, computed at once by the
interpreters below, or an *unknown* one, of which only the aval is known. `PartialEvalTrace`
evaluates a primitive whose operands are all known, and otherwise records it as an equation of
the jaxpr being built; known operands of a recorded equation become its constants (residuals).
`linearize_flat` pushes unknown tangents through `jvp_flat` under this trace: the primal
computation runs, the tangent computation -- linear in the tangents -- becomes a jaxpr.

Instead of autodidax's graph of recipes, equations are appended to a builder in the order they
are made (a topological order) and the finished jaxpr keeps only those that its outputs need.
`partial_eval_jaxpr` splits a jaxpr in two the same way. Higher-order primitives (jit, cond,
scan) register one rule in `partial_eval_jaxpr_rules`, which serves both: the trace applies it
to a one-equation jaxpr, binding the known half and recording the unknown half.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from didax import core, dtypes
from didax import source_info as si
from didax.core import ShapedArray, Zero
from didax.interpreters import jvp as jvp_interp
from didax.jaxpr import (
    Atom,
    ClosedJaxpr,
    Jaxpr,
    JaxprEqn,
    Literal,
    Var,
    dce_jaxpr,
    eqn_has_effects,
    literal,
)

# --------------------------------------------------------------------------- rules

# rule(unks_in, eqn) -> (eqn_known | None, eqn_unknown | None, unks_out)
#   unks_in:     for each eqn.invars, whether it is unknown.
#   eqn_known:   reads only known invars of `eqn`; writes every outvar of `eqn` whose entry
#                in unks_out is False, then any new residual Vars.
#   eqn_unknown: reads residuals (eqn_known's extra outvars) and any invars of `eqn` (known
#                ones become residuals themselves); writes the outvars whose unks_out is True.
#   unks_out:    for each eqn.outvars, whether it is unknown.
# The same rule serves trace-time partial evaluation (`PartialEvalTrace`): the trace binds
# eqn_known's primitive on the known values and records eqn_unknown. A rule may give
# eqn_known as a list of equations run in order (remat2 inlines its known half, as JAX does).
PartialEvalJaxprRule = Callable[..., tuple]
partial_eval_jaxpr_rules: core.RuleTable[PartialEvalJaxprRule] = core.RuleTable(
    "partial_eval_jaxpr"
)

# rule(trace, tracers, **params) -> output tracers: a higher-order primitive that splits
# itself under the trace, checked before `partial_eval_jaxpr_rules` (remat: its known half
# is evaluated inline, equation by equation, where a jaxpr rule could only bind one equation).
PartialEvalTraceRule = Callable[..., list]
partial_eval_trace_rules: core.RuleTable[PartialEvalTraceRule] = core.RuleTable(
    "partial_eval_trace"
)

# rule(used_outputs, eqn) -> (used_inputs, eqn | None): a higher-order equation giving only
# its used outputs, its body pruned to them, and which of its inputs it still reads (None:
# the equation goes). Linearization prunes its linear program with these, as JAX's
# `pe.dce_rules` do: a tangent no output needs leaves no residual in a body behind.
DceRule = Callable[[list[bool], JaxprEqn], tuple[list[bool], "JaxprEqn | None"]]
dce_rules: core.RuleTable[DceRule] = core.RuleTable("dce")


def prune_eqns(eqns: Sequence[JaxprEqn], outvars: Sequence[Atom]) -> list[JaxprEqn]:
    """`live_eqns`, with each equation that has a `dce_rules` rule cut to what is used."""
    live = {x for x in outvars if isinstance(x, Var)}
    kept = []
    for eqn in reversed(eqns):
        used = [v in live for v in eqn.outvars]
        if eqn.primitive in dce_rules and any(used) and not eqn_has_effects(eqn):
            eqn = dce_rules[eqn.primitive](used, eqn)[1]
        elif not any(used) and not eqn_has_effects(eqn):
            continue
        if eqn is not None:
            kept.append(eqn)
            live.update(x for x in eqn.invars if isinstance(x, Var))
    kept.reverse()
    return kept


def prune_jaxpr(jaxpr: Jaxpr, used_outputs: Sequence[bool]) -> tuple[Jaxpr, list[bool]]:
    """`dce_jaxpr` with the equations pruned by `prune_eqns`."""
    return dce_jaxpr(jaxpr, used_outputs, prune=prune_eqns)


def prune_call(
    used_outputs: list[bool], eqn: JaxprEqn, in_params: Sequence[str], out_params: Sequence[str]
) -> tuple[list[bool], JaxprEqn]:
    """The dce rule of an equation with one body (`params["jaxpr"]`, jit's, shard_map's): the
    body cut to the used outputs, and the params named in `in_params` (`out_params`), one
    entry per input (output), cut alike."""
    closed = eqn.params["jaxpr"]
    body, used_inputs = prune_jaxpr(closed.jaxpr, used_outputs)
    consts = dict(zip(closed.jaxpr.constvars, closed.consts, strict=True))
    params = {**eqn.params, "jaxpr": ClosedJaxpr(body, [consts[v] for v in body.constvars])}
    params.update({k: kept(params[k], used_inputs) for k in in_params})
    params.update({k: kept(params[k], used_outputs) for k in out_params})
    invars, outvars = kept(eqn.invars, used_inputs), kept(eqn.outvars, used_outputs)
    return used_inputs, eqn._replace(invars=list(invars), outvars=list(outvars), params=params)


def kept(xs: Sequence[Any], keep: Sequence[bool]) -> tuple:
    """The `xs` whose entry in `keep` is true."""
    return tuple(x for x, k in zip(xs, keep, strict=True) if k)


# --------------------------------------------------------------------------- partial values


class PartialVal(NamedTuple):
    """A value known now (`const`), or unknown until later (`const is None`)."""

    aval: ShapedArray
    const: Any

    @classmethod
    def known(cls, val: Any) -> PartialVal:
        return PartialVal(core.get_aval(val), val)

    @classmethod
    def unknown(cls, aval: ShapedArray) -> PartialVal:
        return PartialVal(aval, None)

    @property
    def is_known(self) -> bool:
        return self.const is not None


class PartialEvalTracer(core.Tracer):
    __slots__ = ("pval", "atom")
    stands_for_linear_tangent = True  # a JVPTracer holding one prints as JAX's GradTracer

    def __init__(self, trace: PartialEvalTrace, pval: PartialVal, atom: Atom | None) -> None:
        self._trace = trace
        self.pval = pval
        self.atom = atom  # the variable or literal standing for an unknown value

    @property
    def aval(self) -> ShapedArray:
        return self.pval.aval

    def full_lower(self) -> Any:
        return core.full_lower(self.pval.const) if self.pval.is_known else self

    def to_concrete_value(self) -> Any:
        return core.concrete_value(self.pval.const) if self.pval.is_known else None


class PartialEvalBuilder:
    """The unknown part under construction: its equations, in the order they were made, and
    the constants (residuals) they read."""

    def __init__(self) -> None:
        self.eqns: list[JaxprEqn] = []
        self.constvals: dict[Var, Any] = {}
        self.const_atoms: dict[int, Atom] = {}  # id(known value) -> its constvar or literal
        self.consts_seen: list[Any] = []  # keeps known values alive so their ids stay unique


class PartialEvalTrace(core.Trace):
    @property
    def builder(self) -> PartialEvalBuilder:
        return self.main.global_data

    def new_arg(self, pval: PartialVal) -> PartialEvalTracer:
        if pval.is_known:
            return PartialEvalTracer(self, pval, None)
        return PartialEvalTracer(self, pval, Var(pval.aval))

    def lift(self, val: Any) -> PartialEvalTracer:
        return PartialEvalTracer(self, PartialVal.known(val), None)

    def instantiate_const(self, tracer: PartialEvalTracer) -> PartialEvalTracer:
        if not tracer.pval.is_known:
            return tracer
        return PartialEvalTracer(
            self, PartialVal.unknown(tracer.aval), self._const_atom(tracer.pval.const)
        )

    def _const_atom(self, val: Any) -> Atom:
        builder = self.builder
        atom = builder.const_atoms.get(id(val))
        if atom is None:
            aval = core.get_aval(val)
            if aval.shape == () and not isinstance(val, core.Tracer):  # scalars inline
                scalar = (
                    val if type(val) in (bool, int, float, complex) else core.to_numpy(val).item()
                )
                atom = literal(scalar, aval)
            else:
                atom = Var(aval)
                builder.constvals[atom] = val
            builder.const_atoms[id(val)] = atom
            builder.consts_seen.append(val)
        return atom

    def process_primitive(self, primitive, tracers, params):
        if all(t.pval.is_known for t in tracers):
            return core.bind(primitive, [t.pval.const for t in tracers], params)
        if primitive in partial_eval_trace_rules:
            return partial_eval_trace_rules[primitive](self, tracers, **params)
        if primitive in partial_eval_jaxpr_rules:
            return self._process_with_rule(primitive, tracers, params)
        return self.stage(primitive, tracers, params)

    def stage(
        self,
        primitive: core.Primitive,
        tracers: Sequence[PartialEvalTracer],
        params: dict[str, Any],
    ) -> list[PartialEvalTracer]:
        """Record `primitive` applied to `tracers` (known ones become constants)."""
        tracers_in = [self.instantiate_const(t) for t in tracers]
        avals_out = core.abstract_eval_rules[primitive](*(t.aval for t in tracers_in), **params)
        outvars = [Var(a) for a in avals_out]
        invars = [t.atom for t in tracers_in]
        d = self.main.deriving  # what a transformation running a rule says it derives from
        eqns = self.builder.eqns
        eqns.append(JaxprEqn(primitive, invars, outvars, params, si.current(), d.current))
        outs = [PartialEvalTracer(self, PartialVal.unknown(v.aval), v) for v in outvars]
        if d.current is not None:
            d.log.append((eqns, len(eqns) - 1, outs))
        return outs

    def _known_value(self, x: Any) -> Any:
        if isinstance(x, PartialEvalTracer) and x._trace.main is self.main:
            assert x.pval.is_known, "partial eval rule: the known equation reads an unknown"
            return x.pval.const
        return x

    def _process_with_rule(self, primitive, tracers, params):
        # Apply the jaxpr rule to a one-equation jaxpr standing for this application.
        avals_out = core.abstract_eval_rules[primitive](*(t.aval for t in tracers), **params)
        invars = [Var(t.aval) for t in tracers]
        eqn = JaxprEqn(primitive, invars, [Var(a) for a in avals_out], params)
        unks_in = [not t.pval.is_known for t in tracers]
        eqn_known, eqn_unknown, unks_out = partial_eval_jaxpr_rules[primitive](unks_in, eqn)
        env: dict[Var, Any] = dict(zip(invars, tracers, strict=True))

        def read(x: Atom) -> Any:
            return x.value if isinstance(x, Literal) else env[x]

        for known_eqn in as_eqns(eqn_known):
            known_in = [self._known_value(read(x)) for x in known_eqn.invars]
            outs = core.bind(known_eqn.primitive, known_in, known_eqn.params)
            env.update(zip(known_eqn.outvars, outs, strict=True))
        if eqn_unknown is not None:
            ins = [self.full_raise(read(x)) for x in eqn_unknown.invars]
            outs = self.stage(eqn_unknown.primitive, ins, eqn_unknown.params)
            env.update(zip(eqn_unknown.outvars, outs, strict=True))
        assert all(v in env for v in eqn.outvars), f"{primitive}: pe rule dropped an output"
        return [env[v] for v in eqn.outvars]


def partial_eval_flat(
    fn: Callable[..., Sequence[Any]],
    pvals_in: Sequence[PartialVal],
    instantiate: bool | Sequence[bool] = False,
) -> tuple[ClosedJaxpr, list[PartialVal]]:
    """Run `fn` (flat lists in and out) on partly known inputs. Returns the jaxpr of the
    unknown part -- unknown inputs to unknown outputs, reading known values as constants --
    and the outputs as PartialVals (known ones carry their value). Outputs marked in
    `instantiate` come out unknown even when they are known."""
    __tracebackhide__ = True  # engine frame: IPython leaves it out of tracebacks
    builder = PartialEvalBuilder()
    with core.new_main(PartialEvalTrace, builder) as main:
        trace = main.trace
        tracers_in = [trace.new_arg(pval) for pval in pvals_in]
        outs = [trace.full_raise(out) for out in fn(*tracers_in)]
        if isinstance(instantiate, bool):
            instantiate = [instantiate] * len(outs)
        outs = [
            trace.instantiate_const(t) if inst else t
            for t, inst in zip(outs, instantiate, strict=True)
        ]
        pvals_out = [
            PartialVal(t.aval, core.full_lower(t.pval.const)) if t.pval.is_known else t.pval
            for t in outs
        ]
        invars = [t.atom for t in tracers_in if not t.pval.is_known]
        outvars = [t.atom for t in outs if not t.pval.is_known]
        return _build(builder, invars, outvars), pvals_out


def _build(builder: PartialEvalBuilder, invars: list[Var], outvars: list[Atom]) -> ClosedJaxpr:
    eqns = prune_eqns(builder.eqns, outvars)
    used = {x for e in eqns for x in e.invars if isinstance(x, Var)}
    used.update(x for x in outvars if isinstance(x, Var))
    constvars = [v for v in builder.constvals if v in used]
    jaxpr = Jaxpr(constvars, invars, outvars, eqns)
    return ClosedJaxpr(jaxpr, [builder.constvals[v] for v in constvars])


# --------------------------------------------------------------------------- jaxprs


def partial_eval_jaxpr(
    closed: ClosedJaxpr, unknowns: Sequence[bool], instantiate: bool | Sequence[bool] = False
) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], int]:
    """Split `closed` into a known and an unknown jaxpr.

    If `closed` maps (a1, a2) -> (b1, b2), where a2 are the inputs marked in `unknowns` and b2
    the outputs that depend on them (or are marked in `instantiate`), returns
    `known: a1 -> (b1, residuals)`, `unknown: (residuals, a2) -> b2`, which outputs are
    unknown, and the number of residuals. Used by the rules of higher-order primitives.
    """
    jaxpr = closed.jaxpr
    n_out = len(jaxpr.outvars)
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * n_out
    unknown: dict[Var, bool] = {v: False for v in jaxpr.constvars}
    unknown.update(zip(jaxpr.invars, unknowns, strict=True))

    def is_unknown(x: Atom) -> bool:
        return isinstance(x, Var) and unknown[x]

    known_eqns: list[JaxprEqn] = []
    unknown_eqns: list[JaxprEqn] = []
    for eqn in jaxpr.eqns:
        unks_in = [is_unknown(x) for x in eqn.invars]
        if not any(unks_in):
            known_eqns.append(eqn)
            unknown.update((v, False) for v in eqn.outvars)
        elif eqn.primitive in partial_eval_jaxpr_rules:
            eqn_known, eqn_unknown, _ = partial_eval_jaxpr_rules[eqn.primitive](unks_in, eqn)
            eqn_unknown = _sourced(eqn_unknown, eqn)
            for known_eqn in as_eqns(eqn_known):
                known_eqns.append(_sourced(known_eqn, eqn))
                unknown.update((v, False) for v in known_eqn.outvars)
            if eqn_unknown is not None:
                unknown_eqns.append(eqn_unknown)
                unknown.update((v, True) for v in eqn_unknown.outvars)
        else:
            unknown_eqns.append(eqn)
            unknown.update((v, True) for v in eqn.outvars)

    out_unknowns = [
        is_unknown(x) or inst for x, inst in zip(jaxpr.outvars, instantiate, strict=True)
    ]
    unknown_outs = [x for x, u in zip(jaxpr.outvars, out_unknowns, strict=True) if u]
    unknown_eqns = prune_eqns(unknown_eqns, unknown_outs)
    residuals: dict[Var, None] = {}  # ordered set: known vars the unknown side reads
    for x in [*(x for e in unknown_eqns for x in e.invars), *unknown_outs]:
        if isinstance(x, Var) and not unknown[x]:
            residuals[x] = None
    res = list(residuals)
    known_ins = [v for v, u in zip(jaxpr.invars, unknowns, strict=True) if not u]
    unknown_ins = [v for v, u in zip(jaxpr.invars, unknowns, strict=True) if u]
    known_outs = [x for x, u in zip(jaxpr.outvars, out_unknowns, strict=True) if not u]
    known_jaxpr, _ = dce_jaxpr(
        Jaxpr(jaxpr.constvars, known_ins, [*known_outs, *res], known_eqns),
        [True] * (len(known_outs) + len(res)),
        instantiate=True,
        prune=prune_eqns,
    )
    const_of = dict(zip(jaxpr.constvars, closed.consts, strict=True))
    known = ClosedJaxpr(known_jaxpr, [const_of[v] for v in known_jaxpr.constvars])
    unknown_jaxpr = Jaxpr([], [*res, *unknown_ins], unknown_outs, unknown_eqns)
    return known, ClosedJaxpr(unknown_jaxpr, []), out_unknowns, len(res)


def as_eqns(eqn_known: JaxprEqn | list[JaxprEqn] | None) -> list[JaxprEqn]:
    """A partial_eval_jaxpr rule's known half as a list of equations (maybe empty)."""
    if eqn_known is None:
        return []
    return eqn_known if isinstance(eqn_known, list) else [eqn_known]


def _sourced(new: JaxprEqn | None, old: JaxprEqn) -> JaxprEqn | None:
    # the halves a rule splits an equation into come from the equation's line, and derive
    # from what it derives from
    if new is None:
        return new
    if new.source_info is None:
        new = new._replace(source_info=old.source_info)
    return new if new.derivation is not None else new._replace(derivation=old.derivation)


# --------------------------------------------------------------------------- linearize


def linearize_flat(
    fn: Callable[..., Sequence[Any]], primals: Sequence[Any]
) -> tuple[list[Any], ClosedJaxpr, list[bool], list[bool]]:
    """Evaluate `fn` at `primals` and stage its linear part (jvp + partial evaluation).

    Returns the primal outputs; the linear jaxpr, from the tangents of the floating-point
    inputs to the tangents of the outputs that can be nonzero (its constants are the
    residuals); which inputs it takes; and which outputs it gives. The other outputs' tangents
    are zero. Like `jax.linearize` on flat lists.
    """
    __tracebackhide__ = True
    builder = PartialEvalBuilder()
    in_linear = [dtypes.is_float(core.get_aval(x).dtype) for x in primals]
    with core.new_main(PartialEvalTrace, builder) as main:
        trace = main.trace
        tangents_in = [
            trace.new_arg(PartialVal.unknown(core.get_aval(x))) if lin else Zero.like(x)
            for x, lin in zip(primals, in_linear, strict=True)
        ]
        primals_out, tangents_out = jvp_interp.jvp_flat(fn, primals, tangents_in, instantiate=False)
        for x in primals_out:
            if isinstance(x, PartialEvalTracer) and x._trace.main is main:
                raise ValueError(  # JAX's error: e.g. the generic reduce_window's jvp
                    "Linearization failed to produce known values for all output primals. "
                    "This is typically caused by attempting to differentiate a function uses "
                    "an operation that does not support reverse-mode autodiff."
                )
        # A tangent output that is known is constant in the tangents, so (being linear) zero.
        out_nonzero = [
            isinstance(t, PartialEvalTracer) and t._trace.main is main and not t.pval.is_known
            for t in tangents_out
        ]
        invars = [t.atom for t in tangents_in if isinstance(t, PartialEvalTracer)]
        outvars = [t.atom for t, nz in zip(tangents_out, out_nonzero, strict=True) if nz]
        return list(primals_out), _build(builder, invars, outvars), in_linear, out_nonzero
