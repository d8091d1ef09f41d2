"""`didax.experimental`: JAX's `jax.experimental` names that didax has. Layer 5 (re-exports).

Only `didax.experimental.shard_map` for now: JAX 0.10.2 keeps `jax.experimental.shard_map`
as a deprecated spelling of `jax.shard_map`.
"""
