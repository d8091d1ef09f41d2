"""The device tests' fixture: a case of `scripts/placement_cases.py` run under didax and JAX."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

PLACEMENT_CASES = Path(__file__).parent / "scripts" / "placement_cases.py"


@pytest.fixture
def placement(device_workers) -> Callable[[str], tuple[dict, dict]]:
    """`placement(case)`: what the case gives under didax and under JAX (on 4 CPU devices)."""
    pytest.importorskip("jax")
    return lambda case: device_workers.run_both(PLACEMENT_CASES, case)
