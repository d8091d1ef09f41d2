"""The PJRT CPU client: jaxlib loaded once, devices, device buffers, and the MLIR context.
(A plugin's client in its place, on paper: plugins.py.)

Layer 1, the runtime floor (`didax.runtime`: client, distributed, executable, sharding),
after array.py and core.py. With executable.py, the only modules that touch jaxlib's private
API, pinned to the tested version (`JAXLIB_VERSION`): a jaxlib upgrade touches this floor
only. Nothing here is imported from jaxlib when `didax` is imported (jaxlib's client and MLIR
bindings take about 200 ms to load); the first compile, `device_put` or `devices()` loads
jaxlib and makes the client, once (`runtime()`).

This is JAX's `xla_bridge.py` (clients) and `pxla.py` (device put) reduced to CPU devices:
the client has one device, or N when asked before it starts
(`XLA_FLAGS=--xla_force_host_platform_device_count=N`, which jaxlib's client reads itself, or
`config.update("jax_num_cpu_devices", N)`), or the devices of every process once
`didax.distributed.initialize` filled `global_state`. `device_put` may place an Array on any
device, and `put_sharded` splits one over several (a multi-device buffer described by an HLO
sharding). Compiling and running programs is executable.py's.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from didax import array, core, dtypes, interrupts
from didax.array import Array
from didax.config import config
from didax.runtime import host_memory, plugins

JAXLIB_VERSION = plugins.JAXLIB_VERSION  # tested; its private API changes between minors


@dataclass
class DistributedState:
    """This process's distributed runtime (nothing while not initialized): what the client is
    made from. `didax.distributed.initialize` fills it before the client starts."""

    service: Any = None  # process 0's coordination service
    client: Any = None
    process_id: int = 0
    num_processes: int = 1
    coordinator_address: str | None = None
    shutdown_timeout: int = 0  # seconds, as given to `initialize`

    def connected(
        self,
        service: Any,
        client: Any,
        process_id: int,
        num_processes: int,
        address: str | None,
        shutdown_timeout: int,
    ) -> None:
        """Record a connected client (and process 0's service): `initialize` calls it."""
        self.service, self.client = service, client
        self.process_id, self.num_processes = process_id, num_processes
        self.coordinator_address, self.shutdown_timeout = address, shutdown_timeout

    def disconnected(self) -> None:
        """Forget the client and service (`shutdown` calls it, then stops them)."""
        self.connected(None, None, 0, 1, None, 0)

    def collectives(self) -> Any:
        """The CPU collectives the client uses: gloo over TCP, or None alone."""
        if self.client is None:
            return None
        return jaxlib_module().make_gloo_tcp_collectives(distributed_client=self.client)


global_state = DistributedState()


def jaxlib_module() -> Any:
    """jaxlib's `_jax` extension, loaded on use: `import didax` does not pay for jaxlib."""
    with interrupts.held():  # a KeyboardInterrupt inside jaxlib's import aborts
        importlib.import_module("jaxlib.xla_client")  # initializes jaxlib._jax
        return importlib.import_module("jaxlib._jax")


class _Runtime:
    """jaxlib's modules, the PJRT CPU client and its one device."""

    def __init__(self) -> None:
        # Imported here, not at the top of the module: loading jaxlib costs ~200 ms, which
        # `import didax` must not pay (this is not a cycle-dodging import).
        # XLA logs an INFO line per client start to stderr, which lands in every notebook;
        # keep warnings and errors (a user's own setting wins).
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
        version = importlib.import_module("jaxlib.version").__version__
        if version.split(".")[:2] != JAXLIB_VERSION.split(".")[:2]:
            raise ImportError(
                f"didax is tested with jaxlib {JAXLIB_VERSION} and drives its "
                f"private API; found jaxlib {version}. Install "
                f"jaxlib=={JAXLIB_VERSION}."
            )
        self.xc = importlib.import_module("jaxlib.xla_client")
        self.xla = importlib.import_module("jaxlib._jax")
        self.ir = importlib.import_module("jaxlib.mlir.ir")
        self.func = importlib.import_module("jaxlib.mlir.dialects.func")
        self.hlo = importlib.import_module("jaxlib.mlir.dialects.stablehlo")
        self.chlo = importlib.import_module("jaxlib.mlir.dialects.chlo")  # erf_inv, as JAX
        self.sdy = importlib.import_module("jaxlib.mlir.dialects.sdy")  # Shardy's shardings
        ext = importlib.import_module("jaxlib.mlir._mlir_libs._jax_mlir_ext")
        self.dialects = self.ir.DialectRegistry()
        ext.register_dialects(self.dialects)  # func and the other upstream dialects
        # None: jaxlib's client reads XLA_FLAGS' --xla_force_host_platform_device_count
        n = config.lock("jax_num_cpu_devices")
        platforms = plugins.requested(config.lock("jax_platforms"))
        state = global_state  # several processes: every process's devices
        # glibc keeps the memory results free for the next call (None: left as it was)
        self.malloc_thresholds = host_memory.keep_freed_memory(
            config.lock("didax_malloc_trim_threshold")
        )
        # jaxlib records the Python stack of each array and program it makes (a cached call
        # 40 frames deep: 4.9 us of CPU without, 7.1 us with; `bench_jit.py tracebacks`);
        # didax reads none of them. JAX does (its source locations): a process that has
        # imported it keeps them (the option `didax_jaxlib_tracebacks`, config.py).
        if not config.lock("didax_jaxlib_tracebacks") and "jax" not in sys.modules:
            self.xla.set_tracebacks_enabled(False)

        def make_cpu() -> Any:
            return self.xc.make_cpu_client(
                num_devices=n if n >= 0 else None,
                distributed_client=state.client,
                node_id=state.process_id,
                num_nodes=state.num_processes,
                collectives=state.collectives(),
            )

        # the CPU's client, or (on paper) a plugin's: runtime/plugins.py
        self.client = plugins.make_client(self.xc, platforms, make_cpu, state.client)
        self.devices = self.client.devices()
        self.device = self.client.local_devices()[0]  # where this process computes
        self.sharding = self.xc.GSPMDSharding((self.device,), self.xc.OpSharding())
        self.put = self.xla.batched_device_put
        # An eager Array's value is immutable: the device may alias it. A user's NumPy array
        # may change after the call, so it is copied before the put returns.
        self.alias = self.xla.HostBufferSemantics.ZERO_COPY
        self.copy = self.xla.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL


# The one client of the process (STYLE §4: "one lazily made PJRT client"), made on first use.
_runtime: _Runtime | None = None
_runtime_lock = threading.Lock()


def runtime() -> _Runtime:
    """jaxlib and the PJRT client, loaded and made on first use, once per process: threads
    racing to the first use wait for one client (buffers of a second client would be
    rejected by executables of the first)."""
    rt = _runtime
    if rt is None:
        rt = _make_runtime()
    return rt


def started() -> bool:
    """Whether the client has been made (then `distributed.initialize` is too late)."""
    return _runtime is not None


def _make_runtime() -> _Runtime:
    global _runtime
    with _runtime_lock:
        if _runtime is None:
            with interrupts.held():  # a KeyboardInterrupt inside jaxlib's import aborts
                _runtime = _Runtime()
        return _runtime


def devices(backend: str | None = None) -> list[Any]:
    """All devices of all processes (CPU devices: `CpuDevice(id=0)`, ...). Like
    `jax.devices()`.

    Raises:
      RuntimeError: `backend` names a platform other than the client's (JAX's message).
    """
    rt = runtime()
    plugins.check_backend(backend, rt.client.platform)
    return list(rt.devices)


def local_devices(process_index: int | None = None, backend: str | None = None) -> list[Any]:
    """The devices this process (or process `process_index`) drives. Like
    `jax.local_devices()`."""
    rt = runtime()
    plugins.check_backend(backend, rt.client.platform)
    if process_index is None:
        return list(rt.client.local_devices())
    return [d for d in rt.devices if d.process_index == process_index]


def device_count(backend: str | None = None) -> int:
    """The number of devices of all processes. Like `jax.device_count()`."""
    return len(devices(backend))


def local_device_count(backend: str | None = None) -> int:
    """The number of devices this process drives. Like `jax.local_device_count()`."""
    return len(local_devices(backend=backend))


def process_index() -> int:
    """This process's index (0 in a single-process run). Like `jax.process_index()`."""
    return runtime().client.process_index()


def process_count() -> int:
    """The number of processes (1 without a distributed runtime). Like
    `jax.process_count()`."""
    return len({d.process_index for d in runtime().devices})


def process_indices() -> list[int]:
    """The indices of all processes. Like `jax.process_indices()`."""
    return list(range(process_count()))


def default_backend() -> str:
    """The platform of the client ("cpu"; a plugin's, `jax_platforms`). Like
    `jax.default_backend()` (which also starts the backend)."""
    return runtime().client.platform


def check_backend(name: str | None) -> None:
    """Check a platform name given to `jit(backend=...)` or `live_arrays(platform)`: didax
    runs on the CPU; any other platform raises JAX's RuntimeError (`jit` raises it when the
    function is traced, as JAX does)."""
    if name is None or name == "cpu":
        return
    if name == "gpu":
        raise RuntimeError(
            "Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are "
            "present. Platforms present are: cpu"
        )
    raise RuntimeError(f"Unknown backend {name}. Available backends are ['cpu']")


class SingleDeviceSharding:
    """An array placed whole on one device. Like `jax.sharding.SingleDeviceSharding`."""

    def __init__(
        self, device: Any, *, memory_kind: str | None = None, _committed: bool = True
    ) -> None:
        self.device = device
        # whether an Array placed by it was put there on purpose (`device_put(x, device)`, a
        # result of one such), or went to the default device (runtime/placement.py)
        self._committed = _committed
        self.memory_kind = memory_kind or "device"
        self.device_set = {device}
        self.is_fully_replicated = self.is_fully_addressable = True
        self.num_devices = 1

    def shard_shape(self, global_shape: tuple[int, ...]) -> tuple[int, ...]:
        """The shape of the device's block: the whole array's."""
        return tuple(global_shape)

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self.device!r}, memory_kind={self.memory_kind})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SingleDeviceSharding) and other.device == self.device

    def __hash__(self) -> int:
        return hash(("SingleDeviceSharding", self.device))


@functools.cache  # one value per process (the client's first device): bounded by one entry
def default_sharding() -> SingleDeviceSharding:
    """Where an Array on the first device lives (this process's first CPU device): every
    Array but those placed elsewhere (runtime/placement.py, runtime/sharding.py)."""
    return SingleDeviceSharding(runtime().device)


# ----------------------------------------------------------------------------- buffers


@functools.cache  # one per device of the one client: bounded by the device count
def device_sharding(device: Any) -> Any:
    """jaxlib's sharding of a buffer on `device` alone: one object per device, which the
    buffers put there and the outputs of programs run there share (jit's fast path compares
    it by identity)."""
    rt = runtime()
    return (
        rt.sharding if device == rt.device else rt.xc.GSPMDSharding((device,), rt.xc.OpSharding())
    )


def put(
    value: np.ndarray, aval: core.ShapedArray, *, alias: bool = False, device: Any = None
) -> Any:
    """Copy a canonical NumPy value to a device (the first one unless `device` is given), or
    alias it, for immutable values. `aval` must match the value's shape and dtype; the buffer
    keeps it as its type."""
    rt = runtime()
    if device is None or device == rt.device:
        sharding, device = rt.sharding, rt.device
    else:
        sharding = device_sharding(device)
    return rt.put(
        aval,
        sharding,
        [value],
        [device],
        True,
        False,
        rt.alias if alias else rt.copy,
        enable_x64=True,
    )


def wait(buffers: list[Any]) -> None:
    """Wait until every one of these device buffers is computed (one call into jaxlib)."""
    runtime().xla.batched_block_until_ready(buffers)


def buffer_of(x: Array) -> Any:
    """The device buffer behind `x`: an eager Array's value is put on its device (the first
    one, or the default device it was made under) once and kept beside it, so passing the
    same Array to compiled code again costs no copy. Its aval becomes the interned one
    (`array.interned`), which jit's fast table compares by identity."""
    buf = x._buffer
    if buf is None:
        value = x._host()  # (raises if x was deleted)
        aval = x._aval = array.interned(x.aval)
        sharding = getattr(x, "_sharding", None)
        device = sharding.device if type(sharding) is SingleDeviceSharding else None
        buf = x._buffer = put(value, aval, alias=True, device=device)
    return buf


def donated_buffer(x: Any, aval: core.ShapedArray) -> Any:
    """A buffer of argument `x` that a program may overwrite (donated to a jitted call): an
    Array's own buffer when it lives only on the device; otherwise a copy, so that no host
    value (an eager Array's, or a NumPy view of a device buffer) is ever overwritten."""
    if type(x) is Array and x._value is None and x._buffer is not None:
        return x._buffer
    return put(np.array(core.to_numpy(x), aval.dtype), aval)


# The three caches below key on plain values (sharding text, dims, device tuples; devices
# live as long as the process's one client), each bounded at 256 entries, least recently
# used dropped first. Module-level because what they compute depends only on the client,
# which is per process: no object owns it.
@functools.lru_cache(maxsize=256)
def canonical_sharding(text: str) -> str:
    """XLA's canonical spelling of an HLO sharding (`{devices=[2,2]0,1,2,3}` ->
    `{devices=[2,2]<=[4]}`), as `mhlo.sharding` attributes and compiled HLO print it."""
    return str(runtime().xc.HloSharding.from_string(text))


@functools.lru_cache(maxsize=256)
def iota_sharding(
    dims: tuple[int, ...],
    mesh_shape: tuple[int, ...],
    perm: tuple[int, ...],
    replicated: bool,
    manual: bool = False,
) -> str:
    """The HLO sharding whose tiles (`dims`; the last ones a manual group if `manual`, then
    replicas if `replicated`) go to the devices of an iota of `mesh_shape` transposed by
    `perm`, as XLA prints it (`{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}`,
    `{devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}`)."""
    xc = runtime().xc
    kinds = xc.OpSharding.Type
    groups = [kinds.MANUAL] * manual + [kinds.REPLICATED] * replicated
    return str(xc.HloSharding.iota_tile(list(dims), list(mesh_shape), list(perm), groups))


@functools.lru_cache(maxsize=256)
def gspmd_sharding(devices: tuple[Any, ...], text: str) -> Any:
    """jaxlib's description of an array split over `devices` (tile entries index into them)."""
    rt = runtime()
    return rt.xc.GSPMDSharding(devices, rt.xc.HloSharding.from_string(text).to_proto())


def put_sharded(
    value: np.ndarray,
    aval: core.ShapedArray,
    devices: Sequence[Any],
    text: str,
    blocks: Sequence[tuple[slice, ...]],
) -> Any:
    """One array over several devices: `value[blocks[k]]` on `devices[k]`, described by the
    HLO sharding `text` (tile entries are positions in `devices`). Only this process's
    devices get their block; the result is what a program compiled for `devices` takes."""
    here = runtime().client.process_index()
    local = {d: value[b] for d, b in zip(devices, blocks, strict=True) if d.process_index == here}
    return put_blocks(aval, devices, text, local)


def put_blocks(
    aval: core.ShapedArray, devices: Sequence[Any], text: str, blocks: dict[Any, np.ndarray]
) -> Any:
    """One array of type `aval` over `devices` (split as the HLO sharding `text` says) from
    this process's blocks, `blocks[device]` (NumPy values of the block's shape)."""
    rt = runtime()
    # each block on its device, then one array over them (jaxlib's batched put of a split
    # array wants a sharding class of jax's for partly replicated ones)
    parts = []
    for d in devices:
        if d in blocks:
            block = np.ascontiguousarray(blocks[d], dtype=aval.dtype)
            parts.append(put(block, aval.update(shape=block.shape), device=d))
    return rt.xla.ArrayImpl(aval, gspmd_sharding(tuple(devices), text), parts, True, True)


def sharded_devices(buffer: Any) -> tuple[Any, ...]:
    """The devices of a multi-device buffer, in its sharding's order."""
    return tuple(buffer._sharding._devices)


def element_type(ir: Any, dtype: np.dtype) -> Any:
    """The MLIR element type of a NumPy dtype (`i1` for bool, `ui32`, `bf16`, `complex<f32>`)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return ir.IntegerType.get_signless(1)
    if dtype.kind == "i":
        return ir.IntegerType.get_signless(8 * dtype.itemsize)
    if dtype.kind == "u":
        return ir.IntegerType.get_unsigned(8 * dtype.itemsize)
    if dtypes.bfloat16 is not None and dtype == dtypes.bfloat16:
        return ir.BF16Type.get()
    if dtype.name in dtypes.NARROW_FLOATS:  # float8_e4m3fn -> ir.Float8E4M3FNType
        parts = dtype.name.removeprefix("float").split("_")
        return getattr(ir, f"Float{parts[0]}{parts[1].upper()}Type").get()
    if dtype.name in dtypes.NARROW_INTS:  # int4 -> i4, uint2 -> ui2
        bits = int(dtype.name.lstrip("uint"))
        unsigned = dtype.name.startswith("u")
        return (ir.IntegerType.get_unsigned if unsigned else ir.IntegerType.get_signless)(bits)
    floats = {2: ir.F16Type, 4: ir.F32Type, 8: ir.F64Type}
    if dtype.kind == "f" and dtype.itemsize in floats:
        return floats[dtype.itemsize].get()
    if dtype.kind == "c" and dtype.itemsize // 2 in floats:  # complex64: complex<f32>
        return ir.ComplexType.get(floats[dtype.itemsize // 2].get())
    raise NotImplementedError(f"didax cannot lower arrays of dtype {dtype.name}")


# ----------------------------------------------------------------------------- MLIR


def new_context() -> Any:
    """A fresh MLIR context that knows the func and StableHLO dialects (one per lowering, so
    that nothing a lowering interns, e.g. large constants, outlives it)."""
    rt = runtime()
    ctx = rt.ir.Context()
    ctx.append_dialect_registry(rt.dialects)
    ctx.enable_multithreading(False)
    rt.hlo.register_dialect(ctx)
    rt.chlo.register_dialect(ctx)
    rt.sdy.register_dialect(ctx)
    ctx.dialects["func"]  # load the func dialect now: the printer needs it registered
    return ctx


# ----------------------------------------------------------------------------- LAPACK


_lapack_lock = threading.Lock()
_lapack_registered = False


def lapack_target(routine: str, dtype: np.dtype) -> str:
    """The name of jaxlib's LAPACK FFI handler for `routine` ("getrf") on `dtype`
    (`lapack_sgetrf_ffi` for float32), its handlers registered with XLA's CPU custom-call
    registry on first use, as JAX registers them (`jax/_src/lax/linalg.py`)."""
    global _lapack_registered
    rt = runtime()
    with _lapack_lock:
        if not _lapack_registered:
            with interrupts.held():  # a KeyboardInterrupt inside jaxlib's import aborts
                lapack = importlib.import_module("jaxlib.lapack")
            for name, fn, api_version in lapack.registrations()["cpu"]:
                rt.xc.register_custom_call_target(name, fn, platform="cpu", api_version=api_version)
            lapack._lapack.initialize()  # looks up the LAPACK routines (scipy's or jaxlib's)
            _lapack_registered = True
    prefixes = {np.dtype(np.float32): "s", np.dtype(np.float64): "d"}
    prefixes.update({np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"})
    prefix = prefixes.get(np.dtype(dtype))
    if prefix is None:
        raise NotImplementedError(f"{routine}: no LAPACK routine for dtype {np.dtype(dtype).name}")
    return f"lapack_{prefix}{routine}_ffi"
