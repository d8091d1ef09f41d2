"""Transfer guards: what a transfer between the host and a device, or between two devices,
does while `didax.transfer_guard(level)` (or one direction's guard) is set. Like JAX's
`transfer_guard`, `transfer_guard_host_to_device`, `..._device_to_device`,
`..._device_to_host`.

Layer 1, the runtime floor, after client.py. The levels (config.py holds them) are JAX's:
"allow" lets everything through; "log" logs implicit transfers, "disallow" refuses them;
"log_explicit" and "disallow_explicit" do the same to explicit ones too. Explicit transfers
are `device_put`'s (host-to-device, or device-to-device to another device); implicit ones a
host value (a NumPy array, a Python or NumPy scalar) passed to a jitted function or to
`didax.numpy.asarray`/`array`. A refused transfer raises jaxlib's JaxRuntimeError with JAX's
text, `INVALID_ARGUMENT: Disallowed host-to-device transfer: aval=..., dst_sharding=...`; a
logged one is a WARNING of the `didax` logger (JAX's goes to C++'s log).

What JAX 0.10.2 on the CPU lets through, so does didax: moving an un-committed Array to the
device a program runs on (no guard sees it), and every device-to-host read (a CPU buffer is
read in place, with no copy: `np.asarray(x)`, `float(x)` and `device_get` pass under
"disallow_explicit"); the device-to-host option is accepted and has no effect. The host
operands of eager operations (`x + 1.0`, `x + np.ones(3)`, `jnp.sin(np.ones(3))`, an index
array), which JAX puts on the device and didax computes with on the host, are guarded as
JAX's (placement.py, through `core.set_host_operand_guard`), and eager operations then skip
their shortcuts. Where didax's operation has no host operand, nothing is guarded, unlike
JAX: `jnp.ones(3)` (JAX transfers its fill value) and a static index `x[0]` (JAX transfers
the index).

Each caller reads its direction's level first (`config.guard_host_to_device`, one attribute,
None while "allow"), so an unguarded transfer pays one read.
"""

from __future__ import annotations

from typing import Any

from didax.config import config, log_warning
from didax.runtime import client

_EXPLICIT_LEVELS = ("log_explicit", "disallow_explicit")


def check(level: str, direction: str, explicit: bool, aval: Any, device: Any) -> None:
    """Apply guard `level` (not None) to a transfer in `direction` ("host-to-device") of a
    value of type `aval` to `device`: log it, or raise JaxRuntimeError, or nothing."""
    if explicit and level not in _EXPLICIT_LEVELS:
        return
    text = f"aval={aval!r}, dst_sharding={client.SingleDeviceSharding(device)!r}"
    if level.startswith("disallow"):
        raise client.runtime().xla.JaxRuntimeError(
            f"INVALID_ARGUMENT: Disallowed {direction} transfer: {text}"
        )
    log_warning(f"{direction} transfer: {text}")


def host_to_device(aval: Any, device: Any, explicit: bool = False) -> None:
    """Guard a host value of type `aval` going to `device` (the caller may read
    `config.guard_host_to_device` first, to skip the call)."""
    level = config.guard_host_to_device
    if level is not None:
        check(level, "host-to-device", explicit, aval, device)


def device_to_device(aval: Any, device: Any, explicit: bool = False) -> None:
    """Guard a device value of type `aval` copied to another device, `device`."""
    level = config.guard_device_to_device
    if level is not None:
        check(level, "device-to-device", explicit, aval, device)
