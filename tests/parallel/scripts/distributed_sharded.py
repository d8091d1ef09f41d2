"""One of two processes x two CPU devices (`python distributed_sharded.py LIBRARY PID PORT`,
tests/parallel/test_distributed.py): a NamedSharding over a mesh spanning both processes."""

import json
import sys

import numpy as np

lib, pid, port = sys.argv[1], int(sys.argv[2]), sys.argv[3]
M = __import__(lib)
M.config.update("jax_use_shardy_partitioner", False)  # GSPMD in both (as the other scripts)
if lib == "jax":
    M.config.update("jax_cpu_collectives_implementation", "gloo")
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P
else:
    import didax.numpy as jnp
    from didax.sharding import Mesh, NamedSharding
    from didax.sharding import PartitionSpec as P
M.config.update("jax_num_cpu_devices", 2)
M.distributed.initialize(f"127.0.0.1:{port}", 2, pid)
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
print(json.dumps(out), flush=True)
M.distributed.shutdown()
