"""Staging: trace a Python function to a jaxpr (`make_jaxpr`, and `jit`'s first step).

Layer 3 (autodidax part 3, "Building jaxprs with tracing"; "omnistaging"). A `JaxprTracer`
stands for a variable of the jaxpr being built; `JaxprTrace` records each primitive
application as an equation in a `JaxprBuilder`, computing output types with the
abstract-eval rules. The trace is *dynamic*: every primitive bound while it is active is
staged, even ones applied to constants only (omnistaging). Closed-over arrays become
constvars; scalar constants become typed literals.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from didax import core
from didax.core import ShapedArray
from didax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, literal


class JaxprTracer(core.Tracer):
    __slots__ = ("_aval",)

    def __init__(self, trace: JaxprTrace, aval: ShapedArray) -> None:
        self._trace = trace
        self._aval = aval

    @property
    def aval(self) -> ShapedArray:
        return self._aval


class JaxprBuilder:
    """The jaxpr under construction: equations, and a variable for each tracer/constant."""

    def __init__(self) -> None:
        self.eqns: list[JaxprEqn] = []
        self.tracer_to_var: dict[int, Var] = {}
        self.const_tracers: dict[int, JaxprTracer] = {}  # id(constant) -> its tracer
        self.constvals: dict[Var, Any] = {}
        self.literals: dict[int, Literal] = {}  # id(tracer) -> Literal, for scalar constants
        self.tracers: list[JaxprTracer] = []  # keeps tracers alive so their ids stay unique
        self.consts_seen: list[Any] = []  # keeps constants alive, for the same reason

    def new_tracer(self, trace: JaxprTrace, aval: ShapedArray) -> JaxprTracer:
        tracer = JaxprTracer(trace, aval)
        self.tracers.append(tracer)
        return tracer

    def add_var(self, tracer: JaxprTracer) -> Var:
        var = self.tracer_to_var[id(tracer)] = Var(tracer.aval)
        return var

    def getvar(self, tracer: JaxprTracer) -> Var | Literal:
        lit = self.literals.get(id(tracer))
        if lit is not None:
            return lit
        var = self.tracer_to_var.get(id(tracer))
        if var is None:
            raise core.UnexpectedTracerError(
                f"tracer {tracer!r} does not belong to the jaxpr being built")
        return var

    def add_const(self, trace: JaxprTrace, val: Any) -> JaxprTracer:
        tracer = self.const_tracers.get(id(val))
        if tracer is not None:
            return tracer
        aval = core.get_aval(val)
        tracer = self.new_tracer(trace, aval)
        if aval.shape == () and not isinstance(val, core.Tracer):  # scalars become literals
            self.literals[id(tracer)] = literal(_scalar_value(val), aval)
        else:
            self.constvals[self.add_var(tracer)] = val
        self.const_tracers[id(val)] = tracer
        self.consts_seen.append(val)
        return tracer

    def build(self, in_tracers: Sequence[JaxprTracer], out_tracers: Sequence[Any]
              ) -> ClosedJaxpr:
        constvars = list(self.constvals)
        jaxpr = Jaxpr(constvars, [self.tracer_to_var[id(t)] for t in in_tracers],
                      [self.getvar(t) for t in out_tracers], list(self.eqns))
        return ClosedJaxpr(jaxpr, [self.constvals[v] for v in constvars])


def _scalar_value(val: Any) -> Any:
    if type(val) in (bool, int, float):
        return val
    return np.asarray(core.to_numpy(val)).item()


class JaxprTrace(core.Trace):
    @property
    def builder(self) -> JaxprBuilder:
        return self.main.global_data

    def new_arg(self, aval: ShapedArray) -> JaxprTracer:
        tracer = self.builder.new_tracer(self, aval)
        self.builder.add_var(tracer)
        return tracer

    def lift(self, val: Any) -> JaxprTracer:
        return self.builder.add_const(self, val)

    pure = lift

    def process_primitive(self, primitive, tracers, params):
        avals_in = [t.aval for t in tracers]
        avals_out = core.abstract_eval_rules[primitive](*avals_in, **params)
        out_tracers = [self.builder.new_tracer(self, a) for a in avals_out]
        inputs = [self.builder.getvar(t) for t in tracers]
        outvars = [self.builder.add_var(t) for t in out_tracers]
        self.builder.eqns.append(JaxprEqn(primitive, inputs, outvars, params))
        return out_tracers


def trace_to_jaxpr(fn: Callable[..., Sequence[Any]], in_avals: Sequence[ShapedArray]
                   ) -> ClosedJaxpr:
    """Stage `fn` (flat list of arrays in, flat list out) at `in_avals` into a ClosedJaxpr."""
    __tracebackhide__ = True  # engine frame: IPython leaves it out of tracebacks
    builder = JaxprBuilder()
    with core.new_main(JaxprTrace, builder, dynamic=True) as main:
        trace = JaxprTrace(main)
        tracers_in = [trace.new_arg(aval) for aval in in_avals]
        outs = fn(*tracers_in)
        tracers_out = [trace.full_raise(out) for out in outs]
        return builder.build(tracers_in, tracers_out)
