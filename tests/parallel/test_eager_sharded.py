"""Eager operations on Arrays split over a mesh, on 4 CPU devices, against JAX 0.10.2 on 4
CPU devices: an operation with an operand split over a mesh runs on its devices, as one
program XLA partitions (JAX's `apply_primitive`: a jit of the one primitive), and its result
stays on them, split as XLA chose. Each case compares the values and dtypes, the result's
sharding (its type, spec, mesh, devices, `is_fully_replicated`, block shape) and the blocks
`debug.visualize_array_sharding` draws. Both libraries run with their defaults (JAX's
partitioner is Shardy; didax writes GSPMD's `mhlo.sharding`).

The device count is fixed when a client starts, so each library runs in a subprocess with
`XLA_FLAGS=--xla_force_host_platform_device_count=4`, as tests/parallel/test_sharding.py.
"""

from __future__ import annotations

import textwrap

import didax
import didax.numpy as dnp
import pytest
from didax.numpy import indexing
from didax.primitives.slicing import GatherScatterMode
from subprocess_devices import assert_same_values, cases, run_with_devices

PRELUDE = """
import contextlib, io, json, re, sys
import numpy as np
M = __import__(sys.argv[1])
if sys.argv[1] == "jax":
    import jax.numpy as jnp
    from jax import lax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
else:
    import didax.numpy as jnp
    from didax import lax
    from didax.sharding import Mesh, NamedSharding, PartitionSpec as P
res = {}
line = Mesh(np.array(M.devices()), ("x",))
grid = Mesh(np.array(M.devices()).reshape(2, 2), ("x", "y"))
x = M.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(line, P("x")))
x2 = M.device_put(jnp.arange(32.0).reshape(8, 4) / 4, NamedSharding(line, P("x")))
v = M.device_put(jnp.arange(8.0), NamedSharding(line, P("x")))
xi = M.device_put(jnp.arange(32).reshape(8, 4), NamedSharding(line, P("x")))
g = M.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(grid, P("x", "y")))
gc = M.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(grid, P(None, "y")))
gr = M.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(grid, P()))
w = jnp.ones((4, 3))


def blocks(a):
    # the picture's rows of device labels, made from the sharding's blocks, as
    # `visualize_array_sharding` lays them out (JAX draws it with `rich`, if installed)
    shape = a.shape if a.ndim == 2 else (1, *a.shape)
    found = {}
    for d, index in a.sharding.devices_indices_map(a.shape).items():
        index = tuple(index) if a.ndim == 2 else (slice(None), *index)
        key = tuple(s.indices(n)[:2] for s, n in zip(index, shape))
        found.setdefault(key, []).append(d.id)
    rows = sorted({k[0] for k in found})
    cols = sorted({k[1] for k in found})
    return [["CPU " + ",".join(map(str, sorted(found[(r, c)]))) for c in cols] for r in rows]


def picture(a):
    if a.ndim not in (1, 2):
        return None
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            M.debug.visualize_array_sharding(a)
    except ValueError as e:  # JAX without `rich`: its blocks, laid out as it would draw them
        if "rich" not in str(e):
            raise
        return blocks(a)
    lines = out.getvalue().splitlines()
    return [re.findall(r"CPU [\\d,]+", s) for s in lines if "CPU" in s]


def placed(a):
    s = a.sharding
    return {
        "values": [[str(a.dtype), np.asarray(a).tolist()]],
        "weak_type": bool(a.weak_type),
        "sharding": [type(s).__name__, repr(getattr(s, "spec", None)),
                     list(getattr(getattr(s, "mesh", None), "shape", {}).items())],
        "devices": sorted(d.id for d in a.devices()),
        "is_fully_replicated": a.is_fully_replicated,
        "shard_shape": list(s.shard_shape(a.shape)),
        "picture": picture(a),
    }


def t(name, fn):
    try:
        res[name] = placed(fn())
    except Exception as e:  # the builtin type (JAX's subclasses differ)
        base = next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")
        res[name] = {"values": ["ERR", base]}
"""

SCRIPT = """
t("sin", lambda: jnp.sin(x))
t("neg", lambda: -x)
t("exp_grid", lambda: jnp.exp(g / 32))
t("abs_int", lambda: jnp.abs(xi - 16))
t("add_split", lambda: x + x2)
t("mul_split_1d", lambda: v * v)
t("add_grid_other_spec", lambda: g + gc)
t("add_grid_replicated", lambda: g + gr)
t("mul_scalar", lambda: x * 2)
t("add_scalar", lambda: x + 1)
t("rsub_scalar", lambda: 2.0 - x)
t("mul_numpy_scalar", lambda: x * np.float32(3))
t("int_add_scalar", lambda: xi + 1)
t("int_mul_float", lambda: xi * 1.5)
t("int_div", lambda: xi / 2)
t("add_numpy", lambda: x + np.ones((8, 4), np.float32))
t("add_single_device", lambda: x + jnp.ones((8, 4)))
t("add_broadcast", lambda: x + jnp.arange(4.0))
t("greater", lambda: x > 3)
t("astype", lambda: x.astype(jnp.int32))
t("where", lambda: jnp.where(x > 10, x, 0.0))
t("sum", lambda: x.sum())
t("sum_split_axis", lambda: x.sum(0))
t("sum_other_axis", lambda: x.sum(1))
t("max_split_axis", lambda: x.max(0))
t("mean", lambda: x.mean())
t("argmax", lambda: x.argmax(1))
t("cumsum", lambda: jnp.cumsum(x, 0))
t("sum_1d", lambda: v.sum())
t("grid_sum", lambda: g.sum())
t("grid_sum0", lambda: g.sum(0))
t("grid_sum1", lambda: g.sum(1))
t("matmul_replicated_weights", lambda: x @ w)
t("matmul_split_both", lambda: g @ g.T)
t("matmul_1d", lambda: jnp.dot(v, v))
t("slice_rows", lambda: x[0:2])
t("slice_row", lambda: x[0])
t("slice_column", lambda: x[:, 1])
t("slice_step", lambda: v[::2])
t("slice_block", lambda: x[2:6, 1:3])
t("slice_full", lambda: x[:, :])
t("slice_grid", lambda: g[2:6])
t("reshape", lambda: x.reshape(4, 8))
t("reshape_flat", lambda: x.reshape(32))
t("reshape_unnamed", lambda: x.reshape(2, 16))
t("transpose", lambda: x.T)
t("transpose_grid", lambda: g.T)
t("reshape_grid", lambda: g.reshape(4, 8))
t("chain", lambda: jnp.tanh(x * 2 + 1).sum(1) / 3)
t("replicated_result_then_op", lambda: x.sum(0) * 2)
t("scalar_result_then_op", lambda: x.sum() + 1)
t("lax_reduce_max", lambda: lax.reduce_max(g, (1,)))
t("concatenate", lambda: jnp.concatenate([x, x2], 0))
t("outer", lambda: jnp.outer(v, v))
t("broadcast_to", lambda: jnp.broadcast_to(v, (3, 8)))
t("expand_dims", lambda: x[None])
t("take", lambda: jnp.take(v, jnp.array([1, 5])))
t("at_set_row", lambda: x.at[0].set(1.0))
t("at_add_column", lambda: x.at[:, 1].add(1.0))
t("sort_split_axis", lambda: jnp.sort(x, 0))
t("sort_other_axis", lambda: jnp.sort(-x, 1))
t("clip", lambda: jnp.clip(x, 3, 20))
t("floor_divide", lambda: x // 3)
t("remainder", lambda: x % 3)
t("power", lambda: x**2)
t("count_along_split_axis", lambda: jnp.sum(x > 3, 0))
t("plus_random", lambda: x + M.random.normal(M.random.key(0), (8, 4)))
# higher-order primitives and transformations, evaluated eagerly on split values
t("cond", lambda: lax.cond(True, lambda a: a * 2, lambda a: a + 1, x))
t("fori_loop", lambda: lax.fori_loop(0, 3, lambda i, a: a * 2, x))
t("scan", lambda: lax.scan(lambda c, r: (c + r, c), jnp.zeros(4), x)[1])
t("relu", lambda: M.nn.relu(x - 10))
t("softmax", lambda: M.nn.softmax(x, axis=1))
t("grad", lambda: M.grad(lambda a: (jnp.sin(a) * a).sum())(x))
t("jvp", lambda: M.jvp(jnp.sin, (x,), (x,))[1])
t("vmap", lambda: M.vmap(lambda r: r * r.sum())(x))
t("jit_result_then_op", lambda: M.jit(lambda a: a * 2)(x) + 1)
# a jit equation evaluated on split values (under grad, vmap) runs partitioned too
jitted = M.jit(lambda a: jnp.sin(a) * 2)
t("grad_of_jit", lambda: M.grad(lambda a: jitted(a).sum())(x))
t("value_of_value_and_grad", lambda: M.value_and_grad(lambda a: jitted(a).sum())(x)[0])
t("grad_of_value_and_grad", lambda: M.value_and_grad(lambda a: jitted(a).sum())(x)[1])
t("vmap_of_jit", lambda: M.vmap(jitted)(x))
def printing(a):
    M.debug.print("sum {}", a.sum())
    return a * 2
# (didax does not partition a program that prints: gathered, on one device, as JAX's here)
t("grad_of_printing_jit", lambda: M.grad(lambda a: M.jit(printing)(a).sum())(x))
deleted = x * 1
deleted.delete()
t("deleted", lambda: deleted * 2)
t("deleted_jit", lambda: M.jit(lambda a: a + 1)(deleted))
print(json.dumps(res))
"""

COMPILES = """
# each signature (primitive, params, operand types and shardings) is compiled once
compiles = []
from didax.runtime import executable
original_compile = executable.compile_module
def counting(*args, **kwargs):
    compiles.append(1)
    return original_compile(*args, **kwargs)
for module in list(sys.modules.values()):  # each module that imported it by name
    if getattr(module, "compile_module", None) is original_compile:
        module.compile_module = counting
counts = []
for _ in range(3):
    x * 2, jnp.sin(x), x + x2, x.sum(0)
    counts.append(len(compiles))
x * 5, x * 7  # other scalars of the same type (an int becomes an f32 Array, as 2 did)
counts.append(len(compiles))
x * 5.0, x * 9.0  # a float stays a weak Python scalar operand: one new signature
counts.append(len(compiles))
jnp.sin(v)  # another shape: a new program
counts.append(len(compiles))
a = jnp.ones((8, 4))  # one device: NumPy's path, nothing compiled
for _ in range(3):
    a * 2, jnp.sin(a), a.sum(0), a[0:2]
counts.append(len(compiles))
res["counts"] = counts
res["value"] = np.asarray(x * 7).tolist()
res["jax imported"] = any(m == "jax" or m.startswith("jax.") for m in sys.modules)
print(json.dumps(res))
"""


def run(module: str, script: str) -> dict:
    return run_with_devices(textwrap.dedent(PRELUDE) + textwrap.dedent(script), module)


@pytest.fixture(scope="module")
def results() -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return run("didax", SCRIPT), run("jax", SCRIPT)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("case", cases(SCRIPT))
def test_against_jax(results, case):
    ours, theirs = (r[case] for r in results)
    assert_same_values(ours["values"], theirs["values"])
    for key in theirs:
        assert ours[key] == theirs[key], f"{case} {key}:\ndidax {ours[key]}\njax   {theirs[key]}"


@pytest.mark.timeout(300)
def test_one_compilation_per_signature():
    out = run("didax", COMPILES)
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
