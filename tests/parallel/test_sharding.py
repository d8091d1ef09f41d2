"""Sharded arrays and sharded jit on 4 CPU devices against JAX 0.10.2 on 4 CPU devices:
meshes, partition specs and NamedShardings (reprs, blocks, errors), `device_put` over a mesh,
jit of split arguments and with `in_shardings`/`out_shardings` (values, the shardings of the
results, the `mhlo.sharding` annotations and the partitioned HLO's per-device shapes),
`with_sharding_constraint` (jaxpr text, under vmap and grad), the gradient of a sharded
function, and a data-parallel training step equal to its single-device run.

The device count is fixed when a client starts, so each library runs in a subprocess with
`XLA_FLAGS=--xla_force_host_platform_device_count=4`, as tests/parallel/test_pmap.py does.
JAX 0.10.2 lowers with Shardy (`sdy.sharding`) by default; it runs here with
`jax_use_shardy_partitioner=False`, whose `mhlo.sharding` annotations didax writes.
"""

from __future__ import annotations

import re
import textwrap

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import lax
from didax.sharding import Mesh, NamedSharding, PartitionSpec
from subprocess_devices import run_with_devices

PRELUDE = """
import contextlib, io, json, re, sys
import numpy as np
M = __import__(sys.argv[1])
if sys.argv[1] == "jax":
    import jax.numpy as jnp
    from jax import lax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P, AxisType
    M.config.update("jax_use_shardy_partitioner", False)
else:
    import didax.numpy as jnp
    from didax import lax
    from didax.sharding import Mesh, NamedSharding, PartitionSpec as P, AxisType
res = {}
mesh = Mesh(np.array(M.devices()).reshape(2, 2), ("x", "y"))
line = Mesh(np.array(M.devices()), ("i",))
xy = NamedSharding(mesh, P("x", "y"))
rows = NamedSharding(mesh, P("x"))
x = M.device_put(jnp.arange(16.0).reshape(4, 4), xy)

def t(name, fn):
    try:
        res[name] = fn()
    except Exception as e:  # the builtin type (JAX's subclasses differ) and the message
        base = next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")
        res[name] = ["ERR", base, str(e).split("\\n")[0]]

def t_type(name, fn):  # errors whose messages differ: the builtin type only
    try:
        fn()
        res[name] = "no error"
    except Exception as e:
        res[name] = next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")

def value(a):
    a = np.asarray(a)
    return [str(a.dtype), a.tolist()]

def placed(a):  # value, sharding and where each block is
    shards = sorted((s.device.id, repr(s.index), s.replica_id, np.asarray(s.data).tolist())
                    for s in a.addressable_shards)
    return [value(a), repr(a.sharding), sorted(d.id for d in a.devices()), shards,
            a.is_fully_replicated, a.is_fully_addressable]
"""

SCRIPT = """
t("mesh", lambda: [repr(mesh), str(mesh), repr(line), mesh.size, list(mesh.shape.items()),
                   mesh.axis_names, mesh.devices.shape])
t("make_mesh", lambda: repr(M.make_mesh((2, 2), ("a", "b"), axis_types=(AxisType.Auto,) * 2)))
t("make_mesh_devices", lambda: M.make_mesh((2, 2), ("a", "b"),
                                           axis_types=(AxisType.Auto,) * 2).device_ids.tolist())
t("specs", lambda: [repr(P()), repr(P("x")), repr(P("x", None)), repr(P(("x", "y"),)),
                    repr(P(None, ("y", "x"))), P("x") == P("x", None), P("x") == P("x")])
t("named", lambda: [repr(xy), repr(NamedSharding(line, P(None, "i"))), xy.num_devices,
                    xy.is_fully_replicated, NamedSharding(mesh, P()).is_fully_replicated,
                    xy.shard_shape((4, 8)), repr(sorted(
                        (d.id, i) for d, i in rows.devices_indices_map((4, 2)).items()))])
t("bad_axis", lambda: NamedSharding(mesh, P("z")))
t("duplicate_axis", lambda: NamedSharding(mesh, P("x", "x")))
t("mesh_rank", lambda: Mesh(np.array(M.devices()), ("a", "b")))

t("put_xy", lambda: placed(x))
t("put_rows", lambda: placed(M.device_put(jnp.arange(8.0).reshape(4, 2), rows)))
t("put_cols_1d", lambda: placed(M.device_put(jnp.arange(8), NamedSharding(mesh, P("y")))))
t("put_both_axes", lambda: placed(M.device_put(jnp.arange(8.0), NamedSharding(mesh, P(("x", "y"))))))
t("put_replicated", lambda: placed(M.device_put(jnp.ones(3), NamedSharding(mesh, P()))))
t("put_line", lambda: placed(M.device_put(jnp.arange(12.0).reshape(4, 3), NamedSharding(line, P("i")))))
t("put_int_weak", lambda: [placed(M.device_put(jnp.arange(4), NamedSharding(line, P("i")))),
                           str(M.device_put(2.0, NamedSharding(mesh, P())).dtype)])
t("put_tree", lambda: [repr(a.sharding) for a in M.tree_util.tree_leaves(
    M.device_put({"a": jnp.ones((4, 4)), "b": jnp.ones(4)}, {"a": xy, "b": rows}))])
big = np.arange(32.0, dtype=np.float32).reshape(8, 4)
t("from_callback", lambda: placed(M.make_array_from_callback((8, 4), rows, lambda i: big[i])))
t("from_callback_jit", lambda: placed(M.jit(lambda a: a.sum(0) * 2)(
    M.make_array_from_callback((8, 4), xy, lambda i: big[i]))))
t("from_callback_bad_block", lambda: M.make_array_from_callback((8, 4), rows, lambda i: big))
t("put_indivisible", lambda: M.device_put(jnp.ones((3, 4)), xy))
t("put_rank", lambda: M.device_put(jnp.ones(4), xy))
t("eager_op", lambda: value(x * 2 + jnp.sin(x)))
t("print", lambda: str(x))

fns = {"mul": lambda a: a * 2, "T": lambda a: a.T, "row": lambda a: a[0],
       "matmul": lambda a: a @ a.T, "sum": lambda a: a.sum(), "sum0": lambda a: jnp.sin(a).sum(0),
       "two": lambda a: (a + 1, a.sum(1))}
for k, f in fns.items():
    t("jit_" + k, lambda f=f: [placed(o) for o in M.tree_util.tree_leaves(M.jit(f)(x))])
cached = M.jit(lambda a, b: a * 3 + b)
t("jit_cached", lambda: [placed(cached(x, 1.0)), placed(cached(x, 2.0)), placed(cached(x, 2.0)),
                         placed(cached(M.device_put(jnp.arange(16.0).reshape(4, 4), rows), 1.0)),
                         placed(cached(x, 5.0)), placed(cached(jnp.ones((4, 4)), 1.0))])
bf16 = jnp.bfloat16 if sys.argv[1] == "jax" else M.dtypes.bfloat16
t("jit_bfloat16", lambda: [[str(o.dtype), np.asarray(o).astype(np.float32).tolist(),
                            repr(o.sharding)] for o in M.jit(lambda a: (
    (a * 2).astype(bf16), a.sum(0).astype(bf16)))(x)])
t("jit_identity", lambda: placed(M.jit(lambda a: a)(x)))
t("jit_static", lambda: placed(M.jit(lambda a, n: a * n, static_argnums=1)(x, 3)))
t("jit_vmap", lambda: value(M.vmap(M.jit(lambda a: a * 2))(x)))
t("jit_mixed", lambda: placed(M.jit(lambda a, b: a * b + 1.0)(x, jnp.arange(4.0))))
t("jit_int", lambda: placed(M.jit(lambda a: a * 3)(M.device_put(jnp.arange(8).reshape(4, 2), rows))))
t("jit_chain", lambda: placed(M.jit(lambda a: a / 2)(M.jit(lambda a: a.T * 3)(x))))
t("jit_line", lambda: placed(M.jit(lambda a: jnp.tanh(a) @ jnp.ones((3, 2)))(
    M.device_put(jnp.arange(12.0).reshape(4, 3) / 10, NamedSharding(line, P("i"))))))

g = M.jit(lambda a: jnp.sin(a).sum(0), in_shardings=rows, out_shardings=NamedSharding(mesh, P()))
t("in_out_shardings", lambda: placed(g(M.device_put(jnp.arange(16.0).reshape(4, 4), rows))))
t("in_shardings_host", lambda: placed(g(np.arange(16.0, dtype=np.float32).reshape(4, 4))))
t("out_shardings_only", lambda: placed(M.jit(lambda a: jnp.sin(a) * 2,
                                             out_shardings=NamedSharding(mesh, P(None, "x")))(
    jnp.ones((4, 4)))))
t("in_shardings_tuple", lambda: placed(M.jit(lambda a, b: a @ b, in_shardings=(rows, None))(
    jnp.arange(16.0).reshape(4, 4), jnp.ones((4, 2)))))
t("out_shardings_tree", lambda: [placed(o) for o in M.tree_util.tree_leaves(
    M.jit(lambda a: {"s": a.sum(), "t": a * 2},
          out_shardings={"s": NamedSharding(mesh, P()), "t": rows})(x))])
t("in_shardings_mismatch", lambda: g(x))
other = Mesh(np.array(M.devices()[:2]), ("j",))
t_type("incompatible_devices", lambda: M.jit(lambda a, b: a + b)(
    x, M.device_put(jnp.ones((4, 4)), NamedSharding(other, P("j")))))
t_type("wsc_bad_spec", lambda: M.jit(lambda a: lax.with_sharding_constraint(
    a, NamedSharding(mesh, P(None, None, "x"))))(x))
t("in_shardings_indivisible", lambda: g(jnp.ones((3, 4))))

# pmap's results stay on the devices, split over its one-axis mesh, as JAX 0.10.2's
pm = M.pmap(lambda v: v * 2 + lax.axis_index("i"), axis_name="i")
t("pmap", lambda: placed(pm(jnp.arange(12.0).reshape(4, 3))))
t("pmap_out_axes_none", lambda: placed(M.pmap(lambda v: lax.psum(v, "i"), axis_name="i",
                                              out_axes=None)(jnp.arange(4.0))))
t("pmap_out_axes_1", lambda: placed(M.pmap(lambda v: v * 2, out_axes=1)(
    jnp.arange(8.0).reshape(4, 2))))
t("pmap_devices", lambda: placed(M.pmap(lambda v: v + 1, devices=M.devices()[1:3])(
    jnp.ones((2, 2)))))
t("pmap_tree", lambda: [placed(o) for o in M.tree_util.tree_leaves(M.pmap(
    lambda v: {"a": v.sum(), "b": (v * 3,)})(jnp.arange(8).reshape(4, 2)))])
t("pmap_then_jit", lambda: placed(M.jit(lambda a: jnp.cos(a) * 2)(pm(jnp.arange(12.0).reshape(4, 3)))))
t("pmap_then_pmap", lambda: placed(pm(pm(jnp.arange(12.0).reshape(4, 3)))))
t("pmap_eager_op", lambda: value(pm(jnp.arange(12.0).reshape(4, 3)) + 1))

wsc = lambda a: lax.with_sharding_constraint(a * 2, NamedSharding(mesh, P(None, "y")))
t("wsc_jit", lambda: placed(M.jit(wsc)(x)))
t("wsc_jit_host", lambda: placed(M.jit(wsc)(jnp.arange(16.0).reshape(4, 4))))
t("wsc_eager", lambda: placed(lax.with_sharding_constraint(jnp.arange(8.0), rows)))
t("wsc_grad", lambda: value(M.grad(lambda a: jnp.sum(jnp.sin(wsc(a))))(x)))
t("wsc_jit_grad", lambda: value(M.jit(M.grad(lambda a: jnp.sum(jnp.sin(wsc(a)))))(x)))
t("wsc_vmap", lambda: value(M.jit(M.vmap(wsc))(jnp.arange(48.0).reshape(3, 4, 4))))
t("wsc_uneven", lambda: placed(M.jit(lambda a: lax.with_sharding_constraint(a, xy))(
    jnp.arange(12.0).reshape(3, 4))))

def loss(w, a):
    return jnp.sum(jnp.tanh(a @ w) ** 2)
sg = M.jit(loss, in_shardings=(NamedSharding(mesh, P()), rows))
w0 = jnp.arange(8.0).reshape(4, 2) / 10
a0 = jnp.arange(16.0).reshape(4, 4) / 10  # (JAX's eager `x / 10` would keep x's sharding)
t("grad_of_sharded_jit", lambda: value(M.grad(sg)(w0, a0)))
t("grad_of_sharded_jit_argnums1", lambda: value(M.grad(sg, argnums=1)(w0, a0)))
t("grad_of_sharded_jit_placed", lambda: value(M.grad(sg)(w0, M.device_put(a0, rows))))
t("value_and_grad_jit", lambda: [placed(v) for v in M.tree_util.tree_leaves(
    M.jit(M.value_and_grad(loss), in_shardings=(None, rows))(w0, a0))])
print(json.dumps(res))
"""

TRAINING = """
# a small MLP, the batch split over a 4-device mesh, the parameters replicated: each step of
# SGD must give what the same step gives on one device
batch_mesh = M.make_mesh((4,), ("batch",), axis_types=(AxisType.Auto,))
data = NamedSharding(batch_mesh, P("batch"))
replicated = NamedSharding(batch_mesh, P())
rng = np.random.RandomState(0)
params = {"w1": rng.randn(3, 16).astype(np.float32) * 0.5, "b1": np.zeros(16, np.float32),
          "w2": rng.randn(16, 1).astype(np.float32) * 0.5, "b2": np.zeros(1, np.float32)}
xs = rng.randn(32, 3).astype(np.float32)
ys = (np.sin(xs.sum(1, keepdims=True))).astype(np.float32)

def predict(p, a):
    h = jnp.tanh(a @ p["w1"] + p["b1"])
    return h @ p["w2"] + p["b2"]

def mse(p, a, b):
    return jnp.mean((predict(p, a) - b) ** 2)

def step(p, a, b):
    l, g = M.value_and_grad(mse)(p, a, b)
    return M.tree_util.tree_map(lambda w, d: w - 0.1 * d, p, g), l

def train(p, a, b, stepper):
    losses = []
    for _ in range(5):
        p, l = stepper(p, a, b)
        losses.append(float(l))
    return p, losses

single = M.jit(step)
p1, l1 = train(M.device_put(params), M.device_put(xs), M.device_put(ys), single)
sharded = M.jit(step, in_shardings=(replicated, data, data), out_shardings=(replicated, replicated))
ps = M.device_put(params, replicated)
p2, l2 = train(ps, M.device_put(xs, data), M.device_put(ys, data), sharded)
res["losses"] = [l1, l2]
res["params"] = [{k: np.asarray(v).tolist() for k, v in p.items()} for p in (p1, p2)]
res["shardings"] = sorted({repr(v.sharding) for v in p2.values()})
res["data_placed"] = placed(M.device_put(xs[:8], data))
# the same step with the batch's sharding taken from the arguments (no in_shardings)
p3, l3 = train(ps, M.device_put(xs, data), M.device_put(ys, data), M.jit(step))
res["losses_implicit"] = l3
print(json.dumps(res))
"""

TEXTS = """
def texts(f, *args):
    lowered = f.lower(*args)
    text = lowered.as_text()
    hlo = lowered.compile().as_text()
    entry = hlo[hlo.index("ENTRY"):]
    return [re.findall(r'mhlo.sharding = "([^"]*)"', text),
            re.findall(r"mhlo.num_partitions = (\\d+)", text),
            re.findall(r"num_partitions=(\\d+)", hlo),
            re.findall(r"parameter\\(\\d+\\), sharding=(\\{[^}]*\\})", entry),
            re.findall(r"(\\w+\\[[\\d,]*\\])\\{[\\d,]*\\} parameter", entry)]

res["jit_args"] = texts(M.jit(lambda a: a * 2), x)
res["uncommitted"] = texts(M.jit(lambda a, b: a * b + 1.0), x, jnp.arange(4.0))
res["uncommitted_wsc"] = texts(M.jit(lambda a: lax.with_sharding_constraint(
    a * 2, NamedSharding(mesh, P(None, "y")))), jnp.ones((4, 4)))
res["in_out"] = texts(M.jit(lambda a: jnp.sin(a).sum(0), in_shardings=rows,
                            out_shardings=NamedSharding(mesh, P())),
                      M.device_put(jnp.arange(16.0).reshape(4, 4), rows))
res["wsc"] = texts(M.jit(lambda a: lax.with_sharding_constraint(
    a * 2, NamedSharding(mesh, P(None, "y")))), x)
res["wsc_vmap"] = re.findall(r"@Sharding.*", M.jit(M.vmap(lambda a: lax.with_sharding_constraint(
    a * 2, NamedSharding(mesh, P(None, "y"))))).lower(jnp.ones((3, 4, 4))).as_text())

def jaxpr(name, f, *args):
    res["jaxpr_" + name] = str(M.make_jaxpr(f)(*args))

wsc = lambda a: lax.with_sharding_constraint(a * 2, NamedSharding(mesh, P(None, "y")))
jaxpr("wsc", wsc, x)
jaxpr("wsc_vmap", M.vmap(wsc), jnp.ones((3, 4, 4)))
jaxpr("wsc_vmap_1", M.vmap(wsc, in_axes=1), jnp.ones((4, 3, 4)))
jaxpr("wsc_tree", lambda a, b: lax.with_sharding_constraint((a, b), (xy, rows)), x, x)
jaxpr("wsc_jvp", lambda a: M.jvp(wsc, (a,), (a,)), x)
print(json.dumps(res))
"""

NO_JAX = """
y = M.jit(lambda a: jnp.sin(a).sum(0))(x)
np.asarray(y)
[np.asarray(s.data) for s in y.addressable_shards]
M.jit(lambda a: lax.with_sharding_constraint(a * 2, rows))(x).block_until_ready()
p = M.pmap(lambda v: lax.psum(v, "i") * v, axis_name="i")(jnp.arange(8.0).reshape(4, 2))
[np.asarray(s.data) for s in p.addressable_shards]
out = io.StringIO()
with contextlib.redirect_stdout(out):
    M.debug.visualize_array_sharding(x)
    M.debug.visualize_array_sharding(M.device_put(jnp.arange(8.0), NamedSharding(mesh, P("y"))))
    M.debug.visualize_array_sharding(M.device_put(jnp.ones((4, 4)), rows))
res["visualize"] = out.getvalue()
# a cached call with arguments split as before takes jit's fast path (dispatch.py)
f = M.jit(lambda a, b: a * b)
outs = [float(np.asarray(f(x, x)).sum()) for _ in range(3)]
res["fast"] = [list(outs), len(f._fast), f.compilations]
outs.append(float(np.asarray(f(x, M.device_put(jnp.ones((4, 4)), rows))).sum()))  # another layout
res["fast_after"] = [outs, len(f._fast), f.compilations]
res["jax imported"] = any(m == "jax" or m.startswith("jax.") for m in sys.modules)
print(json.dumps(res))
"""


def run(module: str, script: str) -> dict:
    return run_with_devices(textwrap.dedent(PRELUDE) + textwrap.dedent(script), module)


@pytest.fixture(scope="module")
def values() -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return run("didax", SCRIPT), run("jax", SCRIPT)


CASES = [
    line.split('"')[1]
    for line in SCRIPT.splitlines()
    if line.startswith(('t("', 't_type("')) and not line.startswith('t("jit_" +')
] + ["jit_" + k for k in ("mul", "T", "row", "matmul", "sum", "sum0", "two")]


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
def test_data_parallel_training_step():
    pytest.importorskip("jax")
    ours, theirs = run("didax", TRAINING), run("jax", TRAINING)
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
def test_annotations_and_partitioned_hlo():
    pytest.importorskip("jax")
    ours, theirs = run("didax", TEXTS), run("jax", TEXTS)
    # the mhlo.sharding annotations (arguments, results, constraints; none on an uncommitted
    # argument, whose sharding XLA picks), mhlo.num_partitions, the compiled module's
    # partitions, its parameters' shardings and per-device shapes
    for case in ("jit_args", "uncommitted", "uncommitted_wsc", "in_out", "wsc", "wsc_vmap"):
        assert ours[case] == theirs[case], f"{case}:\ndidax {ours[case]}\njax   {theirs[case]}"
    assert ours["in_out"][4] == ["f32[2,4]"]  # each device's block of f32[4,4] split over 'x'
    for name in (k for k in theirs if k.startswith("jaxpr_")):
        assert ours[name] == theirs[name], f"{name}:\ndidax\n{ours[name]}\njax\n{theirs[name]}"


@pytest.mark.timeout(300)
def test_sharded_arrays_never_import_jax():
    # jaxlib's per-device views of a multi-device array (`_arrays`) import `jax` for their
    # avals; didax reads a sharded result through a gathering program instead
    out = run("didax", NO_JAX)
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
    mesh = Mesh(np.array(didax.devices()).reshape(1, 1), ("x", "x"))
    JMesh(np.array(jax.devices()).reshape(1, 1), ("x", "x"))
    assert mesh == got and repr(mesh) == repr(got)
    x = didax.device_put(jnp.arange(2.0), NamedSharding(mesh, PartitionSpec()))
    np.testing.assert_array_equal(np.asarray(x), [0.0, 1.0])
