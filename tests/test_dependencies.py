"""Every third-party module that didax's own code imports (core/ as `didax`, magics/, widgets/)
comes from a distribution named in pyproject.toml's `[project].dependencies` (issue 20, item 1).

A dependency that arrives only through another one (`ml_dtypes` through jaxlib) works on the
developer's machine and breaks the day the other one stops requiring it, so it is declared
too. Imports are read with `ast`: statements (also inside functions and `try`), and
`importlib.import_module("...")` calls with a literal name, which is how the runtime loads
jaxlib lazily."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("core", "magics", "widgets")


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def imported_top_level_modules(folders: tuple[str, ...] = SOURCES) -> dict[str, str]:
    """Each top-level module imported by the source, with one place that imports it."""
    found: dict[str, str] = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                names: list[str] = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                elif (
                    isinstance(node, ast.Call)
                    and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                ):
                    names = [node.args[0].value]
                for name in names:
                    top = name.split(".")[0]
                    found.setdefault(top, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def third_party(modules: dict[str, str]) -> dict[str, str]:
    return {
        m: where
        for m, where in modules.items()
        if m not in sys.stdlib_module_names and m != "didax" and not m.startswith("_")
    }


def declared_distributions() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = set()
    for requirement in project["dependencies"]:
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
        assert match, f"cannot read the requirement {requirement!r}"
        names.add(_normalized(match.group(1)))
    return names


def undeclared(modules: dict[str, str], declared: set[str]) -> list[str]:
    """Messages for each module whose distribution is missing from `declared`."""
    owners = importlib.metadata.packages_distributions()
    problems = []
    for module, where in sorted(modules.items()):
        dists = owners.get(module)
        if not dists:
            problems.append(f"{module} (imported at {where}) comes from no installed distribution")
        elif not {_normalized(d) for d in dists} & declared:
            problems.append(
                f"{module} (imported at {where}) comes from {', '.join(sorted(dists))}, "
                "which [project].dependencies does not name"
            )
    return problems


def test_every_imported_third_party_module_is_declared() -> None:
    modules = third_party(imported_top_level_modules())
    assert "numpy" in modules and "jaxlib" in modules  # the reader sees both kinds of import
    assert undeclared(modules, declared_distributions()) == []


def test_the_check_names_an_undeclared_module() -> None:
    modules = third_party(imported_top_level_modules())
    declared = declared_distributions() - {"ml-dtypes"}
    (problem,) = undeclared({"ml_dtypes": modules["ml_dtypes"]}, declared)
    assert "ml_dtypes" in problem and "does not name" in problem
    (problem,) = undeclared({"no_such_module_anywhere": "x.py:1"}, declared)
    assert "no installed distribution" in problem
