"""The tolerance of stored-output comparisons (tests/float_text.py): a last-digit difference
between machines passes, any other change fails (issue 20, item 3)."""

from __future__ import annotations

import numpy as np
from float_text import outputs_match, texts_match

STORED = "step 40: loss 0.19154243\nArray([0.9182168 , 1.3817732 , 0.07700378], dtype=float32)"


def test_one_ulp_passes() -> None:
    bumped = np.nextafter(np.float32(0.19154243), np.float32(1))
    assert str(bumped) != "0.19154243"
    assert texts_match(STORED, STORED.replace("0.19154243", str(bumped)))
    # the value seen on another machine (issue 20)
    assert texts_match(STORED, STORED.replace("0.19154243", "0.19154195"))
    # a digit more or less changes NumPy's column padding: not a change of what is shown
    assert texts_match(STORED, STORED.replace("0.9182168 ", "0.91821676"))


def test_a_row_wrapped_elsewhere_passes() -> None:
    # lesson 06's result on two CPUs: `-0.1384048` is a digit narrower than `-0.13840477`,
    # so NumPy fits another column on the line before it wraps the row
    here = np.full((4, 7), -0.13840477, np.float32)
    there = np.full((4, 7), -0.1384048, np.float32)
    with np.printoptions(threshold=10, edgeitems=3):
        wide, narrow = repr(here), repr(there)
    assert wide.splitlines()[0].count(",") != narrow.splitlines()[0].count(",")
    assert texts_match(f"loss 0.5\n{wide}", f"loss 0.5\n{narrow}")
    # but not a line break outside the brackets, nor one more row
    assert not texts_match(f"loss 0.5\n{wide}", f"loss 0.5 {narrow}")
    assert not texts_match(wide, repr(np.full((5, 7), -0.1384048, np.float32)))
    # a shape's or an equation's brackets are not an array's: their line breaks count
    jaxpr = "b:f32[3] = pjit[\n  name=f\n  jaxpr={ lambda ; c:f32[3]. let d = sin c in (d,) }\n] a"
    assert not texts_match(jaxpr, jaxpr.replace("\n  name=f", " name=f"))
    assert not texts_match("f32[3]\nb", "f32[3] b")


def test_a_change_of_1e_3_fails() -> None:
    assert not texts_match(STORED, STORED.replace("0.19154243", f"{0.19154243 + 1e-3:.8f}"))
    assert not texts_match(STORED, STORED.replace("1.3817732", f"{1.3817732 * (1 + 1e-3):.7f}"))


def test_other_changes_fail() -> None:
    assert not texts_match(STORED, STORED.replace("step 40", "step 41"))
    assert not texts_match(STORED, STORED.replace("float32", "float64"))
    assert not texts_match(STORED, STORED.replace("\n", " "))
    assert not texts_match("f32[3]", "f32[4]")
    assert not texts_match("0.5", "nan")
    assert not texts_match("1.5", "1.5 extra")


def test_outputs_match_compares_kinds_and_counts() -> None:
    cell = [("stdout", "loss 0.19154243\n"), ("execute_result", "Array(2.8997784, dtype=float32)")]
    near = [("stdout", "loss 0.19154195\n"), ("execute_result", "Array(2.899778, dtype=float32)")]
    assert outputs_match(cell, near)
    assert not outputs_match(cell, near[:1])
    assert not outputs_match(cell, [("stderr", near[0][1]), near[1]])
