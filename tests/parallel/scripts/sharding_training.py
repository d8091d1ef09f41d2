"""A data-parallel training step, sharded and on one device (tests/parallel/test_sharding.py)."""

import json

from parallel.scripts.sharding_prelude import AxisType, M, NamedSharding, P, jnp, np, placed, res

# a small MLP, the batch split over a 4-device mesh, the parameters replicated: each step of
# SGD must give what the same step gives on one device
batch_mesh = M.make_mesh((4,), ("batch",), axis_types=(AxisType.Auto,))
data = NamedSharding(batch_mesh, P("batch"))
replicated = NamedSharding(batch_mesh, P())
rng = np.random.RandomState(0)
params = {
    "w1": rng.randn(3, 16).astype(np.float32) * 0.5,
    "b1": np.zeros(16, np.float32),
    "w2": rng.randn(16, 1).astype(np.float32) * 0.5,
    "b2": np.zeros(1, np.float32),
}
xs = rng.randn(32, 3).astype(np.float32)
ys = (np.sin(xs.sum(1, keepdims=True))).astype(np.float32)


def predict(p, a):
    h = jnp.tanh(a @ p["w1"] + p["b1"])
    return h @ p["w2"] + p["b2"]


def mse(p, a, b):
    return jnp.mean((predict(p, a) - b) ** 2)


def step(p, a, b):
    l, g = M.value_and_grad(mse)(p, a, b)
    return M.tree_util.tree_map(lambda w, d: w - 0.1 * d, p, g), l


def train(p, a, b, stepper):
    losses = []
    for _ in range(5):
        p, l = stepper(p, a, b)
        losses.append(float(l))
    return p, losses


single = M.jit(step)
p1, l1 = train(M.device_put(params), M.device_put(xs), M.device_put(ys), single)
sharded = M.jit(step, in_shardings=(replicated, data, data), out_shardings=(replicated, replicated))
ps = M.device_put(params, replicated)
p2, l2 = train(ps, M.device_put(xs, data), M.device_put(ys, data), sharded)
res["losses"] = [l1, l2]
res["params"] = [{k: np.asarray(v).tolist() for k, v in p.items()} for p in (p1, p2)]
res["shardings"] = sorted({repr(v.sharding) for v in p2.values()})
res["data_placed"] = placed(M.device_put(xs[:8], data))
# the same step with the batch's sharding taken from the arguments (no in_shardings)
p3, l3 = train(ps, M.device_put(xs, data), M.device_put(ys, data), M.jit(step))
res["losses_implicit"] = l3
print(json.dumps(res))
