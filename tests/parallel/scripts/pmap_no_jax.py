"""pmap runs, differentiates and reads bfloat16 results without importing jax
(tests/parallel/test_pmap.py)."""

import json
import sys

from parallel.scripts.pmap_prelude import M, P, jnp, lax, np, res, x

f = P(lambda x: lax.psum(jnp.sin(x), "i") * lax.axis_index("i"))
f(x)
M.grad(lambda x: jnp.sum(f(x)))(x)
bf = P(lambda x: lax.psum(x, "i"))(jnp.ones((4, 2), M.dtypes.bfloat16))
res["bfloat16"] = [str(bf.dtype), np.asarray(bf, np.float32).tolist()]
res["jax imported"] = any(m == "jax" or m.startswith("jax.") for m in sys.modules)
print(json.dumps(res))
