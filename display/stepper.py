"""The Stepper's state: a closed jaxpr evaluated one equation at a time, as plain data.

Layer 6. `StepperState` drives the stepping interpreter (didax.interpreters.stepping: an eval
that pauses before each equation, entering `jit`, `cond`'s taken branch and `while`/`scan`
iterations through their step rules) and keeps what the view shows: where it is, the next
equation, how many steps it took, and a log of every value bound. No widgets.
"""

from __future__ import annotations

from typing import Any

from didax.display.parts import value_text
from didax.display.program import printed_names
from didax.interpreters import stepping
from didax.jaxpr import ClosedJaxpr, JaxprEqn


class StepperState:
    """`step()` runs to the next pause (evaluates an equation, enters a nested jaxpr or
    leaves one); `back()` returns to the previous pause by replaying from the start; `run()`
    steps to the end; `reset()` to the start."""

    def __init__(self, closed: ClosedJaxpr, args: tuple[Any, ...]) -> None:
        if len(args) != len(closed.jaxpr.invars):
            raise TypeError(
                f"Stepper: the jaxpr takes {len(closed.jaxpr.invars)} arguments, got {len(args)}"
            )
        self.closed, self.args = closed, tuple(args)
        self.names = printed_names(closed)
        self.reset()

    def reset(self) -> None:
        top = self.closed.jaxpr
        self._run = stepping.step_jaxpr(top, self.closed.consts, self.args)
        self.steps = 0
        self.outputs: list[Any] | None = None
        self.pause: stepping.Pause | None = None
        values = [*self.closed.consts, *self.args]
        self.log = [
            ("program", self.name(v), value_text(x, threshold=20))
            for v, x in zip([*top.constvars, *top.invars], values, strict=True)
        ]
        self._advance()

    @property
    def done(self) -> bool:
        return self.outputs is not None

    @property
    def where(self) -> str:
        return self.pause.where if self.pause is not None else "program"

    def name(self, v: Any) -> str:
        return self.names.get(id(v), "_")

    def current(self) -> tuple[str, JaxprEqn | None] | None:
        """Where the stepper is and the equation `step()` evaluates next (None: the jaxpr
        returns next); None when done."""
        return None if self.pause is None else (self.pause.where, self.pause.eqn)

    def step(self) -> None:
        if not self.done:
            self.steps += 1
            self._advance()

    def back(self) -> None:
        target = max(0, self.steps - 1)
        self.reset()
        while self.steps < target and not self.done:
            self.step()

    def run(self, limit: int = 100_000) -> None:
        for _ in range(limit):
            if self.done:
                return
            self.step()

    def _advance(self) -> None:
        try:
            event = next(self._run)
            while isinstance(event, stepping.Bound):
                self.log.append(
                    (event.where, self.name(event.var), value_text(event.value, threshold=20))
                )
                event = next(self._run)
            self.pause = event
        except StopIteration as stop:
            self.pause, self.outputs = None, stop.value
            for i, out in enumerate(self.outputs):
                self.log.append(("program", f"output {i}", value_text(out, threshold=20)))
