"""Shardy, JAX 0.10.2's default partitioner, against JAX 0.10.2 on 4 CPU devices: the
StableHLO text of partitioned programs (`sdy.mesh`, `sdy.sharding` on arguments and
results, `sdy.sharding_constraint`, `sdy.manual_computation` for shard_map) equal to JAX's,
and their values. The other parallel scripts switch both libraries to GSPMD
(`jax_use_shardy_partitioner=False`, whose `mhlo.sharding` texts they compare)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.devices import cases

SCRIPT = Path(__file__).parent / "scripts" / "shardy_texts.py"


@pytest.fixture(scope="module")
def results(device_workers) -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return device_workers.run_both(SCRIPT)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("case", cases(SCRIPT))
def test_against_jax(results, case):
    ours, theirs = results
    assert case in theirs, f"the JAX script did not run case {case}"
    assert ours[case] == theirs[case], f"{case}:\ndidax {ours[case]}\njax   {theirs[case]}"
