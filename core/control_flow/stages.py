"""A jitted function at one signature, and the AOT stages that show it.

Layer 4. `Entry` is one cache entry of a jitted function (`jit.py`): the jaxpr traced for one
signature, its output tree and its executable, compiled lazily. `jit(f).trace(x)` ->
`Traced` (the jaxpr) -> `.lower()` -> `Lowered` (StableHLO) -> `.compile()` -> `Compiled`
(optimized HLO, cost analysis, callable), with each phase's time in `.timings`; like
`jax.stages`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from didax import array, backend, core, dtypes
from didax.array import Array
from didax.control_flow.jit_primitive import donation_aliases
from didax.interpreters import lowering
from didax.jaxpr import ClosedJaxpr
from didax.tree_util import PyTreeDef, tree_flatten, tree_unflatten


class Entry:
    """One cache entry of a jitted function: its jaxpr at one signature, compiled lazily."""

    __slots__ = (
        "closed",
        "in_avals",
        "out_avals",
        "out_tree",
        "single",
        "bfloat16",
        "executable",
        "timings",
        "fast_keys",
        "donating",
    )

    def __init__(self, closed: ClosedJaxpr, out_tree: PyTreeDef, trace_time: float) -> None:
        self.closed = closed
        self.in_avals = closed.in_avals
        self.out_avals = closed.out_avals
        self.out_tree = out_tree
        self.single = out_tree.node is None  # one array out: skip tree_unflatten
        # bfloat16 outputs are read to the host (`_host_output`); others stay on the device
        self.bfloat16 = any(a.dtype == dtypes.bfloat16 for a in closed.out_avals)
        self.executable: backend.Executable | None = None
        self.timings = {"trace": trace_time}
        self.fast_keys: list[tuple] = []  # its keys in the jitted function's fast table
        # by which leaves are donated: the program with them aliased, and which it uses
        self.donating: dict[tuple[bool, ...], tuple[backend.Executable, list[bool]]] = {}

    def run(self, buffers: list[Any], executable: backend.Executable | None = None) -> Any:
        """Launch on device buffers (one per input); the outputs as Arrays, in their tree.
        `executable`: another program of this jaxpr (one that takes donated inputs)."""
        executable = executable or self.executable
        if self.single and not self.bfloat16:  # the common case, in one call
            return executable.execute_one(buffers)
        wrap = _host_output if self.bfloat16 else array.from_buffer
        outs = list(map(wrap, executable.execute(buffers), self.out_avals))
        return outs[0] if self.single else tree_unflatten(self.out_tree, outs)


def _host_output(buffer: Any, aval: core.ShapedArray) -> Array:
    # bfloat16 buffers cannot be read lazily through the buffer protocol (`backend.buffer_to_numpy`)
    return array.eager_result(backend.buffer_to_numpy(buffer, aval), aval.weak_type)


def out_info(entry: Entry) -> Any:
    leaves = [array.ShapeDtypeStruct.from_aval(a) for a in entry.closed.out_avals]
    return tree_unflatten(entry.out_tree, leaves)


class Traced:
    """A jitted function traced for one signature. Like `jax.stages.Traced`."""

    def __init__(self, name: str, entry: Entry, donated: tuple[bool, ...] = ()) -> None:
        self._entry = entry
        self._donated = donated  # which inputs the jitted function donates
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
        aliases = donation_aliases(closed, self._donated) if any(self._donated) else []
        builder = lowering.lower_jaxpr_to_module(closed, self.fun_name, aliases)
        timings = {"trace": self._entry.timings["trace"], "lower": time.perf_counter() - t0}
        used = [a is not None for a in aliases]
        return Lowered(self.fun_name, self._entry, builder, timings, used)


class Lowered:
    """A jitted function lowered for one signature. Like `jax.stages.Lowered`."""

    def __init__(
        self,
        name: str,
        entry: Entry,
        builder: lowering.ModuleBuilder,
        timings: dict[str, float],
        donated: Sequence[bool] = (),
    ) -> None:
        self.name = name
        self._entry = entry
        self._builder = builder
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
        exe = backend.compile_module(
            self._builder.module, self.in_avals, self.out_avals, self._builder.host_callbacks
        )
        timings = {**self.timings, "compile": time.perf_counter() - t0}
        if self._entry.executable is None and not any(self._donated):
            self._entry.executable = exe  # the jitted function's next call reuses it
        return Compiled(self.name, self._entry, exe, timings, self._donated)


class Compiled:
    """A jitted function compiled for one signature: call it, or read XLA's program and its
    cost. Like `jax.stages.Compiled`."""

    def __init__(
        self,
        name: str,
        entry: Entry,
        exe: backend.Executable,
        timings: dict[str, float],
        donated: Sequence[bool] = (),
    ) -> None:
        self.name = name
        self._entry = entry
        self._exe = exe
        self._donated = list(donated) or [False] * len(entry.in_avals)
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
        buffers = [
            backend.donated_buffer(x, a) if d else backend.host_buffer(x, a)
            for x, a, d in zip(leaves, self.in_avals, self._donated, strict=True)
        ]
        out = self._entry.run(buffers, self._exe)
        for x, d in zip(leaves, self._donated, strict=True):
            if d and type(x) is Array:
                x.delete()
        return out
