"""The house's size numbers (issue 21's "Done when"), measured on the source of the package's
folders (core/ = `didax`, display/, magics/, widgets/), failing when one regresses: no file over
700 lines, and at most 8 repeated places (pairs of files that share a run of six or more
identical lines; `helpers/repeats.py` says how lines are compared). The import numbers (no
cycles, imports by name counted; no hidden hooks) are in test_layers.py. And the tests reach
each other through `tests/` on the path (`pythonpath` in pyproject.toml), never by editing
`sys.path`.
"""

from __future__ import annotations

import ast
from pathlib import Path

from helpers.repeats import find_runs, read_sources, repeated_places

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("core", "display", "magics", "widgets")
MAX_LINES = 700
MAX_REPEATED_PLACES = 8


def test_no_file_over_700_lines() -> None:
    sizes = {name: len(text.splitlines()) for name, text in read_sources(ROOT, FOLDERS).items()}
    assert len(sizes) > 100  # the folders were read
    over = sorted((n, name) for name, n in sizes.items() if n > MAX_LINES)
    assert not over, f"{len(over)} files over {MAX_LINES} lines (split by what they hold): " + (
        ", ".join(f"{name} {n}" for n, name in over)
    )


def test_few_repeated_places() -> None:
    # What is left are signatures: functions of one family that take the same parameters
    # (var/std, nanvar/nanstd, sort/argsort, dot/matmul, setdiff1d/setxor1d, jnp.vecdot and
    # jnp.linalg.vecdot, the two conv shape_tuple functions), not logic written twice.
    places = repeated_places(find_runs(read_sources(ROOT, FOLDERS)))
    listing = "\n".join(f"{runs[0]} ({len(runs)} runs)" for runs in places.values())
    assert len(places) <= MAX_REPEATED_PLACES, (
        f"{len(places)} repeated places (at most {MAX_REPEATED_PLACES}): make one piece of "
        f"code serve where the logic is the same\n{listing}"
    )


def test_the_repeat_scanner_sees_a_copy() -> None:
    # guards against a scanner that finds nothing: a copy re-indented, with a comment and a
    # blank line added, is found with its line numbers; imports are not copies
    body = [f"total = total + {i}" for i in range(7)]
    original = "\n".join(["import numpy as np", "def f(total):", *[f"    {b}" for b in body]])
    copy = "\n".join(
        [
            "import numpy as np",
            "class C:",
            "    def g(self, total):",
            *[f"        {b}" for b in body[:3]],
            "        # a comment",
            "",
            *[f"        {b}" for b in body[3:]],
            "        return total",
        ]
    )
    runs = find_runs({"a.py": original, "b.py": copy})
    assert [str(r) for r in runs] == ["a.py:3-9 ~ b.py:4-12"]
    assert list(repeated_places(runs)) == [("a.py", "b.py")]
    assert find_runs({"a.py": original, "b.py": copy.replace("+ 3", "- 3")}) == []
    imports = "\n".join(f"import m{i}" for i in range(8))
    assert find_runs({"a.py": imports, "b.py": imports}) == []
    # a stretch repeated twice in one file is one place, found once
    twice = "\n".join([*body, "x = 1", *body])
    assert [str(r) for r in find_runs({"c.py": twice})] == ["c.py:1-7 ~ c.py:9-15"]


def _path_edits(source: str) -> list[int]:
    """The lines of `source` that call `sys.path.insert` or `sys.path.append`."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("insert", "append")
        and ast.unparse(node.func.value) == "sys.path"
    ]


def test_no_test_edits_sys_path() -> None:
    # helpers, op_cases and the scripts' preludes import by their place below tests/
    edits = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        for line in _path_edits(path.read_text())
    ]
    assert _path_edits("import sys\nsys.path.insert(0, 'x')\nsys.path.append('y')\n") == [2, 3]
    assert not edits, "sys.path edited (import by the place below tests/ instead):\n" + (
        "\n".join(edits)
    )
