"""The mhlo.sharding annotations, partitioned HLO and jaxprs of sharded jits
(tests/parallel/test_sharding.py)."""

import json
import re

from parallel.scripts.sharding_prelude import M, NamedSharding, P, jnp, lax, mesh, res, rows, x, xy


def texts(f, *args):
    lowered = f.lower(*args)
    text = lowered.as_text()
    hlo = lowered.compile().as_text()
    entry = hlo[hlo.index("ENTRY") :]
    return [
        re.findall(r'mhlo.sharding = "([^"]*)"', text),
        re.findall(r"mhlo.num_partitions = (\d+)", text),
        re.findall(r"num_partitions=(\d+)", hlo),
        re.findall(r"parameter\(\d+\), sharding=(\{[^}]*\})", entry),
        re.findall(r"(\w+\[[\d,]*\])\{[\d,]*\} parameter", entry),
    ]


res["jit_args"] = texts(M.jit(lambda a: a * 2), x)
res["uncommitted"] = texts(M.jit(lambda a, b: a * b + 1.0), x, jnp.arange(4.0))
res["uncommitted_wsc"] = texts(
    M.jit(lambda a: lax.with_sharding_constraint(a * 2, NamedSharding(mesh, P(None, "y")))),
    jnp.ones((4, 4)),
)
res["in_out"] = texts(
    M.jit(lambda a: jnp.sin(a).sum(0), in_shardings=rows, out_shardings=NamedSharding(mesh, P())),
    M.device_put(jnp.arange(16.0).reshape(4, 4), rows),
)
res["wsc"] = texts(
    M.jit(lambda a: lax.with_sharding_constraint(a * 2, NamedSharding(mesh, P(None, "y")))), x
)
res["wsc_vmap"] = re.findall(
    r"@Sharding.*",
    M.jit(M.vmap(lambda a: lax.with_sharding_constraint(a * 2, NamedSharding(mesh, P(None, "y")))))
    .lower(jnp.ones((3, 4, 4)))
    .as_text(),
)


def jaxpr(name, f, *args):
    res["jaxpr_" + name] = str(M.make_jaxpr(f)(*args))


wsc = lambda a: lax.with_sharding_constraint(a * 2, NamedSharding(mesh, P(None, "y")))
jaxpr("wsc", wsc, x)
jaxpr("wsc_vmap", M.vmap(wsc), jnp.ones((3, 4, 4)))
jaxpr("wsc_vmap_1", M.vmap(wsc, in_axes=1), jnp.ones((4, 3, 4)))
jaxpr("wsc_tree", lambda a, b: lax.with_sharding_constraint((a, b), (xy, rows)), x, x)
jaxpr("wsc_jvp", lambda a: M.jvp(wsc, (a,), (a,)), x)
print(json.dumps(res))
