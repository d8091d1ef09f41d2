"""`didax.custom_batching`: user-defined vmap rules. Like `jax.custom_batching`.

Layer 5 (re-exports only): `custom_vmap`, `sequential_vmap` and the `custom_vmap_call`
primitive from `control_flow/custom_batching.py`.
"""

from didax.control_flow.custom_batching import custom_vmap, custom_vmap_call_p, sequential_vmap

__all__ = ["custom_vmap", "custom_vmap_call_p", "sequential_vmap"]
