"""The model of a program as the views show it: plain data, no ipywidgets, no markup.

Layer 6 (STYLE.md §9, models -> parts -> one writer each). `JaxprModel` holds the printer's
kind-tagged lines (`printed`, the one place that reads `didax.jaxpr`'s printer), each token
annotated with the variable it names (binding or use), the equation it heads, and the foldable
regions (multi-line equations and nested jaxprs); `JaxprModel.text()` is `str(jaxpr)`. Also:
where an equation came from in the user's code (`source_line`), the device meshes a program
names (`mesh_rows`), and the printed line of each equation (`eqn_lines`, for the Stepper).
"""

from __future__ import annotations

import builtins
import functools
import os
import sys
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from didax import pretty
from didax.display.parts import Row
from didax.jaxpr import (
    ClosedJaxpr,
    Jaxpr,
    Literal,
    laid_out,
    literal_text,
    params_texts,
    part_name,
    pp_params_rules,
    shared_jaxprs,
)
from didax.sharding import Mesh, NamedSharding

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
    return x.jaxpr if isinstance(x, ClosedJaxpr) else x


def _is_jaxpr(x: Any) -> bool:
    return isinstance(x, (Jaxpr, ClosedJaxpr))


def nested_jaxprs(eqn: Any) -> list[Any]:
    """The (open) jaxprs in an equation's params, in printed order."""
    out = []
    for _, v in print_params(eqn):
        for x in v if isinstance(v, tuple) else (v,):
            if _is_jaxpr(x):
                out.append(_open(x))
    return out


def primitives_in(jaxpr: Any) -> dict[str, Any]:
    """The primitives a program binds, nested jaxprs included, by name, in the order they
    are first printed (two primitives of one name: the first)."""
    seen: dict[str, Any] = {}

    def walk(j: Any) -> None:
        for eqn in _open(j).eqns:
            seen.setdefault(eqn.primitive.name, eqn.primitive)
            for sub in nested_jaxprs(eqn):
                walk(sub)

    walk(jaxpr)
    return seen


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
    # a running IPython shell puts `get_ipython` into builtins: no IPython import here
    get_shell = getattr(builtins, "get_ipython", None)
    compiler = getattr(get_shell() if get_shell else None, "compile", None)
    label = compiler.format_code_name(file) if hasattr(compiler, "format_code_name") else None
    return " ".join(label) if label else file


def cell_location(eqn: Any) -> str:
    """`file:line:column (function)` of an equation (a provenance `EqnRef`), a notebook
    cell's file named as IPython names it."""
    if eqn.source is None or not _user_file(eqn.source.file):
        return ""
    return eqn.location.replace(eqn.source.file, _cell_name(eqn.source.file), 1)


def source_line(eqn: Any) -> SourceLine | None:
    """The equation's `source_info` (provenance), or None where it has none."""
    info = eqn.source_info
    if info is None or not _user_file(info.file):
        return None
    return SourceLine(_cell_name(info.file), info.line, info.function, info.text)


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
    mark: str = ""  # its number (`eqn 3/branch 1/eqn 0`) or derivation (`tangent of eqn 1`)
    status: str = ""  # the mark's class: "unchanged" (a number, a primal) or "new"


@dataclass(frozen=True)
class Fold:
    """Lines `start..end` (inclusive) fold into line `start`."""

    start: int
    end: int
    label: str  # "jit", "cond", "jaxpr" ...


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
    shown_eqns: int | None = None  # a long program: how many top-level equations it shows

    def text(self) -> str:  # == str(jaxpr) (a test checks it), or its first TEXT_WINDOW eqns
        return "\n".join(" " * n + "".join(t.text for t in ts) for n, ts in self.lines)

    def note(self) -> str:
        """What a long program's view leaves out, or ''."""
        if self.shown_eqns is None:
            return ""
        return (
            f"showing the first {self.shown_eqns:,} of {self.n_top_eqns:,} equations, as a "
            f"program whose outputs are the values the other {self.n_top_eqns - self.shown_eqns:,} "
            "read (a program this long is shown in part; str() of it prints it all)"
        )

    def line_marks(self) -> dict[int, tuple[str, str]]:
        """line -> (its equations' marks, joined as the printer joins them with `; `, and
        their class: "new" if any is new)."""
        out: dict[int, tuple[str, str]] = {}
        for e in self.eqns:
            if e.mark:
                mark, status = out.get(e.line, ("", "unchanged"))
                mark = f"{mark}; {e.mark}" if mark else e.mark
                out[e.line] = (mark, "new" if "new" in (status, e.status) else status)
        return out

    def marked_text(self) -> str:
        """The text with each equation's mark after its line at one column (` # tangent
        of eqn 1`), as `pretty_print(derivation=True)` places its notes."""
        marks = {line: mark for line, (mark, _) in self.line_marks().items()}
        texts = self.text().split("\n")
        if not marks:
            return "\n".join(texts)
        width = max(len(t) for t in texts)
        return "\n".join(
            f"{t.ljust(width)} # {marks[i]}" if i in marks else t for i, t in enumerate(texts)
        )


# The marks a program's equations can carry in a view: its own equation numbers (the program
# a transformation started from), or where each came from (the programs it made).
MARKS = ("", "numbers", "derivation")
_SAME_ROLES = ("primal", "copy")  # marked as unchanged; every other role as new


def _mark(eqn: Any, number: str, prefix: str, marks: str) -> tuple[str, str]:
    if marks == "numbers":
        return f"eqn {number}", "unchanged"
    d = eqn.derivation if marks == "derivation" else None
    if d is None:
        return "", ""
    status = "unchanged" if d.role in _SAME_ROLES else "new"
    return d.describe(eqn.params, prefix, functools.partial(params_texts, eqn.primitive)), status


Place = tuple[int, int | None, str, str]


def _places(top: Jaxpr) -> dict[int, Place]:
    """id(eqn) -> (nesting depth, index among the top-level equations or None, its number
    path `3/branch 1/eqn 0`, and the path its derivation's source is printed under)."""
    shared = {id(j): j for _, j in shared_jaxprs(top).values()}  # printed first, as `let`
    out: dict[int, Place] = {}

    def walk(j: Jaxpr, depth: int, is_top: bool, number: str, prefix: str) -> None:
        for i, eqn in enumerate(j.eqns):
            out[id(eqn)] = (depth, i if is_top else None, f"{number}{i}", prefix)
            d = eqn.derivation
            for name, v in print_params(eqn):
                items = v if isinstance(v, tuple) else (v,)
                for k, sub in enumerate(items):
                    if not _is_jaxpr(sub) or id(_open(sub)) in shared:
                        continue
                    part = part_name(name, k if isinstance(v, tuple) else None)
                    inner = f"{prefix}{d.source}/{part}/eqn " if d and d.source is not None else ""
                    walk(_open(sub), depth + 1, False, f"{number}{i}/{part}/eqn ", inner)

    for j in shared.values():
        walk(j, 2, False, "", "")
    walk(top, 1, True, "", "")
    return out


def _folds(raw: Sequence[Line], eqn_lines: Sequence[tuple[int, int]]) -> tuple[Fold, ...]:
    """Multi-line equations and multi-line nested jaxprs, properly nested by lines."""
    regions: list[tuple[int, int, str]] = []
    # nested jaxprs: from `{ lambda` to its ` }`, both tagged with the jaxpr by the printer;
    # the top-level jaxpr (and a shared `let` printed before it) is not folded
    starts: dict[int, int] = {}  # id(jaxpr) -> the line of its `lambda`
    for i, (_, tokens) in enumerate(raw):
        for t in tokens:
            if isinstance(t.ref, Jaxpr) and t.kind is TokenKind.KEYWORD:
                starts[id(t.ref)] = i
            elif isinstance(t.ref, Jaxpr):
                start = starts.pop(id(t.ref))
                if starts:  # inside another jaxpr
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
    closed: Any,
    inputs: Sequence[Row] | None = None,
    outputs: Sequence[Row] | None = None,
    marks: str = "",
) -> JaxprModel:
    """The model of a (closed) jaxpr: its printed tokens, annotated. `inputs`/`outputs`
    None: rows of each input's and output's variable and type. `marks` (one of `MARKS`):
    mark each equation with its number, or with its derivation (read from the IR)."""
    top = _open(closed)
    shown = first_eqns(top, TEXT_WINDOW)
    raw, names = printed(shown)
    default_ins, default_outs = _io_rows(top, names)
    if shown is not top:  # outputs made after the equations shown have no printed name
        default_outs = tuple(
            Row(r.label.replace("?:", "\u2026:", 1), f"{r.text} (made after those shown)")
            if r.label.startswith("?:")
            else r
            for r in default_outs
        )
    inputs = default_ins if inputs is None else inputs
    outputs = default_outs if outputs is None else outputs
    places = _places(shown)
    var_ids: dict[str, int] = {}
    eqns: list[EqnInfo] = []
    eqn_starts: list[tuple[int, int]] = []  # (line, depth) of each printed primitive
    lines: list[Line] = []
    for li, (indent, tokens) in enumerate(raw):
        spans = []
        for k, t in enumerate(tokens):
            if t.kind is TokenKind.VAR:
                vid = var_ids.setdefault(t.text, len(var_ids))
                nxt = tokens[k + 1] if k + 1 < len(tokens) else None
                binds = nxt is not None and nxt.kind is TokenKind.TYPE
                spans.append(Span(t.kind, t.text, var=vid, binds=binds))
            elif t.kind is TokenKind.PRIMITIVE:
                n = len(eqns)
                d, top_i, number, prefix = places[id(t.ref)]  # the printer tags its eqn
                mark, status = _mark(t.ref, number, prefix, marks)
                eqns.append(EqnInfo(t.text, d, li, source_line(t.ref), top_i, mark, status))
                eqn_starts.append((li, d))
                spans.append(Span(t.kind, t.text, eqn=n))
            else:
                spans.append(Span(t.kind, t.text))
        lines.append((indent, tuple(spans)))
    return JaxprModel(
        lines=tuple(lines),
        var_names=tuple(var_ids),
        eqns=tuple(eqns),
        folds=_folds(raw, _eqn_ranges(eqn_starts, len(lines))),
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        n_top_eqns=len(top.eqns),
        meshes=mesh_rows(closed),
        shown_eqns=len(shown.eqns) if shown is not top else None,
    )


TEXT_WINDOW = 2000  # top-level equations a view prints: a longer program shows its first ones


def first_eqns(top: Jaxpr, n: int) -> Jaxpr:
    """`top` cut after its first `n` equations: those equations, as a program whose outputs
    are the values the rest reads (or `top` itself if it is no longer). The names printed
    for them are those of the whole program (the printer names variables in order)."""
    if len(top.eqns) <= n:
        return top
    eqns = top.eqns[:n]
    made = {id(v): v for e in eqns for v in e.outvars}
    live: dict[int, Any] = {}
    for e in top.eqns[n:]:
        for x in e.invars:
            if id(x) in made:
                live.setdefault(id(x), x)
    for x in top.outvars:
        if id(x) in made:
            live.setdefault(id(x), x)
    return Jaxpr(top.constvars, top.invars, list(live.values()), eqns)


def _eqn_ranges(starts: Sequence[tuple[int, int]], n_lines: int) -> list[tuple[int, int]]:
    # an equation runs to the line before the next equation of the same or a shallower
    # depth; the last top-level one stops before the `in` line
    out = []
    for k, (line, depth) in enumerate(starts):
        end = n_lines - 2
        for j in range(k + 1, len(starts)):  # (no copy of the tail per equation)
            line2, depth2 = starts[j]
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
    if isinstance(v, Literal):
        return literal_text(v.val)
    return names.get(id(v), "?")


def printed_names(closed: Any) -> dict[int, str]:
    """id(var) -> the name the printer gives it, for every variable it prints (nested
    jaxprs included: one naming is shared by the whole printout)."""
    return printed(closed)[1]


def eqn_lines(closed: ClosedJaxpr | Jaxpr) -> dict[int, int]:
    """id(eqn) -> the line its primitive is printed on, for every equation (nested ones
    included), as the printer tags each primitive's token with its equation."""
    return {
        id(t.ref): i
        for i, (_, tokens) in enumerate(printed_lines(closed))
        for t in tokens
        if t.kind is TokenKind.PRIMITIVE
    }
