"""Meshes, specs, NamedShardings, device_put and sharded jit, case by case
(tests/parallel/test_sharding.py)."""

import json
import sys

from parallel.scripts.sharding_prelude import (
    AxisType,
    M,
    Mesh,
    NamedSharding,
    P,
    jnp,
    lax,
    line,
    mesh,
    np,
    placed,
    res,
    rows,
    t,
    t_type,
    value,
    x,
    xy,
)

t(
    "mesh",
    lambda: [
        repr(mesh),
        str(mesh),
        repr(line),
        mesh.size,
        list(mesh.shape.items()),
        mesh.axis_names,
        mesh.devices.shape,
    ],
)
t("make_mesh", lambda: repr(M.make_mesh((2, 2), ("a", "b"), axis_types=(AxisType.Auto,) * 2)))
t(
    "make_mesh_devices",
    lambda: M.make_mesh((2, 2), ("a", "b"), axis_types=(AxisType.Auto,) * 2).device_ids.tolist(),
)
t(
    "specs",
    lambda: [
        repr(P()),
        repr(P("x")),
        repr(P("x", None)),
        repr(
            P(
                ("x", "y"),
            )
        ),
        repr(P(None, ("y", "x"))),
        P("x") == P("x", None),
        P("x") == P("x"),
    ],
)
t(
    "named",
    lambda: [
        repr(xy),
        repr(NamedSharding(line, P(None, "i"))),
        xy.num_devices,
        xy.is_fully_replicated,
        NamedSharding(mesh, P()).is_fully_replicated,
        xy.shard_shape((4, 8)),
        repr(sorted((d.id, i) for d, i in rows.devices_indices_map((4, 2)).items())),
    ],
)
t("bad_axis", lambda: NamedSharding(mesh, P("z")))
t("duplicate_axis", lambda: NamedSharding(mesh, P("x", "x")))
t("mesh_rank", lambda: Mesh(np.array(M.devices()), ("a", "b")))

t("put_xy", lambda: placed(x))
t("put_rows", lambda: placed(M.device_put(jnp.arange(8.0).reshape(4, 2), rows)))
t("put_cols_1d", lambda: placed(M.device_put(jnp.arange(8), NamedSharding(mesh, P("y")))))
t(
    "put_both_axes",
    lambda: placed(M.device_put(jnp.arange(8.0), NamedSharding(mesh, P(("x", "y"))))),
)
t("put_replicated", lambda: placed(M.device_put(jnp.ones(3), NamedSharding(mesh, P()))))
t(
    "put_line",
    lambda: placed(M.device_put(jnp.arange(12.0).reshape(4, 3), NamedSharding(line, P("i")))),
)
t(
    "put_int_weak",
    lambda: [
        placed(M.device_put(jnp.arange(4), NamedSharding(line, P("i")))),
        str(M.device_put(2.0, NamedSharding(mesh, P())).dtype),
    ],
)
t(
    "put_tree",
    lambda: [
        repr(a.sharding)
        for a in M.tree_util.tree_leaves(
            M.device_put({"a": jnp.ones((4, 4)), "b": jnp.ones(4)}, {"a": xy, "b": rows})
        )
    ],
)
big = np.arange(32.0, dtype=np.float32).reshape(8, 4)
t("from_callback", lambda: placed(M.make_array_from_callback((8, 4), rows, lambda i: big[i])))
t(
    "from_callback_jit",
    lambda: placed(
        M.jit(lambda a: a.sum(0) * 2)(M.make_array_from_callback((8, 4), xy, lambda i: big[i]))
    ),
)
t("from_callback_bad_block", lambda: M.make_array_from_callback((8, 4), rows, lambda i: big))
t("put_indivisible", lambda: M.device_put(jnp.ones((3, 4)), xy))
t("put_rank", lambda: M.device_put(jnp.ones(4), xy))
t("eager_op", lambda: value(x * 2 + jnp.sin(x)))
t("print", lambda: str(x))

fns = {
    "mul": lambda a: a * 2,
    "T": lambda a: a.T,
    "row": lambda a: a[0],
    "matmul": lambda a: a @ a.T,
    "sum": lambda a: a.sum(),
    "sum0": lambda a: jnp.sin(a).sum(0),
    "two": lambda a: (a + 1, a.sum(1)),
}
for k, f in fns.items():
    t("jit_" + k, lambda f=f: [placed(o) for o in M.tree_util.tree_leaves(M.jit(f)(x))])
cached = M.jit(lambda a, b: a * 3 + b)
t(
    "jit_cached",
    lambda: [
        placed(cached(x, 1.0)),
        placed(cached(x, 2.0)),
        placed(cached(x, 2.0)),
        placed(cached(M.device_put(jnp.arange(16.0).reshape(4, 4), rows), 1.0)),
        placed(cached(x, 5.0)),
        placed(cached(jnp.ones((4, 4)), 1.0)),
    ],
)
bf16 = jnp.bfloat16 if sys.argv[1] == "jax" else M.dtypes.bfloat16
t(
    "jit_bfloat16",
    lambda: [
        [str(o.dtype), np.asarray(o).astype(np.float32).tolist(), repr(o.sharding)]
        for o in M.jit(lambda a: ((a * 2).astype(bf16), a.sum(0).astype(bf16)))(x)
    ],
)
t("jit_identity", lambda: placed(M.jit(lambda a: a)(x)))
t("jit_static", lambda: placed(M.jit(lambda a, n: a * n, static_argnums=1)(x, 3)))
t("jit_vmap", lambda: value(M.vmap(M.jit(lambda a: a * 2))(x)))
t("jit_mixed", lambda: placed(M.jit(lambda a, b: a * b + 1.0)(x, jnp.arange(4.0))))
t(
    "jit_int",
    lambda: placed(M.jit(lambda a: a * 3)(M.device_put(jnp.arange(8).reshape(4, 2), rows))),
)
t("jit_chain", lambda: placed(M.jit(lambda a: a / 2)(M.jit(lambda a: a.T * 3)(x))))
t(
    "jit_line",
    lambda: placed(
        M.jit(lambda a: jnp.tanh(a) @ jnp.ones((3, 2)))(
            M.device_put(jnp.arange(12.0).reshape(4, 3) / 10, NamedSharding(line, P("i")))
        )
    ),
)

g = M.jit(lambda a: jnp.sin(a).sum(0), in_shardings=rows, out_shardings=NamedSharding(mesh, P()))
t("in_out_shardings", lambda: placed(g(M.device_put(jnp.arange(16.0).reshape(4, 4), rows))))
t("in_shardings_host", lambda: placed(g(np.arange(16.0, dtype=np.float32).reshape(4, 4))))
t(
    "out_shardings_only",
    lambda: placed(
        M.jit(lambda a: jnp.sin(a) * 2, out_shardings=NamedSharding(mesh, P(None, "x")))(
            jnp.ones((4, 4))
        )
    ),
)
t(
    "in_shardings_tuple",
    lambda: placed(
        M.jit(lambda a, b: a @ b, in_shardings=(rows, None))(
            jnp.arange(16.0).reshape(4, 4), jnp.ones((4, 2))
        )
    ),
)
t(
    "out_shardings_tree",
    lambda: [
        placed(o)
        for o in M.tree_util.tree_leaves(
            M.jit(
                lambda a: {"s": a.sum(), "t": a * 2},
                out_shardings={"s": NamedSharding(mesh, P()), "t": rows},
            )(x)
        )
    ],
)
t("in_shardings_mismatch", lambda: g(x))
other = Mesh(np.array(M.devices()[:2]), ("j",))
t_type(
    "incompatible_devices",
    lambda: M.jit(lambda a, b: a + b)(
        x, M.device_put(jnp.ones((4, 4)), NamedSharding(other, P("j")))
    ),
)
t_type(
    "wsc_bad_spec",
    lambda: M.jit(
        lambda a: lax.with_sharding_constraint(a, NamedSharding(mesh, P(None, None, "x")))
    )(x),
)
t("in_shardings_indivisible", lambda: g(jnp.ones((3, 4))))

# pmap's results stay on the devices, split over its one-axis mesh, as JAX 0.10.2's
pm = M.pmap(lambda v: v * 2 + lax.axis_index("i"), axis_name="i")
t("pmap", lambda: placed(pm(jnp.arange(12.0).reshape(4, 3))))
t(
    "pmap_out_axes_none",
    lambda: placed(
        M.pmap(lambda v: lax.psum(v, "i"), axis_name="i", out_axes=None)(jnp.arange(4.0))
    ),
)
t(
    "pmap_out_axes_1",
    lambda: placed(M.pmap(lambda v: v * 2, out_axes=1)(jnp.arange(8.0).reshape(4, 2))),
)
t(
    "pmap_devices",
    lambda: placed(M.pmap(lambda v: v + 1, devices=M.devices()[1:3])(jnp.ones((2, 2)))),
)
t(
    "pmap_tree",
    lambda: [
        placed(o)
        for o in M.tree_util.tree_leaves(
            M.pmap(lambda v: {"a": v.sum(), "b": (v * 3,)})(jnp.arange(8).reshape(4, 2))
        )
    ],
)
t(
    "pmap_then_jit",
    lambda: placed(M.jit(lambda a: jnp.cos(a) * 2)(pm(jnp.arange(12.0).reshape(4, 3)))),
)
t("pmap_then_pmap", lambda: placed(pm(pm(jnp.arange(12.0).reshape(4, 3)))))
t("pmap_eager_op", lambda: value(pm(jnp.arange(12.0).reshape(4, 3)) + 1))

wsc = lambda a: lax.with_sharding_constraint(a * 2, NamedSharding(mesh, P(None, "y")))
t("wsc_jit", lambda: placed(M.jit(wsc)(x)))
t("wsc_jit_host", lambda: placed(M.jit(wsc)(jnp.arange(16.0).reshape(4, 4))))
t("wsc_eager", lambda: placed(lax.with_sharding_constraint(jnp.arange(8.0), rows)))
t("wsc_grad", lambda: value(M.grad(lambda a: jnp.sum(jnp.sin(wsc(a))))(x)))
t("wsc_jit_grad", lambda: value(M.jit(M.grad(lambda a: jnp.sum(jnp.sin(wsc(a)))))(x)))
t("wsc_vmap", lambda: value(M.jit(M.vmap(wsc))(jnp.arange(48.0).reshape(3, 4, 4))))
t(
    "wsc_uneven",
    lambda: placed(
        M.jit(lambda a: lax.with_sharding_constraint(a, xy))(jnp.arange(12.0).reshape(3, 4))
    ),
)


def loss(w, a):
    return jnp.sum(jnp.tanh(a @ w) ** 2)


sg = M.jit(loss, in_shardings=(NamedSharding(mesh, P()), rows))
w0 = jnp.arange(8.0).reshape(4, 2) / 10
a0 = jnp.arange(16.0).reshape(4, 4) / 10  # (JAX's eager `x / 10` would keep x's sharding)
t("grad_of_sharded_jit", lambda: value(M.grad(sg)(w0, a0)))
t("grad_of_sharded_jit_argnums1", lambda: value(M.grad(sg, argnums=1)(w0, a0)))
t("grad_of_sharded_jit_placed", lambda: value(M.grad(sg)(w0, M.device_put(a0, rows))))
t(
    "value_and_grad_jit",
    lambda: [
        placed(v)
        for v in M.tree_util.tree_leaves(
            M.jit(M.value_and_grad(loss), in_shardings=(None, rows))(w0, a0)
        )
    ],
)
print(json.dumps(res))
