"""What lives where: the default device, committed and un-committed Arrays, `device_put`
to a device, and the live Arrays of the process. Like `jax.default_device`,
`jax.device_put(x, device)` and `jax.live_arrays`.

Layer 1, the runtime floor, after client.py and transfer_guard.py.

**The default device.** As in JAX, an Array is *committed* to a device when it was put there
on purpose (`device_put(x, device)`), or computed from one that was; every other Array is
un-committed, and goes where the default device is when it is made: the
`jax_default_device` option (`with didax.default_device(device):`), the first device when
it is None. A computation runs on its committed operands' device (two different ones raise
JAX's ValueError), else on the default device, moving un-committed operands there. An Array
off the first device carries where it is as its `_sharding`, a `SingleDeviceSharding` whose
`_committed` says which kind it is (array.py reads it: eager operations on an Array
committed to another device run there, through jit's split evaluator, as on one split
over a mesh). The default device is a trace option (config.py), so a jitted function keeps
one program per default device. Two simplifications: jit's fast path keeps only programs
of the first device (calls under another default device take the general path), and an
Array committed to the *first* device is computed on eagerly as before, on the host, its
results un-committed.

**Live arrays.** JAX asks its PJRT client for the buffers it has not freed, every JAX Array
being one. A didax Array is not always a device buffer: an eager result keeps its NumPy
value (array.py), so jaxlib's list misses most of them, and mapping a buffer back to its
Array would need a registry anyway. A registry (a WeakSet every Array joins) costs each
Array made an insertion: ~0.1 µs of a ~4 µs cached jitted call, on the hand-inlined paths
of fast_path.py too. Instead the Arrays are found where Python keeps them: an Array holds
references (`__slots__`), so the garbage collector tracks every one, and `gc.get_objects()`
lists them. Making an Array costs nothing more; `live_arrays` costs one walk of the tracked
objects (a few ms in a notebook), fine for a debugging query.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import array, core
from didax.array import Array
from didax.config import config
from didax.runtime import client, transfer_guard
from didax.runtime.client import SingleDeviceSharding

# ----------------------------------------------------------------------------- the default device


def default_device() -> Any:
    """The device un-committed values go to now: the `jax_default_device` option's, or the
    first device.

    Raises:
      RuntimeError: the option names a platform didax does not have ("gpu"), as JAX's.
    """
    value = config.default_device
    if value is None:
        return client.runtime().device
    if isinstance(value, str):
        client.check_backend(value)
        return client.runtime().device
    return value


@functools.cache  # two per device of the one client: bounded by the device count
def placed(device: Any, committed: bool) -> SingleDeviceSharding:
    """The sharding an Array on `device` carries, committed there or not."""
    return SingleDeviceSharding(device, _committed=committed)


def eager_sharding() -> SingleDeviceSharding | None:
    """What an un-committed Array made now carries: None on the first device (nothing to
    say), else where the default device is (`array.Runtime.eager_sharding`)."""
    device = default_device()
    return None if device == client.runtime().device else placed(device, False)


def committed_device(x: Any) -> Any:
    """The device `x` is committed to, or None (un-committed, a host value, or an Array
    split over several devices)."""
    sharding = getattr(x, "_sharding", None)
    if type(sharding) is SingleDeviceSharding and sharding._committed:
        return sharding.device
    return None


def array_device(x: Array) -> Any:
    """The one device holding `x`, an Array not split over several."""
    sharding = getattr(x, "_sharding", None)
    if sharding is not None:
        return next(iter(sharding.device_set))
    buf = x._buffer
    return buf._sharding._devices[0] if buf is not None else client.runtime().device


def array_devices(x: Array) -> set[Any]:
    """The devices holding `x` (an eager value counts as on the first device, or on the
    default device it was made under)."""
    sharding = getattr(x, "_sharding", None)
    if sharding is not None:
        return set(sharding.device_set)
    buf = x._buffer
    return set(buf._sharding._devices) if buf is not None else {client.runtime().device}


def array_sharding(x: Array) -> Any:
    """Where `x` lives, for `Array.sharding`: its own, or its buffer's device's."""
    sharding = getattr(x, "_sharding", None)
    if sharding is not None:
        return sharding
    buf = x._buffer
    if buf is None or buf._sharding is client.runtime().sharding:
        return client.default_sharding()
    return placed(buf._sharding._devices[0], False)


def call_device(
    leaves: Sequence[Any], names: Callable[[], Sequence[str]], what: str
) -> tuple[Any, bool]:
    """The device a single-device program called on `leaves` runs on, and whether it is
    committed there: its committed arguments' device, else the default device.

    Raises:
      ValueError: arguments committed to different devices (`names()[i]` names leaf i in
        the message, `what` the computation), as JAX's.
    """
    found = None
    for i, x in enumerate(leaves):
        device = committed_device(x)
        if device is None:
            continue
        if found is None:
            found = (i, device)
        elif device != found[1]:
            j, other = found
            names = names()
            raise ValueError(
                "Received incompatible devices for jitted computation. Got argument "
                f"{names[j]} of {what} with shape {_short(leaves[j])} and with device ids "
                f"[{other.id}] on platform {other.platform.upper()} and argument {names[i]} "
                f"of {what} with shape {_short(x)} and with device ids [{device.id}] on "
                f"platform {device.platform.upper()}"
            )
    if found is not None:
        return found[1], True
    return default_device(), False


_HOST_VALUES = (np.ndarray, np.generic, int, float, complex)


def _guard_eager_operands(operands: Sequence[Any]) -> None:
    """Guard the host operands of an eager operation (`core.set_host_operand_guard`), each an
    implicit transfer to where the operation runs: its committed Arrays' device, else the
    default device."""
    hosts = [x for x in operands if isinstance(x, _HOST_VALUES)]
    if hosts:
        devices = [d for d in map(committed_device, operands) if d is not None]
        device = devices[0] if devices else default_device()
        for x in hosts:
            transfer_guard.host_to_device(core.get_aval(x), device)


core.set_host_operand_guard(_guard_eager_operands)


def _short(x: Any) -> str:  # float32[3], as JAX's message spells a shape
    aval = core.get_aval(x)
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def result_sharding(device: Any, committed: bool) -> SingleDeviceSharding | None:
    """What the results of a program run on `device` carry: that device, committed, when its
    arguments were, as JAX's; else None (un-committed, or on the first device: they stay as
    they are, above)."""
    return placed(device, True) if committed and device != client.runtime().device else None


def buffer_on(x: Any, aval: core.ShapedArray, device: Any) -> Any:
    """A buffer of argument `x` (an Array or a host value) of type `aval` on `device`, for a
    program that runs there: an un-committed Array on another device is copied (JAX's
    guards let this move through), a host value put (an implicit host-to-device transfer)."""
    if type(x) is Array:
        if array_device(x) == device:
            return client.buffer_of(x)
        return client.put(np.asarray(x._host(), aval.dtype), aval, device=device)
    transfer_guard.host_to_device(aval, device)
    return client.put(np.asarray(core.to_numpy(x), aval.dtype), aval, device=device)


def device_put(x: Any, device: Any = None) -> Array:
    """`x` as an Array on `device`, committed there; with None, an Array stays as it is and a
    host value goes to the default device, un-committed. Like `jax.device_put` with a device
    or None. An explicit transfer, for the transfer guards.

    Raises:
      ValueError: `device` is not one of `devices()` (or None), as JAX's.
    """
    if isinstance(x, core.Tracer):
        return x
    rt = client.runtime()
    if device is not None and device not in rt.devices:
        raise ValueError(
            f"device_put: {device!r} is not a device of this client; choose None or one of "
            f"didax.devices() = {list(rt.devices)}"
        )
    if device is None and type(x) is Array:
        client.buffer_of(x)
        return x
    if type(x) is Array:  # (a new Array even on its own device, as JAX's)
        if array_device(x) != device:
            transfer_guard.device_to_device(x.aval, device, explicit=True)
    target = default_device() if device is None else device
    value = np.array(core.to_numpy(x))  # a copy: the Array keeps it as its host value
    # (interned, as `client.buffer_of` interns it: jit's fast table compares it by identity)
    aval = array.interned(core.get_aval(x).update(shape=value.shape, dtype=value.dtype))
    if type(x) is not Array:
        transfer_guard.host_to_device(aval, target, explicit=True)
    sharding = (
        None if device is None and target == rt.device else placed(target, device is not None)
    )
    buffer = client.put(value, aval, alias=True, device=target)
    if sharding is not None and sharding._committed and target != rt.device:
        return array.from_buffer(buffer, aval, sharding)  # eager operations run on its device
    # (a 0-d value kept as a NumPy scalar, as `Array` keeps it)
    return array.build(value if value.ndim else value[()], buffer, aval.weak_type, aval, sharding)


# ----------------------------------------------------------------------------- live arrays


def live_arrays(platform: str | None = None) -> list[Array]:
    """The Arrays not yet deleted nor garbage-collected (eager results and device buffers
    alike). Like `jax.live_arrays`: `platform` None or "cpu".

    Raises:
      RuntimeError: `platform` names a backend didax does not have (as JAX's).
    """
    client.check_backend(platform)
    return [x for x in gc.get_objects() if type(x) is Array and not x.is_deleted()]
