"""What every sharding script (tests/parallel/test_sharding.py, test_jit_shardings.py) starts
with: the library named by `sys.argv[1]`, a 2x2 mesh ('x', 'y'), a line ('i'), an input split
over the mesh, and recorders of values, error types and placements."""

import numpy as np
from parallel.scripts.script_library import AxisType, M, Mesh, NamedSharding, P, jnp, lax

# GSPMD (`mhlo.sharding`) in both libraries: tests/parallel/test_shardy.py checks Shardy's texts
M.config.update("jax_use_shardy_partitioner", False)
res = {}
mesh = Mesh(np.array(M.devices()).reshape(2, 2), ("x", "y"))
line = Mesh(np.array(M.devices()), ("i",))
xy = NamedSharding(mesh, P("x", "y"))
rows = NamedSharding(mesh, P("x"))
x = M.device_put(jnp.arange(16.0).reshape(4, 4), xy)


def t(name, fn):
    try:
        res[name] = fn()
    except Exception as e:  # the builtin type (JAX's subclasses differ) and the message
        base = next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")
        res[name] = ["ERR", base, str(e).split("\n")[0]]


def t_type(name, fn):  # errors whose messages differ: the builtin type only
    try:
        fn()
        res[name] = "no error"
    except Exception as e:
        res[name] = next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")


def value(a):
    a = np.asarray(a)
    return [str(a.dtype), a.tolist()]


def placed(a):  # value, sharding and where each block is
    shards = sorted(
        (s.device.id, repr(s.index), s.replica_id, np.asarray(s.data).tolist())
        for s in a.addressable_shards
    )
    return [
        value(a),
        repr(a.sharding),
        sorted(d.id for d in a.devices()),
        shards,
        a.is_fully_replicated,
        a.is_fully_addressable,
    ]


__all__ = [
    "np",
    "M",
    "jnp",
    "lax",
    "Mesh",
    "NamedSharding",
    "P",
    "AxisType",
    "res",
    "mesh",
    "line",
    "xy",
    "rows",
    "x",
    "t",
    "t_type",
    "value",
    "placed",
]
