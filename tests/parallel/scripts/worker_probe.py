"""Probes the multi-device worker (tests/parallel/test_device_worker.py):
`python worker_probe.py LIBRARY ACTION` (tests/ on PYTHONPATH), ACTION one of "read" (print
the device count, the x64 option and whether the prelude module ran afresh), "set" (turn x64
on, then read), "raise" (a ValueError) and "die" (end the process)."""

import json
import os
import sys

import parallel.scripts.worker_probe_prelude as worker_probe_prelude

M = __import__(sys.argv[1])
action = sys.argv[2]
if action == "set":
    M.config.update("jax_enable_x64", True)
elif action == "raise":
    raise ValueError("the probe's own error")
elif action == "die":
    os._exit(3)
worker_probe_prelude.runs.append(action)
print("something else first")
print(
    json.dumps(
        {
            "devices": len(M.devices()),
            "x64": bool(M.config.values["jax_enable_x64"]),
            "prelude_runs": worker_probe_prelude.runs,
            "pid": os.getpid(),
        }
    )
)
