"""Devices: several CPU devices from XLA_FLAGS or `config.update("jax_num_cpu_devices", N)`,
the device queries, `device_put(x, device)` and `Array.devices()`, each checked against JAX
0.10.2 run the same way. Each case runs in a fresh subprocess: the device count is fixed when
the client starts, and this test process keeps its one device."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

QUERIES = """
import json
out = {
    "devices": [repr(d) for d in M.devices()],
    "local": [repr(d) for d in M.local_devices()],
    "count": M.device_count(),
    "local_count": M.local_device_count(),
    "process_index": M.process_index(),
    "process_count": M.process_count(),
    "platform": M.devices()[0].platform,
    "ids": [d.id for d in M.devices()],
}
print(json.dumps(out))
"""


def run(module: str, body: str, *, flags: str | None = None, prelude: str = "") -> dict:
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env["TF_CPP_MIN_LOG_LEVEL"] = "1"
    env["JAX_PLATFORMS"] = "cpu"
    if flags is not None:
        env["XLA_FLAGS"] = flags
    code = f"import {module} as M\nimport numpy as np\n{prelude}\n{textwrap.dedent(body)}"
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def both(body: str, **kwargs) -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return run("didax", body, **kwargs), run("jax", body, **kwargs)


def test_one_device_by_default():
    mine, theirs = both(QUERIES)
    assert mine == theirs
    assert mine["count"] == 1


def test_xla_flags_device_count():
    mine, theirs = both(QUERIES, flags="--xla_force_host_platform_device_count=4")
    assert mine == theirs
    assert mine["count"] == 4
    assert mine["devices"] == [f"CpuDevice(id={i})" for i in range(4)]


def test_config_num_cpu_devices():
    prelude = 'M.config.update("jax_num_cpu_devices", 3)'
    mine, theirs = both(QUERIES, prelude=prelude)
    assert mine == theirs
    assert mine["count"] == 3


CONFIG_AFTER_START = """
import json
{first}
try:
    M.config.update("jax_num_cpu_devices", 4)
    out = "no error"
except Exception as e:
    out = [type(e).__name__, "before backends are initialized" in str(e)]
print(json.dumps({"error": out, "count": M.device_count()}))
"""


# the first array fixes the device count in JAX; didax's eager arrays never start the
# client, and the update was accepted after them
@pytest.mark.parametrize(
    "first", ["M.devices()", "M.numpy.ones(2) + 1", "M.numpy.float32(1)", "M.numpy.arange(3)"]
)
def test_config_after_start_raises(first):
    mine, theirs = both(CONFIG_AFTER_START.replace("{first}", first))
    assert mine == theirs
    assert mine["error"] == ["RuntimeError", True]


CONFIG_AFTER_TRACING = """
import json
M.make_jaxpr(lambda x: x * 2)(1.0)
M.config.update("jax_num_cpu_devices", 2)
print(json.dumps({"count": M.device_count()}))
"""


def test_config_after_tracing_only_is_accepted():
    mine, theirs = both(CONFIG_AFTER_TRACING)
    assert mine == theirs == {"count": 2}


DEVICE_PUT = """
import json
import numpy as np
d = M.devices()[2]
x = M.device_put(np.arange(3.0, dtype=np.float32), d)
y = M.device_put(np.arange(3, dtype=np.int32))
z = M.jit(lambda a: a * 2)(x)
out = {
    "x_devices": sorted(repr(e) for e in x.devices()),
    "y_devices": sorted(repr(e) for e in y.devices()),
    "x": np.asarray(x).tolist(),
    "dtype": str(x.dtype),
    "z": np.asarray(z).tolist(),
    "sum": np.asarray(x + 1).tolist(),
}
print(json.dumps(out))
"""


def test_device_put_on_a_device():
    mine, theirs = both(DEVICE_PUT, flags="--xla_force_host_platform_device_count=4")
    assert mine == theirs
    assert mine["x_devices"] == ["CpuDevice(id=2)"]


def test_device_put_unknown_device_raises():
    body = """
    import json
    try:
        M.device_put(np.ones(2), "cpu:7")
        out = "no error"
    except Exception as e:
        out = type(e).__name__
    print(json.dumps({"error": out}))
    """
    mine, theirs = both(body)
    assert mine == theirs == {"error": "ValueError"}
