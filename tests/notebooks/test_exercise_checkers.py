"""The exercises' checkers: what they tell the learner of the first tries and of the worked
answers, and that every planted wrong answer (planted_answers.py) gets a message naming the
step within 10 s, with the namespace or kernel still working after it."""

from __future__ import annotations

import contextlib
import functools
import io
import time
from typing import Any

import didax
import numpy as np
import pytest
from lesson_runs import (  # nbformat through it: it skips without Jupyter
    BUILD,
    BUILD_SOLVED,
    DEMOS,
    EXTENDING,
    MANY,
    PROJECT,
    Lessons,
    cell_with,
    code_cells,
    exercises_here,
    nbformat,
    run_time,
    stdout,
)
from planted_answers import (
    BUILD_PLANTS,
    MANY_PLANTS,
    PLANTED_ANSWERS,
    PROJECT_PLANTS,
)

pytestmark = pytest.mark.notebooks


EXERCISES = [
    (
        "03_forward_mode.ipynb",
        "def cube_jvp",
        "✗ not yet — check_rules(cube): the jvp rule is wrong for input 0.",
    ),
    (
        "03_forward_mode.ipynb",
        "def softplus_jvp",
        "✗ not yet — check_rules(softplus): the jvp rule is wrong for input 0.",
    ),
    ("03_forward_mode.ipynb", "def energy", "✗ not yet — check_grads:\n  Not equal to tolerance"),
    (
        "03_forward_mode.ipynb",
        "def tuple_jvp",
        "✗ not yet — check_rules(cube_slip): the jvp rule must return two lists, [outputs] and "
        "[output tangents]; it returned (f32[3], f32[3])\n"
        "✗ not yet — check_rules(cube_slip): the jvp rule's tangent of output 0 is f32[], but "
        "the output is f32[3]",
    ),
    (
        "05_vmap.ipynb",
        "def sum_last_vmap",
        "✗ not yet — check_rules(sum_last): the vmap rule says output 0 has its batch axis at 2, "
        "but that output is f32[2,3], with 2 axes",
    ),
    (
        "04_reverse_mode.ipynb",
        "first try: all?",
        "✗ not yet — the jvp of sum(sin(x) * x), equation 2 (mul): you say known, partial "
        "evaluation stages it",
    ),
    (
        "solutions/04_solutions.ipynb",
        "def unknown_equations",
        "✓ your marks agree with partial_eval_jaxpr on 3 programs",
    ),
    ("solutions/03_solutions.ipynb", "def cube_jvp", "✓ all rules pass: abstract_eval, jvp"),
    ("solutions/03_solutions.ipynb", "def softplus_jvp", "✓ all rules pass: abstract_eval, jvp"),
    (
        "solutions/03_solutions.ipynb",
        "def energy",
        "✓ energy: forward mode matches finite differences",
    ),
    (
        EXTENDING,
        "def jit_inverse",
        "✗ not yet — AssertionError: step 1: inverse(jit(f))(f(0.5)) is 1.58743, expected 0.5;",
    ),
    (
        "solutions/08_solutions.ipynb",
        "def jit_inverse",
        "✓ inverse works through jit and integer_pow; slope 0.0416667 = 1/24",
    ),
    (
        MANY,
        "def global_max",
        "✗ not yet — the devices hold 0.503 0.990 0.621 0.694, but the largest value of all is",
    ),
    ("solutions/10_solutions.ipynb", "def global_max", "✓ every device holds the global maximum"),
    (BUILD, "def bind(op, *args):", "✓ step 1 (eval):"),
    (BUILD, "grad(lambda y: add(mul(y, y)", "[1.         2.54030231 3.58385316]"),
    *[
        ("solutions/11_solutions.ipynb", f'course.check("{step}"', f"✓ step {n} ({step}):")
        for n, step in enumerate(("eval", "jvp", "stage", "vmap", "linearize", "grad"), 1)
    ],
]


@pytest.mark.parametrize(("name", "snippet", "message"), EXERCISES)
def test_exercise_checkers_tell_the_learner(
    name: str, snippet: str, message: str, run: Any
) -> None:
    assert message in stdout(cell_with(run(name), snippet))


@pytest.mark.parametrize(("name", "checker", "answer", "message"), PLANTED_ANSWERS)
def test_a_planted_wrong_answer_gets_a_message(
    name: str, checker: str, answer: str, message: str
) -> None:
    with exercises_here(name) as ns:
        said = _answer_planted(ns, checker, answer)
    assert message in said, said
    assert not said.rstrip().endswith("The error was:"), said  # not cut before the reason


def _answer_planted(ns: dict[str, Any], checker: str, answer: str) -> str:
    """Run `answer` in `ns`, then its checker: what the checker printed (within 10 s)."""
    exec(answer, ns)  # noqa: S102 - the test's own code
    check = ns[checker]
    if "run_check" in ns:  # the answer is a primitive with rules, checked by the code given
        run_it = ns.pop("run_check")
    elif checker == "check_linear":  # the answer is the class `Linear` as (re)defined
        run_it = check
    elif checker == "check_inverse_exercise":  # the learner's answer is a registered rule
        ns["inverse_rules"].register(ns["jit_p"], ns["answer"], replace=True)
        run_it = check
    else:
        run_it = functools.partial(check, ns["answer"])
    start = time.monotonic()
    with contextlib.redirect_stdout(io.StringIO()) as out:
        run_it()
    said = out.getvalue()
    assert time.monotonic() - start < 10.0, said
    return said


def test_build_your_own_checkers_answer_planted_mistakes_in_a_kernel(lessons: Lessons) -> None:
    """Each planted mistake gets its message within 10 s, and the kernel runs the next cell
    under the interpreter it expects."""
    cells = lessons.executed(BUILD_SOLVED)[1]
    for cell, (_, _, message) in zip(cells, BUILD_PLANTS, strict=False):
        took = run_time(cell)
        assert took < np.timedelta64(10, "s"), (cell.source, took)
        assert message in stdout(cell), (cell.source, stdout(cell))
    assert len(cells) == len(BUILD_PLANTS) + 1
    assert stdout(cells[-1]) == "EvalInterpreter 3.0\n"  # the loop left no interpreter


def test_many_devices_checker_answers_planted_mistakes_in_a_kernel(lessons: Lessons) -> None:
    cells = lessons.executed(MANY)[1]
    for cell, (_, message) in zip(cells, MANY_PLANTS, strict=False):
        assert run_time(cell) < np.timedelta64(10, "s"), (cell.source, run_time(cell))
        assert message in stdout(cell), (cell.source, stdout(cell))
    assert len(cells) == len(MANY_PLANTS) + 1
    assert stdout(cells[-1]).startswith("✓ every device holds the global maximum")


@pytest.mark.parametrize(("step", "plant", "message"), PROJECT_PLANTS)
def test_final_project_checker_answers_planted_mistakes(
    step: str, plant: str, message: str
) -> None:
    with exercises_here(PROJECT) as ns:  # a plant re-registers the primitive's rules
        assert didax.course.project_verdict(step, ns).startswith("✓")  # the worked project
        exec(plant, ns)  # noqa: S102 - the test's own code
        start = time.monotonic()
        said = didax.course.project_verdict(step, ns)
        assert time.monotonic() - start < 10.0, said
    assert said.startswith("✗ not yet") and message in said, said


def test_final_project_passes_and_its_student_copy_does_not(run: Any) -> None:
    nb = run(PROJECT)
    for step in ("rules", "composes", "model", "train"):
        assert stdout(cell_with(nb, f'course.check_project("{step}"')).startswith(f"✓ {step}:")
    student = nbformat.read(DEMOS / "student" / PROJECT, as_version=4)
    assert "np.logaddexp" not in "".join(c.source for c in code_cells(student))
