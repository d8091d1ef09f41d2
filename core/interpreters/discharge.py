"""Discharge: a jaxpr that reads and writes refs, as one that does not. Like JAX's
`discharge_state`.

Layer 3. The refs a jaxpr takes (its ref-typed constvars and invars) become array inputs,
and their final values extra outputs; each ref the program makes, reads or writes becomes a
box (primitives/refs.py) whose reads and writes stage the functional updates `x[idx]` and
`x.at[idx].set(v)`. `jit` compiles the discharged program and writes the new values back
into the refs after the call, as JAX aliases a ref argument's input and output buffers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from didax import core
from didax.interpreters import staging
from didax.jaxpr import ClosedJaxpr, Jaxpr, Literal, bind_eqn
from didax.primitives import refs
from didax.primitives.ad_helpers import instantiate
from didax.ref_types import AbstractRef


def ref_inputs(closed: ClosedJaxpr) -> list[bool]:
    """Which of the jaxpr's invars, then constvars, are refs (the order of the discharged
    program's inputs, and of JAX's: closed-over refs after the arguments)."""
    j = closed.jaxpr
    return [_is_ref(v) for v in (*j.invars, *j.constvars)]


def discharge(closed: ClosedJaxpr) -> ClosedJaxpr:
    """`closed` without refs: its inputs are its invars (a ref's value in its place), then the
    values of its ref constvars; its outputs, its own then the final value of each ref
    input, in that order. Its other constants stay constants."""
    j = closed.jaxpr
    ref_consts = [_is_ref(v) for v in j.constvars]
    in_avals = [
        *(v.aval.inner_aval if _is_ref(v) else v.aval for v in j.invars),
        *(v.aval.inner_aval for v in j.constvars if _is_ref(v)),
    ]

    def run(*vals: Any) -> list[Any]:
        n = len(j.invars)
        args = [refs.box(x) if _is_ref(v) else x for v, x in zip(j.invars, vals[:n], strict=True)]
        boxes = iter([refs.box(v) for v in vals[n:]])
        consts = [next(boxes) if r else c for r, c in zip(ref_consts, closed.consts, strict=True)]
        outs = run_jaxpr(j, consts, args)
        written = [r._buf for r in (*args, *consts) if type(r) is refs.Ref]
        return [*outs, *written]

    return staging.trace_to_jaxpr(run, in_avals)


def aliases(closed: ClosedJaxpr) -> list[int | None]:
    """For each input of `discharge(closed)`, the output holding its new value (a ref's)."""
    j = closed.jaxpr
    inputs = [*j.invars, *(v for v in j.constvars if _is_ref(v))]
    out: list[int | None] = []
    k = len(j.outvars)
    for v in inputs:
        out.append(k if _is_ref(v) else None)
        k += _is_ref(v)
    return out


def _is_ref(v: Any) -> bool:
    return type(v.aval) is AbstractRef


def run_jaxpr(jaxpr: Jaxpr, consts: Sequence[Any], args: Sequence[Any]) -> list[Any]:
    """Evaluate `jaxpr` with boxes for its refs: what the ref primitives do becomes
    functional updates of the boxes' values; a nested program taking refs (a `jit`) is run
    in place."""
    env: dict[Any, Any] = dict(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, args, strict=True))

    def read(atom: Any) -> Any:
        return atom.value if isinstance(atom, Literal) else env[atom]

    for i, eqn in enumerate(jaxpr.eqns):
        operands = [read(x) for x in eqn.invars]
        if eqn.primitive in core.stateful:
            outs = _box_rule(eqn.primitive, operands, eqn.params)
        elif any(_is_ref(x) for x in eqn.invars if not isinstance(x, Literal)):
            inner = eqn.params.get("jaxpr")
            if not isinstance(inner, ClosedJaxpr):
                raise NotImplementedError(
                    f"{eqn.primitive}: refs passed to it cannot be discharged (only `jit` "
                    "takes refs)"
                )
            outs = run_jaxpr(inner.jaxpr, inner.consts, operands)
        else:
            outs = bind_eqn(eqn, operands, i)
        env.update(zip(eqn.outvars, outs, strict=True))
    return [read(x) for x in jaxpr.outvars]


def _box_rule(primitive: core.Primitive, operands: list[Any], params: dict) -> list[Any]:
    if primitive is refs.new_ref_p:
        return [refs.box(operands[0])]
    if primitive is refs.empty_ref_p:
        return [refs.box(instantiate(core.Zero(params["ty"])))]
    if primitive is refs.free_ref_p:
        return []
    ref, *rest = operands
    if primitive is refs.freeze_p:
        return [refs.freeze_bind(ref)]
    indexer = params["indexer"]
    if primitive is refs.get_p:
        return [refs.get_bind(ref, rest, indexer)]
    if primitive is refs.swap_p:
        return [refs.swap_bind(ref, rest[0], rest[1:], indexer)]
    refs.addupdate_bind(ref, rest[0], rest[1:], indexer)
    return []
