"""A jit's `in_shardings`/`out_shardings` where its call is traced (inside another jit,
make_jaxpr, grad, jvp, vmap), on 4 CPU devices against JAX 0.10.2 on 4 CPU devices: the
`jit` equation's shardings as JAX prints them (and as its jvp, partial evaluation, transpose
and vmap rules pass them on), the `@Sharding` annotations of a nested jit's function, the
enclosing program partitioned over their mesh, and the shardings and values of the results.

Each library runs in the session's worker with 4 devices, with test_sharding.py's prelude (JAX with
`jax_use_shardy_partitioner=False`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_sharding import _close


@pytest.fixture(scope="module")
def results(device_workers) -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return device_workers.run_both(Path(__file__).parent / "scripts" / "jit_shardings.py")


CASES = [
    *(f"jaxpr_{name}" for name in ("direct", "direct_host", "in_only", "out_only", "plain")),
    "jaxpr_inline",
    *(f"jaxpr_{name}" for name in ("two", "tree", "nested", "grad", "grad_in_only", "jvp")),
    *(f"jaxpr_{name}" for name in ("jvp_two_zero", "vmap", "vmap_2d", "vmap_unbatched")),
    "jaxpr_grad_vmap",
    *(f"lower_{name}" for name in ("nested", "nested_host", "two", "twice", "vmap")),
    "nested",
    "nested_host",
    "nested_twice",
    "nested_tree",
    "grad",
    "grad_host",
    "grad_inline",
    "nested_inline",
    "grad_of_nesting_jit",
    "grad_of_jit_wsc",
    "jvp_of_jit_wsc",
    "grad_2d",
    "grad_two",
    "value_and_grad",
    "jit_grad",
    "jvp",
    "vmap",
    "vmap_2d",
    "vmap_unbatched",
]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("case", CASES)
def test_against_jax(results, case):
    ours, theirs = results
    assert case in theirs, f"the JAX script did not run case {case}"
    assert _close(ours[case], theirs[case]), f"{case}:\ndidax {ours[case]}\njax   {theirs[case]}"


def test_cases_all_run(results):
    ours, theirs = results
    assert sorted(ours) == sorted(theirs) == sorted(CASES)
