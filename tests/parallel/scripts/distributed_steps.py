"""A case of distributed_worker.py: device queries, a pmap'd psum over all four devices and a
data-parallel training step (pmap + pmean of the gradients)."""


def run(M, pid: int) -> dict:
    jnp, lax = M.numpy, M.lax
    out = {
        "devices": [repr(d) for d in M.devices()],
        "local": [repr(d) for d in M.local_devices()],
        "process_index": M.process_index(),
        "process_count": M.process_count(),
        "device_count": M.device_count(),
        "local_device_count": M.local_device_count(),
    }
    x = jnp.arange(2.0) + 2 * pid  # this process's slice of [0, 1, 2, 3]
    out["psum"] = M.pmap(lambda v: lax.psum(v, "i"), axis_name="i")(x).tolist()
    out["axis_index"] = M.pmap(lambda v: lax.axis_index("i"), axis_name="i")(x).tolist()

    # data parallel: each device holds 3 rows of a 12-row batch; gradients averaged by pmean
    X = jnp.arange(36.0).reshape(12, 3) / 36.0
    Y = jnp.sin(jnp.arange(12.0))

    def loss(w, b, x, y):
        return jnp.mean((x @ w + b - y) ** 2)

    def step(w, b, x, y):
        gw, gb = M.grad(loss, argnums=(0, 1))(w, b, x, y)
        gw, gb = lax.pmean((gw, gb), "i")
        return w - 0.5 * gw, b - 0.5 * gb

    pstep = M.pmap(step, axis_name="i", in_axes=(None, None, 0, 0), out_axes=None)
    mine = slice(6 * pid, 6 * pid + 6)  # this process's two devices' rows
    xs, ys = X[mine].reshape(2, 3, 3), Y[mine].reshape(2, 3)
    w, b = jnp.zeros(3), 0.0
    for _ in range(3):
        w, b = pstep(w, b, xs, ys)
    out["w"], out["b"] = w.tolist(), float(b)
    return out
