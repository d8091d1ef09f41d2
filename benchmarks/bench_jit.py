"""didax.jit against jax.jit (0.10.2), side by side in one run: medians of repeats, ratios.

    python benchmarks/bench_jit.py            # about a minute on a 2-core machine
    python benchmarks/bench_jit.py dispatch   # the cached-dispatch rows only
    python benchmarks/bench_jit.py dispatch --cpu   # the same in CPU time (a loaded machine)
    python benchmarks/bench_jit.py puts --cpu       # the NumPy argument's put, each way
    python benchmarks/bench_jit.py tracebacks --cpu # a call with jaxlib's tracebacks on/off

Rows: the first call of a 100-op and a 1,000-op elementwise chain (trace, lower, compile,
run; a fresh function each repeat), cached dispatch with 1 and 3 float32[8] device arrays,
a dict of 10, a list of 3 (w, b) pairs in and out, a NumPy argument, and an array with a
static int (call and wait; didax and JAX timed in alternation), the same for a f32[8] split
over 4 CPU devices (a subprocess with 4 devices), a jitted 20-op elementwise chain on 1e7
elements and a 2048x2048 float32 matmul (steady state), and `import didax` / `import jax` in
a fresh interpreter. A ratio is didax's time over JAX's: below 1.0, didax is faster.
With `--cpu` the dispatch rows count the process's CPU time (`time.process_time`, every
thread) instead of the wall clock: on a machine shared with other work the wall clock counts
the time the process waited for a core, which drowns a difference of a microsecond.
Both libraries run in this process, so each is timed with jaxlib's traceback recording (a
switch of the process's) as it would find it alone: on for JAX, off for didax (`_util.as_alone`).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import didax
import didax.numpy as dnp
import jax
import jax.numpy as jnp
import jaxlib.version
import numpy as np
from _util import alternating, as_alone
from didax.runtime import client


def chain(np_: Any, n: int) -> Callable[[Any], Any]:
    """n elementwise primitives in a row (sin, mul, add, cos, tanh, ...)."""
    steps = [np_.sin, lambda x: x * 1.01, lambda x: x + 0.5, np_.cos, np_.tanh]

    def f(x):
        for i in range(n):
            x = steps[i % len(steps)](x)
        return x

    return f


def median_time(fn: Callable[[], Any], repeats: int, number: int = 1) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def first_call(lib: Any, np_: Any, n: int, x: np.ndarray, repeats: int) -> float:
    def once():
        lib.jit(chain(np_, n))(x).block_until_ready()  # a new function: nothing cached

    as_alone(lib)
    return median_time(once, repeats)


def dispatch_case(lib: Any, case: str, x: Any) -> Callable[[], Any]:
    """A cached call, waited for: 1 or 3 array arguments, one dict of 10 arrays, a list of
    pairs in and out, one NumPy array, or an array and a static int."""
    if case == "dict":
        f = lib.jit(lambda d: sum(d.values()))  # all ten used (JAX drops unused ones)
        args: tuple = ({f"k{i}": x for i in range(10)},)
    elif case == "pytree":  # a list of (w, b) pairs in, the same structure out
        f = lib.jit(lambda p: [(w * 0.5, b + w) for w, b in p])
        args = ([(x, x)] * 3,)
    elif case == "numpy":  # a NumPy argument: put on the device by the call
        f = lib.jit(lambda a: a + 1.0)
        args = (np.arange(8, dtype=np.float32),)
    elif case == "static":  # an array and a static int
        f = lib.jit(lambda a, n: a * n, static_argnums=1)
        args = (x, 3)
    else:
        f = lib.jit({"1": lambda a: a + 1.0, "3": lambda a, b, c: a * b + c}[case])
        args = (x,) * int(case)
    lib.block_until_ready(f(*args))
    return lambda: lib.block_until_ready(f(*args))


CLOCK = time.perf_counter  # time.process_time with --cpu


def put_time(x: np.ndarray, how: str = "lend", number: int = 2000, repeats: int = 15) -> float:
    """The median time of one call of jaxlib's `batched_device_put` of `x`, with the
    arguments didax's launch for a NumPy argument passes (`fast_path.putting`): `x` lent to
    the device ("lend"), or copied during the call ("copy"); or ("dlpack") the same array
    through DLPack, `dlpack_managed_tensor_to_buffer`, the other host-to-device route jaxlib
    exposes."""
    rt = client.runtime()
    as_alone(didax)
    aval = dnp.asarray(x).aval
    if how == "dlpack":
        to_buffer, device = rt.xla.dlpack_managed_tensor_to_buffer, rt.device
        put = lambda: to_buffer(x.__dlpack__(), device, None)  # noqa: E731
    else:
        semantics = {"lend": rt.alias, "copy": rt.copy}[how]
        args = (aval, rt.sharding, [x], [rt.device], True, False, semantics)
        put = lambda: rt.put(*args, enable_x64=True)  # noqa: E731
    times = []
    for _ in range(repeats):
        t0 = CLOCK()
        for _ in range(number):
            put()
        times.append((CLOCK() - t0) / number)
    return statistics.median(times)


def puts() -> None:
    """`python benchmarks/bench_jit.py puts [--cpu]`: the NumPy argument's put, each way
    jaxlib offers, at a few sizes (didax's only; the dispatch rows set JAX's beside it)."""
    print(f"{'put of a NumPy float32 array (us)':<40} {'lend':>10} {'copy':>10} {'dlpack':>10}")
    for n in (8, 1024, 16384):
        x = np.arange(n, dtype=np.float32)
        cells = [put_time(x, how) * 1e6 for how in ("lend", "copy", "dlpack")]
        print(f"{'f32[' + str(n) + ']':<40} " + " ".join(f"{c:>10.2f}" for c in cells))


def tracebacks(depth: int = 40) -> None:
    """`python benchmarks/bench_jit.py tracebacks [--cpu]`: a cached call of `a + 1.0` on a
    f32[8] (not waited for) with jaxlib's traceback recording on, as JAX leaves it, and off,
    as didax's client sets it (`didax_jaxlib_tracebacks`), here and `depth` frames deeper in
    the stack (a notebook cell runs under IPython's frames; jaxlib records the whole stack for
    each array it makes). Each call sets the switch first (a cost the four rows share), in
    alternation. didax's only: the switch is jaxlib's, not a difference from JAX."""
    xla = client.runtime().xla
    f, x = didax.jit(lambda a: a + 1.0), didax.device_put(np.arange(8, dtype=np.float32))
    f(x).block_until_ready()

    def deeper(n: int, call: Callable[[], Any]) -> Callable[[], Any]:
        return call if n == 0 else deeper(n - 1, lambda: call())

    calls = {}
    for frames in (0, depth):
        call = deeper(frames, lambda: f(x))
        for on in (True, False):
            calls[frames, on] = (None, lambda c=call, on=on: (xla.set_tracebacks_enabled(on), c()))
    times = alternating(calls, repeat=15, number=2000, clock=CLOCK)
    xla.set_tracebacks_enabled(bool(didax.config.read("didax_jaxlib_tracebacks")))
    print(f"{'cached call of a + 1.0, f32[8] (us)':<40} {'recorded':>10} {'not':>10}")
    for frames in (0, depth):
        label = "at the benchmark's depth" if frames == 0 else f"{frames} frames deeper"
        on, off = times[frames, True] * 1e6, times[frames, False] * 1e6
        print(f"{label:<40} {on:>10.2f} {off:>10.2f}")


def dispatch(case: str, dx: Any, jx: Any, number: int, repeats: int = 15) -> tuple[float, float]:
    """Medians for didax and JAX, timed in alternation (a loaded machine drifts)."""
    calls = {
        "didax": (didax, dispatch_case(didax, case, dx)),
        "jax": (jax, dispatch_case(jax, case, jx)),
    }
    times = alternating(calls, repeat=repeats, number=number, clock=CLOCK)
    return times["didax"], times["jax"]


def sharded_dispatch(
    number: int = 500, repeats: int = 15, cpu: bool = False
) -> tuple[float, float]:
    """Cached dispatch of `a + 1.0` on a f32[8] split over 4 CPU devices (a NamedSharding on
    a one-axis mesh), for didax and JAX in alternation. The device count is fixed when a
    client starts, so this row runs in a subprocess with 4 devices (`--sharded-row`)."""
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4"}
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    out = subprocess.run(
        [sys.executable, __file__, "--sharded-row", str(number), str(repeats), *["--cpu"] * cpu],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    ours, theirs = map(float, out.split()[-2:])
    return ours, theirs


def _sharded_row(number: int, repeats: int) -> None:
    x = np.arange(8, dtype=np.float32)
    dx = didax.device_put(
        x,
        didax.sharding.NamedSharding(
            didax.sharding.Mesh(np.array(didax.devices()), ("i",)),
            didax.sharding.PartitionSpec("i"),
        ),
    )
    jx = jax.device_put(
        x,
        jax.sharding.NamedSharding(
            jax.sharding.Mesh(np.array(jax.devices()), ("i",)), jax.sharding.PartitionSpec("i")
        ),
    )
    print(*dispatch("1", dx, jx, number, repeats))


def steady(lib: Any, fn: Callable[..., Any], args: tuple, repeats: int) -> float:
    as_alone(lib)
    fn(*args).block_until_ready()
    return median_time(lambda: fn(*args).block_until_ready(), repeats)


def import_time(module: str, repeats: int = 5, cpu: bool = False) -> float:
    """Median seconds of `import module` in a fresh interpreter, from cached bytecode (a
    warm-up run writes it, as a user's first import does: PYTHONDONTWRITEBYTECODE would
    compile every module on every run); CPU time with `cpu`."""
    clock = "process_time" if cpu else "perf_counter"
    code = f"import time; t = time.{clock}(); import {module}; print(time.{clock}() - t)"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def once() -> float:
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
        )
        return float(out.stdout)

    once()
    return statistics.median(once() for _ in range(repeats))


def main(only_dispatch: bool = False, cpu: bool = False) -> None:
    rows: list[tuple[str, float, float, str]] = []

    def row(name: str, ours: float, theirs: float, unit: str = "ms") -> None:
        scale = {"ms": 1e3, "us": 1e6}[unit]
        rows.append((name, ours * scale, theirs * scale, unit))
        print(
            f"{name:<40} {ours * scale:>10.2f} {theirs * scale:>10.2f} {unit:<3}"
            f"{ours / theirs:>8.2f}x",
            flush=True,
        )

    print(
        f"didax {didax.__version__}, jax {jax.__version__}, jaxlib {jaxlib.version.__version__}"
        f", {jax.devices()[0].platform}; medians of repeats"
        f"{'; dispatch in CPU time' if cpu else ''}\n"
    )
    print(f"{'':<40} {'didax':>10} {'jax':>10}     {'ratio':>8}")
    x8 = np.arange(8, dtype=np.float32)
    dx8, jx8 = didax.device_put(x8), jax.device_put(x8)
    times: dict[str, tuple[float, float]] = {}
    for case, label in (
        ("1", "1 x f32[8]"),
        ("3", "3 x f32[8]"),
        ("dict", "dict of 10 f32[8]"),
        ("pytree", "3 (w, b) pairs in and out"),
        ("numpy", "NumPy f32[8]"),
        ("static", "f32[8] and a static int"),
    ):
        times[case] = dispatch(case, dx8, jx8, 2000)
        row(f"cached dispatch, {label}", *times[case], "us")
    # what putting the NumPy argument costs: jaxlib's `batched_device_put` called alone, as
    # didax's launch calls it; JAX's, its NumPy call's time less its Array call's
    row(
        "put of the NumPy f32[8] (JAX: NumPy - Array)",
        put_time(x8),
        times["numpy"][1] - times["1"][1],
        "us",
    )
    row("cached dispatch, f32[8] on 4 devices", *sharded_dispatch(cpu=cpu), "us")
    if only_dispatch:
        return

    small = np.linspace(-1, 1, 1000, dtype=np.float32)
    row(
        "first call, 100-op chain",
        first_call(didax, dnp, 100, small, 5),
        first_call(jax, jnp, 100, small, 5),
    )
    row(
        "first call, 1000-op chain",
        first_call(didax, dnp, 1000, small, 3),
        first_call(jax, jnp, 1000, small, 3),
    )

    big = np.linspace(-1, 1, 10_000_000, dtype=np.float32)
    row(
        "20-op chain on 1e7 elements",
        steady(didax, didax.jit(chain(dnp, 20)), (didax.device_put(big),), 7),
        steady(jax, jax.jit(chain(jnp, 20)), (jax.device_put(big),), 7),
    )
    a = np.random.default_rng(0).standard_normal((2048, 2048)).astype(np.float32)
    da = didax.device_put(a)
    row(
        "matmul f32[2048,2048]",
        steady(didax, didax.jit(dnp.matmul), (da, da), 7),
        steady(jax, jax.jit(jnp.matmul), (jax.device_put(a), jax.device_put(a)), 7),
    )
    row("import (fresh interpreter)", import_time("didax"), import_time("jax"))
    row("import, CPU time", import_time("didax", cpu=True), import_time("jax", cpu=True))


if __name__ == "__main__":
    if "--cpu" in sys.argv:
        sys.argv.remove("--cpu")
        CLOCK = time.process_time
        cpu = True
    else:
        cpu = False
    if sys.argv[1:2] == ["--sharded-row"]:
        _sharded_row(int(sys.argv[2]), int(sys.argv[3]))
    elif sys.argv[1:] == ["puts"]:
        puts()
    elif sys.argv[1:] == ["tracebacks"]:
        tracebacks()
    else:
        main(only_dispatch=sys.argv[1:] == ["dispatch"], cpu=cpu)
