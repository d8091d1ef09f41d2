"""The hot paths live in one module (`didax/fast_path.py`), and every other Array is made by
`array.build` (through `eager_result`/`from_buffer`): an Array is built slot by slot in
`array.build` and the fast path's four inlined copies only, and those copies fill exactly the
slots `build` fills."""

from __future__ import annotations

import ast
from pathlib import Path

import didax
import didax.numpy as dnp
import numpy as np
from didax import array, fast_path, lax
from didax.array import Array

ROOT = Path(__file__).resolve().parent.parent
BUILDERS = {"core/array.py": 1, "core/fast_path.py": 4}  # where `new(Array)` may appear


def _array_constructions(path: Path) -> int:
    """Calls like `object.__new__(Array)`, `Array.__new__(Array)`, `_new(Array)`."""
    count = 0
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and node.args and ast.unparse(node.args[0]) == "Array":
            func = ast.unparse(node.func)
            if func.endswith("__new__") or "new" in func.lower():
                count += 1
    return count


def test_arrays_are_built_slot_by_slot_only_in_build_and_the_fast_path() -> None:
    found = {}
    for folder in ("core", "magics", "widgets", "display"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if n := _array_constructions(path):
                found[str(path.relative_to(ROOT))] = n
    assert found == BUILDERS


UNSET = object()


def _filled(x: Array) -> dict[str, object]:
    return {s: getattr(x, s, UNSET) for s in Array.__slots__ if s != "__weakref__"}


def test_the_inlined_builds_fill_what_build_fills() -> None:
    # eager closures: what `array.eager_result` (build with no buffer or aval) gives
    x = dnp.arange(3.0)
    for out in (lax.sin(x), x * x, x * 2.0):
        built = _filled(array.eager_result(out._value, out._weak))
        filled = _filled(out)
        assert [k for k, v in filled.items() if v is UNSET] == ["_sharding", "_gathered"]
        assert {k: v for k, v in filled.items() if k != "_value"} == {
            k: v for k, v in built.items() if k != "_value"
        }
        assert out._buffer is None and out._aval is None
    # launch closures, one output and a tree: what `array.from_buffer` gives
    one = didax.jit(lambda a: a + 1.0)
    tree = didax.jit(lambda a: (a + 1.0, [a * 2.0]))
    y = didax.device_put(np.ones(3, np.float32))
    one(y), tree(y)
    for out in (one(y), *didax.tree_util.tree_leaves(tree(y))):
        expected = _filled(array.from_buffer(out._buffer, out._aval))
        assert _filled(out) == expected


def test_jitted_functions_are_called_through_the_fast_path_module() -> None:
    assert type(didax.jit(lambda a: a)).__call__ is fast_path.jit_call
