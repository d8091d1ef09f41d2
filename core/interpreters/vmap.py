"""Batching: the vmap interpreter.

Layer 3 (autodidax part 1, "Vectorized batching with vmap"). A `BatchTracer` carries a value
with an extra axis and the position of that axis (`batch_dim`, or `NOT_MAPPED` for a value
that is the same for every element of the batch). `BatchTrace` applies each primitive's vmap
rule, which returns the batched outputs and their batch dims.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from didax import core, sharded_aval
from didax import source_info as si
from didax.core import NOT_MAPPED
from didax.interpreters import staging
from didax.jaxpr import ClosedJaxpr, eval_jaxpr
from didax.primitives import shape
from didax.ref_types import AbstractRef


class BatchTracer(core.Tracer):
    __slots__ = ("val", "batch_dim")

    def __repr__(self) -> str:  # as JAX 0.10.2 prints it
        return f"VmapTracer(aval={self.aval}, batched={core.get_aval(self.val)})"

    def __init__(self, trace: BatchTrace, val: Any, batch_dim: Any) -> None:
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim

    @property
    def aval(self) -> core.ShapedArray:
        aval = core.get_aval(self.val)
        if self.batch_dim is NOT_MAPPED:
            return aval
        if type(aval) is AbstractRef:  # a batched ref (a box, primitives/refs.py)
            return AbstractRef(aval.inner_aval.update(shape=aval.shape[1:]))
        shp = aval.shape[: self.batch_dim] + aval.shape[self.batch_dim + 1 :]
        if aval.vma or type(aval) is core.ShardedArray:  # (a check_vma body; a split kept)
            return sharded_aval.reshaped(aval, shp, self.batch_dim, None)
        return core.ShapedArray(shp, aval.dtype, aval.weak_type)

    def full_lower(self) -> Any:
        return core.full_lower(self.val) if self.batch_dim is NOT_MAPPED else self


class BatchTrace(core.Trace):
    @property
    def axis_size(self) -> core.AxisSize:
        return self.main.global_data

    def lift(self, val: Any) -> BatchTracer:
        return BatchTracer(self, val, NOT_MAPPED)

    def process_primitive(self, primitive, tracers, params):
        vals = [t.val for t in tracers]
        dims = [t.batch_dim for t in tracers]
        names = core.axis_names(primitive, params)
        # a collective over this trace's axis acts even on unbatched values (psum(1, "i") is
        # the axis size)
        if (
            all(d is NOT_MAPPED for d in dims)
            and (names is None or self.axis_size.name not in names)
            and primitive not in core.stateful  # (a ref made under vmap is batched)
        ):
            outs = core.bind(primitive, vals, params)
            return [BatchTracer(self, x, NOT_MAPPED) for x in outs]
        d = self.main.deriving
        mark = si.begin_rule(d, "moved")  # the rule's transposes and broadcasts
        try:
            vals_out, dims_out = core.vmap_rules[primitive](self.axis_size, vals, dims, **params)
        finally:  # what applies `primitive` is the batched equation (its changed params shown)
            si.end_rule(d, mark, lambda e: _batched(e, primitive, params))
        return [BatchTracer(self, x, d) for x, d in zip(vals_out, dims_out, strict=True)]


def _batched(eqn: Any, primitive: core.Primitive, params: dict) -> si.Derivation | None:
    if eqn.primitive is not primitive:
        return None
    return eqn.derivation._replace(role="batched", params=params)


def vmap_flat(
    fn: Callable[..., Sequence[Any]],
    axis_size: int,
    in_dims: Sequence[Any],
    args: Sequence[Any],
    out_dims: Sequence[Any] | None = None,
    axis_name: Any = None,
) -> tuple[list[Any], list[Any]]:
    """Map `fn` over `axis_size` elements. Inputs are batched along `in_dims`; outputs come
    back with their batch axis moved to `out_dims` (None: left where the rules put it,
    reported in the second list). Collectives in `fn` name the axis `axis_name`; an
    `AxisSize` passed as `axis_size` brings its own name."""
    __tracebackhide__ = True  # engine frame: IPython leaves it out of tracebacks
    if not isinstance(axis_size, core.AxisSize):
        axis_size = core.AxisSize(axis_size, axis_name)
    with core.new_main(BatchTrace, axis_size) as main:
        trace = main.trace
        tracers_in = [
            BatchTracer(trace, x, NOT_MAPPED if d is None else d)
            for x, d in zip(args, in_dims, strict=True)
        ]
        outs = [trace.full_raise(out) for out in fn(*tracers_in)]
        vals = [core.full_lower(t.val) for t in outs]
        dims = [t.batch_dim for t in outs]
    if out_dims is None:
        return vals, dims
    return move_out_axes(vals, dims, out_dims, axis_size), list(out_dims)


def move_out_axes(
    vals: Sequence[Any], dims: Sequence[Any], out_dims: Sequence[Any], axis_size: int
) -> list[Any]:
    """Move each output's batch axis from `dims` (where the rules left it) to `out_dims`
    (`vmap`'s `out_axes`: an axis, negative ones counted from the end, or None for an
    unmapped output)."""
    moved = []
    for val, d, dst in zip(vals, dims, out_dims, strict=True):
        if dst is None:
            if d is not NOT_MAPPED:
                raise ValueError("vmap has mapped output but out_axes is None")
            moved.append(val)
            continue
        ndim = core.get_aval(val).ndim + (1 if d is NOT_MAPPED else 0)
        if not -ndim <= dst < ndim:
            raise ValueError(f"vmap out_axes {dst} is out of bounds for an output of rank {ndim}")
        moved.append(shape.move_axis(val, d, dst % ndim, axis_size))
    return moved


def vmap_jaxpr(
    closed: ClosedJaxpr, axis_size: int, in_dims: Sequence[Any], out_dims: Sequence[Any]
) -> ClosedJaxpr:
    """The batched jaxpr: inputs batched at `in_dims` (NOT_MAPPED for unbatched), outputs at
    `out_dims` (each an int: unbatched outputs are broadcast). For higher-order rules."""
    in_avals = []
    for aval, d in zip(closed.in_avals, in_dims, strict=True):
        if d is NOT_MAPPED:
            in_avals.append(aval)
        else:
            shp = list(aval.shape)
            shp.insert(d, axis_size)
            in_avals.append(sharded_aval.reshaped(aval, tuple(shp), d, ()))

    def fn(*args: Any) -> list[Any]:
        dims = [None if d is NOT_MAPPED else d for d in in_dims]
        outs, _ = vmap_flat(
            lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs),
            axis_size,
            dims,
            args,
            out_dims,
        )
        return outs

    return staging.trace_to_jaxpr(fn, in_avals)


def batched_out_dims(closed: ClosedJaxpr, axis_size: int, in_dims: Sequence[Any]) -> list[Any]:
    """Which outputs of `closed` come out batched for these input dims (found by tracing)."""
    in_avals = []
    for aval, d in zip(closed.in_avals, in_dims, strict=True):
        shp = list(aval.shape)
        if d is not NOT_MAPPED:
            shp.insert(d, axis_size)
        in_avals.append(aval if d is NOT_MAPPED else sharded_aval.reshaped(aval, tuple(shp), d, ()))
    found: list[Any] = []

    def fn(*args: Any) -> list[Any]:
        dims = [None if d is NOT_MAPPED else d for d in in_dims]
        outs, out_dims = vmap_flat(
            lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs), axis_size, dims, args
        )
        found[:] = out_dims
        return outs

    staging.trace_to_jaxpr(fn, in_avals)
    return found
