"""What lives where: the live Arrays of the process. Like `jax.live_arrays`.

Layer 1, the runtime floor, after client.py. JAX asks its PJRT client for the buffers it has
not freed (`client.live_arrays()`), every JAX Array being one. A didax Array is not always a
device buffer: an eager result keeps its NumPy value and is put on the device only when a
compiled program takes it (array.py), so jaxlib's list misses most of them, and mapping a
buffer back to its Array would need a registry anyway. A registry (a WeakSet every Array
joins) costs each Array made an insertion: ~0.1 µs of a ~4 µs cached jitted call, on the
hand-inlined paths of fast_path.py too. Instead the Arrays are found where Python keeps them:
an Array holds references (`__slots__`), so the garbage collector tracks every one, and
`gc.get_objects()` lists them. Making an Array costs nothing more; `live_arrays` costs one
walk of the tracked objects (a few ms in a notebook), fine for a debugging query.
"""

from __future__ import annotations

import gc

from didax.array import Array
from didax.runtime import client


def live_arrays(platform: str | None = None) -> list[Array]:
    """The Arrays not yet deleted nor garbage-collected (eager results and device buffers
    alike). Like `jax.live_arrays`: `platform` None or "cpu".

    Raises:
      RuntimeError: `platform` names a backend didax does not have (as JAX's).
    """
    client.check_backend(platform)
    return [x for x in gc.get_objects() if type(x) is Array and not x.is_deleted()]
