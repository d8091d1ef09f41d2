"""shard_map's jaxpr text, case by case (tests/parallel/test_shard_map.py)."""

import json

from parallel.scripts.shard_map_prelude import M, P, jnp, lax, line, mesh, nv, res, v8, x


def j(name, fn, *args):
    try:
        res[name] = str(M.make_jaxpr(fn)(*args))
    except Exception as e:
        res[name] = f"ERR {type(e).__name__}"


j(
    "basic",
    nv(
        lambda a: lax.psum(a, "x") * lax.axis_index("y"),
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=P(None, "y"),
    ),
    x,
)
j(
    "two_args",
    nv(
        lambda w, a: (a * w, lax.pmax(a, ("x", "y"))),
        mesh=mesh,
        in_specs=(P(), P(("x", "y"))),
        out_specs=(P(("x", "y")), P()),
    ),
    2.0,
    v8,
)
j(
    "collectives",
    nv(
        lambda a: (
            lax.all_gather(a, "x", tiled=True),
            lax.psum_scatter(a, "y", scatter_dimension=1, tiled=True),
            lax.ppermute(a, "x", [(0, 1), (1, 0)]),
            lax.all_to_all(a, "y", 0, 1, tiled=True),
        ),
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=(P(None, "y"), P("x", "y"), P("x", "y"), P("x", "y")),
    ),
    x,
)
j(
    "closure",
    nv(lambda a: a + jnp.arange(2.0), mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y")),
    x,
)
j("jit", M.jit(nv(lambda a: jnp.sin(a), mesh=line, in_specs=P("i"), out_specs=P("i"))), v8)
j(
    "pytree",
    nv(
        lambda d: {"s": d["a"] + d["b"]},
        mesh=mesh,
        in_specs=({"a": P("x"), "b": P()},),
        out_specs={"s": P("x")},
    ),
    {"a": x, "b": jnp.ones((2, 4))},
)
j(
    "vmap",
    M.vmap(nv(lambda a: lax.psum(a, "y"), mesh=mesh, in_specs=P("x", "y"), out_specs=P("x"))),
    jnp.ones((3, 4, 4)),
)
j(
    "jvp",
    lambda a: M.jvp(
        nv(
            lambda u: jnp.sin(u) * lax.psum(u, "x"),
            mesh=mesh,
            in_specs=P("x", "y"),
            out_specs=P(None, "y"),
        ),
        (a,),
        (a,),
    ),
    x,
)
j(
    "vjp",
    lambda a: M.vjp(
        nv(lambda u: lax.psum(u, "x") * u, mesh=mesh, in_specs=P("x", "y"), out_specs=P(None, "y")),
        a,
    )[1](jnp.ones((2, 4))),
    x,
)
j(
    "vjp_two_outs",
    lambda w, a: M.vjp(
        nv(
            lambda w, u: (jnp.sin(u * w), lax.psum(u, "y")),
            mesh=mesh,
            in_specs=(P(), P("x", "y")),
            out_specs=(P("x", "y"), P("x")),
        ),
        w,
        a,
    )[1]((jnp.ones((4, 4)), jnp.ones((4, 2)))),
    2.0,
    x,
)
g = nv(
    lambda w, a: lax.psum(jnp.sum(jnp.sin(a * w)), "x"),
    mesh=mesh,
    in_specs=(P(), P("x")),
    out_specs=P(),
)
j("grad_forward", M.grad(lambda w, a: g(w, a)), 2.0, x)
print(json.dumps(res))
