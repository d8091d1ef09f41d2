"""A partitioned compile with stderr captured: with GSPMD, with or without didax's
GSPMD-notice filter; with Shardy (the default), where no filter runs
(tests/parallel/test_xla_notice.py; run with `run_fresh`: it patches didax.runtime.executable)."""

import contextlib
import json
import os
import sys
import tempfile

log = tempfile.TemporaryFile()
os.dup2(log.fileno(), 2)  # everything written to this process's stderr, from here on
import didax
import numpy as np
from didax.runtime import executable
from didax.sharding import Mesh, NamedSharding
from didax.sharding import PartitionSpec as P

if sys.argv[1] == "unfiltered":
    executable._without_gspmd_notice = contextlib.nullcontext
if sys.argv[1] == "shardy":  # the default: XLA's Shardy pipeline, and no filter on stderr

    def _no_filter():
        raise AssertionError("stderr filtered while Shardy partitions")

    executable._without_gspmd_notice = _no_filter
else:  # the notice comes from GSPMD, the partitioner with `jax_use_shardy_partitioner` off
    didax.config.update("jax_use_shardy_partitioner", False)
mesh = Mesh(np.array(didax.devices()), ("x",))
x = didax.device_put(np.arange(8.0, dtype=np.float32), NamedSharding(mesh, P("x")))
total = float(didax.jit(lambda a: (a * 2).sum())(x))
log.seek(0)
print(json.dumps({"total": total, "stderr": log.read().decode()}))
