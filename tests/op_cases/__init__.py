"""The case tables of didax's public ops (STYLE §11), one module per primitive family, shared
by the eval, jit, jvp, grad, vmap, jaxpr and oracle tests.

Each `OpCase` names a function of `didax.numpy`, `didax.nn`, `didax.lax` or
`didax.lax.linalg` (and the JAX function of the same name), its arguments (`Arr` specs for
arrays, anything else is passed as it is: Python scalars to exercise weak types, shapes,
dtypes), its keyword arguments and whether it is differentiable and linear in its float array
arguments. `case.make_inputs(rng)` builds the arguments; `case.didax_fn` / `case.jax_fn` call
the function on them. Importing this package never imports `jax`.

    for case in CASES:
        args = case.make_inputs(np.random.default_rng(case.seed))
        out = case.didax_fn(*args)

A new primitive gets rows in its family's table (a new family: a module here, added to
`FAMILIES`); `tests/lax/test_op_case_coverage.py` fails naming a registered primitive that no
case stages.
"""

from __future__ import annotations

from op_cases import (
    conv,
    creation,
    cumulative,
    decompositions,
    elementwise,
    linalg,
    nn,
    reductions,
    shapes,
    slicing,
    windows,
)
from op_cases.spec import Arr, OpCase, close_over

__all__ = ["CASES", "FAMILIES", "Arr", "OpCase", "close_over"]

FAMILIES = {
    "creation": creation.CASES,
    "elementwise": elementwise.CASES,
    "reductions": reductions.CASES,
    "linalg": linalg.CASES,
    "decompositions": decompositions.CASES,
    "windows": windows.CASES,
    "shapes": shapes.CASES,
    "slicing": slicing.CASES,
    "cumulative": cumulative.CASES,
    "conv": conv.CASES,
    "nn": nn.CASES,
}
CASES: list[OpCase] = [case for cases in FAMILIES.values() for case in cases]

_IDS = [c.id for c in CASES]
assert len(set(_IDS)) == len(_IDS), "case ids must be unique"
