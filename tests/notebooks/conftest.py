"""The classroom notebooks in demo_notebooks/ run top to bottom in a real kernel on the
current didax (marker `notebooks`), their stored outputs are what that run prints, and the
key programs they print are the ones computed here, in this process, and by JAX.

Every notebook in demo_notebooks/ is executed except those in `COVERED_ELSEWHERE`. A cell
tagged `raises-exception` must raise; any other cell must not, nor write to stderr (jaxlib's
C++ log lines aside). The tests, by what they check:
- test_every_notebook.py: each notebook runs, and its stored outputs are current and fit to
  show;
- test_lesson_programs.py: what a lesson prints is what didax (and JAX) compute here;
- test_exercise_checkers.py: every exercise's checker answers the worked answer, the first
  tries and planted wrong answers (planted_answers.py) as a learner must read it;
- test_course_materials.py: the student copies and the course map.
lesson_runs.py runs the notebooks, and refreshes their stored outputs as a script.

The fixtures here are the folder's (package scope), and the folder is one xdist scope
(tests/conftest.py): one worker runs a lesson's notebooks once for every test that reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from helpers import kernels


@pytest.fixture(scope="package")
def kernel_name(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from lesson_runs import write_kernelspec  # (imported here: it skips without nbclient)

    root = tmp_path_factory.mktemp("jupyter")
    name = write_kernelspec(root)
    with kernels.on_jupyter_path(root):
        yield name


@pytest.fixture(scope="package")
def lessons(kernel_name: str) -> Any:
    from lesson_runs import Lessons
    from planted_answers import APPENDED

    return Lessons(kernel_name, APPENDED)


@pytest.fixture(scope="package")
def run(lessons: Any) -> Callable[[str], Any]:
    """`run(name)`: the notebook executed in a kernel, once per test session."""
    return lambda name: lessons.executed(name)[0]
