"""A check_vma shard_map lowered (tests/parallel/test_shard_map_vma.py)."""

import json

from parallel.scripts.vma_prelude import M, P, jnp, lax, mesh, res, sm, x

f = sm(
    lambda w, a: (lax.psum(a * w, "x"), lax.pmax(w, "y"), lax.axis_index("y") + 0 * a),
    mesh=mesh,
    in_specs=(P(), P("x", "y")),
    out_specs=(P(None, "y"), P(), P("x", "y")),
)
# (a vector w: JAX marks a scalar argument `{replicated}` in the signature, didax does not)
res["text"] = M.jit(f).lower(jnp.ones(2), x).as_text()
print(json.dumps(res))
