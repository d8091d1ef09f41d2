# ruff: noqa
# Pytrees and automatic vectorization (after JAX's "Working with pytrees" and
# "Automatic vectorization" tutorials).
# %%
import jax
import jax.numpy as jnp
from collections import namedtuple

# %%
example_trees = [
    [1, "a", object()],
    (1, (2, 3), ()),
    [1, {"k1": 2, "k2": (3, 4)}, 5],
    {"a": 2, "b": (2, 3)},
    jnp.array([1, 2, 3]),
]
for pytree in example_trees:
    leaves = jax.tree_util.tree_leaves(pytree)
    print(f"{repr(pytree):<45} has {len(leaves)} leaves: {leaves}"[:30], len(leaves))
# %%
list_of_lists = [[1, 2, 3], [1, 2], [1, 2, 3, 4]]
print(jax.tree_util.tree_map(lambda x: x * 2, list_of_lists))
# %%
another_list_of_lists = list_of_lists
print(jax.tree_util.tree_map(lambda x, y: x + y, list_of_lists, another_list_of_lists))
# %%
print(jax.tree.map(lambda x: x * 2, {"a": 1, "b": [2, 3]}))
# %%
Point = namedtuple("Point", ["x", "y"])
print(jax.tree_util.tree_structure(Point(1.0, 2.0)))
# %%
leaves, treedef = jax.tree_util.tree_flatten({"a": [1, 2], "b": 3})
print(leaves, treedef)
print(jax.tree_util.tree_unflatten(treedef, [10, 20, 30]))


# %%
def init_mlp_params(layer_widths):
    params = []
    for n_in, n_out in zip(layer_widths[:-1], layer_widths[1:]):
        params.append(dict(weights=jnp.ones((n_in, n_out)) / n_in, biases=jnp.ones(n_out)))
    return params


params = init_mlp_params([1, 16, 16, 1])
print(jax.tree_util.tree_map(lambda x: x.shape, params))


# %%
def forward(params, x):
    *hidden, last = params
    for layer in hidden:
        x = jax.nn.relu(x @ layer["weights"] + layer["biases"])
    return x @ last["weights"] + last["biases"]


def loss_fn(params, x, y):
    return jnp.mean((forward(params, x) - y) ** 2)


@jax.jit
def update(params, x, y):
    grads = jax.grad(loss_fn)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - 0.0001 * g, params, grads)


xs = jnp.linspace(-1.0, 1.0, 8).reshape(8, 1)
ys = xs**2
params = update(params, xs, ys)
print(jnp.round(loss_fn(params, xs, ys), 4))
# %%
x = jnp.arange(5.0)
w = jnp.array([2.0, 3.0, 4.0])


def convolve(x, w):
    output = []
    for i in range(1, len(x) - 1):
        output.append(jnp.dot(x[i - 1 : i + 2], w))
    return jnp.array(output)


print(convolve(x, w))
# %%
xs = jnp.stack([x, x])
ws = jnp.stack([w, w])
auto_batch_convolve = jax.vmap(convolve)
print(auto_batch_convolve(xs, ws))
# %%
auto_batch_convolve_v2 = jax.vmap(convolve, in_axes=1, out_axes=1)
print(auto_batch_convolve_v2(jnp.transpose(xs), jnp.transpose(ws)))
# %%
batch_convolve_v3 = jax.vmap(convolve, in_axes=[0, None])
print(batch_convolve_v3(xs, w))
# %%
print(jax.jit(auto_batch_convolve)(xs, ws))
# %%
print(jax.tree_util.tree_reduce(lambda a, b: a + b, [1, 2, 3]))
# %%
print(jax.tree.leaves({"b": 1, "a": (2, None)}))
