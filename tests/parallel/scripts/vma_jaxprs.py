"""check_vma shard_maps' jaxpr text, case by case (tests/parallel/test_shard_map_vma.py)."""

import json

from parallel.scripts.vma_prelude import M, P, jnp, lax, line, mesh, nv, res, ring, sm, v8, x


def j(name, fn, *args):
    try:
        res[name] = str(M.make_jaxpr(fn)(*args))
    except Exception as e:
        base = next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")
        res[name] = f"ERR {base}"


j("psum", sm(lambda a: lax.psum(a * 2, "x"), mesh=line, in_specs=P("x"), out_specs=P()), v8)
j(
    "psum_invariant_input",
    sm(lambda a: lax.psum(a, "x"), mesh=line, in_specs=P(), out_specs=P()),
    v8,
)
j(
    "psum_of_constant",
    sm(lambda a: lax.psum(1, "x") + a, mesh=line, in_specs=P("x"), out_specs=P("x")),
    v8,
)
j("pmean", sm(lambda a: lax.pmean(a, "x"), mesh=line, in_specs=P("x"), out_specs=P()), v8)
j("pmean_invariant", sm(lambda a: lax.pmean(a, "x"), mesh=line, in_specs=P(), out_specs=P()), v8)
j(
    "pmax_pmin",
    sm(
        lambda a: (lax.pmax(a, "x"), lax.pmin(a, "x")),
        mesh=line,
        in_specs=P("x"),
        out_specs=(P(), P()),
    ),
    v8,
)
j("pmax_invariant", sm(lambda a: lax.pmax(a, "x"), mesh=line, in_specs=P(), out_specs=P()), v8)
j(
    "all_gather",
    sm(lambda a: lax.all_gather(a, "x", tiled=True), mesh=line, in_specs=P("x"), out_specs=P("x")),
    v8,
)
j(
    "all_gather_to_unsplit",
    sm(lambda a: lax.all_gather(a, "x"), mesh=line, in_specs=P("x"), out_specs=P()),
    v8,
)
j(
    "psum_scatter",
    sm(lambda a: lax.psum_scatter(a, "x", tiled=True), mesh=line, in_specs=P(), out_specs=P("x")),
    v8,
)
j(
    "ppermute",
    sm(lambda a: lax.ppermute(a, "x", ring), mesh=line, in_specs=P("x"), out_specs=P("x")),
    v8,
)
j(
    "ppermute_invariant",
    sm(lambda a: lax.ppermute(a, "x", ring), mesh=line, in_specs=P(), out_specs=P("x")),
    v8,
)
j(
    "all_to_all",
    sm(
        lambda a: lax.all_to_all(a, "x", 0, 0, tiled=True),
        mesh=line,
        in_specs=P("x"),
        out_specs=P("x"),
    ),
    jnp.arange(64.0),
)
j(
    "axis_index",
    sm(lambda a: a + lax.axis_index("x"), mesh=line, in_specs=P("x"), out_specs=P("x")),
    v8,
)
j(
    "closed_over",
    sm(lambda a: a + jnp.arange(2.0), mesh=line, in_specs=P("x"), out_specs=P("x")),
    v8,
)
j(
    "unsplit_and_split",
    sm(lambda w, a: a * w, mesh=line, in_specs=(P(), P("x")), out_specs=P("x")),
    jnp.ones(()),
    v8,
)
j("output_cast_to_vary", sm(lambda a: a * 2, mesh=line, in_specs=P(), out_specs=P("x")), v8)
j("out_specs_error", sm(lambda a: a * 2, mesh=line, in_specs=P("x"), out_specs=P()), v8)
j(
    "two_axes",
    sm(lambda a: lax.psum(a, "x"), mesh=mesh, in_specs=P("x", "y"), out_specs=P(None, "y")),
    x,
)
j(
    "two_axes_tuple",
    sm(lambda a: lax.psum(a * 2, ("y", "x")), mesh=mesh, in_specs=P(("y", "x")), out_specs=P()),
    x,
)
j(
    "two_axes_pvary_each",
    sm(lambda a: a * 2 + lax.axis_index("y"), mesh=mesh, in_specs=P("x"), out_specs=P("x", "y")),
    x,
)
j(
    "two_axes_pmax",
    sm(lambda a: lax.pmax(a, "y"), mesh=mesh, in_specs=P("x", "y"), out_specs=P("x")),
    x,
)
j("two_axes_out_specs_error", sm(lambda a: a, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x")), x)
j(
    "check_vma_false",
    nv(lambda a: lax.psum(a * 2, "x"), mesh=line, in_specs=P("x"), out_specs=P()),
    v8,
)
j(
    "jit_inside",
    sm(M.jit(lambda a: lax.psum(a * 2, "x")), mesh=line, in_specs=P("x"), out_specs=P()),
    v8,
)
j(
    "jit_outside",
    M.jit(
        sm(lambda a: lax.psum(a * 2, ("x", "y")), mesh=mesh, in_specs=P("x", "y"), out_specs=P())
    ),
    x,
)
j(
    "jvp",
    lambda a: M.jvp(
        sm(lambda u: lax.psum(u * 2, "x"), mesh=line, in_specs=P("x"), out_specs=P()), (a,), (a,)
    ),
    v8,
)
j(
    "jvp_sin",
    lambda a, t: M.jvp(
        sm(lambda u: lax.psum(jnp.sin(u), "x"), mesh=line, in_specs=P("x"), out_specs=P()),
        (a,),
        (t,),
    ),
    v8,
    v8,
)
loss = sm(
    lambda w, a: lax.psum(jnp.sum(a * w), "x"), mesh=line, in_specs=(P(), P("x")), out_specs=P()
)
j("vjp", lambda w, a, ct: M.vjp(loss, w, a)[1](ct), jnp.ones(()), v8, jnp.float32(1.0))
sin_loss = sm(
    lambda w, a: lax.psum(jnp.sum(jnp.sin(a * w)), "x"),
    mesh=line,
    in_specs=(P(), P("x")),
    out_specs=P(),
)
j(
    "vjp_residuals",
    lambda w, a, ct: M.vjp(sin_loss, w, a)[1](ct),
    jnp.ones(()),
    v8,
    jnp.float32(1.0),
)
j(
    "vjp_varying_out",
    lambda w, a, ct: M.vjp(
        sm(lambda w, a: a * w, mesh=line, in_specs=(P(), P("x")), out_specs=P("x")), w, a
    )[1](ct),
    jnp.ones(()),
    v8,
    v8,
)
j(
    "vjp_two_axes",
    lambda w, a, ct: M.vjp(
        sm(
            lambda w, a: lax.psum(a * w, "x"),
            mesh=mesh,
            in_specs=(P(), P("x", "y")),
            out_specs=P(None, "y"),
        ),
        w,
        a,
    )[1](ct),
    jnp.ones(()),
    x,
    jnp.ones((2, 4)),
)
j(
    "linearize",
    lambda a: M.linearize(
        sm(lambda u: lax.psum(jnp.sin(u), "x"), mesh=line, in_specs=P("x"), out_specs=P()), a
    )[1](a),
    v8,
)
j("grad", M.grad(loss), jnp.ones(()), v8)
j(
    "grad_in_body",
    sm(
        lambda a: M.grad(lambda r: jnp.sum(jnp.sin(r) * 2.0))(a),
        mesh=line,
        in_specs=P("x"),
        out_specs=P("x"),
    ),
    v8,
)
j(
    "vmap",
    M.vmap(sm(lambda a: lax.psum(a * 2, "x"), mesh=line, in_specs=P("x"), out_specs=P())),
    jnp.ones((3, 8)),
)
j(
    "vmap_in_axes_1",
    M.vmap(
        sm(lambda a: a * 2, mesh=line, in_specs=P("x"), out_specs=P("x")), in_axes=1, out_axes=1
    ),
    jnp.ones((8, 3)),
)
j(
    "vmap_in_body",
    sm(
        lambda a: M.vmap(lambda r: r * lax.axis_index("x"))(a),
        mesh=line,
        in_specs=P("x"),
        out_specs=P("x"),
    ),
    x,
)
j(
    "cond_in_body",
    sm(
        lambda a: lax.cond(a[0] > 0, lambda: a * 2, lambda: a),
        mesh=line,
        in_specs=P("x"),
        out_specs=P("x"),
    ),
    v8,
)
j(
    "cond_branch_error",
    sm(
        lambda a, b: lax.cond(b[0] > 0, lambda: a * 2, lambda: b),
        mesh=line,
        in_specs=(P("x"), P()),
        out_specs=P("x"),
    ),
    v8,
    jnp.ones(2),
)
j(
    "scan_in_body",
    sm(
        lambda a: lax.scan(lambda c, y: (c + y, c * y), a[0], a)[1],
        mesh=line,
        in_specs=P("x"),
        out_specs=P("x"),
    ),
    v8,
)
j(
    "scan_carry_error",
    sm(
        lambda a: lax.scan(lambda c, y: (c + y, c * y), 0.0, a)[1],
        mesh=line,
        in_specs=P("x"),
        out_specs=P("x"),
    ),
    v8,
)
j(
    "fori_in_body",
    sm(
        lambda a: lax.fori_loop(0, 3, lambda i, c: c * 2, a),
        mesh=line,
        in_specs=P("x"),
        out_specs=P("x"),
    ),
    v8,
)
j(
    "while_carry_error",
    sm(
        lambda a: lax.while_loop(lambda c: c[0] < 10, lambda c: c + a, jnp.zeros(2)),
        mesh=line,
        in_specs=P("x"),
        out_specs=P("x"),
    ),
    v8,
)
print(json.dumps(res))
