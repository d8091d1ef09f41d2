"""Eager operations on split Arrays: `x * 2` on an Array split over a mesh runs as a jitted
function of the one primitive, so one program XLA partitions over the mesh (JAX's
`apply_primitive`). The eval interpreter asks for it through `core.set_split_evaluator`, the
declared extension point this module fills at import (`didax/__init__.py` imports it).

Layer 4 (compile/), after jit.py, whose `JitFunction` runs each primitive.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Sequence
from typing import Any

from didax import core
from didax.compile import jit

# The jitted primitives that eager operations on split Arrays run, by primitive and params
# (least recently used dropped first): each keeps its programs by operand types and shardings.
# Bounded at EAGER_CACHE_SIZE entries; module-level because eager operations (`x * 2` on a
# split Array) have no jit object to own them.
EAGER_CACHE_SIZE = 256
_eager_jits: collections.OrderedDict[tuple, jit.JitFunction | None] = collections.OrderedDict()
_eager_jits_lock = threading.Lock()


def apply_split(primitive: core.Primitive, operands: Sequence[Any], params: dict) -> Any:
    """Evaluate `primitive` on operands of which one or more is an Array split over a mesh,
    as JAX's `apply_primitive` does: as a jitted function of the one primitive (cached by
    primitive and params), so one program that XLA partitions over the mesh, compiled once
    per operand types and shardings, its results split as XLA chooses. Other operands (host
    values, Python scalars) are placed as the program takes them. None (declined: the eval
    interpreter gathers the operands and runs the impl rule) for a primitive with no lowering
    rule, one that is its own program (`shard_map`), one with an effect, unhashable params,
    or one didax cannot compile partitioned (`NotImplementedError`: a nested jit printing)."""
    if (
        primitive not in core.lowering_rules
        or primitive in core.own_program
        or primitive in core.effectful
    ):
        return None
    # (a param's type is in the key: True == 1, but they are not the same param)
    key = (primitive, *[(k, type(v), v) for k, v in sorted(params.items())])
    try:
        hash(key)
    except TypeError:
        return None
    with _eager_jits_lock:
        jitted = _eager_jits.get(key, _NEW)
        if jitted is _NEW:
            jitted = _eager_jits[key] = jit.JitFunction(_applied(primitive, params), share=False)
            if len(_eager_jits) > EAGER_CACHE_SIZE:
                _eager_jits.popitem(last=False)
        else:
            _eager_jits.move_to_end(key)
    if jitted is None:
        return None
    try:
        out = jitted(*operands)
    except NotImplementedError:
        # a program didax cannot partition (a nested jit printing with `debug.print`): this
        # primitive and params are declined from now on, and evaluated as before
        with _eager_jits_lock:
            _eager_jits[key] = None
        return None
    return list(out) if primitive.multiple_results else [out]


_NEW: Any = object()  # no entry yet (None in `_eager_jits`: declined)


def _applied(primitive: core.Primitive, params: dict) -> Callable[..., Any]:
    def apply(*operands: Any) -> Any:
        return primitive.bind(*operands, **params)

    apply.__name__ = apply.__qualname__ = primitive.name
    return apply


core.set_split_evaluator(apply_split)
