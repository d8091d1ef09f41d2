"""pmap on 4 CPU devices: didax vs JAX 0.10.2, measured in one run.

    python benchmarks/bench_pmap.py

Sets `XLA_FLAGS=--xla_force_host_platform_device_count=4` for itself (both libraries read it
when their client starts). Two programs: a psum of a sine (one all-reduce), and a
data-parallel SGD step (grad of a linear model's loss, pmean of the gradients, update) with
replicated parameters. Prints the median per call (the steady state, each call waiting for its
result), the first call (trace + compile), and the ratio didax/JAX; no target is set.
"""

from __future__ import annotations

import os
import sys
import time

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import didax  # noqa: E402
import didax.numpy as dnp  # noqa: E402
from _util import header, median_time, row  # noqa: E402

try:
    import jax
    import jax.numpy as jnp
except ImportError:  # the benchmark still prints didax
    jax = jnp = None


def psum_sin(lib, m):
    return lib.pmap(lambda x: lib.lax.psum(m.sin(x), "i"), axis_name="i")


def sgd_step(lib, m):
    def loss(w, x, y):
        return m.mean((x @ w - y) ** 2)

    def step(w, x, y):
        g = lib.lax.pmean(lib.grad(loss)(w, x, y), "i")
        return w - 0.1 * g

    return lib.pmap(step, axis_name="i", in_axes=(None, 0, 0), out_axes=None)


def _first_call(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args).block_until_ready()
    return time.perf_counter() - start


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 64), dtype=np.float32)
    w = np.zeros(8, np.float32)
    xs = rng.standard_normal((4, 32, 8), dtype=np.float32)
    ys = rng.standard_normal((4, 32), dtype=np.float32)
    print(header())
    for name, make, args in (
        ("pmap psum(sin(x)), 4 devices", psum_sin, (x,)),
        ("pmap SGD step + pmean, 4 devices", sgd_step, (w, xs, ys)),
    ):
        d_fn = make(didax, dnp)
        j_fn = make(jax, jnp) if jax else None
        d_first = _first_call(d_fn, *args)
        j_first = _first_call(j_fn, *args) if jax else None
        if jax:  # the same program computes the same values
            np.testing.assert_allclose(
                np.asarray(d_fn(*args)), np.asarray(j_fn(*args)), rtol=1e-4, atol=1e-5
            )
        t_d = median_time(lambda f=d_fn, a=args: f(*a).block_until_ready(), lib=didax)
        t_j = (
            median_time(lambda f=j_fn, a=args: f(*a).block_until_ready(), lib=jax) if jax else None
        )
        print(row(name, t_d, t_j, None))
        print(row("  first call (trace+compile), ms", d_first, j_first, None, unit=1e-3))


if __name__ == "__main__":
    main()
