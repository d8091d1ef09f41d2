"""The parts every rendering is built from: labelled rows and sections.

Layer 6 (STYLE.md §9: models -> parts -> one writer each). A `Section` (a heading with rows,
a jaxpr, a preformatted block, a note) is plain data; `text.py` writes it as text, `markup.py`
as HTML and the views (didax.widgets) as widgets, so the three never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from didax import core, tree_util


@dataclass(frozen=True)
class Row:
    """A labelled value: an input or output binding, a constant, a timing. The text may span
    several lines."""

    label: str
    text: str


@dataclass(frozen=True)
class Section:
    """One part of a report: a heading with rows, a jaxpr, a preformatted block, a note;
    `folded`: shown closed (HTML `<details>`)."""

    heading: str
    rows: tuple[Row, ...] = ()
    jaxpr: Any = None  # a ClosedJaxpr
    block: str | None = None
    note: str | None = None
    folded: bool = False
    marks: str = ""  # the jaxpr's equation marks (program.MARKS): numbers or derivations
    link: tuple[str, str] | None = None  # (text, relative href): where its code lives


def value_text(x: Any, threshold: int = 1000) -> str:
    """`f32[3] [1. 2. 3.]`: an array's type and values, abbreviated over `threshold`
    elements (other values: their repr)."""
    if not core.is_arraylike(x):
        return repr(x)
    kind = core.get_aval(x).str_short() + " "
    return kind + np.array2string(np.asarray(x), threshold=threshold, prefix=kind)


def leaf_paths(tree: Any) -> list[tuple[str, Any]]:
    """Each leaf of a pytree with its key path: `""`, `"[0]"`, `"['w']"`, `"[1]['b']"`."""
    pairs, _ = tree_util.tree_flatten_with_path(tree)
    return [(tree_util.keystr(path), leaf) for path, leaf in pairs]


def value_rows(label: str, tree: Any) -> tuple[Row, ...]:
    """One row per leaf of a pytree, labelled with its path (`params['w']`)."""
    return tuple(Row(label + path, value_text(leaf)) for path, leaf in leaf_paths(tree))
