"""Forward-mode differentiation: the JVP interpreter.

Layer 3 (autodidax part 1, "Forward-mode autodiff with jvp"; autodidax2, "perturbation
confusion"). A `JVPTracer` carries a primal value and its tangent; `JVPTrace` applies each
primitive's jvp rule. Tangents may be symbolic zeros (`core.Zero`): a primitive none of whose
operands has a nonzero tangent is simply applied to the primals. Every `jvp` call pushes its own
main trace, so nested derivatives of closures never confuse their perturbations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from didax import core
from didax import source_info as si
from didax.core import Zero
from didax.interpreters import staging
from didax.jaxpr import ClosedJaxpr, eval_jaxpr
from didax.primitives import ad_helpers


class JVPTracer(core.Tracer):
    __slots__ = ("primal", "tangent")

    def __repr__(self) -> str:  # as JAX 0.10.2 prints it; under grad/linearize, a GradTracer
        if getattr(self.tangent, "stands_for_linear_tangent", False):
            return (
                f"GradTracer(primal={self.primal}, typeof(tangent)={self.tangent.aval.str_short()})"
            )
        return f"JVPTracer(primal={self.primal}, tangent={self.tangent})"

    def __init__(self, trace: JVPTrace, primal: Any, tangent: Any) -> None:
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self) -> core.ShapedArray:
        return core.get_aval(self.primal)

    def to_concrete_value(self) -> Any:
        return core.concrete_value(self.primal)

    def full_lower(self) -> Any:
        # A result with a symbolic-zero tangent is its primal, as in JAX: it carries no
        # derivative, so `float()` of it (an integer index, a stop_gradient) is allowed.
        return core.full_lower(self.primal) if isinstance(self.tangent, Zero) else self


class JVPTrace(core.Trace):
    def lift(self, val: Any) -> JVPTracer:
        return JVPTracer(self, val, Zero.like(val))

    def process_primitive(self, primitive, tracers, params):
        primals = [t.primal for t in tracers]
        tangents = [t.tangent for t in tracers]
        d = self.main.deriving
        if primitive not in core.stateful and all(isinstance(t, Zero) for t in tangents):
            mark = si.begin_rule(d, "primal")  # what re-binding a program's equation emits
            try:
                outs = core.bind(primitive, primals, params)
            finally:
                si.end_rule(d, mark)
            return [JVPTracer(self, x, Zero.like(x)) for x in outs]
        mark = si.begin_rule(d, "tangent")
        try:
            primals_out, tangents_out = core.jvp_rules[primitive](primals, tangents, **params)
            si.mark_producers(d, mark, primals_out, "primal")  # the rest is the tangent's
        finally:
            si.end_rule(d, mark)
        return [JVPTracer(self, x, t) for x, t in zip(primals_out, tangents_out, strict=True)]


def jvp_flat(
    fn: Callable[..., Sequence[Any]],
    primals: Sequence[Any],
    tangents: Sequence[Any],
    *,
    instantiate: bool | Sequence[bool] = True,
) -> tuple[list[Any], list[Any]]:
    """Push (primals, tangents) through `fn` (flat lists in, a flat list out). Tangents may be
    `Zero`s; with `instantiate`, zero output tangents come back as arrays of zeros."""
    __tracebackhide__ = True  # engine frame: IPython leaves it out of tracebacks
    with core.new_main(JVPTrace) as main:
        trace = main.trace
        tracers_in = [JVPTracer(trace, x, t) for x, t in zip(primals, tangents, strict=True)]
        outs = [trace.full_raise(out) for out in fn(*tracers_in)]
        primals_out = [core.full_lower(t.primal) for t in outs]
        tangents_out = [
            core.full_lower(t.tangent) if not isinstance(t.tangent, Zero) else t.tangent
            for t in outs
        ]
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * len(tangents_out)
    tangents_out = [
        ad_helpers.instantiate(t) if inst else t
        for t, inst in zip(tangents_out, instantiate, strict=True)
    ]
    return primals_out, tangents_out


def jvp_jaxpr(
    closed: ClosedJaxpr, nonzeros: Sequence[bool], instantiate: bool | Sequence[bool]
) -> tuple[ClosedJaxpr, list[bool]]:
    """The jaxpr of (primals, nonzero tangents) -> (primals out, tangents out), and which
    output tangents are nonzero. Used by the rules of higher-order primitives."""
    n = len(closed.in_avals)
    nonzero_out: list[bool] = []

    def fn(*args: Any) -> list[Any]:
        primals, tangent_args = args[:n], list(args[n:])
        tangents = [
            tangent_args.pop(0) if nz else Zero(a)
            for nz, a in zip(nonzeros, closed.in_avals, strict=True)
        ]
        p_out, t_out = jvp_flat(
            lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs),
            primals,
            tangents,
            instantiate=instantiate,
        )
        nonzero_out[:] = [not isinstance(t, Zero) for t in t_out]
        return [*p_out, *(t for t in t_out if not isinstance(t, Zero))]

    in_avals = [
        *closed.in_avals,
        *(a for a, nz in zip(closed.in_avals, nonzeros) if nz),
    ]
    return staging.trace_to_jaxpr(fn, in_avals), nonzero_out
