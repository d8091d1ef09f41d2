"""The layer rule of STYLE.md §2, checked on the source: every module of core/ (`didax`),
magics/ and widgets/ imports only from earlier layers, or from earlier in its own layer's
list; nothing imports inside a function (except the IPython hook); nothing imports `jax`.

Importing `a.b.c` runs `a/b/__init__.py` first, so an import also counts as an import of each
parent package of the imported module (all but the root `didax`, which is what is being
imported, and those the importer is itself inside): a re-exporting `__init__` cannot hide a cycle.

Imports are read with `ast` (statements, and `importlib.import_module("...")` calls with a
literal name), so the check needs no import of the package and sees imports that never run.

An assignment into another module (`array.x = f`, `setattr(core, "x", f)`) or into the
operator table outside `didax.numpy` (`operator_table["devices"] = f`) is an edge no import
shows, a hidden hook: there are none (an upward call goes through a declared extension point,
a function of the lower module the higher one calls at import, STYLE.md §2). Below the NumPy
layer nothing looks an operation up in the operator table either (lax operations instead);
only the array classes dispatch through it.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.layer_map import ALLOWED, HOOKS, LAYER_6, ORDER, PACKAGES, PUBLIC

ROOT = Path(__file__).resolve().parent.parent


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


def _imports(path: Path, source: str | None = None) -> list[Import]:
    importer = _module_name(path)
    is_pkg = path.name == "__init__.py"
    tree = ast.parse(path.read_text() if source is None else source, filename=str(path))
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


@dataclass(frozen=True)
class Hook:
    module: str
    line: int
    what: str


# The modules whose Array and Tracer operators dispatch through the operator table.
DISPATCHERS = {"didax.array", "didax.core"}


def _hooks(path: Path, source: str | None = None) -> list[Hook]:
    """Hidden hooks in one file: assignments into an imported didax module or into the
    attributes of an object another didax module holds (`global_state.client = c`, where
    `from didax.runtime.client import global_state`), into the operator table outside
    didax.numpy, and operator-table lookups below the NumPy layer."""
    importer = _module_name(path)
    tree = ast.parse(path.read_text() if source is None else source, filename=str(path))
    modules: dict[str, str] = {}  # local name -> the didax module it is bound to
    objects: dict[str, str] = {}  # local name -> the other didax module's object it is
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    modules[alias.asname] = alias.name
                else:
                    modules[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if _is_module(f"{node.module}.{alias.name}"):
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                elif node.module.startswith("didax") and node.module != importer:
                    objects[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def dotted(expr: ast.expr) -> str | None:  # the didax module an expression names, if any
        if isinstance(expr, ast.Name):
            return modules.get(expr.id)
        if isinstance(expr, ast.Attribute):
            base = dotted(expr.value)
            if base is not None and _is_module(f"{base}.{expr.attr}"):
                return f"{base}.{expr.attr}"
        return None

    def held(expr: ast.expr) -> str | None:  # another didax module's object, if it names one
        if isinstance(expr, ast.Name):
            return objects.get(expr.id)
        if isinstance(expr, ast.Attribute) and dotted(expr.value) not in (None, importer):
            return f"{dotted(expr.value)}.{expr.attr}"
        return None

    def is_table(expr: ast.expr) -> bool:
        return (isinstance(expr, ast.Name) and expr.id == "operator_table") or (
            isinstance(expr, ast.Attribute) and expr.attr == "operator_table"
        )

    rank = _rank(importer)
    below_numpy = rank is not None and rank < ORDER["didax.lax.linalg"]
    found = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and dotted(target.value) not in (None, importer):
                found.append(Hook(importer, node.lineno, f"{dotted(target.value)}.{target.attr} ="))
            elif isinstance(target, ast.Attribute) and held(target.value) is not None:
                found.append(Hook(importer, node.lineno, f"{held(target.value)}.{target.attr} ="))
            if (
                isinstance(target, ast.Subscript)
                and is_table(target.value)
                and not importer.startswith("didax.numpy")
            ):
                found.append(Hook(importer, node.lineno, "operator_table[...] ="))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and node.args
            and dotted(node.args[0]) not in (None, importer)
        ):
            found.append(Hook(importer, node.lineno, f"setattr({dotted(node.args[0])}, ...)"))
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and is_table(node.value)
            and below_numpy
            and importer not in DISPATCHERS
        ):
            found.append(
                Hook(importer, node.lineno, "operator_table[...] lookup below didax.numpy")
            )
    return sorted(found, key=lambda h: h.line)


def _with_parent_packages(imp: Import) -> list[Import]:
    """`imp`, and an import of each parent package whose `__init__` it runs."""
    found = [imp]
    parts = imp.imported.split(".")
    for n in range(2, len(parts)):
        parent = ".".join(parts[:n])
        if parent.split(".")[0] == "didax" and not (imp.importer + ".").startswith(parent + "."):
            found.append(Import(imp.importer, parent, imp.line, imp.function))
    return found


@functools.cache
def all_imports() -> tuple[Import, ...]:
    """Every import edge of the source, read on first use (not at collection, which every
    pytest-xdist worker does for every module)."""
    return tuple(
        edge
        for path in _source_files()
        for imp in _imports(path)
        for edge in _with_parent_packages(imp)
    )


def _rank(module: str) -> tuple[int, int] | None:
    while module:
        if module in ORDER:
            return ORDER[module]
        if module.startswith(LAYER_6):
            return (6, 0)
        module = module.rpartition(".")[0]
    return None


@functools.cache
def all_hooks() -> tuple[Hook, ...]:
    return tuple(hook for path in _source_files() for hook in _hooks(path))


def test_every_engine_module_has_a_rank() -> None:
    unranked = sorted(
        {
            _module_name(p)
            for p in _source_files()
            if not _module_name(p).startswith(LAYER_6) and _module_name(p) not in ORDER
        }
    )
    assert not unranked, f"add these modules to ORDER in tests/helpers/layer_map.py: {unranked}"


def test_layer_order() -> None:
    bad = []
    for imp in all_imports():
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
    for imp in all_imports():
        if _rank(imp.importer) != (6, 0):
            continue
        dst = imp.imported
        if not (dst == "didax" or dst.startswith("didax.")):
            continue
        own = dst.startswith(LAYER_6)
        src_pkg = LAYER_6.index(next(p for p in LAYER_6 if imp.importer.startswith(p)))
        dst_pkg = LAYER_6.index(next(p for p in LAYER_6 if dst.startswith(p))) if own else -1
        if own and dst_pkg > src_pkg:
            bad.append(f"{imp.importer} imports {dst}: display -> widgets -> magics, not back")
        elif not own and dst not in PUBLIC:
            bad.append(
                f"{imp.importer} imports {dst} (line {imp.line}); layer 6 uses {sorted(PUBLIC)}"
            )
    assert not bad, "\n".join(bad)


# The plain-data modules: importing them loads no IPython, ipywidgets or grandalf (STYLE §9)
PURE = ("didax.display", "didax.magics.reports", "didax.magics.timing", "didax.magics.sections")
FRONT_ENDS = ("IPython", "ipywidgets", "grandalf")


def test_data_modules_reach_no_front_end() -> None:
    # every module a pure module imports, transitively (parent packages counted), stays off
    # IPython, ipywidgets and grandalf
    edges: dict[str, set[str]] = {}
    for imp in all_imports():
        if imp.function is None:
            edges.setdefault(imp.importer, set()).add(imp.imported)
    seen: set[str] = set()
    todo = [m for m in edges if m.startswith(PURE)]
    bad = []
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        for dst in edges.get(module, ()):
            if dst.split(".")[0] in FRONT_ENDS:
                bad.append(f"{module} imports {dst}")
            elif dst.startswith("didax"):
                todo.append(dst)
    assert {"didax.display.program", "didax.magics.reports"} <= seen
    assert not bad, "\n".join(bad)


def test_no_imports_inside_functions() -> None:
    bad = [
        f"{imp.importer}:{imp.line} imports {imp.imported} inside {imp.function}()"
        for imp in all_imports()
        if imp.function is not None
        and (imp.importer, imp.function) not in HOOKS
        # jaxlib is loaded lazily, on first compile only (runtime/client.py), and SciPy's
        # special functions on the first eager call of one (primitives/special.py), SciPy's
        # LAPACK wrappers on the first eager `eig` or pivoted `qr` (primitives/decompositions.py)
        # and opt_einsum on the first `einsum_path` (numpy/host_io.py), the standard
        # library's logging on the first log record (config.log_warning) and tempfile on
        # the first stderr filtered (runtime/executable.py): loads deferred for `import
        # didax`'s time, not imports dodging a cycle
        and not imp.imported.startswith("jaxlib")
        and imp.imported
        not in ("scipy.special", "scipy.linalg", "opt_einsum", "logging", "tempfile")
    ]
    assert not bad, "imports inside functions:\n" + "\n".join(bad)


def test_the_package_never_imports_jax() -> None:
    bad = [
        f"{imp.importer}:{imp.line} imports {imp.imported}"
        for imp in all_imports()
        if imp.imported == "jax" or imp.imported.startswith("jax.")
    ]
    assert not bad, "\n".join(bad)


def test_allowed_exceptions_are_used() -> None:
    edges = {(imp.importer, imp.imported) for imp in all_imports()}
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


def _cycles(imports: list[Import]) -> list[list[str]]:
    """The import cycles among didax modules: each strongly connected component of the import
    graph with more than one module (or a module importing itself), sorted. Every import
    counts (by statement or by name, at module level or in a function, parent packages
    included) but the IPython hook's, which runs on `%load_ext didax`, after `import didax`."""
    graph: dict[str, set[str]] = {}
    for imp in imports:
        if imp.imported.split(".")[0] == "didax" and (imp.importer, imp.function) not in HOOKS:
            graph.setdefault(imp.importer, set()).add(imp.imported)
            graph.setdefault(imp.imported, set())
    # Tarjan's algorithm, with an explicit stack (the graph is ~400 modules deep at most)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1 or node in graph[node]:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return sorted(found)


def test_no_import_cycles() -> None:
    cycles = _cycles(all_imports())
    assert not cycles, f"{len(cycles)} import cycles:\n" + "\n".join(map(" <-> ".join, cycles))


def test_the_cycle_count_sees_imports_by_name() -> None:
    # the IR reaching up to the display by name, as jaxpr.py once did for ClosedJaxpr's
    # rich display (issue 21): a cycle, though no import statement shows it
    jaxpr = ROOT / "core" / "jaxpr.py"
    views = ROOT / "widgets" / "views.py"
    probe = [
        *_imports(
            jaxpr, 'import importlib\nviews = importlib.import_module("didax.widgets.views")\n'
        ),
        *_imports(views, "from didax.jaxpr import ClosedJaxpr\n"),
    ]
    assert _cycles(probe) == [["didax.jaxpr", "didax.widgets.views"]]
    assert _cycles([i for i in probe if i.importer == "didax.widgets.views"]) == []
    # and a longer one through a package's `__init__` (parent packages counted)
    longer = [
        Import("didax.interpreters.jvp", "didax.lax.x", 1, None),
        Import("didax.lax", "didax.control_flow.cond", 1, None),
        Import("didax.control_flow.cond", "didax.interpreters.jvp", 1, None),
    ]
    edges = [e for imp in longer for e in _with_parent_packages(imp)]
    assert _cycles(edges) == [["didax.control_flow.cond", "didax.interpreters.jvp", "didax.lax"]]


def test_no_hidden_hooks() -> None:
    bad = [f"{h.module}:{h.line}: {h.what}" for h in all_hooks()]
    assert not bad, "hidden hooks (use a declared extension point, STYLE §2):\n" + "\n".join(bad)


def test_the_scanner_sees_hidden_hooks(tmp_path: Path) -> None:
    # guards against a hook scanner that finds nothing: the hooks this test was written for
    source = (
        "from didax import array, core\n"
        "import didax.runtime.distributed as dist\n"
        "from didax.core import operator_table\n"
        "from didax.runtime.client import global_state\n"
        "array.sharding_of = f\n"
        "dist.client_started = f\n"
        "global_state.client = f\n"
        "dist.global_state.service = f\n"
        "setattr(core, 'apply_split', f)\n"
        "core.operator_table['devices'] = f\n"
        "y = operator_table['multiply'](x, 2)\n"
        "local.attr = f\n"
    )
    path = ROOT / "core" / "primitives" / "_scanner_probe.py"  # a path inside the package
    found = [h.what for h in _hooks(path, source)]
    assert found == [
        "didax.array.sharding_of =",
        "didax.runtime.distributed.client_started =",
        "didax.runtime.client.global_state.client =",
        "didax.runtime.distributed.global_state.service =",
        "setattr(didax.core, ...)",
        "operator_table[...] =",
        "operator_table[...] lookup below didax.numpy",
    ]
