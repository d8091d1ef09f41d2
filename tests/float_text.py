"""Compare printed outputs that may differ only in the last digits of their floats.

Stored notebook outputs and the corpus compare what two runs print. CPUs, and NumPy's kernels
against XLA's, round differently in the last digit of a float32 (`0.19154243` on one machine,
`0.19154195` on another after a training loop), which is not a change of what the program
says. So two texts match when they split into the same tokens, each float within `rtol`
(relative) or `atol` (absolute) of its counterpart and every other token identical. Spacing
within a line is not compared (NumPy pads an array's columns to the widest float, so a digit
more pads its neighbours), but the line structure is: a change of any word, integer, name,
shape or line still fails."""

from __future__ import annotations

import math
import re

# a float literal as NumPy, JAX and Python print one: a decimal point or an exponent is needed
# (integers, shapes and counts are compared exactly)
_FLOAT = r"[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?\d+[eE][-+]?\d+"
_TOKEN = re.compile(rf"(?P<float>{_FLOAT})|(?P<other>\S)")

# float32 carries about 7 significant digits; outputs after a few hundred float32 operations
# (a training loop) differ by tens of ulps. 1e-5 relative accepts that and rejects a change in
# the fourth significant digit.
RTOL = 1e-5
ATOL = 1e-6


def _tokens(line: str) -> list[tuple[str, str]]:
    return [(m.lastgroup or "", m.group()) for m in _TOKEN.finditer(line)]


def texts_match(a: str, b: str, rtol: float = RTOL, atol: float = ATOL) -> bool:
    """Whether `a` and `b` print the same thing, floats compared within `rtol`/`atol`."""
    if a == b:
        return True
    lines_a, lines_b = a.splitlines(), b.splitlines()
    if len(lines_a) != len(lines_b):
        return False
    for line_a, line_b in zip(lines_a, lines_b, strict=True):
        tokens_a, tokens_b = _tokens(line_a), _tokens(line_b)
        if len(tokens_a) != len(tokens_b):
            return False
        for (kind_a, text_a), (kind_b, text_b) in zip(tokens_a, tokens_b, strict=True):
            if kind_a != kind_b:
                return False
            if kind_a == "other":
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
