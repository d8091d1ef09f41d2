"""Eager operations on split Arrays compile once per signature, counted from a fresh
process's start (tests/parallel/test_eager_sharded.py; run with `run_fresh`)."""

import json
import sys

from didax.runtime import executable
from parallel.scripts.eager_sharded_prelude import jnp, np, res, v, x, x2

# each signature (primitive, params, operand types and shardings) is compiled once
compiles = []
original_compile = executable.compile_module


def counting(*args, **kwargs):
    compiles.append(1)
    return original_compile(*args, **kwargs)


for module in list(sys.modules.values()):  # each module that imported it by name
    if getattr(module, "compile_module", None) is original_compile:
        module.compile_module = counting
counts = []
for _ in range(3):
    x * 2, jnp.sin(x), x + x2, x.sum(0)
    counts.append(len(compiles))
x * 5, x * 7  # other scalars of the same type (an int becomes an f32 Array, as 2 did)
counts.append(len(compiles))
x * 5.0, x * 9.0  # a float stays a weak Python scalar operand: one new signature
counts.append(len(compiles))
jnp.sin(v)  # another shape: a new program
counts.append(len(compiles))
a = jnp.ones((8, 4))  # one device: NumPy's path, nothing compiled
for _ in range(3):
    a * 2, jnp.sin(a), a.sum(0), a[0:2]
counts.append(len(compiles))
res["counts"] = counts
res["value"] = np.asarray(x * 7).tolist()
res["jax imported"] = any(m == "jax" or m.startswith("jax.") for m in sys.modules)
print(json.dumps(res))
