"""The one protocol through which an Array asks the device runtime: its sharding, its devices,
its blocks, a split value read to the host, the error of a refused allocation.

Layer 1, before array.py (which asks) and the runtime floor (`didax.runtime`, after core.py;
runtime/sharding.py answers, installing its answer once at import with `install_runtime`):
the declared extension point of STYLE.md §2, so the array classes need nothing above them.
The protocol's `x` is an Array (this module comes before array.py).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np


class Runtime(Protocol):
    """What an Array asks the device runtime."""

    def sharding(self, x: Any) -> Any:
        """The sharding of `x`, an Array placed by no sharding (on one device)."""

    def eager_sharding(self) -> Any:
        """The sharding an un-committed Array made now carries: where the default device is,
        or None on the first device."""

    def devices(self, x: Any) -> set[Any]:
        """The devices holding `x`."""

    def read_sharded(self, x: Any) -> np.ndarray:
        """The global value of `x`, an Array on several devices, read to the host."""

    def addressable_shards(self, x: Any) -> list[Any]:
        """`x`'s blocks on this process's devices."""

    def allocation_error(self, message: str) -> Exception:
        """The exception of an allocation the memory refuses (JAX's JaxRuntimeError)."""


_installed: Runtime | None = None  # set once, at import


def install_runtime(runtime: Runtime) -> None:
    """Declare the device runtime Arrays ask (called once, by `didax.runtime.sharding`)."""
    global _installed
    if _installed is not None:
        raise RuntimeError("install_runtime: a runtime is already installed")
    _installed = runtime


def installed() -> Runtime:
    """The installed runtime; RuntimeError before one is."""
    if _installed is None:
        raise RuntimeError("no device runtime installed: `import didax` first")
    return _installed


def allocation_error() -> Any:
    """The exception type of a refused allocation: the runtime's (jaxlib's JaxRuntimeError,
    as JAX raises), RuntimeError before one is installed."""
    return _installed.allocation_error if _installed is not None else RuntimeError
