"""Compiling and running programs: XLA executables and their launches.

Layer 1, the runtime floor, after client.py (whose client compiles and whose buffers the
programs take). This is JAX's `compiler.py` (compile) and `pxla.py` (result handlers) reduced
to CPU devices. A program runs on the first device, or is SPMD-partitioned over several (a
sharded jit, a shard_map or a pmap in one process: `num_partitions`, XLA's partitioner
splitting it as its `mhlo.sharding` annotations say) or replicated (a pmap across processes:
`num_replicas`). Results come back through jaxlib's C++ result handlers built from didax's
own avals, which is both the fast path (a few microseconds per launch) and the one path that
never imports `jax` (jaxlib's default `disassemble_into_single_device_arrays` imports
`jax.core` for its avals). Reading a split array, or a bfloat16 one, runs a small program too.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from didax import array, core, dtypes, interrupts
from didax.array import Array
from didax.config import config
from didax.runtime import client
from didax.runtime.client import (
    element_type,
    gspmd_sharding,
    new_context,
    put,
    runtime,
    sharded_devices,
)

# ----------------------------------------------------------------------------- reading


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


# Keyed by value (aval, sharding text, devices of the one client), at most 64 programs, least
# recently used dropped first; module-level: a read of any split Array may reuse them.
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
            module,
            [aval],
            [out_aval],
            num_partitions=len(devices),
            device_assignment=devices,
            shardy=False,  # its shardings are XLA's own (HLO text): GSPMD's
        )


def buffer_to_numpy(buffer: Any, aval: core.ShapedArray) -> np.ndarray:
    """Copy a device buffer of type `aval` to the host."""
    if aval.dtype.name in dtypes.NARROW_FLOATS or aval.dtype.name in dtypes.NARROW_INTS:
        # float8, int4 ...: no buffer protocol either; jaxlib's own host copy knows them
        return buffer._single_device_array_to_np_array_did_copy()[0]
    if aval.dtype != dtypes.bfloat16:
        return np.asarray(buffer)  # the buffer protocol: a read-only view, no copy on CPU
    # jaxlib's buffer protocol has no bfloat16: read its 16 bits through a bitcast program
    (bits,) = _bfloat16_reader(aval.shape).execute([buffer])
    return np.asarray(bits).view(dtypes.bfloat16)


# Keyed by shape, at most 16 programs (LRU); module-level, as `_gatherer`.
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


# ----------------------------------------------------------------------------- executables


class Executable:
    """A program XLA compiled for the device, called with and returning device buffers."""

    __slots__ = (
        "_exe",
        "_handlers",
        "_too_large",
        "_sharding",
        "device",
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
        device: Any = None,
    ) -> None:
        rt = runtime()
        # a single-device program's device (the first one unless compiled for another)
        self.device = rt.device if device is None else device
        self._exe = exe
        self.host_callbacks = tuple(host_callbacks)  # kept alive as long as the program
        self.in_avals = tuple(in_avals)
        self.out_avals = tuple(out_avals)
        # an output larger than the memory is refused when the program runs, as JAX's
        # allocator does (jaxlib aborts the process on some of them)
        self._too_large = [a for a in self.out_avals if array.exceeds_memory(a)]
        # a replicated program's values are one buffer per device, under one sharding
        self._sharding = (
            client.device_sharding(self.device)
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
            shardings = [gspmd_sharding(tuple(devices), t) for t in self.out_shardings]
        # One C++ result handler per output, built from didax's aval: results become
        # buffers without a round trip through Python (and without importing `jax`).
        self._handlers = [
            rt.xla.array_result_handler(a, s, True, _skip_checks=True)
            for a, s in zip(out_avals, shardings, strict=True)
        ]

    def execute(self, buffers: list[Any]) -> list[Any]:
        """Launch on device buffers; returns the output buffers (the work may still be
        running: reading one, or `block_until_ready`, waits for it)."""
        if self._too_large:
            array.check_allocatable(self._too_large[0])
        if self.host_callbacks:
            return self._execute_waiting(buffers)
        try:
            results = self._exe.execute_sharded(buffers)  # positional: faster to parse
        except runtime().xla.JaxRuntimeError:
            # an argument on another device (an un-committed one a program for the default
            # device takes): copied there; the fast path pays nothing for this
            if (moved := self._on_its_device(buffers)) is None:
                raise  # every argument was on its device: the program's own error
            results = self._exe.execute_sharded(moved)
        return results.consume_with_handlers(self._handlers)

    def _execute_waiting(self, buffers: list[Any]) -> list[Any]:
        """`execute` for a program with host callbacks (prints): it is waited for, through
        its token, so that they happen before the call returns."""
        try:
            results = self._exe.execute_sharded(buffers, with_tokens=True)
        except runtime().xla.JaxRuntimeError:  # as in `execute`
            if (moved := self._on_its_device(buffers)) is None:
                raise  # a callback's error: the program ran (once), it is not run again
            results = self._exe.execute_sharded(moved, with_tokens=True)
        results.consume_token().block_until_ready()
        return results.consume_with_handlers(self._handlers)

    def execute_one(self, buffers: list[Any]) -> Array:
        """`execute` for a program with one output, returned as an Array that stays on the
        device."""
        (buffer,) = self.execute(buffers)
        return array.from_buffer(buffer, self.out_avals[0])

    def launch_parts(self) -> tuple[Callable[[list[Any]], Any], list[Any]] | None:
        """What `fast_path.launcher` launches with: jaxlib's launch (positional: faster to
        parse) and the result handlers whose `consume_with_handlers` makes the output
        buffers; None for a program that must take `execute` (host callbacks, an output
        larger than the memory)."""
        if self.host_callbacks or self._too_large:
            return None
        return self._exe.execute_sharded, self._handlers

    def execute_sharded(self, buffers: list[Any]) -> list[Any]:
        """Launch an SPMD-partitioned program (`compile_module(..., num_partitions=N)`) on
        one buffer per argument, each split over the program's devices as its parameter
        sharding says; returns one such buffer per output (split as `out_shardings`)."""
        if self._too_large:
            array.check_allocatable(self._too_large[0])
        results = self._exe.execute_sharded(buffers)
        return results.consume_with_handlers(self._handlers)

    def _on_its_device(self, buffers: list[Any]) -> list[Any] | None:
        """The arguments of a launch jaxlib refused, those on another device copied to this
        program's; None if none was elsewhere (the error was not theirs)."""
        out, moved = [], False
        for b, a in zip(buffers, self.in_avals, strict=True):
            if b._sharding is not self._sharding:  # (JAX's transfer guards let it through)
                b, moved = put(np.asarray(b), a, device=self.device), True
            out.append(b)
        return out if moved else None

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


# XLA logs this to stderr each time its GSPMD partitioner runs, that is, with
# `jax_use_shardy_partitioner` off (Shardy is the default, as in JAX 0.10.2); the line says
# nothing a user of that option can act on, and a notebook shows it under every cell that
# compiles a partitioned program.
_GSPMD_NOTICE = b"GSPMD sharding propagation is going to be deprecated"
_stderr_lock = threading.Lock()


@contextlib.contextmanager
def _without_gspmd_notice() -> Iterator[None]:
    """Run the body with the process's stderr (file descriptor 2, where XLA's C++ logging
    writes) sent to a temporary file, then write everything it caught back to stderr except
    the lines of XLA's GSPMD deprecation notice. Other output is delayed, never lost."""
    import tempfile  # deferred for `import didax`'s time (~3 ms), not to dodge a cycle

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
    shardy: bool | None = None,
    device: Any = None,
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
    output i's sharding (no annotation), read back from the executable; `shardy` (default:
    the `jax_use_shardy_partitioner` option) says whose shardings the module holds.
    `Executable.execute_sharded` runs it. By default the program runs on the first device,
    or on `device`.
    """
    rt = runtime()
    one = rt.devices[:1] if device is None else [device]  # a single-device program's
    if host_callbacks:
        devices = rt.xla.DeviceList(tuple(one))
        options = _compile_options(rt)
        if device is not None:
            options.device_assignment = rt.xc.DeviceAssignment.create(np.array([[device.id]]))
        exe = _compile_and_load(module, devices, options, list(host_callbacks))
        return Executable(exe, in_avals, out_avals, host_callbacks, device=device)
    bytecode = io.BytesIO()
    module.operation.write_bytecode(bytecode)  # faster to hand over than text
    options = _compile_options(rt)
    if num_partitions is not None:
        devices = list(device_assignment if device_assignment is not None else rt.devices)
        options.num_replicas = 1
        options.num_partitions = len(devices)
        build = options.executable_build_options
        build.use_spmd_partitioning = True
        if shardy is None:  # (`_gatherer` writes GSPMD's texts whatever the option)
            shardy = config.read("jax_use_shardy_partitioner")
        build.use_shardy_partitioner = shardy  # the module's shardings are sdy's or mhlo's
        if propagate_to_inputs:
            build.allow_spmd_sharding_propagation_to_parameters = list(propagate_to_inputs)
        if propagate_to_outputs:
            build.allow_spmd_sharding_propagation_to_output = list(propagate_to_outputs)
        options.device_assignment = rt.xc.DeviceAssignment.create(
            np.array([[d.id for d in devices]], np.int32)  # one replica, N partitions
        )
        with contextlib.nullcontext() if shardy else _without_gspmd_notice():
            exe = _compile_and_load(bytecode.getvalue(), rt.xla.DeviceList(tuple(devices)), options)
        return Executable(exe, in_avals, out_avals, devices=devices, partitioned=True)
    if num_replicas == 1 and device_assignment is None:
        if device is not None:  # (the device list alone leaves the replica on device 0)
            options.device_assignment = rt.xc.DeviceAssignment.create(np.array([[device.id]]))
        exe = _compile_and_load(bytecode.getvalue(), one, options)
        return Executable(exe, in_avals, out_avals, device=device)
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


def _compile_options(rt: Any) -> Any:
    """New compile options (of the runtime `rt`); under `jax_disable_most_optimizations`,
    those JAX's option sets: XLA's LLVM backend at its lowest level and without its expensive
    passes (the HLO passes, fusion among them, still run)."""
    options = rt.xc.CompileOptions()
    if config.read("jax_disable_most_optimizations"):
        debug = options.executable_build_options.debug_options
        debug.xla_backend_optimization_level = 0
        debug.xla_llvm_disable_expensive_passes = True
        debug.xla_test_all_input_layouts = False
    return options


def _compile_and_load(*args: Any) -> Any:
    """The client's `compile_and_load`, a Ctrl-C held until XLA is done (`didax.interrupts`):
    jaxlib would answer it at once and leave XLA compiling on a thread nothing waits for."""
    with interrupts.held():
        return client.runtime().client.compile_and_load(*args)
