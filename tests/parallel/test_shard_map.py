"""shard_map on 4 CPU devices against JAX 0.10.2 on 4 CPU devices: a one-axis mesh and a
2x2 mesh ('x', 'y'), specs such as P('x', None), P(('x', 'y')) and P(), every collective
over one mesh axis and over a tuple of them, shard_map outside and inside jit, under grad,
jvp and vmap, a data-parallel + model-parallel training step, JAX's error types, the
shardings of the results, jaxpr text (with `check_vma=False`; check_vma=True's varying-axes
types: test_shard_map_vma.py), the lowering (XLA's manual sharding), and pmap's results as
Arrays split over the devices.

The device count is fixed when a client starts, so each library runs in a subprocess with
`XLA_FLAGS=--xla_force_host_platform_device_count=4`, as tests/parallel/test_pmap.py does;
JAX runs with `jax_use_shardy_partitioner=False` (GSPMD's `mhlo.sharding`, as didax writes).
"""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest
from subprocess_devices import assert_same_values, cases, run_with_devices

PRELUDE = """
import functools, json, sys
import numpy as np
M = __import__(sys.argv[1])
if sys.argv[1] == "jax":
    import jax.numpy as jnp
    from jax import lax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    M.config.update("jax_use_shardy_partitioner", False)
else:
    import didax.numpy as jnp
    from didax import lax
    from didax.sharding import Mesh, NamedSharding, PartitionSpec as P
res = {}
mesh = Mesh(np.array(M.devices()).reshape(2, 2), ("x", "y"))
line = Mesh(np.array(M.devices()), ("i",))
sm = M.shard_map
nv = functools.partial(M.shard_map, check_vma=False)
x = jnp.arange(16.0).reshape(4, 4)
v8 = jnp.arange(8.0)

def t(name, fn):
    try:
        out = M.tree_util.tree_leaves(fn())
        res[name] = [[str(np.asarray(a).dtype), np.asarray(a).tolist()] for a in out]
    except Exception as e:  # the builtin type (JAX's subclasses differ) and the message
        base = next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")
        res[name] = ["ERR", base]
"""

VALUES = """
ring = [(0, 1), (1, 2), (2, 3), (3, 0)]
# a 2x2 mesh: one axis, the other, both, in both orders
t("psum_x", lambda: sm(lambda a: lax.psum(a, "x"), mesh=mesh, in_specs=P("x", "y"),
                       out_specs=P(None, "y"))(x))
t("psum_xy", lambda: sm(lambda a: lax.psum(a, ("x", "y")), mesh=mesh, in_specs=P("x", "y"),
                        out_specs=P())(x))
t("psum_yx", lambda: sm(lambda a: lax.psum(a, ("y", "x")), mesh=mesh, in_specs=P("x", "y"),
                        out_specs=P())(x))
t("pmean_y", lambda: sm(lambda a: lax.pmean(a, "y"), mesh=mesh, in_specs=P("x", "y"),
                        out_specs=P("x"))(x))
t("pmax_x", lambda: sm(lambda a: lax.pmax(a, "x"), mesh=mesh, in_specs=P("x", "y"),
                       out_specs=P(None, "y"))(x))
t("pmin_xy", lambda: sm(lambda a: lax.pmin(a, ("x", "y")), mesh=mesh, in_specs=P("x", "y"),
                        out_specs=P())(x))
t("pmax_int", lambda: sm(lambda a: lax.pmax(a, "y"), mesh=mesh, in_specs=P("x", "y"),
                         out_specs=P("x"))(jnp.arange(16).reshape(4, 4)))
t("all_gather_x", lambda: nv(lambda a: lax.all_gather(a, "x", tiled=True), mesh=mesh,
                             in_specs=P("x", "y"), out_specs=P(None, "y"))(x))
t("all_gather_y_axis1", lambda: nv(lambda a: lax.all_gather(a, "y", axis=1), mesh=mesh,
                                   in_specs=P("x", "y"), out_specs=P("x"))(x))
t("all_gather_xy", lambda: nv(lambda a: lax.all_gather(a, ("x", "y")), mesh=mesh,
                              in_specs=P("x", "y"), out_specs=P())(x))
t("all_gather_yx_tiled", lambda: nv(lambda a: lax.all_gather(a, ("y", "x"), tiled=True),
                                    mesh=mesh, in_specs=P("x", "y"), out_specs=P())(x))
t("psum_scatter_y", lambda: nv(lambda a: lax.psum_scatter(a, "y", scatter_dimension=1,
                                                          tiled=True),
                               mesh=mesh, in_specs=P("x", None), out_specs=P("x", "y"))(x))
t("psum_scatter_x", lambda: nv(lambda a: lax.psum_scatter(a, "x"), mesh=mesh,
                               in_specs=P(None, "y"), out_specs=P(None, "y"))(
                                   jnp.arange(8.0).reshape(2, 4)))
t("ppermute_x", lambda: nv(lambda a: lax.ppermute(a, "x", [(0, 1), (1, 0)]), mesh=mesh,
                           in_specs=P("x", "y"), out_specs=P("x", "y"))(x))
t("ppermute_y_partial", lambda: nv(lambda a: lax.ppermute(a, "y", [(0, 1)]), mesh=mesh,
                                   in_specs=P("x", "y"), out_specs=P("x", "y"))(x))
t("ppermute_xy", lambda: nv(lambda a: lax.ppermute(a, ("x", "y"), ring), mesh=mesh,
                            in_specs=P(("x", "y")), out_specs=P(("x", "y")))(v8))
t("all_to_all_y", lambda: nv(lambda a: lax.all_to_all(a, "y", 0, 1, tiled=True), mesh=mesh,
                             in_specs=P("x", "y"), out_specs=P("x", "y"))(x))
t("all_to_all_x_untiled", lambda: nv(lambda a: lax.all_to_all(a, "x", 0, 0), mesh=mesh,
                                     in_specs=P(None, "y"), out_specs=P(None, "y"))(
                                         jnp.arange(8.0).reshape(2, 4)))
t("psum_scatter_xy", lambda: nv(lambda a: lax.psum_scatter(a, ("x", "y"), tiled=True),
                                mesh=mesh, in_specs=P(), out_specs=P(("x", "y")))(
                                    jnp.arange(8.0)))
t("all_to_all_xy", lambda: nv(lambda a: lax.all_to_all(a, ("x", "y"), 0, 0, tiled=True),
                              mesh=mesh, in_specs=P(("x", "y")), out_specs=P(("x", "y")))(
                                  jnp.arange(16.0)))
t("all_to_all_yx", lambda: nv(lambda a: lax.all_to_all(a, ("y", "x"), 1, 0, tiled=True),
                              mesh=mesh, in_specs=P("x", "y"), out_specs=P(("x", "y")))(
                                  jnp.arange(32.0).reshape(4, 8)))
t("pmax_yx_grad_free", lambda: nv(lambda a: lax.pmax(a, ("y", "x")) - a, mesh=mesh,
                                  in_specs=P("x", "y"), out_specs=P("x", "y"))(x))
t("axis_index_xy", lambda: sm(
    lambda a: a * 0 + 10 * lax.axis_index("x") + lax.axis_index("y"), mesh=mesh,
    in_specs=P("x", "y"), out_specs=P("x", "y"))(jnp.zeros((2, 2), jnp.int32)))
t("spec_xy_tuple", lambda: sm(lambda a: a * (2 * lax.axis_index("x") + lax.axis_index("y")),
                              mesh=mesh, in_specs=P(("x", "y")), out_specs=P(("x", "y")))(v8))
t("spec_yx_tuple", lambda: sm(lambda a: a + 0, mesh=mesh, in_specs=P(("y", "x")),
                              out_specs=P(("x", "y")))(v8))
t("replicated_in", lambda: sm(lambda w, a: a * w, mesh=mesh, in_specs=(P(), P("x")),
                              out_specs=P("x"))(jnp.arange(4.0), x))
t("pytree_specs", lambda: sm(lambda d: {"s": d["a"] + d["b"], "t": (d["a"] * 2,)}, mesh=mesh,
                             in_specs=({"a": P("x"), "b": P("x")},),
                             out_specs={"s": P("x"), "t": (P("x"),)})(
                                 {"a": x, "b": jnp.ones((4, 4))}))
t("closure", lambda: sm(lambda a: a + jnp.arange(2.0), mesh=mesh, in_specs=P("x", "y"),
                        out_specs=P("x", "y"))(x))
t("scalar_out", lambda: sm(lambda a: lax.psum(jnp.sum(a), ("x", "y")), mesh=mesh,
                           in_specs=P("x", "y"), out_specs=P())(x))
def experimental():  # the deprecated spelling, with its DeprecationWarning
    import importlib, warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        esm = importlib.import_module(sys.argv[1] + ".experimental.shard_map").shard_map
        out = esm(lambda a: lax.psum(a, "y"), mesh, P("x", "y"), P("x"), check_rep=False)(x)
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    return out

t("experimental", experimental)
t("decorator", lambda: M.shard_map(mesh=mesh, in_specs=P("x"), out_specs=P("x"))(
    lambda a: a * 2)(x))
# a mesh of the devices in another order: groups and indices follow the mesh, not device ids
rev = Mesh(np.array(M.devices()[::-1]).reshape(2, 2), ("x", "y"))
t("reversed_mesh", lambda: nv(lambda a: (lax.psum(a, "x"), lax.all_gather(a, "y", tiled=True),
                                         a * 0 + 10 * lax.axis_index("x") + lax.axis_index("y"),
                                         lax.ppermute(a, "y", [(0, 1), (1, 0)])),
                              mesh=rev, in_specs=P("x", "y"),
                              out_specs=(P(None, "y"), P("x"), P("x", "y"), P("x", "y")))(x))
# a one-axis mesh
t("line_psum", lambda: sm(lambda a: lax.psum(a, "i"), mesh=line, in_specs=P("i"),
                          out_specs=P())(v8))
t("line_all_gather", lambda: nv(lambda a: lax.all_gather(a, "i"), mesh=line,
                                in_specs=P("i"), out_specs=P())(v8))
t("line_psum_scatter", lambda: nv(lambda a: lax.psum_scatter(a, "i", tiled=True), mesh=line,
                                  in_specs=P(), out_specs=P("i"))(v8))
t("line_ppermute", lambda: nv(lambda a: lax.ppermute(a, "i", ring), mesh=line,
                              in_specs=P("i"), out_specs=P("i"))(v8))
t("line_all_to_all", lambda: nv(lambda a: lax.all_to_all(a, "i", 0, 0, tiled=True),
                                mesh=line, in_specs=P("i"), out_specs=P("i"))(
                                    jnp.arange(16.0)))
t("line_axis_index", lambda: sm(lambda a: a * lax.axis_index("i"), mesh=line,
                                in_specs=P("i"), out_specs=P("i"))(v8))
t("line_pmean_2d", lambda: sm(lambda a: lax.pmean(a, "i"), mesh=line, in_specs=P(None, "i"),
                              out_specs=P())(x))
# inside jit, under transformations
f = nv(lambda a: lax.psum(jnp.sin(a), "x") * a, mesh=mesh, in_specs=P("x", "y"),
       out_specs=P(None, "y"))
t("jit", lambda: M.jit(f)(x))
t("jit_around", lambda: M.jit(lambda v: f(v * 2) + 1.0)(x))
t("jit_inside", lambda: sm(M.jit(lambda a: lax.psum(a, "y")), mesh=mesh, in_specs=P("x", "y"),
                           out_specs=P("x"))(x))
t("jit_two", lambda: M.jit(lambda v: f(f(v)))(x))
loss = lambda w, v: jnp.sum(sm(lambda w, a: lax.psum(jnp.sum(jnp.sin(a @ w)), "x"), mesh=mesh,
                               in_specs=(P(), P("x")), out_specs=P())(w, v))
w0 = jnp.arange(16.0).reshape(4, 4) / 16.0
t("grad", lambda: M.grad(loss)(w0, x / 16.0))
t("grad_argnums", lambda: M.grad(loss, argnums=(0, 1))(w0, x / 16.0))
t("jit_grad", lambda: M.jit(M.grad(loss))(w0, x / 16.0))
t("grad_jit", lambda: M.grad(M.jit(loss))(w0, x / 16.0))
g2 = lambda v: jnp.sum(nv(lambda a: lax.all_gather(a, "y", tiled=True, axis=1) ** 2 * 0.5,
                          mesh=mesh, in_specs=P("x", "y"), out_specs=P("x"))(v))
t("grad_all_gather", lambda: M.jit(M.grad(g2))(x))
g3 = lambda v: jnp.sum(jnp.cos(nv(lambda a: lax.ppermute(a, "x", [(0, 1), (1, 0)]) * a,
                                  mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))(v)))
t("grad_ppermute", lambda: M.grad(g3)(x / 16.0))
g4 = lambda v: jnp.sum(nv(lambda a: lax.psum_scatter(a, "y", scatter_dimension=1,
                                                     tiled=True) ** 2,
                          mesh=mesh, in_specs=P("x"), out_specs=P("x", "y"))(v))
t("grad_psum_scatter", lambda: M.grad(g4)(x))
g5 = lambda v: jnp.sum(nv(lambda a: lax.all_to_all(a, "y", 0, 1, tiled=True) ** 3,
                          mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))(v))
t("grad_all_to_all", lambda: M.grad(g5)(x / 16.0))
g6 = lambda v: jnp.sum(nv(lambda a: lax.psum(a, "x") * jnp.sin(a), mesh=mesh,
                          in_specs=P("x", "y"), out_specs=P(None, "y"))(v))
t("grad_unmentioned_out", lambda: M.grad(g6)(x / 16.0))
t("jvp", lambda: M.jvp(f, (x,), (jnp.ones_like(x),)))
t("vmap", lambda: M.vmap(f)(jnp.arange(32.0).reshape(2, 4, 4)))
t("vmap_in_axes_1", lambda: M.vmap(f, in_axes=1)(jnp.arange(32.0).reshape(4, 2, 4)))
t("hessian", lambda: M.hessian(lambda s: jnp.sum(f(x * s)))(0.5))
t("cond_inside", lambda: sm(lambda a: lax.cond(lax.axis_index("x") > 0, lambda u: u * 2,
                                               lambda u: -u, a),
                            mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))(x))
t("scan_inside", lambda: nv(lambda a: lax.fori_loop(0, 3, lambda i, c: c + lax.psum(c, "y"), a),
                            mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))(x))

# data parallel ('data') x model parallel ('model') training step of a two-layer network
dmesh = Mesh(np.array(M.devices()).reshape(2, 2), ("data", "model"))
X = jnp.arange(24.0).reshape(8, 3) / 24.0
Y = jnp.sin(jnp.arange(8.0)).reshape(8, 1)
W1 = jnp.arange(12.0).reshape(3, 4) / 12.0 - 0.3
W2 = jnp.arange(4.0).reshape(4, 1) / 4.0 - 0.2

def local_loss(w1, w2, xb, yb):
    h = jnp.tanh(xb @ w1)  # this device's hidden units
    out = lax.psum(h @ w2, "model")  # the sum over every device's hidden units
    return lax.pmean(jnp.mean((out - yb) ** 2), "data")

sharded_loss = nv(local_loss, mesh=dmesh, in_specs=(P(None, "model"), P("model", None),
                                                   P("data"), P("data")), out_specs=P())

@M.jit
def train_step(w1, w2, xb, yb):
    l, (g1, g2) = M.value_and_grad(sharded_loss, argnums=(0, 1))(w1, w2, xb, yb)
    return w1 - 0.5 * g1, w2 - 0.5 * g2, l

def train():
    w1, w2 = W1, W2
    losses = []
    for _ in range(3):
        w1, w2, l = train_step(w1, w2, X, Y)
        losses.append(l)
    return w1, w2, losses

t("train_step", train)

# check_vma=True (the default): an output that may vary along an axis its spec leaves out
t("vma_psum_ok", lambda: sm(lambda a: lax.psum(a * 2, "y"), mesh=mesh, in_specs=P("x", "y"),
                            out_specs=P("x"))(x))
t("vma_pmean_both_ok", lambda: sm(lambda a: lax.pmean(jnp.sin(a), ("x", "y")), mesh=mesh,
                                  in_specs=P("x", "y"), out_specs=P())(x))
t("vma_replicated_in_ok", lambda: sm(lambda w, a: (w * 2, a + w), mesh=mesh,
                                     in_specs=(P(), P("x")), out_specs=(P(), P("x")))(2.0, x))
t("err_vma_out", lambda: sm(lambda a: a * 2, mesh=mesh, in_specs=P("x", "y"),
                            out_specs=P("x"))(x))
t("err_vma_both", lambda: sm(lambda a: a * 2, mesh=mesh, in_specs=P("x", "y"),
                             out_specs=P())(x))
t("err_vma_axis_index", lambda: sm(lambda a: a * 0 + lax.axis_index("y"), mesh=mesh,
                                   in_specs=P("x"), out_specs=P("x"))(x))
t("err_vma_all_gather", lambda: sm(lambda a: lax.all_gather(a, "y", tiled=True, axis=1),
                                   mesh=mesh, in_specs=P("x", "y"), out_specs=P("x"))(x))
t("err_vma_second_out", lambda: sm(lambda a: (lax.psum(a, "x"), a), mesh=mesh,
                                   in_specs=P("x", "y"), out_specs=(P(None, "y"), P("y")))(x))
t("err_vma_in_jit", lambda: sm(M.jit(lambda a: a + 1), mesh=mesh, in_specs=P("x", "y"),
                               out_specs=P("x"))(x))

# errors
t("err_unknown_axis", lambda: sm(lambda a: a, mesh=mesh, in_specs=P("z"), out_specs=P("z"))(x))
t("err_out_unknown_axis", lambda: sm(lambda a: a, mesh=mesh, in_specs=P("x"),
                                     out_specs=P("z"))(x))
t("err_indivisible", lambda: sm(lambda a: a, mesh=mesh, in_specs=P("x"),
                                out_specs=P("x"))(jnp.ones((3, 4))))
t("err_indivisible_xy", lambda: sm(lambda a: a, mesh=mesh, in_specs=P(("x", "y")),
                                   out_specs=P(("x", "y")))(jnp.ones(6)))
t("err_rank", lambda: sm(lambda a: a, mesh=mesh, in_specs=P("x", "y"),
                         out_specs=P("x", "y"))(jnp.ones(4)))
t("err_out_rank", lambda: sm(lambda a: jnp.sum(a), mesh=mesh, in_specs=P("x"),
                             out_specs=P("x"))(x))
t("err_no_in_specs", lambda: sm(lambda a: a, mesh=mesh, out_specs=P())(x))
t("in_specs_none", lambda: sm(lambda a: a * 2, mesh=mesh, in_specs=None, out_specs=P())(x))
t("in_specs_none_leaf", lambda: sm(lambda a, b: a * b, mesh=mesh, in_specs=(P("x"), None),
                                  out_specs=P("x"))(x, 3.0))
t("err_not_a_spec", lambda: sm(lambda a: a, mesh=mesh, in_specs=("x",), out_specs=P())(x))
t("err_no_mesh", lambda: sm(lambda a: a, in_specs=P(), out_specs=P())(x))
t("err_mesh_type", lambda: sm(lambda a: a, mesh="mesh", in_specs=P(), out_specs=P())(x))
t("err_prefix", lambda: sm(lambda a, b: a, mesh=mesh, in_specs=(P(), P(), P()),
                           out_specs=P())(x, x))
t("err_not_callable", lambda: sm(3, mesh=mesh, in_specs=P(), out_specs=P()))
t("err_axis_names_type", lambda: sm(lambda a: a, mesh=mesh, in_specs=P(), out_specs=P(),
                                    axis_names=["x"])(x))
t("err_axis_names_unknown", lambda: sm(lambda a: a, mesh=mesh, in_specs=P(), out_specs=P(),
                                       axis_names={"z"})(x))
print(json.dumps(res))
"""

PLACED = """
def placed(a):  # value, sharding and where each block is
    shards = sorted((s.device.id, repr(s.index), s.replica_id, np.asarray(s.data).tolist())
                    for s in a.addressable_shards)
    return [np.asarray(a).tolist(), repr(a.sharding), sorted(d.id for d in a.devices()), shards]

def p(name, fn):
    try:
        res[name] = placed(fn())
    except Exception as e:
        res[name] = ["ERR", type(e).__name__, str(e)]

f = sm(lambda a: lax.psum(a, "x"), mesh=mesh, in_specs=P("x", "y"), out_specs=P(None, "y"))
p("shard_map_out", lambda: f(x))
p("shard_map_out_xy", lambda: sm(lambda a: a * 2, mesh=mesh, in_specs=P(("x", "y")),
                                 out_specs=P(("x", "y")))(v8))
p("shard_map_out_replicated", lambda: sm(lambda a: lax.psum(a, ("x", "y")), mesh=mesh,
                                         in_specs=P("x", "y"), out_specs=P())(x))
p("jit_shard_map_out", lambda: M.jit(f)(x))
p("shard_map_of_placed", lambda: f(M.device_put(x, NamedSharding(mesh, P("x", "y")))))
p("shard_map_of_other_placement", lambda: f(M.device_put(x, NamedSharding(mesh, P("y")))))
P4 = functools.partial(M.pmap, axis_name="i")
y = P4(lambda a: a * 2)(jnp.arange(8.0).reshape(4, 2))
p("pmap_out", lambda: y)
p("pmap_out_in_axes_1", lambda: M.pmap(lambda a: a + 1, in_axes=1)(jnp.arange(8.0).reshape(2, 4)))
p("pmap_out_axes_1", lambda: M.pmap(lambda a: a + 1, out_axes=1)(jnp.arange(8.0).reshape(4, 2)))
p("pmap_out_axes_none", lambda: P4(lambda a: lax.psum(a, "i"), out_axes=None)(v8.reshape(4, 2)))
p("pmap_of_pmap_out", lambda: P4(lambda a: lax.psum(a, "i"))(y))
p("jit_of_pmap_out", lambda: M.jit(lambda a: a * 3)(y))
p("reversed_mesh_out", lambda: sm(lambda a: a + 1, mesh=Mesh(np.array(M.devices()[::-1]).reshape(2, 2), ("x", "y")),
                                   in_specs=P("x", "y"), out_specs=P("x", "y"))(x))
p("pmap_aot", lambda: P4(lambda a: {"s": lax.psum(a, "i") * 2}).lower(v8.reshape(4, 2))
  .compile()(v8.reshape(4, 2))["s"])
p("jit_shard_map_aot", lambda: M.jit(f).lower(x).compile()(x))
p("pmap_two_devices", lambda: P4(lambda a: lax.psum(a, "i"), devices=M.devices()[1:3])(
    jnp.ones((2, 2))))
p("pmap_of_shard_map_out", lambda: P4(lambda a: a - 1)(
    sm(lambda a: a * 2, mesh=line, in_specs=P("i"), out_specs=P("i"))(jnp.arange(4.0))))
res["pmap_str"] = str(y)
res["pmap_repr"] = repr(y)
res["pmap_np"] = np.asarray(y).tolist()
res["pmap_tolist"] = y.tolist()
res["pmap_item"] = P4(lambda a: lax.psum(a, "i"))(jnp.ones(4))[2].item()
print(json.dumps(res))
"""

JAXPRS = """
def j(name, fn, *args):
    try:
        res[name] = str(M.make_jaxpr(fn)(*args))
    except Exception as e:
        res[name] = f"ERR {type(e).__name__}"

j("basic", nv(lambda a: lax.psum(a, "x") * lax.axis_index("y"), mesh=mesh,
              in_specs=P("x", "y"), out_specs=P(None, "y")), x)
j("two_args", nv(lambda w, a: (a * w, lax.pmax(a, ("x", "y"))), mesh=mesh,
                 in_specs=(P(), P(("x", "y"))), out_specs=(P(("x", "y")), P())), 2.0, v8)
j("collectives", nv(lambda a: (lax.all_gather(a, "x", tiled=True),
                               lax.psum_scatter(a, "y", scatter_dimension=1, tiled=True),
                               lax.ppermute(a, "x", [(0, 1), (1, 0)]),
                               lax.all_to_all(a, "y", 0, 1, tiled=True)),
                    mesh=mesh, in_specs=P("x", "y"),
                    out_specs=(P(None, "y"), P("x", "y"), P("x", "y"), P("x", "y"))), x)
j("closure", nv(lambda a: a + jnp.arange(2.0), mesh=mesh, in_specs=P("x", "y"),
                out_specs=P("x", "y")), x)
j("jit", M.jit(nv(lambda a: jnp.sin(a), mesh=line, in_specs=P("i"), out_specs=P("i"))), v8)
j("pytree", nv(lambda d: {"s": d["a"] + d["b"]}, mesh=mesh, in_specs=({"a": P("x"), "b": P()},),
               out_specs={"s": P("x")}), {"a": x, "b": jnp.ones((2, 4))})
j("vmap", M.vmap(nv(lambda a: lax.psum(a, "y"), mesh=mesh, in_specs=P("x", "y"),
                    out_specs=P("x"))), jnp.ones((3, 4, 4)))
j("jvp", lambda a: M.jvp(nv(lambda u: jnp.sin(u) * lax.psum(u, "x"), mesh=mesh,
                            in_specs=P("x", "y"), out_specs=P(None, "y")), (a,), (a,)), x)
j("vjp", lambda a: M.vjp(nv(lambda u: lax.psum(u, "x") * u, mesh=mesh, in_specs=P("x", "y"),
                             out_specs=P(None, "y")), a)[1](jnp.ones((2, 4))), x)
j("vjp_two_outs", lambda w, a: M.vjp(nv(lambda w, u: (jnp.sin(u * w), lax.psum(u, "y")),
                                      mesh=mesh, in_specs=(P(), P("x", "y")),
                                      out_specs=(P("x", "y"), P("x"))), w, a)[1](
                                          (jnp.ones((4, 4)), jnp.ones((4, 2)))), 2.0, x)
g = nv(lambda w, a: lax.psum(jnp.sum(jnp.sin(a * w)), "x"), mesh=mesh, in_specs=(P(), P("x")),
       out_specs=P())
j("grad_forward", M.grad(lambda w, a: g(w, a)), 2.0, x)
print(json.dumps(res))
"""

LOWERING = """
f = nv(lambda a: (lax.psum(a, "x"), lax.all_gather(a, ("x", "y"), tiled=True),
                  lax.psum_scatter(a, "y", scatter_dimension=1, tiled=True),
                  lax.ppermute(a, "x", [(0, 1), (1, 0)]), lax.all_to_all(a, "y", 0, 1, tiled=True),
                  lax.axis_index("y") + 0 * a),
       mesh=mesh, in_specs=P("x", "y"),
       out_specs=(P(None, "y"), P(), P("x", "y"), P("x", "y"), P("x", "y"), P("x", "y")))
lowered = M.jit(f).lower(x)
res["text"] = lowered.as_text()
res["hlo"] = lowered.compile().as_text()
res["jax imported"] = any(m == "jax" or m.startswith("jax.") for m in sys.modules)
print(json.dumps(res))
"""


def run(module: str, script: str) -> dict:
    return run_with_devices(textwrap.dedent(PRELUDE) + script, module)


@pytest.fixture(scope="module")
def values() -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return run("didax", VALUES), run("jax", VALUES)


@pytest.fixture(scope="module")
def placements() -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return run("didax", PLACED), run("jax", PLACED)


@pytest.fixture(scope="module")
def jaxprs() -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return run("didax", JAXPRS), run("jax", JAXPRS)


@pytest.mark.oracle
@pytest.mark.timeout(900)
@pytest.mark.parametrize("case", cases(VALUES, 't("'))
def test_values_dtypes_and_errors(values, case):
    assert_same_values(values[0][case], values[1][case])


@pytest.mark.oracle
@pytest.mark.timeout(900)
def test_training_step_equals_single_device(values):
    # the sharded step's parameters and losses equal the same step on one device (NumPy)
    (w1, w2, *losses) = (np.asarray(v, np.float64) for _, v in values[0]["train_step"])
    X = np.arange(24.0).reshape(8, 3) / 24.0
    Y = np.sin(np.arange(8.0)).reshape(8, 1)
    a, b = np.arange(12.0).reshape(3, 4) / 12.0 - 0.3, np.arange(4.0).reshape(4, 1) / 4.0 - 0.2
    expected = []
    for _ in range(3):
        h = np.tanh(X @ a)
        err = h @ b - Y
        expected.append(np.mean(err**2))
        d_out = 2 * err / len(X)
        g2 = h.T @ d_out
        g1 = X.T @ ((d_out @ b.T) * (1 - h**2))
        a, b = a - 0.5 * g1, b - 0.5 * g2
    np.testing.assert_allclose(w1, a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w2, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(losses, expected, rtol=1e-5)


@pytest.mark.oracle
@pytest.mark.timeout(900)
@pytest.mark.parametrize("case", cases(PLACED, 'p("'))
def test_result_shardings(placements, case):
    # value, repr of .sharding, .devices(), and each addressable shard (device, index,
    # replica id, data)
    assert placements[0][case] == placements[1][case]


@pytest.mark.oracle
@pytest.mark.timeout(900)
@pytest.mark.parametrize("what", ["pmap_str", "pmap_repr", "pmap_np", "pmap_tolist", "pmap_item"])
def test_pmap_result_prints_and_reads_the_global_value(placements, what):
    assert placements[0][what] == placements[1][what]


@pytest.mark.oracle
@pytest.mark.timeout(900)
@pytest.mark.parametrize("case", [c for c in cases(JAXPRS, 'j("') if c != "grad_forward"])
def test_jaxpr_text(jaxprs, case):
    assert jaxprs[0][case] == jaxprs[1][case]


@pytest.mark.oracle
@pytest.mark.timeout(900)
def test_grad_jaxpr_forward_part(jaxprs):
    # The forward shard_map of a gradient (residuals first, each device's concatenated along
    # axis 0; a residual that is an input passed on as it is) prints as JAX prints it; after
    # it JAX seeds the cotangent with a `reshard` (not a shard_map matter: didax's grad has
    # none), so the rest differs by that equation and the names after it.
    def forward(text: str) -> str:
        lines = text.splitlines()
        end = next(i for i, line in enumerate(lines) if line.startswith("    ] "))
        return "\n".join(lines[: end + 1])

    mine, theirs = jaxprs[0]["grad_forward"], jaxprs[1]["grad_forward"]
    assert "shard_map" in forward(mine) and "P(('x', 'y'),)" in forward(mine)
    assert forward(mine) == forward(theirs)
    assert mine != theirs and "reshard" in theirs  # the difference the comment names


@pytest.mark.timeout(600)
def test_lowering_uses_manual_sharding_as_jax():
    mine = run("didax", LOWERING)
    text, hlo = mine["text"], mine["hlo"]
    assert mine["jax imported"] is False
    assert "mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32" in text
    # in: split as P('x', 'y') (2x2 tiles), then manual; out: P(None, 'y') and P()
    assert '@Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[2,2]<=[4]}"}' in text
    assert '@SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"}' in text
    assert (
        'mhlo.sharding = "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"} : '
        "(tensor<2x2xf32>) -> tensor<2x4xf32>" in text
    )
    assert text.count("@SPMDShardToFullShape") == 6
    channel = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>"
    assert text.count(channel) == 5
    # psum over 'x': partitions that share a 'y' index; all_gather over ('x', 'y'): all four
    assert (
        "replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids" in text
    )
    assert "replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids" in text
    # psum_scatter and all_to_all over 'y': partitions that share an 'x' index
    assert text.count("replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>") == 2
    assert "source_target_pairs = dense<[[0, 2], [2, 0], [1, 3], [3, 1]]>" in text
    assert "stablehlo.partition_id" in text and "stablehlo.remainder" in text
    assert "num_partitions=4" in hlo and "all-reduce(" in hlo and "all-to-all(" in hlo
    assert "replica_groups={{0,2},{1,3}}" in hlo and "collective-permute(" in hlo


@pytest.mark.oracle
@pytest.mark.timeout(600)
def test_lowering_text_equals_jax():
    # the whole StableHLO module, as JAX 0.10.2 writes it with shardy off, but for the
    # `jax.result_info` names JAX gives results (didax's modules have none)
    def strip(text: str) -> str:
        return re.sub(r' \{jax\.result_info = "[^"]*"\}', "", text)

    mine, theirs = run("didax", LOWERING), run("jax", LOWERING)
    assert "jax.result_info" not in mine["text"]
    assert mine["text"] == strip(theirs["text"])


def test_shard_map_in_one_device_process():
    # this test process has one CPU device: a 1-device mesh runs the body there as is
    import didax
    import didax.numpy as jnp
    from didax import lax
    from didax.sharding import Mesh, PartitionSpec

    mesh = Mesh(np.array(didax.devices()[:1]), ("i",))
    f = didax.shard_map(
        lambda a: lax.psum(jnp.sin(a), "i") + lax.axis_index("i"),
        mesh=mesh,
        in_specs=PartitionSpec("i"),
        out_specs=PartitionSpec("i"),
    )
    x = jnp.arange(3.0)
    np.testing.assert_allclose(np.asarray(f(x)), np.sin(np.arange(3.0)), rtol=1e-6)
    g = didax.grad(lambda v: jnp.sum(f(v)))(x)
    np.testing.assert_allclose(np.asarray(g), np.cos(np.arange(3.0)), rtol=1e-6)
    # a second call with the same types runs the first trace (and its compiled program)
    traced = []

    def body(a):
        traced.append(a.shape)
        return a * 2

    h = didax.shard_map(body, mesh=mesh, in_specs=PartitionSpec("i"), out_specs=PartitionSpec("i"))
    np.testing.assert_allclose(np.asarray(h(x)), 2 * np.arange(3.0))
    np.testing.assert_allclose(np.asarray(h(x + 1)), 2 * np.arange(1.0, 4.0))
    assert traced == [(3,)]
    h(jnp.ones(5))
    assert traced == [(3,), (5,)]
    # JAX 0.10.2 fails with an internal AssertionError here; didax with the NameError of an
    # unbound axis name, as everywhere else
    with pytest.raises(NameError, match="unbound axis name: z"):
        didax.shard_map(
            lambda a: lax.psum(a, "z"),
            mesh=mesh,
            in_specs=PartitionSpec("i"),
            out_specs=PartitionSpec("i"),
        )(x)
    with pytest.raises(ValueError, match="must refer to an axis"):
        didax.shard_map(
            lambda a: a, mesh=mesh, in_specs=PartitionSpec("j"), out_specs=PartitionSpec()
        )(x)
