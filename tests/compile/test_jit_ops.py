"""`jit(f) == f` for every case of the case table (`op_cases.CASES`), hence for every
first-order primitive, dtype and shape it covers; and, for the `lax` cases, `didax.jit`
against `jax.jit` (oracle).

The array arguments of a case are the jitted function's arguments; its other arguments
(Python scalars, shapes, dtypes) are closed over, as a user writes `jit(lambda x: x * 2.0)`.
XLA compiles each program in tens of milliseconds, so the cases of one function are compiled
together, as one program: a failing member is then run alone to name it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import didax
import ml_dtypes
import numpy as np
import pytest
from didax.primitives import comparison, convert, dot, elementwise, reductions, shape
from didax.tree_util import tree_leaves
from op_cases import CASES, OpCase

# Cases that eager didax runs but that fail to stage (a bug outside compilation): each is an
# xfail(strict) so that its test reports when the bug is fixed.
STAGING_BUGS: dict[str, str] = {}


def _as_function(case: OpCase, args: list[Any]) -> tuple[Callable[..., Any], list[Any]]:
    """The case as a function of its array arguments only (the others closed over)."""
    fn, positions = case.didax_fn, case.array_positions

    def call(*arrays: Any) -> Any:
        full = list(args)
        for i, x in zip(positions, arrays, strict=True):
            full[i] = x
        return fn(*full)

    return call, [args[i] for i in positions]


EAGER_CASES = [c for c in CASES if c.raises is None]
GROUPS: dict[str, list[OpCase]] = defaultdict(list)
for _case in EAGER_CASES:
    if _case.id not in STAGING_BUGS:
        GROUPS[f"{_case.module}.{_case.name}"].append(_case)


# (rtol, atol) by result dtype: API.md's for float32; JAX's own test tolerances for the rest.
TOLERANCES = {
    np.dtype(np.float32): (1e-4, 1e-5),
    np.dtype(np.complex64): (1e-4, 1e-5),
    np.dtype(np.float16): (1e-3, 1e-3),
    np.dtype(ml_dtypes.bfloat16): (1e-2, 1e-2),
}


def assert_close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        rtol, atol = TOLERANCES[want.dtype]
        wide = np.complex64 if want.dtype.kind == "c" else np.float32  # both parts compared
        np.testing.assert_allclose(
            got.astype(wide),
            want.astype(wide),
            rtol=rtol,
            atol=atol,
            equal_nan=True,
            err_msg=what,
        )


def assert_same(got: Any, want: Any, what: str) -> None:
    got_leaves, want_leaves = tree_leaves(got), tree_leaves(want)
    assert len(got_leaves) == len(want_leaves), what
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert isinstance(g, didax.Array), f"{what}: jit returned {type(g).__name__}"
        ga, wa = didax.core.get_aval(g), didax.core.get_aval(w)
        assert ga == wa, f"{what}: jit gives {ga!r}, eager {wa!r}"
        assert_close(np.asarray(g), np.asarray(w), what)


_RESULTS: dict[str, list[tuple[OpCase, Any, Any]]] = {}


def _group_results(group: str) -> list[tuple[OpCase, Any, Any]]:
    """`_run_group` of a group, run once: the eager test and the JAX oracle test of a `lax`
    group compare the same results (xdist runs a module's tests in one process)."""
    if group not in _RESULTS:
        _RESULTS[group] = _run_group(GROUPS[group])
    return _RESULTS[group]


def _run_group(cases: list[OpCase]) -> list[tuple[OpCase, Any, Any]]:
    """(case, eager result, jit result) for each case that runs eagerly; all jitted
    together."""
    members = []
    for case in cases:
        args = case.make_inputs(np.random.default_rng(case.seed))
        fn, arrays = _as_function(case, args)
        try:
            want = fn(*arrays)
        except Exception:  # noqa: BLE001, S112 - eager didax's errors are the oracle's business
            continue
        members.append((case, fn, arrays, want))
    assert members, "no case of this group runs eagerly"
    fns = [m[1] for m in members]

    def program(all_arrays: list[list[Any]]) -> list[Any]:
        return [fn(*arrays) for fn, arrays in zip(fns, all_arrays, strict=True)]

    got = didax.jit(program)([m[2] for m in members])
    return [(case, want, out) for (case, _, _, want), out in zip(members, got, strict=True)]


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_jit_matches_eager(group: str) -> None:
    for case, want, got in _group_results(group):
        assert_same(got, want, case.id)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=STAGING_BUGS[c.id]), id=c.id)
        for c in EAGER_CASES
        if c.id in STAGING_BUGS
    ],
)
def test_jit_matches_eager_known_bugs(case: OpCase) -> None:
    for _, want, got in _run_group([case]):
        assert_same(got, want, case.id)


def test_every_first_order_primitive_has_a_lowering_rule() -> None:
    modules = [convert, shape, comparison, elementwise, reductions, dot]
    prims = [p for m in modules for p in vars(m).values() if isinstance(p, didax.core.Primitive)]
    assert len(prims) > 40
    missing = [p.name for p in prims if p not in didax.core.lowering_rules]
    assert not missing, f"primitives without a lowering rule: {missing}"


# ----------------------------------------------------------------------------- oracle

LAX_GROUPS = sorted(g for g in GROUPS if g.startswith("lax."))


@pytest.mark.oracle
@pytest.mark.parametrize("group", LAX_GROUPS)
def test_jit_matches_jax_jit(group: str) -> None:
    jax = pytest.importorskip("jax")
    results = _group_results(group)
    jax_fns, jax_inputs = [], []
    for case, _, _ in results:
        args = case.make_inputs(np.random.default_rng(case.seed))
        fn, positions = case.jax_fn, case.array_positions
        jax_fns.append(
            lambda *xs, fn=fn, args=args, positions=positions: fn(
                *[xs[positions.index(i)] if i in positions else a for i, a in enumerate(args)]
            )
        )
        jax_inputs.append([args[i] for i in positions])

    want = jax.jit(lambda all_inputs: [f(*xs) for f, xs in zip(jax_fns, all_inputs)])(jax_inputs)
    for (case, _, got), w in zip(results, want, strict=True):
        for g, wl in zip(tree_leaves(got), jax.tree_util.tree_leaves(w), strict=True):
            assert g.shape == wl.shape and g.dtype == wl.dtype, case.id
            assert g.weak_type == wl.weak_type, case.id
            assert_close(np.asarray(g), np.asarray(wl), case.id)
