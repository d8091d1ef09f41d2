"""The shardings and per-device blocks of shard_map's and pmap's results
(tests/parallel/test_shard_map.py)."""

import functools
import json

from parallel.scripts.shard_map_prelude import (
    M,
    Mesh,
    NamedSharding,
    P,
    jnp,
    lax,
    line,
    mesh,
    np,
    res,
    sm,
    v8,
    x,
)


def placed(a):  # value, sharding and where each block is
    shards = sorted(
        (s.device.id, repr(s.index), s.replica_id, np.asarray(s.data).tolist())
        for s in a.addressable_shards
    )
    return [np.asarray(a).tolist(), repr(a.sharding), sorted(d.id for d in a.devices()), shards]


def p(name, fn):
    try:
        res[name] = placed(fn())
    except Exception as e:
        res[name] = ["ERR", type(e).__name__, str(e)]


f = sm(lambda a: lax.psum(a, "x"), mesh=mesh, in_specs=P("x", "y"), out_specs=P(None, "y"))
p("shard_map_out", lambda: f(x))
p(
    "shard_map_out_xy",
    lambda: sm(lambda a: a * 2, mesh=mesh, in_specs=P(("x", "y")), out_specs=P(("x", "y")))(v8),
)
p(
    "shard_map_out_replicated",
    lambda: sm(lambda a: lax.psum(a, ("x", "y")), mesh=mesh, in_specs=P("x", "y"), out_specs=P())(
        x
    ),
)
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
p(
    "reversed_mesh_out",
    lambda: sm(
        lambda a: a + 1,
        mesh=Mesh(np.array(M.devices()[::-1]).reshape(2, 2), ("x", "y")),
        in_specs=P("x", "y"),
        out_specs=P("x", "y"),
    )(x),
)
p(
    "pmap_aot",
    lambda: (
        P4(lambda a: {"s": lax.psum(a, "i") * 2})
        .lower(v8.reshape(4, 2))
        .compile()(v8.reshape(4, 2))["s"]
    ),
)
p("jit_shard_map_aot", lambda: M.jit(f).lower(x).compile()(x))
p(
    "pmap_two_devices",
    lambda: P4(lambda a: lax.psum(a, "i"), devices=M.devices()[1:3])(jnp.ones((2, 2))),
)
p(
    "pmap_of_shard_map_out",
    lambda: P4(lambda a: a - 1)(
        sm(lambda a: a * 2, mesh=line, in_specs=P("i"), out_specs=P("i"))(jnp.arange(4.0))
    ),
)
res["pmap_str"] = str(y)
res["pmap_repr"] = repr(y)
res["pmap_np"] = np.asarray(y).tolist()
res["pmap_tolist"] = y.tolist()
res["pmap_item"] = P4(lambda a: lax.psum(a, "i"))(jnp.ones(4))[2].item()
print(json.dumps(res))
