"""pmap's collectives lowered: StableHLO text (Shardy's, the default, and GSPMD's) and
compiled HLO (tests/parallel/test_pmap.py)."""

import json

from parallel.scripts.pmap_prelude import M, P, jnp, lax, res, x

ring = [(0, 1), (1, 2), (2, 3), (3, 0)]


def f(x):
    return (
        lax.psum(x, "i"),
        lax.pmax(x, "i"),
        lax.all_gather(x, "i"),
        lax.psum_scatter(jnp.ones((4, 3)) * x, "i"),
        lax.ppermute(x, "i", ring),
        lax.all_to_all(jnp.ones((4, 3)) * x, "i", 0, 0),
        lax.axis_index("i"),
    )


M.config.update("jax_use_shardy_partitioner", True)  # the default (the worker is shared)
lowered = P(f).lower(x)
res["text"] = lowered.as_text()
res["hlo"] = lowered.compile().as_text()
M.config.update("jax_use_shardy_partitioner", False)  # GSPMD's manual sharding
res["gspmd_text"] = P(f).lower(x).as_text()
print(json.dumps(res))
