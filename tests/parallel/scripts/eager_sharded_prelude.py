"""What every eager-sharded script (tests/parallel/test_eager_sharded.py) starts with: the
library named by `sys.argv[1]`, Arrays split over a line and a grid, and `blocks(a)`."""

import contextlib
import io
import re

import numpy as np
from parallel.scripts.script_library import M, Mesh, NamedSharding, P, jnp, lax

res = {}
line = Mesh(np.array(M.devices()), ("x",))
grid = Mesh(np.array(M.devices()).reshape(2, 2), ("x", "y"))
x = M.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(line, P("x")))
x2 = M.device_put(jnp.arange(32.0).reshape(8, 4) / 4, NamedSharding(line, P("x")))
v = M.device_put(jnp.arange(8.0), NamedSharding(line, P("x")))
xi = M.device_put(jnp.arange(32).reshape(8, 4), NamedSharding(line, P("x")))
g = M.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(grid, P("x", "y")))
gc = M.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(grid, P(None, "y")))
gr = M.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(grid, P()))
w = jnp.ones((4, 3))


def blocks(a):
    # the picture's rows of device labels, made from the sharding's blocks, as
    # `visualize_array_sharding` lays them out (JAX draws it with `rich`, if installed)
    shape = a.shape if a.ndim == 2 else (1, *a.shape)
    found = {}
    for d, index in a.sharding.devices_indices_map(a.shape).items():
        index = tuple(index) if a.ndim == 2 else (slice(None), *index)
        key = tuple(s.indices(n)[:2] for s, n in zip(index, shape))
        found.setdefault(key, []).append(d.id)
    rows = sorted({k[0] for k in found})
    cols = sorted({k[1] for k in found})
    return [["CPU " + ",".join(map(str, sorted(found[(r, c)]))) for c in cols] for r in rows]


def picture(a):
    if a.ndim not in (1, 2):
        return None
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            M.debug.visualize_array_sharding(a)
    except ValueError as e:  # JAX without `rich`: its blocks, laid out as it would draw them
        if "rich" not in str(e):
            raise
        return blocks(a)
    lines = out.getvalue().splitlines()
    return [re.findall(r"CPU [\d,]+", s) for s in lines if "CPU" in s]


def placed(a):
    s = a.sharding
    return {
        "values": [[str(a.dtype), np.asarray(a).tolist()]],
        "weak_type": bool(a.weak_type),
        "sharding": [
            type(s).__name__,
            repr(getattr(s, "spec", None)),
            list(getattr(getattr(s, "mesh", None), "shape", {}).items()),
        ],
        "devices": sorted(d.id for d in a.devices()),
        "is_fully_replicated": a.is_fully_replicated,
        "shard_shape": list(s.shard_shape(a.shape)),
        "picture": picture(a),
    }


def t(name, fn):
    try:
        res[name] = placed(fn())
    except Exception as e:  # the builtin type (JAX's subclasses differ)
        base = next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")
        res[name] = {"values": ["ERR", base]}


__all__ = [
    "np",
    "M",
    "jnp",
    "lax",
    "Mesh",
    "NamedSharding",
    "P",
    "res",
    "line",
    "grid",
    "x",
    "x2",
    "v",
    "xi",
    "g",
    "gc",
    "gr",
    "w",
    "blocks",
    "picture",
    "placed",
    "t",
]
