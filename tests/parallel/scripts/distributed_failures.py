"""Run by tests/parallel/test_distributed.py: one process of a 2-process didax run on 127.0.0.1 that goes
wrong, with short timeouts. Prints one JSON line of what happened, then exits normally.

    python distributed_failures.py alone PROCESS_ID PORT   # the other process never starts
    python distributed_failures.py dies PROCESS_ID PORT    # process 1 dies after a psum

`alone`: `initialize` (initialization_timeout=3) raises, twice (a failed call leaves nothing
behind), and the process then computes on its own device. `dies`: after a psum over both
processes' devices, process 1 ends without shutting down; process 0's `shutdown`
(shutdown_timeout_seconds=3, heartbeat_timeout_seconds=60) raises, and the process exits
normally (jaxlib would end it at the heartbeat timeout).
"""

from __future__ import annotations

import json
import os
import sys
import time

import didax
import didax.numpy as jnp
from didax import lax


def _error(call) -> list:
    t0 = time.perf_counter()
    try:
        call()
    except Exception as e:
        return [type(e).__name__, str(e), time.perf_counter() - t0]
    return ["no error", "", time.perf_counter() - t0]


def alone(pid: int, port: str) -> dict:
    def init():
        didax.distributed.initialize(f"127.0.0.1:{port}", 2, pid, initialization_timeout=3)

    out = {"first": _error(init), "second": _error(init)}
    out["is_initialized"] = didax.distributed.is_initialized()
    out["after"] = [len(didax.devices()), didax.jit(jnp.cos)(0.0).tolist()]
    return out


def dies(pid: int, port: str) -> dict:
    didax.config.update("jax_num_cpu_devices", 2)
    didax.distributed.initialize(
        f"127.0.0.1:{port}", 2, pid, heartbeat_timeout_seconds=60, shutdown_timeout_seconds=3
    )
    x = jnp.arange(2.0) + 2 * pid
    psum = didax.pmap(lambda v: lax.psum(v, "i"), axis_name="i")(x).tolist()
    if pid == 1:
        print(json.dumps({"psum": psum}), flush=True)
        os._exit(0)  # no shutdown: to process 0, it died
    time.sleep(1.0)
    return {"psum": psum, "shutdown": _error(didax.distributed.shutdown)}


if __name__ == "__main__":
    case, pid, port = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    print(json.dumps((alone if case == "alone" else dies)(pid, port)), flush=True)
