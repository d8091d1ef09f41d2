"""The C allocator's thresholds: memory a program's results free stays for the next call.

Layer 1, the runtime floor, before client.py, which calls `keep_freed_memory` once, when it
makes the client (the option `didax_malloc_trim_threshold`, config.py).

XLA's CPU client allocates each result buffer with `malloc` on the thread that runs the
program, and frees it when the last Array holding it goes. With glibc's defaults, a thread's
arena gives the free memory at its top back to the system (`madvise(MADV_DONTNEED)`) once it
exceeds the trim threshold, which glibc sets to twice the largest block it has unmapped so far
(its "dynamic" thresholds). A program whose results add up to more than twice its largest
one then often gets its memory fresh for a call, and the kernels that write the results pay a
page fault per 4 KiB: `jit(vmap(grad))` of bench_autodiff.py's big MLP, 13 MB of results,
took ~5,100 faults and 2-3x its time, on some calls and not others (the order in which XLA's
threads free decides), in JAX's process as in didax's. JAX sets nothing here.

didax fixes both thresholds where glibc's dynamic rule ends up after freeing a 32 MiB block
(blocks up to 32 MiB come from the arenas, an arena keeps up to 64 MiB free at its top), so
that a repeated call reuses its memory after the first few calls. The price is memory held:
up to the trim threshold of free memory per arena (measured after 30 of bench_autodiff.py's
big calls: 28 MB more resident than with glibc's defaults, 292 against 264 MB).
`config.update("didax_malloc_trim_threshold", 0)` before the first computation (or
`DIDAX_MALLOC_TRIM_THRESHOLD=0`) leaves glibc as it is; so does a threshold the user set for
glibc in the environment. Elsewhere (macOS, musl) nothing is done.
"""

from __future__ import annotations

import ctypes
import os
import platform

# mallopt's parameters (glibc's malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD_MAX = 32 << 20  # glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit machines
# how a user sets glibc's thresholds: then theirs stand
GLIBC_VARIABLES = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_")
GLIBC_TUNABLES = (
    "glibc.malloc.trim_threshold",
    "glibc.malloc.mmap_threshold",
    "glibc.malloc.top_pad",
)


def user_set() -> bool:
    """Whether the environment sets glibc's malloc thresholds itself."""
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    return any(name in os.environ for name in GLIBC_VARIABLES) or any(
        name in tunables for name in GLIBC_TUNABLES
    )


def keep_freed_memory(trim_threshold: int) -> tuple[int, int] | None:
    """Fix glibc's mmap threshold at half `trim_threshold` (at most 32 MiB) and its trim
    threshold at `trim_threshold` bytes, ending its dynamic thresholds. Returns the two
    thresholds set, or None when nothing was (0, not glibc, or set by the user)."""
    if trim_threshold <= 0 or platform.libc_ver()[0] != "glibc" or user_set():
        return None
    libc = ctypes.CDLL(None)
    mmap_threshold = min(trim_threshold // 2, MMAP_THRESHOLD_MAX)
    ok = libc.mallopt(M_MMAP_THRESHOLD, mmap_threshold) and libc.mallopt(
        M_TRIM_THRESHOLD, trim_threshold
    )
    return (mmap_threshold, trim_threshold) if ok else None
