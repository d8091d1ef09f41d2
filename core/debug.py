"""`didax.debug`: printing and calling back from inside transformed code. Like `jax.debug`.

Layer 5 (re-exports only): `didax.debug.print(fmt, *args, **kwargs)` binds the
`debug_print` primitive of `primitives/debugging.py`, and `callback(f, *args)` its
`debug_callback`; `visualize_array_sharding(x)` prints which device holds which block of `x`
(`sharding.py`).
"""

from didax.primitives.debugging import DebugEffect
from didax.primitives.debugging import debug_callback as callback
from didax.primitives.debugging import debug_print as print  # noqa: A004 - JAX's name
from didax.runtime.sharding import visualize_array_sharding

__all__ = ["DebugEffect", "callback", "print", "visualize_array_sharding"]
