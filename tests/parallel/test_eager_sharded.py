"""Eager operations on Arrays split over a mesh, on 4 CPU devices, against JAX 0.10.2 on 4
CPU devices: an operation with an operand split over a mesh runs on its devices, as one
program XLA partitions (JAX's `apply_primitive`: a jit of the one primitive), and its result
stays on them, split as XLA chose. Each case compares the values and dtypes, the result's
sharding (its type, spec, mesh, devices, `is_fully_replicated`, block shape) and the blocks
`debug.visualize_array_sharding` draws. Both libraries run with their defaults (JAX's
partitioner is Shardy; didax writes GSPMD's `mhlo.sharding`).

The device count is fixed when a client starts, so each library runs in the session's worker with
`XLA_FLAGS=--xla_force_host_platform_device_count=4`, as tests/parallel/test_sharding.py.
"""

from __future__ import annotations

from pathlib import Path

import didax
import didax.numpy as dnp
import pytest
from didax.numpy import indexing
from didax.primitives.slicing import GatherScatterMode
from helpers.devices import assert_same_values, cases, run_fresh

SCRIPTS = Path(__file__).parent / "scripts"


@pytest.fixture(scope="module")
def results(device_workers) -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return device_workers.run_both(SCRIPTS / "eager_sharded_cases.py")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("case", cases(SCRIPTS / "eager_sharded_cases.py"))
def test_against_jax(results, case):
    ours, theirs = (r[case] for r in results)
    assert_same_values(ours["values"], theirs["values"])
    for key in theirs:
        assert ours[key] == theirs[key], f"{case} {key}:\ndidax {ours[key]}\njax   {theirs[key]}"


@pytest.mark.timeout(300)
def test_one_compilation_per_signature():
    out = run_fresh(SCRIPTS / "eager_sharded_compiles.py", "didax")  # counts from a cold start
    assert out["counts"] == [4, 4, 4, 4, 5, 6, 6]
    assert out["value"] == [[7.0 * (4 * i + j) for j in range(4)] for i in range(8)]
    assert out["jax imported"] is False


def test_one_device_results_index_by_slice():
    # only Arrays on several devices are indexed in part by `gather` (as JAX's): a jitted
    # result on the one device (no host value yet) still takes the static `slice` path
    y = didax.jit(lambda a: a * 1)(dnp.arange(8.0))
    entries = indexing.parse((slice(0, 2),), y.shape)
    assert y._value is None
    assert indexing._static_slice(y, entries, GatherScatterMode.PROMISE_IN_BOUNDS) is not None
    assert y[1:3].tolist() == [1.0, 2.0]
