"""Stepping: evaluate a jaxpr one equation at a time, entering nested jaxprs.

Layer 3 (autodidax part 3's `eval_jaxpr`, written as a generator). `step_jaxpr` binds each
equation's primitive as `eval_jaxpr` does, but pauses: before each equation and before the
jaxpr returns it yields a `Pause` (where it is, the equation evaluated next), and after an
equation a `Bound` per output variable. A primitive that holds jaxprs may register a step rule
in `step_rules`, next to its other rules (jit, cond, while, scan in control_flow/): the rule
steps into the body it runs (`yield from step_closed(...)`) and returns the outputs; any
other primitive is bound whole. The Stepper view (didax.widgets) drives this generator.
No tracer: the values are concrete, and a rule's nested pauses are the caller's pauses.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any

from didax import core
from didax.jaxpr import ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Literal, Var, bind_eqn

# The stepper's events: plain slotted classes (a frozen dataclass cost ~0.4 ms of
# `import didax`), read by attribute.


class Pause:
    """The stepper stops here: in `where` (`program > while iteration 2`), before `eqn`
    (None: before `jaxpr` returns its outputs)."""

    __slots__ = ("where", "jaxpr", "eqn")

    def __init__(self, where: str, jaxpr: Jaxpr, eqn: JaxprEqn | None) -> None:
        self.where, self.jaxpr, self.eqn = where, jaxpr, eqn


class Bound:
    """An equation in `where` bound `var` to `value`."""

    __slots__ = ("where", "var", "value")

    def __init__(self, where: str, var: Var, value: Any) -> None:
        self.where, self.var, self.value = where, var, value


Stepping = Generator[Pause | Bound, None, list[Any]]
# (where, *operands, **params) -> a Stepping whose return value is the outputs, a list
StepRule = Callable[..., Stepping]

step_rules: core.RuleTable[StepRule] = core.RuleTable("step")


def step_jaxpr(
    jaxpr: Jaxpr, consts: Sequence[Any], args: Sequence[Any], where: str = "program"
) -> Stepping:
    """Evaluate `jaxpr` as `eval_jaxpr` does, pausing before each equation and before
    returning; returns the outputs (the generator's return value)."""
    if len(args) != len(jaxpr.invars):
        raise TypeError(
            f"step_jaxpr: the jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}"
        )
    env: dict[Var, Any] = {}

    def read(atom: Any) -> Any:
        return atom.value if isinstance(atom, Literal) else env[atom]

    env.update(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, args, strict=True))
    for eqn in jaxpr.eqns:
        yield Pause(where, jaxpr, eqn)
        operands = [read(x) for x in eqn.invars]
        if eqn.primitive in step_rules:
            outs = yield from step_rules[eqn.primitive](where, *operands, **eqn.params)
        else:
            outs = bind_eqn(eqn, operands)
        for v, val in zip(eqn.outvars, outs, strict=True):
            env[v] = val
            if not isinstance(v, DropVar):
                yield Bound(where, v, val)
    yield Pause(where, jaxpr, None)
    return [read(x) for x in jaxpr.outvars]


def step_closed(closed: ClosedJaxpr, args: Sequence[Any], where: str) -> Stepping:
    """`step_jaxpr` of a closed jaxpr (a rule's body)."""
    return step_jaxpr(closed.jaxpr, closed.consts, args, where)
