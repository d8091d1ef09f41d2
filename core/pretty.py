"""A generic layout engine: document -> kind-tagged tokens -> text.

Layer 1. A small Wadler-style pretty printer: a `Group` prints on one line when its flat text
fits in the remaining width (80 columns), and otherwise breaks its `Break`s into newlines at
the group's indentation. Like JAX's printer, only the group's own text decides whether it
fits. The output is a list of lines of `Token`s tagged with a `TokenKind`, which the widgets
color without re-parsing. It knows nothing of jaxprs: the jaxpr printer, which builds the
documents, is in jaxpr.py beside the IR it prints.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

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
    # what the token prints, for a reader of the laid-out lines (the jaxpr printer sets the
    # equation on its primitive's token, so a view never matches tokens to equations by name)
    ref: Any = field(default=None, compare=False)


Line = tuple[int, tuple[Token, ...]]  # (indent, tokens)

# ----------------------------------------------------------------------------- documents
# Plain slotted classes, not frozen dataclasses: a document is built and walked, never
# compared or hashed, and each frozen dataclass cost ~0.3 ms of `import didax`.


class Text:
    __slots__ = ("token",)

    def __init__(self, token: Token) -> None:
        self.token = token


class Break:
    __slots__ = ("flat",)

    def __init__(self, flat: str = " ") -> None:
        self.flat = flat  # what the break prints when its group is flat


class Nest:
    __slots__ = ("indent", "child")

    def __init__(self, indent: int, child: Doc) -> None:
        self.indent, self.child = indent, child


class Group:
    __slots__ = ("child",)

    def __init__(self, child: Doc) -> None:
        self.child = child


class Concat:
    __slots__ = ("children",)

    def __init__(self, children: tuple[Doc, ...]) -> None:
        self.children = children


class Annotation:
    """A note for the line this lands on, printed after the text as `# note` (an equation's
    source location): no width, so the layout is the same with or without notes."""

    __slots__ = ("note",)

    def __init__(self, note: str) -> None:
        self.note = note


Doc = Text | Break | Nest | Group | Concat | Annotation


def text(s: str, kind: TokenKind = TokenKind.TEXT, ref: Any = None) -> Doc:
    return Text(Token(kind, s, ref))


def concat(*docs: Doc) -> Doc:
    return Concat(tuple(docs))


def join(sep: Doc, docs: Sequence[Doc]) -> Doc:
    out: list[Doc] = []
    for i, d in enumerate(docs):
        if i:
            out.append(sep)
        out.append(d)
    return Concat(tuple(out))


def bracketed(left: str, items: Sequence[Doc], right: str) -> Doc:
    """`left item item ... right` on one line if it fits, else one item per line, indented
    by 2, with `right` on a line of its own (a jaxpr's params `[...]`, a tuple of jaxprs)."""
    inner = concat(text(left), Break(""), join(Break(), items))
    return Group(concat(Nest(2, inner), Break(""), text(right)))


def filled(items: Sequence[Doc], separator: str = "") -> Doc:
    """`items` on one line if they fit, else filled: each break between two items is a group
    of its own, so a line takes items while it has room and then breaks, continuing indented
    by 2 (JAX's `pp_vars`: a jaxpr's binders, an equation's arguments, the outputs)."""
    if len(items) == 1 and _unbreakable(items[0]):
        # most equations bind one variable: with no break inside, the group and the nest
        # would change nothing, and a view of 20,000 equations would build 80,000 more objects
        return items[0]
    return Nest(2, Group(join(concat(text(separator), Group(Break())), items)))


def _unbreakable(doc: Doc) -> bool:
    """Whether `doc` is a text or a concatenation of texts (an atom, a binder)."""
    if isinstance(doc, Concat):
        return all(isinstance(d, Text) for d in doc.children)
    return isinstance(doc, Text)


def _fits(doc: Doc, room: int) -> bool:
    """Whether `doc` laid out flat takes at most `room` columns. It reads the document only
    until the room is used up, so deciding on a group of a whole program costs a line's
    worth, not the program's."""
    stack = [doc]
    while stack:
        d = stack.pop()
        if isinstance(d, Text):
            room -= len(d.token.text)
        elif isinstance(d, Break):
            room -= len(d.flat)
        elif isinstance(d, (Nest, Group)):
            stack.append(d.child)
        elif isinstance(d, Concat):
            stack.extend(reversed(d.children))
        if room < 0:
            return False
    return True


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
            walk(d.child, indent, flat or _fits(d.child, width - state["col"]))
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
        if out and out[-1].kind == t.kind == TokenKind.TEXT and out[-1].ref is t.ref is None:
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


def iter_tokens(lines: Sequence[Line]) -> Iterator[Token]:
    for _, tokens in lines:
        yield from tokens
