"""Start-up and shared engine state under threads (issue 14, item 1).

The PJRT client is made lazily; threads racing to their first `jit` once each made a client,
and buffers of one were rejected by executables of another ("Buffer ... is on device cpu:0,
but replica is assigned to device cpu:0"). The start-up race only exists in a fresh process,
so the test runs fresh interpreters, several times (the race hit about one run in six).
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import didax
import didax.numpy as jnp
import numpy as np
from didax import core, tree_util

THREADS = 8
PROCESSES = 10

# the script each fresh process runs, and its argument
_FIRST_JIT = [str(Path(__file__).parent / "scripts" / "first_jit_threads.py"), str(THREADS)]


def _expected(i: int) -> list[float]:
    x = np.arange(3.0) + i
    return [*(x * 2.0 + 1.0).tolist(), *(x - 1.0).tolist()]


def test_first_jit_from_eight_threads_in_fresh_processes():
    procs = [
        subprocess.Popen(
            [sys.executable, *_FIRST_JIT], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(2)
    ]
    outputs = []
    for n in range(PROCESSES):  # two at a time: the machine has two cores
        out, err = procs[n % 2].communicate(timeout=120)
        assert procs[n % 2].returncode == 0, err.decode()
        outputs.append(out.decode())
        if n + 2 < PROCESSES:
            procs[n % 2] = subprocess.Popen(
                [sys.executable, *_FIRST_JIT], stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
    expected = repr([_expected(i) for i in range(THREADS)])
    for out in outputs:
        assert out.strip() == expected


def _run_threads(work, n: int = THREADS) -> list:
    results: list = [None] * n
    barrier = threading.Barrier(n)

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = work(i)
        except Exception as e:  # reported below, with the thread's index
            results[i] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_one_jitted_function_shared_by_threads_compiles_each_signature_once():
    f = didax.jit(lambda x: jnp.sin(x) * 2.0)
    shapes = [(2,), (3,)]
    results = _run_threads(lambda i: np.asarray(f(jnp.ones(shapes[i % 2]) * i)))
    for i, r in enumerate(results):
        np.testing.assert_allclose(r, np.sin(np.ones(shapes[i % 2]) * i) * 2.0, rtol=1e-6)
    assert f.compilations == 2
    assert f._cache_size() == 2


def test_rule_registration_from_threads_keeps_exactly_one_rule():
    table = core.RuleTable("test")
    prim = core.Primitive("threaded")
    results = _run_threads(lambda i: table.register(prim, lambda *a, i=i: i))
    errors = [r for r in results if isinstance(r, Exception)]
    assert len(errors) == THREADS - 1
    assert all(isinstance(e, ValueError) for e in errors)
    assert table[prim]() in range(THREADS)


def test_pytree_registration_from_threads_keeps_exactly_one_node():
    class Node:
        pass

    results = _run_threads(
        lambda i: tree_util.register_pytree_node(Node, lambda n: ((), i), lambda a, c: Node())
    )
    errors = [r for r in results if isinstance(r, Exception)]
    assert len(errors) == THREADS - 1
    assert all(isinstance(e, ValueError) for e in errors)
