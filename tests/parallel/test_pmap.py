"""pmap on 4 CPU devices against JAX 0.10.2 on 4 CPU devices: values, dtypes, gradients,
errors and jaxpr text. The device count is fixed when a client starts, so the cases run in
one subprocess per library (`XLA_FLAGS=--xla_force_host_platform_device_count=4`); this
test process keeps its one device. Each script prints one JSON object, case -> result."""

from __future__ import annotations

import textwrap

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import lax
from subprocess_devices import assert_same_values, cases, run_with_devices

PRELUDE = """
import functools, json, sys
import numpy as np
M = __import__(sys.argv[1])
if sys.argv[1] == "jax":
    import jax.numpy as jnp
    from jax import lax
else:
    import didax.numpy as jnp
    from didax import lax
res = {}
P = functools.partial(M.pmap, axis_name="i")
x = jnp.arange(12.0).reshape(4, 3)
"""

VALUES = """
def t(name, fn):
    try:
        out = M.tree_util.tree_leaves(fn())
        res[name] = [[str(np.asarray(a).dtype), np.asarray(a).tolist()] for a in out]
    except Exception as e:  # the builtin type (subclasses differ: JAX's IndivisibleError)
        res[name] = ["ERR", next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")]

ring = [(0, 1), (1, 2), (2, 3), (3, 0)]
t("psum", lambda: P(lambda x: lax.psum(x, "i"))(x))
t("pmean", lambda: P(lambda x: lax.pmean(x, "i"))(x))
t("pmax", lambda: P(lambda x: lax.pmax(x, "i"))(x))
t("pmin", lambda: P(lambda x: lax.pmin(x, "i"))(x))
t("pmean_int", lambda: P(lambda x: lax.pmean(x, "i"))(jnp.arange(4)))
t("psum_bool", lambda: P(lambda x: lax.psum(x, "i"))(jnp.array([True, False, True, True])))
t("psum_f16", lambda: P(lambda x: lax.psum(x, "i"))(jnp.ones((4, 2), jnp.float16)))
t("psum_int_plus", lambda: P(lambda x: lax.psum(x, "i") + 1)(jnp.arange(4)))
t("axis_index", lambda: P(lambda x: x * lax.axis_index("i"))(x))
t("all_gather", lambda: P(lambda x: lax.all_gather(x, "i"))(x))
t("all_gather_axis1", lambda: P(lambda x: lax.all_gather(x, "i", axis=1))(x))
t("all_gather_tiled", lambda: P(lambda x: lax.all_gather(x, "i", tiled=True))(x))
t("psum_scatter", lambda: P(lambda x: lax.psum_scatter(x, "i"))(jnp.arange(16.0).reshape(4, 4)))
t("psum_scatter_tiled",
  lambda: P(lambda x: lax.psum_scatter(x, "i", tiled=True))(jnp.arange(32.0).reshape(4, 8)))
t("ppermute", lambda: P(lambda x: lax.ppermute(x, "i", ring))(x))
t("ppermute_partial", lambda: P(lambda x: lax.ppermute(x, "i", [(0, 1), (1, 0)]))(x))
t("all_to_all", lambda: P(lambda x: lax.all_to_all(x, "i", 0, 0))(jnp.arange(16.0).reshape(4, 4)))
t("all_to_all_01",
  lambda: P(lambda x: lax.all_to_all(x, "i", 0, 1))(jnp.arange(32.0).reshape(4, 4, 2)))
t("all_to_all_tiled",
  lambda: P(lambda x: lax.all_to_all(x, "i", 0, 0, tiled=True))(jnp.arange(32.0).reshape(4, 8)))
t("in_axes_1", lambda: M.pmap(lambda x: x * 2, in_axes=1)(jnp.arange(8.0).reshape(2, 4)))
t("out_axes_1", lambda: M.pmap(lambda x: x * 2, out_axes=1)(jnp.arange(8.0).reshape(4, 2)))
t("out_axes_none", lambda: P(lambda x: lax.psum(x, "i"), out_axes=None)(jnp.arange(4.0)))
t("in_axes_none", lambda: P(lambda x, y: x * y, in_axes=(0, None))(x, 2.0))
t("static", lambda: M.pmap(lambda x, n: x * n, static_broadcasted_argnums=1)(x, 3))
t("pytree", lambda: M.pmap(lambda d: {"a": d["a"] + 1, "b": (d["b"] * 2,)})(
    {"a": x, "b": jnp.ones((4,))}))
t("kwargs", lambda: M.pmap(lambda x, y: x + y)(x, y=x))
t("devices", lambda: P(lambda x: lax.psum(x, "i"), devices=M.devices()[1:3])(jnp.ones((2, 2))))
t("fewer_than_devices", lambda: P(lambda x: lax.psum(x, "i"))(jnp.ones((2, 2))))
t("closure", lambda: P(lambda x: x + jnp.arange(3.0))(x))

loss = lambda w, x: jnp.sum(lax.pmean(jnp.sin(w * x), "i"))
t("grad_inside", lambda: P(M.grad(loss), in_axes=(None, 0))(2.0, x))
t("grad_of_pmap",
  lambda: M.grad(lambda x: jnp.sum(P(lambda y: jnp.sin(y) * lax.psum(y, "i"))(x)))(x))
t("grad_unmapped_input", lambda: M.grad(
    lambda w: jnp.sum(P(lambda w, y: jnp.sin(w * y), in_axes=(None, 0))(w, x)))(1.5))
t("grad_unmapped_output", lambda: M.grad(
    lambda x: jnp.sum(P(lambda y: lax.psum(y * y, "i"), out_axes=None)(x)))(x))
t("grad_all_gather", lambda: M.grad(
    lambda x: jnp.sum(P(lambda y: lax.all_gather(y, "i")[1] * y)(x) ** 2))(x))
t("grad_ppermute", lambda: M.grad(
    lambda x: jnp.sum(P(lambda y: lax.ppermute(y, "i", ring) * jnp.cos(y))(x)))(x))
t("grad_psum_scatter", lambda: M.grad(lambda x: jnp.sum(
    P(lambda y: lax.psum_scatter(y, "i") ** 2)(x)))(jnp.arange(16.0).reshape(4, 4)))
t("jvp", lambda: M.jvp(P(lambda y: jnp.sin(y) * lax.psum(y, "i")), (x,), (jnp.ones_like(x),)))
t("jit_of_pmap", lambda: M.jit(lambda x: P(lambda y: lax.psum(y, "i"))(x) * 2)(x))
t("pmap_of_jit", lambda: P(M.jit(lambda y: lax.psum(jnp.cos(y), "i")))(x))
t("grad_jit_pmap", lambda: M.grad(M.jit(lambda x: jnp.sum(P(lambda y: jnp.sin(y))(x) ** 2)))(x))
t("vmap_of_pmap", lambda: M.vmap(P(lambda y: lax.psum(y, "i")))(jnp.arange(24.0).reshape(2, 4, 3)))
t("vmap_of_pmap_named", lambda: M.vmap(
    P(lambda y: lax.psum(y, "j") + lax.psum(y, "i")), axis_name="j")(
    jnp.arange(24.0).reshape(2, 4, 3)))
t("pmap_of_vmap", lambda: P(M.vmap(lambda y: lax.psum(y, ("i", "j")), axis_name="j"))(
    jnp.arange(24.0).reshape(4, 2, 3)))
t("pmap_of_vmap_in_axes_1", lambda: P(M.vmap(
    lambda y: lax.psum(y, "j") * lax.axis_index("i"), axis_name="j", in_axes=1))(
    jnp.arange(24.0).reshape(4, 3, 2)))

t("err_too_many", lambda: M.pmap(lambda x: x)(jnp.ones((5, 2))))
t("err_mismatch", lambda: M.pmap(lambda x, y: x + y)(jnp.ones((4, 2)), jnp.ones((3, 2))))
t("err_in_axes_len",
  lambda: M.pmap(lambda x, y: x + y, in_axes=(0,))(jnp.ones((4, 2)), jnp.ones((4, 2))))
t("err_no_mapped", lambda: M.pmap(lambda x: x, in_axes=None)(jnp.ones((4, 2))))
t("err_static_missing",
  lambda: M.pmap(lambda x, n: x * n, static_broadcasted_argnums=1)(jnp.ones((4, 2))))
t("err_in_axes_float", lambda: M.pmap(lambda x: x, in_axes=0.5))
t("err_unbound", lambda: P(lambda x: lax.psum(x, "j"))(jnp.ones((4, 2))))
t("err_nested", lambda: M.pmap(M.pmap(lambda x: x))(jnp.ones((2, 2, 3))))
t("const_out", lambda: M.pmap(lambda x: 1.0)(x))
t("passthrough_unmapped", lambda: M.pmap(lambda x, y: y, in_axes=(0, None))(x, jnp.ones(2)))
t("vmap_two_args", lambda: M.vmap(P(lambda a, b: lax.psum(a * b, "i"), in_axes=(0, None)),
                                  in_axes=(0, None))(jnp.ones((2, 4, 3)), 2.0))
t("vmap_out_axes_1",
  lambda: M.vmap(P(lambda a: a * lax.axis_index("i")), out_axes=1)(jnp.ones((2, 4, 3))))
t("fori_loop_inside", lambda: P(
    lambda x: lax.fori_loop(0, 3, lambda i, c: c + lax.psum(c, "i"), x))(x))
t("cond_inside", lambda: P(
    lambda x: lax.cond(lax.axis_index("i") > 1, lambda v: v * 2, lambda v: -v, x))(x))
t("hessian", lambda: M.hessian(lambda w: jnp.sum(P(lambda y: jnp.sin(w * y))(x)))(1.0))
t("jacfwd", lambda: M.jacfwd(lambda v: P(lambda y: lax.psum(y**2, "i"))(v))(jnp.arange(4.0)))
t("int_pmax", lambda: P(lambda x: lax.pmax(x, "i"))(jnp.arange(8).reshape(4, 2)))
print(json.dumps(res))
"""

JAXPRS = """
def t(name, fn, *args):
    try:
        res[name] = str(M.make_jaxpr(fn)(*args))
    except Exception as e:
        res[name] = f"ERR {type(e).__name__}"

t("basic", P(lambda x, y: (lax.psum(jnp.sin(x) * y, "i"), lax.axis_index("i")),
             in_axes=(0, None)), x, 2.0)
t("default_axis_name", M.pmap(lambda x: x * 2), jnp.ones((2, 3)))
t("collectives", P(lambda x: (lax.pmean(x, "i"), lax.all_gather(x, "i"),
                              lax.ppermute(x, "i", [(0, 1), (1, 0)]), lax.pmax(x, "i"))), x)
t("in_axes_1_out_axes_1", M.pmap(lambda x: x * 2, in_axes=1, out_axes=1), jnp.ones((3, 4)))
t("out_axes_none", P(lambda x: lax.psum(x, "i"), out_axes=None), jnp.ones(4))
t("static", M.pmap(lambda x, n: x * n, static_broadcasted_argnums=1), x, 3)
t("closure", P(lambda x: x + jnp.arange(3.0)), x)
t("pytree", M.pmap(lambda d: {"a": d["a"] + 1, "b": d["b"] * 2}), {"a": x, "b": jnp.ones((4,))})
t("jit_of_pmap", M.jit(lambda x: P(lambda y: jnp.sin(y))(x)), jnp.ones(4))
t("pmap_of_jit", P(M.jit(lambda y: lax.psum(jnp.cos(y), "i"))), jnp.ones(4))
t("grad", lambda x: M.grad(lambda x: jnp.sum(P(lambda y: jnp.sin(y))(x)))(x), jnp.ones(4))
print(json.dumps(res))
"""


def run(module: str, script: str) -> dict:
    return run_with_devices(textwrap.dedent(PRELUDE) + script, module)


@pytest.fixture(scope="module")
def values() -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return run("didax", VALUES), run("jax", VALUES)


@pytest.fixture(scope="module")
def jaxprs() -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return run("didax", JAXPRS), run("jax", JAXPRS)


VALUE_CASES = cases(VALUES)
JAXPR_CASES = cases(JAXPRS)


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


LOWERING = """
ring = [(0, 1), (1, 2), (2, 3), (3, 0)]
def f(x):
    return (lax.psum(x, "i"), lax.pmax(x, "i"), lax.all_gather(x, "i"),
            lax.psum_scatter(jnp.ones((4, 3)) * x, "i"), lax.ppermute(x, "i", ring),
            lax.all_to_all(jnp.ones((4, 3)) * x, "i", 0, 0), lax.axis_index("i"))
lowered = P(f).lower(x)
res["text"] = lowered.as_text()
res["hlo"] = lowered.compile().as_text()
print(json.dumps(res))
"""


@pytest.mark.timeout(300)
def test_pmap_lowers_to_a_partitioned_program_with_manual_collectives():
    # as JAX 0.10.2 lowers pmap: a jit partitioned over 4 devices, the shard_map's body
    # manual, its collectives between partitions (channel handle, global device ids)
    out = run("didax", LOWERING)
    text, hlo = out["text"], out["hlo"]
    assert "mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32" in text
    assert (
        "custom_call @SPMDFullToShardShape" in text and "custom_call @SPMDShardToFullShape" in text
    )
    assert 'mhlo.sharding = "{manual}"' in text and "call @shmap_body" in text
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


NO_JAX = """
f = P(lambda x: lax.psum(jnp.sin(x), "i") * lax.axis_index("i"))
f(x)
M.grad(lambda x: jnp.sum(f(x)))(x)
bf = P(lambda x: lax.psum(x, "i"))(jnp.ones((4, 2), M.dtypes.bfloat16))
res["bfloat16"] = [str(bf.dtype), np.asarray(bf, np.float32).tolist()]
res["jax imported"] = any(m == "jax" or m.startswith("jax.") for m in sys.modules)
print(json.dumps(res))
"""


@pytest.mark.timeout(300)
def test_pmap_never_imports_jax():
    # jaxlib's per-device views of a multi-device result import `jax`: didax reads around them
    out = run("didax", NO_JAX)
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
