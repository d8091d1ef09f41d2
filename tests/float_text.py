"""Compare printed outputs that may differ only in the last digits of their floats.

Stored notebook outputs and the corpus compare what two runs print. CPUs, and NumPy's kernels
against XLA's, round differently in the last digit of a float32 (`0.19154243` on one machine,
`0.19154195` on another after a training loop), which is not a change of what the program
says. So two texts match when they split into the same tokens, each float within `rtol`
(relative) or `atol` (absolute) of its counterpart and every other token identical. Spacing
is not compared, nor are line breaks inside an array's brackets: NumPy pads an array's
columns to the widest float and wraps its rows at 75 characters, so a digit more pads its
neighbours and can move a column to the next line. Every other line break is compared (a
jaxpr's, a printed loss's): a change of any word, integer, name, shape or line still fails."""

from __future__ import annotations

import math
import re

# a float literal as NumPy, JAX and Python print one: a decimal point or an exponent is needed
# (integers, shapes and counts are compared exactly)
_FLOAT = r"[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?\d+[eE][-+]?\d+"
_TOKEN = re.compile(rf"(?P<float>{_FLOAT})|(?P<newline>\n)|(?P<other>\S)")
_NAMED = re.compile(r"\w")  # a bracket right after a name indexes it: not an array

# float32 carries about 7 significant digits; outputs after a few hundred float32 operations
# (a training loop) differ by tens of ulps. 1e-5 relative accepts that and rejects a change in
# the fourth significant digit.
RTOL = 1e-5
ATOL = 1e-6


def _tokens(text: str) -> list[tuple[str, str]]:
    """The text's floats and other characters, and its line breaks outside arrays."""
    tokens, depth = [], 0  # depth: of the array brackets around the token
    for m in _TOKEN.finditer(text):
        kind, token = m.lastgroup or "", m.group()
        if kind == "newline" and depth:
            continue  # inside an array: NumPy's wrapping
        if token == "[" and (depth or not _NAMED.match(text, max(m.start() - 1, 0))):
            depth += 1  # an array's bracket: not a shape's (`f32[3]`) nor a jaxpr's `pjit[`
        elif token == "]" and depth:
            depth -= 1
        tokens.append((kind, token))
    return tokens


def texts_match(a: str, b: str, rtol: float = RTOL, atol: float = ATOL) -> bool:
    """Whether `a` and `b` print the same thing, floats compared within `rtol`/`atol`."""
    if a == b:
        return True
    tokens_a, tokens_b = _tokens(a), _tokens(b)
    if len(tokens_a) != len(tokens_b):
        return False
    for (kind_a, text_a), (kind_b, text_b) in zip(tokens_a, tokens_b, strict=True):
        if kind_a != kind_b:
            return False
        if kind_a != "float":
            if text_a != text_b:
                return False
        elif not math.isclose(float(text_a), float(text_b), rel_tol=rtol, abs_tol=atol):
            return False
    return True


def outputs_match(a: list[tuple[str, str]], b: list[tuple[str, str]]) -> bool:
    """Two cells' outputs as (kind, text) pairs: same kinds, texts matching as above."""
    return len(a) == len(b) and all(
        kind_a == kind_b and texts_match(text_a, text_b)
        for (kind_a, text_a), (kind_b, text_b) in zip(a, b, strict=True)
    )
