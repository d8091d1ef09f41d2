"""The dataflow graph of a jaxpr's top-level equations, as plain data (no layout library).

Layer 6. `graph_model` gives nodes (inputs, constants, one per equation, outputs) and edges
(one per variable use); `Placed` is a laid-out graph, which didax.widgets' `layout.py` makes
with grandalf's Sugiyama layout and `markup.graph_svg` draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from didax.display.program import printed_names, source_line
from didax.jaxpr import ClosedJaxpr, Literal


@dataclass(frozen=True)
class Node:
    id: int
    label: str
    kind: str  # "input", "const", "eqn", "output"
    detail: str  # hover text: types, params, source line
    eqn: int | None = None  # top-level equation index


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


def graph_model(closed: Any, start: int = 0, window: int = WINDOW) -> GraphModel:
    """The top-level dataflow graph: inputs and constants, one node per equation (a nested
    jaxpr is one node), outputs; an edge per variable use. At most `window` equations from
    `start` are drawn: values they use from earlier equations are input nodes, and only the
    outputs they make are output nodes."""
    top = closed.jaxpr if isinstance(closed, ClosedJaxpr) else closed
    names = printed_names(closed)
    nodes: list[Node] = []
    edges: list[Edge] = []
    producer: dict[int, int] = {}
    start = max(0, min(start, len(top.eqns) - 1))
    stop = min(len(top.eqns), start + window)
    for kind, vars_ in (("const", top.constvars), ("input", top.invars)):
        for v in vars_:
            nodes.append(
                Node(len(nodes), names.get(id(v), "?"), kind, f"{kind} {v.aval.str_short()}")
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
    return (max(40.0, 8.0 * len(node.label) + 16.0), 26.0)
