"""StableHLO text of partitioned programs under Shardy, JAX 0.10.2's default partitioner
(tests/parallel/test_shardy.py): `sdy.mesh`, `sdy.sharding` on arguments and results,
`sdy.sharding_constraint`, `sdy.manual_computation` for shard_map; and the values."""

import json

from parallel.scripts.shardy_prelude import (
    AxisType,
    M,
    NamedSharding,
    P,
    jnp,
    lax,
    mesh,
    np,
    res,
    t,
    text,
    x,
)

r = M.device_put(np.arange(8.0, dtype=np.float32), NamedSharding(mesh, P()))
t("args", lambda: text(lambda a: jnp.sin(a).sum(0), x))
t("args_value", lambda: np.asarray(M.jit(lambda a: jnp.sin(a).sum(0))(x)).tolist())
t("replicated", lambda: text(lambda a: a + 1, r))
t(
    "constraint",
    lambda: text(lambda a: lax.with_sharding_constraint(a * 2, NamedSharding(mesh, P("x"))), x),
)
t(
    "out_shardings",
    lambda: text(M.jit(lambda a: a * 2, out_shardings=NamedSharding(mesh, P(None, "x"))), x),
)
smap = M.shard_map(
    lambda a: lax.psum(a, "x"), mesh=mesh, in_specs=P("x", "y"), out_specs=P(None, "y")
)
t("shard_map", lambda: text(smap, x))
t("shard_map_value", lambda: np.asarray(M.jit(smap)(x)).tolist())
t("shard_map_eager", lambda: np.asarray(smap(x)).tolist())
explicit = M.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
e = M.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), NamedSharding(explicit, P("x")))
t("explicit", lambda: text(lambda a: (a * 2).sum(1), e))
t(
    "explicit_reshard",
    lambda: text(lambda a: M.sharding.reshard(a * 2, NamedSharding(explicit, P(None, "y"))), e),
)
t("explicit_value", lambda: np.asarray(M.jit(lambda a: (a * 2).sum(1))(e)).tolist())
print(json.dumps(res))
