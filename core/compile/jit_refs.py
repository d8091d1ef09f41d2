"""A jitted call whose program takes refs: `Ref` arguments, or refs the function closes over
(constants of its jaxpr). Like JAX 0.10.2, which passes each ref's buffer in and takes its
new value out (an aliased output), then updates the ref.

Layer 4, after jit_primitive (jit.py hands such calls here). Eagerly, the discharged program
(interpreters/discharge.py) runs on the refs' values and the refs get the new ones; a ref the
program only reads is not written. While `make_jaxpr` or an outer `jit` stages the call, the
`jit` equation takes the refs as operands, closed-over ones last, as JAX's does. Under `grad`
or `vmap` the discharged program is bound, with the refs read before and written after (so
writing a differentiated or batched value raises JAX's error there).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from didax import core
from didax.compile.jit_primitive import derived, jit_p, unspecified
from didax.compile.stages import Entry
from didax.control_flow.common import fun_sourceinfo
from didax.interpreters import discharge
from didax.interpreters.staging import JaxprTrace
from didax.jaxpr import ClosedJaxpr, Jaxpr
from didax.primitives import refs
from didax.ref_types import AbstractRef
from didax.tree_util import tree_unflatten


def is_argument(x: Any) -> bool:
    """Whether a jitted function takes `x` as an argument: an array, a scalar or a ref."""
    return core.is_arraylike(x) or core.is_ref(x)


def takes_refs(fn: Callable[..., Any], closed: ClosedJaxpr) -> bool:
    """Whether the jaxpr of the jitted `fn` takes refs (as arguments or constants). Raises
    JAX's ValueError when it returns one."""
    return derived(closed, ("takes_refs",), lambda: _takes_refs(fn, closed))


def _takes_refs(fn: Callable[..., Any], closed: ClosedJaxpr) -> bool:
    for aval in closed.out_avals:
        if type(aval) is AbstractRef:
            raise ValueError(
                f"function {fun_sourceinfo(fn)} traced for jit returned a mutable array "
                f"reference of type {aval}, but mutable array references cannot be returned."
            )
    return any(discharge.ref_inputs(closed))


def call(name: str, entry: Entry, leaves: list[Any], inline: bool) -> Any:
    """Run the jitted program of `entry` on `leaves`, updating the refs among them and among
    its constants; its outputs."""
    return tree_unflatten(entry.out_tree, _call_flat(name, entry.closed, leaves, inline))


def _call_flat(name: str, closed: ClosedJaxpr, leaves: list[Any], inline: bool) -> list[Any]:
    ref_consts = [c for c in closed.consts if refs.is_ref(c)]
    state = core.trace_state()
    top = state.stack[-1]
    if len(state.stack) > 1 and issubclass(top.trace_type, JaxprTrace):  # staged: JAX's eqn
        moved = derived(closed, ("refs_as_operands",), lambda: _refs_as_operands(closed))
        operands = [*leaves, *ref_consts]
        return jit_p.bind(*operands, **_params(name, moved, inline))
    pure = derived(closed, ("discharged",), lambda: discharge.discharge(closed))
    inputs = [*leaves, *ref_consts]
    outs = jit_p.bind(
        *(refs.get_bind(x, [], None) if refs.is_ref(x) else x for x in inputs),
        **_params(name, pure, inline),
    )
    j = pure.jaxpr
    for x, var, out in zip(inputs, j.invars, discharge.aliases(closed), strict=True):
        if out is not None and j.outvars[out] is not var:  # a ref the program writes
            refs.swap_bind(x, outs[out], [], None)
    return outs[: len(closed.jaxpr.outvars)]


def _params(name: str, closed: ClosedJaxpr, inline: bool) -> dict[str, Any]:
    return {
        "name": name,
        "jaxpr": closed,
        "in_shardings": unspecified(len(closed.jaxpr.invars)),
        "out_shardings": unspecified(len(closed.jaxpr.outvars)),
        "inline": inline,
    }


def _refs_as_operands(closed: ClosedJaxpr) -> ClosedJaxpr:
    # the closed-over refs made invars, after the arguments (as JAX's `jit` equation has them)
    j = closed.jaxpr
    is_ref = [refs.is_ref(c) for c in closed.consts]
    kept = [v for v, r in zip(j.constvars, is_ref, strict=True) if not r]
    moved = [v for v, r in zip(j.constvars, is_ref, strict=True) if r]
    consts = [c for c, r in zip(closed.consts, is_ref, strict=True) if not r]
    return ClosedJaxpr(Jaxpr(kept, [*j.invars, *moved], j.outvars, j.eqns), consts)
