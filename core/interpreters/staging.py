"""Staging: trace a Python function to a jaxpr (`make_jaxpr`, and `jit`'s first step).

Layer 3 (autodidax part 3, "Building jaxprs with tracing"; "omnistaging"). A `JaxprTracer`
stands for a variable of the jaxpr being built; `JaxprTrace` records each primitive
application as an equation in a `JaxprBuilder`, computing output types with the
abstract-eval rules. The trace is *dynamic*: every primitive bound while it is active is
staged, even ones applied to constants only (omnistaging). Closed-over arrays become
constvars; scalar constants become typed literals. In a `shard_map(check_vma=True)` body
the trace casts invariant operands to varying ones by the rules of `didax.vma`, with the
casts didax.parallel declares there: the interpreters import no collective.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import core, dtypes, typed_sharding, vma
from didax import source_info as si
from didax.config import config
from didax.core import ShapedArray, ShardedArray
from didax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, literal


class JaxprTracer(core.Tracer):
    """A variable of the jaxpr being built: its type, and the `Var` (or `Literal`) that
    equations reading it will name."""

    __slots__ = ("aval", "jaxpr_var")  # not `var`: that is the `x.var()` method

    def __repr__(self) -> str:  # as JAX 0.10.2 prints the tracer of jit and make_jaxpr
        return f"JitTracer({self.aval})"

    def __init__(self, trace: JaxprTrace, aval: ShapedArray, var: Var | Literal) -> None:
        self._trace = trace
        self.aval = aval
        self.jaxpr_var = var


class JaxprBuilder:
    """The jaxpr under construction: equations, and the constants captured so far."""

    def __init__(self) -> None:
        self.eqns: list[JaxprEqn] = []
        self.const_tracers: dict[int, JaxprTracer] = {}  # id(constant) -> its tracer
        self.constvals: dict[Var, Any] = {}
        self.consts_seen: list[Any] = []  # keeps constants alive so their ids stay unique

    def new_tracer(self, trace: JaxprTrace, aval: ShapedArray) -> JaxprTracer:
        """A tracer for a fresh variable of type `aval`."""
        return JaxprTracer(trace, aval, Var(aval))

    def add_const(self, trace: JaxprTrace, val: Any) -> JaxprTracer:
        tracer = self.const_tracers.get(id(val))
        if tracer is not None:
            return tracer
        aval = core.get_aval(val)
        if aval.shape == () and not isinstance(val, core.Tracer) and not core.is_ref(val):
            # Scalars become literals, printed in place: nothing to share, so nothing to
            # remember (a chain `x * 1.5` staged 1,000 times keeps no 1,000 constants alive).
            return JaxprTracer(trace, aval, literal(_scalar_value(val), aval))
        tracer = self.new_tracer(trace, aval)
        self.constvals[tracer.jaxpr_var] = val
        self.const_tracers[id(val)] = tracer
        self.consts_seen.append(val)
        return tracer

    def build(
        self, in_tracers: Sequence[JaxprTracer], out_tracers: Sequence[JaxprTracer]
    ) -> ClosedJaxpr:
        constvars = list(self.constvals)
        jaxpr = Jaxpr(
            constvars,
            [t.jaxpr_var for t in in_tracers],
            [t.jaxpr_var for t in out_tracers],
            list(self.eqns),
        )
        return ClosedJaxpr(jaxpr, [self.constvals[v] for v in constvars])


@functools.cache  # bounded: one entry per NumPy scalar type and x64 flag (a few dozen)
def _scalar_aval(scalar_type: type, x64: bool) -> ShapedArray:
    """The type of a staged NumPy scalar: one per scalar type and x64 flag (a literal beside
    every other equation is common, and an aval is immutable)."""
    return ShapedArray((), dtypes.canonicalize(scalar_type), False)


def _scalar_value(val: Any) -> Any:
    if type(val) in (bool, int, float, complex):
        return val
    return np.asarray(core.to_numpy(val)).item()


class JaxprTrace(core.Trace):
    def __init__(self, main: core.MainTrace) -> None:
        super().__init__(main)
        self.builder: JaxprBuilder = main.global_data

    def new_arg(self, aval: ShapedArray) -> JaxprTracer:
        return self.builder.new_tracer(self, aval)

    def lift(self, val: Any) -> JaxprTracer:
        if isinstance(val, np.generic):  # `x * 1.5` beside a strong array (promotion.py)
            # (`val.item()` is already what `literal` would keep for the aval's dtype)
            aval = _scalar_aval(type(val), config.enable_x64)
            return JaxprTracer(self, aval, Literal(val.item(), aval))
        return self.builder.add_const(self, val)

    def process_primitive(self, primitive, tracers, params, avals_out=None):
        avals_in = [t.aval for t in tracers]
        if avals_out is None:  # (a subclass may have computed them)
            avals_out = core.abstract_eval_rules[primitive](*avals_in, **params)
        for aval in avals_in:
            if type(aval) is ShardedArray:  # split over Explicit mesh axes: typed so
                avals_out = typed_sharding.result_avals(primitive, avals_in, avals_out, params)
                break
        outvars = [Var(a) for a in avals_out]
        derivation = self.main.deriving.current  # set by a transformation running a rule
        eqn = JaxprEqn(
            primitive, [t.jaxpr_var for t in tracers], outvars, params, si.current(), derivation
        )
        eqns = self.builder.eqns
        eqns.append(eqn)
        outs = [JaxprTracer(self, v.aval, v) for v in outvars]
        if derivation is not None:  # the transformation sorts what its rule emitted
            self.main.deriving.log.append((eqns, len(eqns) - 1, outs))
        return outs


class VaryingJaxprTrace(JaxprTrace):
    """Staging in a check_vma shard_map's body (or a function called in one), whose types
    say along which mesh axes values vary (`ShapedArray.vma`). A subclass, so that staging
    anywhere else pays nothing for it."""

    def process_primitive(self, primitive, tracers, params):
        needed, vma_out = vma.join(primitive, [t.aval for t in tracers], params)
        tracers = [
            t if need <= t.aval.vma else self._pvary(t, need - t.aval.vma)
            for t, need in zip(tracers, needed, strict=True)
        ]
        avals_out = core.abstract_eval_rules[primitive](*[t.aval for t in tracers], **params)
        avals_out = vma.with_join(avals_out, vma_out)
        return super().process_primitive(primitive, tracers, params, avals_out)

    def _pvary(self, tracer: JaxprTracer, axes: frozenset) -> JaxprTracer:
        (out,) = self.process_primitive(vma.casts().pvary, [tracer], vma.pvary_params(axes))
        return out


def trace_to_jaxpr(
    fn: Callable[..., Sequence[Any]], in_avals: Sequence[ShapedArray]
) -> ClosedJaxpr:
    """Stage `fn` (flat list of arrays in, flat list out) at `in_avals` into a ClosedJaxpr."""
    __tracebackhide__ = True  # engine frame: IPython leaves it out of tracebacks
    builder = JaxprBuilder()
    trace_type = VaryingJaxprTrace if vma.in_check_vma_body() else JaxprTrace
    with core.new_main(trace_type, builder, dynamic=True) as main:
        trace = main.trace
        d = main.deriving  # a new program: its equations derive from nothing until told
        source, current, d.source, d.current = d.source, d.current, None, None
        try:
            tracers_in = [trace.new_arg(aval) for aval in in_avals]
            outs = fn(*tracers_in)
            tracers_out = [trace.full_raise(out) for out in outs]
            return builder.build(tracers_in, tracers_out)
        finally:
            d.source, d.current = source, current
