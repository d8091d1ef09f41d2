"""Sharded arrays and sharded jit on 4 CPU devices against JAX 0.10.2 on 4 CPU devices:
meshes, partition specs and NamedShardings (reprs, blocks, errors), `device_put` over a mesh,
jit of split arguments and with `in_shardings`/`out_shardings` (values, the shardings of the
results, the `mhlo.sharding` annotations and the partitioned HLO's per-device shapes),
`with_sharding_constraint` (jaxpr text, under vmap and grad), the gradient of a sharded
function, and a data-parallel training step equal to its single-device run.

The device count is fixed when a client starts, so each library runs in the session's worker with
`XLA_FLAGS=--xla_force_host_platform_device_count=4`, as tests/parallel/test_pmap.py does.
JAX 0.10.2 lowers with Shardy (`sdy.sharding`) by default; it runs here with
`jax_use_shardy_partitioner=False`, whose `mhlo.sharding` annotations didax writes.
"""

from __future__ import annotations

import re
from pathlib import Path

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import lax
from didax.sharding import Mesh, NamedSharding, PartitionSpec
from helpers.devices import cases

SCRIPTS = Path(__file__).parent / "scripts"


@pytest.fixture(scope="module")
def values(device_workers) -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return device_workers.run_both(SCRIPTS / "sharding_cases.py")


CASES = cases(SCRIPTS / "sharding_cases.py", "t", "t_type") + [
    "jit_" + k for k in ("mul", "T", "row", "matmul", "sum", "sum0", "two")
]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("case", CASES)
def test_against_jax(values, case):
    ours, theirs = values
    assert case in theirs, f"the JAX script did not run case {case}"
    assert _close(ours[case], theirs[case]), f"{case}:\ndidax {ours[case]}\njax   {theirs[case]}"


def _close(a, b) -> bool:
    # floats within API.md's tolerances; everything else (reprs, dtypes, ids) exactly
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-5 + 1e-4 * abs(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return a == b


@pytest.mark.timeout(600)
def test_data_parallel_training_step(device_workers):
    pytest.importorskip("jax")
    ours, theirs = device_workers.run_both(SCRIPTS / "sharding_training.py")
    single, sharded = ours["losses"]
    assert _close(sharded, single), (single, sharded)  # the sharded run is the one-device run
    assert _close(ours["params"][1], ours["params"][0])
    assert _close(ours["losses_implicit"], single)
    assert single[-1] < single[0]  # it learns
    assert _close(ours["losses"], theirs["losses"])  # and JAX's runs give the same
    assert _close(ours["params"], theirs["params"])
    assert ours["shardings"] == theirs["shardings"]
    assert ours["data_placed"] == theirs["data_placed"]


@pytest.mark.timeout(600)
def test_annotations_and_partitioned_hlo(device_workers):
    pytest.importorskip("jax")
    ours, theirs = device_workers.run_both(SCRIPTS / "sharding_texts.py")
    # the mhlo.sharding annotations (arguments, results, constraints; none on an uncommitted
    # argument, whose sharding XLA picks), mhlo.num_partitions, the compiled module's
    # partitions, its parameters' shardings and per-device shapes
    for case in ("jit_args", "uncommitted", "uncommitted_wsc", "in_out", "wsc", "wsc_vmap"):
        assert ours[case] == theirs[case], f"{case}:\ndidax {ours[case]}\njax   {theirs[case]}"
    assert ours["in_out"][4] == ["f32[2,4]"]  # each device's block of f32[4,4] split over 'x'
    for name in (k for k in theirs if k.startswith("jaxpr_")):
        assert ours[name] == theirs[name], f"{name}:\ndidax\n{ours[name]}\njax\n{theirs[name]}"


@pytest.mark.timeout(300)
def test_sharded_arrays_never_import_jax(device_workers):
    # jaxlib's per-device views of a multi-device array (`_arrays`) import `jax` for their
    # avals; didax reads a sharded result through a gathering program instead
    out = device_workers.run(SCRIPTS / "sharding_no_jax.py", "didax")
    assert out["jax imported"] is False
    squares = float(sum(i * i for i in range(16)))
    assert out["fast"] == [[squares] * 3, 1, 1]
    assert out["fast_after"] == [[squares] * 3 + [120.0], 2, 2]
    pictures = out["visualize"].split("┌")[1:]
    assert len(pictures) == 3
    grid, halves, rows = pictures
    assert [re.findall(r"CPU [\d,]+", line) for line in grid.splitlines() if "CPU" in line] == [
        ["CPU 0", "CPU 1"],
        ["CPU 2", "CPU 3"],
    ]
    assert re.findall(r"CPU [\d,]+", halves) == ["CPU 0,2", "CPU 1,3"]
    assert re.findall(r"CPU [\d,]+", rows) == ["CPU 0,1", "CPU 2,3"]


def test_one_device_mesh():
    # this test process has one CPU device: a mesh of it runs the same paths (a partitioned
    # program of one partition), with the same values
    mesh = Mesh(np.array(didax.devices()), ("i",))
    s = NamedSharding(mesh, PartitionSpec("i"))
    x = didax.device_put(jnp.arange(4.0), s)
    assert x.sharding == s and x.devices() == set(didax.devices())
    f = didax.jit(lambda a: a * 2)
    for _ in range(2):  # the general path, then the fast path
        y = f(x)
        np.testing.assert_array_equal(np.asarray(y), [0.0, 2.0, 4.0, 6.0])
        assert isinstance(y.sharding, NamedSharding) and y.sharding.mesh == mesh
    g = didax.jit(lambda a: lax.with_sharding_constraint(jnp.sin(a), s))
    np.testing.assert_allclose(np.asarray(g(jnp.ones(4))), np.sin(np.ones(4)), rtol=1e-6)
    out = didax.jit(lambda a: a.sum(), out_shardings=NamedSharding(mesh, PartitionSpec()))(x)
    assert float(out) == 6.0 and out.sharding.spec == PartitionSpec()
    assert "mhlo.num_partitions = 1" in f.lower(x).as_text()


@pytest.mark.oracle
def test_repeated_axis_names_are_accepted_as_jax():
    jax = pytest.importorskip("jax")
    from jax.sharding import Mesh as JMesh  # noqa: PLC0415 - the oracle, imported on use

    want = jax.make_mesh((1, 1), ("x", "x"))
    got = didax.make_mesh((1, 1), ("x", "x"))
    assert got.axis_names == want.axis_names == ("x", "x")
    assert got.axis_sizes == want.axis_sizes and dict(got.shape) == dict(want.shape)
    assert repr(got.axis_types) == repr(want.axis_types) == "(Explicit, Explicit)"
    mesh = Mesh(np.array(didax.devices()).reshape(1, 1), ("x", "x"), axis_types=got.axis_types)
    JMesh(np.array(jax.devices()).reshape(1, 1), ("x", "x"))
    assert mesh == got and repr(mesh) == repr(got)
    x = didax.device_put(jnp.arange(2.0), NamedSharding(mesh, PartitionSpec()))
    np.testing.assert_array_equal(np.asarray(x), [0.0, 1.0])
