"""shard_map's reach against JAX 0.10.2 on 4 CPU devices: each case of
scripts/shard_map_reach.py (a context mesh from `set_mesh`, `in_specs` read from `Explicit`
types, results typed by `out_specs`, under jit and grad; an Array `device_put` replicated
keeping `P()` through operations) gives the same types, shardings, values, jaxpr text and
errors in both libraries, run in the session's 4-device workers."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.devices import cases

SCRIPT = Path(__file__).parent / "scripts" / "shard_map_reach.py"


@pytest.fixture(scope="module")
def results(device_workers) -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return device_workers.run_both(SCRIPT)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("case", cases(SCRIPT, "t", "tm", "t_type"))
def test_against_jax(results, case):
    ours, theirs = results
    assert case in theirs, f"the JAX script did not run case {case}"
    assert ours[case] == theirs[case], f"{case}:\ndidax {ours[case]}\njax   {theirs[case]}"
