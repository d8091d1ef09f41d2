# ruff: noqa
# Control flow and the sharp bits (after JAX's "Control flow and logical operators with JIT"
# and "The sharp bits" tutorials).
# %%
import jax
import jax.numpy as jnp
from jax import lax

# %%
operand = jnp.array([0.0])
print(lax.cond(True, lambda x: x + 1, lambda x: x - 1, operand))
print(lax.cond(False, lambda x: x + 1, lambda x: x - 1, operand))
# %%
init_val = 0
cond_fun = lambda x: x < 10
body_fun = lambda x: x + 1
print(lax.while_loop(cond_fun, body_fun, init_val))
# %%
print(lax.fori_loop(0, 3, lambda i, x: x + i, 0))


# %%
def cumulative(carry, x):
    carry = carry + x
    return carry, carry


print(lax.scan(cumulative, 0.0, jnp.arange(5.0)))
# %%
print(lax.switch(1, [lambda x: x * 1, lambda x: x * 2, lambda x: x * 3], 5.0))


# %%
def f(x):
    return lax.cond(x > 0, lambda x: x**2, lambda x: -x, x)


print(jax.grad(f)(3.0), jax.grad(f)(-3.0))
# %%
print(jax.vmap(f)(jnp.array([-2.0, 2.0])))
# %%
print(jax.make_jaxpr(f)(1.0))


# %%
def impure_print_side_effect(x):
    print("Executing function")
    return x


print("First call: ", jax.jit(impure_print_side_effect)(4.0))
print("Second call: ", jax.jit(impure_print_side_effect)(5.0))
# %%
jax_array = jnp.zeros((3, 3), dtype=jnp.float32)
updated_array = jax_array.at[1, :].set(1.0)
print(updated_array)
# %%
print(jnp.arange(10)[11])
# %%
print(jnp.arange(10.0).at[11].get())
# %%
try:
    jnp.sum([1, 2, 3])
except TypeError as e:
    print("TypeError")
# %%
print(jnp.array([1, 2, 3]).dtype, jnp.array([1.0, 2.0]).dtype)
# %%
x = jnp.float32(1e-30)
print(jnp.divide(0.0, 0.0), jnp.log(0.0))
# %%
print(lax.stop_gradient({"a": jnp.ones(2), "b": 1.0}))


# %%
def body(carry, x):
    jax.debug.print("carry={c} x={x}", c=carry, x=x)
    return carry + x, None


lax.scan(body, 0.0, jnp.arange(3.0))
# %%
print(jnp.where(jnp.arange(4) > 1, 1.0, -1.0))
# %%
# Running maximum and a stable running log-sum-exp along an axis
prices = jnp.array([3.0, 5.0, 4.0, 8.0, 6.0, 7.0])
peak = lax.cummax(prices)
print(peak, peak - prices)
print(lax.cummin(prices, reverse=True), lax.cumlogsumexp(jnp.zeros(4)))
print(jax.make_jaxpr(lambda p: lax.cummax(p, reverse=True))(prices))
print(jax.grad(lambda p: lax.cummax(p).sum())(prices))
