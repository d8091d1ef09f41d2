"""The bridge to jaxlib: the PJRT CPU client, device buffers, compiling and running programs.

Layer 1 (after array.py). The only module that touches jaxlib's private API, pinned to the
tested version (`JAXLIB_VERSION`): a jaxlib upgrade touches this file only. Nothing here is
imported from jaxlib when `didax` is imported (jaxlib's client and MLIR bindings take about
200 ms to load); the first compile, `device_put` or `devices()` loads jaxlib and makes the
client, once (`runtime()`).

This is JAX's `xla_bridge.py` (clients), `pxla.py` (device put, result handlers) and
`compiler.py` (compile) reduced to CPU devices: the client has one device, or N when asked
before it starts (`XLA_FLAGS=--xla_force_host_platform_device_count=N`, which jaxlib's
client reads itself, or `config.update("jax_num_cpu_devices", N)`). A program runs on the
first device, or is SPMD-partitioned over several (a sharded jit, a shard_map or a pmap in
one process: `num_partitions`, XLA's partitioner splitting it as its `mhlo.sharding`
annotations say) or replicated (a pmap across processes: `num_replicas`); `device_put` may place an Array on any device, and `put_sharded` splits one
over several (a multi-device buffer described by an HLO sharding).
Results come back through jaxlib's C++ result handlers built from didax's own avals, which is
both the fast path (a few microseconds per launch) and the one path that never imports `jax`
(jaxlib's default `disassemble_into_single_device_arrays` imports `jax.core` for its avals).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from didax import array, core, distributed, dtypes, interrupts
from didax.array import Array
from didax.config import config

JAXLIB_VERSION = "0.10.2"  # tested; jaxlib's private API changes between minor versions


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
        ext = importlib.import_module("jaxlib.mlir._mlir_libs._jax_mlir_ext")
        self.dialects = self.ir.DialectRegistry()
        ext.register_dialects(self.dialects)  # func and the other upstream dialects
        # None: jaxlib's client reads XLA_FLAGS' --xla_force_host_platform_device_count
        n = config.lock("jax_num_cpu_devices")
        state = distributed.global_state  # several processes: every process's devices
        self.client = self.xc.make_cpu_client(
            num_devices=n if n >= 0 else None,
            distributed_client=state.client,
            node_id=state.process_id,
            num_nodes=state.num_processes,
            collectives=state.collectives(),
        )
        self.devices = self.client.devices()
        self.device = self.client.local_devices()[0]  # where this process computes
        self.sharding = self.xc.GSPMDSharding((self.device,), self.xc.OpSharding())
        self.put = self.xla.batched_device_put
        # An eager Array's value is immutable: the device may alias it. A user's NumPy array
        # may change after the call, so it is copied before the put returns.
        self.alias = self.xla.HostBufferSemantics.ZERO_COPY
        self.copy = self.xla.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL


_runtime: _Runtime | None = None
_runtime_lock = threading.Lock()


distributed.client_started = lambda: _runtime is not None


def runtime() -> _Runtime:
    """jaxlib and the PJRT client, loaded and made on first use, once per process: threads
    racing to the first use wait for one client (buffers of a second client would be
    rejected by executables of the first)."""
    rt = _runtime
    if rt is None:
        rt = _make_runtime()
    return rt


def _make_runtime() -> _Runtime:
    global _runtime
    with _runtime_lock:
        if _runtime is None:
            with interrupts.held():  # a KeyboardInterrupt inside jaxlib's import aborts
                _runtime = _Runtime()
        return _runtime


def devices() -> list[Any]:
    """All devices of all processes (CPU devices: `CpuDevice(id=0)`, ...). Like
    `jax.devices()`."""
    return list(runtime().devices)


def local_devices() -> list[Any]:
    """The devices this process drives. Like `jax.local_devices()`."""
    return list(runtime().client.local_devices())


def device_count() -> int:
    """The number of devices of all processes. Like `jax.device_count()`."""
    return len(runtime().devices)


def local_device_count() -> int:
    """The number of devices this process drives. Like `jax.local_device_count()`."""
    return len(local_devices())


def process_index() -> int:
    """This process's index (0 in a single-process run). Like `jax.process_index()`."""
    return runtime().client.process_index()


def process_count() -> int:
    """The number of processes (1 without a distributed runtime). Like
    `jax.process_count()`."""
    return len({d.process_index for d in runtime().devices})


class SingleDeviceSharding:
    """An array placed whole on one device. Like `jax.sharding.SingleDeviceSharding`."""

    def __init__(self, device: Any, *, memory_kind: str | None = None) -> None:
        self.device = device
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


@functools.cache
def default_sharding() -> SingleDeviceSharding:
    """Where every didax Array lives: this process's first CPU device."""
    return SingleDeviceSharding(runtime().device)


array.sharding_of = default_sharding

# ----------------------------------------------------------------------------- buffers


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
        sharding = rt.xc.GSPMDSharding((device,), rt.xc.OpSharding())
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


def buffer_of(x: Array) -> Any:
    """The device buffer behind `x`: an eager Array's value is put on the device once and
    kept beside it, so passing the same Array to compiled code again costs no copy."""
    buf = x._buffer
    if buf is None:
        buf = x._buffer = put(x._host(), x.aval, alias=True)  # (raises if x was deleted)
    return buf


def donated_buffer(x: Any, aval: core.ShapedArray) -> Any:
    """A buffer of argument `x` that a program may overwrite (donated to a jitted call): an
    Array's own buffer when it lives only on the device; otherwise a copy, so that no host
    value (an eager Array's, or a NumPy view of a device buffer) is ever overwritten."""
    if type(x) is Array and x._value is None and x._buffer is not None:
        return x._buffer
    return put(np.array(core.to_numpy(x), aval.dtype), aval)


def host_buffer(x: Any, aval: core.ShapedArray) -> Any:
    """A device buffer for any array-like argument of type `aval` (Arrays, NumPy values,
    Python scalars)."""
    if type(x) is Array:
        return buffer_of(x)
    return put(np.asarray(core.to_numpy(x), aval.dtype), aval)


@functools.lru_cache(maxsize=256)
def canonical_sharding(text: str) -> str:
    """XLA's canonical spelling of an HLO sharding (`{devices=[2,2]0,1,2,3}` ->
    `{devices=[2,2]<=[4]}`), as `mhlo.sharding` attributes and compiled HLO print it."""
    return str(runtime().xc.HloSharding.from_string(text))


@functools.lru_cache(maxsize=256)
def iota_sharding(
    dims: tuple[int, ...], mesh_shape: tuple[int, ...], perm: tuple[int, ...], replicated: bool
) -> str:
    """The HLO sharding whose tiles (`dims`; the last one replicas if `replicated`) go to
    the devices of an iota of `mesh_shape` transposed by `perm`, as XLA prints it
    (`{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}`)."""
    xc = runtime().xc
    groups = [xc.OpSharding.Type.REPLICATED] if replicated else []
    return str(xc.HloSharding.iota_tile(list(dims), list(mesh_shape), list(perm), groups))


@functools.lru_cache(maxsize=256)
def _gspmd(devices: tuple[Any, ...], text: str) -> Any:
    # jaxlib's description of an array split over `devices` (tile entries index into them)
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
    return rt.xla.ArrayImpl(aval, _gspmd(tuple(devices), text), parts, True, True)


def sharded_devices(buffer: Any) -> tuple[Any, ...]:
    """The devices of a multi-device buffer, in its sharding's order."""
    return tuple(buffer._sharding._devices)


def read_sharded(buffer: Any, aval: core.ShapedArray, text: str) -> np.ndarray:
    """The global value of an array split over several devices (HLO sharding `text`), read
    to the host through a program that gathers it on every device (XLA's SPMD partitioner
    writes the all-gather); the host reads the first device's copy. jaxlib's own way to the
    shards (`_arrays`) would import `jax` for their avals."""
    bits = aval.dtype == dtypes.bfloat16  # NumPy's DLPack has no bfloat16: read its bits
    if text == "{replicated}" and not bits:
        return _first_replica(buffer).copy()
    exe = _gatherer(aval, text, sharded_devices(buffer))
    (out,) = exe.execute_sharded([buffer])
    value = _first_replica(out).copy()
    return value.view(dtypes.bfloat16) if bits else value


@functools.lru_cache(maxsize=64)
def _gatherer(aval: core.ShapedArray, text: str, devices: tuple[Any, ...]) -> Executable:
    rt = runtime()
    ir = rt.ir
    with new_context(), ir.Location.unknown():
        module = ir.Module.create()
        i32 = ir.IntegerType.get_signless(32)
        module.operation.attributes["mhlo.num_partitions"] = ir.IntegerAttr.get(i32, len(devices))
        module.operation.attributes["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, 1)
        t = ir.RankedTensorType.get(aval.shape, element_type(ir, aval.dtype))
        bits = aval.dtype == dtypes.bfloat16
        out_aval = aval.update(dtype=np.uint16) if bits else aval
        out_t = ir.RankedTensorType.get(aval.shape, element_type(ir, out_aval.dtype))
        with ir.InsertionPoint(module.body):
            fn = rt.func.FuncOp("main", ir.FunctionType.get([t], [out_t]))
            fn.attributes["arg_attrs"] = ir.ArrayAttr.get(
                [ir.DictAttr.get({"mhlo.sharding": ir.StringAttr.get(text)})]
            )
            fn.attributes["res_attrs"] = ir.ArrayAttr.get(
                [ir.DictAttr.get({"mhlo.sharding": ir.StringAttr.get("{replicated}")})]
            )
            with ir.InsertionPoint(fn.add_entry_block()):
                x = fn.arguments[0]
                rt.func.ReturnOp([rt.hlo.bitcast_convert(out_t, x) if bits else x])
        return compile_module(
            module, [aval], [out_aval], num_partitions=len(devices), device_assignment=devices
        )


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
    floats = {2: ir.F16Type, 4: ir.F32Type, 8: ir.F64Type}
    if dtype.kind == "f" and dtype.itemsize in floats:
        return floats[dtype.itemsize].get()
    if dtype.kind == "c" and dtype.itemsize // 2 in floats:  # complex64: complex<f32>
        return ir.ComplexType.get(floats[dtype.itemsize // 2].get())
    raise NotImplementedError(f"didax cannot lower arrays of dtype {dtype.name}")


def device_put(x: Any, device: Any = None) -> Array:
    """`x` as an Array on `device` (default: the first device). Like `jax.device_put` with
    a device or None (no shardings).

    Raises:
      ValueError: `device` is not one of `devices()` (or None), as JAX's.
    """
    if isinstance(x, core.Tracer):
        return x
    rt = runtime()
    if device is not None and device not in rt.devices:
        raise ValueError(
            f"device_put: {device!r} is not a device of this client; choose None or one of "
            f"didax.devices() = {list(rt.devices)}"
        )
    if device is None or device == rt.device:
        out = (
            x if type(x) is Array else Array(np.array(core.to_numpy(x)), core.get_aval(x).weak_type)
        )
        buffer_of(out)  # the Array keeps its (copied, immutable) host value too
        return out
    value = np.array(core.to_numpy(x))
    aval = core.get_aval(x).update(shape=value.shape, dtype=value.dtype)
    buffer = put(value, aval, alias=True, device=device)
    return Array(
        value, aval.weak_type, buffer=buffer, aval=aval, sharding=SingleDeviceSharding(device)
    )


def array_devices(x: Array) -> set[Any]:
    """The devices holding `x` (an eager value counts as on the first device)."""
    sharding = getattr(x, "_sharding", None)
    if sharding is not None:
        return set(sharding.device_set)
    buf = x._buffer
    return set(buf._sharding._devices) if buf is not None else {runtime().device}


array.operator_table["devices"] = array_devices


def buffer_to_numpy(buffer: Any, aval: core.ShapedArray) -> np.ndarray:
    """Copy a device buffer of type `aval` to the host."""
    if aval.dtype != dtypes.bfloat16:
        return np.asarray(buffer)  # the buffer protocol: a read-only view, no copy on CPU
    # jaxlib's buffer protocol has no bfloat16: read its 16 bits through a bitcast program
    (bits,) = _bfloat16_reader(aval.shape).execute([buffer])
    return np.asarray(bits).view(dtypes.bfloat16)


@functools.lru_cache(maxsize=16)
def _bfloat16_reader(shape: tuple[int, ...]) -> Executable:
    rt = runtime()
    ir, hlo = rt.ir, rt.hlo
    with new_context(), ir.Location.unknown():
        module = ir.Module.create()
        in_type = ir.RankedTensorType.get(shape, ir.BF16Type.get())
        out_type = ir.RankedTensorType.get(shape, ir.IntegerType.get_unsigned(16))
        with ir.InsertionPoint(module.body):
            fn = rt.func.FuncOp("main", ir.FunctionType.get([in_type], [out_type]))
            with ir.InsertionPoint(fn.add_entry_block()):
                rt.func.ReturnOp([hlo.bitcast_convert(out_type, fn.arguments[0])])
        return compile_module(
            module, [core.ShapedArray(shape, dtypes.bfloat16)], [core.ShapedArray(shape, np.uint16)]
        )


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
    prefix = {np.dtype(np.float32): "s", np.dtype(np.float64): "d"}.get(np.dtype(dtype))
    if prefix is None:
        raise NotImplementedError(f"{routine}: no LAPACK routine for dtype {np.dtype(dtype).name}")
    return f"lapack_{prefix}{routine}_ffi"


# ----------------------------------------------------------------------------- executables


class Executable:
    """A program XLA compiled for the device, called with and returning device buffers."""

    __slots__ = (
        "_exe",
        "_handlers",
        "_sharding",
        "host_callbacks",
        "in_avals",
        "out_avals",
        "in_shardings",
        "out_shardings",
    )

    def __init__(
        self,
        exe: Any,
        in_avals: Sequence[core.ShapedArray],
        out_avals: Sequence[core.ShapedArray],
        host_callbacks: Sequence[Any] = (),
        devices: Sequence[Any] | None = None,
        *,
        partitioned: bool = False,
    ) -> None:
        rt = runtime()
        self._exe = exe
        self.host_callbacks = tuple(host_callbacks)  # kept alive as long as the program
        self.in_avals = tuple(in_avals)
        self.out_avals = tuple(out_avals)
        # a replicated program's values are one buffer per device, under one sharding
        self._sharding = (
            rt.sharding
            if devices is None
            else rt.xc.GSPMDSharding(tuple(devices), rt.xc.OpSharding())
        )
        # An SPMD-partitioned program's outputs: each split as XLA chose (or was told), as
        # HLO sharding text; one multi-device buffer per output.
        self.in_shardings: tuple[str, ...] = ()
        self.out_shardings: tuple[str, ...] = ()
        shardings = [self._sharding] * len(self.out_avals)
        if partitioned:
            ops = exe.get_parameter_shardings()  # as given, or as XLA chose
            self.in_shardings = (
                tuple(str(rt.xc.HloSharding.from_proto(op)) for op in ops)
                if ops is not None
                else ("{replicated}",) * len(self.in_avals)
            )
            assert devices is not None, "a partitioned program needs its devices"
            ops = exe.get_output_shardings()  # None for a program of one partition
            self.out_shardings = (
                tuple(str(rt.xc.HloSharding.from_proto(op)) for op in ops)
                if ops is not None
                else ("{replicated}",) * len(self.out_avals)
            )
            shardings = [_gspmd(tuple(devices), t) for t in self.out_shardings]
        # One C++ result handler per output, built from didax's aval: results become
        # buffers without a round trip through Python (and without importing `jax`).
        self._handlers = [
            rt.xla.array_result_handler(a, s, True, _skip_checks=True)
            for a, s in zip(out_avals, shardings, strict=True)
        ]

    def execute(self, buffers: list[Any]) -> list[Any]:
        """Launch on device buffers; returns the output buffers (the work may still be
        running: reading one, or `block_until_ready`, waits for it)."""
        if self.host_callbacks:
            return self._execute_waiting(buffers)
        try:
            results = self._exe.execute_sharded(buffers)  # positional: faster to parse
        except runtime().xla.JaxRuntimeError:
            # an argument that device_put placed on another device: programs run on the
            # first device (for now), so copy it there; the fast path pays nothing for this
            results = self._exe.execute_sharded(self._on_first_device(buffers))
        return results.consume_with_handlers(self._handlers)

    def _execute_waiting(self, buffers: list[Any]) -> list[Any]:
        """`execute` for a program with host callbacks (prints): it is waited for, through
        its token, so that they happen before the call returns."""
        try:
            results = self._exe.execute_sharded(buffers, with_tokens=True)
        except runtime().xla.JaxRuntimeError:  # as in `execute`
            results = self._exe.execute_sharded(self._on_first_device(buffers), with_tokens=True)
        results.consume_token().block_until_ready()
        return results.consume_with_handlers(self._handlers)

    def execute_one(self, buffers: list[Any]) -> Array:
        """`execute` for a program with one output, returned as an Array that stays on the
        device (what `array.from_buffer` makes)."""
        (buffer,) = self.execute(buffers)
        aval = self.out_avals[0]
        return Array(None, buffer=buffer, aval=aval)

    def launcher(self) -> Callable[[list[Any]], Array]:
        """`execute_one` as one closure: the hot path of a cached jitted call (`dispatch.py`
        stores it in a jitted function's fast table). The launch and the wrapping are
        written out in it, and what they read is bound once: each Python call or attribute
        lookup saved is ~1% of a call. A program with host callbacks, or one placed on
        another device, takes `execute_one`."""
        if self.host_callbacks:
            return self.execute_one
        execute, handlers = self._exe.execute_sharded, self._handlers
        aval = array.interned(self.out_avals[0])  # a result passed back keys by identity
        weak, new, runtime_error = aval.weak_type, Array.__new__, runtime().xla.JaxRuntimeError

        def launch(buffers: list[Any]) -> Array:
            try:
                (buffer,) = execute(buffers).consume_with_handlers(handlers)
            except runtime_error:  # an argument on another device: as in `execute`
                return self.execute_one(buffers)
            out = new(Array)
            out._value, out._buffer, out._weak, out._aval = None, buffer, weak, aval
            return out

        return launch

    def execute_sharded(self, buffers: list[Any]) -> list[Any]:
        """Launch an SPMD-partitioned program (`compile_module(..., num_partitions=N)`) on
        one buffer per argument, each split over the program's devices as its parameter
        sharding says; returns one such buffer per output (split as `out_shardings`)."""
        results = self._exe.execute_sharded(buffers)
        return results.consume_with_handlers(self._handlers)

    def _on_first_device(self, buffers: list[Any]) -> list[Any]:
        rt = runtime()
        return [
            b if b._sharding is rt.sharding else put(np.asarray(b), a)
            for b, a in zip(buffers, self.in_avals, strict=True)
        ]

    def execute_replicated(self, shards: list[list[Any]]) -> list[np.ndarray]:
        """Launch a replicated program (`compile_module(..., num_replicas=N)`): for each
        argument, one buffer per device of this process, in the device assignment's order.
        Every output must hold the same value on every replica (pmap gathers its results
        inside the program); each is read, to the host, from this process's first device."""
        rt = runtime()
        args = [
            rt.xla.ArrayImpl(aval, self._sharding, list(bufs), True, True)
            for aval, bufs in zip(self.in_avals, shards, strict=True)
        ]
        results = self._exe.execute_sharded(args, with_tokens=False)
        return [_first_replica(out) for out in results.consume_with_handlers(self._handlers)]

    def as_text(self) -> str:
        """XLA's optimized HLO for this program."""
        return self._exe.hlo_modules()[0].to_string()

    def cost_analysis(self) -> dict[str, float]:
        """XLA's cost estimate: 'flops', 'transcendentals', 'bytes accessed', and more."""
        cost = dict(self._exe.cost_analysis())
        cost.setdefault("flops", 0.0)
        cost.setdefault("transcendentals", 0.0)
        cost.setdefault("bytes accessed", 0.0)
        return cost


class _DLPackTensor:
    """A DLPack capsule in the shape `np.from_dlpack` takes (a CPU tensor)."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)  # kDLCPU


def _first_replica(x: Any) -> np.ndarray:
    # A multi-device result's per-device views (`_arrays`) are made by jaxlib with `jax`'s
    # own sharding class, which imports `jax`; DLPack reads the first local copy without it.
    return np.from_dlpack(_DLPackTensor(runtime().xla.buffer_to_dlpack_managed_tensor(x)))


# XLA logs this to stderr each time its GSPMD partitioner runs. The choice of GSPMD over
# Shardy is didax's (README, Sharding), so the line says nothing a user can act on, and a
# notebook shows it under every cell that compiles a partitioned program.
_GSPMD_NOTICE = b"GSPMD sharding propagation is going to be deprecated"
_stderr_lock = threading.Lock()


@contextlib.contextmanager
def _without_gspmd_notice() -> Iterator[None]:
    """Run the body with the process's stderr (file descriptor 2, where XLA's C++ logging
    writes) sent to a temporary file, then write everything it caught back to stderr except
    the lines of XLA's GSPMD deprecation notice. Other output is delayed, never lost."""
    with _stderr_lock, tempfile.TemporaryFile() as caught:
        _flush_stderr()
        try:
            saved = os.dup(2)
        except OSError:  # no stderr to filter
            yield
            return
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            _flush_stderr()
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            kept = memoryview(b"".join(line for line in caught if _GSPMD_NOTICE not in line))
            while kept:
                kept = kept[os.write(2, kept) :]


def _flush_stderr() -> None:
    if sys.stderr is not None:
        sys.stderr.flush()


def compile_module(
    module: Any,
    in_avals: Sequence[core.ShapedArray],  # noqa: A001 - the verb
    out_avals: Sequence[core.ShapedArray],
    host_callbacks: Sequence[Any] = (),
    *,
    num_replicas: int = 1,
    num_partitions: int | None = None,
    device_assignment: Sequence[Any] | None = None,
    propagate_to_inputs: Sequence[bool] = (),
    propagate_to_outputs: Sequence[bool] = (),
) -> Executable:
    """Compile an MLIR module (whose `main` takes `in_avals` and returns `out_avals`).

    `host_callbacks` are the Python functions its `xla_ffi_python_cpu_callback` custom calls
    call, by index (jaxlib's CPU client takes them with the module and a DeviceList).
    `num_replicas=N` with `device_assignment` (N devices, of any process): one program
    that XLA runs on every device at once, replica k on device k of the assignment; its
    collectives (`stablehlo.all_reduce`, ...) name replicas. `Executable.execute_replicated`
    runs it. `num_partitions=N` with `device_assignment`: one program whose `mhlo.sharding`
    annotations XLA's SPMD partitioner turns into N per-device programs (partition k on
    device k); `propagate_to_inputs[i]`/`propagate_to_outputs[i]`: XLA picks input or
    output i's sharding (no annotation), read back from the executable.
    `Executable.execute_sharded` runs it. By default the program runs on the first device.
    """
    rt = runtime()
    if host_callbacks:
        devices = rt.xla.DeviceList(tuple(rt.devices[:1]))
        exe = _compile_and_load(module, devices, rt.xc.CompileOptions(), list(host_callbacks))
        return Executable(exe, in_avals, out_avals, host_callbacks)
    bytecode = io.BytesIO()
    module.operation.write_bytecode(bytecode)  # faster to hand over than text
    options = rt.xc.CompileOptions()
    if num_partitions is not None:
        devices = list(device_assignment if device_assignment is not None else rt.devices)
        options.num_replicas = 1
        options.num_partitions = len(devices)
        build = options.executable_build_options
        build.use_spmd_partitioning = True
        build.use_shardy_partitioner = False  # the module's shardings are GSPMD's mhlo.sharding
        if propagate_to_inputs:
            build.allow_spmd_sharding_propagation_to_parameters = list(propagate_to_inputs)
        if propagate_to_outputs:
            build.allow_spmd_sharding_propagation_to_output = list(propagate_to_outputs)
        options.device_assignment = rt.xc.DeviceAssignment.create(
            np.array([[d.id for d in devices]], np.int32)  # one replica, N partitions
        )
        with _without_gspmd_notice():
            exe = _compile_and_load(bytecode.getvalue(), rt.xla.DeviceList(tuple(devices)), options)
        return Executable(exe, in_avals, out_avals, devices=devices, partitioned=True)
    if num_replicas == 1 and device_assignment is None:
        exe = _compile_and_load(bytecode.getvalue(), rt.devices[:1], options)
        return Executable(exe, in_avals, out_avals)
    devices = list(device_assignment if device_assignment is not None else rt.devices)
    if len(devices) != num_replicas:
        raise ValueError(
            f"compile_module: num_replicas={num_replicas} needs as many devices in "
            f"device_assignment, got {len(devices)}"
        )
    options.num_replicas = num_replicas
    options.num_partitions = 1
    ids = np.array([[d.id] for d in devices], np.int32)  # one row per replica
    options.device_assignment = rt.xc.DeviceAssignment.create(ids)
    exe = _compile_and_load(bytecode.getvalue(), devices, options)
    return Executable(exe, in_avals, out_avals, devices=devices)


def _compile_and_load(*args: Any) -> Any:
    """The client's `compile_and_load`, a Ctrl-C held until XLA is done (`didax.interrupts`):
    jaxlib would answer it at once and leave XLA compiling on a thread nothing waits for."""
    with interrupts.held():
        return runtime().client.compile_and_load(*args)
