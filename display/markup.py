"""HTML and SVG for the views and the reports: the only module of didax that writes markup.

Layer 6, the HTML writer of the display pipeline (STYLE.md §9): it renders the models
(program, graph, compiled, provenance) and the parts (`section_html`: a report's sections,
the static `text/html` every view carries) to the same markup the live widgets show.

Every string that reaches markup goes through `esc` (`html.escape` with quotes), including
jaxpr tokens, names, values, compiler text and hover titles; CSS classes come from closed
sets (token kinds, numbered variables and primitives), never from user text. The markup
needs no script: folding is `<details>`, and clicking a variable checks a hidden radio
button that a CSS sibling rule turns into a highlight of its binding and every use, so the
same HTML works inside ipywidgets' `HTML` (which sets `innerHTML`, where scripts never run)
and in a stored notebook's `text/html`; a primitive's name, likewise, shows its rules below
the program.
Colours come from JupyterLab's theme variables, with a palette for light and for dark
themes that keeps 4.5:1 contrast on both (theme.py; a test measures it).
"""

from __future__ import annotations

import base64
import hashlib
import html
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from didax.display import compiled, program, provenance
from didax.display.compiled import format_time
from didax.display.graph import GraphModel, Placed
from didax.display.parts import Row, Section
from didax.display.theme import (  # noqa: F401  (the palette and contrast, re-exported)
    BACKGROUNDS,
    CSS,
    HIGHLIGHT,
    PALETTE,
    STANDIN_CSS,
    contrast,
    inline_styles,
    relative_luminance,
    standalone_svg,
    style,
)

_ids = itertools.count()


def esc(s: Any) -> str:
    return html.escape(str(s), quote=True)


def new_uid(prefix: str = "dx") -> str:
    """A document-unique id for one rendering (radio groups and their CSS rules)."""
    return f"{prefix}{next(_ids)}x{id(_ids) % 100000}"


def view(body: str, kind: str = "") -> str:
    """A fragment wrapped as a view: the style and a `dx-view` container."""
    cls = f"dx-view dx-{kind}" if kind else "dx-view"
    return f'{style()}<div class="{esc(cls)}">{body}</div>'


def standin(stored: str) -> str:
    """A widget's stand-in: `stored` (a view's static `text/html`, already markup), hidden
    unless the widget output just before it could not be drawn (theme.STANDIN_CSS)."""
    hidden = f'<div class="dx-standin" style="display:none">{stored}</div>'
    return f"<style>{STANDIN_CSS}</style>{hidden}"


# ----------------------------------------------------------------------------- jaxprs

PARAM_HELP: dict[str, str] = {
    "axes": "the axes the reduction removes",
    "out_sharding": "how the output is laid out across devices (None: the compiler decides)",
    "sharding": "how the result is laid out across devices (None: the compiler decides)",
    "preferred_element_type": "the dtype to accumulate and return in (None: the inputs' dtype)",
    "dimension_numbers": "((contracting dims of lhs, of rhs), (batch dims of lhs, of rhs))",
    "precision": "the arithmetic precision on accelerators (None: the default)",
    "weak_type": "True if the result is weakly typed, like a Python scalar "
    "(it takes the other operand's dtype)",
    "new_dtype": "the dtype converted to",
    "shape": "the output shape",
    "broadcast_dimensions": "the output dimension each operand dimension maps to",
    "dimensions": "the dimensions the operation acts on",
    "permutation": "the order of the input axes in the output",
    "new_sizes": "the output shape",
    "start_indices": "the first index kept on each axis",
    "limit_indices": "one past the last index kept on each axis",
    "strides": "the step on each axis",
    "dimension": "the axis the operation acts along",
    "y": "the integer exponent",
    "jaxpr": "the nested program",
    "branches": "the programs cond chooses between, by index (false branch first)",
    "cond_jaxpr": "the loop's test, on the carried values",
    "body_jaxpr": "the loop's body: carried values in, new carried values out",
    "cond_nconsts": "how many leading operands are constants of the test",
    "body_nconsts": "how many operands after the test's constants are constants of the body",
    "num_consts": "how many leading operands are constants, not scanned",
    "num_carry": "how many operands after the constants are the carried state",
    "length": "the number of iterations",
    "reverse": "True if the scan runs from the last element to the first",
    "unroll": "how many iterations one loop step runs",
    "linear": "which operands the body uses linearly",
    "name": "the name of the function this program came from",
    "inline": "True if the call is inlined into the enclosing program when lowered",
    "accumulation_type": "the dtype the reduction accumulates in",
    "index_dtype": "the dtype of the indices returned",
    "axis": "the axis the operation acts along",
    "jvp_jaxpr_fun": "the custom derivative rule (tangents in, tangents out)",
    "jvp": "the custom derivative rule",
    "fwd_jaxpr_thunk": "the custom forward pass, saving residuals",
    "bwd": "the custom backward pass: residuals and cotangent in, cotangents out",
    "num_res": "how many residuals the forward pass saves",
    "symbolic_zeros": "True if the rule receives symbolic zero tangents",
    "call_jaxpr": "the nested program",
    "out_trees": "the pytree structure of the outputs",
    "dtype": "the element type",
}


# the primitives whose rules a click on their names shows: the uid of their radios (the
# rendering that writes the rules) and each primitive's number (`ruled_primitives`)
Picks = tuple[str, Mapping[str, int]]


def _span(
    s: program.Span, uid: str, title: str | None = None, pick: tuple[str, int] | None = None
) -> str:
    text = esc(s.text)
    t = f' title="{esc(title)}"' if title else ""
    if pick is not None:  # a primitive whose rules are below: its label shows them
        radios, k = pick
        return f'<label for="{radios}-p{k}" class="dx-primitive dx-prim dx-p{k}"{t}>{text}</label>'

    if s.var is not None:
        cls = f"dx-var dx-v{s.var}" + (" dx-bind" if s.binds else "")
        return f'<label for="{uid}-v{s.var}" class="{cls}"{t}>{text}</label>'
    kind = s.kind.value
    if kind == "text":
        return f"<span{t}>{text}</span>" if t else text
    return f'<span class="dx-{esc(kind)}"{t}>{text}</span>'


def _line_html(
    model: program.JaxprModel,
    i: int,
    uid: str,
    current: int | None,
    tag: str = "div",
    mark: tuple[str, str] | None = None,
    picks: Picks | None = None,
) -> str:
    indent, spans = model.lines[i]
    parts = []
    for s in spans:
        title, pick = None, None
        if s.eqn is not None:
            src = model.eqns[s.eqn].source
            if src is not None:
                title = src.describe()
            k = picks[1].get(model.eqns[s.eqn].primitive) if picks else None
            pick = (picks[0], k) if picks and k is not None else None
        elif s.kind.value == "param":
            title = PARAM_HELP.get(s.text, f"the primitive's parameter {s.text}")
        parts.append(_span(s, uid, title, pick))
    cls = "dx-l dx-current" if i == current else "dx-l"
    src_marker = ""
    if mark is not None:  # its number or derivation, at the end of the equation's line
        text, status = mark
        status = status if status in ("unchanged", "new") else "other"
        src_marker = f'<span class="dx-mark dx-{esc(status)}">  {esc(text)}</span>'
    return (
        f'<{tag} class="{cls}" data-line="{i}">{" " * indent}{"".join(parts)}{src_marker}</{tag}>'
    )


def _var_rules(uid: str, n: int) -> str:
    # sibling selectors (the radios come before the code), not `#uid:has(#uid-vk:checked)`:
    # in Chromium a click under :has() rules restyled the whole program (about a second for
    # 2,000 equations), under sibling rules only the variable's tokens (milliseconds)
    rules = [
        f"#{uid}-v{k}:checked ~ .dx-code .dx-v{k} {{ background: var(--dx-hl); }}"
        f"#{uid}-v{k}:checked ~ .dx-code .dx-v{k}.dx-bind "
        f"{{ outline: 1px solid var(--dx-primitive); }}"
        for k in range(n)
    ]
    return "<style>" + "\n".join(rules) + "</style>"


def ruled_primitives(
    models: Sequence[program.JaxprModel], rules: Mapping[str, str]
) -> dict[str, int]:
    """The primitives printed in `models` that `rules` has markup for, numbered in the order
    they are first printed."""
    names = dict.fromkeys(e.primitive for m in models for e in m.eqns)
    return {name: k for k, name in enumerate(n for n in names if n in rules)}


def rules_parts(uid: str, ruled: Mapping[str, int], rules: Mapping[str, str]) -> tuple[str, str]:
    """Each ruled primitive's rules once (the second part, to follow the programs), shown
    while its radio (the first part, with the style, to precede them as their siblings) is
    checked by a click on any of its names (`jaxpr_code` with these `picks`). Sibling
    selectors, not :has(): a click restyles only the names and blocks. Where <style> is
    removed (an untrusted notebook) each block is a closed <details> to open by hand."""
    radios = "".join(
        f'<input type="radio" class="dx-pick" name="{uid}-p" id="{uid}-p{k}">'
        for k in [*ruled.values(), "none"]
    )
    css = "".join(
        f"#{uid}-p{k}:checked ~ * .dx-rp{k} {{ display: block; }}"
        f"#{uid}-p{k}:checked ~ * .dx-p{k} {{ background: var(--dx-hl); }}"
        for k in ruled.values()
    )
    close = f'<label for="{uid}-pnone" class="dx-close">\u2715 close</label>'
    blocks = "".join(
        f'<details class="dx-rules-of dx-rp{k}"><summary>the rules of {esc(name)}</summary>'
        f"{close}{rules[name]}</details>"
        for name, k in ruled.items()
    )
    return f"{radios}<style>{css}</style>", f'<div class="dx-rules">{blocks}</div>'


def jaxpr_code(
    model: program.JaxprModel,
    uid: str | None = None,
    *,
    current_line: int | None = None,
    folded: Iterable[int] = (),
    rules: Mapping[str, str] | None = None,
    picks: Picks | None = None,
) -> str:
    """The jaxpr's lines as a `dx-code` block: tokens coloured by kind, multi-line equations
    and nested jaxprs as `<details>` (open unless their first line is in `folded`), each
    variable a label of its radio button (click: highlight binding and uses), parameters and
    equations with hover titles. `rules`: the markup of each primitive's rules (`%rules`), by
    name; each one shown is written once, below the program, and a click on the primitive's
    name in any equation shows it (a radio button and CSS, like the variables). `picks`: the
    primitives' radios are outside, written by `rules_parts` for several programs at once."""
    uid = uid or new_uid()
    folded = set(folded)
    own = picks is None and bool(rules)  # this program writes its primitives' rules
    picks = (uid, ruled_primitives([model], rules or {})) if picks is None else picks
    marks = model.line_marks()
    starts: dict[int, list[program.Fold]] = {}
    for f in model.folds:
        starts.setdefault(f.start, []).append(f)
    out: list[str] = []
    ends: list[int] = []  # open <details>' last lines
    for i in range(len(model.lines)):
        opening = starts.get(i, [])
        if opening:
            f = opening[0]
            is_open = "" if f.start in folded else " open"
            out.append(f'<details class="dx-fold dx-fold-{esc(f.label)}"{is_open}>')
            out.append(_line_html(model, i, uid, current_line, "summary", marks.get(i), picks))
            ends.append(f.end)
        else:
            out.append(_line_html(model, i, uid, current_line, mark=marks.get(i), picks=picks))
        while ends and ends[-1] == i:
            out.append("</details>")
            ends.pop()
    out.extend("</details>" for _ in ends)
    radios = "".join(
        f'<input type="radio" class="dx-pick" name="{uid}" id="{uid}-v{k}">'
        for k in range(len(model.var_names))
    )
    shown = note(model.note()) if model.note() else ""  # a long program: what is left out
    above, below = rules_parts(uid, picks[1], rules or {}) if own and picks[1] else ("", "")
    return (
        f'<div id="{uid}" class="dx-jaxpr">{radios}{_var_rules(uid, len(model.var_names))}'
        f'{above}<div class="dx-code">{"".join(out)}</div>{shown}{below}</div>'
    )


def rows_table(rows: Sequence[Row], cls: str = "dx-rows") -> str:
    cells = "".join(f"<tr><th>{esc(r.label)}</th><td>{esc(r.text)}</td></tr>" for r in rows)
    return f'<table class="{esc(cls)}">{cells}</table>'


def io_tables(model: program.JaxprModel) -> str:
    parts = []
    if model.inputs:
        parts.append('<div class="dx-heading">inputs</div>' + rows_table(model.inputs))
    if model.outputs:
        parts.append('<div class="dx-heading">outputs</div>' + rows_table(model.outputs))
    if model.meshes:
        parts.append('<div class="dx-heading">device meshes</div>' + rows_table(model.meshes))
    return "".join(parts)


def jaxpr_html(model: program.JaxprModel, *, uid: str | None = None) -> str:
    """A whole static jaxpr view: code, then inputs and outputs."""
    return view(jaxpr_code(model, uid) + io_tables(model), "jaxpr")


def heading(text: str) -> str:
    return f'<div class="dx-heading">{esc(text)}</div>'


def note(text: str, cls: str = "dx-note") -> str:
    return f'<div class="{esc(cls)}">{esc(text)}</div>'


def try_it(interactions: Sequence[str]) -> str:
    """The "try it" line under a view: what a reader can do with it."""
    if not interactions:
        return ""
    return view(note("try it: " + " \u00b7 ".join(interactions), "dx-try"), "try")


def pre(text: str) -> str:
    return f'<div class="dx-code">{esc(text)}</div>'


# ----------------------------------------------------------------------------- sections


def section_html(section: Section) -> str:
    """A report's part: its heading, jaxpr, rows, block and note (folded: a `<details>`)."""
    body = []
    if section.link is not None:  # a file of the package, relative to the notebook's folder
        text, href = section.link
        body.append(f'<a class="dx-link" href="{esc(href)}" target="_blank">{esc(text)}</a>')
    if section.jaxpr is not None:
        body.append(jaxpr_code(program.jaxpr_model(section.jaxpr, marks=section.marks)))
    if section.rows:
        body.append(rows_table(section.rows))
    if section.block is not None:
        body.append(pre(section.block.rstrip("\n")))
    if section.note:
        body.append(note(section.note))
    if section.folded:
        summary = f"<summary>{esc(section.heading)}</summary>"
        return f'<details class="dx-section">{summary}{"".join(body)}</details>'
    head = heading(section.heading) if section.heading else ""
    return f'<div class="dx-section">{head}{"".join(body)}</div>'


def sections_html(sections: Sequence[Section], kind: str = "report") -> str:
    """A whole report as a static view."""
    return view("".join(map(section_html, sections)), kind)


# ----------------------------------------------------------------------------- graph


def graph_svg(graph: GraphModel, placed: Placed, scale: float = 1.0) -> str:
    """The laid-out dataflow graph as an inline SVG: boxes with hover titles, edges as
    polylines with arrow heads, each edge labelled with its variable and type."""
    w, h = max(placed.width, 1.0), max(placed.height, 1.0)
    parts = []
    by_id = {n.id: n for n in graph.nodes}
    groups: dict[str, list[tuple[float, float, float, float]]] = {}
    for n in graph.nodes:
        if n.group and n.id in placed.boxes:
            groups.setdefault(n.group, []).append(placed.boxes[n.id])
    for group, boxes in groups.items():  # an expanded nested jaxpr: a dashed frame, named
        x0 = min(x - bw / 2 for x, _, bw, _ in boxes) - 6
        y0 = min(y - bh / 2 for _, y, _, bh in boxes) - 16
        x1 = max(x + bw / 2 for x, _, bw, _ in boxes) + 6
        y1 = max(y + bh / 2 for _, y, _, bh in boxes) + 6
        x0, y0 = max(x0, 0.0), max(y0, 0.0)
        w, h = max(w, x1 + 2), max(h, y1 + 2)  # the frame stays in the drawing
        parts.append(
            f'<rect class="dx-group" x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" '
            f'height="{y1 - y0:.1f}" rx="6"/><text class="dx-group-label" x="{x0 + 4:.1f}" '
            f'y="{y0 + 11:.1f}">{esc(group)}</text>'
        )
    for edge, pts in placed.routes:
        if len(pts) < 2:
            continue
        (x0, y0), (x1, y1) = pts[0], pts[-1]
        src, dst = placed.boxes[edge.src], placed.boxes[edge.dst]
        pts = [(x0, y0 + src[3] / 2), *pts[1:-1], (x1, y1 - dst[3] / 2)]
        d = "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        mx, my = pts[len(pts) // 2 - 1] if len(pts) > 2 else ((x0 + x1) / 2, (y0 + y1) / 2)
        w = max(w, mx + 3 + _LABEL_EM * len(edge.text) + 4)  # the label stays in the drawing
        parts.append(
            f'<g class="dx-edge-g"><title>{esc(edge.text)}</title>'
            f'<path class="dx-edge" d="{d}" marker-end="url(#dx-arrow)"/>'
            f'<text class="dx-edge-label" x="{mx + 3:.1f}" y="{my:.1f}">{esc(edge.text)}</text></g>'
        )
    for nid, (x, y, bw, bh) in placed.boxes.items():
        n = by_id[nid]
        parts.append(
            f'<g class="dx-node dx-node-{esc(n.kind)}" data-node="{nid}">'
            f"<title>{esc(n.detail)}</title>"
            f'<rect x="{x - bw / 2:.1f}" y="{y - bh / 2:.1f}" width="{bw:.1f}" '
            f'height="{bh:.1f}" rx="4"/>' + _node_lines(n, x, y - bh / 2) + "</g>"
        )
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="dx-graph" width="{w * scale:.0f}" '
        f'height="{h * scale:.0f}" viewBox="0 0 {w:.1f} {h:.1f}">'
        '<defs><marker id="dx-arrow" viewBox="0 0 10 10" refX="10" refY="5" '
        'markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" '
        'fill="currentColor"/></marker></defs>'
    )
    return head + "".join(parts) + "</svg>"


def graph_svg_file(graph: GraphModel, placed: Placed) -> str:
    """The graph as a standalone SVG file: the drawing with its own stylesheet (light
    palette, white background), readable outside JupyterLab."""
    return standalone_svg(graph_svg(graph, placed))


def download_link(text: str, filename: str, mime: str, label: str) -> str:
    """A link that saves `text` as `filename` (a data: URL; no kernel needed to follow it)."""
    data = base64.b64encode(text.encode()).decode()
    return (
        f'<a class="dx-link" download="{esc(filename)}" href="data:{esc(mime)};base64,{data}">'
        f"{esc(label)}</a>"
    )


_LABEL_EM = 6.5  # width of an edge label's character (10px monospace), to size the drawing


def _node_lines(n: Any, x: float, top: float) -> str:
    # its label; for a concrete call, the value it made and the cotangent that reached it
    lines = [
        ("", n.label),
        ("dx-node-value", n.value),
        ("dx-node-grad", n.grad and "\u2207 " + n.grad),
    ]
    out = []
    for cls, text in (line for line in lines if line[1]):
        attr = f' class="{cls}"' if cls else ""
        y = top + 17 + 14 * len(out)
        out.append(f'<text{attr} x="{x:.1f}" y="{y:.1f}" text-anchor="middle">{esc(text)}</text>')
    return "".join(out)


# ----------------------------------------------------------------------------- timing


def _bar_rows(items: Sequence[tuple[str, float, str]], width: float = 360.0) -> str:
    """Horizontal bars on a log-free linear scale: (label, seconds, css class)."""
    top = max((s for _, s, _ in items if math.isfinite(s)), default=0.0) or 1.0
    row_h, label_w = 20, 130
    height = row_h * len(items) + 4
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + width + 90:.0f}" '
        f'height="{height}">'
    ]
    for k, (label, s, cls) in enumerate(items):
        y = 2 + k * row_h
        bw = max(1.0, width * s / top) if math.isfinite(s) else 1.0
        parts.append(
            f'<text x="0" y="{y + 13}">{esc(label)}</text>'
            f'<rect class="{esc(cls)}" x="{label_w}" y="{y + 2}" width="{bw:.1f}" '
            f'height="{row_h - 6}"><title>{esc(label)}: {esc(format_time(s))}</title></rect>'
            f'<text x="{label_w + bw + 6:.1f}" y="{y + 13}">{esc(format_time(s))}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _spread(runs: Sequence[float]) -> str:
    mean = sum(runs) / len(runs)
    std = (sum((r - mean) ** 2 for r in runs) / len(runs)) ** 0.5
    if len(runs) == 1:
        return f"{format_time(mean)} per call (1 run)"
    return (
        f"{format_time(mean)} \u00b1 {format_time(std)} per call "
        f"(min {format_time(min(runs))}, max {format_time(max(runs))}, "
        f"{len(runs)} run{'s' if len(runs) != 1 else ''})"
    )


def timing_html(t: compiled.TimingModel) -> str:
    """Compiled against eager per call as bars (best and each run), the phase split, the
    runs made, the speed-up with what eager means, and the %timeit warnings."""
    best = [
        ("compiled (best)", min(t.steady_runs), "dx-bar-compiled"),
        ("eager (best)", min(t.eager_runs), "dx-bar-eager"),
    ]
    runs = [(f"compiled run {i + 1}", s, "dx-bar-compiled") for i, s in enumerate(t.steady_runs)]
    runs += [(f"eager run {i + 1}", s, "dx-bar-eager") for i, s in enumerate(t.eager_runs)]
    phases = [
        Row(p.name, format_time(p.seconds) + (f"  ({p.note})" if p.note else "")) for p in t.phases
    ]
    speed = f"speed-up {t.speedup:.1f}x (best eager / best compiled)"
    spread = [
        Row(name, _spread(runs))
        for name, runs in (("compiled", t.steady_runs), ("eager", t.eager_runs))
    ]
    warn = "".join(note(w, "dx-note dx-warn") for w in t.warnings)
    return (
        heading(t.title)
        + _bar_rows(best)
        + note(speed)
        + note(compiled.EAGER_MEANING)
        + rows_table(spread)
        + warn
        + heading("phases (once per new input type)")
        + rows_table(phases)
        + f"<details><summary>every run ({esc(t.runs_note)})</summary>"
        + _bar_rows(runs)
        + "</details>"
    )


# ----------------------------------------------------------------------------- compiler text


def hlo_code(model: compiled.HloModel, *, metadata: bool = False, query: str = "") -> str:
    """StableHLO/HLO lines coloured by kind; `metadata=`/`loc(...)` shown only if asked;
    with a query, only the lines containing it (case-insensitive), with a count."""
    q = query.lower()
    out = []
    shown = 0
    for pieces in model.lines:
        if not metadata and pieces and all(k is compiled.HloKind.META for k, _ in pieces):
            continue  # a source-table row: metadata through and through
        text = "".join(t for k, t in pieces if metadata or k is not compiled.HloKind.META)
        if q and q not in text.lower():
            continue
        shown += 1
        spans = "".join(
            esc(t)
            if k is compiled.HloKind.TEXT
            else f'<span class="dx-{esc(k.value)}">{esc(t)}</span>'
            for k, t in pieces
            if metadata or k is not compiled.HloKind.META
        )
        out.append(f'<div class="dx-l">{spans}</div>')
    head = note(f"{shown} of {len(model.lines)} lines contain {query!r}") if q else ""
    return head + f'<div class="dx-scroll"><div class="dx-code">{"".join(out)}</div></div>'


def cost_html(cost: compiled.CostModel) -> str:
    if not cost.main and not cost.per_operand:
        return note("XLA gave no cost analysis for this program")
    body = rows_table(cost.main)
    if cost.per_operand:
        body += (
            f"<details><summary>per operand ({len(cost.per_operand)} entries: "
            f"{esc(compiled.PER_OPERAND_NOTE)})</summary>"
            + rows_table(cost.per_operand)
            + "</details>"
        )
    return body


def eqn_cost_html(rows: Sequence[provenance.EqnCost]) -> str:
    """The per-equation cost table (the slot that provenance's cost join fills)."""
    if not rows:
        return note("no per-equation costs for this program")

    def num(v: float | None) -> str:
        return "-" if v is None else f"{v:,.0f}"

    def cells(r: provenance.EqnCost) -> str:
        path = r.eqn.path  # a nested equation indented under the top-level one holding it
        primitive = "  " * (len(path) - 1) + r.eqn.primitive
        fusion = ", ".join(dict.fromkeys(r.landed)) or "-"
        kind = ", ".join(k for k in dict.fromkeys(r.kinds) if k) or "-"
        return (
            f"<tr><td>{path[0]}</td><td><span class='dx-primitive'>{esc(primitive)}</span></td>"
            f"<td>{esc(fusion)}</td><td>{esc(kind)}</td><td>{num(r.flops)}</td>"
            f"<td>{num(r.bytes)}</td><td>{esc(program.cell_location(r.eqn))}</td></tr>"
        )

    head = "".join(
        f"<th>{h}</th>" for h in ("eqn", "primitive", "fusion", "kind", "flops", "bytes", "source")
    )
    body = "".join(map(cells, rows))
    return f'<table class="dx-rows"><tr>{head}</tr>{body}</table>'


# ----------------------------------------------------------------------------- stepper


def stepper_html(
    model: program.JaxprModel,
    uid: str,
    current_line: int | None,
    where: str,
    log: Sequence[tuple[str, str, str]],
    status: str,
    rules: Mapping[str, str] | None = None,
) -> str:
    """The Stepper's body: its status, the program with the next equation highlighted (and,
    given `rules`, each primitive's rules on a click on its name, as `jaxpr_code`'s), and the
    values defined so far."""
    values = "".join(
        f"<tr><th>{esc(w)}</th><td><span class='dx-var'>{esc(v)}</span></td><td>{esc(x)}</td></tr>"
        for w, v, x in log
    )
    code = jaxpr_code(model, uid, current_line=current_line, rules=rules)
    return (
        note(status)
        + f'<div class="dx-scroll">{code}</div>'
        + heading(f"values ({where})")
        + f'<div class="dx-scroll"><table class="dx-rows">{values}</table></div>'
    )


# ----------------------------------------------------------------------------- figures


def figure_text(
    x: float, y: float, text: str, *, size: int = 13, anchor: str = "start", rotate: bool = False
) -> str:
    """A figure's text at (x, y), in the theme's text colour (the stylesheet's `svg text`);
    `rotate` turns it a quarter anticlockwise about (x, y), for a vertical axis title."""
    place = f'transform="translate({x:g},{y:g}) rotate(-90)"' if rotate else f'x="{x:g}" y="{y:g}"'
    return (
        f'<text {place} style="font-size:{size}px" text-anchor="{esc(anchor)}">{esc(text)}</text>'
    )


def figure_box(x: float, y: float, w: float, h: float, text: str, tone: str) -> str:
    """A rounded box tinted with the theme's `tone` (a key of theme.TINTS), its text centred."""
    rect = (
        f'<rect class="dx-tint-{esc(tone)}" x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" '
        'rx="6" stroke="currentColor" stroke-opacity="0.7"/>'
    )
    return rect + figure_text(x + w / 2, y + h / 2 + 5, text, anchor="middle")


def figure_arrow(x1: float, y1: float, x2: float, y2: float) -> str:
    """A line in the ink colour with an arrowhead at (x2, y2)."""
    return (
        f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="currentColor" '
        'stroke-width="2" marker-end="url(#dx-head)"/>'
    )


def figure_path(d: str, *, curve: int | None = None, width: float = 1.0) -> str:
    """An open path in the ink colour, or in the colour of curve number `curve`."""
    paint = f'class="dx-curve-{curve}"' if curve is not None else 'stroke="currentColor"'
    return f'<path d="{esc(d)}" fill="none" {paint} stroke-width="{width:g}"/>'


def figure_html(width: int, height: int, parts: Sequence[str], caption: str) -> str:
    """A figure as a view: an inline SVG whose colours follow JupyterLab's theme, and its
    copy as an image (light or dark palette, as the page) that shows where the sanitizer
    removed the SVG."""
    body = "".join(parts)
    key = hashlib.sha1(body.encode()).hexdigest()[:8]  # one arrowhead id per drawing
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="dx-figure" width="{width}" '
        f'height="{height}" role="img" aria-label="{esc(caption)}"><title>{esc(caption)}'
        f'</title><defs><marker id="dx-head-{key}" markerWidth="8" markerHeight="8" refX="7" '
        'refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="currentColor"/></marker>'
        f"</defs>{body.replace('url(#dx-head)', f'url(#dx-head-{key})')}</svg>"
    )
    return inline_styles(view(svg, "figure"))
