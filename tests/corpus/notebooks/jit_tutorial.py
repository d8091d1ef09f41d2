# ruff: noqa
# Just-in-time compilation (after JAX's "Just-in-time compilation" tutorial).
# %%
import functools
import jax
import jax.numpy as jnp

# %%
global_list = []


def log2(x):
    global_list.append(x)
    ln_x = jnp.log(x)
    ln_2 = jnp.log(2.0)
    return ln_x / ln_2


print(jax.make_jaxpr(log2)(3.0))


# %%
def selu(x, alpha=1.67, lambda_=1.05):
    return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


selu_jit = jax.jit(selu)
x = jnp.arange(5.0)
print(selu_jit(x))


# %%
def f(x):
    if x > 0:
        return x
    else:
        return 2 * x


try:
    jax.jit(f)(10)
except Exception as e:
    print(type(e).__name__)
# %%
f_jit_correct = jax.jit(f, static_argnums=0)
print(f_jit_correct(10.0))


# %%
def g(x, n):
    i = 0
    while i < n:
        i += 1
    return x + i


g_jit_correct = jax.jit(g, static_argnames=["n"])
print(g_jit_correct(10, 20))


# %%
@functools.partial(jax.jit, static_argnums=(1,))
def g_inner(x, n):
    return x * n


print(g_inner(jnp.ones(3), 4))


# %%
@jax.jit
def h(x):
    print("Running h():")
    print(f"  x = {x}")
    y = jnp.dot(x, x)
    print(f"  y = {y}")
    return y


print(h(jnp.ones(3)))
print(h(jnp.ones(3) * 2))


# %%
@jax.jit
def printing(x):
    jax.debug.print("x is {}", x)
    return x * 2


print(printing(jnp.arange(3.0)))
# %%
print(jax.jit(lambda x: x * 2).lower(1.0).as_text()[:20])
# %%
print(jax.jit(lambda x, y: (x + y).sum()).eval_shape(jnp.ones(3), 2.0))
# %%
print(jax.eval_shape(lambda x: x @ x.T, jax.ShapeDtypeStruct((4, 3), jnp.float32)))
# %%
print(jax.jit(lambda x: jnp.sin(x) ** 2).trace(1.0).jaxpr)


# %%
class Scale:
    def __init__(self, k):
        self.k = k

    def __hash__(self):
        return hash(self.k)

    def __eq__(self, other):
        return isinstance(other, Scale) and other.k == self.k

    @functools.partial(jax.jit, static_argnums=0)
    def apply(self, x):
        return x * self.k


print(Scale(3.0).apply(jnp.ones(2)))
# %%
print(jax.block_until_ready(jax.jit(jnp.cos)(0.0)))


# %%
def loop_body(prev_i):
    return prev_i + 1


def g_inner_jitted_partial(x):
    return functools.partial(loop_body)(x)


print(jax.jit(g_inner_jitted_partial)(10))
