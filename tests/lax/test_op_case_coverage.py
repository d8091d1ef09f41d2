"""Every primitive didax registers is staged by some case of the op tables (`tests/op_cases/`),
so the eval, jit, jvp, grad, vmap, jaxpr and oracle tests that run those tables reach it;
the primitives no table can hold are named below, each with the reason and the tests that
cover it instead. An exemption that a table comes to stage fails too, so the list stays
current.

The primitives are found by walking every module of the `didax` package for `Primitive`
objects (the registry is the modules' globals: a primitive a user makes in a notebook is not
didax's); a case covers the primitives of `didax.make_jaxpr` of it, nested jaxprs included.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator

import didax
import numpy as np
import pytest
from didax import core
from didax.jaxpr import jaxprs_in_params
from op_cases import CASES, FAMILIES, close_over


def _registered() -> dict[str, core.Primitive]:
    found: dict[str, core.Primitive] = {}
    for info in pkgutil.walk_packages(didax.__path__, "didax."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, core.Primitive):
                other = found.setdefault(value.name, value)
                assert other is value, f"two primitives are named {value.name!r}"
    return found


def _names(jaxpr: core.Jaxpr) -> Iterator[str]:
    for eqn in jaxpr.eqns:
        yield eqn.primitive.name
        for inner in jaxprs_in_params(eqn.params):
            yield from _names(inner)


def _staged() -> dict[str, str]:
    """Each primitive some case stages, and the first such case's id."""
    staged: dict[str, str] = {}
    for case in CASES:
        if case.raises:
            continue
        args = case.make_inputs(np.random.default_rng(case.seed))
        fn, arrays = close_over(case.didax_fn, args, case.array_positions)
        for name in _names(didax.make_jaxpr(fn)(*arrays).jaxpr):
            staged.setdefault(name, case.id)
    return staged


# Primitives that need a named axis (an enclosing `vmap(axis_name=)`, `pmap` or `shard_map`):
# tests/parallel holds their tables (test_collectives_vmap.py, test_shard_map.py, ...).
NEED_AN_AXIS = {
    "psum",
    "psum_invariant",
    "pmax",
    "pmin",
    "ppermute",
    "all_gather",
    "all_to_all",
    "reduce_scatter",
    "axis_index",
    "pvary",
}

EXEMPT = {
    **{name: "needs a named axis: tests/parallel" for name in NEED_AN_AXIS},
    # made by reverse mode where two cotangents meet, never by a user's function; every
    # grad/vjp case of test_reverse_oracle runs it
    "add_any": "made by transposition: tests/autodiff/test_reverse_oracle.py",
    # a side effect (printing from the compiled program), no value to compare
    "debug_print": "prints, returns nothing: tests/compile/test_host_callback.py",
    # needs a mesh and a sharding to constrain to
    "sharding_constraint": "needs a mesh: tests/parallel/test_jit_shardings.py",
    # PRNG internals: reached through `didax.random`, whose keys are not arrays of a case
    "threefry2x32": "PRNG internals: tests/oracle/test_random_oracle.py",
    "iota_2x32_shape": "PRNG internals: tests/oracle/test_random_oracle.py",
    # higher-order primitives take functions, not arrays: their own oracle loops
    "cond": "takes functions: tests/control_flow/test_cond.py",
    "scan": "takes functions: tests/control_flow/test_scan.py",
    "custom_vmap_call": "takes functions: tests/control_flow/test_custom_batching_oracle.py",
    "custom_vjp_call": "takes functions: tests/autodiff/test_custom_derivatives.py",
    "custom_lin": "made by linearizing custom_vjp: tests/autodiff/test_custom_derivatives.py",
    "shard_map": "takes a function and a mesh: tests/parallel/test_shard_map.py",
    "remat2": "takes a function: tests/control_flow/test_checkpoint_oracle.py",
    # made by differentiating reduce_window_max/min (their jvp, and its transpose): their
    # values, grads and grad jaxprs against JAX in tests/lax/test_windows.py
    "select_and_gather_add": "made by jvp of reduce_window_max: tests/lax/test_windows.py",
    "select_and_scatter_add": "made by grad of reduce_window_max: tests/lax/test_windows.py",
    "random_gamma": "PRNG internals: tests/oracle/test_random_distributions_oracle.py",
    "reshard": "needs a mesh: tests/parallel",
    "pure_callback": "takes a Python callback: tests/control_flow/test_callbacks_oracle.py",
    "debug_callback": "takes a Python callback: tests/control_flow/test_callbacks_oracle.py",
    # mutable arrays: they take and make refs, not arrays
    **{
        name: "takes or makes refs: tests/api/test_ref_primitives_oracle.py"
        for name in ("new_ref", "empty_ref", "get", "swap", "addupdate", "freeze", "free_ref")
    },
}

REGISTERED = _registered()
STAGED = _staged()


def test_every_registered_primitive_is_in_a_table() -> None:
    missing = sorted(set(REGISTERED) - set(STAGED) - set(EXEMPT))
    assert not missing, (
        f"primitives in no op_cases table (add rows to its family in tests/op_cases/, or an "
        f"exemption with its reason here): {', '.join(missing)}"
    )


@pytest.mark.parametrize("name", sorted(EXEMPT))
def test_exemption_is_needed(name: str) -> None:
    assert name in REGISTERED, f"{name!r} is exempt but didax registers no such primitive"
    assert name not in STAGED, f"{name!r} is exempt but case {STAGED.get(name)} stages it"


def test_families_hold_their_cases() -> None:
    assert [c for cases in FAMILIES.values() for c in cases] == CASES
    assert all(FAMILIES.values()), "an empty family table"
