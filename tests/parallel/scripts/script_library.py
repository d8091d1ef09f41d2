"""The library a parallel test script drives, named by `sys.argv[1]` ("didax" or "jax"), under
the names every script's prelude uses: `M` (the library), `jnp`, `lax`, `AxisType`, `Mesh`,
`NamedSharding` and `P`."""

import sys

M = __import__(sys.argv[1])
if sys.argv[1] == "jax":
    import jax.numpy as jnp
    from jax import lax
    from jax.sharding import AxisType, Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P
else:
    import didax.numpy as jnp
    from didax import lax
    from didax.sharding import AxisType, Mesh, NamedSharding
    from didax.sharding import PartitionSpec as P

__all__ = ["M", "jnp", "lax", "AxisType", "Mesh", "NamedSharding", "P"]
