"""A case of distributed_worker.py: a NamedSharding over a mesh spanning both processes, under
GSPMD (as the other sharding scripts; the partitioner is restored after)."""

import numpy as np


def run(M, pid: int) -> dict:
    shardy = M.config.jax_use_shardy_partitioner
    M.config.update("jax_use_shardy_partitioner", False)
    try:
        return _run(M)
    finally:
        M.config.update("jax_use_shardy_partitioner", shardy)


def _run(M) -> dict:
    jnp = M.numpy
    Mesh, NamedSharding, P = M.sharding.Mesh, M.sharding.NamedSharding, M.sharding.PartitionSpec
    # one mesh over both processes' devices: axis 'p' across the processes, 'd' within each
    mesh = Mesh(np.array(M.devices()).reshape(2, 2), ("p", "d"))
    rows = NamedSharding(mesh, P(("p", "d")))
    full = np.arange(24.0, dtype=np.float32).reshape(8, 3)  # every process passes the whole value
    x = M.device_put(full, rows)
    out = {
        "x": [
            repr(x.sharding),
            x.shape,
            sorted((s.index[0].start, s.index[0].stop) for s in x.addressable_shards),
        ]
    }
    replicated = NamedSharding(mesh, P())
    f = M.jit(lambda a: (jnp.sin(a) * 2).sum(0), out_shardings=replicated)
    y = f(x)  # a sum over rows held by both processes: XLA's all-reduce crosses them (gloo)
    out["sum"] = [np.asarray(y).tolist(), repr(y.sharding)]
    g = M.jit(lambda a, w: jnp.tanh(a @ w), in_shardings=(rows, replicated))
    z = g(x, jnp.ones((3, 2)))
    out["z_sharding"] = repr(z.sharding)
    h = M.jit(lambda a: a.T @ a, out_shardings=replicated)
    out["gram"] = np.asarray(h(z)).tolist()
    seen = []  # each process makes only its own blocks

    def block(index):
        seen.append([index[0].start, index[0].stop])
        return full[index]

    w = M.make_array_from_callback((8, 3), rows, block)
    out["callback"] = [sorted(seen), np.asarray(f(w)).tolist()]
    return out
