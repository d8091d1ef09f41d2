"""check_vma shard_maps' values, dtypes and errors (tests/parallel/test_shard_map_vma.py)."""

import json

from parallel.scripts.vma_prelude import M, P, jnp, lax, line, mesh, np, res, ring, sm, v8, x


def t(name, fn):
    try:
        out = M.tree_util.tree_leaves(fn())
        res[name] = [[str(np.asarray(a).dtype), np.asarray(a).tolist()] for a in out]
    except Exception as e:  # the builtin type (JAX's subclasses differ) and the message
        base = next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")
        res[name] = ["ERR", base]


t("psum", lambda: sm(lambda a: lax.psum(a * 2, "x"), mesh=line, in_specs=P("x"), out_specs=P())(v8))
t(
    "psum_invariant_input",
    lambda: sm(lambda a: lax.psum(a, "x"), mesh=line, in_specs=P(), out_specs=P())(v8),
)
t("pmean", lambda: sm(lambda a: lax.pmean(a, "x"), mesh=line, in_specs=P("x"), out_specs=P())(v8))
t(
    "pmean_invariant",
    lambda: sm(lambda a: lax.pmean(a, "x"), mesh=line, in_specs=P(), out_specs=P())(v8),
)
t(
    "pmax_pmin",
    lambda: sm(
        lambda a: (lax.pmax(a, "x"), lax.pmin(a, "x")),
        mesh=line,
        in_specs=P("x"),
        out_specs=(P(), P()),
    )(v8),
)
t(
    "all_gather",
    lambda: sm(
        lambda a: lax.all_gather(a, "x", tiled=True), mesh=line, in_specs=P("x"), out_specs=P("x")
    )(v8),
)
t(
    "psum_scatter",
    lambda: sm(
        lambda a: lax.psum_scatter(a, "x", tiled=True), mesh=line, in_specs=P(), out_specs=P("x")
    )(v8),
)
t(
    "ppermute_invariant",
    lambda: sm(lambda a: lax.ppermute(a, "x", ring), mesh=line, in_specs=P(), out_specs=P("x"))(v8),
)
t(
    "all_to_all",
    lambda: sm(
        lambda a: lax.all_to_all(a, "x", 0, 0, tiled=True),
        mesh=line,
        in_specs=P("x"),
        out_specs=P("x"),
    )(jnp.arange(64.0)),
)
t(
    "axis_index",
    lambda: sm(lambda a: a + lax.axis_index("x"), mesh=line, in_specs=P("x"), out_specs=P("x"))(v8),
)
t("output_cast_to_vary", lambda: sm(lambda a: a * 2, mesh=line, in_specs=P(), out_specs=P("x"))(v8))
t("out_specs_error", lambda: sm(lambda a: a * 2, mesh=line, in_specs=P("x"), out_specs=P())(v8))
t(
    "two_axes",
    lambda: sm(
        lambda a: lax.psum(a * 2, "x") + lax.axis_index("y"),
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=P(None, "y"),
    )(x),
)
t(
    "two_axes_pmax",
    lambda: sm(lambda a: lax.pmax(a, "y"), mesh=mesh, in_specs=P("x", "y"), out_specs=P("x"))(x),
)
t(
    "jit_outside",
    lambda: M.jit(
        sm(lambda a: lax.psum(a * 2, ("x", "y")), mesh=mesh, in_specs=P("x", "y"), out_specs=P())
    )(x),
)
sin_loss = sm(
    lambda w, a: lax.psum(jnp.sum(jnp.sin(a * w)), "x"),
    mesh=line,
    in_specs=(P(), P("x")),
    out_specs=P(),
)
t("grad", lambda: M.grad(sin_loss, argnums=(0, 1))(jnp.float32(0.5), v8))
t("jit_grad", lambda: M.jit(M.grad(sin_loss, argnums=(0, 1)))(jnp.float32(0.5), v8))
two = sm(
    lambda w, a: lax.psum(jnp.cos(a * w), "x"),
    mesh=mesh,
    in_specs=(P(), P("x", "y")),
    out_specs=P(None, "y"),
)
t(
    "grad_two_axes",
    lambda: M.grad(lambda w, a: jnp.sum(two(w, a)), argnums=(0, 1))(jnp.float32(0.5), x / 16.0),
)
t(
    "jvp",
    lambda: M.jvp(
        sm(lambda u: lax.psum(jnp.sin(u), "x"), mesh=line, in_specs=P("x"), out_specs=P()),
        (v8,),
        (jnp.ones(8),),
    ),
)
t(
    "vmap",
    lambda: M.vmap(sm(lambda a: lax.pmean(a, "x"), mesh=line, in_specs=P("x"), out_specs=P()))(
        jnp.arange(24.0).reshape(3, 8)
    ),
)
t(
    "grad_in_body",
    lambda: sm(
        lambda a: M.grad(lambda r: jnp.sum(jnp.sin(r) * 2.0))(a),
        mesh=line,
        in_specs=P("x"),
        out_specs=P("x"),
    )(v8),
)
# the gradient of a replicated parameter inside a body is summed over the devices
t(
    "grad_of_replicated_in_body",
    lambda: sm(
        lambda w, a: M.grad(lambda w: jnp.sum(jnp.sin(a * w)))(w),
        mesh=line,
        in_specs=(P(), P("x")),
        out_specs=P(),
    )(jnp.float32(0.5), v8),
)
t(
    "grad_of_replicated_pytree_in_body",
    lambda: sm(
        lambda p, a: M.grad(lambda p: jnp.sum(a * p["w"] + p["b"]))(p),
        mesh=line,
        in_specs=(P(), P("x")),
        out_specs=P(),
    )({"w": jnp.float32(2.0), "b": jnp.ones(2)}, v8.reshape(4, 2)),
)
t(
    "scan_in_body",
    lambda: sm(
        lambda a: lax.scan(lambda c, y: (c + y, c * y), a[0], a)[1],
        mesh=line,
        in_specs=P("x"),
        out_specs=P("x"),
    )(v8),
)
t(
    "scan_carry_error",
    lambda: sm(
        lambda a: lax.scan(lambda c, y: (c + y, c * y), 0.0, a)[1],
        mesh=line,
        in_specs=P("x"),
        out_specs=P("x"),
    )(v8),
)
t(
    "cond_branch_error",
    lambda: sm(
        lambda a, b: lax.cond(b[0] > 0, lambda: a * 2, lambda: b),
        mesh=line,
        in_specs=(P("x"), P()),
        out_specs=P("x"),
    )(v8, jnp.ones(2)),
)
print(json.dumps(res))
