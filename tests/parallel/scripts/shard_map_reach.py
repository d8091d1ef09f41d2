"""shard_map's reach (tests/parallel/test_shard_map_reach.py): the context mesh of
`set_mesh`, `in_specs` read from `Explicit` types, results typed by `out_specs`; and an
Array `device_put` replicated, whose operations keep `P()` as JAX's."""

import json

from parallel.scripts.shardy_prelude import M, Mesh, NamedSharding, P, lax, np, res, t, t_type


def typed(a):
    return [str(M.typeof(a)), repr(a.sharding), np.asarray(a).tolist()]


grid = Mesh(np.array(M.devices()).reshape(2, 2), ("x", "y"))
r = M.device_put(np.arange(8.0, dtype=np.float32), NamedSharding(grid, P()))
t("replicated", lambda: typed(r))
t("replicated_add", lambda: typed(r + 1))
t("replicated_sum", lambda: typed((r * r).sum()))
t("replicated_jit", lambda: typed(M.jit(lambda a: a + 1)(r)))
line = Mesh(np.array(M.devices()), ("b",))  # the same devices, another mesh
r4 = M.device_put(np.arange(8.0, dtype=np.float32), NamedSharding(line, P()))
t("replicated_other_mesh", lambda: [typed((r4 * r4).sum()), typed((r * r).sum())])
em = M.make_mesh((2, 2), ("x", "y"))
x = M.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), NamedSharding(em, P("x", "y")))


def tm(name, fn):  # a case under the context mesh (`set_mesh` as a `with`)
    with M.set_mesh(em):
        t(name, fn)


tm(
    "context_mesh",
    lambda: typed(M.shard_map(lambda a: a * 2, in_specs=P("x", "y"), out_specs=P("x", "y"))(x)),
)
tm("inferred", lambda: typed(M.shard_map(lambda a: lax.psum(a, "x"), out_specs=P(None, "y"))(x)))
tm(
    "body_type",
    lambda: str(
        M.make_jaxpr(M.shard_map(lambda a: a * 2, out_specs=P("x", "y")))(x).eqns[0].params["jaxpr"]
    ),
)
tm("jit", lambda: typed(M.jit(M.shard_map(lambda a: a * 2, out_specs=P("x", "y")))(x)))
# (values only: under grad outside jit didax's result comes to the host, JAX's keeps
# its split, README "shard_map")
tm(
    "grad_values",
    lambda: np.asarray(
        M.grad(lambda a: M.shard_map(lambda b: b * b, out_specs=P("x", "y"))(a).sum())(x)
    ).tolist(),
)
# manual over some axes (`axis_names`): values and jaxpr (shardings and StableHLO:
# shard_map_nested.py)
xa = M.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), NamedSharding(grid, P("x", "y")))
part = M.shard_map(
    lambda a: lax.psum(a, "x") * 2, mesh=grid, in_specs=P("x"), out_specs=P(), axis_names={"x"}
)
t("partial_values", lambda: [np.asarray(part(xa)).tolist(), np.asarray(M.jit(part)(xa)).tolist()])
t("partial_jaxpr", lambda: str(M.make_jaxpr(part)(xa)))
t(
    "partial_grad",
    lambda: np.asarray(M.grad(lambda a: M.jit(part)(a).sum())(xa)).tolist(),
)
t_type(
    "partial_unbound",
    lambda: M.shard_map(
        lambda a: lax.psum(a, "y"), mesh=grid, in_specs=P("x"), out_specs=P(), axis_names={"x"}
    )(xa),
)
t_type(
    "partial_spec",
    lambda: M.shard_map(
        lambda a: a, mesh=grid, in_specs=P("x", "y"), out_specs=P("x", "y"), axis_names={"x"}
    )(xa),
)
t("no_mesh", lambda: M.shard_map(lambda a: a, in_specs=P("x"), out_specs=P("x"))(x))
t_type("infer_auto", lambda: M.shard_map(lambda a: a, mesh=grid, out_specs=P("x"))(x))
print(json.dumps(res))
