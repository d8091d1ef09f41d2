"""Compiling with `jit` (layer 4, after control_flow), in import order: sharding_constraint
(`with_sharding_constraint`, a note to XLA's partitioner that sharded programs hold), stages
(AOT `Traced`/`Lowered`/`Compiled`, the compiled entries and sharded layouts), jit_primitive
(`jit_p` and its rules), dispatch (the cached call's fast path) and jit (the `jit` object and
its call path). This `__init__` imports nothing. (Not named `jit/`: `didax.jit` is the
function, which would hide the package from `import didax.jit.stages`.)
"""
