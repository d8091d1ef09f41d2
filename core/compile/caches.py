"""`clear_caches`: forget what `jit` traced and compiled. Like `jax.clear_caches`.

Layer 4 (compile/), after jit.py, whose shared per-function caches (`jit._function_caches`)
and whose primitive's per-jaxpr table (`jit_primitive._derived`) it empties through their
own methods (nothing is assigned). A `jit` made with options didax ignores (shardings,
`device`, ...) keeps a cache of its own, which this does not reach.
"""

from __future__ import annotations

from didax.compile import jit, jit_primitive


def clear_caches() -> None:
    """Drop every shared jit trace, executable and derived jaxpr: the next call of a jitted
    function traces and compiles again."""
    with jit._function_caches_lock:
        per_function = list(jit._function_caches.values())
    for per_options in per_function:
        for cache in list(per_options.values()):
            with cache.lock:
                cache.entries.clear()
                cache.forget()
    with jit_primitive._derived_lock:
        jit_primitive._derived.clear()
