# ruff: noqa
# Key concepts: arrays, dtypes, jaxprs, immutability (after JAX's "Key concepts" and
# "Thinking in JAX" tutorials).
# %%
import jax
import jax.numpy as jnp
import numpy as np

# %%
x = jnp.arange(5)
print(x, x.dtype, x.shape)
# %%
print(isinstance(x, jax.Array))
# %%
y = jnp.linspace(0.0, 1.0, 5)
print(y)
print(y.dtype)
# %%
print(jnp.ones((2, 3)) * 2 + 1)


# %%
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


print(selu(jnp.arange(-2.0, 3.0)))
# %%
print(jax.make_jaxpr(selu)(3.0))
# %%
z = jnp.array([1.0, 2.0, 3.0])
try:
    z[0] = 10.0
except TypeError as e:
    print("TypeError")
# %%
print(z.at[0].set(10.0))
# %%
print(jnp.float32(1.5) + 2, (jnp.ones(3, dtype=jnp.int32) * 2.5).dtype)
# %%
print(jnp.dot(jnp.ones((2, 3)), jnp.arange(3.0)))
# %%
m = jnp.arange(12.0).reshape(3, 4)
print(m.T.shape, m.sum(axis=0), m.mean(), m.max(axis=1))
# %%
print(jnp.sort(jnp.array([3.0, 1.0, 2.0])), jnp.argsort(jnp.array([3, 1, 2])))
# %%
print(jnp.cumsum(jnp.arange(5)), jnp.cumprod(jnp.arange(1.0, 5.0)))
# %%
print(jnp.allclose(jnp.ones(3), jnp.ones(3) + 1e-9), jnp.isnan(jnp.array([1.0, jnp.nan])))
# %%
print(jnp.einsum("ij,j->i", m, jnp.ones(4)))
# %%
print(jnp.linalg.norm(jnp.array([3.0, 4.0])))
# %%
print(jnp.std(m), jnp.var(m, axis=1))
# %%
print(jnp.tril(jnp.ones((3, 3))))
# %%
print(jnp.outer(jnp.arange(3.0), jnp.arange(2.0)))
# %%
a, b = jnp.meshgrid(jnp.arange(3), jnp.arange(2))
print(a)
print(b)
# %%
print(jnp.convolve(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.0, 1.0, 0.5])))
# %%
print(jax.typeof(jnp.ones(3)), jax.typeof(1.0))
# %%
print(jax.devices())
# %%
print(x.devices(), x.sharding)
# %%
print(jax.device_get(jnp.ones(2)), type(jax.device_get(jnp.ones(2))).__name__)
# %%
# Batched contractions with `...`: attention scores for any number of leading batch axes
q = jnp.arange(24.0).reshape(2, 3, 4) / 10
k = jnp.ones((2, 5, 4))
scores = jnp.einsum("...qd,...kd->...qk", q, k)
print(scores.shape, scores[1, 2])
print(jax.make_jaxpr(lambda a, b: jnp.einsum("...ij,...jk->...ik", a, b))(q, k.transpose(0, 2, 1)))
# %%
# Unique rows (and how often each occurs), and the same under jit with a static size
points = jnp.array([[0, 1], [2, 3], [0, 1], [5, 5], [2, 3], [0, 1]])
rows, first, counts = jnp.unique(points, axis=0, return_index=True, return_counts=True)
print(rows, first, counts)
print(jax.jit(lambda p: jnp.unique(p, axis=0, size=4, fill_value=-1))(points))
