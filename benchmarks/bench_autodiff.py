"""Reverse mode on an MLP: didax vs JAX 0.10.2, measured in one run.

    python benchmarks/bench_autodiff.py
    python benchmarks/bench_autodiff.py alone   # the big jit(vmap(grad)), each library alone
    python benchmarks/bench_autodiff.py --cpu   # in CPU time (a loaded machine; also with alone)
    python benchmarks/bench_autodiff.py setups  # only the big MLP's rows by argument set-up

The model of issue 4: an MLP 256 -> 512 -> 512 -> 16 with tanh, mean squared error, batch 128.
Prints medians of 7 repeats (milliseconds per call, waiting for the result) for both libraries,
timed in alternation (`_util.alternating`),
then the ratios the issue sets targets for (didax's, with JAX's beside them):
- `jit(value_and_grad(loss))` over `jit(loss)`: <= 2.5x (the cost of the backward pass);
- eager `grad(loss)` over eager `loss`: <= 4x (the cost of tracing reverse mode eagerly);
- per-example gradients: `jit(vmap(grad(loss)))` against a Python loop of `jit(grad(loss))`
  calls, one per example: the vmapped call >= 2x faster. Measured on a small MLP
  (16 -> 32 -> 32 -> 4, 128 examples), where the loop pays per-call dispatch; and, for
  information, on the big MLP (8 examples).
Then the big MLP's `jit(vmap(grad))` once per way of making its arguments (`asarray`,
`device_put`, NumPy arrays), didax and JAX timed in alternation, with the minor page faults
per call. Its 8 gradients are 13 MB of results per call, which XLA's threads `malloc` and
free when the Arrays go. With glibc's default (dynamic) thresholds, an XLA thread's arena
gives its ~21 MB of free top memory back to the system (`madvise(MADV_DONTNEED)` from
glibc's heap trimming, in the `free` of a result buffer: seen with `strace -f -k`) on some
calls, and the next call's kernels fault it in again: ~5,100 page faults (`perf record -e
page-faults`: in XLA's generated kernels) and 2-3x the time, in either library, on calls and
in processes that the order of XLA's threads decides (the program, its compile options and
its arguments are not the cause: the same HLO as JAX's). didax's client fixes glibc's
thresholds when it starts (runtime/host_memory.py, option `didax_malloc_trim_threshold`):
no call faults after the first two. The setting is the process's, so in this script JAX's
calls get it too once didax's client has started (in the alternating rows both run the same
program with the same allocator; JAX sets no allocator option). jaxlib's traceback recording,
also the process's, is set for each library's rows as it would find it alone: on for JAX,
off for didax (`_util.as_alone`).
`alone`: the same call with `device_put` arguments, each library in a fresh process of its
own (three processes each, alternating): the median time and page faults per call of each
process. Measured so (issue 26's session, load ~12 on 2 cores, two runs of `alone`), before
the thresholds were set, JAX's own process paid the ~5,100 faults a call (or ~2,000) in 6 of
6 processes, didax's in 2 of 6; after (issue 26 item 1, load 8-14, 5 processes each, CPU
time): didax 3.6-4.3 ms and 0 faults in 5 of 5, with `DIDAX_MALLOC_TRIM_THRESHOLD=0`
3.7-10.8 ms and faults in 2 of 5, JAX 7.7-12.7 ms and faults in 5 of 5.
Gradients are checked against JAX's before timing.

Eager didax multiplies matrices with NumPy's OpenBLAS. On a small shared machine OpenBLAS's
worker threads contend (on the 2-core machine a 128x512x512 product takes ~24 ms with two
threads and ~1 ms with one), so this script runs it single-threaded unless
OPENBLAS_NUM_THREADS is already set. JAX does not use OpenBLAS.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before NumPy loads OpenBLAS

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import didax  # noqa: E402
import didax.numpy as dnp  # noqa: E402
from _util import alternating, as_alone  # noqa: E402

try:
    import jax
    import jax.numpy as jnp
except ImportError:  # the benchmark still prints didax
    jax = jnp = None

SIZES = (256, 512, 512, 16)
BATCH = 128
# per-example gradients: (layer sizes, number of examples)
PER_EXAMPLE = [((16, 32, 32, 4), 128), (SIZES, 8)]


def make_params(
    rng: np.random.Generator, sizes: tuple[int, ...] = SIZES
) -> list[dict[str, np.ndarray]]:
    return [
        {
            "w": (rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32),
            "b": np.zeros(n, np.float32),
        }
        for m, n in zip(sizes[:-1], sizes[1:], strict=True)
    ]


def make_data(
    rng: np.random.Generator, sizes: tuple[int, ...], n: int
) -> tuple[np.ndarray, np.ndarray]:
    return (
        rng.standard_normal((n, sizes[0])).astype(np.float32),
        rng.standard_normal((n, sizes[-1])).astype(np.float32),
    )


def make_loss(m):  # m: didax.numpy or jax.numpy
    def loss(params, x, y):
        h = x
        for i, layer in enumerate(params):
            h = h @ layer["w"] + layer["b"]
            if i < len(params) - 1:
                h = m.tanh(h)
        return m.mean((h - y) ** 2)

    return loss


CLOCK = time.perf_counter  # time.process_time with --cpu


def timed(ours: dict, theirs: dict | None) -> tuple[dict, dict | None]:
    """ms per call of each of `ours` (name -> call) and of `theirs` (the same names, JAX's),
    timed in alternation (`_util.alternating`: medians of 7)."""
    calls = {("didax", k): (didax, f) for k, f in ours.items()}
    calls |= {("jax", k): (jax, f) for k, f in (theirs or {}).items()}
    times = alternating(calls, clock=CLOCK)
    d = {k: times["didax", k] * 1e3 for k in ours}
    return d, theirs and {k: times["jax", k] * 1e3 for k in theirs}


def ready(lib, tree):
    return lib.block_until_ready(tree)


def converter(lib):
    if lib is jax:
        return lambda t: jax.tree_util.tree_map(jnp.asarray, t)
    return lambda t: didax.tree_util.tree_map(dnp.asarray, t)


def measure(lib, m, params, x, y) -> tuple[dict, Any]:
    """The calls timed on the MLP (name -> call), and its gradients."""
    loss = make_loss(m)
    params, x, y = converter(lib)((params, x, y))
    jit_loss = lib.jit(loss)
    jit_vg = lib.jit(lib.value_and_grad(loss))
    grad = lib.grad(loss)
    ready(lib, jit_loss(params, x, y))
    ready(lib, jit_vg(params, x, y))
    return {
        "jit loss": lambda: ready(lib, jit_loss(params, x, y)),
        "jit value_and_grad": lambda: ready(lib, jit_vg(params, x, y)),
        "eager loss": lambda: ready(lib, loss(params, x, y)),
        "eager grad": lambda: ready(lib, grad(params, x, y)),
    }, jit_vg(params, x, y)[1]


def measure_per_example(lib, m, params, x, y) -> tuple[dict, Any]:
    """The per-example calls (name -> call), and the per-example gradients."""
    loss = make_loss(m)
    params, x, y = converter(lib)((params, x, y))
    single = lambda p, xi, yi: loss(p, xi[None], yi[None])  # noqa: E731 - a batch of one
    per_example = lib.jit(lib.vmap(lib.grad(single), in_axes=(None, 0, 0)))
    one = lib.jit(lib.grad(single))
    rows = [(x[i], y[i]) for i in range(x.shape[0])]
    ready(lib, per_example(params, x, y))
    ready(lib, one(params, *rows[0]))
    return {
        "vmap": lambda: ready(lib, per_example(params, x, y)),
        "loop": lambda: ready(lib, [one(params, xi, yi) for xi, yi in rows]),
    }, per_example(params, x, y)


def per_example_setups(rng: np.random.Generator, repeats: int = 61) -> None:
    """The big MLP's `jit(vmap(grad))`, per way of making the arguments: medians of calls
    alternating between didax and JAX, and the minor page faults per call (13 MB fresh
    result memory shows as ~3,500 faults). Both run the same HLO, so the ratio is noise
    around 1.0 unless one side faults, and much of the noise is the process's: on an idle
    machine (2026-11-26), medians of 9 calls swung 0.79-1.68 in four runs; medians of 61,
    in eight fresh processes that ran only these rows (`setups`), 0.88-1.11 (median 0.99),
    and at the end of this script 0.87-0.92 in one run, 1.12-1.34 in the next (the three
    rows move together within a process)."""
    p = make_params(rng, SIZES)
    x, y = make_data(rng, SIZES, 8)
    calls = {}
    for lib, m, tmap in (
        (didax, dnp, didax.tree_util.tree_map),
        (jax, jnp, jax and jax.tree_util.tree_map),
    ):
        if lib is None:
            continue
        loss = make_loss(m)
        single = lambda q, xi, yi, loss=loss: loss(q, xi[None], yi[None])  # noqa: E731
        f = lib.jit(lib.vmap(lib.grad(single), in_axes=(None, 0, 0)))
        for setup, make in (
            ("asarray", lambda t, m=m, tmap=tmap: tmap(m.asarray, t)),
            ("device_put", lambda t, lib=lib, tmap=tmap: tmap(lib.device_put, t)),
            ("NumPy", lambda t: t),
        ):
            args = make((p, x, y))
            call = lambda f=f, args=args, lib=lib: lib.block_until_ready(f(*args))  # noqa: E731
            for _ in range(3):
                call()  # compile, then let the allocator settle
            calls[setup, lib.__name__] = call
    times: dict[tuple, list[float]] = {k: [] for k in calls}
    faults: dict[tuple, list[int]] = {k: [] for k in calls}
    for _ in range(repeats):
        for k, call in calls.items():
            as_alone(didax if k[1] == "didax" else jax)
            f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            t0 = CLOCK()
            call()
            times[k].append(CLOCK() - t0)
            faults[k].append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
    print()
    print(f"jit(vmap(grad)), {' -> '.join(map(str, SIZES))}, 8 examples, by argument set-up")
    print(
        f"{'(ms, median of ' + str(repeats) + ' alternating calls; faults/call)':<60}"
        f" {'didax':>9} {'jax':>9} {'ratio':>7}"
    )
    for setup in ("asarray", "device_put", "NumPy"):
        d = statistics.median(times[setup, "didax"]) * 1e3
        fd = statistics.median(faults[setup, "didax"])
        if (setup, "jax") in times:
            j = statistics.median(times[setup, "jax"]) * 1e3
            fj = statistics.median(faults[setup, "jax"])
            print(
                f"{'arguments from ' + setup:<60} {d:9.3f} {j:9.3f} {d / j:6.2f}x"
                f"   faults {fd:.0f} / {fj:.0f}"
            )
        else:
            print(f"{'arguments from ' + setup:<60} {d:9.3f}   faults {fd:.0f}")


def check(d_grads: Any, j_grads: Any) -> None:
    d_leaves = didax.tree_util.tree_leaves(d_grads)
    j_leaves = jax.tree_util.tree_leaves(j_grads)
    for a, b in zip(d_leaves, j_leaves, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-3, atol=1e-5)


def ratio(d: float, j: float | None) -> str:
    return f"{d:6.2f}x {'' if j is None else f'{j:6.2f}x':>7}"


def main() -> None:
    rng = np.random.default_rng(0)
    params = make_params(rng)
    x, y = make_data(rng, SIZES, BATCH)
    d, d_grads = measure(didax, dnp, params, x, y)
    j, j_grads = measure(jax, jnp, params, x, y) if jax else (None, None)
    if j:
        check(d_grads, j_grads)
    d, j = timed(d, j)
    print(
        f"MLP {' -> '.join(map(str, SIZES))}, tanh, MSE, batch {BATCH}  (ms, median of 7 "
        "alternating; "
        f"{'CPU time; ' if CLOCK is time.process_time else ''}"
        f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']})"
    )
    print(f"{'':<60} {'didax':>9} {'jax':>9}")
    for key in ("jit loss", "jit value_and_grad", "eager loss", "eager grad"):
        print(f"{key:<60} {d[key]:9.3f} {'-' if j is None else f'{j[key]:9.3f}':>9}")
    per_example = []
    for sizes, n in PER_EXAMPLE:
        p = make_params(rng, sizes)
        px, py = make_data(rng, sizes, n)
        pd, pd_grads = measure_per_example(didax, dnp, p, px, py)
        pj, pj_grads = measure_per_example(jax, jnp, p, px, py) if jax else (None, None)
        if pj:
            check(pd_grads, pj_grads)
        pd, pj = timed(pd, pj)
        name = f"{' -> '.join(map(str, sizes))}, {n} examples"
        per_example.append((name, pd, pj))
        for key, label in (("vmap", "jit(vmap(grad))"), ("loop", "loop of jit(grad)")):
            print(
                f"{label + ' (' + name + ')':<60} {pd[key]:9.3f} "
                f"{'-' if pj is None else f'{pj[key]:9.3f}':>9}"
            )
    print()
    print(f"{'ratio':<60} {'didax':>7} {'jax':>7}  target (didax)")
    for label, num, den, target in (
        ("jit(value_and_grad) / jit(loss)", "jit value_and_grad", "jit loss", "<= 2.5x"),
        ("eager grad / eager loss", "eager grad", "eager loss", "<= 4x"),
    ):
        print(f"{label:<60} {ratio(d[num] / d[den], j and j[num] / j[den])}  {target}")
    for i, (name, pd, pj) in enumerate(per_example):
        label = f"per-example loop / vmap ({name})"
        target = ">= 2x" if i == 0 else "(information)"
        print(
            f"{label:<60} {ratio(pd['loop'] / pd['vmap'], pj and pj['loop'] / pj['vmap'])}"
            f"  {target}"
        )
    per_example_setups(rng)


def alone(lib_name: str, repeats: int = 15) -> None:
    """One library's big `jit(vmap(grad))` in this process only: prints ms and faults."""
    lib, m = (didax, dnp) if lib_name == "didax" else (jax, jnp)
    rng = np.random.default_rng(0)
    p = make_params(rng, SIZES)
    x, y = make_data(rng, SIZES, 8)
    loss = make_loss(m)
    single = lambda q, xi, yi: loss(q, xi[None], yi[None])  # noqa: E731
    f = lib.jit(lib.vmap(lib.grad(single), in_axes=(None, 0, 0)))
    args = lib.tree_util.tree_map(lib.device_put, (p, x, y))
    as_alone(lib)  # (this script imports both)
    for _ in range(3):
        lib.block_until_ready(f(*args))
    times, faults = [], []
    for _ in range(repeats):
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        t0 = CLOCK()
        lib.block_until_ready(f(*args))
        times.append(CLOCK() - t0)
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
    print(statistics.median(times) * 1e3, statistics.median(faults))


def alone_rows(processes: int = 3) -> None:
    print(f"jit(vmap(grad)), {' -> '.join(map(str, SIZES))}, 8 examples, each library alone")
    cpu = "CPU " if CLOCK is time.process_time else ""
    print(f"{'(' + cpu + 'ms and faults per call, median of 15 calls; one process a row)':<60}")
    for i in range(processes):
        for name in ("didax", "jax"):
            out = subprocess.run(
                [sys.executable, __file__, "--alone", name, *(["--cpu"] if cpu else [])],
                capture_output=True,
                text=True,
            )
            t, f = map(float, out.stdout.split()[-2:])
            print(f"{name + ' process ' + str(i + 1):<60} {t:9.3f} ms   faults {f:.0f}")


if __name__ == "__main__":
    if "--cpu" in sys.argv:
        sys.argv.remove("--cpu")
        CLOCK = time.process_time
    if sys.argv[1:2] == ["--alone"]:
        alone(sys.argv[2])
    elif sys.argv[1:] == ["alone"]:
        alone_rows()
    elif sys.argv[1:] == ["setups"]:
        per_example_setups(np.random.default_rng(0))
    else:
        main()
