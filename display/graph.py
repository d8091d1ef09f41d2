"""The dataflow graph of a jaxpr's top-level equations, as plain data (no layout library).

Layer 6. `graph_model` gives nodes (inputs, constants, one per equation, outputs) and edges
(one per variable use); `Placed` is a laid-out graph, which didax.widgets' `layout.py` makes
with grandalf's Sugiyama layout and `markup.graph_svg` draws.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

import didax
import didax.numpy as jnp
import numpy as np
from didax.display.program import first_eqns, print_params, printed_names, source_line
from didax.jaxpr import ClosedJaxpr, Jaxpr, Literal, bind_eqn, part_name


@dataclass(frozen=True)
class Node:
    id: int
    label: str
    kind: str  # "input", "const", "eqn", "output"
    detail: str  # hover text: types, params, source line
    eqn: int | None = None  # top-level equation index
    value: str = ""  # for a concrete call: the value it made (its first output)
    grad: str = ""  # and the cotangent that flowed back to it (a scalar program's)
    group: str = ""  # an expanded nested jaxpr's equation: which one (`eqn 3/branch 1`)
    parent: int | None = None  # and the top-level equation holding it


@dataclass(frozen=True)
class Edge:
    src: int
    dst: int
    label: str  # the variable carried
    type: str = ""  # its type, `f32[3]`

    @property
    def text(self) -> str:
        """What the drawing writes on the edge: `b:f32[3]`."""
        return f"{self.label}:{self.type}" if self.type else self.label


@dataclass(frozen=True)
class GraphModel:
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    start: int = 0  # the equations drawn: [start, stop) of total
    stop: int = 0
    total: int = 0

    def note(self) -> str:
        """What part of the program is drawn, when not all of it is."""
        if self.stop - self.start >= self.total:
            return ""
        return (
            f"equations {self.start:,}-{self.stop - 1:,} of {self.total:,} drawn "
            f"({WINDOW:,} at a time); values from outside come in as inputs"
        )


WINDOW = 2000  # equations drawn at once: a bigger program is shown a window at a time


def graph_model(
    closed: Any,
    start: int = 0,
    window: int = WINDOW,
    args: Sequence[Any] | None = None,
    expanded: Collection[int] = (),
) -> GraphModel:
    """The top-level dataflow graph: inputs and constants, one node per equation (a nested
    jaxpr is one node), outputs; an edge per variable use. At most `window` equations from
    `start` are drawn: values they use from earlier equations are input nodes, and only the
    outputs they make are output nodes. Given the call's `args`, each node shows the value
    it made and, for a program of one float scalar output, the cotangent that reached it.
    The equations in `expanded` (top-level indices) show their nested jaxprs' equations
    above them, in groups: operands flow into the body, the body's results into the
    equation, which still makes its outputs."""
    top = closed.jaxpr if isinstance(closed, ClosedJaxpr) else closed
    values, grads = flow(closed, args) if args is not None else ({}, {})
    nodes: list[Node] = []
    edges: list[Edge] = []
    producer: dict[int, int] = {}
    start = max(0, min(start, len(top.eqns) - 1))
    stop = min(len(top.eqns), start + window)
    names = printed_names(first_eqns(top, stop))  # the printer's names, up to the window's end
    for kind, vars_ in (("const", top.constvars), ("input", top.invars)):
        for v in vars_:
            nodes.append(
                _with_flow(
                    Node(len(nodes), names.get(id(v), "?"), kind, f"{kind} {v.aval.str_short()}"),
                    v,
                    values,
                    grads,
                )
            )
            producer[id(v)] = nodes[-1].id
    used = {id(v) for e in top.eqns[start:stop] for v in e.invars}
    for i, eqn in enumerate(top.eqns[:start]):
        for v in eqn.outvars:
            if id(v) in used:
                name = names.get(id(v), "?")
                detail = f"{name}:{v.aval.str_short()}, made by eqn {i} (not drawn)"
                nodes.append(Node(len(nodes), name, "input", detail))
                producer[id(v)] = nodes[-1].id
    for i, eqn in enumerate(top.eqns[start:stop], start):
        outs = " ".join(f"{names.get(id(v), '_')}:{v.aval.str_short()}" for v in eqn.outvars)
        src = source_line(eqn)
        detail = f"{outs} = {eqn.primitive.name}" + (f"\n{src.describe()}" if src else "")
        node = Node(len(nodes), eqn.primitive.name, "eqn", detail, eqn=i)
        node = _with_flow(node, eqn.outvars[0], values, grads) if eqn.outvars else node
        if i in expanded:  # its bodies first; their results flow into it
            results = _expand(eqn, i, nodes, edges, producer, names)
            node = replace(node, id=len(nodes))
            edges += [Edge(src, node.id, label, type_) for src, label, type_ in results]
        nodes.append(node)
        for v in eqn.invars:
            if id(v) in producer:
                edges.append(_edge(producer[id(v)], node.id, v, names))
        for v in eqn.outvars:
            producer[id(v)] = node.id
    for i, v in enumerate(top.outvars):
        if id(v) not in producer and not isinstance(v, Literal) and stop - start < len(top.eqns):
            continue  # made by an equation outside the window
        node = Node(len(nodes), f"out {i}", "output", f"output {i}: {v.aval.str_short()}")
        nodes.append(node)
        if id(v) in producer:
            edges.append(_edge(producer[id(v)], node.id, v, names))
    return GraphModel(tuple(nodes), tuple(edges), start, stop, len(top.eqns))


def expandable(closed: Any) -> list[tuple[int, str]]:
    """The top-level equations holding nested jaxprs: (index, `eqn 3 cond`)."""
    top = closed.jaxpr if isinstance(closed, ClosedJaxpr) else closed
    return [(i, f"eqn {i} {e.primitive.name}") for i, e in enumerate(top.eqns) if _bodies(e)]


def _bodies(eqn: Any) -> list[tuple[str, Any]]:
    out = []
    for name, v in print_params(eqn):
        items = v if isinstance(v, tuple) else (v,)
        for k, sub in enumerate(items):
            if isinstance(sub, (Jaxpr, ClosedJaxpr)):
                part = part_name(name, k if isinstance(v, tuple) else None)
                out.append((part, sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub))
    return out


def _expand(
    eqn: Any,
    i: int,
    nodes: list[Node],
    edges: list[Edge],
    producer: dict[int, int],
    names: dict[int, str],
) -> list[tuple[int, str, str]]:
    # a body's inputs are the equation's last operands (jit, cond's branches, scan and
    # while's body); returns its results' (node, label, type), to flow into the equation
    results = []
    for part, body in _bodies(eqn):
        group = f"eqn {i}/{part}"
        offset = len(eqn.invars) - len(body.invars)
        inner: dict[int, int] = {}
        if offset >= 0:
            for v, outer in zip(body.invars, eqn.invars[offset:], strict=True):
                if id(outer) in producer:
                    inner[id(v)] = producer[id(outer)]
        for k, e in enumerate(body.eqns):
            detail = f"{group}/eqn {k}: {e.primitive.name}"
            node = Node(len(nodes), e.primitive.name, "eqn", detail, group=group, parent=i)
            nodes.append(node)
            for v in e.invars:
                if id(v) in inner:
                    edges.append(
                        Edge(inner[id(v)], node.id, names.get(id(v), "?"), v.aval.str_short())
                    )
            for v in e.outvars:
                inner[id(v)] = node.id
        for k, v in enumerate(body.outvars):
            if id(v) in inner:
                results.append((inner[id(v)], f"out {k}", v.aval.str_short()))
    return results


def flow(closed: Any, args: Sequence[Any]) -> tuple[dict[int, Any], dict[int, Any]]:
    """The value of every top-level variable of `closed` on `args` (id(var) -> value) and,
    when the program has one float scalar output, the cotangent that reaches each float one:
    the gradient of the output with respect to a perturbation added to it (micrograd's
    picture, from the real program)."""
    top = closed.jaxpr if isinstance(closed, ClosedJaxpr) else closed
    consts = closed.consts if isinstance(closed, ClosedJaxpr) else []
    made = [v for v in [*top.constvars, *top.invars] + [v for e in top.eqns for v in e.outvars]]
    floats = [v for v in made if jnp.issubdtype(v.aval.dtype, jnp.floating)]

    def run(nudges: Sequence[Any]) -> tuple[Any, dict[int, Any]]:
        nudge = dict(zip(map(id, floats), nudges, strict=True)) if nudges else {}
        env: dict[int, Any] = {}

        def write(v: Any, x: Any) -> None:
            env[id(v)] = x + nudge[id(v)] if id(v) in nudge else x

        for v, x in zip([*top.constvars, *top.invars], [*consts, *args], strict=True):
            write(v, x)
        for eqn in top.eqns:
            ins = [x.val if isinstance(x, Literal) else env[id(x)] for x in eqn.invars]
            for v, x in zip(eqn.outvars, bind_eqn(eqn, ins), strict=True):
                write(v, x)
        out = top.outvars[0] if len(top.outvars) == 1 else None
        result = out.val if isinstance(out, Literal) else env[id(out)] if out is not None else 0.0
        return result, env

    _, values = run(())
    out_aval = top.outvars[0].aval if len(top.outvars) == 1 else None
    if out_aval is None or out_aval.shape != () or not jnp.issubdtype(out_aval.dtype, jnp.floating):
        return values, {}
    zeros = [jnp.zeros(v.aval.shape, v.aval.dtype) for v in floats]
    cts = didax.grad(lambda nudges: run(nudges)[0])(zeros)
    return values, dict(zip(map(id, floats), cts, strict=True))


def _short(x: Any) -> str:
    # the value alone (its type is on the edges), 4 digits, on one line
    text = " ".join(np.array2string(np.asarray(x), threshold=6, precision=4).split())
    return text if len(text) <= 28 else text[:27] + "\u2026"


def _with_flow(node: Node, v: Any, values: dict[int, Any], grads: dict[int, Any]) -> Node:
    if id(v) not in values:
        return node
    value = _short(values[id(v)])
    grad = _short(grads[id(v)]) if id(v) in grads else ""
    detail = f"{node.detail}\nvalue: {value}" + (f"\ncotangent: {grad}" if grad else "")
    return replace(node, value=value, grad=grad, detail=detail)


def _edge(src: int, dst: int, v: Any, names: dict[int, str]) -> Edge:
    return Edge(src, dst, names.get(id(v), "?"), v.aval.str_short())


@dataclass(frozen=True)
class Placed:
    """A laid-out graph: node centres and sizes, and each edge as a polyline."""

    width: float
    height: float
    boxes: dict[int, tuple[float, float, float, float]]  # node id -> (x, y, w, h), centre
    routes: tuple[tuple[Edge, tuple[tuple[float, float], ...]], ...]


def node_size(node: Node) -> tuple[float, float]:
    # one line for the label, one each for a value and a cotangent
    lines = [node.label, *(t for t in (node.value, node.grad and "\u2207 " + node.grad) if t)]
    return (max(40.0, max(7.5 * len(t) for t in lines) + 16.0), 12.0 + 14.0 * len(lines))
