"""`didax.distributed`: several processes, one set of devices. Like `jax.distributed`.

Layer 5: re-exports only, from the runtime floor (`didax.runtime.distributed`).
"""

from didax.runtime.distributed import global_state, initialize, is_initialized, shutdown

__all__ = ["global_state", "initialize", "is_initialized", "shutdown"]
