"""The layer rule of STYLE.md §2, checked on the source: every module of core/ (`didax`),
magics/ and widgets/ imports only from earlier layers, or from earlier in its own layer's
list; nothing imports inside a function (except the IPython hook); nothing imports `jax`.

Importing `a.b.c` runs `a/b/__init__.py` first, so an import also counts as an import of each
parent package of the imported module (all but the root `didax`, which is what is being
imported, and those the importer is itself inside): a re-exporting `__init__` cannot hide a cycle.

Imports are read with `ast` (statements, and `importlib.import_module("...")` calls with a
literal name), so the check needs no import of the package and sees imports that never run.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"core": "didax", "magics": "didax.magics", "widgets": "didax.widgets"}

# Rank of each engine module: (layer, position in its layer's list). A module may import a
# module of lower rank only. Package `__init__`s of primitives/, interpreters/ and
# control_flow/ only hold a docstring; they sit at the start of their layer.
ORDER: dict[str, tuple[int, int]] = {}
for i, name in enumerate(
    [
        "interrupts",
        "config",
        "source_info",
        "config",
        "dtypes",
        "array",
        "core",
        "distributed",
        "backend",
        "sharding",
        # pretty (the layout engine) before jaxpr (the IR and its printer)
        "pretty",
        "jaxpr",
        "tree_util",
        "api_util",
    ]
):
    ORDER[f"didax.{name}"] = (1, i)
ORDER["didax.primitives"] = (2, -1)
for i, name in enumerate(
    [
        "rules",
        "convert",
        "shape",
        "creation",
        "ad_helpers",
        "vmap_helpers",
        "concatenation",
        "comparison",
        "elementwise",
        "reductions",
        "dot",
        "bits",
        "special",
        "sorting",
        "slicing",
        "debugging",
        "parallel",
        "linalg",
        "convolution",
        "cumulative",
    ]
):
    ORDER[f"didax.primitives.{name}"] = (2, i)
ORDER["didax.interpreters"] = (3, -1)
for i, name in enumerate(["staging", "jvp", "vmap", "partial_eval", "transpose", "lowering"]):
    ORDER[f"didax.interpreters.{name}"] = (3, i)
ORDER["didax.control_flow"] = (4, -1)
# common holds the helpers cond, scan and while_loop share; jit (its AOT stages and sharded
# programs, its primitive, then the call path) and custom_derivatives import
# no other control flow; while_loop uses scan (fori_loop with static bounds is a scan).
for i, name in enumerate(
    [
        "common",
        "stages",
        "jit_primitive",
        "dispatch",
        "jit",
        "custom_derivatives",
        "cond",
        "solves",
        "scan",
        "while_loop",
        "shard_map",
        "pmap",
    ]
):
    ORDER[f"didax.control_flow.{name}"] = (4, i)
for i, name in enumerate(
    # didax.lax is the facade over primitives (layer 2) and control flow (layer 4)
    [
        "didax.lax.linalg",
        "didax.lax",
        "didax.api",
        "didax.api_more",
        "didax.debug",
        "didax.errors",
        "didax.numpy.axis_args",
        "didax.numpy.promotion",
        "didax.numpy.inner_jit",
        "didax.numpy.creation",
        "didax.numpy.dtype_functions",
        "didax.numpy.manipulation",
        "didax.numpy.ufuncs",
        "didax.numpy.reductions",
        "didax.numpy.products",
        "didax.numpy.methods",
        "didax.numpy.indexing",
        "didax.numpy.extra",
        "didax.numpy.linalg",
        "didax.numpy.signal",
        "didax.numpy.setops",
        "didax.numpy.mathfuncs",
        "didax.numpy.rearrange",
        "didax.numpy.statistics",
        "didax.numpy.calculus",
        "didax.numpy",
        "didax.nn",
        "didax.random",
        "didax.tree",
        "didax.scipy.special",
        "didax.scipy",
        "didax.test_util",
        "didax.experimental.shard_map",
        "didax.experimental",
        "didax",
    ]
):
    ORDER[name] = (5, i)

# Layer 6 (magics/, widgets/) uses the public API only (+ didax.core, didax.jaxpr and
# didax.pretty to inspect and print jaxprs), and its own modules; widgets never import magics.
PUBLIC = {
    "didax",
    "didax.numpy",
    "didax.lax",
    "didax.nn",
    "didax.tree_util",
    "didax.random",
    "didax.tree",
    "didax.errors",
    "didax.sharding",
    "didax.core",
    "didax.jaxpr",
    "didax.pretty",
}

# Known, deliberate exceptions: (importer, imported) -> why.
ALLOWED: dict[tuple[str, str], str] = {}

# Functions that may import: `import didax` must not import IPython.
HOOKS = {
    ("didax", "load_ipython_extension"),
    ("didax", "unload_ipython_extension"),
    # ClosedJaxpr's rich display (called by IPython only) builds a didax.widgets view
    ("didax.jaxpr", "_repr_mimebundle_"),
    ("didax.magics.reports", "_repr_mimebundle_"),  # a report's view, as ClosedJaxpr's
}


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    function: str | None  # the enclosing function, if any


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT)
    parts = [PACKAGES[rel.parts[0]], *rel.parts[1:]]
    parts[-1] = parts[-1].removesuffix(".py")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _source_files() -> list[Path]:
    return sorted(
        p for base in PACKAGES if (ROOT / base).is_dir() for p in (ROOT / base).rglob("*.py")
    )


def _is_module(dotted: str) -> bool:
    for base, pkg in PACKAGES.items():
        if dotted == pkg or dotted.startswith(pkg + "."):
            rest = dotted.removeprefix(pkg).lstrip(".").split(".") if dotted != pkg else []
            target = ROOT / base / Path(*rest) if rest else ROOT / base
            if target.with_suffix(".py").is_file() or (target / "__init__.py").is_file():
                return True
    return False


def _imports(path: Path) -> list[Import]:
    importer = _module_name(path)
    is_pkg = path.name == "__init__.py"
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[Import] = []

    def resolve(module: str | None, level: int) -> str:
        if not level:
            return module or ""
        base = importer.split(".")
        base = base if is_pkg else base[:-1]
        base = base[: len(base) - (level - 1)]
        return ".".join([*base, module] if module else base)

    def visit(node: ast.AST, function: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            fn = function
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                fn = getattr(child, "name", "<lambda>")
            if isinstance(child, ast.Import):
                for alias in child.names:
                    found.append(Import(importer, alias.name, child.lineno, fn))
            elif isinstance(child, ast.ImportFrom):
                module = resolve(child.module, child.level)
                for alias in child.names:
                    sub = f"{module}.{alias.name}"
                    target = sub if _is_module(sub) else module
                    found.append(Import(importer, target, child.lineno, fn))
            elif (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and child.func.attr == "import_module"
                and child.args
                and isinstance(child.args[0], ast.Constant)
                and isinstance(child.args[0].value, str)
            ):
                found.append(Import(importer, child.args[0].value, child.lineno, fn))
            visit(child, fn)

    visit(tree, None)
    return found


def _with_parent_packages(imp: Import) -> list[Import]:
    """`imp`, and an import of each parent package whose `__init__` it runs."""
    found = [imp]
    parts = imp.imported.split(".")
    for n in range(2, len(parts)):
        parent = ".".join(parts[:n])
        if parent.split(".")[0] == "didax" and not (imp.importer + ".").startswith(parent + "."):
            found.append(Import(imp.importer, parent, imp.line, imp.function))
    return found


ALL_IMPORTS = [
    edge
    for path in _source_files()
    for imp in _imports(path)
    for edge in _with_parent_packages(imp)
]


def _rank(module: str) -> tuple[int, int] | None:
    while module:
        if module in ORDER:
            return ORDER[module]
        if module.startswith(("didax.magics", "didax.widgets")):
            return (6, 0)
        module = module.rpartition(".")[0]
    return None


def test_every_engine_module_has_a_rank() -> None:
    unranked = sorted(
        {
            _module_name(p)
            for p in _source_files()
            if _module_name(p).split(".")[:2] not in (["didax", "magics"], ["didax", "widgets"])
            and _module_name(p) not in ORDER
        }
    )
    assert not unranked, f"add these modules to ORDER in tests/test_layers.py: {unranked}"


def test_layer_order() -> None:
    bad = []
    for imp in ALL_IMPORTS:
        if not (imp.imported == "didax" or imp.imported.startswith("didax.")):
            continue
        if (imp.importer, imp.imported) in ALLOWED or (imp.importer, imp.function) in HOOKS:
            continue  # the IPython hook imports didax.magics on `%load_ext didax`
        src, dst = _rank(imp.importer), _rank(imp.imported)
        if src is None or src[0] == 6:
            continue  # layer 6 is checked below
        if dst is None or dst >= src:
            bad.append(
                f"{imp.importer} (layer {src}) imports {imp.imported} "
                f"(layer {dst}), line {imp.line}"
            )
    assert not bad, "imports against STYLE §2's layer order:\n" + "\n".join(bad)


def test_magics_and_widgets_use_the_public_api() -> None:
    bad = []
    for imp in ALL_IMPORTS:
        if _rank(imp.importer) != (6, 0):
            continue
        dst = imp.imported
        if not (dst == "didax" or dst.startswith("didax.")):
            continue
        own = dst.startswith(("didax.magics", "didax.widgets"))
        if own and imp.importer.startswith("didax.widgets") and dst.startswith("didax.magics"):
            bad.append(f"{imp.importer} imports {dst}: widgets must not depend on magics")
        elif not own and dst not in PUBLIC:
            bad.append(
                f"{imp.importer} imports {dst} (line {imp.line}); layer 6 uses {sorted(PUBLIC)}"
            )
    assert not bad, "\n".join(bad)


def test_no_imports_inside_functions() -> None:
    bad = [
        f"{imp.importer}:{imp.line} imports {imp.imported} inside {imp.function}()"
        for imp in ALL_IMPORTS
        if imp.function is not None
        and (imp.importer, imp.function) not in HOOKS
        # jaxlib is loaded lazily, on first compile only (backend.py)
        and not imp.imported.startswith("jaxlib")
    ]
    assert not bad, "imports inside functions:\n" + "\n".join(bad)


def test_the_package_never_imports_jax() -> None:
    bad = [
        f"{imp.importer}:{imp.line} imports {imp.imported}"
        for imp in ALL_IMPORTS
        if imp.imported == "jax" or imp.imported.startswith("jax.")
    ]
    assert not bad, "\n".join(bad)


def test_allowed_exceptions_are_used() -> None:
    edges = {(imp.importer, imp.imported) for imp in ALL_IMPORTS}
    unused = sorted(set(ALLOWED) - edges)
    assert not unused, f"drop stale exceptions from ALLOWED: {unused}"


@pytest.mark.parametrize("path", [ROOT / "core" / "primitives" / "dot.py"], ids=["dot.py"])
def test_the_scanner_sees_imports(path: Path) -> None:
    # guards against a scanner that finds nothing and so passes everything
    edges = {imp.imported for imp in _imports(path)}
    assert {"didax.core", "didax.primitives.shape"} <= edges


def test_an_import_counts_its_parent_packages() -> None:
    # `from didax.lax.x import y` in an interpreter runs the facade's `__init__`, which imports
    # control flow (layer 4): the cycle interpreters -> didax.lax -> control_flow -> interpreters
    imp = Import("didax.interpreters.jvp", "didax.lax.x", 1, None)
    assert {e.imported for e in _with_parent_packages(imp)} == {"didax.lax.x", "didax.lax"}
    assert _rank("didax.lax") > _rank("didax.control_flow.cond") > _rank(imp.importer)
    # a module's own package has already run, and the root package is the one being imported
    own = Import("didax.primitives.dot", "didax.primitives.shape", 1, None)
    assert [e.imported for e in _with_parent_packages(own)] == ["didax.primitives.shape"]
