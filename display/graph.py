"""The dataflow graph of a jaxpr's top-level equations, as plain data (no layout library).

Layer 6. `graph_model` gives nodes (inputs, constants, one per equation, outputs) and edges
(one per variable use); `Placed` is a laid-out graph, which didax.widgets' `layout.py` makes
with grandalf's Sugiyama layout and `markup.graph_svg` draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from didax.display.program import printed_names, source_line
from didax.jaxpr import ClosedJaxpr


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


@dataclass(frozen=True)
class GraphModel:
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]


def graph_model(closed: Any) -> GraphModel:
    """The top-level dataflow graph: inputs and constants, one node per equation (a nested
    jaxpr is one node), outputs; an edge per variable use."""
    top = closed.jaxpr if isinstance(closed, ClosedJaxpr) else closed
    names = printed_names(closed)
    nodes: list[Node] = []
    edges: list[Edge] = []
    producer: dict[int, int] = {}
    for kind, vars_ in (("const", top.constvars), ("input", top.invars)):
        for v in vars_:
            nodes.append(
                Node(len(nodes), names.get(id(v), "?"), kind, f"{kind} {v.aval.str_short()}")
            )
            producer[id(v)] = nodes[-1].id
    for i, eqn in enumerate(top.eqns):
        outs = " ".join(f"{names.get(id(v), '_')}:{v.aval.str_short()}" for v in eqn.outvars)
        src = source_line(eqn)
        detail = f"{outs} = {eqn.primitive.name}" + (f"\n{src.describe()}" if src else "")
        node = Node(len(nodes), eqn.primitive.name, "eqn", detail, eqn=i)
        nodes.append(node)
        for v in eqn.invars:
            if id(v) in producer:
                edges.append(Edge(producer[id(v)], node.id, names.get(id(v), "?")))
        for v in eqn.outvars:
            producer[id(v)] = node.id
    for i, v in enumerate(top.outvars):
        node = Node(len(nodes), f"out {i}", "output", f"output {i}: {v.aval.str_short()}")
        nodes.append(node)
        if id(v) in producer:
            edges.append(Edge(producer[id(v)], node.id, names.get(id(v), "?")))
    return GraphModel(tuple(nodes), tuple(edges))


@dataclass(frozen=True)
class Placed:
    """A laid-out graph: node centres and sizes, and each edge as a polyline."""

    width: float
    height: float
    boxes: dict[int, tuple[float, float, float, float]]  # node id -> (x, y, w, h), centre
    routes: tuple[tuple[Edge, tuple[tuple[float, float], ...]], ...]


def node_size(node: Node) -> tuple[float, float]:
    return (max(40.0, 8.0 * len(node.label) + 16.0), 26.0)
