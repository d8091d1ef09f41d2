"""The out_specs errors' messages and `typeof` in a body (tests/parallel/test_shard_map_vma.py)."""

import json

from parallel.scripts.vma_prelude import M, P, jnp, lax, line, mesh, nv, res, sm, v8, x


def m(name, fn):
    try:
        fn()
        res[name] = None
    except Exception as e:
        res[name] = str(e)


# under jit: JAX's eager call names the function '_rem_singleton', a wrapper of its own
m("out_specs", lambda: M.jit(sm(lambda a: a * 2, mesh=line, in_specs=P("x"), out_specs=P()))(v8))
m(
    "out_specs_two_axes",
    lambda: M.jit(sm(lambda a: (a, a), mesh=mesh, in_specs=P("x", "y"), out_specs=(P("x"), P())))(
        x
    ),
)
m(
    "out_specs_jaxpr",
    lambda: M.make_jaxpr(
        sm(lambda a, b: (b, a + b), mesh=mesh, in_specs=(P("x"), P()), out_specs=(P(), P("y")))
    )(x, x),
)
seen = []


def types(a, b):  # jax.typeof inside the body: repr and str of varying and invariant types
    seen.extend([repr(M.typeof(a)), str(M.typeof(a)), repr(M.typeof(b)), repr(a)])
    return a


M.make_jaxpr(sm(types, mesh=mesh, in_specs=(P("x", "y"), P()), out_specs=P("x", "y")))(
    x, jnp.ones(())
)
res["typeof"] = seen
m(
    "out_rank",
    lambda: M.jit(
        sm(lambda a: lax.axis_index("x") * 1.0 + a, mesh=line, in_specs=P(), out_specs=P("x"))
    )(jnp.ones(())),
)
m(
    "out_rank_tree",
    lambda: M.jit(
        sm(
            lambda a: {"p": (a, jnp.sum(a)), "q": a},
            mesh=line,
            in_specs=P("x"),
            out_specs={"p": P("x"), "q": P("x", None)},
        )
    )(v8),
)
m(
    "out_rank_check_vma_false",
    lambda: M.jit(nv(lambda a: (a, a.sum()), mesh=line, in_specs=P("x"), out_specs=P("x")))(v8),
)
print(json.dumps(res))
