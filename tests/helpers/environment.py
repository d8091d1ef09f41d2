"""What a test session changes in the environment of the processes it starts (the xdist
workers and, through them, kernels, device workers, peers and scripts): two settings that cut
the suite's CPU work without changing what a test checks. `tests/conftest.py` applies both in
the controlling process, before the workers start; each returns how to undo it.

**One bytecode cache** (`share_bytecode_cache`). With `PYTHONDONTWRITEBYTECODE=1` (many Docker
images set it, and so does the machine CI runs on), Python compiles each module from source at
every import and keeps no `.pyc`. The suite starts about a hundred fresh Python processes, and
each of them compiled didax's ~54,000 lines again. The session's processes write their
bytecode to one private folder instead (`PYTHONPYCACHEPREFIX`), removed when the session
ends: each module is compiled once per session, and nothing is written into the clone or the
venv, as the setting asked. (Python then looks for bytecode only in that folder, so the
installed packages' modules are compiled into it once too.) Measured on the 2-core machine,
the modules that start processes (tests/notebooks, tests/parallel, test_interrupt,
test_install_layout, test_x64_oracle, test_threads; one run each) took 152.8 s of CPU instead
of 165.6 s. Without the setting Python caches bytecode beside the sources, and nothing changes.

**Most of XLA's optimizations off** (`compile_quickly`): `JAX_DISABLE_MOST_OPTIMIZATIONS=1`,
which JAX reads for its `jax_disable_most_optimizations` option, made for smoke tests whose
programs run once, and didax for the same option: XLA's LLVM backend then compiles at its
lowest level and skips its expensive passes; the HLO passes (fusion among them) still run. A
test program runs once or twice, and compiling it is most of the suite's CPU time. Both
libraries compile with the same options, so where a test compares didax's bits with JAX's they
are still the same programs' bits. Measured on the 2-core machine: six compile-bound modules
took 151 s of CPU instead of 187 s; with both changes, clean-clone CI runs took 314–360 s
instead of 397–414 s (README.md). The lessons' kernels run with XLA's defaults
(`AS_A_LEARNER`), since their stored outputs are what a learner sees; set the variable to 0 to
run the whole suite with XLA's defaults.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable

OPTIMIZATIONS_OFF = "JAX_DISABLE_MOST_OPTIMIZATIONS"
# what a kernel that runs a lesson adds to its environment: XLA's default options
AS_A_LEARNER = {OPTIMIZATIONS_OFF: "0"}


def share_bytecode_cache() -> Callable[[], None] | None:
    """If `PYTHONDONTWRITEBYTECODE` is set (and no `PYTHONPYCACHEPREFIX` chosen), point the
    processes started from now on at a new private bytecode folder; returns the function that
    puts the environment back and removes the folder, or None when nothing was changed."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX"):
        return None
    setting = os.environ.pop("PYTHONDONTWRITEBYTECODE")
    folder = tempfile.mkdtemp(prefix="didax-pycache-")
    os.environ["PYTHONPYCACHEPREFIX"] = folder

    def restore() -> None:
        os.environ["PYTHONDONTWRITEBYTECODE"] = setting
        if os.environ.get("PYTHONPYCACHEPREFIX") == folder:
            del os.environ["PYTHONPYCACHEPREFIX"]
        shutil.rmtree(folder, ignore_errors=True)

    return restore


def compile_quickly() -> Callable[[], None] | None:
    """Unless the user set `JAX_DISABLE_MOST_OPTIMIZATIONS`, set it to 1 for the processes
    started from now on, and turn the option on in didax and JAX if this process has already
    imported them (they read the variable once, at import). Returns the function that undoes
    it, or None when nothing was changed."""
    if OPTIMIZATIONS_OFF in os.environ:
        return None
    os.environ[OPTIMIZATIONS_OFF] = "1"
    _update_imported(True)

    def restore() -> None:
        os.environ.pop(OPTIMIZATIONS_OFF, None)
        _update_imported(False)

    return restore


def _update_imported(value: bool) -> None:
    for name in ("didax", "jax"):
        library = sys.modules.get(name)
        if library is not None:
            library.config.update("jax_disable_most_optimizations", value)
