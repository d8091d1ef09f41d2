"""A small repeat scanner for the structure test: the places in the source that repeat six or
more identical lines.

Lines are compared after dropping their leading and trailing whitespace, and blank and
comment-only lines are skipped, so re-indenting or re-commenting a copy does not hide it;
import statements are skipped too (two modules that import the same names share no logic). A
*run* is a maximal stretch of such lines that stands at two places (two files, or twice in one
file without overlapping). All the runs two files share are one *repeated place* (a pair of
files that repeat each other is one thing to fix, however many stretches the copy has), as the
`duplicates` tool counts them. A stretch that stands in more than `too_common` places (e.g. a
parameter list every function of a family spells out) is too common to be a copy and is left
out, as that tool leaves it out.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Run:
    """Lines `first_a..last_a` of `a` stand again at `first_b..last_b` of `b` (1-based)."""

    a: str
    first_a: int
    last_a: int
    b: str
    first_b: int
    last_b: int

    def __str__(self) -> str:
        return f"{self.a}:{self.first_a}-{self.last_a} ~ {self.b}:{self.first_b}-{self.last_b}"


def code_lines(text: str) -> list[tuple[int, str]]:
    """(line number, stripped text) of each line that is neither blank, only a comment, nor
    part of an import statement."""
    imports = {
        number
        for node in ast.walk(ast.parse(text))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for number in range(node.lineno, (node.end_lineno or node.lineno) + 1)
    }
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and number not in imports:
            found.append((number, stripped))
    return found


def find_runs(sources: dict[str, str], min_lines: int = 6, too_common: int = 8) -> list[Run]:
    """Every maximal run of at least `min_lines` code lines that two places share."""
    lines = {name: code_lines(text) for name, text in sources.items()}
    places: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
    for name, numbered in lines.items():
        texts = [text for _, text in numbered]
        for i in range(len(texts) - min_lines + 1):
            places[tuple(texts[i : i + min_lines])].append((name, i))
    runs = []
    for where in places.values():
        if len(where) < 2 or len(where) > too_common:
            continue
        for n, (a, i) in enumerate(where):
            for b, j in where[n + 1 :]:
                if a == b and j - i < min_lines:
                    continue  # overlapping copies of a periodic stretch
                if i > 0 and j > 0 and _same(lines, a, i - 1, b, j - 1):
                    continue  # not the start of the run: the lines before match too
                k = min_lines
                while _same(lines, a, i + k, b, j + k) and (a != b or i + k < j):
                    k += 1
                runs.append(
                    Run(
                        a,
                        lines[a][i][0],
                        lines[a][i + k - 1][0],
                        b,
                        lines[b][j][0],
                        lines[b][j + k - 1][0],
                    )
                )
    return sorted(runs, key=lambda r: (r.a, r.first_a, r.b, r.first_b))


def _same(lines: dict[str, list[tuple[int, str]]], a: str, i: int, b: str, j: int) -> bool:
    return i < len(lines[a]) and j < len(lines[b]) and lines[a][i][1] == lines[b][j][1]


def repeated_places(runs: list[Run]) -> dict[tuple[str, str], list[Run]]:
    """The runs grouped by the pair of files they join: one repeated place a pair."""
    grouped: dict[tuple[str, str], list[Run]] = defaultdict(list)
    for run in runs:
        grouped[(run.a, run.b)].append(run)
    return dict(grouped)


def read_sources(root: Path, folders: tuple[str, ...]) -> dict[str, str]:
    """The text of every .py file below `root`'s `folders`, by path relative to `root`."""
    return {
        str(path.relative_to(root)): path.read_text()
        for folder in folders
        for path in sorted((root / folder).rglob("*.py"))
    }
