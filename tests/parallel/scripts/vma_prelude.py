"""What every check_vma script (tests/parallel/test_shard_map_vma.py) starts with: the library
named by `sys.argv[1]`, a line ('x') and a 2x2 mesh ('x', 'y')."""

import functools

import numpy as np
from parallel.scripts.script_library import M, Mesh, P, jnp, lax

# GSPMD (`mhlo.sharding`) in both libraries: tests/parallel/test_shardy.py checks Shardy's texts
M.config.update("jax_use_shardy_partitioner", False)
res = {}
line = Mesh(np.array(M.devices()), ("x",))
mesh = Mesh(np.array(M.devices()).reshape(2, 2), ("x", "y"))
sm = M.shard_map
nv = functools.partial(M.shard_map, check_vma=False)
v8 = jnp.arange(8.0)
x = jnp.arange(16.0).reshape(4, 4)
ring = [(0, 1), (1, 2), (2, 3), (3, 0)]

__all__ = [
    "np",
    "M",
    "jnp",
    "lax",
    "Mesh",
    "P",
    "res",
    "line",
    "mesh",
    "sm",
    "nv",
    "v8",
    "x",
    "ring",
]
