"""The course around the lessons: every teacher notebook has a student copy, generated and
current, that runs top to bottom; the course map's routes are the lessons' plans; figures
come from the shared helper."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from lesson_runs import (  # nbformat through it: it skips without Jupyter
    COVERED_ELSEWHERE,
    DEMOS,
    NOTEBOOKS,
    RAISES,
    STUDENT_COPIES,
    Lessons,
    clean,
    code_cells,
    make_student,
    nbformat,
    run_time,
    stdout,
    svg_image,
)

pytestmark = pytest.mark.notebooks


def test_every_teacher_notebook_has_a_student_copy() -> None:
    teacher = sorted(p.name for p in DEMOS.glob("[0-9][0-9]_*.ipynb"))
    assert STUDENT_COPIES == teacher


GENERATED = make_student.generated()  # once: each test compares one of its files


@pytest.mark.parametrize("path", sorted(GENERATED, key=str), ids=lambda p: p.name)
def test_generated_notebooks_are_current(path: Path) -> None:
    """student/ and solutions/11 are what make_student.py writes from the teacher notebooks
    as they are now (regenerated here, in memory)."""
    assert path.exists(), f"run `python demo_notebooks/make_student.py` to write {path.name}"
    assert path.read_text(encoding="utf-8") == GENERATED[path], (
        f"{path} is stale: run `python demo_notebooks/make_student.py`"
    )


def test_student_copy_conventions() -> None:
    """The tags of a teacher cell decide the student copy: a predict cell keeps its code and
    loses its output (and its view's widget state), an exercise loses its solution regions
    and its output, an after:STEP cell runs once the learner's engine passes STEP."""
    output = {"output_type": "display_data", "metadata": {}, "data": {}}
    view = {**output, "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "v1"}}}

    def code(source: str, tags: list[str], outputs: list[Any]) -> dict[str, Any]:
        meta = {"tags": tags} if tags else {}
        return {"cell_type": "code", "execution_count": 1, "id": "c", "metadata": meta,
                "outputs": outputs, "source": source}  # fmt: skip

    state = {"v1": {"state": {"children": ["IPY_MODEL_v2"]}}, "v2": {"state": {}}, "v3": {}}
    teacher = {
        "cells": [
            {
                "cell_type": "markdown",
                "id": "m",
                "metadata": {},
                "source": "[s](solutions/03_solutions.ipynb) [n](04_reverse_mode.ipynb) "
                "[c](didax_source/core.py) [w](https://jax.dev)",
            },  # fmt: skip
            code("print(jaxpr)", ["predict"], [view]),
            code(
                "def f(x):\n    # BEGIN SOLUTION: raise NotImplementedError  # yours\n"
                "    return x\n    # END SOLUTION\n\ncheck(f)",
                ["exercise"],
                [output],
            ),
            code("print(derivative(f))", ["after:jvp"], [output]),
            code("x = 1", [], [output]),
        ],
        "metadata": {"widgets": {make_student.WIDGET_STATE: {"state": state}}},
    }
    student = make_student.student_copy(teacher)
    md, predict, exercise, after, plain = student["cells"]
    assert "".join(md["source"]) == (
        "[s](../solutions/03_solutions.ipynb) [n](04_reverse_mode.ipynb) "
        "[c](../didax_source/core.py) [w](https://jax.dev)"
    )
    assert "".join(predict["source"]) == "print(jaxpr)" and predict["outputs"] == []
    assert "".join(exercise["source"]) == (
        "def f(x):\n    raise NotImplementedError  # yours\n\ncheck(f)"
    )
    assert exercise["outputs"] == []
    assert "".join(after["source"]) == (
        "if course.passes('jvp', globals()):  # your engine, once step 2 passes\n"
        "    print(derivative(f))\nelse:\n    print('(this cell runs once step 2 passes)')"
    )
    assert after["outputs"] == [] and plain["outputs"] == [output]
    assert student["metadata"]["widgets"][make_student.WIDGET_STATE]["state"] == {}
    kept = make_student.student_copy(
        {**teacher, "cells": teacher["cells"][4:] + [code("", [], [view])]}
    )
    assert set(kept["metadata"]["widgets"][make_student.WIDGET_STATE]["state"]) == {"v1", "v2"}
    worked = make_student.solutions_copy(teacher, "solutions/11_solutions.ipynb")
    assert "".join(worked["cells"][2]["source"]) == "def f(x):\n    return x\n\ncheck(f)"
    with pytest.raises(ValueError, match="not closed"):
        make_student.split_solutions("# BEGIN SOLUTION\nx = 1", student=True)
    with pytest.raises(ValueError, match="names no course step"):
        make_student.guarded("x", "hessian")


@pytest.mark.parametrize("name", STUDENT_COPIES)
def test_student_copy_links_open_in_lab(name: str) -> None:
    nb = nbformat.read(DEMOS / "student" / name, as_version=4)
    text = "".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for target in re.findall(r"\]\(([^)#\s]+)", text):
        if "://" in target:
            continue
        inside = os.path.normpath(DEMOS / "student" / target)
        assert inside.startswith(str(DEMOS)), target  # not above Lab's root
        assert (DEMOS / "student" / target).resolve().exists(), target


@pytest.mark.parametrize("name", STUDENT_COPIES)
def test_student_copy_runs_top_to_bottom(name: str, lessons: Lessons) -> None:
    """A learner's copy runs with every exercise as given (first tries, stubs): no uncaught
    error, no cell over 30 s; each checker says what is not done yet, and a cell that needs
    a finished engine says so. It runs first in its lesson's kernel: a fresh kernel."""
    nb = lessons.executed(f"student/{name}")[0]
    for cell in code_cells(nb):
        took = run_time(cell)
        assert took < np.timedelta64(30, "s"), (cell.source, took)
    for cell in code_cells(clean(nb)):
        errors = [f"{o.ename}: {o.evalue}" for o in cell.outputs if o.output_type == "error"]
        tags = cell.metadata.get("tags", [])
        stderr = [o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stderr"]
        if RAISES not in tags:  # a magic's UsageError is printed to stderr, not raised
            assert not errors and not stderr, (cell.source, errors, stderr)
        if "exercise" in tags:
            assert "✗ not yet" in stdout(cell), (cell.source, stdout(cell))
        if any(t.startswith("after:") for t in tags):
            assert stdout(cell).startswith("(this cell runs once step "), stdout(cell)


# --------------------------------------------------------------------------- the course map

MAP = "00_start_here.ipynb"
LESSONS = sorted(p.name for p in DEMOS.glob("[0-9][0-9]_*.ipynb") if p.name != MAP)
PLAN = re.compile(r"\*\*Plan \(about (\d+) minutes\)\.\*\*")
PLAN_ROW = re.compile(r"^\| (\d+)\. .* \| (\d+)\+? \|", re.MULTILINE)
ROUTE_ROW = re.compile(r"^\| \[\w+\]\(([\w/]+\.ipynb)\) \| ([^|]+) \| (\d+) \|$", re.MULTILINE)


def plan(name: str) -> tuple[int, dict[int, int]]:
    """A lesson's stated minutes and its plan table's minutes per numbered section."""
    intro = nbformat.read(DEMOS / name, as_version=4).cells[0].source
    (total,) = PLAN.findall(intro)
    return int(total), {int(n): int(m) for n, m in PLAN_ROW.findall(intro)}


def routes(text: str) -> dict[str, list[tuple[str, str, int]]]:
    """The route tables of a course map: {route heading: [(notebook, sections, minutes)]},
    each followed by its stated total (checked here)."""
    found = {}
    parts = re.split(r"^(#+ .*|\*\*Session \d.*)$", text, flags=re.MULTILINE)
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        rows = [(Path(n).name, s.strip(), int(m)) for n, s, m in ROUTE_ROW.findall(body)]
        if rows:
            (stated,) = re.findall(r"^Total: (\d+) minutes\.$", body, flags=re.MULTILINE)
            assert int(stated) == sum(m for _, _, m in rows), (heading, stated)
            found[heading.strip("#* ")] = rows
    return found


def sections(spec: str, table: dict[int, int]) -> list[int]:
    if spec == "all":
        return sorted(table)
    picked = []
    for part in spec.split(","):
        first, _, last = part.strip().partition("–")
        picked += range(int(first), int(last or first) + 1)
    return picked


@pytest.mark.parametrize("name", LESSONS)
def test_a_lesson_plan_adds_up(name: str) -> None:
    total, table = plan(name)
    assert list(table) == list(range(1, len(table) + 1)), table  # sections 1..n
    assert sum(table.values()) == total, (name, table)


def test_course_map_routes_are_the_lessons_plans() -> None:
    """00_start_here and the README hold the same routes; each row's minutes are the sum of
    the named sections of that notebook's plan, a session fits in 90 minutes, and the full
    route takes every lesson once."""
    text = "".join(c.source + "\n" for c in nbformat.read(DEMOS / MAP, as_version=4).cells)
    course_map = routes(text)
    readme = (DEMOS.parent / "README.md").read_text(encoding="utf-8")
    assert routes(readme.split("### Course map")[1].split("\n## ")[0]) == course_map
    assert len(course_map) == 5, list(course_map)
    for heading, rows in course_map.items():
        for name, spec, minutes in rows:
            total, table = plan(name)
            assert minutes == sum(table[s] for s in sections(spec, table)), (heading, name)
            if spec == "all":
                assert minutes == total, (heading, name)
        if heading != "The full route":
            assert sum(m for _, _, m in rows) <= 90, heading
    full = course_map["The full route"]
    assert [n for n, _, _ in full] == LESSONS and {s for _, s, _ in full} == {"all"}


@pytest.mark.parametrize("name", LESSONS)
def test_a_lesson_ends_with_questions_and_answers(name: str) -> None:
    nb = nbformat.read(DEMOS / name, as_version=4)
    (cell,) = [c for c in nb.cells if c.source.startswith("## Check your understanding")]
    questions, _, answers = cell.source.partition("<details><summary>Answers</summary>")
    assert len(re.findall(r"^\d+\. ", questions, re.MULTILINE)) >= 3, cell.source
    assert len(re.findall(r"^\d+\. ", answers, re.MULTILINE)) == len(
        re.findall(r"^\d+\. ", questions, re.MULTILINE)
    )


@pytest.mark.parametrize("name", [*NOTEBOOKS, *COVERED_ELSEWHERE])
def test_figures_come_from_the_shared_helper(name: str) -> None:
    """Every diagram and curve is drawn by didax.figures (theme colours, inline SVG with an
    image copy): no notebook pastes its own SVG helper or stores an SVG image of its own."""
    nb = nbformat.read(DEMOS / name, as_version=4)
    for cell in code_cells(nb):
        assert "<svg" not in cell.source and "IPython.display import SVG" not in cell.source
        for out in cell.outputs:
            assert "image/svg+xml" not in out.get("data", {}), cell.source
            html_out = out.get("data", {}).get("text/html", "")
            assert not html_out.startswith("<svg"), cell.source  # Lab's sanitizer drops it
            if 'class="dx-figure"' in html_out:  # theme colours, as the views (theme.py)
                assert not re.search(r'(?:fill|stroke)="#', svg_image(html_out)), cell.source
                assert 'class="dx-svg-copy"' in html_out, cell.source
