"""Jaxprs as text, in JAX 0.10's format: jaxpr -> document -> kind-tagged tokens -> text.

Layer 1. The layout is a small Wadler-style pretty printer: a `Group` prints on one line when
its flat text fits in the remaining width (80 columns), and otherwise breaks its `Break`s into
newlines at the group's indentation. Like JAX's printer, only the group's own text decides
whether it fits. The output is a list of lines of `Token`s tagged with a `TokenKind`, which the
widgets color without re-parsing; `str(jaxpr)` joins their text.

This module sits *before* jaxpr.py in layer 1 (not after, as STYLE.md's diagram has it) so
that `Jaxpr.__str__` can call it without a cycle; it reads IR records by their fields
(`eqns`, `invars`, `val` for literals) instead of importing their classes.
"""

from __future__ import annotations

import collections
import enum
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from didax import core

WIDTH = 80


class TokenKind(enum.Enum):
    KEYWORD = "keyword"
    VAR = "var"
    TYPE = "type"
    PRIMITIVE = "primitive"
    PARAM = "param"
    LITERAL = "literal"
    PUNCT = "punct"
    TEXT = "text"


@dataclass(frozen=True, slots=True)
class Token:
    kind: TokenKind
    text: str


Line = tuple[int, tuple[Token, ...]]  # (indent, tokens)

# ----------------------------------------------------------------------------- documents


@dataclass(frozen=True, slots=True)
class Text:
    token: Token


@dataclass(frozen=True, slots=True)
class Break:
    flat: str = " "  # what the break prints when its group is flat


@dataclass(frozen=True, slots=True)
class Nest:
    indent: int
    child: Doc


@dataclass(frozen=True, slots=True)
class Group:
    child: Doc


@dataclass(frozen=True, slots=True)
class Concat:
    children: tuple[Doc, ...]


@dataclass(frozen=True, slots=True)
class Annotation:
    """A note for the line this lands on, printed after the text as `# note` (an equation's
    source location): no width, so the layout is the same with or without notes."""

    note: str


Doc = Text | Break | Nest | Group | Concat | Annotation


def text(s: str, kind: TokenKind = TokenKind.TEXT) -> Doc:
    return Text(Token(kind, s))


def concat(*docs: Doc) -> Doc:
    return Concat(tuple(docs))


def join(sep: Doc, docs: Sequence[Doc]) -> Doc:
    out: list[Doc] = []
    for i, d in enumerate(docs):
        if i:
            out.append(sep)
        out.append(d)
    return Concat(tuple(out))


def _flat_width(doc: Doc) -> int:
    if isinstance(doc, Text):
        return len(doc.token.text)
    if isinstance(doc, Break):
        return len(doc.flat)
    if isinstance(doc, Annotation):
        return 0
    if isinstance(doc, (Nest, Group)):
        return _flat_width(doc.child)
    return sum(_flat_width(c) for c in doc.children)


def layout(doc: Doc, width: int = WIDTH) -> list[Line]:
    """Lay `doc` out in lines of at most `width` columns where groups allow it."""
    return layout_annotated(doc, width)[0]


def layout_annotated(doc: Doc, width: int = WIDTH) -> tuple[list[Line], list[tuple[str, ...]]]:
    """`layout`, and for each line the annotations that landed on it."""
    lines: list[Line] = []
    notes: list[tuple[str, ...]] = []
    current: list[Token] = []
    current_notes: list[str] = []
    state = {"indent": 0, "col": 0}

    def walk(d: Doc, indent: int, flat: bool) -> None:
        if isinstance(d, Text):
            current.append(d.token)
            state["col"] += len(d.token.text)
        elif isinstance(d, Break):
            if flat:
                if d.flat:
                    current.append(Token(TokenKind.TEXT, d.flat))
                state["col"] += len(d.flat)
            else:
                lines.append((state["indent"], tuple(current)))
                notes.append(tuple(current_notes))
                current.clear()
                current_notes.clear()
                state["indent"], state["col"] = indent, indent
        elif isinstance(d, Annotation):
            current_notes.append(d.note)
        elif isinstance(d, Nest):
            walk(d.child, indent + d.indent, flat)
        elif isinstance(d, Group):
            walk(d.child, indent, flat or state["col"] + _flat_width(d.child) <= width)
        else:
            for c in d.children:
                walk(c, indent, flat)

    walk(doc, 0, False)
    lines.append((state["indent"], tuple(current)))
    notes.append(tuple(current_notes))
    return [(n, _merge(ts)) for n, ts in lines], notes


def _merge(tokens: Sequence[Token]) -> tuple[Token, ...]:
    out: list[Token] = []
    for t in tokens:
        if out and out[-1].kind == t.kind == TokenKind.TEXT:
            out[-1] = Token(TokenKind.TEXT, out[-1].text + t.text)
        elif t.text:
            out.append(t)
    return tuple(out)


def render(lines: Sequence[Line]) -> str:
    return "\n".join(" " * n + "".join(t.text for t in ts) for n, ts in lines)


def render_annotated(lines: Sequence[Line], notes: Sequence[Sequence[str]]) -> str:
    """The text with each line's notes after it, as JAX's printer places them: every note
    at one column (past the longest line) as ` # note`; a line's further notes on lines of
    their own below it."""
    texts = [" " * n + "".join(t.text for t in ts) for n, ts in lines]
    width = max(map(len, texts), default=0)
    out = []
    for text_, line_notes in zip(texts, notes, strict=True):
        if not line_notes:
            out.append(text_)
            continue
        out.append(f"{text_.ljust(width)} # {line_notes[0]}")
        out.extend(f"{' ' * width} # {note}" for note in line_notes[1:])
    return "\n".join(out)


# ----------------------------------------------------------------------------- naming


def _letters(n: int) -> str:
    s = ""
    while True:
        n, r = divmod(n, 26)
        s = chr(ord("a") + r) + s
        if n == 0:
            return s


class Names:
    """Names variables a, b, ..., z, ba, bb, ... in the order they are printed; shared by
    nested jaxprs, as in JAX."""

    def __init__(self) -> None:
        self.names: dict[Any, str] = {}
        self.count = 0

    def __getitem__(self, var: Any) -> str:
        name = self.names.get(var)
        if name is None:
            name = self.names[var] = _letters(self.count)
            self.count += 1
        return name


# How a primitive's params print: primitives whose printed params differ from their params
# (hidden defaults, JAX's spelling) register a rule here. The rule returns (name, value) pairs.
pp_params_rules: core.RuleTable[Callable[[dict], list[tuple[str, Any]]]] = core.RuleTable(
    "pp_params"
)


def _is_jaxpr(x: Any) -> bool:
    return hasattr(x, "eqns")


def _open(x: Any) -> Any:  # the Jaxpr inside a ClosedJaxpr
    return getattr(x, "jaxpr", x)


def _unused_outvars(jaxpr: Any) -> set[Any]:
    used = {id(v) for e in jaxpr.eqns for v in e.invars} | {id(v) for v in jaxpr.outvars}
    return {v for e in jaxpr.eqns for v in e.outvars if id(v) not in used}


def _jaxprs_in_params(params: dict) -> Iterator[Any]:
    for v in params.values():
        for x in v if isinstance(v, tuple) else (v,):
            if _is_jaxpr(_open(x)):
                yield _open(x)


def _shared_jaxprs(top: Any) -> dict[int, tuple[str, Any]]:
    """The nested jaxprs JAX prints once, before the program, as `let name = {...} in`:
    those reached more than once, and those of more than 10 equations. Each is named after
    the `name` param of the equation holding it (`jit[name=f ...]`), else `jaxpr`; repeated
    names get a number (`f`, `f1`). Keyed by id, in the order a breadth-first walk meets them."""
    counts: dict[int, int] = {}
    found: dict[int, Any] = {}
    names: dict[int, str] = {}
    queue = collections.deque([top])
    while queue:
        jaxpr = queue.popleft()
        key = id(jaxpr)
        found[key] = jaxpr
        counts[key] = counts.get(key, 0) + (2 if jaxpr is not top and len(jaxpr.eqns) > 10 else 1)
        for eqn in jaxpr.eqns:
            subs = list(_jaxprs_in_params(eqn.params))
            queue.extend(subs)
            name = eqn.params.get("name")
            if name is not None:
                for sub in subs:
                    names.setdefault(id(sub), str(name).strip("<>"))
    shared: dict[int, tuple[str, Any]] = {}
    taken: collections.Counter[str] = collections.Counter()
    for key, count in counts.items():
        if count == 1:
            continue
        name = names.get(key, "jaxpr")
        if taken[name]:
            taken[name] += 1
            name += str(taken[name] - 1)
        taken[name] += 1
        shared[key] = (name, found[key])
    return shared


class _Printer:
    def __init__(
        self,
        names: Names,
        shared: dict[int, tuple[str, Any]] | None = None,
        source_info: bool = False,
    ) -> None:
        self.names = names
        self.shared = shared or {}  # jaxprs printed once up front, referred to by name
        self.source_info = source_info  # annotate each equation with its user file:line

    def program(self, jaxpr: Any) -> Doc:
        """The top-level jaxpr, after the `let` bindings of its shared nested jaxprs."""
        lets = [
            concat(
                text("let ", TokenKind.KEYWORD),
                text(name, TokenKind.VAR),
                text(" = "),
                self.jaxpr(sub, top=False),
                text(" in", TokenKind.KEYWORD),
                Break(),
            )
            for name, sub in self.shared.values()
        ]
        return concat(*lets, self.jaxpr(jaxpr))

    def atom(self, a: Any) -> Doc:
        if hasattr(a, "val"):
            return text(f"{literal_text(a.val)}:{a.aval.str_short()}", TokenKind.LITERAL)
        return text(self.names[a], TokenKind.VAR)

    def binder(self, v: Any, unused: set[Any] = frozenset()) -> Doc:
        name = "_" if v in unused or type(v).__name__ == "DropVar" else self.names[v]
        kind = TokenKind.PUNCT if name == "_" else TokenKind.VAR
        return concat(text(name, kind), text(":" + v.aval.str_short(), TokenKind.TYPE))

    def binders(self, vs: Sequence[Any], unused: set[Any] = frozenset()) -> Doc:
        return Nest(2, Group(join(Break(), [self.binder(v, unused) for v in vs])))

    def jaxpr(self, jaxpr: Any, top: bool = True) -> Doc:
        # JAX 0.10 prints an unread outvar as `_` in the top-level jaxpr only; inside a
        # param (a scan body, a cond branch) it keeps its name. DropVars are `_` everywhere.
        unused = _unused_outvars(jaxpr) if top else set()
        constvars = self.binders(jaxpr.constvars)
        invars = self.binders(jaxpr.invars)
        eqns = join(Break("; "), [self.eqn(e, unused) for e in jaxpr.eqns])
        outs = [self.atom(v) for v in jaxpr.outvars]
        outvars = concat(text("("), join(text(", "), outs), text(",)" if len(outs) == 1 else ")"))
        body = concat(
            text("{ "),
            text("lambda ", TokenKind.KEYWORD),
            constvars,
            text("; "),
            invars,
            text(". "),
            text("let", TokenKind.KEYWORD),
            Nest(2, concat(Break(), eqns)),
            Break(),
            text("in ", TokenKind.KEYWORD),
            outvars,
        )
        return Group(concat(Nest(2, body), text(" }")))

    def eqn(self, eqn: Any, unused: set[Any]) -> Doc:
        lhs = join(text(" "), [self.binder(v, unused) for v in eqn.outvars])
        inner = _open(eqn.params["jaxpr"]) if eqn.primitive.name == "jit" else None
        if inner is not None and id(inner) not in self.shared:
            # JAX names an inline jit's inner variables after the outer ones
            passed: set[Any] = set()  # an outer variable passed twice names one inner var
            for outer, var in zip(eqn.invars, inner.invars, strict=True):
                if not hasattr(outer, "val") and outer not in passed:
                    passed.add(outer)
                    self.names.names.setdefault(var, self.names[outer])
            for outer, var in zip(eqn.outvars, inner.outvars, strict=True):
                if not hasattr(var, "val") and var not in self.names.names and outer not in unused:
                    self.names.names[var] = self.names[outer]  # named already: lhs came first
        args = [self.atom(x) for x in eqn.invars]
        if not eqn.outvars:  # an effect only (debug_print): JAX prints no `=`
            return concat(
                text(eqn.primitive.name, TokenKind.PRIMITIVE),
                self.params(eqn),
                text(" "),
                join(text(" "), args),
            )
        # JAX notes the source on the line of the ` = ` (none for an equation without outputs)
        note = Annotation(summarize(eqn)) if self.source_info and eqn.outvars else concat()
        return concat(
            lhs,
            text(" = "),
            note,
            text(eqn.primitive.name, TokenKind.PRIMITIVE),
            self.params(eqn),
            text(" "),
            join(text(" "), args),
        )

    def params(self, eqn: Any) -> Doc:
        prim = eqn.primitive
        if prim in pp_params_rules:
            pairs = pp_params_rules[prim](eqn.params)
        else:
            pairs = sorted(eqn.params.items())
        if not pairs:
            return concat()
        kvs = [concat(text(k, TokenKind.PARAM), text("="), self.param(v)) for k, v in pairs]
        return Group(
            concat(Nest(2, concat(text("["), Break(""), join(Break(), kvs))), Break(""), text("]"))
        )

    def nested(self, jaxpr: Any) -> Doc:
        shared = self.shared.get(id(jaxpr))
        return text(shared[0], TokenKind.VAR) if shared else self.jaxpr(jaxpr, top=False)

    def param(self, v: Any) -> Doc:
        if _is_jaxpr(v) or _is_jaxpr(getattr(v, "jaxpr", None)):
            return self.nested(_open(v))
        if isinstance(v, tuple) and v and all(_is_jaxpr(_open(x)) for x in v):
            items = [self.nested(_open(x)) for x in v]
            return Group(
                concat(
                    Nest(2, concat(text("("), Break(""), join(Break(), items))),
                    Break(""),
                    text(")"),
                )
            )
        return text(param_text(v))


def literal_text(val: Any) -> str:
    """A literal's value as JAX prints it: `str` of the Python scalar (`1.67`, `(1+2j)`)."""
    return str(np.asarray(val).item())


def param_text(v: Any) -> str:
    if isinstance(v, np.dtype):
        return v.name
    if isinstance(v, type) and issubclass(v, np.generic):
        return np.dtype(v).name
    if callable(v) and hasattr(v, "__name__"):
        return v.__name__
    return str(v)


def _laid_out(jaxpr: Any, width: int = WIDTH) -> tuple[_Printer, list[Line]]:
    # The whole program laid out; the printer keeps every variable's printed name.
    printer = _Printer(Names(), _shared_jaxprs(jaxpr))
    return printer, layout(printer.program(jaxpr), width)


def summarize(eqn: Any) -> str:
    """An equation's source as JAX prints it, `file:line:column (function)`; '' if none."""
    info = getattr(eqn, "source_info", None)
    return "" if info is None else info.summary()


def jaxpr_lines(jaxpr: Any, width: int = WIDTH) -> list[Line]:
    """The jaxpr as laid-out lines of kind-tagged tokens (the widgets' input)."""
    return _laid_out(_open(jaxpr), width)[1]


def pp_jaxpr(jaxpr: Any, width: int = WIDTH, *, source_info: bool = False) -> str:
    """The jaxpr in JAX's text format; with `source_info`, each equation's user source
    location after it (`# file:line:column (function)`), as JAX's `pretty_print` does."""
    if not source_info:
        return render(jaxpr_lines(jaxpr, width))
    jaxpr = _open(jaxpr)
    printer = _Printer(Names(), _shared_jaxprs(jaxpr), source_info=True)
    return render_annotated(*layout_annotated(printer.program(jaxpr), width))


def var_name_in(jaxpr: Any, var: Any) -> str:
    printer, _ = _laid_out(jaxpr)
    return printer.names.names.get(var, "?")


def pp_eqn_context(jaxpr: Any, i: int, radius: int = 2) -> str:
    """Equation `i` of `jaxpr` with its neighbours, the failing one marked, for errors."""
    printer, _ = _laid_out(jaxpr)  # name every variable as the full printout would
    unused = _unused_outvars(jaxpr)
    out = []
    lo, hi = max(0, i - radius), min(len(jaxpr.eqns), i + radius + 1)
    for j in range(lo, hi):
        line = render(layout(printer.eqn(jaxpr.eqns[j], unused)))
        out.append(("> " if j == i else "  ") + line)
    return "\n".join(out)


def iter_tokens(lines: Sequence[Line]) -> Iterator[Token]:
    for _, tokens in lines:
        yield from tokens
