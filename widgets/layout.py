"""The layered (Sugiyama) layout of a dataflow graph, by grandalf, in bounded pieces.

Layer 6: the one module that imports grandalf, so the graph model (didax.display.graph) stays
plain data; the Graph tab (views.py) lays a graph out when it is first shown.

grandalf's walks recurse: its cycle search (Tarjan) as deep as the longest path, its block
placement as deep as a layer is wide. A dataflow graph has no cycles, so we pass no edges to
invert and skip the search; and we lay out at most `PIECE` equations at a time, stacking the
pieces top to bottom, so the recursion depth is bounded by the piece, not by the program (a
long chain drawn from a deep call stack does not hit the recursion limit). An edge between
pieces runs straight down when it joins neighbouring layers, else along a lane on the right.
"""

from __future__ import annotations

from didax.display.graph import Edge, GraphModel, Node, Placed, node_size
from grandalf.graphs import Edge as _GEdge
from grandalf.graphs import Graph as _GGraph
from grandalf.graphs import Vertex as _GVertex
from grandalf.layouts import SugiyamaLayout

PIECE = 150  # equations laid out together
_LANES = 16  # lanes on the right for edges between pieces that are not neighbours
_GAP = 40.0  # vertical space between pieces, and between a lane and the drawing

_Box4 = tuple[float, float, float, float]
_Route4 = tuple[Edge, tuple[tuple[float, float], ...]]


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


def _pieces(graph: GraphModel) -> dict[int, int]:
    """Each node's piece: an equation's by its index, an input or constant's by its first use,
    an output's by its producer."""
    # (an expanded body's equations go with the equation holding them)
    at = {n.id: n.eqn if n.eqn is not None else n.parent for n in graph.nodes}
    piece: dict[int, int] = {i: k // PIECE for i, k in at.items() if k is not None}
    last = max(piece.values(), default=0)
    for e in graph.edges:
        if e.dst in piece and e.src not in piece:
            piece[e.src] = min(piece[e.dst], piece.get(e.src, last))
    for e in graph.edges:
        if e.src in piece and e.dst not in piece:
            piece[e.dst] = piece[e.src]
    return {n.id: piece.get(n.id, 0 if n.kind in ("input", "const") else last) for n in graph.nodes}


def _layout_piece(
    nodes: list[Node], edges: list[Edge]
) -> tuple[dict[int, _Box4], list[_Route4], float]:
    """grandalf's layout of one piece, its components side by side from x = 0; returns the
    boxes (centres, y from the piece's top), the routes and the width."""
    verts = {}
    for n in nodes:
        v = _GVertex(n.id)
        v.view = _Box(*node_size(n))
        verts[n.id] = v
    gedges = []
    for e in edges:
        ge = _GEdge(verts[e.src], verts[e.dst], data=e)
        ge.view = _Route()
        gedges.append(ge)
    g = _GGraph(list(verts.values()), gedges)
    boxes: dict[int, _Box4] = {}
    routes: list[_Route4] = []
    x_off = 0.0
    for comp in g.C:
        sug = SugiyamaLayout(comp)
        sug.xspace, sug.yspace = 24, 40
        roots = [v for v in comp.sV if len(v.e_in()) == 0]
        sug.init_all(roots=roots, inverted_edges=[], optimize=False)  # a DAG: nothing to invert
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
    if boxes:
        top = min(y - h / 2 for _, y, _, h in boxes.values())
        boxes = {k: (x, y - top, w, h) for k, (x, y, w, h) in boxes.items()}
        routes = [(e, tuple((px, py - top) for px, py in pts)) for e, pts in routes]
    return boxes, routes, max(x_off - 40, 0.0)


def layout_graph(graph: GraphModel) -> Placed:
    """A layered (Sugiyama) layout of the graph by grandalf, top to bottom, `PIECE` equations
    at a time."""
    piece = _pieces(graph)
    count = max(piece.values(), default=-1) + 1
    boxes: dict[int, _Box4] = {}
    routes: list[_Route4] = []
    spans: list[tuple[float, float]] = []  # each piece's top and bottom
    width, y_off = 0.0, 10.0
    for k in range(count):
        nodes = [n for n in graph.nodes if piece[n.id] == k]
        edges = [e for e in graph.edges if piece[e.src] == k and piece[e.dst] == k]
        if not nodes:
            spans.append((y_off, y_off))
            continue
        b, r, w = _layout_piece(nodes, edges)
        boxes.update({i: (x + 10, y + y_off, bw, bh) for i, (x, y, bw, bh) in b.items()})
        routes += [(e, tuple((px + 10, py + y_off) for px, py in pts)) for e, pts in r]
        bottom = max(y + h / 2 + y_off for _, y, _, h in b.values())
        spans.append((y_off, bottom))
        width, y_off = max(width, w), bottom + _GAP
    if not boxes:
        return Placed(0.0, 0.0, {}, ())
    lane = 0
    right = width + 10
    for e in graph.edges:
        if piece[e.src] == piece[e.dst]:
            continue
        (sx, sy, _, sh), (dx, dy, _, dh) = boxes[e.src], boxes[e.dst]
        src_bottom, dst_top = sy + sh / 2, dy - dh / 2
        if piece[e.dst] == piece[e.src] + 1 and (
            spans[piece[e.src]][1] - src_bottom < 1 and dst_top - spans[piece[e.dst]][0] < 1
        ):
            routes.append((e, ((sx, sy), (dx, dy))))
            continue
        x = right + _GAP / 2 + 8 * (lane % _LANES)
        lane += 1
        pts = ((sx, sy), (sx, src_bottom + 12), (x, src_bottom + 12), (x, dst_top - 12))
        routes.append((e, (*pts, (dx, dst_top - 12), (dx, dy))))
    lanes = min(lane, _LANES)
    width = right + (_GAP / 2 + 8 * lanes if lanes else 0.0) + 10
    height = max(y + h / 2 for _, y, _, h in boxes.values()) + 10
    return Placed(width, height, boxes, tuple(routes))
