"""Run by test_host_memory.py in a fresh process: a jitted function with 8 results of 2 MiB
(16 MiB a call, 4,096 pages) is called 8 times, then 15 more, each waited for and dropped.
Prints the malloc thresholds the client set (None: none), then the median and the sum of
the minor page faults of the last 15 calls. With an argument, `config.update`s the option to it first.

    python result_faults.py [TRIM_THRESHOLD]
"""

from __future__ import annotations

import resource
import statistics
import sys

import didax
import didax.numpy as jnp
from didax.runtime import client

if sys.argv[1:]:
    didax.config.update("didax_malloc_trim_threshold", int(sys.argv[1]))
f = didax.jit(lambda x: tuple(x + i for i in range(8)))
x = didax.device_put(jnp.ones(512 * 1024, "float32"))
faults = []
for i in range(8 + 15):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    didax.block_until_ready(f(x))
    if i >= 8:
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(client.runtime().malloc_thresholds, statistics.median(faults), sum(faults))
