"""pmap's jaxpr text, case by case (tests/parallel/test_pmap.py)."""

import json

from parallel.scripts.pmap_prelude import M, P, jnp, lax, res, x


def t(name, fn, *args):
    try:
        res[name] = str(M.make_jaxpr(fn)(*args))
    except Exception as e:
        res[name] = f"ERR {type(e).__name__}"


t(
    "basic",
    P(lambda x, y: (lax.psum(jnp.sin(x) * y, "i"), lax.axis_index("i")), in_axes=(0, None)),
    x,
    2.0,
)
t("default_axis_name", M.pmap(lambda x: x * 2), jnp.ones((2, 3)))
t(
    "collectives",
    P(
        lambda x: (
            lax.pmean(x, "i"),
            lax.all_gather(x, "i"),
            lax.ppermute(x, "i", [(0, 1), (1, 0)]),
            lax.pmax(x, "i"),
        )
    ),
    x,
)
t("in_axes_1_out_axes_1", M.pmap(lambda x: x * 2, in_axes=1, out_axes=1), jnp.ones((3, 4)))
t("out_axes_none", P(lambda x: lax.psum(x, "i"), out_axes=None), jnp.ones(4))
t("static", M.pmap(lambda x, n: x * n, static_broadcasted_argnums=1), x, 3)
t("closure", P(lambda x: x + jnp.arange(3.0)), x)
t("pytree", M.pmap(lambda d: {"a": d["a"] + 1, "b": d["b"] * 2}), {"a": x, "b": jnp.ones((4,))})
t("jit_of_pmap", M.jit(lambda x: P(lambda y: jnp.sin(y))(x)), jnp.ones(4))
t("pmap_of_jit", P(M.jit(lambda y: lax.psum(jnp.cos(y), "i"))), jnp.ones(4))
t("grad", lambda x: M.grad(lambda x: jnp.sum(P(lambda y: jnp.sin(y))(x)))(x), jnp.ones(4))
print(json.dumps(res))
