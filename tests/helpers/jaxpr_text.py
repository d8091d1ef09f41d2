"""Jaxpr text compared across libraries: `canonical` renames variables in order of first
appearance, as JAX and didax may pick different letters for the same program (e.g. when it
shares names across nested jaxprs); everything else must match."""

from __future__ import annotations

import re

# A name that is a variable: a binder (`a:f32[]`) or a read (`sin a`, `(a, b)`), never a
# primitive (after `= `), a param name (before `=`) or a dtype in a param (`new_dtype=int32`).
_WORD = re.compile(r"(?<![\w.=\[])(?<!= )([a-z]+_?)(?![\w\[=(])")
_BINDER = re.compile(r"(?<![\w.])([a-z]+_?):")


def canonical(text: str) -> str:
    """`text` with its variables renamed v0, v1, ... in order of first appearance; `_` stays.
    NumPy integer reprs in params (`np.int64(1)`) print as plain ints."""
    text = re.sub(r"np\.int(?:32|64)\((-?\d+)\)", r"\1", text)
    binders = set(_BINDER.findall(text))
    names: dict[str, str] = {}

    def rename(m: re.Match[str]) -> str:
        word = m.group(1)
        if word not in binders:
            return word
        return names.setdefault(word, f"v{len(names)}")

    return _WORD.sub(rename, text)
