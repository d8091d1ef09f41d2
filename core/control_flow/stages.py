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

import numpy as np
from didax import array, backend, core, dtypes
from didax.array import Array
from didax.interpreters import lowering
from didax.jaxpr import ClosedJaxpr
from didax.tree_util import PyTreeDef, tree_flatten, tree_unflatten


class Entry:
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


def out_info(entry: Entry) -> Any:
    leaves = [array.ShapeDtypeStruct.from_aval(a) for a in entry.closed.out_avals]
    return tree_unflatten(entry.out_tree, leaves)


class Traced:
    """A jitted function traced for one signature. Like `jax.stages.Traced`."""

    def __init__(self, name: str, entry: Entry) -> None:
        self._entry = entry
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
        builder = lowering.lower_jaxpr_to_module(self._entry.closed, self.fun_name)
        timings = {"trace": self._entry.timings["trace"], "lower": time.perf_counter() - t0}
        return Lowered(self.fun_name, self._entry, builder, timings)


class Lowered:
    """A jitted function lowered for one signature. Like `jax.stages.Lowered`."""

    def __init__(
        self, name: str, entry: Entry, builder: lowering.ModuleBuilder, timings: dict[str, float]
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
        self, name: str, entry: Entry, exe: backend.Executable, timings: dict[str, float]
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
