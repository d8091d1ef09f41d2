"""The fast path of a jitted call: from arguments to a cache entry in one pass, then launch.

Layer 4, used by `jit.py`. A cached call of a jitted function should cost little more than
launching its executable (about 3 µs on CPU). The general path (`JitFunction._call`) flattens
the arguments with `tree_flatten`, builds each leaf's aval, hashes a key holding the pytree
structure, the avals and the static arguments, and puts host values on the device: about
5-25 µs in Python. JAX does the same work in C++ (`jaxlib`'s `PjitFunction`).

Here it is done once, on the general path, and remembered under a cheap key: `signature`
walks the arguments once and returns
- a key that determines the argument types exactly as the general key does: for an Array
  its aval, for a NumPy array its shape and dtype, for a Python or NumPy scalar its type (the
  type decides the aval: 1.0 is a weak float32), and for a tuple, list, dict or None a marker
  with its length or keys (the pytree structure);
- the leaves, with Arrays already replaced by their device buffers;
- the positions of the leaves that are host values (put on the device with the entry's avals).
An Array split over a mesh keys by its aval and NamedSharding: the general path remembers a
sharded call (a `stages.ShardedRun`, which launches the partitioned program) only when every
argument was already split as that program takes it, and with no host values.
Anything else (a tracer, a namedtuple or custom pytree node, an Array on another single
device) makes `signature` return None: the call takes the general path, which
is the one place for everything unusual (so are calls under a transformation, and every call
of a function with static arguments, donated arguments or effects). A jitted function's fast
table maps keys to entries; the general path fills it after a call it compiled for, so a key
is only ever found for a signature the general path has checked and traced. The table holds
what to launch and the input types: for a program with one output, the closure
`Executable.launcher` built (launch, wrap the result as an Array); otherwise `Entry.run` or
`ShardedRun.run`. The commonest calls, Arrays on the default device passed positionally,
are keyed in `JitFunction.__call__` itself, without calling `signature`. About 0.9 µs of
Python in all, against JAX's C++ 0.5 µs; launching is about 3.4 µs of each.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from didax.array import Array, ShapedArray
from didax.config import config
from didax.runtime import client
from didax.runtime.sharding import NamedSharding

_SCALARS = (bool, int, float, complex)
_KWARGS = object()  # marks where the keyword arguments start in a key


def signature(
    args: tuple, kwargs: dict[str, Any], home: Any, leaves: list[Any], host: list[int]
) -> tuple | None:
    """The key for these arguments, or None if they need the general path; fills `leaves`
    and `host` (the positions of host values). `home` is the sharding of an Array on the
    default device. The x64 flag leads the key: the same arguments trace differently under it."""
    key: list[Any] = [config.enable_x64]
    for x in args:
        # the common case, written out (an Array on the default device); the rest in `_add`
        if type(x) is Array and (buffer := x._buffer) is not None and buffer._sharding is home:
            key.append(x._aval)
            leaves.append(buffer)
        elif not _add(x, key, leaves, host, home):
            return None
    if kwargs:
        names = sorted(kwargs)  # tree_flatten's order: a dict's keys sorted
        key.append((_KWARGS, *names))
        if not _add_all([kwargs[k] for k in names], key, leaves, host, home):
            return None
    return tuple(key)


def _add_all(
    xs: Iterable[Any], key: list[Any], leaves: list[Any], host: list[int], home: Any
) -> bool:
    for x in xs:  # as in `signature`
        if type(x) is Array and (buffer := x._buffer) is not None and buffer._sharding is home:
            key.append(x._aval)
            leaves.append(buffer)
        elif (t := type(x)) is tuple or t is list:  # (w, b) pairs: no detour through `_add`
            key.append((t, len(x)))
            if not _add_all(x, key, leaves, host, home):
                return False
        elif not _add(x, key, leaves, host, home):
            return False
    return True


def _add(x: Any, key: list[Any], leaves: list[Any], host: list[int], home: Any) -> bool:
    t = type(x)
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
        key.append((t, x.shape, x.dtype))
        host.append(len(leaves))
        leaves.append(x)
    elif t in _SCALARS or issubclass(t, np.generic):
        key.append(t)
        host.append(len(leaves))
        leaves.append(x)
    elif t is tuple or t is list:
        key.append((t, len(x)))
        return _add_all(x, key, leaves, host, home)
    elif t is dict:
        try:
            names = sorted(x)  # tree_flatten's order
        except TypeError:  # unorderable keys: the general path raises
            return False
        key.append((t, *names))
        return _add_all([x[k] for k in names], key, leaves, host, home)
    elif x is None:
        key.append(None)
    else:
        return False
    return True


def put_host_values(leaves: list[Any], host: list[int], avals: Sequence[ShapedArray]) -> None:
    """Replace the host values among `signature`'s leaves by device buffers of type `avals`.
    A NumPy argument's memory is lent to the call, not copied, where the device can read it
    in place (as JAX's jit puts NumPy arguments: `allow_zero_copy` in its C++ dispatch); the
    buffer lives only for the call, and a value of another dtype is a fresh copy anyway."""
    for i in host:
        leaves[i] = client.put(np.asarray(leaves[i], avals[i].dtype), avals[i], alias=True)
