"""shard_map's values, dtypes and errors, case by case (tests/parallel/test_shard_map.py)."""

import importlib
import json
import sys
import warnings

from parallel.scripts.shard_map_prelude import (
    M,
    Mesh,
    P,
    jnp,
    lax,
    line,
    mesh,
    np,
    nv,
    res,
    sm,
    t,
    v8,
    x,
)

ring = [(0, 1), (1, 2), (2, 3), (3, 0)]
# a 2x2 mesh: one axis, the other, both, in both orders
t(
    "psum_x",
    lambda: sm(lambda a: lax.psum(a, "x"), mesh=mesh, in_specs=P("x", "y"), out_specs=P(None, "y"))(
        x
    ),
)
t(
    "psum_xy",
    lambda: sm(lambda a: lax.psum(a, ("x", "y")), mesh=mesh, in_specs=P("x", "y"), out_specs=P())(
        x
    ),
)
t(
    "psum_yx",
    lambda: sm(lambda a: lax.psum(a, ("y", "x")), mesh=mesh, in_specs=P("x", "y"), out_specs=P())(
        x
    ),
)
t(
    "pmean_y",
    lambda: sm(lambda a: lax.pmean(a, "y"), mesh=mesh, in_specs=P("x", "y"), out_specs=P("x"))(x),
)
t(
    "pmax_x",
    lambda: sm(lambda a: lax.pmax(a, "x"), mesh=mesh, in_specs=P("x", "y"), out_specs=P(None, "y"))(
        x
    ),
)
t(
    "pmin_xy",
    lambda: sm(lambda a: lax.pmin(a, ("x", "y")), mesh=mesh, in_specs=P("x", "y"), out_specs=P())(
        x
    ),
)
t(
    "pmax_int",
    lambda: sm(lambda a: lax.pmax(a, "y"), mesh=mesh, in_specs=P("x", "y"), out_specs=P("x"))(
        jnp.arange(16).reshape(4, 4)
    ),
)
t(
    "all_gather_x",
    lambda: nv(
        lambda a: lax.all_gather(a, "x", tiled=True),
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=P(None, "y"),
    )(x),
)
t(
    "all_gather_y_axis1",
    lambda: nv(
        lambda a: lax.all_gather(a, "y", axis=1), mesh=mesh, in_specs=P("x", "y"), out_specs=P("x")
    )(x),
)
t(
    "all_gather_xy",
    lambda: nv(
        lambda a: lax.all_gather(a, ("x", "y")), mesh=mesh, in_specs=P("x", "y"), out_specs=P()
    )(x),
)
t(
    "all_gather_yx_tiled",
    lambda: nv(
        lambda a: lax.all_gather(a, ("y", "x"), tiled=True),
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=P(),
    )(x),
)
t(
    "psum_scatter_y",
    lambda: nv(
        lambda a: lax.psum_scatter(a, "y", scatter_dimension=1, tiled=True),
        mesh=mesh,
        in_specs=P("x", None),
        out_specs=P("x", "y"),
    )(x),
)
t(
    "psum_scatter_x",
    lambda: nv(
        lambda a: lax.psum_scatter(a, "x"), mesh=mesh, in_specs=P(None, "y"), out_specs=P(None, "y")
    )(jnp.arange(8.0).reshape(2, 4)),
)
t(
    "ppermute_x",
    lambda: nv(
        lambda a: lax.ppermute(a, "x", [(0, 1), (1, 0)]),
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=P("x", "y"),
    )(x),
)
t(
    "ppermute_y_partial",
    lambda: nv(
        lambda a: lax.ppermute(a, "y", [(0, 1)]),
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=P("x", "y"),
    )(x),
)
t(
    "ppermute_xy",
    lambda: nv(
        lambda a: lax.ppermute(a, ("x", "y"), ring),
        mesh=mesh,
        in_specs=P(("x", "y")),
        out_specs=P(("x", "y")),
    )(v8),
)
t(
    "all_to_all_y",
    lambda: nv(
        lambda a: lax.all_to_all(a, "y", 0, 1, tiled=True),
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=P("x", "y"),
    )(x),
)
t(
    "all_to_all_x_untiled",
    lambda: nv(
        lambda a: lax.all_to_all(a, "x", 0, 0),
        mesh=mesh,
        in_specs=P(None, "y"),
        out_specs=P(None, "y"),
    )(jnp.arange(8.0).reshape(2, 4)),
)
t(
    "psum_scatter_xy",
    lambda: nv(
        lambda a: lax.psum_scatter(a, ("x", "y"), tiled=True),
        mesh=mesh,
        in_specs=P(),
        out_specs=P(("x", "y")),
    )(jnp.arange(8.0)),
)
t(
    "all_to_all_xy",
    lambda: nv(
        lambda a: lax.all_to_all(a, ("x", "y"), 0, 0, tiled=True),
        mesh=mesh,
        in_specs=P(("x", "y")),
        out_specs=P(("x", "y")),
    )(jnp.arange(16.0)),
)
t(
    "all_to_all_yx",
    lambda: nv(
        lambda a: lax.all_to_all(a, ("y", "x"), 1, 0, tiled=True),
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=P(("x", "y")),
    )(jnp.arange(32.0).reshape(4, 8)),
)
t(
    "pmax_yx_grad_free",
    lambda: nv(
        lambda a: lax.pmax(a, ("y", "x")) - a,
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=P("x", "y"),
    )(x),
)
t(
    "axis_index_xy",
    lambda: sm(
        lambda a: a * 0 + 10 * lax.axis_index("x") + lax.axis_index("y"),
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=P("x", "y"),
    )(jnp.zeros((2, 2), jnp.int32)),
)
t(
    "spec_xy_tuple",
    lambda: sm(
        lambda a: a * (2 * lax.axis_index("x") + lax.axis_index("y")),
        mesh=mesh,
        in_specs=P(("x", "y")),
        out_specs=P(("x", "y")),
    )(v8),
)
t(
    "spec_yx_tuple",
    lambda: sm(lambda a: a + 0, mesh=mesh, in_specs=P(("y", "x")), out_specs=P(("x", "y")))(v8),
)
t(
    "replicated_in",
    lambda: sm(lambda w, a: a * w, mesh=mesh, in_specs=(P(), P("x")), out_specs=P("x"))(
        jnp.arange(4.0), x
    ),
)
t(
    "pytree_specs",
    lambda: sm(
        lambda d: {"s": d["a"] + d["b"], "t": (d["a"] * 2,)},
        mesh=mesh,
        in_specs=({"a": P("x"), "b": P("x")},),
        out_specs={"s": P("x"), "t": (P("x"),)},
    )({"a": x, "b": jnp.ones((4, 4))}),
)
t(
    "closure",
    lambda: sm(
        lambda a: a + jnp.arange(2.0), mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y")
    )(x),
)
t(
    "scalar_out",
    lambda: sm(
        lambda a: lax.psum(jnp.sum(a), ("x", "y")), mesh=mesh, in_specs=P("x", "y"), out_specs=P()
    )(x),
)


def experimental():  # the deprecated spelling, with its DeprecationWarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        esm = importlib.import_module(sys.argv[1] + ".experimental.shard_map").shard_map
        out = esm(lambda a: lax.psum(a, "y"), mesh, P("x", "y"), P("x"), check_rep=False)(x)
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    return out


t("experimental", experimental)
t(
    "decorator",
    lambda: M.shard_map(mesh=mesh, in_specs=P("x"), out_specs=P("x"))(lambda a: a * 2)(x),
)
# a mesh of the devices in another order: groups and indices follow the mesh, not device ids
rev = Mesh(np.array(M.devices()[::-1]).reshape(2, 2), ("x", "y"))
t(
    "reversed_mesh",
    lambda: nv(
        lambda a: (
            lax.psum(a, "x"),
            lax.all_gather(a, "y", tiled=True),
            a * 0 + 10 * lax.axis_index("x") + lax.axis_index("y"),
            lax.ppermute(a, "y", [(0, 1), (1, 0)]),
        ),
        mesh=rev,
        in_specs=P("x", "y"),
        out_specs=(P(None, "y"), P("x"), P("x", "y"), P("x", "y")),
    )(x),
)
# a one-axis mesh
t(
    "line_psum",
    lambda: sm(lambda a: lax.psum(a, "i"), mesh=line, in_specs=P("i"), out_specs=P())(v8),
)
t(
    "line_all_gather",
    lambda: nv(lambda a: lax.all_gather(a, "i"), mesh=line, in_specs=P("i"), out_specs=P())(v8),
)
t(
    "line_psum_scatter",
    lambda: nv(
        lambda a: lax.psum_scatter(a, "i", tiled=True), mesh=line, in_specs=P(), out_specs=P("i")
    )(v8),
)
t(
    "line_ppermute",
    lambda: nv(lambda a: lax.ppermute(a, "i", ring), mesh=line, in_specs=P("i"), out_specs=P("i"))(
        v8
    ),
)
t(
    "line_all_to_all",
    lambda: nv(
        lambda a: lax.all_to_all(a, "i", 0, 0, tiled=True),
        mesh=line,
        in_specs=P("i"),
        out_specs=P("i"),
    )(jnp.arange(16.0)),
)
t(
    "line_axis_index",
    lambda: sm(lambda a: a * lax.axis_index("i"), mesh=line, in_specs=P("i"), out_specs=P("i"))(v8),
)
t(
    "line_pmean_2d",
    lambda: sm(lambda a: lax.pmean(a, "i"), mesh=line, in_specs=P(None, "i"), out_specs=P())(x),
)
# inside jit, under transformations
f = nv(
    lambda a: lax.psum(jnp.sin(a), "x") * a, mesh=mesh, in_specs=P("x", "y"), out_specs=P(None, "y")
)
t("jit", lambda: M.jit(f)(x))
t("jit_around", lambda: M.jit(lambda v: f(v * 2) + 1.0)(x))
t(
    "jit_inside",
    lambda: sm(
        M.jit(lambda a: lax.psum(a, "y")), mesh=mesh, in_specs=P("x", "y"), out_specs=P("x")
    )(x),
)
t("jit_two", lambda: M.jit(lambda v: f(f(v)))(x))
loss = lambda w, v: jnp.sum(
    sm(
        lambda w, a: lax.psum(jnp.sum(jnp.sin(a @ w)), "x"),
        mesh=mesh,
        in_specs=(P(), P("x")),
        out_specs=P(),
    )(w, v)
)
w0 = jnp.arange(16.0).reshape(4, 4) / 16.0
t("grad", lambda: M.grad(loss)(w0, x / 16.0))
t("grad_argnums", lambda: M.grad(loss, argnums=(0, 1))(w0, x / 16.0))
t("jit_grad", lambda: M.jit(M.grad(loss))(w0, x / 16.0))
t("grad_jit", lambda: M.grad(M.jit(loss))(w0, x / 16.0))
g2 = lambda v: jnp.sum(
    nv(
        lambda a: lax.all_gather(a, "y", tiled=True, axis=1) ** 2 * 0.5,
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=P("x"),
    )(v)
)
t("grad_all_gather", lambda: M.jit(M.grad(g2))(x))
g3 = lambda v: jnp.sum(
    jnp.cos(
        nv(
            lambda a: lax.ppermute(a, "x", [(0, 1), (1, 0)]) * a,
            mesh=mesh,
            in_specs=P("x", "y"),
            out_specs=P("x", "y"),
        )(v)
    )
)
t("grad_ppermute", lambda: M.grad(g3)(x / 16.0))
g4 = lambda v: jnp.sum(
    nv(
        lambda a: lax.psum_scatter(a, "y", scatter_dimension=1, tiled=True) ** 2,
        mesh=mesh,
        in_specs=P("x"),
        out_specs=P("x", "y"),
    )(v)
)
t("grad_psum_scatter", lambda: M.grad(g4)(x))
g5 = lambda v: jnp.sum(
    nv(
        lambda a: lax.all_to_all(a, "y", 0, 1, tiled=True) ** 3,
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=P("x", "y"),
    )(v)
)
t("grad_all_to_all", lambda: M.grad(g5)(x / 16.0))
g6 = lambda v: jnp.sum(
    nv(
        lambda a: lax.psum(a, "x") * jnp.sin(a),
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=P(None, "y"),
    )(v)
)
t("grad_unmentioned_out", lambda: M.grad(g6)(x / 16.0))
t("jvp", lambda: M.jvp(f, (x,), (jnp.ones_like(x),)))
t("vmap", lambda: M.vmap(f)(jnp.arange(32.0).reshape(2, 4, 4)))
t("vmap_in_axes_1", lambda: M.vmap(f, in_axes=1)(jnp.arange(32.0).reshape(4, 2, 4)))
t("hessian", lambda: M.hessian(lambda s: jnp.sum(f(x * s)))(0.5))
t(
    "cond_inside",
    lambda: sm(
        lambda a: lax.cond(lax.axis_index("x") > 0, lambda u: u * 2, lambda u: -u, a),
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=P("x", "y"),
    )(x),
)
t(
    "scan_inside",
    lambda: nv(
        lambda a: lax.fori_loop(0, 3, lambda i, c: c + lax.psum(c, "y"), a),
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=P("x", "y"),
    )(x),
)

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


sharded_loss = nv(
    local_loss,
    mesh=dmesh,
    in_specs=(P(None, "model"), P("model", None), P("data"), P("data")),
    out_specs=P(),
)


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
t(
    "vma_psum_ok",
    lambda: sm(lambda a: lax.psum(a * 2, "y"), mesh=mesh, in_specs=P("x", "y"), out_specs=P("x"))(
        x
    ),
)
t(
    "vma_pmean_both_ok",
    lambda: sm(
        lambda a: lax.pmean(jnp.sin(a), ("x", "y")), mesh=mesh, in_specs=P("x", "y"), out_specs=P()
    )(x),
)
t(
    "vma_replicated_in_ok",
    lambda: sm(
        lambda w, a: (w * 2, a + w), mesh=mesh, in_specs=(P(), P("x")), out_specs=(P(), P("x"))
    )(2.0, x),
)
t("err_vma_out", lambda: sm(lambda a: a * 2, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x"))(x))
t("err_vma_both", lambda: sm(lambda a: a * 2, mesh=mesh, in_specs=P("x", "y"), out_specs=P())(x))
t(
    "err_vma_axis_index",
    lambda: sm(lambda a: a * 0 + lax.axis_index("y"), mesh=mesh, in_specs=P("x"), out_specs=P("x"))(
        x
    ),
)
t(
    "err_vma_all_gather",
    lambda: sm(
        lambda a: lax.all_gather(a, "y", tiled=True, axis=1),
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=P("x"),
    )(x),
)
t(
    "err_vma_second_out",
    lambda: sm(
        lambda a: (lax.psum(a, "x"), a),
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=(P(None, "y"), P("y")),
    )(x),
)
t(
    "err_vma_in_jit",
    lambda: sm(M.jit(lambda a: a + 1), mesh=mesh, in_specs=P("x", "y"), out_specs=P("x"))(x),
)

# errors
t("err_unknown_axis", lambda: sm(lambda a: a, mesh=mesh, in_specs=P("z"), out_specs=P("z"))(x))
t("err_out_unknown_axis", lambda: sm(lambda a: a, mesh=mesh, in_specs=P("x"), out_specs=P("z"))(x))
t(
    "err_indivisible",
    lambda: sm(lambda a: a, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(jnp.ones((3, 4))),
)
t(
    "err_indivisible_xy",
    lambda: sm(lambda a: a, mesh=mesh, in_specs=P(("x", "y")), out_specs=P(("x", "y")))(
        jnp.ones(6)
    ),
)
t(
    "err_rank",
    lambda: sm(lambda a: a, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))(jnp.ones(4)),
)
t("err_out_rank", lambda: sm(lambda a: jnp.sum(a), mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x))
t("err_no_in_specs", lambda: sm(lambda a: a, mesh=mesh, out_specs=P())(x))
t("in_specs_none", lambda: sm(lambda a: a * 2, mesh=mesh, in_specs=None, out_specs=P())(x))
t(
    "in_specs_none_leaf",
    lambda: sm(lambda a, b: a * b, mesh=mesh, in_specs=(P("x"), None), out_specs=P("x"))(x, 3.0),
)
t("err_not_a_spec", lambda: sm(lambda a: a, mesh=mesh, in_specs=("x",), out_specs=P())(x))
t("err_no_mesh", lambda: sm(lambda a: a, in_specs=P(), out_specs=P())(x))
t("err_mesh_type", lambda: sm(lambda a: a, mesh="mesh", in_specs=P(), out_specs=P())(x))
t(
    "err_prefix",
    lambda: sm(lambda a, b: a, mesh=mesh, in_specs=(P(), P(), P()), out_specs=P())(x, x),
)
t("err_not_callable", lambda: sm(3, mesh=mesh, in_specs=P(), out_specs=P()))
t(
    "err_axis_names_type",
    lambda: sm(lambda a: a, mesh=mesh, in_specs=P(), out_specs=P(), axis_names=["x"])(x),
)
t(
    "err_axis_names_unknown",
    lambda: sm(lambda a: a, mesh=mesh, in_specs=P(), out_specs=P(), axis_names={"z"})(x),
)
print(json.dumps(res))
