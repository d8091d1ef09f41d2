# ruff: noqa
# Automatic differentiation (after JAX's "Automatic differentiation" tutorial and the
# autodiff cookbook).
# %%
import jax
import jax.numpy as jnp
from jax import grad, jit, vmap, jacfwd, jacrev

# %%
grad_tanh = grad(jnp.tanh)
print(grad_tanh(2.0))
# %%
print(grad(grad(jnp.tanh))(2.0))
print(grad(grad(grad(jnp.tanh)))(2.0))


# %%
def sigmoid(x):
    return 0.5 * (jnp.tanh(x / 2) + 1)


def predict(W, b, inputs):
    return sigmoid(jnp.dot(inputs, W) + b)


inputs = jnp.array(
    [[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]]
)
targets = jnp.array([True, True, False, True])


def loss(W, b):
    preds = predict(W, b, inputs)
    label_probs = preds * targets + (1 - preds) * (1 - targets)
    return -jnp.sum(jnp.log(label_probs))


W = jnp.array([0.1, -0.2, 0.3])
b = 0.5
W_grad = grad(loss, argnums=0)(W, b)
print(f"W_grad = {W_grad}")
# %%
W_grad, b_grad = grad(loss, (0, 1))(W, b)
print(f"b_grad = {b_grad}")
# %%
loss_value, Wb_grad = jax.value_and_grad(loss, (0, 1))(W, b)
print("loss value", loss_value)


# %%
def loss2(params_dict):
    preds = predict(params_dict["W"], params_dict["b"], inputs)
    label_probs = preds * targets + (1 - preds) * (1 - targets)
    return -jnp.sum(jnp.log(label_probs))


print(grad(loss2)({"W": W, "b": b}))
# %%
f = lambda W: predict(W, b, inputs)
J = jacfwd(f)(W)
print("jacfwd result, with shape", J.shape)
print(J)
# %%
print(jnp.allclose(jacrev(f)(W), J))
# %%
print(jax.jacobian(f)(W).shape)


# %%
def hessian(f):
    return jacfwd(jacrev(f))


print(hessian(f)(W).shape)
# %%
y, vjp_fun = jax.vjp(jnp.sin, 1.0)
print(y, vjp_fun(1.0))
# %%
print(jax.jvp(jnp.sin, (1.0,), (1.0,)))
# %%
print(grad(lambda b: jnp.sum(jnp.ones(3) + b))(0.5))
# %%
print(grad(lambda x: jax.lax.stop_gradient(x) * x)(3.0))


# %%
def f2(x):
    return jnp.where(x > 0, x, 0.0)


print(vmap(grad(f2))(jnp.array([-1.0, 2.0])))
# %%
x = jnp.ones(3)
print(jax.make_jaxpr(grad(lambda x: jnp.sum(jnp.sin(x))))(x))
# %%
perex_grads = vmap(grad(loss), in_axes=(None, 0))
print(jax.jit(lambda W: grad(lambda W: jnp.sum(jnp.sort(W) * jnp.arange(3.0)))(W))(W))
