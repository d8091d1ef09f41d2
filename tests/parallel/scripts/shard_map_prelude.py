"""What every shard_map script (tests/parallel/test_shard_map.py) starts with: the library
named by `sys.argv[1]`, a 2x2 mesh ('x', 'y') and a line ('i'), inputs, and `t(name, fn)`,
which records fn()'s leaves (dtype, values) or the builtin type of its exception."""

import functools

import numpy as np
from parallel.scripts.script_library import M, Mesh, NamedSharding, P, jnp, lax

# GSPMD (`mhlo.sharding`) in both libraries: tests/parallel/test_shardy.py checks Shardy's texts
M.config.update("jax_use_shardy_partitioner", False)
res = {}
mesh = Mesh(np.array(M.devices()).reshape(2, 2), ("x", "y"))
line = Mesh(np.array(M.devices()), ("i",))
sm = M.shard_map
nv = functools.partial(M.shard_map, check_vma=False)
x = jnp.arange(16.0).reshape(4, 4)
v8 = jnp.arange(8.0)


def t(name, fn):
    try:
        out = M.tree_util.tree_leaves(fn())
        res[name] = [[str(np.asarray(a).dtype), np.asarray(a).tolist()] for a in out]
    except Exception as e:  # the builtin type (JAX's subclasses differ) and the message
        base = next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")
        res[name] = ["ERR", base]


__all__ = [
    "np",
    "M",
    "jnp",
    "lax",
    "Mesh",
    "NamedSharding",
    "P",
    "res",
    "mesh",
    "line",
    "sm",
    "nv",
    "x",
    "v8",
    "t",
]
