"""Parallelism over named axes (layer 4): the collectives (psum, pmean, ..., axis_index and
the varying-axes casts pvary and psum_invariant), the collectives that move blocks
(all_gather, psum_scatter, ppermute, all_to_all), `shard_map` and `pmap`. After
didax.compile (shard_map and pmap are jitted programs). This `__init__` imports nothing."""
