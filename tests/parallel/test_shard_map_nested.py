"""shard_map manual over some axes, and nested, against JAX 0.10.2 on 4 CPU devices: each
case of scripts/shard_map_nested.py (results split along the free axes as JAX's; StableHLO
under Shardy (open shardings and constraints) and GSPMD (manual groups); free Explicit axes
kept in the body's types; a shard_map inside a shard_map's body over the remaining axes:
values, shardings, jaxpr, StableHLO; errors and messages of invalid nesting) gives the same
in both libraries, run in the session's 4-device workers."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.devices import cases

SCRIPT = Path(__file__).parent / "scripts" / "shard_map_nested.py"


@pytest.fixture(scope="module")
def results(device_workers) -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return device_workers.run_both(SCRIPT)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("case", cases(SCRIPT, "t", "t_type", "t_message", "tg"))
def test_against_jax(results, case):
    ours, theirs = results
    assert case in theirs, f"the JAX script did not run case {case}"
    assert ours[case] == theirs[case], f"{case}:\ndidax {ours[case]}\njax   {theirs[case]}"
