"""What every pmap script (tests/parallel/test_pmap.py) starts with: the library named by
`sys.argv[1]` (didax or jax), its numpy and lax, and a 4x3 input."""

import functools

import numpy as np
from parallel.scripts.script_library import M, jnp, lax

res = {}
P = functools.partial(M.pmap, axis_name="i")
x = jnp.arange(12.0).reshape(4, 3)

__all__ = ["np", "M", "jnp", "lax", "res", "P", "x"]
