"""A 1,000-step `fori_loop` under jit: didax vs JAX 0.10.2, measured in one run.

    python benchmarks/bench_control_flow.py

Static bounds make the loop a `scan` (lowered to one `stablehlo.while`); traced bounds make
it a `while`. The body updates a small f32[16] state (a damped update plus a sine), so the
time is the loop's, not the arithmetic's. Prints the median of 7 repeats (microseconds per
call, the compiled steady state, each call waiting for its result), the compile time of the
first call, and the ratio didax/JAX (issue 4 asks for the comparison; no target is set).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import didax  # noqa: E402
import didax.numpy as dnp  # noqa: E402
from _util import header, median_time, row  # noqa: E402

try:
    import jax
    import jax.numpy as jnp
except ImportError:  # the benchmark still prints didax
    jax = jnp = None

STEPS = 1000


def _body(m):  # m: a NumPy-like namespace (didax.numpy or jax.numpy)
    def body(i, x):
        return x * 0.999 + m.sin(x) * 0.001 + i * 1e-6

    return body


def static_loop(m, lax):
    return lambda x: lax.fori_loop(0, STEPS, _body(m), x)


def traced_loop(m, lax):
    return lambda x, n: lax.fori_loop(0, n, _body(m), x)


def _first_call(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args).block_until_ready()
    return time.perf_counter() - start


def _steady(lib, fn, *args) -> float:
    return median_time(lambda: fn(*args).block_until_ready(), lib=lib)


def main() -> None:
    x = np.linspace(-1, 1, 16, dtype=np.float32)
    n = np.int32(STEPS)
    print(header())
    for name, make, args in (
        ("fori_loop static (scan), jit", static_loop, (x,)),
        ("fori_loop traced (while), jit", traced_loop, (x, n)),
    ):
        d_fn = didax.jit(make(dnp, didax.lax))
        j_fn = jax.jit(make(jnp, jax.lax)) if jax else None
        d_first = _first_call(d_fn, *args)
        j_first = _first_call(j_fn, *args) if jax else None
        if jax:  # the same program computes the same values
            np.testing.assert_allclose(
                np.asarray(d_fn(*args)), np.asarray(j_fn(*args)), rtol=1e-4, atol=1e-5
            )
        t_d = _steady(didax, d_fn, *args)
        t_j = _steady(jax, j_fn, *args) if jax else None
        print(row(name, t_d, t_j, None))
        print(row("  first call (trace+compile), ms", d_first, j_first, None, unit=1e-3))


if __name__ == "__main__":
    main()
