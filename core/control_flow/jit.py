"""`jit`: compile a function with XLA. The user-facing `jit`, its call path and caches.

Layer 4 (autodidax part 3, "Adding jit"). `jit(f)(x)` stages `f` at its arguments' types
(omnistaging), lowers the jaxpr to StableHLO (`interpreters/lowering.py`), compiles and runs
it (`backend.py`); results stay on the device until read. Each jitted function owns a bounded
executable cache keyed on argument types, static arguments and pytree structure: a new shape
compiles again, a new value never does. Under an outer transformation, or with a tracer
argument, a call binds `jit_p` (`jit_primitive.py`); AOT stages are in `stages.py`.
"""

from __future__ import annotations

import collections
import functools
import inspect
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import backend, core
from didax.array import Array
from didax.control_flow import argnums
from didax.control_flow.jit_primitive import compile_jaxpr, derived, jit_p
from didax.control_flow.stages import Entry, Lowered, Traced, out_info
from didax.interpreters import staging
from didax.jaxpr import ClosedJaxpr, Jaxpr, has_effects
from didax.tree_util import PyTreeDef, tree_flatten, tree_map, tree_unflatten

CACHE_SIZE = 64  # executables kept per jitted function (least recently used dropped first)


# ----------------------------------------------------------------------------- jit


class _NotSpecified:
    def __repr__(self) -> str:
        return "<not-specified>"


NOT_SPECIFIED: Any = _NotSpecified()


def jit(
    fn: Callable[..., Any] = NOT_SPECIFIED,
    /,
    *,
    in_shardings: Any = None,
    out_shardings: Any = None,
    static_argnums: int | Sequence[int] | None = None,
    static_argnames: str | Sequence[str] | None = None,
    donate_argnums: int | Sequence[int] | None = None,
    donate_argnames: str | Sequence[str] | None = None,
    keep_unused: bool = False,
    device: Any = None,
    backend: str | None = None,
    inline: bool = False,
    compiler_options: dict[str, Any] | None = None,
) -> Any:
    """`fn` compiled with XLA on first call for each new set of argument types. Like
    `jax.jit`; without `fn`, a decorator (`@jit(static_argnames="n")`).

    Static arguments (by position, negative counted from the end, or by name) must be
    hashable: they key the cache, and each new value compiles anew. Donation is accepted
    and has no effect (didax keeps every input buffer); shardings, `device`, `backend`,
    `keep_unused` and `compiler_options` are accepted for one CPU device and ignored.
    `inline=True`: inside another program, `fn`'s equation is lowered in place rather than
    as a called function (and evaluated eagerly when its caller is), as in JAX.
    """
    options = {
        "static_argnums": static_argnums,
        "static_argnames": static_argnames,
        "donate_argnums": donate_argnums,
        "donate_argnames": donate_argnames,
        "inline": inline,
    }
    if fn is NOT_SPECIFIED:
        return lambda f: jit(f, **options)
    if not callable(fn):
        raise TypeError(f"Expected a callable value, got {fn!r}")
    spec = argnums.resolve(fn, static_argnums, static_argnames, donate_argnums, donate_argnames)
    return JitFunction(fn, spec, inline)


class JitFunction:
    """A function compiled by `jit`: call it, or inspect it with `.lower(*args)`."""

    def __init__(
        self, fn: Callable[..., Any], spec: argnums.ArgSpec | None = None, inline: bool = False
    ) -> None:
        functools.update_wrapper(self, fn)
        self._inline = inline
        self._fn = fn
        self._name = getattr(fn, "__name__", type(fn).__name__)
        self._spec = spec = spec or argnums.ArgSpec()
        self._has_static = bool(spec.static_argnums or spec.static_argnames)
        self._cache: collections.OrderedDict[tuple, Entry] = collections.OrderedDict()
        self._fast: dict[tuple, Entry] = {}  # positional calls, keyed by `_fast_key`
        # Guards both tables and compilation; the fast path only reads `_fast` (a dict get
        # is atomic), so it takes no lock.
        self._lock = threading.RLock()
        self.compilations = 0  # XLA compilations so far (tests and the %jit magic read it)

    def __repr__(self) -> str:
        return f"<jitted function {self._name}>"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:  # jit works on methods
        return self if obj is None else functools.partial(self, obj)

    def _cache_size(self) -> int:
        """How many signatures this function has been traced (and compiled) for."""
        return len(self._cache)

    # ----- calling
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Fast path: positional arrays or scalars, nothing being traced, a signature seen
        # before (the table stays empty with static arguments).
        __tracebackhide__ = True  # engine frame: IPython leaves it out of tracebacks
        if not kwargs and self._fast:
            state = core.trace_state()
            if state.dynamic is None and len(state.stack) == 1:
                entry = self._fast.get(_fast_key(args))
                if entry is not None:
                    return entry.run_args(args)
        return self._call(args, kwargs)

    def _call(self, args: tuple, kwargs: dict) -> Any:
        __tracebackhide__ = True
        entry, leaves, consts = self._entry(args, kwargs)
        state = core.trace_state()
        if (
            state.dynamic is None
            and not consts
            and not any(isinstance(x, core.Tracer) for x in leaves)
            and not derived(entry.closed, ("effects",), lambda: has_effects(entry.closed))
        ):
            with self._lock:
                if entry.executable is None:
                    self._compile(entry)
                if not kwargs and not self._has_static:  # later calls: the fast path
                    key = _fast_key(args)
                    if key is not None and key not in self._fast:
                        entry.fast_keys.append(key)
                        self._fast[key] = entry
            avals = entry.closed.in_avals
            return entry.run([backend.host_buffer(x, a) for x, a in zip(leaves, avals)])
        outs = jit_p.bind(
            *consts, *leaves, name=self._name, jaxpr=entry.closed, inline=self._inline
        )
        return tree_unflatten(entry.out_tree, outs)

    def _compile(self, entry: Entry) -> None:
        entry.executable, timings = compile_jaxpr(entry.closed, self._name)
        entry.timings.update(timings)
        self.compilations += 1

    # ----- tracing and the cache
    def _entry(self, args: tuple, kwargs: dict) -> tuple[Entry, list[Any], list[Any]]:
        """The cache entry for these arguments (traced on a miss), their dynamic leaves, and
        the values of tracers `fn` closes over (leading operands; the entry is then not
        cached: those tracers belong to the current transformation)."""
        __tracebackhide__ = True
        static = self._spec.static_positions(len(args))
        static_kw = {k: v for k, v in kwargs.items() if k in self._spec.static_argnames}
        if static_kw:
            kwargs = {k: v for k, v in kwargs.items() if k not in static_kw}
        statics = (*(args[i] for i in sorted(static)), *sorted(static_kw.items()))
        try:
            hash(statics)
        except TypeError as e:
            bad = next(a for a in statics if not _hashable(a))
            raise ValueError(
                f"Non-hashable static arguments are not supported. An error occurred while "
                f"trying to hash an object of type {type(bad)}, {bad!r}. The error was:\n"
                f"TypeError: {e}"
            ) from None
        dynamic = tuple(a for i, a in enumerate(args) if i not in static)
        leaves, in_tree = tree_flatten((dynamic, kwargs))
        self._check_leaves(args, static, kwargs, leaves)
        avals = tuple(core.get_aval(x) for x in leaves)
        key = (in_tree, avals, statics)
        with self._lock:
            entry = self._cache.get(key)
            if entry is not None:
                self._cache.move_to_end(key)
                return entry, leaves, []
            if statics and (entry := self._equal_entry(key)) is not None:
                return entry, leaves, []
        entry, consts = self._trace(args, static, static_kw, in_tree, avals)  # unlocked: slow
        if consts:
            return entry, leaves, consts
        with self._lock:
            if key in self._cache:  # another thread traced the same signature meanwhile
                return self._cache[key], leaves, []
            self._cache[key] = entry
            if len(self._cache) > CACHE_SIZE:
                _, old = self._cache.popitem(last=False)
                for k in old.fast_keys:
                    self._fast.pop(k, None)
        return entry, leaves, []

    def _equal_entry(self, key: tuple) -> Entry | None:
        # A static argument mutated after it keyed an entry (a method's `self`) no longer
        # hashes as it did, but still compares equal: JAX 0.10.2 then reuses the entry (its
        # result is stale), so an equal key is looked for too.
        return next((e for k, e in dict.items(self._cache) if k == key), None)

    def _trace(
        self,
        args: tuple,
        static: set[int],
        static_kw: dict[str, Any],
        in_tree: PyTreeDef,
        avals: tuple[core.ShapedArray, ...],
    ) -> tuple[Entry, list[Any]]:
        __tracebackhide__ = True
        out_trees: list[PyTreeDef] = []

        def flat_fn(*leaves: Any) -> list[Any]:
            __tracebackhide__ = True
            dynamic, kwargs = tree_unflatten(in_tree, leaves)
            it = iter(dynamic)
            full = [args[i] if i in static else next(it) for i in range(len(args))]
            out_leaves, out_tree = tree_flatten(self._fn(*full, **kwargs, **static_kw))
            out_trees.append(out_tree)
            return out_leaves

        t0 = time.perf_counter()
        try:
            closed = staging.trace_to_jaxpr(flat_fn, avals)
        except (
            core.ConcretizationTypeError,
            core.TracerIntegerConversionError,
            core.TracerArrayConversionError,
        ) as e:
            e.add_note(
                f"This happened while jit was tracing {self._name} for arguments of "
                f"types ({', '.join(a.str_short() for a in avals)}): under jit, array "
                "arguments are abstract. Branch on them with lax.cond, or pass the "
                f"argument as static: jit({self._name}, static_argnums=...)."
            )
            raise
        trace_time = time.perf_counter() - t0
        consts: list[Any] = []
        if any(isinstance(c, core.Tracer) for c in closed.consts):
            # `fn` closes over values of an outer transformation: they become operands
            j = closed.jaxpr
            consts = list(closed.consts)
            closed = ClosedJaxpr(Jaxpr([], [*j.constvars, *j.invars], j.outvars, j.eqns), [])
        return Entry(closed, out_trees[-1], trace_time), consts

    def _check_leaves(self, args: tuple, static: set[int], kwargs: dict, leaves: list[Any]) -> None:
        for leaf in leaves:
            if not core.is_arraylike(leaf):
                break
        else:
            return
        names = _param_names(self._fn)
        for i, a in enumerate(args):
            if i not in static and not all(map(core.is_arraylike, tree_flatten(a)[0])):
                where = f"argument '{names[i]}'" if i < len(names) else f"argument {i}"
                raise TypeError(_bad_argument(self._name, where, a))
        for k, a in kwargs.items():
            if not all(map(core.is_arraylike, tree_flatten(a)[0])):
                raise TypeError(_bad_argument(self._name, f"argument '{k}'", a))

    # ----- ahead of time
    def trace(self, *args: Any, **kwargs: Any) -> Traced:
        """Trace for these arguments (arrays or `ShapeDtypeStruct`s). Like
        `jax.jit(f).trace`: `.jaxpr`, `.out_info`, `.lower()`."""
        __tracebackhide__ = True
        entry, _, consts = self._entry(args, kwargs)
        if consts:
            raise TypeError(
                f"jit({self._name}).trace: cannot trace a function that closes "
                "over values of an enclosing transformation"
            )
        return Traced(self._name, entry)

    def eval_shape(self, *args: Any, **kwargs: Any) -> Any:
        """The output's shapes and dtypes as a pytree of `ShapeDtypeStruct`s, without
        compiling. Like `jax.jit(f).eval_shape`."""
        __tracebackhide__ = True
        entry, _, _ = self._entry(args, kwargs)
        return out_info(entry)

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """Trace and lower for these arguments, without compiling. Like `jax.jit(f).lower`."""
        __tracebackhide__ = True
        return self.trace(*args, **kwargs).lower()


_SCALARS = (bool, int, float)


def _fast_key(args: tuple) -> tuple | None:
    """A cheap cache key for positional Arrays, NumPy arrays and scalars (None for anything
    else): it determines the argument types as the full key does."""
    key = []
    for x in args:
        t = type(x)
        if t is Array:
            key.append(x.aval)
        elif t is np.ndarray:
            key.append((x.shape, x.dtype))
        elif t in _SCALARS or issubclass(t, np.generic):  # the type decides the aval
            key.append(t)
        else:
            return None
    return tuple(key)


def _hashable(x: Any) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def _param_names(fn: Callable[..., Any]) -> list[str]:
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


def _bad_argument(name: str, where: str, value: Any) -> str:
    return (
        f"Error interpreting {where} of jitted function {name} as an abstract array: "
        f"the value {value!r:.80} is of type {type(value).__name__}, which is not a "
        "valid didax type. A jitted function takes arrays, scalars and pytrees of them; "
        f"pass other values as static arguments: jit({name}, static_argnums=...)."
    )


# ----------------------------------------------------------------------------- utilities


def block_until_ready(x: Any) -> Any:
    """Wait until every array in the pytree `x` is computed; returns `x`. Like
    `jax.block_until_ready`."""
    tree_map(
        lambda leaf: leaf.block_until_ready() if hasattr(leaf, "block_until_ready") else leaf, x
    )
    return x
