"""Sharding in types (JAX 0.10.2's default `Explicit` mesh axes), case by case
(tests/parallel/test_explicit_sharding.py): types (`float32[8@x,4@y]`), the shardings of
results, JAX's errors, the context mesh, `reshard` and `out_sharding=`."""

import json

import numpy as np
from script_library import AxisType, M, Mesh, NamedSharding, P, jnp
from shardy_prelude import text

res = {}


def t(name, fn):
    try:
        res[name] = fn()
    except Exception as e:  # the type (JAX's ShardingTypeError is an Exception) and message
        res[name] = ["ERR", type(e).__name__, str(e).split("\n")[0]]


def typed(a):  # type, sharding, value
    return [str(M.typeof(a)), repr(a.sharding), np.asarray(a).tolist()]


m = M.make_mesh((2, 2), ("x", "y"))
x = M.device_put(np.arange(32.0).reshape(8, 4), NamedSharding(m, P("x", "y")))
xx = M.device_put(np.arange(32.0).reshape(8, 4), NamedSharding(m, P(("x", "y"))))
y = M.device_put(np.arange(32.0).reshape(8, 4), NamedSharding(m, P("y", "x")))
r = M.device_put(np.arange(32.0).reshape(8, 4), NamedSharding(m, P()))

t("make_mesh", lambda: [repr(m), str(m), repr(m.axis_types)])
t("make_mesh_auto", lambda: repr(M.make_mesh((4,), ("i",), axis_types=(AxisType.Auto,))))
t("mesh_ctor", lambda: repr(Mesh(np.array(M.devices()), ("i",))))
t("typeof", lambda: [str(M.typeof(v)) for v in (x, xx, y, r)])
t("typeof_repr", lambda: repr(M.typeof(x)))
t("placed", lambda: [typed(v) for v in (x, xx, r)])
t("add_conflict", lambda: typed(x + y))
t("add_replicated", lambda: typed(x + r))
t("add_numpy", lambda: typed(x + np.ones((8, 4), np.float32)))
t("transpose", lambda: typed(x.T))
t("sum0", lambda: typed(x.sum(0)))
t("sum_all", lambda: typed(x.sum()))
t("max1", lambda: typed(x.max(1)))
t("broadcast", lambda: typed(jnp.broadcast_to(x[None], (3, 8, 4))))
t("expand", lambda: typed(x[:, None, :]))
t("reshape_merge", lambda: typed(x.reshape(32)))
t("reshape_split", lambda: typed(x.reshape(2, 4, 4)))
t("reshape_last", lambda: typed(x.reshape(8, 2, 2)))
t("reshape_bad", lambda: typed(jnp.broadcast_to(x[None], (3, 8, 4)).reshape(24, 4)))
t("dot_inconsistent", lambda: typed(x @ y.T))
t("dot_ambiguous", lambda: typed(x.T @ x))
t("dot_duplicate", lambda: typed(xx @ xx.T))
t("dot", lambda: typed(x @ r.T))
t("sin", lambda: typed(jnp.sin(x)))
t("astype", lambda: typed(x.astype(jnp.int32)))
t("index", lambda: typed(x[1:3]))
t("cumsum_split", lambda: typed(jnp.cumsum(x, 0)))
t("cumsum", lambda: typed(jnp.cumsum(x, 1)))
t("where", lambda: typed(jnp.where(x > 2, x, 0.0)))
t("concatenate", lambda: typed(jnp.concatenate([x, x], 1)))
t("jit", lambda: [typed(M.jit(lambda a: a * 2)(x)), typed(M.jit(lambda a: a.sum(1))(x))])
t("jit_dot", lambda: typed(M.jit(lambda a: (a @ r.T).sum(0))(x)))
t("jaxpr", lambda: str(M.make_jaxpr(lambda a: (jnp.sin(a) * 2).T.sum(0))(x)))
t("reshard_no_mesh", lambda: typed(M.sharding.reshard(x, P())))
t("reshard_named", lambda: typed(M.sharding.reshard(x, NamedSharding(m, P(None, "x")))))
t("zeros_no_mesh", lambda: typed(jnp.zeros((8,), out_sharding=P("x"))))
t("abstract_mesh_none", lambda: repr(M.sharding.get_abstract_mesh()))


def tm(name, fn):  # a case under the context mesh (`set_mesh` as a `with`)
    with M.set_mesh(m):
        t(name, fn)


tm("zeros", lambda: [typed(jnp.zeros((8,), out_sharding=P("x"))), typed(jnp.zeros((8,)))])
tm("ones", lambda: typed(jnp.ones((8, 4), out_sharding=P("x", "y"))))
tm("full", lambda: typed(jnp.full((8, 4), 2.0, out_sharding=P("x"))))
tm("arange", lambda: typed(jnp.arange(8.0, out_sharding=P("x"))))
tm("reshape_out", lambda: typed(x.reshape(32, out_sharding=P(("x", "y")))))
tm("reshape_out_fn", lambda: typed(jnp.reshape(x, (4, 8), out_sharding=P("x", None))))
tm(
    "jit_reshape_out",
    lambda: typed(M.jit(lambda a: jnp.reshape(a * 2, (32,), out_sharding=P(("x", "y"))))(x)),
)
tm("dot_out", lambda: typed(jnp.dot(x, x.T, out_sharding=P("x", None))))
tm("matmul_out", lambda: typed(jnp.matmul(x.T, x, out_sharding=P(None, "y"))))
tm(
    "jaxpr_dot_out",
    lambda: str(M.make_jaxpr(lambda a: jnp.dot(a, a.T, out_sharding=P("x", None)))(x)),
)
tm(
    "grad_dot_out",
    lambda: typed(M.grad(lambda a: jnp.dot(a, a.T, out_sharding=P("x", None)).sum())(x)),
)
tm("device_put_spec", lambda: typed(M.device_put(np.ones((8, 4)), P("x"))))
tm("reshard", lambda: [typed(M.sharding.reshard(x, P())), typed(M.reshard(x, P(None, "y")))])
tm("abstract_mesh", lambda: [repr(M.sharding.get_abstract_mesh())])
tm(
    "jaxpr_reshard",
    lambda: str(M.make_jaxpr(lambda a: M.sharding.reshard(a * 2, P(None, "x")))(x)),
)
tm("jit_reshard", lambda: typed(M.jit(lambda a: M.sharding.reshard(a * 2, P(None, "x")))(x)))
tm("vmap_reshard", lambda: typed(M.vmap(lambda a: M.sharding.reshard(a * 2, P("y")))(r)))
tm("grad", lambda: typed(M.grad(lambda a: (M.sharding.reshard(a, P()) ** 2).sum())(x)))
# `out_sharding=` on einsum, batched matmul and tensordot: where JAX's goes (the one
# contraction's dot_general or sums, before a transpose; around several: `auto_axes`)
a3 = M.device_put(np.arange(32.0).reshape(2, 4, 4), NamedSharding(m, P("x", None, "y")))
b3 = M.device_put(np.arange(32.0).reshape(2, 4, 4), NamedSharding(m, P("x", "y", None)))
m2 = M.device_put(np.arange(16.0).reshape(4, 4), NamedSharding(m, P("x", "y")))


def seen(f, *args):  # eager, jitted, jaxpr and StableHLO of f(*args)
    return [typed(f(*args)), typed(M.jit(f)(*args)), str(M.make_jaxpr(f)(*args)), text(f, *args)]


tm("einsum_out", lambda: seen(lambda a: jnp.einsum("ij,jk->ik", a, a, out_sharding=P("x")), m2))
tm(
    "einsum_out_batched",
    lambda: [
        seen(lambda a, b, s=s: jnp.einsum("bij,bjk->bik", a, b, out_sharding=s), a3, b3)
        for s in (P("x", None, None), P("x", "y"), NamedSharding(m, P("x", None, "y")))
    ],
)
tm(
    "einsum_out_three",
    lambda: seen(lambda a: jnp.einsum("ij,jk,kl->il", a, a, a, out_sharding=P("x", None)), m2),
)
tm("einsum_out_sum", lambda: seen(lambda a: jnp.einsum("bij->bi", a, out_sharding=P("x")), a3))
tm(
    "einsum_out_transpose",
    lambda: seen(lambda a: jnp.einsum("bij->bji", a, out_sharding=P("x", None, "y")), a3),
)
tm(
    "matmul_out_batched",
    lambda: [
        seen(lambda a, b: jnp.matmul(a, b, out_sharding=P("x", None, None)), a3, b3),
        seen(lambda a, b: jnp.matmul(a, b, out_sharding=P("x", None, None)), a3, m2),
    ],
)
tm(
    "tensordot_out",
    lambda: seen(lambda a, b: jnp.tensordot(a, b, 1, out_sharding=P("x", None, None)), a3, m2),
)
t("abstract_mesh_after", lambda: repr(M.sharding.get_abstract_mesh()))
context = M.set_mesh(m)  # as a function: set at once
t("set_mesh_call", lambda: repr(M.sharding.get_abstract_mesh()))
context.__exit__(None, None, None)  # (the worker runs other scripts next)
t("top_level", lambda: [M.P is P, M.NamedSharding is NamedSharding, M.typeof(1.0).shape])
print(json.dumps(res))
