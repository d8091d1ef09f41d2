"""shard_map manual over some mesh axes, and nested (tests/parallel/test_shard_map_nested.py):
results left split along the free axes where the partitioner puts them, as JAX's (Shardy
and GSPMD texts; free Explicit axes in the body's types); a shard_map inside a shard_map's
body over the remaining axes (values, result shardings, jaxpr, StableHLO); the errors and
messages of invalid nesting and specs."""

import json

from shardy_prelude import AxisType, M, Mesh, NamedSharding, P, jnp, lax, np, res, t, t_type, text
from shardy_prelude import mesh as grid
from shardy_prelude import x as xa


def typed(a):  # (its type, split and values)
    return [str(M.typeof(a)), str(a.sharding.spec), np.asarray(a).tolist()]


# manual over 'x' only: the result stays split along 'y' as the partitioner leaves it
part = M.shard_map(
    lambda a: lax.psum(a, "x") * 2, mesh=grid, in_specs=P("x"), out_specs=P(), axis_names={"x"}
)
t("partial_eager", lambda: typed(part(xa)))
t("partial_jit", lambda: typed(M.jit(part)(xa)))
t("partial_text", lambda: text(part, xa))


def collectives(a):  # (axis_index('x'): its stride and size, two equal constants)
    b = lax.all_gather(a, "x", tiled=True)
    c = lax.ppermute(a, "x", [(0, 1), (1, 0)])
    d = lax.pmax(jnp.sin(a), "x")
    return b[:4] + c * lax.axis_index("x") + d, lax.psum_scatter(a, "x", tiled=True)


coll = M.shard_map(
    collectives, mesh=grid, in_specs=P("x"), out_specs=(P("x"), P("x")), axis_names={"x"}
)
t("partial_collectives", lambda: [typed(o) for o in M.jit(coll)(xa)])
t("partial_collectives_text", lambda: text(coll, xa))
t(
    "partial_grad",
    lambda: np.asarray(M.grad(lambda a: (M.jit(part)(a) * jnp.arange(4.0)).sum())(xa)).tolist(),
)


def over_x(f, out_specs=None):  # (default P("x"))
    out_specs = P("x") if out_specs is None else out_specs
    return M.shard_map(f, mesh=grid, in_specs=P("x"), out_specs=out_specs, axis_names={"x"})


def vjp_jaxpr(f, a):  # the jaxpr of f's vjp at `a`, the cotangent an argument like `a`
    return str(M.make_jaxpr(lambda b, ct: M.vjp(f, b)[1](ct))(a, a))


# a tangent no output needs: the backward shard_map reads no residual for it (pruned)
two = over_x(lambda b: (jnp.sin(b), b * 3), (P("x"), P("x")))
t("partial_vjp_pruned", lambda: vjp_jaxpr(lambda a: two(a)[0], xa))
t("partial_vjp_jit_pruned", lambda: vjp_jaxpr(lambda a: M.jit(two)(a)[0], xa))
t("partial_jit_vjp_pruned", lambda: vjp_jaxpr(M.jit(lambda a: two(a)[0]), xa))


t("partial_vmap_text", lambda: text(M.vmap(part), jnp.ones((3, 8, 4))))
t("partial_jvp_text", lambda: text(lambda a: M.jvp(over_x(jnp.sin), (a,), (a,)), xa))
t("partial_ops_text", lambda: text(over_x(lambda b: (b @ b.T).sum(1)), xa))


# nested: a shard_map over 'y' (the context's mesh) inside one over 'x'
def inner(b):
    return lax.psum(b, "y") * lax.axis_index("y")


def outer(a):
    c = M.shard_map(inner, in_specs=P(None, "y"), out_specs=P(None, "y"), axis_names={"y"})(a)
    return lax.psum(c, "x") + a


nest = M.shard_map(outer, mesh=grid, in_specs=P("x"), out_specs=P("x"), axis_names={"x"})
t("nested_eager", lambda: typed(nest(xa)))
t("nested_jit", lambda: typed(M.jit(nest)(xa)))
t("nested_jaxpr", lambda: str(M.make_jaxpr(nest)(xa)))
t("nested_text", lambda: text(nest, xa))
t(
    "body_mesh",
    lambda: str(
        M.make_jaxpr(
            M.shard_map(
                lambda a: a + len(str(M.sharding.get_abstract_mesh())),
                mesh=grid,
                in_specs=P("x"),
                out_specs=P("x"),
                axis_names={"x"},
            )
        )(xa)
    ),
)
outer_collective = M.shard_map(
    lambda a: M.shard_map(
        lambda b: lax.psum(b, "x"), in_specs=P("y"), out_specs=P("y"), axis_names={"y"}
    )(a),
    mesh=grid,
    in_specs=P("x"),
    out_specs=P("x"),
    axis_names={"x"},
)
t("nested_outer_collective", lambda: typed(M.jit(outer_collective)(xa)))

# axis_index on a mesh manual over every axis (its two equal constants too)
full = M.shard_map(
    lambda a: a * lax.axis_index("x"), mesh=grid, in_specs=P("x", "y"), out_specs=P("x", "y")
)
t("full_axis_index_text", lambda: text(full, xa))


def t_message(name, fn):  # the whole message of the error
    try:
        fn()
        res[name] = "no error"
    except Exception as e:
        res[name] = [type(e).__name__, str(e)]


def nested_jit(**kw):  # a shard_map nested in one over 'x', given `kw`
    return M.jit(
        M.shard_map(
            lambda a: M.shard_map(lambda b: b * 2, **kw)(a),
            mesh=grid,
            in_specs=P("x"),
            out_specs=P("x"),
            axis_names={"x"},
        )
    )(xa)


t("nested_default_axes", lambda: typed(nested_jit(in_specs=P(None, "y"), out_specs=P(None, "y"))))
t_message("nested_no_in_specs", lambda: nested_jit(out_specs=P(None, "y"), axis_names={"y"}))
t_message(
    "nested_spec_names_outer",
    lambda: nested_jit(in_specs=P("x"), out_specs=P("x"), axis_names={"y"}),
)
t_message(
    "nested_out_varies",
    lambda: nested_jit(in_specs=P(None, "y"), out_specs=P(), axis_names={"y"}),
)
t_message(
    "partial_out_varies",  # (under jit: outside, JAX names another function)
    lambda: M.jit(
        M.shard_map(lambda a: a, mesh=grid, in_specs=P("x"), out_specs=P(), axis_names={"x"})
    )(xa),
)
# over Explicit free axes: the body's types keep their split (`f32[4,4@y]{V:x}`), as do
# the results (`float32[4,4@y]`), and the Shardy text constrains them closed
em = M.make_mesh((2, 2), ("x", "y"))
xe = M.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), NamedSharding(em, P("x", "y")))
pe = M.shard_map(
    lambda a: lax.psum(a, "x") * 2, mesh=em, in_specs=P("x"), out_specs=P(), axis_names={"x"}
)
t("explicit_eager", lambda: typed(pe(xe)))
t("explicit_jit", lambda: typed(M.jit(pe)(xe)))
t("explicit_jaxpr", lambda: str(M.make_jaxpr(pe)(xe)))
two_e = M.shard_map(
    lambda b: (jnp.sin(b), b * 3),
    mesh=em,
    in_specs=P("x"),
    out_specs=(P("x"), P("x")),
    axis_names={"x"},
)
t("explicit_vjp_pruned", lambda: vjp_jaxpr(lambda a: two_e(a)[0], xe))
t("explicit_jit_vjp_pruned", lambda: vjp_jaxpr(M.jit(lambda a: two_e(a)[0]), xe))
t("explicit_text", lambda: text(pe, xe))


def over_ex(f, out_specs):  # manual over 'x' of the Explicit mesh
    return M.jit(M.shard_map(f, mesh=em, in_specs=P("x"), out_specs=out_specs, axis_names={"x"}))


t("explicit_reduce", lambda: typed(over_ex(lambda a: a.sum(0), P("x"))(xe)))
t("explicit_reshape", lambda: typed(over_ex(lambda a: a.reshape(2, 2, 4), P("x"))(xe)))
t(
    "explicit_ppermute",
    lambda: typed(over_ex(lambda a: lax.ppermute(a, "x", [(0, 1), (1, 0)]), P("x"))(xe)),
)
t("explicit_index", lambda: typed(over_ex(lambda a: a * lax.axis_index("x"), P("x"))(xe)))
t("explicit_dot", lambda: typed(over_ex(lambda a: a.T @ a, P())(xe)))  # (JAX's error)
t(
    "explicit_vmap",
    lambda: typed(
        M.jit(
            M.vmap(
                M.shard_map(
                    lambda b: b * 2, mesh=em, in_specs=P("x"), out_specs=P("x"), axis_names={"x"}
                )
            )
        )(M.device_put(np.ones((3, 8, 4), np.float32), NamedSharding(em, P(None, "x", "y"))))
    ),
)
seen = []  # what vmap's function sees of a split array (its other dimensions' split kept)
t(
    "explicit_vmap_types",
    lambda: [
        typed(M.vmap(lambda a: seen.append(str(M.typeof(a))) or a * 2, in_axes=d, out_axes=d)(xe))
        + seen[-1:]
        for d in (0, 1)
    ],
)
t("explicit_gather", lambda: typed(over_ex(lambda a: lax.all_gather(a, "x", tiled=True), P())(xe)))
mixed = Mesh(
    np.array(M.devices()).reshape(2, 2), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Auto)
)
xm = M.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), NamedSharding(mixed, P("x")))
t(
    "partial_inferred",
    lambda: typed(
        M.jit(M.shard_map(lambda a: a * 2, mesh=mixed, out_specs=P("x"), axis_names={"x"}))(xm)
    ),
)


# loops in a body manual over 'x', on either mesh: values, types, jaxprs (a traced array's
# `ones_like` keeps its split and varying axes), and for while and cond the StableHLO (no
# equal small constants in one block: didax emits one, JAX one per use)
def loop_case(body, texts=False):
    out = []
    for m, a in ((grid, xa), (em, xe)):
        sm = M.shard_map(body, mesh=m, in_specs=P("x"), out_specs=P("x"), axis_names={"x"})
        out += [typed(sm(a)), typed(M.jit(sm)(a)), str(M.make_jaxpr(sm)(a))]
        out += [text(sm, a)] if texts else []
    return out


def scan_body(b):
    return lax.scan(lambda c, r: (c + r, c.sum()), b[0], b)[0] * jnp.ones_like(b)


t("loop_scan", lambda: loop_case(scan_body))
t(
    "loop_while",
    lambda: loop_case(
        lambda b: lax.while_loop(lambda c: c.sum() < 1e3, lambda c: c * 2 + 1, b), True
    ),
)
t("loop_cond", lambda: loop_case(lambda b: lax.cond(b.sum() > 1, jnp.sin, jnp.cos, b), True))
t(
    "explicit_full_like",
    lambda: str(
        M.make_jaxpr(
            lambda a: (jnp.ones_like(a), jnp.zeros_like(a, jnp.int32), jnp.full_like(a, 3))
        )(xe)
    ),
)

# the same under GSPMD (`jax_use_shardy_partitioner=False`): manual groups along the free
# axes (`last_tile_dims={manual, replicated}`), `unspecified_dims`, nested bodies as calls


def tg(name, fn):  # a case under GSPMD
    M.config.update("jax_use_shardy_partitioner", False)
    try:
        t(name, fn)
    finally:
        M.config.update("jax_use_shardy_partitioner", True)


with_index = over_x(lambda b: lax.psum(b, "x") * lax.axis_index("x"))
# (new jits: a jit compiled under Shardy keeps its program when the option changes)
tg("gspmd_partial", lambda: typed(M.jit(lambda a: with_index(a))(xa)))
tg("gspmd_partial_text", lambda: text(with_index, xa))
tg("gspmd_nested", lambda: typed(M.jit(lambda a: nest(a))(xa)))
tg("gspmd_nested_text", lambda: text(nest, xa))
# over Explicit free axes: split as the types say, closed (`{devices=[1,2,2]<=[2,2]T(1,0)
# last_tile_dims={manual}}`, no unspecified_dims)
tg(
    "gspmd_explicit_text",
    lambda: [
        text(over_ex(f, o), xe)
        for f, o in (
            (lambda a: lax.psum(a, "x") * 2, P()),
            (lambda a: a.sum(0), P("x")),
            (lambda a: lax.while_loop(lambda c: c.sum() < 1e3, lambda c: c * 2 + 1, a), P("x")),
        )
    ],
)
# a scan in a body manual over 'x' (GSPMD's partitioner needs every value the loop makes
# constrained manual, or it aborts the process)
scan_x = {  # over 'x' of either mesh
    m: M.shard_map(scan_body, mesh=m, in_specs=P("x"), out_specs=P("x"), axis_names={"x"})
    for m in (grid, em)
}
tg("gspmd_loop_scan", lambda: [typed(M.jit(scan_x[m])(a)) for m, a in ((grid, xa), (em, xe))])
# on a mesh with an Auto axis too, results are left to the partitioner (not written in the
# program), their shardings named as their types say; under either partitioner
in_mixed = M.shard_map(lambda a: a * 2, mesh=mixed, out_specs=P("x"), axis_names={"x"})
t("mixed_text", lambda: text(in_mixed, xm))
tg("gspmd_mixed", lambda: [text(in_mixed, xm), typed(M.jit(lambda a: in_mixed(a))(xm))])

# invalid nesting (over an axis already manual: JAX raises so outside jit only)
line = Mesh(np.array(M.devices()), ("b",))


def nested_over(mesh, **kw):
    return M.shard_map(
        lambda a: M.shard_map(lambda b: b, mesh=mesh, **kw)(a),
        mesh=grid,
        in_specs=P("x"),
        out_specs=P("x"),
        axis_names={"x"},
    )(xa)


t("other_mesh", lambda: nested_over(line, in_specs=P("b"), out_specs=P("b")))
t("concrete_mesh", lambda: nested_over(grid, in_specs=P(None, "y"), out_specs=P(None, "y")))
t_type(
    "same_axis",
    lambda: nested_over(None, in_specs=P("x"), out_specs=P("x"), axis_names={"x"}),
)
t("pmap_in_pmap", lambda: M.pmap(M.pmap(lambda a: a))(jnp.ones((2, 2, 3))))
print(json.dumps(res))
