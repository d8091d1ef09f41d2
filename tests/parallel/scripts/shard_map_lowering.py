"""A jit of a shard_map with every collective, lowered and compiled
(tests/parallel/test_shard_map.py)."""

import json
import sys

from parallel.scripts.shard_map_prelude import M, P, lax, mesh, nv, res, x

f = nv(
    lambda a: (
        lax.psum(a, "x"),
        lax.all_gather(a, ("x", "y"), tiled=True),
        lax.psum_scatter(a, "y", scatter_dimension=1, tiled=True),
        lax.ppermute(a, "x", [(0, 1), (1, 0)]),
        lax.all_to_all(a, "y", 0, 1, tiled=True),
        lax.axis_index("y") + 0 * a,
    ),
    mesh=mesh,
    in_specs=P("x", "y"),
    out_specs=(P(None, "y"), P(), P("x", "y"), P("x", "y"), P("x", "y"), P("x", "y")),
)
lowered = M.jit(f).lower(x)
res["text"] = lowered.as_text()
res["hlo"] = lowered.compile().as_text()
res["jax imported"] = any(m == "jax" or m.startswith("jax.") for m in sys.modules)
print(json.dumps(res))
