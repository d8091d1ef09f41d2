"""A jitted function at one signature, and the AOT stages that show it.

Layer 4. `Entry` is one cache entry of a jitted function (`jit.py`): the jaxpr traced for one
signature, its output tree and its executable, compiled lazily; `donation_aliases` pairs its
donated inputs with the outputs that reuse them. `jit(f).trace(x)` ->
`Traced` (the jaxpr) -> `.lower()` -> `Lowered` (StableHLO) -> `.compile()` -> `Compiled`
(optimized HLO, cost analysis, callable), with each phase's time in `.timings`; like
`jax.stages`.

`Layout` is where a sharded call's values live (the devices of the program, how each input
and output is split); an Entry keeps one partitioned program per layout (`ShardedRun`):
a jitted function called with arrays split over a mesh, or given `in_shardings`/
`out_shardings`, or holding a `with_sharding_constraint`, runs as one SPMD program that XLA
partitions over the mesh's devices. `jit_primitive.py` (above this module) runs an evaluated
`jit` equation with shardings the same way.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from didax import array, core, dtypes, typed_sharding
from didax.array import Array
from didax.fast_path import launcher
from didax.interpreters import lowering
from didax.jaxpr import ClosedJaxpr
from didax.runtime import client, placement, transfer_guard
from didax.runtime.executable import Executable, buffer_to_numpy, compile_module
from didax.runtime.sharding import AxisType, NamedSharding, PartitionSpec, named_from_hlo
from didax.runtime.sharding import put as put_sharded
from didax.sharded_aval import ShardedArray
from didax.tree_util import PyTreeDef, builder, tree_flatten, tree_unflatten


class Entry:
    """One cache entry of a jitted function: its jaxpr at one signature, compiled lazily."""

    __slots__ = (
        "closed",
        "in_tree",
        "in_avals",
        "out_avals",
        "out_tree",
        "single",
        "bfloat16",
        "executable",
        "timings",
        "fast_keys",
        "donating",
        "sharded",
        "layouts",
        "constraints",
        "placed",
    )

    def __init__(
        self, closed: ClosedJaxpr, in_tree: PyTreeDef, out_tree: PyTreeDef, trace_time: float
    ) -> None:
        self.closed = closed
        self.in_tree = in_tree  # of (dynamic arguments, keyword arguments), as JAX's
        self.in_avals = closed.in_avals
        self.out_avals = closed.out_avals
        self.out_tree = out_tree
        self.single = out_tree.node is None  # one array out: skip tree_unflatten
        # bfloat16 (float8, ...) outputs are read to the host (`_host_output`); others stay on
        # the device
        self.bfloat16 = any(dtypes.no_buffer_protocol(a.dtype) for a in closed.out_avals)
        self.executable: Executable | None = None
        self.timings = {"trace": trace_time}
        self.fast_keys: list[tuple] = []  # its keys in the jitted function's fast table
        # by which leaves are donated and the device: the program with them aliased, and
        # which it uses
        self.donating: dict[tuple, tuple[Executable, list[bool]]] = {}
        self.sharded: dict[tuple, ShardedRun] = {}  # by `Layout.key`: partitioned programs
        # the layout of a call, by its arguments' own shardings (the jit's given ones are
        # fixed for an entry: an entry of a jit with shardings is that jit's alone)
        self.layouts: dict[tuple, Layout | None] = {}
        self.constraints: tuple | None = None  # `with_sharding_constraint`s in the jaxpr
        # by device: the programs for arguments committed to a device that is not the one
        # `executable` runs on (runtime/placement.py)
        self.placed: dict[Any, Executable] = {}

    def launcher(self) -> Callable[[list[Any]], Any]:
        """`run` for the fast path, as one call: a compiled program's `launcher` (with the
        output tree prebuilt, `tree_util.builder`) when no output is read to the host."""
        assert self.executable is not None, "launched before it was compiled"
        if self.bfloat16:
            return self.run
        if self.single:
            return launcher(self.executable)
        build = builder(self.out_tree)  # None for a tree with other nodes: `run` unflattens
        return self.run if build is None else launcher(self.executable, build)

    def run(
        self, buffers: list[Any], executable: Executable | None = None, sharding: Any = None
    ) -> Any:
        """Launch on device buffers (one per input); the outputs as Arrays, in their tree.
        `executable`: another program of this jaxpr (one that takes donated inputs, or runs
        on another device); `sharding`: the outputs' (committed to that device)."""
        executable = executable or self.executable
        if self.single and not self.bfloat16 and sharding is None:  # the common case
            return executable.execute_one(buffers)
        if self.bfloat16:
            outs = list(map(_host_output, executable.execute(buffers), self.out_avals))
        else:
            outs = [
                array.from_buffer(b, a, sharding)
                for b, a in zip(executable.execute(buffers), self.out_avals, strict=True)
            ]
        return outs[0] if self.single else tree_unflatten(self.out_tree, outs)


def donation_aliases(jaxpr: ClosedJaxpr, donated: Sequence[bool]) -> list[int | None]:
    """For each input, the output that reuses its buffer, or None. As JAX pairs them: each
    output, in order, takes the first donated input of its shape and dtype not yet taken.
    A donated input no output can use is kept (not deleted), with JAX's warning."""
    waiting: dict[tuple, list[int]] = {}
    for i, (aval, d) in enumerate(zip(jaxpr.in_avals, donated, strict=True)):
        if d:
            waiting.setdefault((aval.shape, aval.dtype), []).append(i)
    aliases: list[int | None] = [None] * len(donated)
    for k, aval in enumerate(jaxpr.out_avals):
        inputs = waiting.get((aval.shape, aval.dtype))
        if inputs:
            aliases[inputs.pop(0)] = k
    unused = [str(a) for a, d, k in zip(jaxpr.in_avals, donated, aliases) if d and k is None]
    if unused:
        warnings.warn(
            f"Some donated buffers were not usable: {', '.join(unused)}.\n"
            "See an explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation.",
            stacklevel=1,  # as JAX
        )
    return aliases


def donating_call_buffers(
    leaves: Sequence[Any], avals: Sequence[core.ShapedArray], donated: Sequence[bool], device: Any
) -> list[Any]:
    """A donating call's device buffers, for a program on `device` (a donated host value's
    copy goes to the first device, and is moved by the launch): donated leaves' may be
    overwritten. One buffer per
    Array, as in JAX: an Array passed twice with a donated use is then one buffer donated
    and used, which PJRT rejects with JAX's error (an eager Array's donated copy was a
    buffer of its own, and the call ran)."""
    made: dict[int, Any] = {}
    buffers = []
    for x, a, d in zip(leaves, avals, donated, strict=True):
        if type(x) is Array and id(x) in made:
            buffers.append(made[id(x)])
            continue
        if d and type(x) is not Array:  # (a copy of a host value: put on the device)
            transfer_guard.host_to_device(a, device)
        buffers.append(client.donated_buffer(x, a) if d else placement.buffer_on(x, a, device))
        if type(x) is Array:
            made[id(x)] = buffers[-1]
    return buffers


# ----------------------------------------------------------------------------- sharded calls


class Layout:
    """Where a sharded call's values live: the program's devices (a mesh's, in its order),
    each input's and output's given NamedSharding (given to jit, or an argument's own) and its
    HLO sharding text; None where XLA chooses (an uncommitted argument, as JAX leaves it)."""

    __slots__ = ("mesh", "devices", "in_shardings", "in_texts", "out_given", "out_texts", "key")

    def __init__(
        self,
        mesh: Any,
        in_shardings: list[NamedSharding | None],
        in_avals: Sequence[core.ShapedArray],
        out_given: list[NamedSharding | None],
        out_avals: Sequence[core.ShapedArray],
    ) -> None:
        self.mesh = mesh
        self.devices = devices = tuple(mesh.devices.flat)
        self.in_shardings = tuple(in_shardings)
        self.in_texts = tuple(
            None if s is None else s.hlo_text(a.ndim, devices)
            for s, a in zip(in_shardings, in_avals, strict=True)
        )
        self.out_given = tuple(out_given)
        self.out_texts = tuple(
            None if s is None else s.hlo_text(a.ndim, devices)
            for s, a in zip(out_given, out_avals, strict=True)
        )
        # (the mesh too: results' shardings are named on it, and the HLO texts of two meshes
        # of the same devices can be equal, a replicated value's always are)
        self.key = (mesh, devices, self.in_texts, self.out_texts)


def make_layout(
    entry: Entry,
    leaves: Sequence[Any],
    given_in: Sequence[Any] | None,
    given_out: Sequence[Any] | None,
    constraints: Sequence[NamedSharding],
) -> Layout | None:
    """The layout of a call of `entry` on `leaves`, or None when nothing in it is sharded
    (the call then runs on one device). Shardings come from `jit(in_shardings=...)`
    (`given_in`, one per leaf or None), from the arguments themselves (JAX takes a committed
    argument's sharding), from `out_shardings` (`given_out`) and from the jaxpr's
    `with_sharding_constraint`s (`constraints`, which fix the mesh when nothing else does).

    Raises:
      ValueError: shardings over different devices, or an in_sharding that differs from the
        argument's own, as JAX's.
    """
    own = [getattr(x, "_sharding", None) for x in leaves]
    own = [s if type(s) is NamedSharding else None for s in own]
    given_in = [s if type(s) is NamedSharding else None for s in given_in or [None] * len(own)]
    given_out = [s if type(s) is NamedSharding else None for s in given_out or ()]
    given_out = given_out or [None] * len(entry.out_avals)
    explicit = [a.mesh for a in (*entry.in_avals, *entry.out_avals) if type(a) is ShardedArray]
    # sharding in types: each result is split as its type says (on a mesh with an `Auto`
    # axis too, left to the partitioner, as JAX's)
    if explicit and all(t is AxisType.Explicit for t in explicit[0].axis_types):
        given_out = [
            g or typed_sharding.named(a, explicit[0])
            for g, a in zip(given_out, entry.out_avals, strict=True)
        ]
    named = [s for s in (*given_in, *own, *given_out, *constraints) if s is not None]
    if not named:
        return None
    mesh = named[0].mesh
    devices = set(mesh.devices.flat)
    for s in named:
        if s.device_set != devices:
            raise ValueError(
                "Received incompatible devices for jitted computation. Got sharding "
                f"{named[0]!r} with device ids {sorted(d.id for d in devices)} and sharding "
                f"{s!r} with device ids {sorted(d.id for d in s.device_set)}"
            )
    order = tuple(mesh.devices.flat)
    ins = []
    for g, o, aval in zip(given_in, own, entry.in_avals, strict=True):
        if (
            g is not None
            and o is not None
            and g.hlo_text(aval.ndim, order) != o.hlo_text(aval.ndim, order)
        ):
            raise ValueError(
                "Sharding passed to jit does not match the sharding on the respective arg. "
                f"Got jit sharding: {g!r},\narg sharding: {o!r} for arg type: {aval}"
            )
        s = g or o  # None: an uncommitted value, placed as XLA chooses
        if s is not None:
            s.check_shape(aval.shape, "jit")
        ins.append(s)
    for s, aval in zip(given_out, entry.out_avals, strict=True):
        if s is not None:
            s.check_shape(aval.shape, "jit out_shardings")
    return Layout(mesh, ins, entry.in_avals, given_out, entry.out_avals)


def _result_sharding(layout: Layout, aval: core.ShapedArray, text: str) -> NamedSharding:
    # the split XLA chose for a result, named as its type says where the two agree (a result
    # split over Explicit axes of a mesh with Auto ones too, whose split JAX leaves to XLA)
    if type(aval) is ShardedArray:
        named = typed_sharding.named(aval)
        if named.hlo_text(aval.ndim, layout.devices) == text:
            return named
    return named_from_hlo(layout.mesh, aval.ndim, text, layout.devices)


class ShardedRun:
    """An Entry's program partitioned for one layout, and the NamedSharding of each output
    (given, or read back from what XLA chose). `call` places the arguments; `run` launches
    on buffers already placed (the fast path's entry for a sharded signature)."""

    __slots__ = (
        "executable",
        "in_shardings",
        "in_texts",
        "out_shardings",
        "timings",
        "in_avals",
        "out_tree",
        "single",
    )

    def __init__(self, entry: Entry, executable: Executable, layout: Layout, timings: dict) -> None:
        self.executable = executable
        self.timings = timings
        self.in_avals = entry.in_avals
        self.out_tree = entry.out_tree
        self.single = entry.single
        # an input without a given sharding is placed as the compiled program takes it
        self.in_shardings = tuple(
            given or named_from_hlo(layout.mesh, aval.ndim, text, layout.devices)
            for given, aval, text in zip(
                layout.in_shardings, entry.in_avals, executable.in_shardings, strict=True
            )
        )
        self.in_texts = executable.in_shardings
        self.out_shardings = tuple(
            given or _result_sharding(layout, aval, text)
            for given, aval, text in zip(
                layout.out_given, entry.out_avals, executable.out_shardings, strict=True
            )
        )

    def call(self, leaves: Sequence[Any], layout: Layout) -> tuple[Any, bool]:
        """Launch on `leaves`, each put on the devices as the layout splits it unless it
        already is; the outputs (Arrays split over the mesh, in their tree), and whether
        every leaf already was."""
        buffers = []
        placed = True
        for x, s, text in zip(leaves, self.in_shardings, self.in_texts, strict=True):
            own = getattr(x, "_sharding", None)
            buffer = x._buffer if type(x) is Array else None
            if buffer is not None and own is not s:  # split the same way, on the same devices?
                same = type(own) is NamedSharding and own._device_assignment == layout.devices
                if not same or own.hlo_text(len(x.shape), layout.devices) != text:
                    buffer = None
            if buffer is None:
                buffer = put_sharded(x, s)._buffer  # (a sharded Array is gathered first)
                placed = False
            buffers.append(buffer)
        return self.run(buffers), placed

    def run(self, buffers: list[Any]) -> Any:
        """Launch on buffers placed as the layout says; the outputs as Arrays, in their tree."""
        outs = self.executable.execute_sharded(buffers)
        arrays = [
            array.from_buffer(b, a, s)
            for b, a, s in zip(outs, self.executable.out_avals, self.out_shardings, strict=True)
        ]
        return arrays[0] if self.single else tree_unflatten(self.out_tree, arrays)


def partition(entry: Entry, name: str, layout: Layout) -> ShardedRun:
    """`entry`'s program partitioned for `layout`. A value whose sharding XLA chose (an
    uncommitted input, an output given none) in a way no PartitionSpec on the mesh names
    (GSPMD splits `f32[8,4]` split in 4 rows, reshaped to `[2,16]`, in 2x2 blocks over a
    4-device line) is given replicated instead, and the program compiled again, as JAX
    0.10.2's partitioner (Shardy) replicates that reshape's result."""
    _, exe, timings = compile_sharded(entry.closed, name, layout)
    unnamed_in = [
        s is None and not _named(layout, a.ndim, t)
        for s, a, t in zip(layout.in_shardings, entry.in_avals, exe.in_shardings, strict=True)
    ]
    unnamed_out = [
        s is None and not _named(layout, a.ndim, t)
        for s, a, t in zip(layout.out_given, entry.out_avals, exe.out_shardings, strict=True)
    ]
    if any(unnamed_in) or any(unnamed_out):
        replicated = NamedSharding(layout.mesh, PartitionSpec())
        layout = Layout(
            layout.mesh,
            [replicated if u else s for s, u in zip(layout.in_shardings, unnamed_in)],
            entry.in_avals,
            [replicated if u else s for s, u in zip(layout.out_given, unnamed_out)],
            entry.out_avals,
        )
        _, exe, timings = compile_sharded(entry.closed, name, layout)
    return ShardedRun(entry, exe, layout, timings)


def _named(layout: Layout, ndim: int, text: str) -> bool:
    try:
        named_from_hlo(layout.mesh, ndim, text, layout.devices)
    except NotImplementedError:
        return False
    return True


def compile_sharded(
    closed: ClosedJaxpr, name: str, layout: Layout
) -> tuple[lowering.ModuleBuilder, Executable, dict[str, float]]:
    """Lower `closed` with the layout's shardings and compile it for SPMD partitioning."""
    t0 = time.perf_counter()
    builder = lower_sharded(closed, name, layout)
    t1 = time.perf_counter()
    exe = compile_lowered_sharded(builder, closed, layout)
    return builder, exe, {"lower": t1 - t0, "compile": time.perf_counter() - t1}


def lower_sharded(closed: ClosedJaxpr, name: str, layout: Layout) -> lowering.ModuleBuilder:
    return lowering.lower_jaxpr_to_module(
        closed,
        name,
        device_assignment=layout.devices,
        in_shardings=_lowered(layout.in_shardings, closed.in_avals, layout.devices),
        out_shardings=_lowered(layout.out_given, closed.out_avals, layout.devices),
        mesh=layout.mesh,
    )


def _lowered(shardings: Sequence[Any], avals: Sequence[Any], devices: Sequence[Any]) -> list:
    return [
        None if s is None else lowering.sharding_text(s, a.ndim, devices)
        for s, a in zip(shardings, avals, strict=True)
    ]


def compile_lowered_sharded(
    builder: lowering.ModuleBuilder, closed: ClosedJaxpr, layout: Layout
) -> Executable:
    if builder.host_callbacks:
        raise NotImplementedError("jit: a sharded program with host callbacks (debug.print)")
    return compile_module(
        builder.module,
        closed.in_avals,
        closed.out_avals,
        num_partitions=len(layout.devices),
        device_assignment=layout.devices,
        propagate_to_inputs=[t is None for t in layout.in_texts],
        propagate_to_outputs=[t is None for t in layout.out_texts],
    )


def _host_output(buffer: Any, aval: core.ShapedArray) -> Array:
    # bfloat16 buffers cannot be read lazily through the buffer protocol (`buffer_to_numpy`)
    return array.eager_result(buffer_to_numpy(buffer, aval), aval.weak_type)


def out_info(entry: Entry) -> Any:
    leaves = [array.ShapeDtypeStruct.from_aval(a) for a in entry.closed.out_avals]
    return tree_unflatten(entry.out_tree, leaves)


class Traced:
    """A jitted function traced for one signature. Like `jax.stages.Traced`."""

    def __init__(
        self,
        name: str,
        entry: Entry,
        donated: tuple[bool, ...] = (),
        layout: Layout | None = None,
        placement: tuple[Any, bool] = (None, False),
    ) -> None:
        self._entry = entry
        self._donated = donated  # which inputs the jitted function donates
        self._layout = layout  # where the values live, for a sharded call
        # the device of a single-device program, and whether arguments commit it (None: the
        # default device when compiled)
        self._placement = placement
        self.fun_name = name
        self.jaxpr = entry.closed
        self.in_avals = entry.closed.in_avals
        self.out_avals = entry.closed.out_avals
        self.out_tree = entry.out_tree

    @property
    def out_info(self) -> Any:
        return out_info(self._entry)

    def lower(self) -> Lowered:
        """Lower to StableHLO. Like `jax.stages.Traced.lower`."""
        t0 = time.perf_counter()
        closed = self._entry.closed
        if self._layout is not None:
            builder = lower_sharded(closed, self.fun_name, self._layout)
            timings = {"trace": self._entry.timings["trace"], "lower": time.perf_counter() - t0}
            return Lowered(self.fun_name, self._entry, builder, timings, layout=self._layout)
        aliases = donation_aliases(closed, self._donated) if any(self._donated) else []
        builder = lowering.lower_jaxpr_to_module(closed, self.fun_name, aliases)
        timings = {"trace": self._entry.timings["trace"], "lower": time.perf_counter() - t0}
        used = [a is not None for a in aliases]
        return Lowered(
            self.fun_name, self._entry, builder, timings, used, placement=self._placement
        )


class Lowered:
    """A jitted function lowered for one signature. Like `jax.stages.Lowered`."""

    def __init__(
        self,
        name: str,
        entry: Entry,
        builder: lowering.ModuleBuilder,
        timings: dict[str, float],
        donated: Sequence[bool] = (),
        *,
        layout: Layout | None = None,
        placement: tuple[Any, bool] = (None, False),
    ) -> None:
        self.name = name
        self._entry = entry
        self._builder = builder
        self._layout = layout
        self._placement = placement  # as Traced's
        self._donated = list(donated)  # inputs the program overwrites (deleted when called)
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
        if self._layout is not None:
            exe = compile_lowered_sharded(self._builder, self.jaxpr, self._layout)
            timings = {**self.timings, "compile": time.perf_counter() - t0}
            run = self._entry.sharded.setdefault(
                self._layout.key, ShardedRun(self._entry, exe, self._layout, timings)
            )
            return Compiled(
                self.name, self._entry, run.executable, timings, sharded=(run, self._layout)
            )
        device, committed = self._placement
        exe = compile_module(
            self._builder.module,
            self.in_avals,
            self.out_avals,
            self._builder.host_callbacks,
            device=device or placement.default_device(),
        )
        timings = {**self.timings, "compile": time.perf_counter() - t0}
        if self._entry.executable is None and not any(self._donated) and not committed:
            self._entry.executable = exe  # the jitted function's next call reuses it
        sharding = placement.result_sharding(exe.device, committed)
        return Compiled(self.name, self._entry, exe, timings, self._donated, sharding=sharding)


class Compiled:
    """A jitted function compiled for one signature: call it, or read XLA's program and its
    cost. Like `jax.stages.Compiled`."""

    def __init__(
        self,
        name: str,
        entry: Entry,
        exe: Executable,
        timings: dict[str, float],
        donated: Sequence[bool] = (),
        *,
        sharded: tuple[ShardedRun, Layout] | None = None,
        sharding: Any = None,
    ) -> None:
        self.name = name
        self._entry = entry
        self._exe = exe
        self._sharded = sharded  # a partitioned program, and its layout
        self._sharding = sharding  # its results' (committed to its device), or None
        self._donated = list(donated) or [False] * len(entry.in_avals)
        self.timings = timings  # seconds: 'trace', 'lower', 'compile'
        self.in_avals = entry.closed.in_avals
        self.out_avals = entry.closed.out_avals

    def as_text(self) -> str:
        """XLA's optimized HLO."""
        return self._exe.as_text()

    @property
    def input_shardings(self) -> Any:
        """Where the program takes each argument: `((args...), {kwargs})` of shardings (a
        partitioned program's NamedShardings, given or chosen by XLA; else the one device's
        SingleDeviceSharding). Like `jax.stages.Compiled.input_shardings`."""
        flat = self._sharded[0].in_shardings if self._sharded else self._one_device(self.in_avals)
        return tree_unflatten(self._entry.in_tree, list(flat))

    @property
    def output_shardings(self) -> Any:
        """Where the program leaves each output, in the output's tree. Like
        `jax.stages.Compiled.output_shardings`."""
        flat = self._sharded[0].out_shardings if self._sharded else self._one_device(self.out_avals)
        return tree_unflatten(self._entry.out_tree, list(flat))

    @staticmethod
    def _one_device(avals: Sequence[core.ShapedArray]) -> list[Any]:
        return [client.default_sharding()] * len(avals)

    def cost_analysis(self) -> dict[str, float]:
        """XLA's estimate: 'flops', 'transcendentals', 'bytes accessed' (and per-operand
        keys)."""
        return self._exe.cost_analysis()

    def __call__(self, *args: Any) -> Any:
        leaves, _ = tree_flatten(args)
        if any(map(core.is_ref, [*leaves, *self._entry.closed.consts])):  # (jit_refs.py)
            raise NotImplementedError(
                f"Compiled {self.name} takes refs: didax calls such programs only through the "
                "jitted function, which writes the refs' new values back"
            )
        for x, aval in zip(leaves, self.in_avals, strict=True):
            if not core.types_match(core.get_aval(x), aval):
                raise TypeError(
                    f"Compiled {self.name} was compiled for arguments of types "
                    f"({', '.join(a.str_short() for a in self.in_avals)}), got "
                    f"{core.get_aval(x).str_short()}"
                )
        if self._sharded is not None:
            run, layout = self._sharded
            return run.call(leaves, layout)[0]
        buffers = donating_call_buffers(leaves, self.in_avals, self._donated, self._exe.device)
        out = self._entry.run(buffers, self._exe, self._sharding)
        for x, d in zip(leaves, self._donated, strict=True):
            if d and type(x) is Array:
                x.delete()
        return out
