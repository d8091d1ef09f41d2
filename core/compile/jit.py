"""`jit`: compile a function with XLA. The user-facing `jit`, its call path and caches.

Layer 4 (autodidax part 3, "Adding jit"). `jit(f)(x)` stages `f` at its arguments' types
(omnistaging), lowers the jaxpr to StableHLO (`interpreters/lowering.py`), compiles and runs
it (`client.py`); results stay on the device until read. Each function, under one set of jit
options, has a bounded executable cache keyed on argument types, static arguments and pytree
structure, shared by all its `jit` objects (as in JAX): a new shape compiles again, a new
value never does, and `jit(f)` made again for the same `f` finds what the first compiled.
A cached call takes the fast path of `fast_path.py`; every other call, the general path
(`JitFunction._call`), which under an outer transformation or with a tracer argument binds
`jit_p` (`jit_primitive.py`). The AOT stages are in `stages.py`.
"""

from __future__ import annotations

import collections
import functools
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from didax import api_util, array, core, fast_path
from didax.array import Array, ShapedArray
from didax.compile import debugging, jit_refs
from didax.compile.jit_primitive import (
    UNSPECIFIED,
    compile_jaxpr,
    derived,
    jit_p,
    named_shardings,
    unspecified,
)
from didax.compile.stages import (
    Entry,
    Layout,
    Lowered,
    ShardedRun,
    Traced,
    donating_call_buffers,
    donation_aliases,
    make_layout,
    out_info,
    partition,
)
from didax.config import config
from didax.interpreters import staging
from didax.jaxpr import ClosedJaxpr, Jaxpr, holds_own_program
from didax.runtime import client, placement
from didax.runtime.executable import Executable
from didax.runtime.sharding import NamedSharding
from didax.tree_util import (
    PyTreeDef,
    broadcast_prefix,
    tree_flatten,
    tree_leaves,
    tree_structure,
    tree_unflatten,
)

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
    hashable: they key the cache, and each new value compiles anew. Donated arguments
    (`donate_argnums`/`donate_argnames`) that an output of the same shape and dtype can
    reuse are written over by XLA and their Arrays deleted, as in JAX (others are kept, with
    JAX's warning); didax donates in a call of the jitted function (or its AOT `Compiled`)
    only, not under vmap/jvp, where JAX also donates.

    `in_shardings` (a NamedSharding, None, or a pytree prefix of the positional arguments
    of them) and `out_shardings` (likewise for the output), arguments split over a mesh
    (their own sharding is taken, as JAX does) and `lax.with_sharding_constraint` inside
    make the call one SPMD program over the mesh's devices: lowered with `mhlo.sharding`
    annotations, partitioned by XLA, results split over the mesh (outputs and uncommitted
    arguments without a given sharding as XLA chose). Traced (inside another jit, under
    grad/jvp/vmap), its `jit` equation carries the given shardings, as JAX's does: the
    enclosing program is partitioned over their mesh and keeps them. Not with donation.
    `backend` may be "cpu" (another raises JAX's RuntimeError when `fn` is traced); `device`,
    `keep_unused` and `compiler_options` are accepted and ignored.
    `inline=True`: inside another program, `fn`'s equation is lowered in place rather than
    as a called function (and evaluated eagerly when its caller is), as in JAX.
    """
    options = {
        "in_shardings": in_shardings,
        "out_shardings": out_shardings,
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
    spec = api_util.resolve_argnums(
        fn, static_argnums, static_argnames, donate_argnums, donate_argnames
    )
    # options didax accepts and ignores are not in the shared cache's key: with any of them
    # set, the jitted function keeps a cache of its own
    ignored = (in_shardings, out_shardings, device, backend, compiler_options)
    share = all(x is None for x in ignored) and not keep_unused
    shardings = (in_shardings, out_shardings)
    return JitFunction(fn, spec, inline, share=share, shardings=shardings, backend=backend)


class FunctionCache:
    """What `jit` keeps for one function with one choice of static arguments: its entries by
    full key (an LRU of `CACHE_SIZE`), the same entries by fast key, and a lock. Shared by
    every `jit` object of that function and static arguments, whatever their other options
    (`inline`, donation), as JAX shares traces: `jit(f)` made in a loop traces once."""

    def __init__(self) -> None:
        self.entries: collections.OrderedDict[tuple, Entry] = collections.OrderedDict()
        # keyed by `fast_path.signature`: the launch of an entry or a ShardedRun
        self.fast: dict[tuple, Callable[[list[Any]], Any]] = {}
        # the last fast hit of a pytree call, [(its key as a list, its value in `fast`)]:
        # `fast_path.jit_call` compares a key with it before hashing one
        self.last: list[tuple[list, Any]] = [fast_path.NO_LAST]
        # Guards both tables and compilation; the fast path only reads `fast` (a dict get
        # is atomic), so it takes no lock.
        self.lock = threading.RLock()
        self.compilations = 0

    def forget(self, keys: Sequence[tuple] | None = None) -> None:
        """Drop these keys (None: all) from the fast table, and the last hit (under `lock`)."""
        if keys is None:
            self.fast.clear()
        for k in keys or ():
            self.fast.pop(k, None)
        self.last[0] = fast_path.NO_LAST


# The caches of jitted functions, by function, then by options. Keyed weakly by the function
# object itself, like `_derived` in jit_primitive.py: an entry is state of that function and
# dies with it (a lambda made in a loop, a bound method `obj.m`, made anew on each access,
# get caches of their own). A callable that cannot be weakly referenced or hashed gets a
# cache of its own per `jit` object. Bounded by the live functions (each cache by
# CACHE_SIZE); module-level because `jit(f)` called twice makes two objects that share `f`'s.
_function_caches: weakref.WeakKeyDictionary[Callable, dict[Hashable, FunctionCache]] = (
    weakref.WeakKeyDictionary()
)
_function_caches_lock = threading.Lock()


def function_cache(fn: Callable[..., Any], options: Hashable | None) -> FunctionCache:
    """The cache `jit(fn)` with these (static argument) options shares (a fresh one when
    `options` is None)."""
    if options is None:
        return FunctionCache()
    try:
        with _function_caches_lock:
            per_options = _function_caches.get(fn)
            if per_options is None:
                per_options = _function_caches[fn] = {}
            return per_options.setdefault(options, FunctionCache())
    except TypeError:  # not weakly referenceable, or unhashable
        return FunctionCache()


class JitFunction:
    """A function compiled by `jit`: call it, or inspect it with `.lower(*args)`."""

    def __init__(
        self,
        fn: Callable[..., Any],
        spec: api_util.ArgSpec | None = None,
        inline: bool = False,
        *,
        share: bool = True,
        shardings: tuple[Any, Any] = (None, None),
        backend: str | None = None,
    ) -> None:
        functools.update_wrapper(self, fn)
        self._backend = backend
        self._in_shardings, self._out_shardings = shardings
        self._inline = inline
        self._fn = fn
        self._name = getattr(fn, "__name__", type(fn).__name__)
        self._spec = spec = spec or api_util.ArgSpec()
        self._has_static = bool(spec.static_argnums or spec.static_argnames)
        statics = (spec.static_argnums, spec.static_argnames)
        self._shared = function_cache(fn, statics if share else None)
        self._cache = self._shared.entries  # the same objects, read without indirection
        # Donating calls take the general path: the fast table is shared with the function's
        # other jit objects, whose entries run without donation.
        self._donating = bool(spec.donate_argnums or spec.donate_argnames)
        self._fast = {} if self._donating else self._shared.fast
        self._last = [fast_path.NO_LAST] if self._donating else self._shared.last
        self._lock = self._shared.lock
        self._home: Any = None  # the first device's sharding, once the backend runs
        # by number of positional arguments: (static positions, where the static values stand,
        # where the others stand) (`fast_path.positions`)
        self._positions: dict[
            int, tuple[frozenset[int], fast_path.Positions, fast_path.Positions]
        ] = {}

    @property
    def compilations(self) -> int:
        """XLA compilations of this function and options so far (tests and %jit read it)."""
        return self._shared.compilations

    def __repr__(self) -> str:
        return f"<jitted function {self._name}>"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:  # jit works on methods
        return self if obj is None else functools.partial(self, obj)

    def _cache_size(self) -> int:
        """How many signatures this function has been traced (and compiled) for."""
        return len(self._cache)

    # ----- calling
    # A call: the fast path when nothing is being traced and the arguments have a signature
    # this function has run before (`fast_path.py`, beside the other hand-inlined hot
    # paths), else `_call`; `_hooked` under debug_nans/debug_infs/disable_jit.
    __call__ = fast_path.jit_call

    def _hooked(self, args: tuple, kwargs: dict) -> Any:
        """A call while `config.jit_hooks` is set (debug_nans, debug_infs, disable_jit)."""
        __tracebackhide__ = True
        return debugging.hooked_call(self._fn, self._name, self._call, args, kwargs)

    def _call(self, args: tuple, kwargs: dict) -> Any:
        """The general path: every call that is not a fast-path hit comes here."""
        __tracebackhide__ = True
        entry, leaves, consts = self._entry(args, kwargs)
        if not consts and jit_refs.takes_refs(self._fn, entry.closed):  # (refs in and out)
            return jit_refs.call(self._name, entry, leaves, self._inline)
        state = core.trace_state()
        if (
            state.dynamic is None
            and not consts
            and not any(isinstance(x, core.Tracer) for x in leaves)
            and (
                (layout := self._layout(entry, leaves, args, kwargs)) is not None
                or not derived(
                    entry.closed, ("own_program",), lambda: holds_own_program(entry.closed)
                )
            )
        ):
            if layout is not None:  # (a shard_map's mesh makes one: one partitioned program)
                return self._call_sharded(entry, leaves, layout, args, kwargs)
            if self._donating:
                return self._call_donating(entry, leaves, args, kwargs)
            device, committed = self._device(leaves, args, kwargs)
            with self._lock:
                if entry.executable is None:  # for the default device (see `_entry`'s key)
                    entry.executable = self._compile(entry, placement.default_device())
                exe = entry.executable
                if exe.device != device:  # arguments committed to another device
                    exe = entry.placed.get(device)
                    if exe is None:
                        exe = entry.placed[device] = self._compile(entry, device)
                elif device == client.runtime().device:
                    self._remember(entry, args, kwargs)  # later calls: the fast path
            buffers = [placement.buffer_on(x, a, device) for x, a in zip(leaves, entry.in_avals)]
            return entry.run(buffers, exe, placement.result_sharding(device, committed))
        in_shardings = unspecified(len(consts) + len(leaves))
        out_shardings = unspecified(len(entry.out_avals))
        if self._in_shardings is not None or self._out_shardings is not None:
            in_shardings, out_shardings = self._param_shardings(entry, args, len(consts), leaves)
        outs = jit_p.bind(
            *consts,
            *leaves,
            name=self._name,
            jaxpr=entry.closed,
            in_shardings=in_shardings,
            out_shardings=out_shardings,
            inline=self._inline,
        )
        return tree_unflatten(entry.out_tree, outs)

    def _param_shardings(
        self, entry: Entry, args: tuple, n_consts: int, leaves: list[Any]
    ) -> tuple[tuple, tuple]:
        # the `jit` equation's shardings: the given NamedShardings, per leaf (JAX's equation
        # holds the given ones only, not the arguments' own); none for closed-over values
        given_in, given_out = self._given(entry, args, len(leaves))
        named = [(s if type(s) is NamedSharding else UNSPECIFIED) for s in given_in or ()]
        in_shardings = unspecified(n_consts) + (tuple(named) or unspecified(len(leaves)))
        named = [(s if type(s) is NamedSharding else UNSPECIFIED) for s in given_out or ()]
        return in_shardings, tuple(named) or unspecified(len(entry.out_avals))

    # ----- sharded calls
    def _layout(self, entry: Entry, leaves: list[Any], args: tuple, kwargs: dict) -> Layout | None:
        """Where this call's values live, or None for a call on one device (nothing given,
        no argument split over a mesh, no sharding constraint in the jaxpr)."""
        constraints = entry.constraints
        if constraints is None:
            constraints = entry.constraints = named_shardings(entry.closed)
        own = tuple([getattr(x, "_sharding", None) for x in leaves])
        if (
            self._in_shardings is None
            and self._out_shardings is None
            and not constraints
            and own.count(None) == len(own)
        ):
            return None
        layout = entry.layouts.get(own)  # (NamedShardings hash and compare by value)
        if layout is None:
            layout = self._make_layout(entry, leaves, args, constraints)
            if len(entry.layouts) < 64:
                entry.layouts[own] = layout
        return layout

    def _make_layout(
        self, entry: Entry, leaves: list[Any], args: tuple, constraints: tuple
    ) -> Layout | None:
        given_in, given_out = self._given(entry, args, len(leaves))
        return make_layout(entry, leaves, given_in, given_out, constraints)

    def _given(self, entry: Entry, args: tuple, n_leaves: int) -> tuple[list | None, list | None]:
        """`in_shardings`/`out_shardings` per dynamic leaf and per output (None: not given)."""
        given_in = None
        if self._in_shardings is not None:
            static = self._spec.static_positions(len(args))
            dynamic = tuple(a for i, a in enumerate(args) if i not in static)
            prefix = self._in_shardings
            prefix = tuple(prefix) if isinstance(prefix, list) else prefix
            given_in = broadcast_prefix(prefix, tree_structure(dynamic), "jit in_shardings")
            given_in += [None] * (n_leaves - len(given_in))  # keyword arguments
        given_out = None
        if self._out_shardings is not None:
            prefix = self._out_shardings
            prefix = tuple(prefix) if isinstance(prefix, list) else prefix
            given_out = broadcast_prefix(prefix, entry.out_tree, "jit out_shardings")
        return given_in, given_out

    def _call_sharded(
        self, entry: Entry, leaves: list[Any], layout: Layout, args: tuple, kwargs: dict
    ) -> Any:
        # one SPMD program per layout, kept in the entry (its arguments' buffers span several
        # devices, so the single-device entries of the fast path never match these calls)
        run = entry.sharded.get(layout.key)
        if run is None:
            with self._lock:
                run = entry.sharded.get(layout.key)
                if run is None:
                    run = entry.sharded[layout.key] = partition(entry, self._name, layout)
                    self._shared.compilations += 1
        out, placed = run.call(leaves, layout)
        if placed and not self._has_static and not self._donating:
            # every argument already split as the program takes it: later calls with these
            # types and shardings take the fast path straight to `run.run`
            self._remember(run, args, kwargs, entry)
        return out

    def _remember(
        self, target: Entry | ShardedRun, args: tuple, kwargs: dict, entry: Entry | None = None
    ) -> None:
        # `target` runs calls with this signature (`entry`'s program, or one partitioned)
        entry = entry or target
        self._home = client.runtime().sharding
        host: list[int] = []
        if self._has_static:  # (the general path hashed the static values)
            found = fast_path.static_key(self, args, kwargs, self._home, [], host)
            key = None if found is None else tuple(found)
        else:
            key = fast_path.signature(args, kwargs, self._home, [], host)
        if key is not None and key not in self._fast and not (host and entry is not target):
            key = tuple(array.interned(k) if type(k) is ShapedArray else k for k in key)
            entry.fast_keys.append(key)
            launch = target.launcher() if type(target) is Entry else target.run
            if host:  # NumPy arrays, scalars: put on the device by the launch
                launch = fast_path.putting(launch, host, target.in_avals)
            self._fast[key] = launch

    def _call_donating(self, entry: Entry, leaves: list[Any], args: tuple, kwargs: dict) -> Any:
        # Donation: inputs an output can reuse are aliased to it in the program, handed over
        # to XLA, and their Arrays deleted. Donating calls always take this path.
        donated = self._donated_leaves(args, kwargs)
        device, committed = self._device(leaves, args, kwargs)
        with self._lock:
            if (donated, device) not in entry.donating:
                aliases = donation_aliases(entry.closed, donated)
                exe, timings = compile_jaxpr(entry.closed, self._name, aliases, device=device)
                entry.timings.update(timings)
                self._shared.compilations += 1
                entry.donating[donated, device] = (exe, [a is not None for a in aliases])
            exe, used = entry.donating[donated, device]
        buffers = donating_call_buffers(leaves, entry.in_avals, used, device)
        out = entry.run(buffers, exe, placement.result_sharding(device, committed))
        for x, u in zip(leaves, used, strict=True):
            if u and type(x) is Array:
                x.delete()
        return out

    def _donated_leaves(self, args: tuple, kwargs: dict) -> tuple[bool, ...]:
        """Which of a call's dynamic leaves are donated (in `_entry`'s order)."""
        spec = self._spec
        static = spec.static_positions(len(args))
        nums = set(api_util.ensure_inbounds(spec.donate_argnums, len(args), allow_invalid=True))
        donated: list[bool] = []
        for i, a in enumerate(args):
            if i not in static:
                donated += [i in nums] * len(tree_flatten(a)[0])
        for name in sorted(k for k in kwargs if k not in spec.static_argnames):
            donated += [name in spec.donate_argnames] * len(tree_flatten(kwargs[name])[0])
        return tuple(donated)

    def _device(self, leaves: list[Any], args: tuple, kwargs: dict) -> tuple[Any, bool]:
        """The device a single-device call runs on: its committed arguments' (then True), or
        the default device (runtime/placement.py)."""

        def names() -> list[str]:  # only for the error: built when two devices disagree
            static = self._spec.static_positions(len(args))
            spec = self._spec
            dynamic = {k: v for k, v in kwargs.items() if k not in spec.static_argnames}
            return api_util.leaf_names(self._fn, args, dynamic, static)

        return placement.call_device(leaves, names, getattr(self._fn, "__qualname__", self._name))

    def _compile(self, entry: Entry, device: Any) -> Executable:
        compile_ = lambda: compile_jaxpr(entry.closed, self._name, device=device)  # noqa: E731
        exe, timings = debugging.log_compile(self._name, entry.in_avals, compile_)
        entry.timings.update(timings)
        self._shared.compilations += 1
        return exe

    # ----- tracing and the cache
    def _entry(self, args: tuple, kwargs: dict) -> tuple[Entry, list[Any], list[Any]]:
        """The cache entry for these arguments (traced on a miss), their dynamic leaves, and
        the values of tracers `fn` closes over (leading operands; the entry is then not
        cached: those tracers belong to the current transformation)."""
        __tracebackhide__ = True
        client.check_backend(self._backend)
        static, static_kw, statics, dynamic, kwargs = self._split(args, kwargs)
        try:
            hash(statics)
        except TypeError as e:
            bad = next(a for a in statics if not _hashable(a))
            raise ValueError(
                f"Non-hashable static arguments are not supported. An error occurred while "
                f"trying to hash an object of type {type(bad)}, {bad!r}. The error was:\n"
                f"TypeError: {e}"
            ) from None
        leaves, in_tree = tree_flatten((dynamic, kwargs))
        self._check_leaves(args, static, kwargs, leaves)
        avals = tuple(core.get_aval(x) for x in leaves)
        # the trace context (x64, ...) is part of the key, as in JAX: the same arguments
        # trace differently under it
        key = (in_tree, avals, statics, config.trace_context)
        with self._lock:
            entry = self._cache.get(key)
            if entry is not None:
                self._cache.move_to_end(key)
                return entry, leaves, []
            if statics and (entry := self._equal_entry(key)) is not None:
                return entry, leaves, []
        if config.jax_explain_cache_misses:
            keys = list(self._cache)
            debugging.explain_miss(self._fn, self._name, keys, key, args, kwargs, static)
        entry, consts = self._trace(args, static, static_kw, in_tree, avals)  # unlocked: slow
        if consts:
            return entry, leaves, consts
        with self._lock:
            if key in self._cache:  # another thread traced the same signature meanwhile
                return self._cache[key], leaves, []
            self._cache[key] = entry
            if len(self._cache) > CACHE_SIZE:
                _, old = self._cache.popitem(last=False)
                self._shared.forget(old.fast_keys)  # (shared: not a donating one's)
        return entry, leaves, []

    def _split(self, args: tuple, kwargs: dict) -> tuple[frozenset[int], dict, tuple, tuple, dict]:
        """A call's static positions and static keyword arguments; the static values, as
        they key an entry (hashed, compared); the other positional and keyword arguments.
        The positions, by the number of arguments, are worked out once (the fast path splits
        every call of a function with static arguments)."""
        found = self._positions.get(len(args))
        if found is None:  # (an out-of-range negative number raises here, every time)
            static = frozenset(self._spec.static_positions(len(args)))
            rest = fast_path.positions(i for i in range(len(args)) if i not in static)
            found = self._positions[len(args)] = (static, fast_path.positions(sorted(static)), rest)
        static, order, rest = found
        static_kw = {}
        if kwargs and self._spec.static_argnames:
            static_kw = {k: v for k, v in kwargs.items() if k in self._spec.static_argnames}
            kwargs = {k: v for k, v in kwargs.items() if k not in static_kw}
        statics = fast_path.pick(args, order)
        if static_kw:
            statics += tuple(sorted(static_kw.items()))
        return static, static_kw, statics, fast_path.pick(args, rest), kwargs

    def _equal_entry(self, key: tuple) -> Entry | None:
        # A static argument mutated after it keyed an entry (a method's `self`) no longer
        # hashes as it did, but still compares equal: JAX 0.10.2 then reuses the entry (its
        # result is stale), so an equal key is looked for too.
        return next((e for k, e in dict.items(self._cache) if k == key), None)

    def _trace(
        self,
        args: tuple,
        static: frozenset[int],
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
        return Entry(closed, in_tree, out_trees[-1], trace_time), consts

    def _check_leaves(
        self, args: tuple, static: frozenset[int], kwargs: dict, leaves: list[Any]
    ) -> None:
        for leaf in leaves:
            if not jit_refs.is_argument(leaf):
                break
        else:
            return
        names = api_util.arg_names(self._fn, len(args))
        for i, a in enumerate(args):
            if i not in static and not all(map(jit_refs.is_argument, tree_flatten(a)[0])):
                where = f"argument '{names[i]}'"
                raise TypeError(_bad_argument(self._name, where, a))
        for k, a in kwargs.items():
            if not all(map(jit_refs.is_argument, tree_flatten(a)[0])):
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
        donated = self._donated_leaves(args, kwargs) if self._donating else ()
        leaves = _dynamic_leaves(self, args, kwargs)
        layout = self._layout(entry, leaves, args, kwargs)
        return Traced(self._name, entry, donated, layout, self._device(leaves, args, kwargs))

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


def _dynamic_leaves(jitted: JitFunction, args: tuple, kwargs: dict) -> list[Any]:
    # the leaves `_entry` traces for, in its order
    static = jitted._spec.static_positions(len(args))
    kwargs = {k: v for k, v in kwargs.items() if k not in jitted._spec.static_argnames}
    dynamic = tuple(a for i, a in enumerate(args) if i not in static)
    return tree_flatten((dynamic, kwargs))[0]


def _hashable(x: Any) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


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
    buffers: list[Any] = []  # waited for in one call, as JAX does (a loop's results: ~10x faster)
    _pending(x, buffers)
    if buffers:
        client.wait(buffers)
    return x


def _pending(tree: Any, buffers: list[Any]) -> None:
    # The device buffers of `tree`'s Arrays, in any order: lists, tuples and dicts walked
    # here (a dict's keys not sorted, as `tree_leaves` sorts them), other nodes by
    # `tree_leaves`; a leaf that is not an Array but can wait (a JAX array) is waited for.
    t = type(tree)
    if t is Array:
        if (b := tree._buffer) is not None:
            buffers.append(b)
        return
    if t is list or t is tuple or t is dict:
        for child in tree.values() if t is dict else tree:
            if type(child) is Array:
                if (b := child._buffer) is not None:
                    buffers.append(b)
            else:
                _pending(child, buffers)
        return
    if tree is None:
        return
    for leaf in tree_leaves(tree):  # another node, or a leaf
        if isinstance(leaf, Array):
            if leaf._buffer is not None:
                buffers.append(leaf._buffer)
        elif hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
