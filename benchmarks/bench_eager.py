"""Eager dispatch and tracing cost: didax vs JAX 0.10.2 vs NumPy, measured in one run.

    python benchmarks/bench_eager.py
    python benchmarks/bench_eager.py sizes    # where NumPy's eager kernels lose to XLA's
    python benchmarks/bench_eager.py --cpu    # CPU time instead of the wall clock

Prints medians of 7 repeats (microseconds) and the ratios. Targets (issue 2, on the 2-core
machine): scalar sin <= 1.5 us; x*y+x on 1,000 elements <= 3 us; make_jaxpr <= 8 us per
equation for a 1,000-op chain.

`sizes`: eager `x + 1.0` on float32[n] and eager float32 matmuls of growing size, didax
(NumPy's kernel; OpenBLAS single-threaded unless OPENBLAS_NUM_THREADS is set) against JAX
(XLA's kernel behind its eager dispatch) and against didax's own `jit` of the same operation
(XLA's kernel behind didax's dispatch): the crossover where an eager operation would be
faster compiled.
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as bench_autodiff.py: see the README
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import _util  # noqa: E402
import didax  # noqa: E402
import didax.numpy as dnp  # noqa: E402
from _util import header, row  # noqa: E402

CLOCK = time.perf_counter  # time.process_time with --cpu


def median_time(fn, **options) -> float:
    return _util.median_time(fn, clock=CLOCK, **options)


try:
    import jax
    import jax.numpy as jnp
except ImportError:  # the benchmark still prints didax and NumPy
    jax = jnp = None


class _Bare:
    __slots__ = ("value",)

    def __init__(self, value: np.ndarray) -> None:
        self.value = value

    def __mul__(self, other: _Bare) -> _Bare:
        return _Bare(self.value * other.value)

    def __add__(self, other: _Bare) -> _Bare:
        return _Bare(self.value + other.value)


def main() -> None:
    print(header())
    xs = np.float32(0.5)
    d_x = dnp.asarray(xs)
    j_x = jnp.asarray(xs) if jnp else None
    t_d = median_time(lambda: dnp.sin(d_x), lib=didax)
    t_j = median_time(lambda: jnp.sin(j_x), lib=jax) if jnp else None
    t_n = median_time(lambda: np.sin(xs))
    print(row("eager sin, scalar f32", t_d, t_j, t_n, target="<= 1.5 us"))

    a = np.linspace(0, 1, 1000, dtype=np.float32)
    b = np.linspace(1, 2, 1000, dtype=np.float32)
    d_a, d_b = dnp.asarray(a), dnp.asarray(b)
    j_a, j_b = (jnp.asarray(a), jnp.asarray(b)) if jnp else (None, None)
    t_d = median_time(lambda: dnp.sin(d_a), lib=didax)
    t_j = median_time(lambda: jnp.sin(j_a), lib=jax) if jnp else None
    t_n = median_time(lambda: np.sin(a))
    print(row("eager sin, f32[1000]", t_d, t_j, t_n))

    t_d = median_time(lambda: d_a * d_b + d_a, lib=didax)
    t_j = median_time(lambda: (j_a * j_b + j_a).block_until_ready(), lib=jax) if jnp else None
    t_n = median_time(lambda: a * b + a)
    print(row("eager x*y+x, f32[1000]", t_d, t_j, t_n, target="<= 3 us"))
    # The floor for any array type written in Python: one method call and one object per op
    # around NumPy, nothing checked. What didax spends above it is its own dispatch.
    w_a, w_b = _Bare(a), _Bare(b)
    t_w = median_time(lambda: w_a * w_b + w_a)
    print(row("  floor: bare Python wrapper", t_w, None, t_n))

    def chain(m):
        def f(x):
            for i in range(1000):
                x = m.sin(x) if i % 2 else x * 1.5
            return x

        return f

    n_eqns = 1000
    t_d = median_time(lambda: didax.make_jaxpr(chain(dnp))(d_x), repeat=5, lib=didax) / n_eqns
    t_j = (
        median_time(lambda: jax.make_jaxpr(chain(jnp))(j_x), repeat=5, lib=jax) / n_eqns
        if jax
        else None
    )
    print(row("make_jaxpr per equation (1000 ops)", t_d, t_j, None, target="<= 8 us"))
    print(
        f"\n(python {sys.version.split()[0]}, numpy {np.__version__}"
        f"{', jax ' + jax.__version__ if jax else ''}; {time.strftime('%Y-%m-%d %H:%M')})"
    )


def sizes() -> None:
    print(header())
    add = didax.jit(lambda x: x + 1.0)
    for n in (10**3, 10**4, 10**5, 10**6, 10**7):
        a = np.linspace(0, 1, n, dtype=np.float32)
        d_a, j_a = dnp.asarray(a), (jnp.asarray(a) if jnp else None)
        t_d = median_time(lambda: d_a + 1.0, lib=didax)  # noqa: B023 - timed at once
        t_j = median_time(lambda: (j_a + 1.0).block_until_ready(), lib=jax) if jnp else None  # noqa: B023
        t_c = median_time(lambda: add(d_a).block_until_ready(), lib=didax)  # noqa: B023
        print(row(f"eager x + 1.0, f32[{n:.0e}]", t_d, t_j, None))
        print(row("  didax jit(x + 1.0)", t_c, t_j, None))
    mm = didax.jit(dnp.matmul)
    for n in (32, 64, 128, 256, 512, 1024):
        a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
        d_a, j_a = dnp.asarray(a), (jnp.asarray(a) if jnp else None)
        t_d = median_time(lambda: d_a @ d_a, lib=didax)  # noqa: B023
        t_j = median_time(lambda: (j_a @ j_a).block_until_ready(), lib=jax) if jnp else None  # noqa: B023
        t_c = median_time(lambda: mm(d_a, d_a).block_until_ready(), lib=didax)  # noqa: B023
        print(row(f"eager matmul f32[{n},{n}]", t_d, t_j, None))
        print(row("  didax jit(matmul)", t_c, t_j, None))


if __name__ == "__main__":
    if "--cpu" in sys.argv:
        sys.argv.remove("--cpu")
        CLOCK = time.process_time
    sizes() if sys.argv[1:] == ["sizes"] else main()
