"""What `%jit` computes, as plain data: `jit_report` returns a `JitReport` (the result,
`JitTimings`, StableHLO, optimized HLO, XLA's cost analysis, the partitioning over devices).

Layer 6, no IPython import. `%jit` times calls the way `%timeit` does (`timeit_stats`): an
automatic loop count (the smallest power of ten that takes at least 0.2 s), best of `repeat`
runs, the garbage collector off while timing, and every call blocks until its result is
ready.
"""

from __future__ import annotations

import functools
import gc
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import didax
import didax.numpy as jnp
import numpy as np
from didax import core, tree_util
from didax.display.compiled import format_time
from didax.display.parts import leaf_paths
from didax.display.program import mesh_text
from didax.display.provenance import parse_hlo
from didax.magics.reports import fn_name, input_labels, positional
from didax.sharding import NamedSharding


@dataclass(frozen=True)
class TimeitStats:
    """Repeated timings of one call, as `%timeit` takes them: `runs` holds the time per
    loop (seconds) of each of `repeat` runs of `loops` calls."""

    loops: int
    repeat: int
    runs: tuple[float, ...]

    @property
    def best(self) -> float:
        return min(self.runs)

    @property
    def worst(self) -> float:
        return max(self.runs)

    @property
    def mean(self) -> float:
        return math.fsum(self.runs) / len(self.runs)

    @property
    def stdev(self) -> float:
        mean = self.mean
        return (math.fsum((t - mean) ** 2 for t in self.runs) / len(self.runs)) ** 0.5

    @property
    def warning(self) -> str | None:
        """IPython's `%timeit` warning when the slowest run is over 4x the fastest."""
        if self.worst > 4 * self.best and self.best > 0 and self.worst > 1e-6:
            return (
                f"The slowest run took {self.worst / self.best:0.2f} times longer than the "
                "fastest. This could mean that an intermediate result is being cached."
            )
        return None

    def __str__(self) -> str:
        runs, loops = self.repeat, self.loops
        if runs == 1:  # one run has no spread: say so instead of "± 0 ns"
            return (
                f"{format_time(self.mean)} per loop (1 run, {loops:,} "
                f"loop{'s' if loops != 1 else ''}; run more for a spread)"
            )
        return (
            f"{format_time(self.mean)} ± {format_time(self.stdev)} per loop (mean ± std. "
            f"dev. of {runs} run{'s' if runs != 1 else ''}, {loops:,} "
            f"loop{'s' if loops != 1 else ''} each)"
        )


Progress = Callable[[int, int], None]  # (runs done, runs planned)


def timeit_stats(
    call: Callable[[], Any],
    number: int = 0,
    repeat: int = 7,
    timer: Callable[[], float] = time.perf_counter,
    *,
    budget: float | None = None,
    first: float | None = None,
    progress: Progress | None = None,
) -> TimeitStats:
    """Time `call()` (blocking on its result) as `%timeit` does; `number=0` picks the loop
    count: the smallest power of ten whose loop takes at least 0.2 s. With a `budget`
    (seconds), the runs stop short of `repeat` so that the timing stays within it, and the
    loop search stops at one call when that call alone would exceed the budget; there is
    always at least one run. `first`: the time of one call already made (it then counts as
    the first run when a run is a single call)."""
    __tracebackhide__ = True
    if number < 0 or repeat < 1:
        raise ValueError(f"need number >= 0 and repeat >= 1, got {number} and {repeat}")

    def run(n: int) -> float:
        __tracebackhide__ = True
        gc_was_enabled = gc.isenabled()
        gc.disable()  # as timeit does: a collection in one run would skew it
        try:
            start = timer()
            for _ in range(n):
                didax.block_until_ready(call())
            return timer() - start
        finally:
            if gc_was_enabled:
                gc.enable()

    runs: list[float] = []
    if number == 0:
        for index in range(10):
            number = 10**index
            t = first if (number == 1 and first is not None) else run(number)
            if t >= 0.2 or (budget is not None and t * 10 > budget):
                if budget is not None:
                    runs.append(t)  # within a budget, the last probe is the first run
                break
    elif number == 1 and first is not None:
        runs.append(first)
    planned = repeat
    if budget is not None:
        if not runs:
            runs.append(run(number))  # a run of `number` calls, kept as the first run
        if runs[0] > 0:
            planned = min(repeat, max(1, int(budget // runs[0])))
    while len(runs) < planned:
        if progress is not None:
            progress(len(runs), planned)
        runs.append(run(number))
    if progress is not None:
        progress(len(runs), planned)
    return TimeitStats(number, len(runs), tuple(r / number for r in runs))


@dataclass(frozen=True)
class JitTimings:
    """Where the time of a compiled call goes (seconds), against eager evaluation.
    `trace` is None when tracing and lowering could not be timed apart."""

    trace: float | None
    lower: float
    compile: float
    first_run: float
    steady: TimeitStats  # calls of the jitted function once compiled
    eager: TimeitStats  # the same call without jit
    startup: float | None = None  # the compiler's one-time start-up in this process
    budget: float | None = None  # the time budget the runs were chosen for (None: none)

    @property
    def speedup(self) -> float:
        """Best eager time over best compiled time."""
        return self.eager.best / self.steady.best if self.steady.best > 0 else math.inf

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(
            f"{what}: {stats.warning}"
            for what, stats in (("steady state", self.steady), ("eager", self.eager))
            if stats.warning
        )


@dataclass(frozen=True)
class ShardRow:
    """One input or output of a partitioned program: its global type, how its dimensions
    split over the mesh, and the block each device holds."""

    label: str  # `x`, `out['w']`
    type: str  # f32[8,2]
    spec: str  # P('b',), or P() for a value every device holds whole
    shard: str  # f32[2,2]: each device's block


@dataclass(frozen=True)
class Partitioning:
    """How XLA's SPMD partitioner laid a jitted program out over several devices."""

    meshes: tuple[str, ...]  # `b=4 (4 devices)`
    inputs: tuple[ShardRow, ...]
    outputs: tuple[ShardRow, ...]
    collectives: tuple[tuple[str, int], ...] = ()  # (opcode, count) XLA inserted


_COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")


def collectives(hlo_text: str) -> tuple[tuple[str, int], ...]:
    """The cross-device operations in one device's optimized HLO, counted by kind (an
    async pair, `all-reduce-start`/`-done`, counts once)."""
    counts: dict[str, int] = {}
    for ins in parse_hlo(hlo_text):
        kind = ins.opcode.removesuffix("-start")
        if kind in _COLLECTIVES:
            counts[kind] = counts.get(kind, 0) + 1
    return tuple(counts.items())


def _shard_rows(labels: Sequence[str], values: Any, shardings: Any) -> tuple[ShardRow, ...]:
    rows = []
    leaves = tree_util.tree_leaves(values)
    for label, x, s in zip(labels, leaves, tree_util.tree_leaves(shardings), strict=True):
        aval = core.get_aval(x)
        shard = aval.update(shape=s.shard_shape(aval.shape)).str_short()
        spec = repr(s.spec) + (" (replicated)" if s.is_fully_replicated else "")
        rows.append(ShardRow(label, aval.str_short(), spec, shard))
    return tuple(rows)


def partitioning(
    compiled: Any, labels: Sequence[str], args: Sequence[Any], result: Any
) -> Partitioning | None:
    """The layout of a compiled program over its mesh (None when it runs on one device):
    each argument's and output's split and per-device block, from the program's own
    `input_shardings`/`output_shardings` (those given to jit, the arguments', or XLA's)."""
    in_shardings, _ = compiled.input_shardings
    out_shardings = compiled.output_shardings
    named = [
        s
        for s in (*tree_util.tree_leaves(in_shardings), *tree_util.tree_leaves(out_shardings))
        if isinstance(s, NamedSharding)
    ]
    if not named:
        return None
    meshes = tuple(dict.fromkeys(mesh_text(s.mesh) for s in named))
    out_labels = [label for label, _ in leaf_paths(out_shardings)]
    return Partitioning(
        meshes,
        _shard_rows(labels, args, in_shardings),
        _shard_rows(["out" + label for label in out_labels], result, out_shardings),
        collectives(compiled.as_text()),
    )


@dataclass(frozen=True, eq=False, repr=False)
class JitReport:
    """`%jit`: the compiled call's result, its timings, StableHLO, optimized HLO and cost."""

    call: str
    fn_name: str
    result: Any
    timings: JitTimings
    stablehlo: str
    hlo: str
    cost: dict[str, float] | None
    jaxpr: didax.ClosedJaxpr | None = None  # the program jit lowered (for the cost join)
    partitioning: Partitioning | None = None  # over several devices: how XLA split it

    def __repr__(self) -> str:  # short, like IPython's <TimeitResult : ...>
        t = self.timings
        return (
            f"<JitReport {self.call}: compiled {format_time(t.steady.best)}, eager "
            f"{format_time(t.eager.best)} (best of {t.steady.repeat}), speed-up "
            f"{t.speedup:.1f}x>"
        )


def _timed(timer: Callable[[], float], fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    __tracebackhide__ = True
    start = timer()
    out = didax.block_until_ready(fn(*args))
    return out, timer() - start


DEFAULT_BUDGET = 4.0  # seconds of timing runs beyond the first calls (`%jit --budget`)
_compiler_started = [False]


def compiler_startup(timer: Callable[[], float] = time.perf_counter) -> float | None:
    """The one-time start-up of the compiler in this process (loading jaxlib, the first
    MLIR context and PJRT client), measured by compiling a one-operation program; None once
    it has been paid, so a program's own lowering is not charged for it."""
    if _compiler_started[0]:
        return None
    start = timer()
    didax.jit(jnp.negative).lower(np.zeros((), np.float32)).compile()
    _compiler_started[0] = True
    return timer() - start


JitProgress = Callable[[str, int, int], None]  # (what, runs done, runs planned)


def jit_report(
    fn: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict | None = None,
    *,
    number: int = 0,
    repeat: int = 7,
    budget: float | None = DEFAULT_BUDGET,
    call: str = "",
    timer: Callable[[], float] = time.perf_counter,
    progress: JitProgress | None = None,
) -> JitReport:
    """Compile `fn` with `didax.jit` ahead of time, phase by phase (the compiler's start-up
    in a fresh process, trace, lower, compile, first run of the compiled executable), then
    time calls of the jitted function and eager calls as `%timeit` does, within `budget`
    seconds (half each; None: no limit) and never fewer than one run of each. Keyword
    arguments that could be passed by position are; the keyword-only ones are closed over
    (compiled in as constants)."""
    __tracebackhide__ = True
    args, kwargs = positional(fn, tuple(args), dict(kwargs or {}))
    fn_k = functools.partial(fn, **kwargs) if kwargs else fn
    jitted = didax.jit(fn_k)
    t_startup = compiler_startup(timer)
    lowered, t_lower = _timed(timer, jitted.lower, *args)
    phases = getattr(lowered, "timings", {})  # didax times trace and lower apart
    t_trace, t_lower = phases.get("trace"), phases.get("lower", t_lower)
    compiled, t_compile = _timed(timer, lowered.compile)
    result, t_first = _timed(timer, compiled, *args)
    # one call of each first: it warms jit's fast dispatch path, and it is the first probe
    # of the loop count (or the only run, when one call is most of the budget)
    _, s_first = _timed(timer, jitted, *args)
    _, e_first = _timed(timer, fn_k, *args)
    half = budget / 2 if budget else None

    def reporter(what: str) -> Progress | None:
        return None if progress is None else (lambda done, total: progress(what, done, total))

    def measure(f: Callable[..., Any], first: float, what: str) -> TimeitStats:
        __tracebackhide__ = True
        call_f = functools.partial(f, *args)
        return timeit_stats(
            call_f, number, repeat, timer, budget=half, first=first, progress=reporter(what)
        )

    steady = measure(jitted, s_first, "compiled")
    eager = measure(fn_k, e_first, "eager")
    cost = compiled.cost_analysis()
    return JitReport(
        call=call or f"{fn_name(fn)}(...)",
        fn_name=fn_name(fn),
        result=result,
        timings=JitTimings(
            t_trace, t_lower, t_compile, t_first, steady, eager, t_startup, budget or None
        ),
        stablehlo=lowered.as_text(),
        hlo=compiled.as_text(),
        cost=dict(cost) if cost else None,
        jaxpr=didax.make_jaxpr(fn_k)(*args),
        partitioning=partitioning(compiled, input_labels(fn, args, {}), args, result),
    )
