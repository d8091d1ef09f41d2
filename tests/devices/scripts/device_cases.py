"""Run by test_devices.py in a fresh process (the device count is fixed when the client
starts): one case of device queries on one library, printed as one JSON line.

    python device_cases.py LIBRARY CASE [ARGUMENT]

LIBRARY is `didax` or `jax`; CASE one of `CASES` below; XLA_FLAGS comes from the environment.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

import numpy as np

M = importlib.import_module(sys.argv[1])


def queries(num_cpu_devices: str | None = None) -> dict[str, Any]:
    if num_cpu_devices is not None:
        M.config.update("jax_num_cpu_devices", int(num_cpu_devices))
    return {
        "devices": [repr(d) for d in M.devices()],
        "local": [repr(d) for d in M.local_devices()],
        "count": M.device_count(),
        "local_count": M.local_device_count(),
        "process_index": M.process_index(),
        "process_count": M.process_count(),
        "platform": M.devices()[0].platform,
        "ids": [d.id for d in M.devices()],
    }


# what may start the client before `config.update("jax_num_cpu_devices", ...)`
FIRST = {
    "devices": lambda: M.devices(),
    "eager_add": lambda: M.numpy.ones(2) + 1,
    "numpy_scalar": lambda: M.numpy.float32(1),
    "arange": lambda: M.numpy.arange(3),
}


def config_after_start(first: str) -> dict[str, Any]:
    FIRST[first]()
    try:
        M.config.update("jax_num_cpu_devices", 4)
        out: Any = "no error"
    except Exception as e:  # noqa: BLE001 - the type and message are the result
        out = [type(e).__name__, "before backends are initialized" in str(e)]
    return {"error": out, "count": M.device_count()}


def config_after_tracing() -> dict[str, Any]:
    M.make_jaxpr(lambda x: x * 2)(1.0)
    M.config.update("jax_num_cpu_devices", 2)
    return {"count": M.device_count()}


def device_put() -> dict[str, Any]:
    d = M.devices()[2]
    x = M.device_put(np.arange(3.0, dtype=np.float32), d)
    y = M.device_put(np.arange(3, dtype=np.int32))
    z = M.jit(lambda a: a * 2)(x)
    return {
        "x_devices": sorted(repr(e) for e in x.devices()),
        "y_devices": sorted(repr(e) for e in y.devices()),
        "x": np.asarray(x).tolist(),
        "dtype": str(x.dtype),
        "z": np.asarray(z).tolist(),
        "sum": np.asarray(x + 1).tolist(),
    }


def device_put_unknown_device() -> dict[str, Any]:
    try:
        M.device_put(np.ones(2), "cpu:7")
        out = "no error"
    except Exception as e:  # noqa: BLE001 - the type is the result
        out = type(e).__name__
    return {"error": out}


CASES = {
    "queries": queries,
    "config_after_start": config_after_start,
    "config_after_tracing": config_after_tracing,
    "device_put": device_put,
    "device_put_unknown_device": device_put_unknown_device,
}

print(json.dumps(CASES[sys.argv[2]](*sys.argv[3:])))
