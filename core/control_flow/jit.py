"""`jit`: compile a function with XLA. The higher-order primitive `jit_p` and its rules.

Layer 4 (autodidax part 3, "Adding jit"; seed 003, jit as the `xla_call` primitive).
`jit(f)(x)` stages `f` at its arguments' types (omnistaging), lowers the jaxpr to StableHLO
(`interpreters/lowering.py`), compiles and runs it (`backend.py`); results stay on the device
until read. Each jitted function owns a bounded executable cache keyed on argument types,
static arguments and pytree structure: a new shape compiles again, a new value never does.
Under an outer transformation `jit` binds `jit_p[name, jaxpr]`, one equation whose rules
transform the inner jaxpr (`jvp_jaxpr`, `vmap_jaxpr`, partial evaluation, transposition)
into a new `jit` equation. AOT: `jit(f).lower(x)` -> `Lowered` (StableHLO) -> `.compile()`
-> `Compiled` (optimized HLO, cost analysis), with each phase's time in `.timings`.
"""

from __future__ import annotations

import collections
import functools
import inspect
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import array, backend, core, dtypes, pretty
from didax.array import Array
from didax.control_flow import argnums
from didax.core import Zero
from didax.interpreters import lowering, partial_eval, staging, transpose
from didax.interpreters.jvp import jvp_jaxpr
from didax.interpreters.vmap import batched_out_dims, vmap_jaxpr
from didax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, eval_jaxpr, has_effects
from didax.tree_util import PyTreeDef, tree_flatten, tree_map, tree_unflatten

CACHE_SIZE = 64  # executables kept per jitted function (least recently used dropped first)

jit_p = core.Primitive("jit", multiple_results=True)

# ----------------------------------------------------------------------------- per-jaxpr caches

# What the rules derive from a `jit` equation's jaxpr (its executable, its jvp and vmap
# jaxprs), kept exactly as long as the jaxpr: transforming or evaluating the same equation
# again (a jitted function called under jvp in a loop) reuses them instead of recompiling.
#
# Where caches live (STYLE.md §4): a `jit` object owns its executable cache (keyed on argument
# types, `CACHE_SIZE` entries). This table is the one module-level cache, and it is not a
# global keyed by object ids: it is a WeakKeyDictionary keyed by the jaxpr objects themselves,
# so an entry is state *of that jaxpr* and dies with it. It must sit here, not on a `jit`
# object, because the same jaxpr reaches the rules from many places (a staged `jit` equation,
# its jvp, its transpose) that share no jit object; and not on `ClosedJaxpr` (layer 1),
# which would then hold executables of layer 4.
_derived: weakref.WeakKeyDictionary[ClosedJaxpr, dict] = weakref.WeakKeyDictionary()
_derived_lock = threading.Lock()  # guards the table, not `make()` (which may nest `derived`)


def derived(jaxpr: ClosedJaxpr, key: Any, make: Callable[[], Any]) -> Any:
    """`make()`, computed once per (jaxpr, key) while `jaxpr` is alive. Rules of `jit_p`
    (and of other higher-order primitives) use it to cache what they derive from a jaxpr.
    Threads racing on a miss may each compute it; the first result stored is kept."""
    with _derived_lock:
        table = _derived.get(jaxpr)
        if table is None:
            table = _derived[jaxpr] = {}
        if key in table:
            return table[key]
    value = make()
    with _derived_lock:
        return table.setdefault(key, value)


def executable(jaxpr: ClosedJaxpr, name: str) -> backend.Executable:
    """The compiled program of `jaxpr` (compiled on first use, then cached with it)."""
    return derived(jaxpr, ("executable",), lambda: _compile(jaxpr, name)[0])


def _compile(jaxpr: ClosedJaxpr, name: str) -> tuple[backend.Executable, dict[str, float]]:
    t0 = time.perf_counter()
    builder = lowering.lower_jaxpr_to_module(jaxpr, name)
    t1 = time.perf_counter()
    exe = backend.compile_module(builder.module, jaxpr.in_avals, jaxpr.out_avals)
    return exe, {"lower": t1 - t0, "compile": time.perf_counter() - t1}


# ----------------------------------------------------------------------------- jit_p rules


def _jit_impl(*args: Any, name: str, jaxpr: ClosedJaxpr, inline: bool = False) -> list:
    # a program that prints (debug_print) runs equation by equation: no host callbacks
    if inline or derived(
        jaxpr, ("effects",), lambda: has_effects(jaxpr)
    ):  # part of its caller's program: evaluated the way the caller is, eagerly
        with core.new_base_main():
            outs = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)
        return [core.to_numpy(x) for x in outs]
    exe = executable(jaxpr, name)
    buffers = [backend.put(np.asarray(x, a.dtype), a) for x, a in zip(args, jaxpr.in_avals)]
    outs = exe.execute(buffers)
    return [backend.buffer_to_numpy(b, a) for b, a in zip(outs, jaxpr.out_avals)]  # NumPy out


core.impl_rules.register(jit_p, _jit_impl)


@core.abstract_eval_rules.register(jit_p)
def _jit_abstract_eval(*avals, name, jaxpr, inline=False):
    expected = jaxpr.in_avals
    if len(avals) != len(expected) or not all(map(core.types_match, avals, expected)):
        raise TypeError(
            f"jit[name={name}]: called with arguments of types "
            f"({', '.join(a.str_short() for a in avals)}) but its jaxpr takes "
            f"({', '.join(a.str_short() for a in expected)})"
        )
    return list(jaxpr.out_avals)


@core.jvp_rules.register(jit_p)
def _jit_jvp(primals, tangents, *, name, jaxpr, inline=False):
    nonzeros = tuple(not isinstance(t, Zero) for t in tangents)
    jvp_closed, nonzeros_out = derived(
        jaxpr, ("jvp", nonzeros), lambda: jvp_jaxpr(jaxpr, nonzeros, instantiate=False)
    )
    outs = jit_p.bind(
        *primals,
        *(t for t in tangents if not isinstance(t, Zero)),
        name=name,
        jaxpr=jvp_closed,
        inline=inline,
    )
    n = len(jaxpr.out_avals)
    nonzero_tangents = iter(outs[n:])
    tangents_out = [
        next(nonzero_tangents) if nz else Zero(a)
        for nz, a in zip(nonzeros_out, jaxpr.out_avals, strict=True)
    ]
    return outs[:n], tangents_out


@core.vmap_rules.register(jit_p)
def _jit_vmap(axis_size, vals, dims, *, name, jaxpr, inline=False):
    # batched outputs come back along axis 0; unbatched ones stay unbatched (as in JAX, so
    # that `jacfwd` of a jitted function keeps its primal output unbatched)
    def batch() -> tuple[ClosedJaxpr, list]:
        found = batched_out_dims(jaxpr, axis_size, dims)
        out_dims = [None if d is None or d is core.NOT_MAPPED else 0 for d in found]
        return vmap_jaxpr(jaxpr, axis_size, dims, out_dims), out_dims

    batched, out_dims = derived(jaxpr, ("vmap", axis_size, tuple(dims)), batch)
    outs = jit_p.bind(*vals, name=name, jaxpr=batched, inline=inline)
    return outs, [core.NOT_MAPPED if d is None else d for d in out_dims]


# A nested jit is a private function of the module, called where the equation was; an inline
# one (`jit(f, inline=True)`, as didax.numpy's helpers are) is lowered in place, as in JAX.
@core.lowering_rules.register(jit_p)
def _jit_lowering(ctx, *args, name, jaxpr, inline=False):
    if inline:
        return ctx.lower_jaxpr(jaxpr, args)
    return ctx.module.call_function(name, jaxpr, args)


@pretty.pp_params_rules.register(jit_p)
def _jit_pp(params):  # JAX prints the name, then the jaxpr; nothing else (not `inline`)
    return [("name", params["name"]), ("jaxpr", params["jaxpr"])]


# Reverse mode: the known part of a jit runs as one jit (outputs, then residuals), the unknown
# part is staged as another; transposing a jit is a jit of the transposed jaxpr. So grad of a
# jitted function keeps one compiled call forward and one backward, as in JAX.
@partial_eval.partial_eval_jaxpr_rules.register(jit_p)
def _jit_partial_eval(unks_in, eqn):
    name, jaxpr = eqn.params["name"], eqn.params["jaxpr"]
    inline = eqn.params.get("inline", False)
    known, unknown, unks_out, forwarded = derived(
        jaxpr, ("partial_eval", tuple(unks_in)), lambda: _split(jaxpr, unks_in)
    )
    ins_known = [x for x, unk in zip(eqn.invars, unks_in, strict=True) if not unk]
    ins_unknown = [x for x, unk in zip(eqn.invars, unks_in, strict=True) if unk]
    n_computed = sum(f is None for f in forwarded)  # residuals the known jit returns, last
    new_res = iter([Var(a) for a in known.out_avals[len(known.out_avals) - n_computed :]])
    # a residual that is one of the known inputs is passed on directly, not returned
    residuals = [ins_known[f] if f is not None else next(new_res) for f in forwarded]
    computed = [r for r, f in zip(residuals, forwarded, strict=True) if f is None]
    outs_known = [v for v, unk in zip(eqn.outvars, unks_out, strict=True) if not unk]
    outs_unknown = [v for v, unk in zip(eqn.outvars, unks_out, strict=True) if unk]
    eqn_known = eqn_unknown = None
    if outs_known or computed:
        eqn_known = JaxprEqn(
            jit_p,
            ins_known,
            [*outs_known, *computed],
            {"name": name, "jaxpr": known, "inline": inline},
        )
    if outs_unknown:
        eqn_unknown = JaxprEqn(
            jit_p,
            [*residuals, *ins_unknown],
            outs_unknown,
            {"name": name, "jaxpr": unknown, "inline": inline},
        )
    return eqn_known, eqn_unknown, unks_out


def _split(
    jaxpr: ClosedJaxpr, unks_in: Sequence[bool]
) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], list[int | None]]:
    """`partial_eval_jaxpr`, with residuals that are just known inputs taken out of the known
    jaxpr's outputs (as JAX forwards them): for each residual, the index of the known input
    it is, or None when the known jaxpr computes it."""
    known, unknown, unks_out, num_res = partial_eval.partial_eval_jaxpr(jaxpr, unks_in)
    k = known.jaxpr
    n_out = len(k.outvars) - num_res
    forwarded = [
        k.invars.index(v) if isinstance(v, Var) and v in k.invars else None
        for v in k.outvars[n_out:]
    ]
    if any(f is not None for f in forwarded):
        outvars = k.outvars[:n_out] + [
            v for v, f in zip(k.outvars[n_out:], forwarded, strict=True) if f is None
        ]
        known = ClosedJaxpr(Jaxpr(k.constvars, k.invars, outvars, k.eqns), known.consts)
    return known, unknown, unks_out, forwarded


@core.transpose_rules.register(jit_p)
def _jit_transpose(cts, *args, name, jaxpr, inline=False):
    linear = tuple(isinstance(x, core.UndefinedPrimal) for x in args)
    ct_nonzero = tuple(not isinstance(ct, Zero) for ct in cts)
    transposed = derived(
        jaxpr,
        ("transpose", linear, ct_nonzero),
        lambda: transpose.transpose_jaxpr(jaxpr, linear, ct_nonzero),
    )
    residuals = [x for x, lin in zip(args, linear, strict=True) if not lin]
    outs = iter(
        jit_p.bind(
            *residuals,
            *(ct for ct in cts if not isinstance(ct, Zero)),
            name=name,
            jaxpr=transposed,
            inline=inline,
        )
    )
    return [next(outs) if lin else None for lin in linear]


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


class _Entry:
    """One cache entry of a jitted function: its jaxpr at one signature, compiled lazily."""

    __slots__ = ("closed", "out_tree", "single", "wrap", "executable", "timings", "fast_keys")

    def __init__(self, closed: ClosedJaxpr, out_tree: PyTreeDef, trace_time: float) -> None:
        self.closed = closed
        self.out_tree = out_tree
        self.single = out_tree.node is None  # one array out: skip tree_unflatten
        bfloat16 = any(a.dtype == dtypes.bfloat16 for a in closed.out_avals)
        self.wrap = _host_output if bfloat16 else array.from_buffer
        self.executable: backend.Executable | None = None
        self.timings = {"trace": trace_time}
        self.fast_keys: list[tuple] = []  # its keys in the jitted function's fast table

    def run_args(self, args: Sequence[Any]) -> Any:
        # the fast path's arguments: Arrays, NumPy arrays and Python scalars
        buffers = [
            backend.buffer_of(x) if type(x) is Array else backend.put(np.asarray(x, a.dtype), a)
            for x, a in zip(args, self.closed.jaxpr.in_avals)
        ]
        return self.run(buffers)

    def run(self, buffers: list[Any]) -> Any:
        outs = self.executable.execute(buffers)
        if self.single:
            return self.wrap(outs[0], self.closed.jaxpr.outvars[0].aval)
        avals, wrap = self.closed.out_avals, self.wrap
        return tree_unflatten(self.out_tree, [wrap(b, a) for b, a in zip(outs, avals, strict=True)])


def _host_output(buffer: Any, aval: core.ShapedArray) -> Array:
    # bfloat16 buffers cannot be read lazily through the buffer protocol (`backend.buffer_to_numpy`)
    return array.eager_result(backend.buffer_to_numpy(buffer, aval), aval.weak_type)


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
        self._cache: collections.OrderedDict[tuple, _Entry] = collections.OrderedDict()
        self._fast: dict[tuple, _Entry] = {}  # positional calls, keyed by `_fast_key`
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

    def _compile(self, entry: _Entry) -> None:
        entry.executable, timings = _compile(entry.closed, self._name)
        entry.timings.update(timings)
        self.compilations += 1

    # ----- tracing and the cache
    def _entry(self, args: tuple, kwargs: dict) -> tuple[_Entry, list[Any], list[Any]]:
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
        # x64 is part of the key, as in JAX: the same arguments trace differently under it
        key = (in_tree, avals, statics, dtypes.x64_enabled())
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

    def _equal_entry(self, key: tuple) -> _Entry | None:
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
    ) -> tuple[_Entry, list[Any]]:
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
        return _Entry(closed, out_trees[-1], trace_time), consts

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
        return Traced(self, entry)

    def eval_shape(self, *args: Any, **kwargs: Any) -> Any:
        """The output's shapes and dtypes as a pytree of `ShapeDtypeStruct`s, without
        compiling. Like `jax.jit(f).eval_shape`."""
        __tracebackhide__ = True
        entry, _, _ = self._entry(args, kwargs)
        return _out_info(entry)

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """Trace and lower for these arguments, without compiling. Like `jax.jit(f).lower`."""
        __tracebackhide__ = True
        return self.trace(*args, **kwargs).lower()

    def _lower(self, entry: _Entry) -> Lowered:
        t0 = time.perf_counter()
        builder = lowering.lower_jaxpr_to_module(entry.closed, self._name)
        timings = {"trace": entry.timings["trace"], "lower": time.perf_counter() - t0}
        return Lowered(self._name, entry, builder, timings)


_SCALARS = (bool, int, float, complex)


def _fast_key(args: tuple) -> tuple | None:
    """A cheap cache key for positional Arrays, NumPy arrays and scalars (None for anything
    else): it determines the argument types as the full key does (x64 included)."""
    key: list[Any] = [dtypes.x64_enabled()]
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


# ----------------------------------------------------------------------------- AOT


def _out_info(entry: _Entry) -> Any:
    leaves = [array.ShapeDtypeStruct.from_aval(a) for a in entry.closed.out_avals]
    return tree_unflatten(entry.out_tree, leaves)


class Traced:
    """A jitted function traced for one signature. Like `jax.stages.Traced`."""

    def __init__(self, fn: JitFunction, entry: _Entry) -> None:
        self._fn = fn
        self._entry = entry
        self.fun_name = fn._name
        self.jaxpr = entry.closed
        self.in_avals = entry.closed.in_avals
        self.out_avals = entry.closed.out_avals
        self.out_tree = entry.out_tree

    @property
    def out_info(self) -> Any:
        return _out_info(self._entry)

    def lower(self) -> Lowered:
        """Lower to StableHLO. Like `jax.stages.Traced.lower`."""
        return self._fn._lower(self._entry)


class Lowered:
    """A jitted function lowered for one signature. Like `jax.stages.Lowered`."""

    def __init__(
        self, name: str, entry: _Entry, builder: lowering.ModuleBuilder, timings: dict[str, float]
    ) -> None:
        self.name = name
        self._entry = entry
        self._builder = builder
        self.timings = dict(timings)  # seconds: 'trace', 'lower'
        self.jaxpr = entry.closed
        self.in_avals = entry.closed.in_avals
        self.out_avals = entry.closed.out_avals

    def as_text(self, debug_info: bool = False) -> str:
        """The StableHLO module, as text; `debug_info` adds each op's location (op name and
        the user's file:line). Like `jax.stages.Lowered.as_text`."""
        return lowering.module_text(self._builder, debug_info)

    def compile(self) -> Compiled:
        """Compile with XLA. Like `jax.stages.Lowered.compile`."""
        t0 = time.perf_counter()
        exe = backend.compile_module(self._builder.module, self.in_avals, self.out_avals)
        timings = {**self.timings, "compile": time.perf_counter() - t0}
        if self._entry.executable is None:  # the jitted function's next call reuses it
            self._entry.executable = exe
        return Compiled(self.name, self._entry, exe, timings)


class Compiled:
    """A jitted function compiled for one signature: call it, or read XLA's program and its
    cost. Like `jax.stages.Compiled`."""

    def __init__(
        self, name: str, entry: _Entry, exe: backend.Executable, timings: dict[str, float]
    ) -> None:
        self.name = name
        self._entry = entry
        self._exe = exe
        self.timings = timings  # seconds: 'trace', 'lower', 'compile'
        self.in_avals = entry.closed.in_avals
        self.out_avals = entry.closed.out_avals

    def as_text(self) -> str:
        """XLA's optimized HLO."""
        return self._exe.as_text()

    def cost_analysis(self) -> dict[str, float]:
        """XLA's estimate: 'flops', 'transcendentals', 'bytes accessed' (and per-operand
        keys)."""
        return self._exe.cost_analysis()

    def __call__(self, *args: Any) -> Any:
        leaves, _ = tree_flatten(args)
        for x, aval in zip(leaves, self.in_avals, strict=True):
            if not core.types_match(core.get_aval(x), aval):
                raise TypeError(
                    f"Compiled {self.name} was compiled for arguments of types "
                    f"({', '.join(a.str_short() for a in self.in_avals)}), got "
                    f"{core.get_aval(x).str_short()}"
                )
        buffers = [backend.host_buffer(x, a) for x, a in zip(leaves, self.in_avals)]
        outs = self._exe.execute(buffers)
        wrap = self._entry.wrap
        return tree_unflatten(
            self._entry.out_tree, [wrap(b, a) for b, a in zip(outs, self.out_avals, strict=True)]
        )


# ----------------------------------------------------------------------------- utilities


def block_until_ready(x: Any) -> Any:
    """Wait until every array in the pytree `x` is computed; returns `x`. Like
    `jax.block_until_ready`."""
    tree_map(
        lambda leaf: leaf.block_until_ready() if hasattr(leaf, "block_until_ready") else leaf, x
    )
    return x
