"""What the views show, as plain data: no ipywidgets, no markup (STYLE.md §9).

- `JaxprModel`: the printer's kind-tagged lines (`printed_lines`, the one place that reads
  `didax.jaxpr`'s printer), each token annotated with the variable it names (binding or use), the
  equation it heads, and the foldable regions (multi-line equations and nested jaxprs).
  `JaxprModel.text()` is `str(jaxpr)`.
- `GraphModel`: the dataflow graph of a jaxpr's top-level equations, laid out in layers by
  grandalf's Sugiyama layout (`layout_graph`).
- `TimingModel`, `CostModel`, `HloModel`: `%jit`'s timings, XLA's cost analysis (per-operand
  keys grouped apart) and StableHLO/HLO text split into tokens, `metadata=` marked.
- `Stage`, `EqnLink`, `EqnCost`: the plain-data slots of the stage diff (TransformView) and
  the per-equation cost table (CompiledView), filled by the provenance models.
- `StepperState`: evaluates a closed jaxpr one equation at a time, entering `jit`, `cond`'s
  taken branch and `while`/`scan` iterations.
"""

from __future__ import annotations

import collections
import enum
import math
import os
import re
import sys
import sysconfig
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from didax import core, pretty
from didax.jaxpr import laid_out, literal_text, pp_params_rules
from didax.sharding import Mesh, NamedSharding
from grandalf.graphs import Edge as _GEdge
from grandalf.graphs import Graph as _GGraph
from grandalf.graphs import Vertex as _GVertex
from grandalf.layouts import SugiyamaLayout
from IPython import get_ipython

TokenKind = pretty.TokenKind

# ----------------------------------------------------------------------------- the printer


def printed_lines(jaxpr: Any) -> list[tuple[int, tuple[Any, ...]]]:
    """The jaxpr as the printer lays it out: (indent, tokens) lines, each token with a
    `.kind` (a `TokenKind`) and `.text`. Every view reads the printer through here."""
    return printed(jaxpr)[0]


def printed(jaxpr: Any) -> tuple[list[tuple[int, tuple[Any, ...]]], dict[int, str]]:
    """The printer's lines and the names it gave the variables (id(var) -> name), from one
    layout of the program."""
    top = _open(jaxpr)
    printer, lines = laid_out(top)
    return lines, {id(v): name for v, name in printer.names.names.items()}


def print_params(eqn: Any) -> list[tuple[str, Any]]:
    """The params of an equation in the order the printer shows them."""
    rules = pp_params_rules
    if eqn.primitive in rules:
        return list(rules[eqn.primitive](eqn.params))
    return sorted(eqn.params.items())


def _open(x: Any) -> Any:
    return getattr(x, "jaxpr", x)


def _is_jaxpr(x: Any) -> bool:
    return hasattr(_open(x), "eqns")


def nested_jaxprs(eqn: Any) -> list[Any]:
    """The (open) jaxprs in an equation's params, in printed order."""
    out = []
    for _, v in print_params(eqn):
        for x in v if isinstance(v, tuple) else (v,):
            if _is_jaxpr(x):
                out.append(_open(x))
    return out


# ----------------------------------------------------------------------------- source lines


@dataclass(frozen=True)
class SourceLine:
    """Where an equation was bound in the user's code."""

    file: str
    line: int
    function: str
    text: str

    def where(self) -> str:
        if self.file.startswith("Cell In["):  # as IPython's tracebacks name a cell
            return f"{self.file}, line {self.line}"
        return f"{self.file}:{self.line}"

    def describe(self) -> str:
        fn = f" in {self.function}" if self.function else ""
        body = f"\n    {self.text.strip()}" if self.text else ""
        return f"{self.where()}{fn}{body}"


def _first_attr(obj: Any, names: Sequence[str], default: Any = "") -> Any:
    for n in names:
        v = getattr(obj, n, None)
        if v is not None:
            return v
    return default


# Where installed packages and the standard library live: a line there is not the user's
# (e.g. IPython's `run_line_magic`, the first frame outside didax when a magic binds an
# equation of its own, such as grad's final convert_element_type)
_LIBRARY_DIRS = tuple(
    {
        os.path.join(sysconfig.get_path(kind, vars=v), "")
        for kind in ("stdlib", "purelib", "platlib")
        for v in ({}, {"base": sys.base_prefix, "platbase": sys.base_prefix})
    }
)


def _user_file(file: str) -> bool:
    return not file.startswith(_LIBRARY_DIRS)


def _cell_name(file: str) -> str:
    """A notebook cell's file (the kernel's `/tmp/ipykernel_<pid>/<hash>.py`) as IPython's
    tracebacks name it, `Cell In[3]`; any other file as it is."""
    shell = get_ipython()
    compiler = getattr(shell, "compile", None)
    label = compiler.format_code_name(file) if hasattr(compiler, "format_code_name") else None
    return " ".join(label) if label else file


def _cell_location(eqn: Any) -> str:
    """`file:line:column (function)` of an equation (a provenance `EqnRef`), a notebook
    cell's file named as IPython names it."""
    location = getattr(eqn, "location", "") or ""
    source = getattr(eqn, "source", None)
    file = getattr(source, "file", "")
    if file and not _user_file(file):
        return ""
    return location.replace(file, _cell_name(file), 1) if file else location


def source_line(eqn: Any) -> SourceLine | None:
    """The equation's `source_info` (provenance), or None where it has none."""
    info = getattr(eqn, "source_info", None)
    if info is None:
        return None
    file = _first_attr(info, ("file", "file_name", "filename"))
    if not file or not _user_file(str(file)):
        return None
    return SourceLine(
        file=_cell_name(str(file)),
        line=int(_first_attr(info, ("line", "line_num", "lineno"), 0) or 0),
        function=str(_first_attr(info, ("function", "function_name", "name"))),
        text=str(_first_attr(info, ("text", "line_text", "source", "code"))),
    )


# ----------------------------------------------------------------------------- jaxpr model


@dataclass(frozen=True, slots=True)
class Span:
    """One printed token and what it refers to."""

    kind: Any  # TokenKind
    text: str
    var: int | None = None  # index into JaxprModel.var_names (VAR tokens)
    binds: bool = False  # this token binds the variable (it is followed by its type)
    eqn: int | None = None  # index into JaxprModel.eqns (PRIMITIVE tokens)


@dataclass(frozen=True)
class EqnInfo:
    """An equation as the view shows it: its primitive, nesting depth (1 = top level), the
    line it starts on and where in the user's code it came from."""

    primitive: str
    depth: int
    line: int
    source: SourceLine | None
    top_index: int | None  # position in the top-level jaxpr's eqns, if it is top level


@dataclass(frozen=True)
class Fold:
    """Lines `start..end` (inclusive) fold into line `start`."""

    start: int
    end: int
    label: str  # "jit", "cond", "jaxpr" ...


@dataclass(frozen=True)
class Row:
    """A labelled value: an input or output binding, a constant, a timing."""

    label: str
    text: str


Line = tuple[int, tuple[Span, ...]]


@dataclass(frozen=True)
class JaxprModel:
    lines: tuple[Line, ...]
    var_names: tuple[str, ...] = ()
    eqns: tuple[EqnInfo, ...] = ()
    folds: tuple[Fold, ...] = ()
    inputs: tuple[Row, ...] = ()
    outputs: tuple[Row, ...] = ()
    n_top_eqns: int = 0
    meshes: tuple[Row, ...] = ()  # the device meshes its shard_maps and shardings name

    def text(self) -> str:  # == str(jaxpr); a test checks it
        return "\n".join(" " * n + "".join(t.text for t in ts) for n, ts in self.lines)


def _shared(top: Any) -> list[Any]:
    # The nested jaxprs the printer binds up front with `let`: reached twice, or longer than
    # 10 equations (the jaxpr printer's rule, jaxpr.py), in breadth-first order.
    counts: dict[int, int] = {}
    found: dict[int, Any] = {}
    queue = collections.deque([top])
    while queue:
        j = queue.popleft()
        found[id(j)] = j
        counts[id(j)] = counts.get(id(j), 0) + (2 if j is not top and len(j.eqns) > 10 else 1)
        for eqn in j.eqns:
            for sub in eqn.params.values():
                for x in sub if isinstance(sub, tuple) else (sub,):
                    if _is_jaxpr(x):
                        queue.append(_open(x))
    return [found[k] for k, c in counts.items() if c > 1]


def _print_order(top: Any) -> list[tuple[Any, int, int | None]]:
    """(eqn, depth, top-level index) in the order the printer prints primitives."""
    shared = _shared(top)
    shared_ids = {id(j) for j in shared}
    out: list[tuple[Any, int, int | None]] = []

    def walk(j: Any, depth: int, is_top: bool) -> None:
        for i, eqn in enumerate(j.eqns):
            out.append((eqn, depth, i if is_top else None))
            for sub in nested_jaxprs(eqn):
                if id(sub) not in shared_ids:
                    walk(sub, depth + 1, False)

    for j in shared:
        walk(j, 2, False)
    walk(top, 1, True)
    return out


def _folds(lines: Sequence[Line], eqn_lines: Sequence[tuple[int, int]]) -> tuple[Fold, ...]:
    """Multi-line equations and multi-line nested jaxprs, properly nested by lines."""
    regions: list[tuple[int, int, str]] = []
    # nested jaxprs: from `{ lambda` to the ` }` closing it (after its `in `)
    stack: list[list[Any]] = []  # [start line, seen `in `]
    for i, (_, spans) in enumerate(lines):
        for s in spans:
            if s.kind is TokenKind.KEYWORD and s.text == "lambda ":
                stack.append([i, False])
            elif s.kind is TokenKind.KEYWORD and s.text == "in " and stack:
                stack[-1][1] = True
            elif s.kind is TokenKind.TEXT and "}" in s.text and stack and stack[-1][1]:
                start, _ = stack.pop()
                if stack:  # not the top-level jaxpr
                    regions.append((start, i, "jaxpr"))
    # equations spanning lines: from their primitive's line to the line before the next
    for start, end in eqn_lines:
        regions.append((start, end, "eqn"))
    regions = sorted({r for r in regions if r[1] > r[0]}, key=lambda r: (r[0], -r[1]))
    kept: list[tuple[int, int, str]] = []
    open_: list[tuple[int, int, str]] = []
    for r in regions:
        while open_ and open_[-1][1] < r[0]:
            open_.pop()
        if open_ and (r[0] == open_[-1][0] or r[1] > open_[-1][1]):
            continue  # starts on its parent's first line, or overlaps it: not nested
        kept.append(r)
        open_.append(r)
    return tuple(Fold(a, b, kind) for a, b, kind in kept)


def mesh_text(mesh: Mesh) -> str:
    """`i=4` or `x=2 × y=2`: a mesh's axes and sizes, with its devices when they are not
    simply the first ones in order."""
    axes = " × ".join(f"{name}={size}" for name, size in mesh.shape_tuple)
    ids = [d.id for d in mesh.devices.flat]
    where = "" if ids == list(range(len(ids))) else f" on devices {ids}"
    return f"{axes} ({mesh.size} devices{where})"


def mesh_rows(closed: Any) -> tuple[Row, ...]:
    """One row per device mesh a program names (a `shard_map`'s or pmap's `mesh`, the mesh of
    a `sharding_constraint`'s or a `jit`'s shardings), in the order they first appear, nested
    jaxprs included: what "over which devices" means for the collectives in it."""
    seen: dict[Mesh, None] = {}

    def visit(value: Any) -> None:
        if isinstance(value, Mesh):
            seen.setdefault(value)
        elif isinstance(value, NamedSharding):
            seen.setdefault(value.mesh)
        elif isinstance(value, tuple):
            for v in value:
                visit(v)
        elif _is_jaxpr(value):
            walk(_open(value))

    def walk(jaxpr: Any) -> None:
        for eqn in jaxpr.eqns:
            for value in eqn.params.values():
                visit(value)

    walk(_open(closed))
    return tuple(Row("mesh " + ", ".join(m.axis_names), mesh_text(m)) for m in seen)


def jaxpr_model(
    closed: Any, inputs: Sequence[Row] | None = None, outputs: Sequence[Row] | None = None
) -> JaxprModel:
    """The model of a (closed) jaxpr: its printed tokens, annotated. `inputs`/`outputs`
    None: rows of each input's and output's variable and type."""
    top = _open(closed)
    raw, names = printed(closed)
    default_ins, default_outs = _io_rows(top, names)
    inputs = default_ins if inputs is None else inputs
    outputs = default_outs if outputs is None else outputs
    order = _print_order(top)
    prim_tokens = [t.text for _, ts in raw for t in ts if t.kind is TokenKind.PRIMITIVE]
    aligned = prim_tokens == [e.primitive.name for e, _, _ in order]
    var_ids: dict[str, int] = {}
    eqns: list[EqnInfo] = []
    eqn_starts: list[tuple[int, int]] = []  # (line, depth) of each printed primitive
    lines: list[Line] = []
    depth = 0
    for li, (indent, tokens) in enumerate(raw):
        spans = []
        for k, t in enumerate(tokens):
            if t.kind is TokenKind.KEYWORD and t.text == "lambda ":
                depth += 1
            elif t.kind is TokenKind.TEXT and "}" in t.text and depth:
                depth -= t.text.count("}")
            if t.kind is TokenKind.VAR:
                vid = var_ids.setdefault(t.text, len(var_ids))
                nxt = tokens[k + 1] if k + 1 < len(tokens) else None
                binds = nxt is not None and nxt.kind is TokenKind.TYPE
                spans.append(Span(t.kind, t.text, var=vid, binds=binds))
            elif t.kind is TokenKind.PRIMITIVE:
                n = len(eqns)
                eqn, d, top_i = order[n] if aligned else (None, depth, None)
                eqns.append(
                    EqnInfo(
                        t.text,
                        d,
                        li,
                        source_line(eqn) if eqn is not None else None,
                        top_i if aligned else None,
                    )
                )
                eqn_starts.append((li, d))
                spans.append(Span(t.kind, t.text, eqn=n))
            else:
                spans.append(Span(t.kind, t.text))
        lines.append((indent, tuple(spans)))
    return JaxprModel(
        lines=tuple(lines),
        var_names=tuple(var_ids),
        eqns=tuple(eqns),
        folds=_folds(lines, _eqn_ranges(eqn_starts, len(lines))),
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        n_top_eqns=len(top.eqns),
        meshes=mesh_rows(closed),
    )


def _eqn_ranges(starts: Sequence[tuple[int, int]], n_lines: int) -> list[tuple[int, int]]:
    # an equation runs to the line before the next equation of the same or a shallower
    # depth; the last top-level one stops before the `in` line
    out = []
    for k, (line, depth) in enumerate(starts):
        end = n_lines - 2
        for line2, depth2 in starts[k + 1 :]:
            if depth2 <= depth:
                end = line2 - 1
                break
        if depth > 1:  # nested: the region check keeps it inside its jaxpr or drops it
            end = min(end, line)
        out.append((line, end))
    return out


def io_rows(closed: Any) -> tuple[tuple[Row, ...], tuple[Row, ...]]:
    """Input and output rows of a jaxpr without call labels: `a:f32[3]` and its position."""
    return _io_rows(_open(closed), printed_names(closed))


def _io_rows(top: Any, names: dict[int, str]) -> tuple[tuple[Row, ...], tuple[Row, ...]]:
    ins = tuple(
        Row(f"{names.get(id(v), '?')}:{v.aval.str_short()}", f"argument {i}")
        for i, v in enumerate(top.invars)
    )
    outs = tuple(
        Row(f"{_atom_text(v, names)}:{v.aval.str_short()}", f"output {i}")
        for i, v in enumerate(top.outvars)
    )
    return ins, outs


def _atom_text(v: Any, names: dict[int, str]) -> str:
    if hasattr(v, "val"):
        return literal_text(v.val)
    return names.get(id(v), "?")


def printed_names(closed: Any) -> dict[int, str]:
    """id(var) -> the name the printer gives it, for every variable it prints (nested
    jaxprs included: one naming is shared by the whole printout)."""
    return printed(closed)[1]


def _all_vars(j: Any) -> Iterator[Any]:
    yield from j.constvars
    yield from j.invars
    for e in j.eqns:
        yield from (v for v in e.outvars if type(v).__name__ != "DropVar")
        for sub in nested_jaxprs(e):
            yield from _all_vars(sub)


def var_names(closed: Any) -> dict[int, str]:
    """id(var) -> its printed name."""
    return printed_names(closed)


# ----------------------------------------------------------------------------- graph


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
    top = _open(closed)
    names = var_names(closed)
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


# ----------------------------------------------------------------------------- timing


@dataclass(frozen=True)
class Phase:
    name: str
    seconds: float | None
    note: str = ""


@dataclass(frozen=True)
class TimingModel:
    """`%jit`'s timings as the TimingView draws them (seconds per call)."""

    title: str
    phases: tuple[Phase, ...]  # start-up, trace, lower, compile, first run
    steady_runs: tuple[float, ...]  # seconds per call of each timing run
    eager_runs: tuple[float, ...]
    loops: int  # calls per run (compiled)
    eager_loops: int
    speedup: float
    warnings: tuple[str, ...] = ()
    budget: float | None = None
    text: str = ""  # the text/plain fallback

    @property
    def runs_note(self) -> str:
        def n(runs: Sequence[float], loops: int) -> str:
            return f"{len(runs)} run{'s' if len(runs) != 1 else ''} of {loops:,} call" + (
                "s" if loops != 1 else ""
            )

        budget = f" (time budget {self.budget:g} s)" if self.budget else ""
        return (
            f"compiled: {n(self.steady_runs, self.loops)}; "
            f"eager: {n(self.eager_runs, self.eager_loops)}{budget}"
        )


EAGER_MEANING = (
    "eager = didax without jit: NumPy evaluates each operation, one Python call per operation"
)


# ----------------------------------------------------------------------------- cost


@dataclass(frozen=True)
class CostModel:
    """XLA's cost analysis: the headline figures, and the per-operand keys apart."""

    main: tuple[Row, ...]
    per_operand: tuple[Row, ...]


_MAIN_COSTS = ("flops", "transcendentals", "bytes accessed", "optimal_seconds", "utilization")


def _fmt_number(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return f"{int(v):,}"
    if isinstance(v, (int, float)):
        return f"{v:,}"
    return str(v)


def cost_model(cost: dict[str, Any] | None) -> CostModel:
    """Split XLA's cost dict: `flops`, `transcendentals`, `bytes accessed` first; keys such
    as `bytes accessed0{}` or `bytes accessedout{}` go under `per_operand`."""
    cost = dict(cost or {})
    main = [Row(k, _fmt_number(cost[k])) for k in _MAIN_COSTS if k in cost]
    rest = [Row(k, _fmt_number(cost[k])) for k in sorted(cost) if k not in _MAIN_COSTS]
    return CostModel(tuple(main), tuple(rest))


@dataclass(frozen=True)
class EqnCost:
    """A row of CompiledView's per-equation cost table (filled by provenance's cost join):
    a top-level equation, the HLO fusion it landed in and its estimated cost."""

    eqn: int  # index in the jaxpr's top-level eqns
    primitive: str
    fusion: str | None = None  # the HLO instruction/fusion name, e.g. "fusion.3"
    fusion_kind: str | None = None  # "kLoop", "kInput", ...
    flops: float | None = None
    bytes: float | None = None
    source: str = ""  # file:line where known


# ----------------------------------------------------------------------------- HLO text


class HloKind(enum.Enum):
    OP = "primitive"
    TYPE = "type"
    NAME = "var"
    NUMBER = "literal"
    KEYWORD = "keyword"
    COMMENT = "comment"
    META = "meta"
    TEXT = "text"


@dataclass(frozen=True)
class HloModel:
    lines: tuple[tuple[tuple[HloKind, str], ...], ...]

    def text(self, metadata: bool = True) -> str:
        # a line that is all metadata (a source-table row) goes whole when it is hidden
        return "\n".join(
            "".join(t for k, t in ts if metadata or k is not HloKind.META)
            for ts in self.lines
            if metadata or not ts or any(k is not HloKind.META for k, _ in ts)
        )


_HLO_TOKEN = re.compile(
    r"""(?P<meta>,?\s*metadata=\{[^{}]*\}|\s*loc\((?:[^()]|\([^()]*\))*\))
      |(?P<comment>//.*$|\#loc.*$)
      |(?P<type>tensor<[^>]*>|\b(?:f16|bf16|f32|f64|s8|s16|s32|s64|u8|u32|pred|i1|i32|i64)\[[^\]]*\](?:\{[^}]*\})?)
      |(?P<name>[%@][\w.\-]+)
      |(?P<op>\b(?:stablehlo|func|mhlo|chlo)\.[\w.]+|\b[a-z][\w\-]*(?=\())
      |(?P<keyword>\b(?:ENTRY|HloModule|ROOT|module|func|return|fused_computation)\b)
      |(?P<number>\b\d+(?:\.\d+)?(?:e[+-]?\d+)?\b)""",
    re.VERBOSE,
)


# XLA's source tables at the top of an optimized HLO module (FileNames, FunctionNames,
# FileLocations, StackFrames: what `metadata={... stack_frame_id=N}` points into), each a
# header line, numbered rows, then a blank line. They hold machine paths: metadata too.
_SOURCE_TABLE_HEADERS = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")


def source_table_lines(lines: list[str]) -> set[int]:
    """Indices of the lines (blank line after each included) of XLA's source tables."""
    out: set[int] = set()
    in_table = False
    for i, line in enumerate(lines):
        if line.strip() in _SOURCE_TABLE_HEADERS:
            in_table = True
        if in_table:
            out.add(i)
            if not line.strip():
                in_table = False
    return out


def without_metadata(text: str) -> str:
    """HLO text with `metadata={...}`, `loc(...)` and XLA's source tables left out."""
    return hlo_model(text).text(metadata=False)


def hlo_model(text: str) -> HloModel:
    """StableHLO or HLO text split into kind-tagged pieces; `metadata={...}`, `loc(...)` and
    XLA's source tables are META, which the view hides unless asked."""
    lines = []
    raw = text.rstrip("\n").split("\n")
    tables = source_table_lines(raw)
    for i, line in enumerate(raw):
        if i in tables:
            lines.append(((HloKind.META, line),))
            continue
        pieces: list[tuple[HloKind, str]] = []
        pos = 0
        for m in _HLO_TOKEN.finditer(line):
            if m.start() > pos:
                pieces.append((HloKind.TEXT, line[pos : m.start()]))
            kind = HloKind(
                {
                    "meta": "meta",
                    "comment": "comment",
                    "type": "type",
                    "name": "var",
                    "op": "primitive",
                    "keyword": "keyword",
                    "number": "literal",
                }[m.lastgroup or "text"]
            )
            pieces.append((kind, m.group(0)))
            pos = m.end()
        if pos < len(line):
            pieces.append((HloKind.TEXT, line[pos:]))
        lines.append(tuple(pieces))
    return HloModel(tuple(lines))


# ----------------------------------------------------------------------------- stages


@dataclass(frozen=True)
class EqnLink:
    """The stage diff's status of one equation of a later stage (filled by provenance):
    `status` is "unchanged", "new" or "dropped"; `source_stage`/`source_eqn` name the
    equation of the first stage it came from (top-level indices)."""

    eqn: int
    status: str
    source_stage: str | None = None
    source_eqn: int | None = None


@dataclass(frozen=True)
class Stage:
    """One column of a TransformView: a named program, its inputs and outputs as rows, and
    optionally the stage diff links of its equations."""

    name: str
    jaxpr: Any  # ClosedJaxpr
    inputs: tuple[Row, ...] = ()
    outputs: tuple[Row, ...] = ()
    links: tuple[EqnLink, ...] = ()
    note: str = ""


# ----------------------------------------------------------------------------- stepper


def value_text(x: Any, threshold: int = 20) -> str:
    """`f32[3] [1. 2. 3.]`: a value's type and (abbreviated) contents."""
    try:
        arr = np.asarray(x)
    except Exception:  # noqa: BLE001 - anything without an array form shows its repr
        return repr(x)
    kind = core.get_aval(x).str_short() if core.is_arraylike(x) else arr.dtype.name
    body = np.array2string(arr, threshold=threshold, edgeitems=3, prefix=kind + " ")
    return f"{kind} {body}"


@dataclass
class Frame:
    """A jaxpr being stepped through: its environment and the next equation."""

    jaxpr: Any
    env: dict[int, Any]
    label: str  # "top", "jit f", "cond branch 1", "while iteration 3"
    pc: int = 0
    on_exit: Callable[[list[Any]], None] | None = None


@dataclass
class StepperState:
    """Evaluates a closed jaxpr one equation at a time. `step()` evaluates the next
    equation (or enters a nested jaxpr); `back()` returns to the previous state by replaying
    from the start; `run()` to the end; `reset()` to the start. Pure Python, no widgets."""

    closed: Any
    args: tuple[Any, ...]
    frames: list[Frame] = field(default_factory=list)
    steps: int = 0
    outputs: list[Any] | None = None
    log: list[tuple[str, str, str]] = field(default_factory=list)  # (where, var, value)
    names: dict[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.names = _all_var_names(self.closed)
        self.reset()

    # -- driving
    def reset(self) -> None:
        top = _open(self.closed)
        env: dict[int, Any] = {}
        consts = list(getattr(self.closed, "consts", []))
        if len(self.args) != len(top.invars):
            raise TypeError(
                f"Stepper: the jaxpr takes {len(top.invars)} arguments, got {len(self.args)}"
            )
        for v, c in zip(top.constvars, consts, strict=True):
            env[id(v)] = c
        for v, a in zip(top.invars, self.args, strict=True):
            env[id(v)] = a
        self.frames = [Frame(top, env, "program", on_exit=self._finish)]
        self.steps, self.outputs, self.log = 0, None, []
        for v in [*top.constvars, *top.invars]:
            self.log.append(("program", self.name(v), value_text(env[id(v)])))

    @property
    def done(self) -> bool:
        return self.outputs is not None

    def name(self, v: Any) -> str:
        return self.names.get(id(v), "_")

    def current(self) -> tuple[Frame, Any] | None:
        """The frame and the equation that `step()` evaluates next."""
        if self.done:
            return None
        f = self.frames[-1]
        return f, (f.jaxpr.eqns[f.pc] if f.pc < len(f.jaxpr.eqns) else None)

    def step(self) -> None:
        if self.done:
            return
        self.steps += 1
        f = self.frames[-1]
        if f.pc >= len(f.jaxpr.eqns):  # leave the frame: its outputs go to the caller
            outs = [self._read(f, v) for v in f.jaxpr.outvars]
            self.frames.pop()
            if f.on_exit is not None:
                f.on_exit(outs)
            return
        eqn = f.jaxpr.eqns[f.pc]
        invals = [self._read(f, v) for v in eqn.invars]
        if self._enter(f, eqn, invals):
            return
        outs = eqn.primitive.bind(*invals, **eqn.params)
        self._bind_outs(f, eqn, outs)

    def back(self) -> None:
        target = max(0, self.steps - 1)
        self.reset()
        while self.steps < target and not self.done:
            self.step()

    def run(self, limit: int = 100_000) -> None:
        for _ in range(limit):
            if self.done:
                return
            self.step()

    # -- internals
    def _finish(self, outs: list[Any]) -> None:
        self.outputs = outs
        for i, o in enumerate(outs):
            self.log.append(("program", f"output {i}", value_text(o)))

    def _read(self, f: Frame, v: Any) -> Any:
        if hasattr(v, "val"):
            return v.val
        return f.env[id(v)]

    def _bind_outs(self, f: Frame, eqn: Any, outs: Any) -> None:
        outs = list(outs) if eqn.primitive.multiple_results else [outs]
        for v, o in zip(eqn.outvars, outs, strict=True):
            f.env[id(v)] = o
            if type(v).__name__ != "DropVar":
                self.log.append((f.label, self.name(v), value_text(o)))
        f.pc += 1

    def _push(
        self, jaxpr: Any, consts: Sequence[Any], vals: Sequence[Any], label: str, on_exit: Any
    ) -> None:
        jaxpr_ = _open(jaxpr)
        env = {id(v): c for v, c in zip(jaxpr_.constvars, consts, strict=True)}
        env.update({id(v): x for v, x in zip(jaxpr_.invars, vals, strict=True)})
        self.frames.append(Frame(jaxpr_, env, label, on_exit=on_exit))

    def _enter(self, f: Frame, eqn: Any, invals: list[Any]) -> bool:
        name, p = eqn.primitive.name, eqn.params

        def done(outs: list[Any]) -> None:
            self._bind_outs(f, eqn, outs if eqn.primitive.multiple_results else outs[0])

        if name == "jit":
            cj = p["jaxpr"]
            label = f"{f.label} > jit {p.get('name', '')}".strip()
            self._push(cj, getattr(cj, "consts", []), invals, label, done)
            return True
        if name == "cond":
            index = int(np.asarray(invals[0]))
            branches = p["branches"]
            index = min(max(index, 0), len(branches) - 1)
            br = branches[index]
            label = f"{f.label} > cond branch {index}"
            self._push(br, getattr(br, "consts", []), invals[1:], label, done)
            return True
        if name == "while":
            return self._enter_while(f, eqn, invals, done)
        if name == "scan":
            return self._enter_scan(f, eqn, invals, done)
        return False

    def _enter_scan(self, f: Frame, eqn: Any, invals: list[Any], done: Any) -> bool:
        p = eqn.params
        nc, nk, length = p["num_consts"], p["num_carry"], p["length"]
        consts, carry, xs = invals[:nc], invals[nc : nc + nk], invals[nc + nk :]
        body = p["jaxpr"]
        ys: list[list[Any]] = []
        step = [0]

        def index(i: int) -> int:
            return length - 1 - i if p.get("reverse") else i

        def next_iteration(outs: list[Any] | None) -> None:
            nonlocal carry
            if outs is not None:
                carry, y = outs[:nk], outs[nk:]
                ys.append(y)
            if step[0] == length:
                order = ys[::-1] if p.get("reverse") else ys
                n_ys = len(_open(body).outvars) - nk
                stacked = [np.stack([np.asarray(y[k]) for y in order]) for k in range(n_ys)]
                done([*carry, *stacked])
                return
            i = index(step[0])
            step[0] += 1
            label = f"{f.label} > scan iteration {step[0]} of {length}"
            x_i = [np.asarray(x)[i] for x in xs]
            self._push(
                body, getattr(body, "consts", []), [*consts, *carry, *x_i], label, next_iteration
            )

        next_iteration(None)
        return True

    def _enter_while(self, f: Frame, eqn: Any, invals: list[Any], done: Any) -> bool:
        p = eqn.params
        cn, bn = p["cond_nconsts"], p["body_nconsts"]
        cconsts, bconsts, carry = invals[:cn], invals[cn : cn + bn], invals[cn + bn :]
        cond_j, body_j = p["cond_jaxpr"], p["body_jaxpr"]
        iteration = [0]

        def evaluate_cond(carry: list[Any]) -> bool:
            from_cond = _eval_closed(cond_j, [*cconsts, *carry])
            return bool(np.asarray(from_cond[0]))

        def next_iteration(carry: list[Any]) -> None:
            if not evaluate_cond(carry):
                done(carry)
                return
            iteration[0] += 1
            label = f"{f.label} > while iteration {iteration[0]}"
            self._push(
                body_j, getattr(body_j, "consts", []), [*bconsts, *carry], label, next_iteration
            )

        next_iteration(list(carry))
        return True


def _eval_closed(closed: Any, args: Sequence[Any]) -> list[Any]:
    j = _open(closed)
    env = {id(v): c for v, c in zip(j.constvars, getattr(closed, "consts", []), strict=True)}
    env.update({id(v): a for v, a in zip(j.invars, args, strict=True)})
    for eqn in j.eqns:
        ins = [x.val if hasattr(x, "val") else env[id(x)] for x in eqn.invars]
        outs = eqn.primitive.bind(*ins, **eqn.params)
        outs = list(outs) if eqn.primitive.multiple_results else [outs]
        for v, o in zip(eqn.outvars, outs, strict=True):
            env[id(v)] = o
    return [x.val if hasattr(x, "val") else env[id(x)] for x in j.outvars]


def _all_var_names(closed: Any) -> dict[int, str]:
    return printed_names(closed)


def format_seconds(s: float | None) -> str:
    if s is None or not math.isfinite(s):
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        text = f"{s / scale:.3g}"
        if float(text) >= 1 or unit == "ns":
            return f"{text} {unit}"
    return f"{s} s"


def eqn_lines(closed: Any, model: JaxprModel) -> dict[int, int]:
    """id(eqn) -> the line its primitive is printed on, for every equation the model could
    place (all of them when the printout and the walk agree, else the top-level ones)."""
    top = _open(closed)
    order = _print_order(top)
    if len(order) == len(model.eqns) and all(
        e.primitive.name == info.primitive for (e, _, _), info in zip(order, model.eqns)
    ):
        return {id(e): info.line for (e, _, _), info in zip(order, model.eqns)}
    return {
        id(top.eqns[info.top_index]): info.line for info in model.eqns if info.top_index is not None
    }


# ----------------------------------------------------------------------------- provenance joins
# The provenance models (stage diff, per-equation HLO cost) address equations by index path
# (`(i,)` top level, `(i, j)` nested). These adapters read them by attribute, so the views'
# plain-data slots take them without this module importing theirs.


def links_from_diff(diff: Any, base_name: str = "f") -> tuple[EqnLink, ...]:
    """A stage's EqnLinks from a stage diff (`.links`: each with `.eqn.path`, `.status`,
    `.origins`): one per top-level equation of the stage."""
    out = []
    for link in diff.links:
        path = tuple(link.eqn.path)
        if len(path) != 1:
            continue
        status = getattr(link.status, "value", link.status)
        origins = [tuple(o) for o in link.origins]
        source = origins[0][0] if origins else None
        out.append(EqnLink(path[0], str(status), base_name if origins else None, source))
    return tuple(out)


def dropped_links(diff: Any) -> tuple[EqnLink, ...]:
    """EqnLinks marking the base program's top-level equations that a stage dropped."""
    return tuple(EqnLink(p[0], "dropped") for p in diff.dropped if len(p) == 1)


def costs_from_table(table: Any) -> tuple[EqnCost, ...]:
    """CompiledView's per-equation rows from a cost table (`.rows`: each with `.eqn` (path,
    primitive, location), `.flops`, `.bytes`, `.landed`, `.kinds`)."""
    out = []
    for row in table.rows:
        path = tuple(row.eqn.path)
        depth = "  " * (len(path) - 1)
        out.append(
            EqnCost(
                eqn=path[0],
                primitive=depth + row.eqn.primitive,
                fusion=", ".join(dict.fromkeys(row.landed)) or None,
                fusion_kind=", ".join(k for k in dict.fromkeys(row.kinds) if k) or None,
                flops=float(row.flops),
                bytes=float(row.bytes),
                source=_cell_location(row.eqn),
            )
        )
    return tuple(out)
