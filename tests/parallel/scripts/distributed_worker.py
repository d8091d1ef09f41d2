"""Two processes x two CPU devices on 127.0.0.1, each running the cases named on its command
line in one `distributed.initialize` (tests/parallel/test_distributed.py starts the pair once
per library):

    python distributed_worker.py LIBRARY PID PORT CASE...

with LIBRARY `didax` or `jax` and each CASE a module `distributed_CASE.py` beside this one
whose `run(M, pid)` returns what the case saw (JSON). Prints one JSON line: each case's
results by name, and whether the process was initialized before and after `shutdown`."""

import importlib
import json
import sys

lib, pid, port, *cases = sys.argv[1], int(sys.argv[2]), *sys.argv[3:]
M = __import__(lib)
if lib == "jax":
    M.config.update("jax_cpu_collectives_implementation", "gloo")
M.config.update("jax_num_cpu_devices", 2)
M.distributed.initialize(f"127.0.0.1:{port}", 2, pid)
out = {case: importlib.import_module(f"distributed_{case}").run(M, pid) for case in cases}
out["initialized"] = M.distributed.is_initialized()
M.distributed.shutdown()
out["initialized_after_shutdown"] = M.distributed.is_initialized()
print(json.dumps(out), flush=True)
