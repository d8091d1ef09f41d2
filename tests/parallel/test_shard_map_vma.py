"""shard_map with check_vma=True (the default) against JAX 0.10.2 on 4 CPU devices: the body's
varying-manual-axes types (`f32[2]{V:x}`, `{V:(x,y)}`), the `pvary` equations JAX inserts
(a literal, a closed-over constant, an unsplit input meeting a split one, the seed of a
gradient in a body), psum as `psum_invariant`, pmax/pmin/pmean, all_gather, psum_scatter,
ppermute, all_to_all and axis_index typed as JAX types them, jvp, vjp, grad, vmap and jit of
check_vma shard_maps, the out_specs check read from the types, loop-carry and cond-branch
type errors, values, and the lowering; check_vma=False prints the untyped body.

The device count is fixed when a client starts, so each library runs in the session's worker with
`XLA_FLAGS=--xla_force_host_platform_device_count=4` (tests/helpers/devices.py), as
tests/parallel/test_shard_map.py does; JAX with `jax_use_shardy_partitioner=False`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers.devices import assert_same_values, cases

SCRIPTS = Path(__file__).parent / "scripts"


@pytest.fixture(scope="module")
def jaxprs(device_workers) -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return device_workers.run_both(SCRIPTS / "vma_jaxprs.py")


@pytest.fixture(scope="module")
def values(device_workers) -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return device_workers.run_both(SCRIPTS / "vma_values.py")


# JAX's grad seeds the cotangent of a shard_map's output with a `reshard` (its output types
# carry a mesh sharding, which didax's do not); grad_in_body's backward pass re-casts the
# literal `2.0` instead of reading the forward's cast (JAX casts in its lax wrappers, above
# the jvp trace; didax in the staging trace, below it)
DIFFERENT = {"grad", "grad_in_body"}


@pytest.mark.oracle
@pytest.mark.timeout(900)
@pytest.mark.parametrize(
    "case", [c for c in cases(SCRIPTS / "vma_jaxprs.py", "j") if c not in DIFFERENT]
)
def test_jaxpr_text(jaxprs, case):
    assert jaxprs[0][case] == jaxprs[1][case]


@pytest.mark.oracle
@pytest.mark.timeout(900)
def test_jaxprs_show_varying_types(jaxprs):
    mine = jaxprs[0]
    assert "c:f32[2]{V:x}" in mine["psum"] and "psum_invariant[axes=('x',)]" in mine["psum"]
    assert "pvary[axes=('x',)] 2.0:f32[]" in mine["psum"]
    assert "{V:(x,y)}" in mine["two_axes"] and "f32[2,2]{V:y}" in mine["two_axes"]
    assert "{V:" not in mine["check_vma_false"]
    assert "psum[axes=('x',) axis_index_groups=None]" in mine["check_vma_false"]
    assert mine["out_specs_error"] == "ERR ValueError"
    assert mine["scan_carry_error"] == mine["cond_branch_error"] == "ERR TypeError"


@pytest.mark.oracle
@pytest.mark.timeout(900)
def test_grad_jaxpr_differs_by_the_seed_only(jaxprs):
    # didax passes the seed 1.0 straight to the backward shard_map where JAX reshards it
    mine, theirs = jaxprs[0]["grad"], jaxprs[1]["grad"]
    assert "reshard" not in mine and "    i:f32[] = reshard 1.0:f32[]\n" in theirs

    def names(text: str) -> str:  # one name for every variable: the equations' shapes
        return re.sub(r"\b[a-z]{1,2}\b", "v", text)

    theirs = theirs.replace("    i:f32[] = reshard 1.0:f32[]\n", "").replace(
        "] i b", "] 1.0:f32[] b"
    )
    assert names(mine) == names(theirs)


@pytest.mark.oracle
@pytest.mark.timeout(900)
def test_grad_in_body_jaxpr_differs_by_one_cast(jaxprs):
    # the same forward pass and seed (`pvary 1.0`); didax's backward pass casts the literal
    # 2.0 again where JAX reads the forward's cast
    mine, theirs = jaxprs[0]["grad_in_body"], jaxprs[1]["grad_in_body"]
    seed = "pvary[axes=('x',)] 1.0:f32[]"
    assert mine.split(seed)[0] == theirs.split(seed)[0] and seed in theirs
    assert mine.count("pvary[axes=('x',)] 2.0:f32[]") == 2
    assert theirs.count("pvary[axes=('x',)] 2.0:f32[]") == 1
    assert len(mine.splitlines()) == len(theirs.splitlines()) + 1


@pytest.mark.oracle
@pytest.mark.timeout(900)
@pytest.mark.parametrize("case", cases(SCRIPTS / "vma_values.py"))
def test_values_dtypes_and_errors(values, case):
    assert_same_values(values[0][case], values[1][case])


@pytest.mark.oracle
@pytest.mark.timeout(600)
def test_lowering_text_equals_jax(device_workers):
    # pvary lowers to nothing, psum_invariant to the all-reduce psum lowers to; the whole
    # module as JAX 0.10.2 writes it (shardy off), but for JAX's `jax.result_info` names
    def strip(text: str) -> str:
        return re.sub(r' \{jax\.result_info = "[^"]*"\}', "", text)

    mine, theirs = device_workers.run_both(SCRIPTS / "vma_lowering.py")
    assert "stablehlo.all_reduce" in mine["text"]
    assert mine["text"] == strip(theirs["text"])


@pytest.mark.oracle
@pytest.mark.timeout(600)
def test_out_specs_error_messages_and_typeof_equal_jax(device_workers):
    mine, theirs = device_workers.run_both(SCRIPTS / "vma_messages.py")
    assert mine == theirs
