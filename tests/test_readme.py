"""README.md stays true: its API tour runs as a doctest on the current didax, and its table
of what didax covers against JAX names only what exists (middle column: in didax and in JAX;
right column: in JAX, not yet in didax), with the `jax.numpy` counts it quotes equal to the
recorded list of missing names and to JAX's own count."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path
from typing import Any

import pytest

README = Path(__file__).parents[1] / "README.md"
MISSING = Path(__file__).parent / "oracle" / "numpy_missing_names.txt"
_ABSENT = object()


def readme() -> str:
    return README.read_text()


def tour() -> str:
    (block,) = re.findall(r"```pycon\n(.*?)```", readme(), flags=re.DOTALL)
    return block


def coverage_rows() -> list[tuple[str, list[str], list[str]]]:
    """(module, names in didax and JAX, names only in JAX) for each row of the table."""
    text = readme()
    start = text.index("| module | in didax, as in JAX | not yet in didax |")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        module, have, lack = (cell.strip() for cell in line.strip("|").split("|"))
        # every code span is a name, except the counted module's (numpy's row)
        names = lambda cell: [n for n in re.findall(r"`([\w.\[\]]+)`", cell) if n != "jax.numpy"]
        rows.append((module.strip("`"), names(have), names(lack)))
    return rows


def resolve(package: str, module: str, name: str) -> Any:
    """`package.<module minus its 'didax' prefix>.name`, importing submodules as needed;
    _ABSENT when any part is missing."""
    path = [package, *module.split(".")[1:], *name.split(".")]
    obj: Any = importlib.import_module(package)
    for i, part in enumerate(path[1:], 2):
        try:
            obj = importlib.import_module(".".join(path[:i]))
        except ImportError:
            obj = getattr(obj, part, _ABSENT)
            if obj is _ABSENT:
                return _ABSENT
    return obj


def test_api_tour_runs_as_shown() -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(tour(), {}, "README tour", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    failures: list[str] = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0 and test.examples, "".join(failures)


def test_coverage_table_names_exist_in_didax() -> None:
    rows = coverage_rows()
    assert len(rows) >= 10, rows
    for module, have, lack in rows:
        for name in have:
            if name == "Array.at[]":
                assert hasattr(resolve("didax", "didax.numpy", "zeros")(1), "at")
                continue
            assert resolve("didax", module, name) is not _ABSENT, f"{module}.{name}"
        for name in lack:  # moved to the middle column once didax has it
            assert resolve("didax", module, name) is _ABSENT, f"{module}.{name} exists now"


@pytest.mark.oracle
def test_coverage_table_names_are_jax_names() -> None:
    pytest.importorskip("jax")
    for module, have, lack in coverage_rows():
        for name in [*have, *lack]:
            if name == "Array.at[]":
                continue
            assert resolve("jax", module, name) is not _ABSENT, f"not a JAX name: {module}.{name}"


def test_quoted_numpy_counts_are_the_recorded_ones() -> None:
    missing = len(MISSING.read_text().split())
    text = readme()
    have, total = map(
        int, re.search(r"(\d+) of `jax\.numpy`'s (\d+) public callables", text).groups()
    )
    assert have == total - missing, (have, total, missing)
    assert int(re.search(r"(\d+) missing names, listed in", text).group(1)) == missing
    limits = re.search(r"Of `jax\.numpy`'s (\d+) public callables, (\d+) are still missing", text)
    assert limits and tuple(map(int, limits.groups())) == (total, missing)


@pytest.mark.oracle
def test_quoted_numpy_total_is_jax_count() -> None:
    jax = pytest.importorskip("jax")
    total = sum(
        1 for n in dir(jax.numpy) if not n.startswith("_") and callable(getattr(jax.numpy, n))
    )
    quoted = re.search(r"of `jax\.numpy`'s (\d+) public callables", readme())
    assert quoted and int(quoted.group(1)) == total
