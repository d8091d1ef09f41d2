"""A jit's in/out shardings where its call is traced (tests/parallel/test_jit_shardings.py)."""

import json
import re

from parallel.scripts.sharding_prelude import (
    M,
    Mesh,
    NamedSharding,
    P,
    jnp,
    lax,
    mesh,
    np,
    placed,
    res,
    rows,
    value,
)

b = Mesh(np.array(M.devices()), ("b",))
sb = NamedSharding(b, P("b"))
rep = NamedSharding(b, P())
cols = NamedSharding(b, P(None, "b"))


def g(v):
    return jnp.sin(v) * 2


f = M.jit(g, in_shardings=sb, out_shardings=rep)
f_in = M.jit(g, in_shardings=sb)
f_out = M.jit(g, out_shardings=rep)
two = M.jit(lambda v, w: (v * w, jnp.cos(w)), in_shardings=(sb, None), out_shardings=(None, sb))
pair = M.jit(lambda v, w: (v * 2, jnp.cos(w)), in_shardings=(sb, None), out_shardings=(sb, sb))
tree = M.jit(lambda v: {"s": v.sum(), "t": v * 3}, out_shardings={"s": rep, "t": sb})
fi = M.jit(g, in_shardings=sb, out_shardings=rep, inline=True)  # kept, as it has shardings
m2 = M.jit(lambda a: jnp.tanh(a) * a, in_shardings=cols, out_shardings=cols)
xb = M.device_put(jnp.arange(8.0), sb)
x8 = jnp.arange(8.0)
x48 = jnp.arange(32.0).reshape(4, 8) / 10
loss = lambda v: f(v).sum()


def jaxpr(name, fn, *args):
    res["jaxpr_" + name] = str(M.make_jaxpr(fn)(*args))


jaxpr("direct", f, xb)
jaxpr("direct_host", f, x8)
jaxpr("in_only", f_in, x8)
jaxpr("out_only", f_out, x8)
jaxpr("plain", M.jit(g), xb)
jaxpr("inline", lambda v: fi(v) + 1, x8)
jaxpr("two", two, x8, x8)
jaxpr("tree", tree, x8)
jaxpr("nested", M.jit(lambda v: f(v) + 1), xb)
jaxpr("grad", M.grad(loss), x8)
jaxpr("grad_in_only", M.grad(lambda v: f_in(v).sum()), x8)
jaxpr("jvp", lambda v: M.jvp(f, (v,), (v,)), x8)
jaxpr("jvp_two_zero", lambda v: M.jvp(lambda a: two(a, x8), (v,), (v,)), x8)
jaxpr("vmap", M.vmap(f), jnp.ones((3, 8)))
jaxpr("vmap_2d", M.vmap(m2), jnp.ones((3, 4, 8)))
jaxpr("vmap_unbatched", M.vmap(pair, in_axes=(None, 0), out_axes=(None, 0)), x8, jnp.ones((3, 8)))
jaxpr("grad_vmap", M.grad(lambda v: M.vmap(f)(v).sum()), jnp.ones((3, 8)))


def annotations(fn, *args):
    text = fn.lower(*args).as_text()
    return [
        re.findall(r'mhlo.sharding = "([^"]*)"', text),
        re.findall(r"@Sharding.*", text),
        re.findall(r"mhlo.num_partitions = (\d+)", text),
    ]


res["lower_nested"] = annotations(M.jit(lambda v: f(v) + 1), xb)
res["lower_nested_host"] = annotations(M.jit(lambda v: f(v) + 1), x8)
res["lower_two"] = annotations(M.jit(lambda v, w: jnp.subtract(*two(v, w))), x8, x8)
res["lower_vmap"] = annotations(M.jit(M.vmap(m2)), jnp.ones((3, 4, 8)))
res["lower_twice"] = annotations(M.jit(lambda v: f(v) + f_in(v) + f(v * 2)), x8)

res["nested"] = placed(M.jit(lambda v: f(v) + 1)(xb))
res["nested_host"] = placed(M.jit(lambda v: f(v) + 1)(x8))
res["nested_twice"] = placed(M.jit(lambda v: f(v) + f_in(v) + f(v * 2))(x8))
res["nested_tree"] = [placed(o) for o in M.tree_util.tree_leaves(M.jit(lambda v: tree(v * 2))(x8))]
res["grad"] = placed(M.grad(loss)(xb))
res["grad_host"] = placed(M.grad(loss)(x8))
res["grad_inline"] = placed(M.grad(lambda v: fi(v).sum())(x8))
res["nested_inline"] = placed(M.jit(lambda v: fi(v) + 1)(x8))
# evaluated under grad, a jit equation with shardings inside runs partitioned too
res["grad_of_nesting_jit"] = placed(M.grad(M.jit(lambda v: (f(v) * v).sum()))(x8))
wsc = M.jit(lambda v: jnp.sin(lax.with_sharding_constraint(v * 3, sb)).sum())
res["grad_of_jit_wsc"] = placed(M.grad(wsc)(x8))
res["jvp_of_jit_wsc"] = [placed(o) for o in M.jvp(wsc, (x8,), (x8,))]
# on the 2x2 mesh: each gradient split as its argument's in_sharding
sg = M.jit(
    lambda w, a: jnp.sum(jnp.tanh(a @ w) ** 2), in_shardings=(NamedSharding(mesh, P()), rows)
)
w0, a0 = jnp.arange(8.0).reshape(4, 2) / 10, jnp.arange(16.0).reshape(4, 4) / 10
res["grad_2d"] = [placed(o) for o in M.grad(sg, (0, 1))(w0, a0)]
res["grad_two"] = [
    value(o) for o in M.grad(lambda v, w: two(v, w)[0].sum() + two(v, w)[1].sum(), (0, 1))(x8, x8)
]
l, dl = M.value_and_grad(loss)(xb)
res["value_and_grad"] = [value(l), placed(dl)]
res["jit_grad"] = placed(M.jit(M.grad(loss))(xb))
res["jvp"] = [placed(o) for o in M.jvp(f, (xb,), (jnp.ones(8),))]
res["vmap"] = placed(M.vmap(f)(jnp.arange(24.0).reshape(3, 8)))
res["vmap_2d"] = placed(M.vmap(m2)(jnp.arange(96.0).reshape(3, 4, 8) / 50))
res["vmap_unbatched"] = [
    placed(o) for o in M.vmap(pair, in_axes=(None, 0), out_axes=(None, 0))(x8, jnp.ones((3, 8)))
]
print(json.dumps(res))
