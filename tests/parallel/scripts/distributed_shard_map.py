"""A case of distributed_worker.py: shard_map over a mesh spanning both processes (axis 'p'
across them, 'd' within each), jitted and eager, manual over both axes or 'p' only; each
result's sharding, this process's blocks and its whole value (gathered by a jit)."""

import numpy as np


def run(M, pid: int) -> dict:
    lax = M.lax
    Mesh, NamedSharding, P = M.sharding.Mesh, M.sharding.NamedSharding, M.sharding.PartitionSpec
    mesh = Mesh(np.array(M.devices()).reshape(2, 2), ("p", "d"))
    full = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    x = M.device_put(full, NamedSharding(mesh, P("p", "d")))
    out = {}
    whole = NamedSharding(mesh, P())
    gather = M.jit(lambda a: a, out_shardings=whole)

    def t(name, fn):
        try:
            out[name] = fn()
        except Exception as e:
            out[name] = ["ERR", type(e).__name__, str(e).split("\n")[0][:300]]

    def seen(a):  # its sharding, this process's blocks, and its whole value (gathered)
        blocks = sorted(str(s.index) for s in a.addressable_shards) if a.ndim else []
        return [repr(a.sharding), blocks, np.asarray(gather(a)).tolist()]

    sm = M.shard_map(
        lambda a: lax.psum(a, "p") * 2 + lax.axis_index("d"),
        mesh=mesh,
        in_specs=P("p", "d"),
        out_specs=P(None, "d"),
    )
    t("jit", lambda: seen(M.jit(sm)(x)))
    t("eager", lambda: seen(sm(x)))
    total = M.shard_map(
        lambda a: lax.psum(a.sum(), ("p", "d")), mesh=mesh, in_specs=P("p", "d"), out_specs=P()
    )
    t("total", lambda: [np.asarray(M.jit(total)(x)).tolist(), repr(M.jit(total)(x).sharding)])
    swap = M.shard_map(
        lambda a: lax.ppermute(a, "p", [(0, 1), (1, 0)]),
        mesh=mesh,
        in_specs=P("p", "d"),
        out_specs=P("p", "d"),
    )
    t("ppermute", lambda: seen(M.jit(swap)(x)))
    part = M.shard_map(
        lambda a: lax.psum(a, "p"), mesh=mesh, in_specs=P("p"), out_specs=P(), axis_names={"p"}
    )
    t("partial", lambda: seen(M.jit(part)(x)))
    return out
