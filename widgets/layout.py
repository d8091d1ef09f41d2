"""The layered (Sugiyama) layout of a dataflow graph, by grandalf.

Layer 6: the one module that imports grandalf, so the graph model (didax.display.graph) stays
plain data; the Graph tab (views.py) lays a graph out when it is first shown.
"""

from __future__ import annotations

from didax.display.graph import Edge, GraphModel, Placed, node_size
from grandalf.graphs import Edge as _GEdge
from grandalf.graphs import Graph as _GGraph
from grandalf.graphs import Vertex as _GVertex
from grandalf.layouts import SugiyamaLayout


class _Box:
    """What grandalf reads (w, h) and writes (xy) for a vertex."""

    def __init__(self, w: float, h: float) -> None:
        self.w, self.h = w, h
        self.xy = (0.0, 0.0)


class _Route:
    """What grandalf writes for an edge: its polyline through the layers."""

    def __init__(self) -> None:
        self.pts: list[tuple[float, float]] = []

    def setpath(self, pts: list[tuple[float, float]]) -> None:
        self.pts = [(float(x), float(y)) for x, y in pts]


def layout_graph(graph: GraphModel) -> Placed:
    """A layered (Sugiyama) layout of the graph by grandalf, top to bottom."""
    verts = {}
    for n in graph.nodes:
        v = _GVertex(n.id)
        v.view = _Box(*node_size(n))
        verts[n.id] = v
    gedges = []
    for e in graph.edges:
        ge = _GEdge(verts[e.src], verts[e.dst], data=e)
        ge.view = _Route()
        gedges.append(ge)
    g = _GGraph(list(verts.values()), gedges)
    boxes: dict[int, tuple[float, float, float, float]] = {}
    routes: list[tuple[Edge, tuple[tuple[float, float], ...]]] = []
    x_off = 0.0
    for comp in g.C:
        sug = SugiyamaLayout(comp)
        sug.xspace, sug.yspace = 24, 40
        roots = [v for v in comp.sV if len(v.e_in()) == 0]
        sug.init_all(roots=roots, optimize=False)
        sug.draw(2)
        left = min(v.view.xy[0] - v.view.w / 2 for v in comp.sV)
        right = max(v.view.xy[0] + v.view.w / 2 for v in comp.sV)
        for v in comp.sV:
            x, y = v.view.xy
            boxes[v.data] = (x - left + x_off, y, v.view.w, v.view.h)
        for ge in comp.sE:
            pts = ge.view.pts or [ge.v[0].view.xy, ge.v[1].view.xy]
            routes.append((ge.data, tuple((px - left + x_off, py) for px, py in pts)))
        x_off += right - left + 40
    if not boxes:
        return Placed(0.0, 0.0, {}, ())
    top = min(y - h / 2 for _, y, _, h in boxes.values()) - 10
    boxes = {k: (x + 10, y - top, w, h) for k, (x, y, w, h) in boxes.items()}
    routes = [(e, tuple((px + 10, py - top) for px, py in pts)) for e, pts in routes]
    width = max(x + w / 2 for x, _, w, _ in boxes.values()) + 10
    height = max(y + h / 2 for _, y, _, h in boxes.values()) + 10
    return Placed(width, height, boxes, tuple(routes))
