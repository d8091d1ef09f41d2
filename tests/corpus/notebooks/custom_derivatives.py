# ruff: noqa
# Custom derivative rules and random numbers (after JAX's "Custom derivative rules" and
# "Pseudorandom numbers" tutorials).
# %%
import jax
import jax.numpy as jnp
from jax import custom_jvp, custom_vjp, grad


# %%
@custom_jvp
def f(x, y):
    return jnp.sin(x) * y


@f.defjvp
def f_jvp(primals, tangents):
    x, y = primals
    x_dot, y_dot = tangents
    primal_out = f(x, y)
    tangent_out = jnp.cos(x) * x_dot * y + jnp.sin(x) * y_dot
    return primal_out, tangent_out


print(f(2.0, 3.0))
y, y_dot = jax.jvp(f, (2.0, 3.0), (1.0, 0.0))
print(y, y_dot)
print(grad(f)(2.0, 3.0))


# %%
@custom_jvp
def log1pexp(x):
    return jnp.log(1.0 + jnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    (x,) = primals
    (x_dot,) = tangents
    ans = log1pexp(x)
    ans_dot = (1 - 1 / (1 + jnp.exp(x))) * x_dot
    return ans, ans_dot


print(grad(log1pexp)(100.0))
print(jax.jit(jax.vmap(grad(log1pexp)))(jnp.arange(3.0)))


# %%
@custom_vjp
def g(x, y):
    return jnp.sin(x) * y


def g_fwd(x, y):
    return g(x, y), (jnp.cos(x), jnp.sin(x), y)


def g_bwd(res, g_):
    cos_x, sin_x, y = res
    return (cos_x * g_ * y, sin_x * g_)


g.defvjp(g_fwd, g_bwd)
print(grad(g)(2.0, 3.0))


# %%
@custom_vjp
def clip_gradient(lo, hi, x):
    return x


def clip_gradient_fwd(lo, hi, x):
    return x, (lo, hi)


def clip_gradient_bwd(res, g):
    lo, hi = res
    return (None, None, jnp.clip(g, lo, hi))


clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)
print(jax.grad(lambda x: clip_gradient(-0.5, 0.5, jnp.sin(x)) * 3.0)(0.1))


# %%
@custom_jvp
def relu_like(x):
    if x > 0:
        return x
    return 0.0 * x


@relu_like.defjvp
def relu_like_jvp(primals, tangents):
    (x,) = primals
    (t,) = tangents
    return relu_like(x), t


print(jax.jvp(relu_like, (2.0,), (1.0,)))
# %%
calls = []


@custom_jvp
def counted(x):
    calls.append(1)
    return jnp.sin(x)


counted.defjvp(lambda p, t: (counted(p[0]), jnp.cos(p[0]) * t[0]))
jax.grad(counted)(1.0)
print(len(calls))
# %%
from jax import random

key = random.PRNGKey(42)
print(key)
# %%
print(random.normal(key, (3,)))
# %%
key, subkey = random.split(key)
print(random.uniform(subkey, (2,)))
# %%
print(jax.random.randint(key, (4,), 0, 10))
