"""Compiled input and output shardings (tests/magics/test_partitioned_views.py)."""

import json
import sys

import numpy as np

M = __import__(sys.argv[1])
# GSPMD (`mhlo.sharding`) in both libraries: tests/parallel/test_shardy.py checks Shardy's texts
M.config.update("jax_use_shardy_partitioner", False)
if sys.argv[1] == "jax":
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

else:
    import didax.numpy as jnp
    from didax.sharding import Mesh, NamedSharding
    from didax.sharding import PartitionSpec as P
mesh = Mesh(np.array(M.devices()), ("b",))
s = NamedSharding(mesh, P("b"))


def g(x, y):
    return {"s": jnp.sin(x) * 2, "t": x.sum() + y}


x = M.device_put(jnp.arange(8.0), s)
out = []
for compiled in [
    M.jit(g).lower(jnp.ones(8), 1.0).compile(),
    M.jit(g, out_shardings=NamedSharding(mesh, P())).lower(x, 1.0).compile(),
    M.jit(g).lower(x, y=2.0).compile(),
]:
    out.append([repr(compiled.input_shardings), repr(compiled.output_shardings)])
print(json.dumps(out))
