"""The text writer: parts (parts.py) as the `text/plain` a terminal and nbconvert show.

Layer 6, the one module that lays out report text: a section is its heading, the jaxpr as
`str(jaxpr)` (with its equations' marks, if any), its rows with the labels aligned (a row of several lines indented under its
first), its preformatted block and its note, in that order.
"""

from __future__ import annotations

from collections.abc import Sequence

from didax.display.parts import Row, Section
from didax.display.program import jaxpr_model


def rows_text(rows: Sequence[Row], indent: int = 2) -> str:
    width = max((len(r.label) for r in rows), default=0)
    lines = []
    for r in rows:
        first, *rest = r.text.split("\n")
        lines.append(" " * indent + r.label.ljust(width) + "  " + first)
        lines += [" " * (indent + width + 2) + line for line in rest]
    return "\n".join(lines)


def section_text(section: Section) -> str:
    parts = [section.heading] if section.heading else []
    if section.link is not None:
        parts.append(section.link[0])
    if section.jaxpr is not None:  # (a long program: its first equations, and a note)
        model = jaxpr_model(section.jaxpr, marks=section.marks)
        parts += [model.marked_text(), *filter(None, [model.note()])]
    if section.rows:
        parts.append(rows_text(section.rows))
    if section.block is not None:
        parts.append(section.block.rstrip("\n"))
    if section.note:
        parts.append(section.note)
    return "\n".join(parts)


def sections_text(sections: Sequence[Section]) -> str:
    return "\n".join(map(section_text, sections))
