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
from helpers.grouped import Grouped
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
CHUNK = 8  # groups (in name order) compiled as one program
_FAILED_CHUNKS: set[int] = set()


def _group_results(group: str) -> list[tuple[OpCase, Any, Any]]:
    """The group's (case, eager result, jit result), computed once for the eager test and the
    JAX oracle test of a `lax` group (xdist runs a module's tests in one process), with the
    other groups of its chunk. If the chunk's program fails, each of its groups runs alone, so
    that a failure names its group. Checked when chunked (2026-11-26): every jit result has
    the bits its group's own program gives."""
    if group not in _RESULTS:
        names = sorted(GROUPS)
        start = names.index(group) // CHUNK * CHUNK
        try:
            if start in _FAILED_CHUNKS:
                raise RuntimeError("run alone")
            _RESULTS.update(_run_groups({g: GROUPS[g] for g in names[start : start + CHUNK]}))
        except Exception:  # noqa: BLE001 - rerun alone below, where it fails its own test
            _FAILED_CHUNKS.add(start)
            _RESULTS.update(_run_groups({group: GROUPS[group]}))
    return _RESULTS[group]


def _run_groups(groups: dict[str, list[OpCase]]) -> dict[str, list[tuple[OpCase, Any, Any]]]:
    """(case, eager result, jit result) for each case of each group that runs eagerly; all
    jitted together."""
    members = {group: _eager_members(cases) for group, cases in groups.items()}
    for group, ms in members.items():
        assert ms, f"no case of {group} runs eagerly"
    flat = [m for ms in members.values() for m in ms]
    fns = [m[1] for m in flat]

    def program(all_arrays: list[list[Any]]) -> list[Any]:
        return [fn(*arrays) for fn, arrays in zip(fns, all_arrays, strict=True)]

    got = iter(didax.jit(program)([m[2] for m in flat]))
    return {g: [(case, want, next(got)) for case, _, _, want in ms] for g, ms in members.items()}


def _eager_members(cases: list[OpCase]) -> list[tuple[OpCase, Any, list[Any], Any]]:
    """(case, its function of its arrays, the arrays, its eager result) for each case that
    runs eagerly."""
    members = []
    for case in cases:
        args = case.make_inputs(np.random.default_rng(case.seed))
        fn, arrays = _as_function(case, args)
        try:
            want = fn(*arrays)
        except Exception:  # noqa: BLE001, S112 - eager didax's errors are the oracle's business
            continue
        members.append((case, fn, arrays, want))
    return members


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
    for _, want, got in _run_groups({case.id: [case]})[case.id]:
        assert_same(got, want, case.id)


def test_every_first_order_primitive_has_a_lowering_rule() -> None:
    modules = [convert, shape, comparison, elementwise, reductions, dot]
    prims = [p for m in modules for p in vars(m).values() if isinstance(p, didax.core.Primitive)]
    assert len(prims) > 40
    missing = [p.name for p in prims if p not in didax.core.lowering_rules]
    assert not missing, f"primitives without a lowering rule: {missing}"


# ----------------------------------------------------------------------------- oracle

LAX_GROUPS = sorted(g for g in GROUPS if g.startswith("lax."))
LAX_CASES = [case for group in LAX_GROUPS for case in GROUPS[group]]


def _jax_calls() -> list[tuple[Any, list[Any]]]:
    """Each `lax` case as JAX's function of its array arguments, and those arrays."""
    calls = []
    for case in LAX_CASES:
        args = case.make_inputs(np.random.default_rng(case.seed))
        fn, positions = case.jax_fn, case.array_positions
        calls.append(
            (
                lambda *xs, fn=fn, args=args, positions=positions: fn(
                    *[xs[positions.index(i)] if i in positions else a for i, a in enumerate(args)]
                ),
                [args[i] for i in positions],
            )
        )
    return calls


def _jax_jit(fn: Any) -> Any:
    return pytest.importorskip("jax").jit(fn)


# JAX's answers, 48 cases to a `jax.jit` program (helpers/grouped.py). Checked when grouped
# (2026-11-26): every result has the bits of its group's own program.
JAX_RESULTS = Grouped(_jax_jit, _jax_calls, chunk=48)
LAX_INDEX = {case.id: i for i, case in enumerate(LAX_CASES)}


@pytest.mark.oracle
@pytest.mark.parametrize("group", LAX_GROUPS)
def test_jit_matches_jax_jit(group: str) -> None:
    jax = pytest.importorskip("jax")
    for case, _, got in _group_results(group):
        w = JAX_RESULTS.result(LAX_INDEX[case.id])
        for g, wl in zip(tree_leaves(got), jax.tree_util.tree_leaves(w), strict=True):
            assert g.shape == wl.shape and g.dtype == wl.dtype, case.id
            assert g.weak_type == wl.weak_type, case.id
            assert_close(np.asarray(g), np.asarray(wl), case.id)
