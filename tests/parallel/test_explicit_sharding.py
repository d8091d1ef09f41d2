"""Sharding in types, JAX 0.10.2's default (`make_mesh` gives `Explicit` axes), against JAX
0.10.2 on 4 CPU devices: each case of scripts/explicit_cases.py gives the same types
(`float32[8@x,4@y]`), result shardings, values, jaxpr text and exception types and messages
(`ShardingTypeError`) in both libraries, run in the session's 4-device workers."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.devices import cases

SCRIPT = Path(__file__).parent / "scripts" / "explicit_cases.py"


@pytest.fixture(scope="module")
def results(device_workers) -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return device_workers.run_both(SCRIPT)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("case", cases(SCRIPT, "t", "tm"))
def test_against_jax(results, case):
    ours, theirs = results
    assert case in theirs, f"the JAX script did not run case {case}"
    assert ours[case] == theirs[case], f"{case}:\ndidax {ours[case]}\njax   {theirs[case]}"
