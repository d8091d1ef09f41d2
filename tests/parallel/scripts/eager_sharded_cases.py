"""Eager operations on split Arrays, case by case (tests/parallel/test_eager_sharded.py)."""

import json

from parallel.scripts.eager_sharded_prelude import (
    M,
    g,
    gc,
    gr,
    jnp,
    lax,
    np,
    res,
    t,
    v,
    w,
    x,
    x2,
    xi,
)

t("sin", lambda: jnp.sin(x))
t("neg", lambda: -x)
t("exp_grid", lambda: jnp.exp(g / 32))
t("abs_int", lambda: jnp.abs(xi - 16))
t("add_split", lambda: x + x2)
t("mul_split_1d", lambda: v * v)
t("add_grid_other_spec", lambda: g + gc)
t("add_grid_replicated", lambda: g + gr)
t("mul_scalar", lambda: x * 2)
t("add_scalar", lambda: x + 1)
t("rsub_scalar", lambda: 2.0 - x)
t("mul_numpy_scalar", lambda: x * np.float32(3))
t("int_add_scalar", lambda: xi + 1)
t("int_mul_float", lambda: xi * 1.5)
t("int_div", lambda: xi / 2)
t("add_numpy", lambda: x + np.ones((8, 4), np.float32))
t("add_single_device", lambda: x + jnp.ones((8, 4)))
t("add_broadcast", lambda: x + jnp.arange(4.0))
t("greater", lambda: x > 3)
t("astype", lambda: x.astype(jnp.int32))
t("where", lambda: jnp.where(x > 10, x, 0.0))
t("sum", lambda: x.sum())
t("sum_split_axis", lambda: x.sum(0))
t("sum_other_axis", lambda: x.sum(1))
t("max_split_axis", lambda: x.max(0))
t("mean", lambda: x.mean())
t("argmax", lambda: x.argmax(1))
t("cumsum", lambda: jnp.cumsum(x, 0))
t("sum_1d", lambda: v.sum())
t("grid_sum", lambda: g.sum())
t("grid_sum0", lambda: g.sum(0))
t("grid_sum1", lambda: g.sum(1))
t("matmul_replicated_weights", lambda: x @ w)
t("matmul_split_both", lambda: g @ g.T)
t("matmul_1d", lambda: jnp.dot(v, v))
t("slice_rows", lambda: x[0:2])
t("slice_row", lambda: x[0])
t("slice_column", lambda: x[:, 1])
t("slice_step", lambda: v[::2])
t("slice_block", lambda: x[2:6, 1:3])
t("slice_full", lambda: x[:, :])
t("slice_grid", lambda: g[2:6])
t("reshape", lambda: x.reshape(4, 8))
t("reshape_flat", lambda: x.reshape(32))
t("reshape_unnamed", lambda: x.reshape(2, 16))
t("transpose", lambda: x.T)
t("transpose_grid", lambda: g.T)
t("reshape_grid", lambda: g.reshape(4, 8))
t("chain", lambda: jnp.tanh(x * 2 + 1).sum(1) / 3)
t("replicated_result_then_op", lambda: x.sum(0) * 2)
t("scalar_result_then_op", lambda: x.sum() + 1)
t("lax_reduce_max", lambda: lax.reduce_max(g, (1,)))
t("concatenate", lambda: jnp.concatenate([x, x2], 0))
t("outer", lambda: jnp.outer(v, v))
t("broadcast_to", lambda: jnp.broadcast_to(v, (3, 8)))
t("expand_dims", lambda: x[None])
t("take", lambda: jnp.take(v, jnp.array([1, 5])))
t("at_set_row", lambda: x.at[0].set(1.0))
t("at_add_column", lambda: x.at[:, 1].add(1.0))
t("sort_split_axis", lambda: jnp.sort(x, 0))
t("sort_other_axis", lambda: jnp.sort(-x, 1))
t("clip", lambda: jnp.clip(x, 3, 20))
t("floor_divide", lambda: x // 3)
t("remainder", lambda: x % 3)
t("power", lambda: x**2)
t("count_along_split_axis", lambda: jnp.sum(x > 3, 0))
t("plus_random", lambda: x + M.random.normal(M.random.key(0), (8, 4)))
# higher-order primitives and transformations, evaluated eagerly on split values
t("cond", lambda: lax.cond(True, lambda a: a * 2, lambda a: a + 1, x))
t("fori_loop", lambda: lax.fori_loop(0, 3, lambda i, a: a * 2, x))
t("scan", lambda: lax.scan(lambda c, r: (c + r, c), jnp.zeros(4), x)[1])
t("relu", lambda: M.nn.relu(x - 10))
t("softmax", lambda: M.nn.softmax(x, axis=1))
t("grad", lambda: M.grad(lambda a: (jnp.sin(a) * a).sum())(x))
t("jvp", lambda: M.jvp(jnp.sin, (x,), (x,))[1])
t("vmap", lambda: M.vmap(lambda r: r * r.sum())(x))
t("jit_result_then_op", lambda: M.jit(lambda a: a * 2)(x) + 1)
# a jit equation evaluated on split values (under grad, vmap) runs partitioned too
jitted = M.jit(lambda a: jnp.sin(a) * 2)
t("grad_of_jit", lambda: M.grad(lambda a: jitted(a).sum())(x))
t("value_of_value_and_grad", lambda: M.value_and_grad(lambda a: jitted(a).sum())(x)[0])
t("grad_of_value_and_grad", lambda: M.value_and_grad(lambda a: jitted(a).sum())(x)[1])
t("vmap_of_jit", lambda: M.vmap(jitted)(x))


def printing(a):
    M.debug.print("sum {}", a.sum())
    return a * 2


# (didax does not partition a program that prints: gathered, on one device, as JAX's here)
t("grad_of_printing_jit", lambda: M.grad(lambda a: M.jit(printing)(a).sum())(x))
deleted = x * 1
deleted.delete()
t("deleted", lambda: deleted * 2)
t("deleted_jit", lambda: M.jit(lambda a: a + 1)(deleted))
print(json.dumps(res))
