"""Write the course's generated notebooks from the teacher notebooks in this folder:

    python demo_notebooks/make_student.py

- `student/NN_name.ipynb` for every teacher notebook `NN_name.ipynb`: what a learner opens.
- `solutions/NN_solutions.ipynb` for the notebooks in `SOLVED_HERE` (11, 12, 14, 15, 16, 20),
  whose worked answers live in the teacher notebook itself.

Conventions in a teacher notebook (cell tags, set in Lab's property inspector):

- `predict`: a cell whose output the learner predicts first. The student copy keeps the code
  and drops the output.
- `exercise`: a learner's cell (a first try, or code with solution regions) and its checker.
  The student copy drops the output; inside the code, the lines from `# BEGIN SOLUTION: stub`
  to `# END SOLUTION` become `stub` (or `...` when none is given), at the marker's indent. The
  solutions copy keeps the lines between the markers and drops the markers.
- `after:STEP`: a cell that shows the learner's engine at work once `course.check(STEP)` passes.
  The student copy wraps it in `if course.passes(STEP, globals()):` and drops its output.

Links to other files are rewritten to stay valid from the copy's folder. Every other cell is
copied with its stored output (the teacher notebook's, which the tests keep current).
`tests/notebooks/test_course_materials.py` checks that the files here are what this script
writes, and runs each student copy in a kernel.
"""

from __future__ import annotations

import copy
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
STUDENT = HERE / "student"
# teacher notebook -> its generated solutions copy
SOLVED_HERE = {
    "11_build_your_own_jax.ipynb": "solutions/11_solutions.ipynb",
    "12_custom_derivatives.ipynb": "solutions/12_solutions.ipynb",
    "14_pytrees.ipynb": "solutions/14_solutions.ipynb",
    "15_finding_nans.ipynb": "solutions/15_solutions.ipynb",
    "16_checkpointing.ipynb": "solutions/16_solutions.ipynb",
    "20_final_project.ipynb": "solutions/20_solutions.ipynb",
}
COURSE_STEPS = ("eval", "jvp", "stage", "vmap", "linearize", "grad")  # didax.course.STEPS
DROP_OUTPUT = ("predict", "exercise")
BEGIN = re.compile(r"^(?P<indent>\s*)# BEGIN SOLUTION(?::\s*(?P<stub>.*))?$")
END = re.compile(r"^\s*# END SOLUTION$")
LINK = re.compile(r"(\]\()([^)#\s]+)")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def source_of(cell: dict[str, Any]) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def with_source(cell: dict[str, Any], text: str) -> None:
    cell["source"] = text.splitlines(keepends=True)


def tags(cell: dict[str, Any]) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def split_solutions(code: str, *, student: bool) -> str:
    """The code with each solution region replaced by its stub (`student`) or unmarked."""
    out: list[str] = []
    region: re.Match[str] | None = None
    for line in code.split("\n"):
        begin = BEGIN.match(line)
        if begin:
            if region is not None:
                raise ValueError(f"a solution region opens inside another:\n{code}")
            region = begin
            if student:
                out.append(begin["indent"] + (begin["stub"] or "..."))
        elif END.match(line):
            if region is None:
                raise ValueError(f"# END SOLUTION without # BEGIN SOLUTION:\n{code}")
            region = None
        elif region is None or not student:
            out.append(line)
    if region is not None:
        raise ValueError(f"a solution region is not closed:\n{code}")
    return "\n".join(out)


def guarded(code: str, step: str) -> str:
    """The code run only once the learner's engine passes `step`."""
    if step not in COURSE_STEPS:
        raise ValueError(f"after:{step} names no course step ({', '.join(COURSE_STEPS)})")
    number = COURSE_STEPS.index(step) + 1
    body = "\n".join("    " + line if line.strip() else "" for line in code.split("\n"))
    return (
        f"if course.passes({step!r}, globals()):  # your engine, once step {number} passes\n"
        f"{body}\nelse:\n    print('(this cell runs once step {number} passes)')"
    )


def relink(text: str, src: str, dst: str) -> str:
    """Markdown links of a cell in folder `src` rewritten for a copy in folder `dst` (both
    relative to this folder): `solutions/x.ipynb` from `.` is `../solutions/x.ipynb` from
    `student`. A link to a notebook that has a student copy keeps pointing at the copy."""

    def move(m: re.Match[str]) -> str:
        target = m[2]
        if "://" in target or target.startswith(("/", "mailto:")):
            return m[0]
        here = os.path.normpath(os.path.join(src, target))
        if dst == "student" and here in teacher_names():
            return m[1] + target  # the student copy of another notebook, beside this one
        return m[1] + os.path.relpath(here, dst).replace(os.sep, "/")

    return LINK.sub(move, text)


def teacher_names() -> list[str]:
    return sorted(p.name for p in HERE.glob("[0-9][0-9]_*.ipynb"))


def widget_ids(value: Any) -> set[str]:
    """The widget models a stored output or widget state refers to."""
    text = json.dumps(value)
    return set(re.findall(r'"model_id": "(\w+)"', text)) | set(re.findall(r"IPY_MODEL_(\w+)", text))


def prune_widget_state(nb: dict[str, Any]) -> None:
    """Keep the stored widget models that the remaining outputs show (and their children):
    a dropped output's view must not live on in the metadata."""
    state = nb.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE)
    if not state:
        return
    models = state["state"]
    wanted = widget_ids([c.get("outputs", []) for c in nb["cells"]])
    keep: set[str] = set()
    while wanted - keep:
        new = (wanted - keep) & models.keys()
        keep |= wanted
        wanted = keep | {i for m in new for i in widget_ids(models[m])}
    state["state"] = {k: v for k, v in models.items() if k in keep}


def student_copy(nb: dict[str, Any]) -> dict[str, Any]:
    """The learner's copy of a teacher notebook (see the module docstring)."""
    nb = copy.deepcopy(nb)
    for cell in nb["cells"]:
        text = source_of(cell)
        if cell["cell_type"] == "markdown":
            with_source(cell, relink(text, ".", "student"))
            continue
        if cell["cell_type"] != "code":
            continue
        steps = [t.split(":", 1)[1] for t in tags(cell) if t.startswith("after:")]
        if "exercise" in tags(cell):
            text = split_solutions(text, student=True)
        for step in steps:
            text = guarded(text, step)
        with_source(cell, text)
        if steps or any(t in tags(cell) for t in DROP_OUTPUT):
            cell["outputs"], cell["execution_count"] = [], None
    prune_widget_state(nb)
    return nb


def solutions_copy(nb: dict[str, Any], dst: str) -> dict[str, Any]:
    """The worked copy of a teacher notebook whose exercises hold solution regions: the
    regions unmarked, the title says so."""
    nb = copy.deepcopy(nb)
    folder = os.path.dirname(dst) or "."
    for i, cell in enumerate(nb["cells"]):
        text = source_of(cell)
        if cell["cell_type"] == "markdown":
            if i == 0:
                title, _, rest = text.partition("\n")
                text = f"{title}: worked solution\n{rest}"
            with_source(cell, relink(text, ".", folder))
        elif cell["cell_type"] == "code":
            with_source(cell, split_solutions(text, student=False))
    return nb


def read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def dumps(nb: dict[str, Any]) -> str:
    """As nbformat writes a notebook (sorted keys, indent 1, UTF-8)."""
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False, separators=(",", ": "))


def generated() -> dict[Path, str]:
    """Every generated notebook's path and text."""
    files = {}
    for name in teacher_names():
        nb = read(HERE / name)
        files[STUDENT / name] = dumps(student_copy(nb)) + "\n"
        if name in SOLVED_HERE:
            files[HERE / SOLVED_HERE[name]] = dumps(solutions_copy(nb, SOLVED_HERE[name])) + "\n"
    return files


def main() -> None:
    STUDENT.mkdir(exist_ok=True)
    for path, text in generated().items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(HERE)}", file=sys.stdout)


if __name__ == "__main__":
    main()
