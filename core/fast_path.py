"""The hand-inlined hot paths, side by side: eager closures, the jit key, the launch closure.

Layer 1, after the runtime floor (it reads Arrays, trace state, the x64 flag, device buffers
and executables; nothing above imports into it). Everything here has a plain, general twin
elsewhere, and is written out only because it runs on every eager operation or cached jitted
call, where each Python call or attribute lookup saved is measurable (about 1% of a call):
- `eager_unary`, `eager_binary`: an elementwise primitive on eager Arrays, as NumPy computes
  it, without the eval interpreter (`core.eager_rules`; the twin is the impl rule);
- `jit_call`: `JitFunction.__call__`, the cached call of a jitted function: the key of its
  arguments (`signature`, and for one Array or NumPy argument the same key built inline;
  the twin is `JitFunction._entry`'s key), a lookup in the jitted function's fast table
  (for a pytree, first a comparison with the last hit's key), the launch; any miss takes
  the general path, `JitFunction._call` (`_hooked` while debug_nans/infs or disable_jit is
  on);
- `launcher`: the closure the fast table holds, which launches a compiled program and wraps
  its outputs (the twin is `Entry.run`); several outputs are built into their tree by a
  prebuilt function (`tree_util.builder`); `putting` wraps it for a signature with host
  values, each lent to one `batched_device_put` first.
Every other Array is made by `array.build` (through `array.eager_result` or
`array.from_buffer`); the four closures here build theirs slot by slot, as `build` does, and
no other module does (tests/test_fast_path.py checks).

How the jit key works: `signature` walks the arguments once and returns
- a key that determines the argument types exactly as the general key does: for an Array its
  aval, for a NumPy array its shape and dtype (after the marker `_HOST`), for a Python or
  NumPy scalar its type (the type decides the aval: 1.0 is a weak float32), and for a tuple
  its length, for a list its length inverted (`~n`, below 0), for a dict its keys (an
  interned marker, `_dict_marker`), for None None: the pytree structure, written as the tree
  is walked (only container lengths are ints, so no two structures give one key);
- the leaves, with Arrays already replaced by their device buffers;
- the positions of the leaves that are host values (put on the device with the entry's
  avals by the launch the fast table holds for that key, `putting`).
An Array split over a mesh keys by its aval and NamedSharding: the general path remembers a
sharded call (a `stages.ShardedRun`) only when every argument was already split as that
program takes it, and with no host values. A function with static arguments keys the others
so, then the static values (`static_key`: the call split as the general path splits it,
`JitFunction._split`; Arrays and static values passed by position are keyed in `jit_call`
itself, from the split worked out once per number of arguments). Anything else (a tracer, a
namedtuple or custom pytree node, an Array on another single device) gives None: the general
path, which is the one place for everything unusual (so are calls under a transformation, and
every call of a function with donated arguments or effects, or of a sharded program with
static arguments). The general path fills the fast table after a call it compiled for, so a
key is only found for a signature it checked and traced. JAX does this in C++ (`jaxlib`'s
`PjitFunction`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

import numpy as np
from didax import array, core, dtypes
from didax.array import Array, ShapedArray
from didax.config import config
from didax.runtime import client, transfer_guard
from didax.runtime.executable import Executable
from didax.runtime.sharding import NamedSharding

# --------------------------------------------------------------------------- eager closures

# Eager rules (`core.eager_rules`): the impl rule, minus the interpreter, for the common case
# of well-typed eager Arrays (and Python scalars of the array's default dtype). They decline
# (NotImplemented) whatever needs more: tracers, device-resident values, mixed dtypes,
# broadcasting beyond scalars. Declined calls take `bind`'s ordinary path, which raises the
# errors. Weak types: weak only when every operand is. The NumPy functions of elementwise
# primitives keep their operands' dtype (`np.sin` of float16 is float16), so the result is
# wrapped as it comes (tests/lax/test_eager_shortcuts.py checks every dtype).

_trace_state, _EAGER = core.trace_state, core.EAGER_STATE
_hot = config.hot  # flags read on every call (config.HotFlags)
_new = object.__new__
_FLOATS = frozenset(d for d in dtypes._KINDS if dtypes.kind(d) == 2)
_SCALAR_FITS = {float: dtypes.float32, int: dtypes.int32}


def eager_unary(fn: Callable[..., Any], floats_only: bool) -> Callable[..., Any]:
    """The eager rule of a unary elementwise primitive computed by the NumPy function `fn`."""

    def eager(x: Any) -> Any:
        if type(x) is not Array or _trace_state() is not _EAGER or _hot.eager_hooks:
            return NotImplemented  # (results checked for nan/inf or placed: `bind`'s path)
        v = x._value
        if v is None or (floats_only and v.dtype not in _FLOATS):
            return NotImplemented
        out = _new(Array)  # `array.build`, inlined: a third of an eager scalar op (issue 9)
        out._value = fn(v)
        out._buffer = None
        out._weak = x._weak
        out._aval = None
        return out

    return eager


def eager_binary(fn: Callable[..., Any], floats_only: bool) -> Callable[..., Any]:
    """The eager rule of a binary elementwise primitive computed by the NumPy function `fn`."""

    def eager(x: Any, y: Any) -> Any:
        if _trace_state() is not _EAGER or _hot.eager_hooks:
            return NotImplemented
        tx, ty = type(x), type(y)
        if tx is Array and ty is Array:
            v, w = x._value, y._value
            # same dtype; same rank or a scalar (NumPy then broadcasts as lax does)
            if (
                v is None
                or w is None
                or w.dtype is not v.dtype
                or (w.ndim != v.ndim and w.ndim and v.ndim)
            ):
                return NotImplemented
            dtype, weak = v.dtype, x._weak and y._weak
        elif tx is Array:  # y a Python scalar of x's default dtype: `x * 2.0`
            v, w = x._value, y
            if v is None or _SCALAR_FITS.get(ty) is not v.dtype:
                return NotImplemented
            dtype, weak = v.dtype, x._weak
        elif ty is Array:  # `2.0 * y`
            v, w = x, y._value
            if w is None or _SCALAR_FITS.get(tx) is not w.dtype:
                return NotImplemented
            dtype, weak = w.dtype, y._weak
        else:
            return NotImplemented
        if floats_only and dtype not in _FLOATS:
            return NotImplemented
        try:
            out = fn(v, w)
        except ValueError:  # shapes that do not broadcast: let `bind` raise lax's TypeError
            return NotImplemented
        result = _new(Array)  # `array.build`, inlined
        result._value = out
        result._buffer = None
        result._weak = weak
        result._aval = None
        return result

    return eager


# --------------------------------------------------------------------------- the jit call


class Jitted(Protocol):
    """What `jit_call` reads of a jitted function (`compile/jit.py`'s JitFunction)."""

    _fast: dict[tuple, Callable[[list[Any]], Any]]  # key -> launch
    _last: list[tuple[list, Any]]  # [(the key of the last hit, as a list; its hit)]
    _home: Any  # the first device's sharding, once the backend runs
    _has_static: bool  # static_argnums or static_argnames given
    # by the number of positional arguments: (static positions, where the static values
    # stand, where the others stand: `positions`)
    _positions: dict[int, tuple[frozenset[int], Positions, Positions]]

    def _call(self, args: tuple, kwargs: dict) -> Any:
        """The general path."""

    def _split(self, args: tuple, kwargs: dict) -> tuple[frozenset[int], dict, tuple, tuple, dict]:
        """(static positions, static keyword arguments, static values, the other positional
        arguments, the other keyword arguments), as the general path splits a call."""

    def _hooked(self, args: tuple, kwargs: dict) -> Any:
        """A call while `config.jit_hooks` is set (debug_nans, debug_infs, disable_jit)."""


# Where in a call's arguments its static values, or its other arguments, stand: a slice where
# they are one run (`f(x, n)`, `n` static: `args[1:2]`, a fifth of the time of taking them one
# by one), else their positions.
Positions = slice | tuple[int, ...]


def positions(at: Sequence[int]) -> Positions:
    """`at` (in order) as `pick` takes them: one slice where they are a run."""
    at = tuple(at)
    if at and at == tuple(range(at[0], at[-1] + 1)):
        return slice(at[0], at[-1] + 1)
    return at


def pick(args: tuple, at: Positions) -> tuple:
    """The arguments at `at` (`positions`), in order."""
    return args[at] if type(at) is slice else tuple(map(args.__getitem__, at))


# `Jitted._last` before any hit: a key list is never empty (the trace context leads it)
NO_LAST: tuple[list, Any] = ([], None)


def jit_call(jitted: Jitted, *args: Any, **kwargs: Any) -> Any:
    """A call of a jitted function: its `__call__` (JitFunction's class body binds it). The
    fast path when nothing is being traced and the arguments have a signature the function
    has run before; otherwise `jitted._call`."""
    __tracebackhide__ = True  # engine frame: IPython leaves it out of tracebacks
    if _hot.jit_hooks:  # debug_nans/debug_infs/disable_jit
        return jitted._hooked(args, kwargs)
    fast = jitted._fast
    if fast and _trace_state() is _EAGER:
        home = jitted._home
        leaves: list[Any] | None = None  # the arguments' buffers, once a key is made
        if not kwargs:
            # The commonest calls, written out: Arrays on the default device, passed
            # positionally; `signature`'s key for them, built in this frame. One argument
            # on its own: each Python operation saved is ~1% of the call.
            static = jitted._has_static
            if len(args) == 1 and not static:
                x = args[0]
                if type(x) is Array and (b := x._buffer) is not None and b._sharding is home:
                    if (hit := fast.get((_hot.trace_context, x._aval))) is not None:
                        return hit([b])
                elif type(x) is np.ndarray:  # one NumPy array: its launch puts it (`putting`)
                    if (hit := fast.get((_hot.trace_context, _HOST, x.shape, x.dtype))) is not None:
                        return hit([x])
            # with static values by position: the other arguments, from the split `_split`
            # worked out for this many arguments; then `static_key`'s key, looked up below
            elif not static or (split := jitted._positions.get(len(args))) is not None:
                key = [_hot.trace_context]
                buffers = []
                # (`pick`, inlined: a slice where the positions are one run)
                xs = args
                if static:
                    xs = args[p] if type(p := split[2]) is slice else map(args.__getitem__, p)
                for x in xs:
                    if type(x) is Array and (b := x._buffer) is not None and b._sharding is home:
                        key.append(x._aval)
                        buffers.append(b)
                    else:
                        break
                else:
                    if static:
                        key.append(_STATIC)
                        p = split[1]
                        key.append(args[p] if type(p) is slice else tuple(map(args.__getitem__, p)))
                        leaves = buffers
                    elif (hit := fast.get(tuple(key))) is not None:
                        return hit(buffers)
        if leaves is None:  # any other arguments the fast path takes (pytrees): walked
            leaves = []
            if jitted._has_static:  # the key of the other arguments, then the static values
                key = static_key(jitted, args, kwargs, home, leaves, [])
            else:
                key = _key(args, kwargs, home, leaves, [])
        if key is not None:
            # the key as a list, compared with the last hit's first (a loop calls with one
            # signature: no key to hash, its avals' `__hash__` being Python's, ~0.05 us
            # each), then looked up; one that does not hash or compare (an unhashable static
            # value) is a miss, and the general path raises. The launch is outside the try:
            # an error of the call is its own.
            last = jitted._last[0]
            try:
                if key == last[0]:
                    hit = last[1]
                elif (hit := fast.get(tuple(key))) is not None:
                    jitted._last[0] = (key, hit)
            except Exception:  # noqa: BLE001 - the general path raises
                hit = None
            if hit is not None:
                return hit(leaves)
    return jitted._call(args, kwargs)


_SCALARS = (bool, int, float, complex)
_HOST = np.ndarray  # marks a NumPy array in a key, followed by its shape and dtype
_KWARGS = object()  # marks where the keyword arguments start in a key
_STATIC = object()  # marks where the static values follow, at a key's end


def signature(
    args: tuple, kwargs: dict[str, Any], home: Any, leaves: list[Any], host: list[int]
) -> tuple | None:
    """The key for these arguments, or None if they need the general path; fills `leaves`
    and `host` (the positions of host values). `home` is the sharding of an Array on the
    default device. The trace context (config.trace_context: x64, ...) leads the key: the same
    arguments trace differently under it."""
    key = _key(args, kwargs, home, leaves, host)
    return None if key is None else tuple(key)


def _key(
    args: tuple, kwargs: dict[str, Any], home: Any, leaves: list[Any], host: list[int]
) -> list[Any] | None:
    key: list[Any] = [_hot.trace_context]
    if not _add_all(args, key, leaves, host, home):
        return None
    if kwargs:
        key.append(_KWARGS)
        if not _add_all((kwargs,), key, leaves, host, home):  # keyed as a dict
            return None
    return key


def static_key(
    jitted: Jitted, args: tuple, kwargs: dict, home: Any, leaves: list[Any], host: list[int]
) -> list[Any] | None:
    """`_key` for a function with static arguments: the key of the others, then `_STATIC`
    and the static values (which the lookup hashes and compares, as the general path's key
    does); None where the general path must split the call (it raises)."""
    try:
        _, _, statics, args, kwargs = jitted._split(args, kwargs)
    except Exception:  # an out-of-range static_argnums: the general path raises JAX's error
        return None
    key = _key(args, kwargs, home, leaves, host)
    if key is not None:
        key.append(_STATIC)
        key.append(statics)
    return key


def _add_all(
    xs: Iterable[Any], key: list[Any], leaves: list[Any], host: list[int], home: Any
) -> bool:
    # A pytree's structure is written into the key as it is walked: a tuple as its length, a
    # list as its length inverted (one item, no tuple built), a dict as its interned marker.
    for x in xs:
        # the common case, written out (an Array on the default device); the rest in `_add`
        if type(x) is Array and (buffer := x._buffer) is not None and buffer._sharding is home:
            key.append(x._aval)
            leaves.append(buffer)
        elif (t := type(x)) is tuple:
            key.append(len(x))
            if not _add_all(x, key, leaves, host, home):
                return False
        elif t is list:
            key.append(~len(x))
            if not _add_all(x, key, leaves, host, home):
                return False
        elif t is dict:
            found = _DICT_MARKERS.get(tuple(x)) or _dict_marker(x)
            if found is None:
                return False
            key.append(found[0])
            for name in found[1]:  # its values in key order; an Array at home written out
                v = x[name]
                if (
                    type(v) is Array
                    and (buffer := v._buffer) is not None
                    and buffer._sharding is home
                ):
                    key.append(v._aval)
                    leaves.append(buffer)
                elif not _add_all((v,), key, leaves, host, home):
                    return False
        elif not _add(x, t, key, leaves, host, home):
            return False
    return True


def _add(x: Any, t: type, key: list[Any], leaves: list[Any], host: list[int], home: Any) -> bool:
    if t is Array:  # an eager Array (put on the device now, once) or one on another device
        buffer = client.buffer_of(x)
        if buffer._sharding is not home:
            # split over a mesh: its sharding is part of the key (a sharded entry's layout)
            sharding = getattr(x, "_sharding", None)
            if type(sharding) is not NamedSharding:
                return False
            key.append((x._aval, sharding))
            leaves.append(buffer)
            return True
        key.append(x._aval)
        leaves.append(buffer)
    elif t is np.ndarray:
        key.append(_HOST)  # then its shape and dtype: no tuple made
        key.append(x.shape)
        key.append(x.dtype)
        host.append(len(leaves))
        leaves.append(x)
    elif t in _SCALARS or issubclass(t, np.generic):
        key.append(t)
        host.append(len(leaves))
        leaves.append(x)
    elif x is None:
        key.append(None)
    else:
        return False
    return True


# A dict's marker in a key, `(dict, *its keys sorted)` (tree_flatten's order), with its keys
# sorted, by its keys in insertion order: one object per key set, so building a key sorts
# nothing and a lookup compares the marker by identity. A set of keys that does not sort
# (mixed types) is marked None: the general path raises. Holds one small tuple per key set a
# jitted function was called with, at most _DICT_MARKERS_SIZE (later key sets are sorted on
# every call); module-level because a key set is a value, shared by every jitted function,
# as avals are.
_DICT_MARKERS: dict[tuple, tuple[tuple, tuple] | None] = {}
_DICT_MARKERS_SIZE = 4096


def _dict_marker(x: dict) -> tuple[tuple, tuple] | None:
    keys = tuple(x)
    if keys in _DICT_MARKERS:
        return _DICT_MARKERS[keys]
    try:
        names = tuple(sorted(keys))
        found: tuple[tuple, tuple] | None = ((dict, *names), names)
    except TypeError:  # unorderable keys
        found = None
    if len(_DICT_MARKERS) < _DICT_MARKERS_SIZE:
        _DICT_MARKERS[keys] = found
    return found


def putting(
    launch: Callable[[list[Any]], Any], host: list[int], avals: Sequence[ShapedArray]
) -> Callable[[list[Any]], Any]:
    """`launch` for a signature with host values (NumPy arrays, scalars) at positions `host`
    of its leaves (`signature`'s `host`, fixed by the key): each value is put on the device as
    `avals[i]` first, then the program launched. A NumPy argument's memory is lent to the
    call, not copied, where the device can read it in place (as JAX's jit puts NumPy
    arguments: `allow_zero_copy` in its C++ dispatch); the buffer lives only for the call,
    and a value of another dtype is a fresh copy anyway. jaxlib's `batched_device_put` is
    called directly, bound here: one call into jaxlib per value, as JAX's C++ dispatch makes
    (`client.put`'s checks cost a quarter of the put). A transfer guard is applied first."""
    rt = client.runtime()
    put, sharding, devices, lend = rt.put, rt.sharding, [rt.device], rt.alias
    avals = [avals[i] for i in host]

    def launch_putting(leaves: list[Any]) -> Any:
        for i, aval in zip(host, avals):
            x = leaves[i]
            if _hot.guard_host is not None:  # an implicit host-to-device transfer
                transfer_guard.host_to_device(aval, rt.device)
            if type(x) is not np.ndarray or x.dtype is not aval.dtype:
                x = np.asarray(x, aval.dtype)
            leaves[i] = put(aval, sharding, [x], devices, True, False, lend, enable_x64=True)
        return launch(leaves)

    if host != [0]:
        return launch_putting
    # one host value, the first leaf (a call with one NumPy argument): written out
    (aval,) = avals
    dtype = aval.dtype

    def launch_one(leaves: list[Any]) -> Any:
        x = leaves[0]
        if type(x) is not np.ndarray or x.dtype is not dtype or _hot.guard_host:
            return launch_putting(leaves)
        leaves[0] = put(aval, sharding, [x], devices, True, False, lend, enable_x64=True)
        return launch(leaves)

    return launch_one


# --------------------------------------------------------------------------- the launch


def launcher(
    executable: Executable, build: Callable[[tuple], Any] | None = None
) -> Callable[[list[Any]], Any]:
    """`executable.execute_one` as one closure: what the fast table holds for a program.
    The launch and the wrapping are written out in it, and what they read is bound once.
    With `build` (a prebuilt `tree_unflatten` of the outputs, `tree_util.builder`), every
    output is wrapped and `build` makes the result. A program with host callbacks, or one
    placed on another device, takes `executable.execute`."""
    parts = executable.launch_parts()
    if parts is None:
        if build is None:
            return executable.execute_one
        return lambda buffers: build(
            tuple(map(array.from_buffer, executable.execute(buffers), executable.out_avals))
        )
    execute, handlers = parts
    runtime_error = client.runtime().xla.JaxRuntimeError
    # a result passed back keys by identity
    avals = [array.interned(a) for a in executable.out_avals]
    if build is not None:

        def launch_tree(buffers: list[Any]) -> Any:
            try:
                results = execute(buffers).consume_with_handlers(handlers)
            except runtime_error:  # an argument on another device: as in `execute`
                results = executable.execute(buffers)
            outs = []
            i = 0  # (an index, not a zip of pairs unpacked: a fifth of the loop)
            for buffer in results:
                out = _new(Array)  # `array.build`, inlined
                aval = avals[i]
                out._value = None
                out._buffer = buffer
                out._weak = aval.weak_type
                out._aval = aval
                outs.append(out)
                i += 1
            return build(tuple(outs))

        return launch_tree
    aval = avals[0]
    weak = aval.weak_type

    def launch(buffers: list[Any]) -> Array:
        try:
            (buffer,) = execute(buffers).consume_with_handlers(handlers)
        except runtime_error:  # an argument on another device: as in `execute`
            return executable.execute_one(buffers)
        out = _new(Array)  # `array.build`, inlined (a store each: no tuple built)
        out._value = None
        out._buffer = buffer
        out._weak = weak
        out._aval = aval
        return out

    return launch
