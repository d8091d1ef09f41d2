"""Many small jitted calls compiled as one program.

XLA's fixed cost per compile (tens of milliseconds) dominates the tiny programs of a table of
cases, so a test module computes the `jit` results of all its cases at once, on the first case
that asks, and each per-case test then compares its own entry (a failure still names its case):

    _RESULTS = Grouped(didax.jit, lambda: [(fn, args) for ... in CASES])
    ...
    got = _RESULTS.outcome(index)   # the result, or the exception its own jit raised
    got = _RESULTS.result(index)    # the result; raises that exception

A call whose tracing raises is run alone (its exception is its outcome), so it does not break
the others. The results are the arrays each call's own `jit` gives: a module that groups its
calls checks that once (the bits of every result, grouped and alone) before it relies on it.
`helpers.oracle.JaxOracle` does the same for JAX's answers, compiled with XLA's quick settings;
here the program is compiled with the settings each call's own `jit` would use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Call = tuple[Callable[..., Any], Sequence[Any]]  # a function and its positional arguments


def of_args_at(fn: Callable[..., Any], args: Sequence[Any], positions: Sequence[int]) -> Callable:
    """`fn` as a function of its arguments at `positions` (in that order), the others held at
    their values in `args`: what a grouped program, a gradient or a jvp takes."""

    def call(*xs: Any) -> Any:
        full = list(args)
        for i, x in zip(positions, xs, strict=True):
            full[i] = x
        return fn(*full)

    return call


def jit_together(jit: Callable[..., Any], calls: Sequence[Call]) -> list[Any]:
    """`jit(fn)(*args)` for each call, as one program: each call's result, or the exception
    its own `jit` raises when its tracing raises."""
    together = list(range(len(calls)))
    try:
        results = _run(jit, calls, together)
    except Exception:  # noqa: BLE001 - some call's tracing raises: those run alone
        together = [i for i in together if traces(jit, *calls[i])]
        results = _run(jit, calls, together)
    outcomes: list[Any] = [None] * len(calls)
    for i, result in zip(together, results, strict=True):
        outcomes[i] = result
    for i in set(range(len(calls))) - set(together):
        fn, args = calls[i]
        try:
            outcomes[i] = jit(fn)(*args)
        except Exception as e:  # noqa: BLE001 - the outcome compared
            outcomes[i] = e
    return outcomes


def program(jit: Callable[..., Any], fns: Sequence[Callable[..., Any]]) -> Callable[..., Any]:
    """One jitted program of all `fns`: `program([args_0, args_1, ...])` is the list of
    `fns[i](*args_i)`."""
    return jit(lambda all_args: [fn(*args) for fn, args in zip(fns, all_args, strict=True)])


def _run(jit: Callable[..., Any], calls: Sequence[Call], members: list[int]) -> list[Any]:
    jitted = program(jit, [calls[i][0] for i in members])
    return jitted([list(calls[i][1]) for i in members])


def traces(jit: Callable[..., Any], fn: Callable[..., Any], args: Sequence[Any]) -> bool:
    """Whether `jit(fn)` traces on `args` (nothing is compiled)."""
    try:
        jit(fn).trace(*args)
    except Exception:  # noqa: BLE001
        return False
    return True


class Grouped:
    """`jit_together` of a table's calls, run on the first `outcome` asked for: all of them
    at once, or `chunk` calls at a time (a call whose tracing raises then costs a trace of
    its chunk's calls only)."""

    def __init__(
        self, jit: Callable[..., Any], calls: Callable[[], Sequence[Call]], chunk: int = 0
    ) -> None:
        self._jit, self._calls, self._chunk = jit, calls, chunk
        self._table: Sequence[Call] | None = None
        self._outcomes: dict[int, Any] = {}

    def outcome(self, index: int) -> Any:
        if index not in self._outcomes:
            if self._table is None:
                self._table = self._calls()
            size = self._chunk or len(self._table)
            start = index - index % size
            chunk = self._table[start : start + size]
            for i, out in enumerate(jit_together(self._jit, chunk), start):
                self._outcomes[i] = out
        return self._outcomes[index]

    def result(self, index: int) -> Any:
        """The call's result; raises the exception its own `jit` raised."""
        outcome = self.outcome(index)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome
