"""Timing helpers shared by the benchmarks: medians of repeated timeit runs."""

from __future__ import annotations

import importlib
import statistics
import time
import timeit
from collections.abc import Callable
from typing import Any


def as_alone(lib: Any) -> None:
    """Set what `lib` (didax or jax) finds in a process of its own, before timing it in a
    process that holds both: jaxlib's recording of a Python traceback for every array it
    makes, a switch of the process's. JAX leaves it on (jaxlib's default); didax's client
    turns it off when it starts (the option `didax_jaxlib_tracebacks`), and JAX's calls timed
    after that would run without it, faster than a JAX user's."""
    if lib is None or lib.__name__ not in ("didax", "jax"):
        return
    # (a didax older than the option, run by before_after.py, left them on)
    keep = lib.__name__ == "jax" or getattr(lib.config, "didax_jaxlib_tracebacks", True)
    importlib.import_module("jaxlib._jax").set_tracebacks_enabled(bool(keep))


def median_time(
    fn: Callable[[], object],
    *,
    repeat: int = 7,
    min_time: float = 0.05,
    clock: Callable[[], float] = time.perf_counter,
    lib: Any = None,
) -> float:
    """Median seconds per call of `fn`, each repeat looping long enough to time reliably;
    `clock=time.process_time` counts CPU time (every thread) instead of the wall clock.
    `lib`: the library `fn` calls, timed as it runs alone (`as_alone`)."""
    as_alone(lib)
    timer = timeit.Timer(fn, timer=clock)
    number, _ = timer.autorange()
    number = max(1, int(number * min_time / 0.2))
    return statistics.median(t / number for t in timer.repeat(repeat=repeat, number=number))


def alternating(
    fns: dict[Any, tuple[Any, Callable[[], object]]],
    *,
    repeat: int = 7,
    min_time: float = 0.05,
    number: int | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[Any, float]:
    """Median seconds per call of each of `fns` (key -> (its library, the call)), timed in
    alternation: each repeat times every call in turn, so the drift of a loaded machine falls
    on all of them alike, each with its library's settings (`as_alone`). Each timing loops
    `number` calls, by default enough for `min_time` seconds (worked out once per call)."""
    numbers = {}
    for key, (lib, fn) in fns.items():
        as_alone(lib)
        n = number or max(1, int(timeit.Timer(fn, timer=clock).autorange()[0] * min_time / 0.2))
        numbers[key] = n
    samples: dict[Any, list[float]] = {key: [] for key in fns}
    for _ in range(repeat):
        for key, (lib, fn) in fns.items():
            as_alone(lib)
            n = numbers[key]
            t0 = clock()
            for _ in range(n):
                fn()
            samples[key].append((clock() - t0) / n)
    return {key: statistics.median(times) for key, times in samples.items()}


def row(
    name: str,
    didax_s: float,
    jax_s: float | None,
    numpy_s: float | None,
    unit: float = 1e-6,
    target: str = "",
) -> str:
    cells = [f"{name:<34}", f"{didax_s / unit:10.2f}"]
    cells.append(f"{jax_s / unit:10.2f}" if jax_s is not None else f"{'-':>10}")
    cells.append(f"{numpy_s / unit:10.2f}" if numpy_s is not None else f"{'-':>10}")
    cells.append(f"{didax_s / jax_s:9.2f}x" if jax_s else f"{'-':>10}")
    cells.append(f"{didax_s / numpy_s:9.2f}x" if numpy_s else f"{'-':>10}")
    cells.append(f"  {target}")
    return " ".join(cells)


def header(unit_name: str = "us") -> str:
    return (
        f"{'benchmark':<34} {'didax ' + unit_name:>10} {'jax ' + unit_name:>10} "
        f"{'numpy ' + unit_name:>10} {'vs jax':>10} {'vs numpy':>10}  target"
    )
