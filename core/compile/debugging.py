"""jit's debugging options (config.py): `jax_disable_jit` (call the function as Python), the
nan/inf check of a jitted call's results with its op-by-op re-run (`jax_debug_nans`,
`jax_debug_infs`), and the `jax_explain_cache_misses` / `jax_log_compiles` log records.

Layer 4 (compile/), below jit.py and jit_primitive.py, which call these only when an option
is on (`config.jit_hooks`, read once per call). As in JAX, a jitted call whose results hold
a nan re-runs its function eagerly, where each primitive checks its own results
(`nan_checks.check_special`), so the error names the primitive; nested jits do the same in turn.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from didax import api_util, core, nan_checks
from didax import source_info as si
from didax.config import TRACE_CONTEXT, config, log_warning
from didax.tree_util import tree_leaves

DEOPTIMIZED = (
    "Invalid nan value encountered in the output of a jax.jit function. Calling the "
    "de-optimized version."
)


def hooked_call(fn: Callable[..., Any], name: str, call: Callable[..., Any], args, kwargs):
    """A jitted call while a debugging option is on: `fn` itself under `jax_disable_jit`;
    else the compiled `call`, its results checked when nothing is traced."""
    __tracebackhide__ = True
    if config.jax_disable_jit:
        return fn(*args, **kwargs)
    out = call(args, kwargs)
    if config.check_special and core.trace_state() is core.EAGER_STATE:
        check_or_rerun(f"jit({name})", tree_leaves(out), lambda: fn(*args, **kwargs))
    return out


def check_or_rerun(name: str, values: Sequence[Any], rerun: Callable[[], Any]) -> None:
    """Raise FloatingPointError if `values` hold a nan/inf: the one the de-optimized `rerun`
    raises (naming its primitive), else one saying it did not find it, as JAX does."""
    __tracebackhide__ = True
    try:
        nan_checks.check_special(name, values)
    except FloatingPointError as e:
        print(DEOPTIMIZED)  # JAX prints this line (to stdout) before re-running
        rerun()
        raise FloatingPointError(
            f"{e}. Because jax_config.debug_nans.value and/or config.jax_debug_infs is set, "
            "the de-optimized function (i.e., the function as if the `jit` decorator were "
            "removed) was called in an attempt to get a more precise error message. However, "
            "the de-optimized function did not produce invalid values during its execution. "
            "This behavior can result from `jit` optimizations causing the invalid value to "
            "be produced. It may also arise from having nan/inf literals as inputs or "
            "outputs, like `jax.jit(lambda ...: jax.numpy.nan)(...)`."
        ) from None


# ----------------------------------------------------------------------------- explaining


def explain_miss(
    fn: Callable[..., Any], name: str, keys: Sequence[tuple], key: tuple, args, kwargs, static
) -> None:
    """Under `jax_explain_cache_misses`: log why `fn` is traced again for `key` (in_tree,
    avals, statics, trace context), against the closest of the `keys` it was traced for, as JAX's
    `TRACING CACHE MISS` record. Functions defined inside didax are not explained."""
    code = getattr(fn, "__code__", None)
    defined = "" if code is None else f" defined at {code.co_filename}:{code.co_firstlineno}"
    if code is not None and si.is_internal(code.co_filename):
        return
    lines = [f"TRACING CACHE MISS at {si.summarize(si.current())}:"]
    if not keys:
        lines += ["  never seen function:", f"    {name} id={id(fn)}{defined}"]
    else:
        names = api_util.leaf_names(fn, args, kwargs, static)
        diffs = sorted(_diff(key, old, names) for old in keys)
        lines += [
            f"  for {name}{defined}",
            "  all previously seen cache keys differ. For the closest previous key:",
            "  " + diffs[0][-1],
        ]
    log_warning("\n".join(lines))


def _diff(new: tuple, old: tuple, names: list[str]) -> tuple[int, int, str]:
    (tree, avals, statics, context), (old_tree, old_avals, old_statics, old_context) = new, old
    if context != old_context:
        found = [
            f"  * {name} differs: now {a} and before {b}"
            for name, a, b in zip(TRACE_CONTEXT, context, old_context, strict=True)
            if a != b
        ]
        return (
            0,
            len(found),
            "Tracing context doesn't match, e.g. due to config or context manager.\n"
            + "\n".join(found),
        )
    if statics != old_statics:
        found = [
            f"  * static argument {i}: now {a!r} and before {b!r}"
            for i, (a, b) in enumerate(zip(statics, old_statics))
            if a != b
        ]
        return 1, len(found), "different static arguments:\n" + "\n".join(found)
    if tree != old_tree:
        return 1, 1, f"different input pytree:\n  * now {tree} and before {old_tree}"
    found = [
        f"  * at {n}, now {_short(a, b)} and before {_short(b, a)}"
        for n, a, b in zip(names, avals, old_avals)
        if a != b
    ]
    return 3, len(found), "different input types:\n" + "\n".join(found)


def _short(aval: core.ShapedArray, other: core.ShapedArray) -> str:
    weak = aval.weak_type != other.weak_type
    return aval.str_short() + (f"{{weak_type={aval.weak_type}}}" if weak else "")


# ----------------------------------------------------------------------------- logging compiles


def log_compile(
    name: str, in_avals: Sequence[core.ShapedArray], compile_: Callable[[], Any]
) -> Any:
    """Run `compile_()`, logging it as JAX does under `jax_log_compiles`."""
    if not config.jax_log_compiles:
        return compile_()
    log_warning(f"Compiling jit({name}) with global shapes and types {tuple(in_avals)}.")
    t0 = time.perf_counter()
    out = compile_()
    log_warning(f"Finished XLA compilation of jit({name}) in {time.perf_counter() - t0:.9f} sec")
    return out
