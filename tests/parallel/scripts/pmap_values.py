"""pmap's values, dtypes and errors, case by case (tests/parallel/test_pmap.py)."""

import json

from parallel.scripts.pmap_prelude import M, P, jnp, lax, np, res, x


def t(name, fn):
    try:
        out = M.tree_util.tree_leaves(fn())
        res[name] = [[str(np.asarray(a).dtype), np.asarray(a).tolist()] for a in out]
    except Exception as e:  # the builtin type (subclasses differ: JAX's IndivisibleError)
        res[name] = ["ERR", next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")]


ring = [(0, 1), (1, 2), (2, 3), (3, 0)]
t("psum", lambda: P(lambda x: lax.psum(x, "i"))(x))
t("pmean", lambda: P(lambda x: lax.pmean(x, "i"))(x))
t("pmax", lambda: P(lambda x: lax.pmax(x, "i"))(x))
t("pmin", lambda: P(lambda x: lax.pmin(x, "i"))(x))
t("pmean_int", lambda: P(lambda x: lax.pmean(x, "i"))(jnp.arange(4)))
t("psum_bool", lambda: P(lambda x: lax.psum(x, "i"))(jnp.array([True, False, True, True])))
t("psum_f16", lambda: P(lambda x: lax.psum(x, "i"))(jnp.ones((4, 2), jnp.float16)))
t("psum_int_plus", lambda: P(lambda x: lax.psum(x, "i") + 1)(jnp.arange(4)))
t("axis_index", lambda: P(lambda x: x * lax.axis_index("i"))(x))
t("all_gather", lambda: P(lambda x: lax.all_gather(x, "i"))(x))
t("all_gather_axis1", lambda: P(lambda x: lax.all_gather(x, "i", axis=1))(x))
t("all_gather_tiled", lambda: P(lambda x: lax.all_gather(x, "i", tiled=True))(x))
t("psum_scatter", lambda: P(lambda x: lax.psum_scatter(x, "i"))(jnp.arange(16.0).reshape(4, 4)))
t(
    "psum_scatter_tiled",
    lambda: P(lambda x: lax.psum_scatter(x, "i", tiled=True))(jnp.arange(32.0).reshape(4, 8)),
)
t("ppermute", lambda: P(lambda x: lax.ppermute(x, "i", ring))(x))
t("ppermute_partial", lambda: P(lambda x: lax.ppermute(x, "i", [(0, 1), (1, 0)]))(x))
t("all_to_all", lambda: P(lambda x: lax.all_to_all(x, "i", 0, 0))(jnp.arange(16.0).reshape(4, 4)))
t(
    "all_to_all_01",
    lambda: P(lambda x: lax.all_to_all(x, "i", 0, 1))(jnp.arange(32.0).reshape(4, 4, 2)),
)
t(
    "all_to_all_tiled",
    lambda: P(lambda x: lax.all_to_all(x, "i", 0, 0, tiled=True))(jnp.arange(32.0).reshape(4, 8)),
)
t("in_axes_1", lambda: M.pmap(lambda x: x * 2, in_axes=1)(jnp.arange(8.0).reshape(2, 4)))
t("out_axes_1", lambda: M.pmap(lambda x: x * 2, out_axes=1)(jnp.arange(8.0).reshape(4, 2)))
t("out_axes_none", lambda: P(lambda x: lax.psum(x, "i"), out_axes=None)(jnp.arange(4.0)))
t("in_axes_none", lambda: P(lambda x, y: x * y, in_axes=(0, None))(x, 2.0))
t("static", lambda: M.pmap(lambda x, n: x * n, static_broadcasted_argnums=1)(x, 3))
t(
    "pytree",
    lambda: M.pmap(lambda d: {"a": d["a"] + 1, "b": (d["b"] * 2,)})({"a": x, "b": jnp.ones((4,))}),
)
t("kwargs", lambda: M.pmap(lambda x, y: x + y)(x, y=x))
t("devices", lambda: P(lambda x: lax.psum(x, "i"), devices=M.devices()[1:3])(jnp.ones((2, 2))))
t("fewer_than_devices", lambda: P(lambda x: lax.psum(x, "i"))(jnp.ones((2, 2))))
t("closure", lambda: P(lambda x: x + jnp.arange(3.0))(x))

loss = lambda w, x: jnp.sum(lax.pmean(jnp.sin(w * x), "i"))
t("grad_inside", lambda: P(M.grad(loss), in_axes=(None, 0))(2.0, x))
t(
    "grad_of_pmap",
    lambda: M.grad(lambda x: jnp.sum(P(lambda y: jnp.sin(y) * lax.psum(y, "i"))(x)))(x),
)
t(
    "grad_unmapped_input",
    lambda: M.grad(lambda w: jnp.sum(P(lambda w, y: jnp.sin(w * y), in_axes=(None, 0))(w, x)))(1.5),
)
t(
    "grad_unmapped_output",
    lambda: M.grad(lambda x: jnp.sum(P(lambda y: lax.psum(y * y, "i"), out_axes=None)(x)))(x),
)
t(
    "grad_all_gather",
    lambda: M.grad(lambda x: jnp.sum(P(lambda y: lax.all_gather(y, "i")[1] * y)(x) ** 2))(x),
)
t(
    "grad_ppermute",
    lambda: M.grad(lambda x: jnp.sum(P(lambda y: lax.ppermute(y, "i", ring) * jnp.cos(y))(x)))(x),
)
t(
    "grad_psum_scatter",
    lambda: M.grad(lambda x: jnp.sum(P(lambda y: lax.psum_scatter(y, "i") ** 2)(x)))(
        jnp.arange(16.0).reshape(4, 4)
    ),
)
t("jvp", lambda: M.jvp(P(lambda y: jnp.sin(y) * lax.psum(y, "i")), (x,), (jnp.ones_like(x),)))
t("jit_of_pmap", lambda: M.jit(lambda x: P(lambda y: lax.psum(y, "i"))(x) * 2)(x))
t("pmap_of_jit", lambda: P(M.jit(lambda y: lax.psum(jnp.cos(y), "i")))(x))
t("grad_jit_pmap", lambda: M.grad(M.jit(lambda x: jnp.sum(P(lambda y: jnp.sin(y))(x) ** 2)))(x))
t("vmap_of_pmap", lambda: M.vmap(P(lambda y: lax.psum(y, "i")))(jnp.arange(24.0).reshape(2, 4, 3)))
t(
    "vmap_of_pmap_named",
    lambda: M.vmap(P(lambda y: lax.psum(y, "j") + lax.psum(y, "i")), axis_name="j")(
        jnp.arange(24.0).reshape(2, 4, 3)
    ),
)
t(
    "pmap_of_vmap",
    lambda: P(M.vmap(lambda y: lax.psum(y, ("i", "j")), axis_name="j"))(
        jnp.arange(24.0).reshape(4, 2, 3)
    ),
)
t(
    "pmap_of_vmap_in_axes_1",
    lambda: P(M.vmap(lambda y: lax.psum(y, "j") * lax.axis_index("i"), axis_name="j", in_axes=1))(
        jnp.arange(24.0).reshape(4, 3, 2)
    ),
)

t("err_too_many", lambda: M.pmap(lambda x: x)(jnp.ones((5, 2))))
t("err_mismatch", lambda: M.pmap(lambda x, y: x + y)(jnp.ones((4, 2)), jnp.ones((3, 2))))
t(
    "err_in_axes_len",
    lambda: M.pmap(lambda x, y: x + y, in_axes=(0,))(jnp.ones((4, 2)), jnp.ones((4, 2))),
)
t("err_no_mapped", lambda: M.pmap(lambda x: x, in_axes=None)(jnp.ones((4, 2))))
t(
    "err_static_missing",
    lambda: M.pmap(lambda x, n: x * n, static_broadcasted_argnums=1)(jnp.ones((4, 2))),
)
t("err_in_axes_float", lambda: M.pmap(lambda x: x, in_axes=0.5))
t("err_unbound", lambda: P(lambda x: lax.psum(x, "j"))(jnp.ones((4, 2))))
t("err_nested", lambda: M.pmap(M.pmap(lambda x: x))(jnp.ones((2, 2, 3))))
t("const_out", lambda: M.pmap(lambda x: 1.0)(x))
t("passthrough_unmapped", lambda: M.pmap(lambda x, y: y, in_axes=(0, None))(x, jnp.ones(2)))
t(
    "vmap_two_args",
    lambda: M.vmap(P(lambda a, b: lax.psum(a * b, "i"), in_axes=(0, None)), in_axes=(0, None))(
        jnp.ones((2, 4, 3)), 2.0
    ),
)
t(
    "vmap_out_axes_1",
    lambda: M.vmap(P(lambda a: a * lax.axis_index("i")), out_axes=1)(jnp.ones((2, 4, 3))),
)
t(
    "fori_loop_inside",
    lambda: P(lambda x: lax.fori_loop(0, 3, lambda i, c: c + lax.psum(c, "i"), x))(x),
)
t(
    "cond_inside",
    lambda: P(lambda x: lax.cond(lax.axis_index("i") > 1, lambda v: v * 2, lambda v: -v, x))(x),
)
t("hessian", lambda: M.hessian(lambda w: jnp.sum(P(lambda y: jnp.sin(w * y))(x)))(1.0))
t("jacfwd", lambda: M.jacfwd(lambda v: P(lambda y: lax.psum(y**2, "i"))(v))(jnp.arange(4.0)))
t("int_pmax", lambda: P(lambda x: lax.pmax(x, "i"))(jnp.arange(8).reshape(4, 2)))
print(json.dumps(res))
