"""Every first-order primitive in `didax.primitives` and the collectives' families of
`didax.parallel` and `didax.compile`, and `didax.lax.incomplete_gamma` (the families behind
`didax.lax`) has a rule in each standard table, except the named, commented exemptions below. An exemption that is no longer needed (the rule exists)
fails too, so these sets stay current."""

from __future__ import annotations

import importlib
import pkgutil

import didax.primitives
import pytest
from didax import core

# First-order families that live beside the layer-4 code that uses them.
OTHER_FAMILIES = [
    "didax.parallel.collectives",
    "didax.parallel.exchanges",
    "didax.compile.sharding_constraint",
    "didax.lax.incomplete_gamma",  # lowered by tracing while loops, as JAX's lower_fun
]


def _lax_primitives() -> dict[str, core.Primitive]:
    found: dict[str, core.Primitive] = {}
    names = [
        info.name for info in pkgutil.walk_packages(didax.primitives.__path__, "didax.primitives.")
    ]
    for name in [*names, *OTHER_FAMILIES]:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, core.Primitive):
                other = found.setdefault(value.name, value)
                assert other is value, f"two lax primitives are named {value.name!r}"
    return found


PRIMS = _lax_primitives()

# ----------------------------------------------------------------------------- exemptions

# Primitives that take no operands: nothing to differentiate.
NO_OPERANDS = {"iota", "iota_2x32_shape", "axis_index", "empty"}

# JAX 0.10.2 has no derivative for these collectives and functions either ("Differentiation
# rule for 'pmax' not implemented"): didax raises NotImplementedError, as JAX does.
NO_DERIVATIVE_IN_JAX = {"pmax", "pmin", "geqrf", "zeta", "igamma_grad_a"}
NO_DERIVATIVE_IN_JAX |= {"schur", "hessenberg", "householder_product"}

# Not linear in any operand, so reverse mode never transposes them: their jvp rules write
# the tangent with linear primitives (mul, select_n, ...) instead.
NONLINEAR = {
    "atan2",
    "sin",
    "cos",
    "tan",
    "tanh",
    "exp",
    "expm1",
    "log",
    "log1p",
    "logistic",
    "sqrt",
    "pow",
    "integer_pow",
    "abs",
    "max",
    "min",
    "clamp",
    "rem",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "erf_inv",
    "erf",
    "erfc",
    "atanh",
    "bessel_i0e",
    "bessel_i1e",
    "asinh",
    "acosh",
    "sinh",
    "cosh",
    "asin",
    "acos",
    "atan",
    "square",
    "rsqrt",
    "lgamma",
    "digamma",
    "polygamma",
    "igamma",
    "igammac",
    "regularized_incomplete_beta",
    # scatter-min/max pick a winner (their jvp selects and scatter-adds tangents)
    "scatter-min",
    "scatter-max",
    # factorizations (triangular_solve is linear in b only, and has its rule)
    "cholesky",
    "lu",
    "qr",
    "eig",
    "eigh",
    "svd",
    # windowed extrema: their jvp is select_and_gather_add, which has the transpose rule
    "reduce_window_max",
    "reduce_window_min",
    # top_k picks entries: its jvp gathers the tangent at the chosen indices
    "top_k",
    "cumprod",
    "cummax",
    "cummin",
    "cumlogsumexp",
    "cbrt",
    "exp2",
}

# Piecewise constant: the tangent is a symbolic zero, so no linear use reaches transpose.
ZERO_DERIVATIVE = {
    "floor",
    "ceil",
    "round",
    "sign",
    "argmax",
    "argmin",
    "stop_gradient",
    "nextafter",
    # bitwise reductions of booleans and integers
    "reduce_and",
    "reduce_or",
    "reduce_xor",
}

# Integer bit manipulation and hashing (lax/bits.py): integer results, zero tangents.
BITS = {
    "shift_left",
    "shift_right_logical",
    "shift_right_arithmetic",
    "xor",
    "bitcast_convert_type",
    "threefry2x32",
    "population_count",
    "clz",
    "mulhi",
}

# Boolean outputs (comparisons, logic): not differentiable; tangents are symbolic zeros.
BOOLEAN = {"eq", "ne", "gt", "ge", "lt", "le", "is_finite", "and", "or", "not"}

# Effects only: debug_print and debug_callback have no outputs; their jvp drops the tangents.
EFFECTS = {"debug_print", "debug_callback"}

# Refs (primitives/refs.py): no lowering (a compiled program is discharged first), no transpose
# (a ref's tangent is a box, updated functionally: no ref equation is linear); `empty_ref`
# and `free_ref` have no jvp or vmap rule (JAX's neither: `empty_ref` only stages).
REFS = {"new_ref", "empty_ref", "get", "swap", "addupdate", "freeze", "free_ref"}
REFS_UNTRANSFORMED = {"empty_ref", "free_ref"}

EXEMPT: dict[str, set[str]] = {
    "impl": set(),
    "abstract_eval": set(),
    "jvp": NO_OPERANDS | NO_DERIVATIVE_IN_JAX | REFS_UNTRANSFORMED,
    "transpose": NO_OPERANDS
    | REFS
    | NONLINEAR
    | ZERO_DERIVATIVE
    | BOOLEAN
    | BITS
    | EFFECTS
    | NO_DERIVATIVE_IN_JAX,
    "vmap": REFS_UNTRANSFORMED,
    # Lowering rules come with core/interpreters/lowering.py (jit); list here any primitive
    # still waiting for one.
    "lowering": REFS,
}

TABLES = {
    t.interpreter: t
    for t in (
        core.impl_rules,
        core.abstract_eval_rules,
        core.jvp_rules,
        core.transpose_rules,
        core.vmap_rules,
        core.lowering_rules,
    )
}


def test_found_the_primitives() -> None:
    # a sanity floor: the scan sees the families' primitives
    assert {
        "add",
        "sin",
        "reduce_sum",
        "dot_general",
        "convert_element_type",
        "select_n",
        "broadcast_in_dim",
    } <= set(PRIMS)


def test_exemptions_name_real_primitives() -> None:
    for table, names in EXEMPT.items():
        assert names <= set(PRIMS), f"{table}: unknown {sorted(names - set(PRIMS))}"


@pytest.mark.parametrize("table", sorted(TABLES))
def test_every_primitive_has_a_rule(table: str) -> None:
    rules = TABLES[table]
    missing = sorted(n for n, p in PRIMS.items() if p not in rules and n not in EXEMPT[table])
    assert not missing, f"no {table} rule for {missing}"


@pytest.mark.parametrize("table", sorted(TABLES))
def test_exemptions_are_still_needed(table: str) -> None:
    rules = TABLES[table]
    stale = sorted(n for n in EXEMPT[table] if PRIMS[n] in rules)
    assert not stale, f"{table} rules now exist for {stale}: drop them from the exemptions"


def test_linear_primitives_have_transpose_rules() -> None:
    # the converse check, spelled out: these are linear in (some of) their operands
    linear = {
        "add",
        "add_any",
        "sub",
        "neg",
        "mul",
        "div",
        "convert_element_type",
        "broadcast_in_dim",
        "reshape",
        "transpose",
        "squeeze",
        "slice",
        "pad",
        "concatenate",
        "reduce_sum",
        "dot_general",
        "select_n",
    }
    assert linear <= set(PRIMS)
    assert all(PRIMS[n] in core.transpose_rules for n in linear)
