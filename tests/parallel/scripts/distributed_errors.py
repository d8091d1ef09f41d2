"""`distributed.initialize`'s errors, in a fresh process (`python distributed_errors.py
LIBRARY`, tests/parallel/test_distributed.py)."""

import json
import sys

M = __import__(sys.argv[1])
out = {}
for name, kwargs in [
    ("no_address", dict(num_processes=2, process_id=0)),
    ("id_out_of_range", dict(coordinator_address="127.0.0.1:1", num_processes=2, process_id=2)),
    ("id_not_int", dict(coordinator_address="127.0.0.1:1", num_processes=2, process_id="0")),
]:
    try:
        M.distributed.initialize(**kwargs)
        out[name] = "no error"
    except Exception as e:
        out[name] = type(e).__name__
M.devices()
try:
    M.distributed.initialize("127.0.0.1:1", 2, 0)
    out["after_backend"] = "no error"
except Exception as e:
    out["after_backend"] = [type(e).__name__, "must be called before" in str(e)]
out["is_initialized"] = M.distributed.is_initialized()
M.distributed.shutdown()  # nothing to shut down: no error
print(json.dumps(out))
