"""pmap on 4 CPU devices against JAX 0.10.2 on 4 CPU devices: values, dtypes, gradients,
errors and jaxpr text. The device count is fixed when a client starts, so the cases run in
the session's worker process for each library (`XLA_FLAGS=...device_count=4`,
tests/helpers/devices.py); this test process keeps its one device. Each script (scripts/pmap_*.py)
prints one JSON object, case -> result."""

from __future__ import annotations

from pathlib import Path

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import lax
from helpers.devices import assert_same_values, cases

SCRIPTS = Path(__file__).parent / "scripts"


@pytest.fixture(scope="module")
def values(device_workers) -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return device_workers.run_both(SCRIPTS / "pmap_values.py")


@pytest.fixture(scope="module")
def jaxprs(device_workers) -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return device_workers.run_both(SCRIPTS / "pmap_jaxprs.py")


VALUE_CASES = cases(SCRIPTS / "pmap_values.py")
JAXPR_CASES = cases(SCRIPTS / "pmap_jaxprs.py")


@pytest.mark.oracle
@pytest.mark.timeout(900)
@pytest.mark.parametrize("case", VALUE_CASES)
def test_values_dtypes_and_errors(values, case):
    assert_same_values(values[0][case], values[1][case])


@pytest.mark.oracle
@pytest.mark.timeout(900)
@pytest.mark.parametrize("case", [c for c in JAXPR_CASES if c != "grad"])
def test_jaxpr_text(jaxprs, case):
    assert jaxprs[0][case] == jaxprs[1][case]


@pytest.mark.oracle
@pytest.mark.timeout(900)
def test_grad_jaxpr_forward_part(jaxprs):
    # The forward half (a jit of the known shard_map: residuals first, as JAX) prints as JAX
    # prints it; the backward half differs in what is not pmap's: JAX seeds the cotangent
    # with a `reshard`, and transposes expand_dims by `reduce_sum` where didax reshapes.
    mine, theirs = (text.split("reduce_sum")[0] for text in (jaxprs[0]["grad"], jaxprs[1]["grad"]))
    assert "shard_map" in mine
    assert mine == theirs


@pytest.mark.timeout(300)
def test_pmap_lowers_to_a_partitioned_program_with_manual_collectives(device_workers):
    # as JAX 0.10.2 lowers pmap: a jit partitioned over 4 devices, the shard_map's body
    # manual, its collectives between partitions (channel handle, global device ids)
    out = device_workers.run(SCRIPTS / "pmap_lowering.py", "didax")
    text, hlo, gspmd = out["text"], out["hlo"], out["gspmd_text"]
    assert "mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32" in text
    # Shardy (the default): the body inline in a manual computation over the mesh's axis
    assert 'sdy.mesh @mesh = <["i"=4]>' in text
    assert "sdy.manual_computation" in text and 'manual_axes={"i"}' in text
    assert "custom_call" not in text and "mhlo.sharding" not in text
    # GSPMD (`jax_use_shardy_partitioner=False`): custom calls around a called body
    assert (
        "custom_call @SPMDFullToShardShape" in gspmd
        and "custom_call @SPMDShardToFullShape" in gspmd
    )
    assert 'mhlo.sharding = "{manual}"' in gspmd and "call @shmap_body" in gspmd
    groups = "replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>"
    channel = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>"
    for op in ("all_reduce", "all_gather", "reduce_scatter", "all_to_all"):
        assert f'"stablehlo.{op}"' in text, op
    assert text.count(groups) == 5  # psum, pmax, all_gather, psum_scatter, all_to_all
    assert text.count(channel) == 6  # and ppermute
    assert text.count("use_global_device_ids") == 4  # not on ppermute or all_to_all
    assert text.count('"stablehlo.all_reduce"') == 2  # psum and pmax, each with its region
    assert "stablehlo.maximum" in text and "stablehlo.add" in text
    assert "source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]>" in text
    assert "stablehlo.partition_id" in text and "replica_id" not in text
    assert "all-reduce(" in hlo and "replica_groups={{0,1,2,3}}" in hlo
    assert "use_global_device_ids=true" in hlo and "num_partitions=4" in hlo


@pytest.mark.timeout(300)
def test_pmap_never_imports_jax(device_workers):
    # jaxlib's per-device views of a multi-device result import `jax`: didax reads around them
    out = device_workers.run(SCRIPTS / "pmap_no_jax.py", "didax")
    assert out["jax imported"] is False
    assert out["bfloat16"] == ["bfloat16", [[4.0] * 2] * 4]  # read as its 16 bits


def test_one_device_in_this_process():
    # the test process has one CPU device: a pmap over an axis of size 1 runs there
    x = jnp.arange(3.0).reshape(1, 3)
    out = didax.pmap(lambda v: lax.psum(jnp.sin(v), "i") + lax.axis_index("i"), "i")(x)
    np.testing.assert_allclose(np.asarray(out), np.sin(np.arange(3.0)).reshape(1, 3), rtol=1e-6)
    g = didax.grad(lambda v: jnp.sum(didax.pmap(lambda w: w * w)(v)))(x)
    np.testing.assert_allclose(np.asarray(g), 2 * np.arange(3.0).reshape(1, 3))
    with pytest.raises(ValueError, match="partitioned 1 times, but the dimension size is 2"):
        didax.pmap(lambda v: v)(jnp.ones((2, 3)))


# Arguments pmap cannot map (one device here, as in JAX's test process): ValueErrors, where
# didax raised IndexError and ZeroDivisionError from inside
BAD_ARGS = {
    "python_scalar": (lambda v: v, (1.0,), {}),
    "scalar_list": (lambda v: v, ([1.0],), {}),
    "empty_axis": (lambda v: v, (np.ones((0, 3), np.float32),), {}),
    "scalar_beside_array": (lambda a, b: a + b, (np.ones((1,), np.float32), 2.0), {}),
    "axis_beyond_rank": (lambda v: v, (np.ones((1,), np.float32),), {"in_axes": 1}),
    "zero_d_array": (lambda v: v, (np.float32(1.0),), {}),
}


@pytest.mark.oracle
@pytest.mark.parametrize("name", BAD_ARGS)
def test_arguments_pmap_cannot_map_are_value_errors(name):
    jax = pytest.importorskip("jax")
    fn, args, options = BAD_ARGS[name]
    with pytest.raises(Exception) as want:
        jax.pmap(fn, **options)(*args)
    with pytest.raises(ValueError) as got:
        didax.pmap(fn, **options)(*args)
    if name in ("axis_beyond_rank", "zero_d_array"):  # JAX: an IndexError from inside
        assert want.type is IndexError
        assert "pmap was requested to map its argument along axis" in str(got.value)
        return
    assert issubclass(want.type, ValueError)
    if name in ("python_scalar", "scalar_list"):
        assert str(got.value) == str(want.value)
    elif name == "empty_axis":
        assert "mapped axis has size 0 (shape (0, 3))" in str(got.value)
