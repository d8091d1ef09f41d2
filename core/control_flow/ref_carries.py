"""Refs a loop's body, a cond's branch or a checkpointed function closes over, threaded
through it as carries or operands. Like JAX's discharge rules of `scan`, `while`, `cond` and
`remat` for refs.

Layer 4, after common. A `scan` or `while_loop` whose traced body (or predicate) reads or
writes refs made outside it runs a loop on the discharged body (interpreters/discharge.py):
the refs' values are read before the loop, carried through it beside the user's carry, and
written back after it (only the refs the body writes). A `cond` passes them to every branch
and takes their new values out, as `checkpoint` does to its function. A ref made inside the body stays a ref of the body's own
program.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from didax import core
from didax.interpreters import discharge
from didax.jaxpr import ClosedJaxpr, eval_jaxpr
from didax.primitives import refs
from didax.tree_util import PyTreeDef, tree_leaves, tree_unflatten


def closes_over_refs(*consts: Sequence[Any]) -> bool:
    """Whether any of the consts hoisted from a traced body is a ref."""
    return any(core.is_ref(c) for cs in consts for c in cs)


class _Body:
    """A traced body (consts hoisted as leading invars) run on its discharged program: its
    refs' values come in at their places among the consts, and their new values out last."""

    def __init__(self, closed: ClosedJaxpr, consts: list[Any], outer: list[Any]) -> None:
        self.pure = discharge.discharge(closed)
        self.consts = consts
        self.n_out = len(closed.jaxpr.outvars)
        self.slots = [
            next(i for i, r in enumerate(outer) if r is c) for c in consts if core.is_ref(c)
        ]
        j = self.pure.jaxpr
        ref_vars = [v for v, c in zip(j.invars, consts) if core.is_ref(c)]
        self.written = [j.outvars[self.n_out + k] is not v for k, v in enumerate(ref_vars)]

    def __call__(self, values: list[Any], args: list[Any]) -> tuple[list[Any], list[Any]]:
        own = iter([values[i] for i in self.slots])
        operands = [next(own) if core.is_ref(c) else c for c in self.consts]
        outs = eval_jaxpr(self.pure.jaxpr, self.pure.consts, *operands, *args)
        new = list(values)
        for i, v in zip(self.slots, outs[self.n_out :], strict=True):
            new[i] = v
        return outs[: self.n_out], new


def _outer_refs(*consts: Sequence[Any]) -> list[Any]:
    found: list[Any] = []
    for c in (c for cs in consts for c in cs):
        if core.is_ref(c) and not any(c is r for r in found):
            found.append(c)
    return found


def _write_back(outer: list[Any], values: list[Any], bodies: Sequence[_Body]) -> None:
    for i, (ref, value) in enumerate(zip(outer, values, strict=True)):
        if any(w for b in bodies for s, w in zip(b.slots, b.written, strict=True) if s == i):
            refs.swap_bind(ref, value, [], None)


def scan(
    scan_fn: Callable[..., Any],
    jaxpr: ClosedJaxpr,
    consts: list[Any],
    out_tree: PyTreeDef,
    init: Any,
    xs: Any,
    **options: Any,
) -> Any:
    """`scan_fn(f, init, xs, **options)` for the body `f` traced to `jaxpr`, whose `consts`
    include refs: their values carried beside `init`."""
    outer = _outer_refs(consts)
    body = _Body(jaxpr, consts, outer)

    def step(carry: Any, x: Any) -> Any:
        values, c = carry
        outs, values = body(values, [*tree_leaves(c), *tree_leaves(x)])
        c, y = tree_unflatten(out_tree, outs)
        return (values, c), y

    start = [refs.get_bind(r, [], None) for r in outer]
    (values, carry), ys = scan_fn(step, (start, init), xs, **options)
    _write_back(outer, values, [body])
    return carry, ys


def while_loop(
    while_fn: Callable[..., Any],
    cond: tuple[ClosedJaxpr, list[Any]],
    body: tuple[ClosedJaxpr, list[Any]],
    body_tree: PyTreeDef,
    init: Any,
) -> Any:
    """`while_fn(cond_fun, body_fun, init)` for a predicate and a body traced to `cond` and
    `body` (jaxpr, consts), whose consts include refs: their values carried beside `init`."""
    outer = _outer_refs(cond[1], body[1])
    cond_body, step_body = _Body(*cond, outer), _Body(*body, outer)

    def cond_fun(carry: Any) -> Any:
        values, c = carry
        return cond_body(values, tree_leaves(c))[0][0]

    def body_fun(carry: Any) -> Any:
        values, c = carry
        outs, values = step_body(values, tree_leaves(c))
        return values, tree_unflatten(body_tree, outs)

    start = [refs.get_bind(r, [], None) for r in outer]
    values, out = while_fn(cond_fun, body_fun, (start, init))
    _write_back(outer, values, [cond_body, step_body])
    return out


def threaded(bind: Callable[[list, tuple], Any], traced: Sequence[tuple], operands: tuple) -> Any:
    """`bind(functions, operands)` (a cond's branches, a checkpointed function) for functions
    traced to (jaxpr, consts, out_tree) whose consts include refs: each function takes their
    values first and returns (its outputs, their new values)."""
    outer = _outer_refs(*(t[1] for t in traced))
    bodies = [_Body(jaxpr, consts, outer) for jaxpr, consts, _ in traced]

    def branch(body: _Body, out_tree: PyTreeDef) -> Callable[..., Any]:
        def run(values: list[Any], *operands: Any) -> tuple[Any, list[Any]]:
            outs, values = body(values, tree_leaves(operands))
            return tree_unflatten(out_tree, outs), values

        return run

    branches = [branch(b, t[2]) for b, t in zip(bodies, traced, strict=True)]
    start = [refs.get_bind(r, [], None) for r in outer]
    out, values = bind(branches, (start, *operands))
    _write_back(outer, values, bodies)
    return out
