"""Give a long-lived test process's free heap back to the system, and keep its GC cheap.

Measured (`-n 0`, tests/oracle/test_numpy_oracle.py then test_numpy_extra_oracle.py, on the
shared 2-core machine): the process's RSS grew to 724 MB; `jax.clear_caches()` and
`didax.clear_caches()` with `gc.collect()` freed 2 MB of it, and glibc's `malloc_trim(0)` 335 MB
(to 389 MB). Much of what a worker accumulates across modules is freed memory that glibc's heap
keeps (XLA's compiles allocate and free a lot), not live objects; so the xdist workers
(tests/conftest.py, between modules) and the multi-device workers (helpers/device_worker.py,
between scripts) trim it. A trim takes about 3 ms; five heavy modules in one process peaked at
1,196 MB with a `gc.collect()` and a trim between modules and 1,278 MB without (the peak is
reached inside a module; the collection, which freed 2 MB above, is left out here)."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc

_libc_name = ctypes.util.find_library("c")
_trim = getattr(ctypes.CDLL(_libc_name), "malloc_trim", None) if _libc_name else None


def give_back() -> None:
    """Return the heap's free pages to the system (glibc's `malloc_trim`; elsewhere nothing)."""
    if _trim is not None:
        _trim(0)


def settle() -> None:
    """Between two test modules of a long-lived process (tests/conftest.py): collect the
    module's cyclic garbage, move what is still alive to GC's permanent generation, and give
    the free heap back. Python's full collections scan every tracked object: late in a run
    an xdist worker holds millions (the modules, their tables and programs), and its
    automatic full collections took 19.6 s and 9.6 s of CPU in the two workers of a run of
    the suite (`gc.callbacks`, 49 and 28 of them). Frozen objects are never scanned again,
    so a full collection costs what the current module made. (Frozen objects that become
    cyclic garbage later are not freed: what a module leaves alive is the session's.)"""
    gc.collect()
    gc.freeze()
    give_back()
