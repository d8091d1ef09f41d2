"""What the Shardy scripts (shardy_texts.py, shard_map_nested.py, shard_map_reach.py) start
with: the library named by `sys.argv[1]` with Shardy on, a 2x2 mesh ('x', 'y') and an array
split over it, `t(name, fn)` (fn()'s record, or its exception's type and first line),
`t_type` (the type only) and `text(f, *args)` (the StableHLO of `jit(f)`, without JAX's
`jax.result_info` attributes)."""

import re

import numpy as np
from parallel.scripts.script_library import AxisType, M, Mesh, NamedSharding, P, jnp, lax

# the default (set again: the worker is shared with scripts that turn it off)
M.config.update("jax_use_shardy_partitioner", True)

res = {}


def t(name, fn):
    try:
        res[name] = fn()
    except Exception as e:
        res[name] = ["ERR", type(e).__name__, str(e).split("\n")[0]]


def t_type(name, fn):  # errors whose messages vary (a set's order): the type only
    try:
        fn()
        res[name] = "no error"
    except Exception as e:
        res[name] = type(e).__name__


def text(f, *args):
    # the module text, without JAX's `jax.result_info` result attributes (didax has none)
    jitted = f if hasattr(f, "lower") else M.jit(f)
    s = jitted.lower(*args).as_text()
    s = re.sub(r'jax.result_info = "[^"]*", ', "", s)
    s = re.sub(r' \{jax.result_info = "[^"]*"\}', "", s)
    return re.sub(r"-> \((tensor<[^>]*>)\) \{", r"-> \1 {", s)


mesh = Mesh(np.array(M.devices()).reshape(2, 2), ("x", "y"))
x = M.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), NamedSharding(mesh, P("x", "y")))

__all__ = [
    "np",
    "M",
    "jnp",
    "lax",
    "AxisType",
    "Mesh",
    "NamedSharding",
    "P",
    "res",
    "t",
    "t_type",
    "text",
    "mesh",
    "x",
]
