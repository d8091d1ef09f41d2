"""Sharded arrays read, jitted and drawn without importing jax (tests/parallel/test_sharding.py)."""

import contextlib
import io
import json
import sys

from parallel.scripts.sharding_prelude import (
    M,
    NamedSharding,
    P,
    jnp,
    lax,
    mesh,
    np,
    res,
    rows,
    x,
)

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
# a cached call with arguments split as before takes jit's fast path (fast_path.py)
f = M.jit(lambda a, b: a * b)
outs = [float(np.asarray(f(x, x)).sum()) for _ in range(3)]
res["fast"] = [list(outs), len(f._fast), f.compilations]
outs.append(float(np.asarray(f(x, M.device_put(jnp.ones((4, 4)), rows))).sum()))  # another layout
res["fast_after"] = [outs, len(f._fast), f.compilations]
res["jax imported"] = any(m == "jax" or m.startswith("jax.") for m in sys.modules)
print(json.dumps(res))
