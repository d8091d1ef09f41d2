"""Run by test_threads.py in a fresh process: THREADS threads make their first `jit` call at
once (the PJRT client is made lazily, so they race to make it), then a second one. Prints the
list of each thread's results (or the repr of its exception).

    python first_jit_threads.py THREADS
"""

from __future__ import annotations

import sys
import threading

import didax
import didax.numpy as jnp

THREADS = int(sys.argv[1])
results: list = [None] * THREADS
barrier = threading.Barrier(THREADS)


def work(i: int) -> None:
    x = jnp.arange(3.0) + i  # an eager Array, put on the device by its first jit call
    barrier.wait()
    try:
        results[i] = didax.jit(lambda x: x * 2.0 + 1.0)(x).tolist()
        results[i] += didax.jit(lambda x: x - 1.0)(x).tolist()  # usable afterwards
    except Exception as e:  # noqa: BLE001 - reported to the test
        results[i] = repr(e)


threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(repr(results))
