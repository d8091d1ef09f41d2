"""What every pmap script (tests/parallel/test_pmap.py) starts with: the library named by
`sys.argv[1]` (didax or jax), its numpy and lax, and a 4x3 input."""

import functools
import sys

import numpy as np

M = __import__(sys.argv[1])
if sys.argv[1] == "jax":
    import jax.numpy as jnp
    from jax import lax
else:
    import didax.numpy as jnp
    from didax import lax
res = {}
P = functools.partial(M.pmap, axis_name="i")
x = jnp.arange(12.0).reshape(4, 3)

__all__ = ["np", "M", "jnp", "lax", "res", "P", "x"]
