"""`jnp.nonzero`, `flatnonzero`, `argwhere` and `unique` against JAX: values, dtypes and
shapes with and without `size=` / `fill_value=` (ints, floats with NaNs, bools), `unique`'s
`return_index/inverse/counts`, the same under `jit` with `size=`, JAX's
ConcretizationTypeError without it, and `nonzero`'s jaxpr as JAX prints it."""

from __future__ import annotations

from functools import partial

import didax
import didax.numpy as jnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")
from helpers.grouped import Grouped
from helpers.jaxpr_text import canonical
from helpers.oracle import JaxOracle

pytestmark = pytest.mark.oracle

XS = [
    np.array([[0, 1, 2], [3, 0, 0]], np.int32),
    np.array([0.0, 2.0, np.nan, 2.0, -1.0, np.nan, 0.0], np.float32),
    np.array([True, False, True]),
    np.array([[5, 5], [5, 5]], np.int32),
]
IDS = ["int-2d", "float-nan", "bool", "constant"]

CALLS = [
    ("nonzero", {}),
    ("nonzero", dict(size=5)),
    ("nonzero", dict(size=2, fill_value=-1)),
    ("flatnonzero", {}),
    ("flatnonzero", dict(size=6)),
    ("argwhere", {}),
    ("argwhere", dict(size=4, fill_value=9)),
    ("unique", {}),
    ("unique", dict(size=5)),
    ("unique", dict(size=5, fill_value=-1)),
    ("unique", dict(return_index=True, return_inverse=True, return_counts=True)),
    (
        "unique",
        dict(size=5, fill_value=7, return_index=True, return_inverse=True, return_counts=True),
    ),
    ("unique", dict(size=1, return_counts=True)),
]


def _same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _same(g, w)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


def _jitted(calls: list, xs: list) -> tuple[Grouped, list]:
    """didax's `jit` of each call with a `size` on each input, as one program
    (helpers/grouped.py), and the (call, input) of each member, in order."""
    members = [(c, x) for c in calls if "size" in c[1] for x in xs]
    fns = lambda: [(partial(getattr(jnp, c[0]), **c[1]), (x,)) for c, x in members]  # noqa: E731
    return Grouped(didax.jit, fns), members


def _jit_result(jitted: tuple[Grouped, list], call: tuple, x: np.ndarray):
    grouped, members = jitted
    return grouped.result(next(i for i, m in enumerate(members) if m[0] is call and m[1] is x))


# checked when grouped (2026-11-26): every result has the bits of its own `jit`
JITTED = _jitted(CALLS, XS)


@pytest.mark.parametrize("x", XS, ids=IDS)
@pytest.mark.parametrize("call", CALLS, ids=[f"{n}-{'-'.join(k)}" for n, k in CALLS])
def test_values_eval_and_jit(x, call):
    name, kw = call
    want = _jax(name, x, kw)
    _same(getattr(jnp, name)(x, **kw), want)
    if "size" in kw:
        _same(_jit_result(JITTED, call, x), want)


@pytest.mark.parametrize("name", ["nonzero", "flatnonzero", "argwhere", "unique"])
def test_without_size_under_jit_is_a_concretization_error(name):
    x = XS[0]
    with pytest.raises(jax.errors.ConcretizationTypeError) as want:
        jax.jit(getattr(jjnp, name))(x)
    with pytest.raises(didax.errors.ConcretizationTypeError) as got:
        didax.jit(getattr(jnp, name))(x)
    assert str(want.value).splitlines()[1] == str(got.value).splitlines()[1]


def test_nonzero_of_a_scalar_is_an_error():
    for lib in (jjnp, jnp):
        with pytest.raises(ValueError, match="0d arrays"):
            lib.nonzero(3)


def test_nonzero_jaxpr_as_jax():
    got = str(didax.make_jaxpr(lambda x: jnp.nonzero(x, size=3))(XS[0]))
    want = str(jax.make_jaxpr(lambda x: jjnp.nonzero(x, size=3))(XS[0]))
    assert canonical(got) == canonical(want), got


# ----------------------------------------------------------------------------- unique(axis=)

ROWS = [
    np.array([[1, 2], [3, 4], [1, 2], [0, 5], [3, 4]], np.int32),
    np.array([[0.5, np.nan], [0.5, np.nan], [-1.0, 2.0], [0.5, 1.0]], np.float32),
    np.array([[[1, 0], [2, 2]], [[1, 0], [2, 2]], [[0, 9], [9, 0]]], np.int32),
    np.array([[True, False, True], [True, False, True]]),
]
AXIS_CALLS = [
    dict(axis=0),
    dict(axis=1),
    dict(axis=-1),
    dict(axis=0, return_index=True, return_inverse=True, return_counts=True),
    dict(axis=1, return_index=True, return_inverse=True, return_counts=True),
    dict(axis=0, size=4, fill_value=-1),
    dict(axis=0, size=5, return_index=True, return_inverse=True, return_counts=True),
    dict(axis=0, size=2, return_counts=True),
]


AXIS_TABLE = [("unique", kw) for kw in AXIS_CALLS]
AXIS_JITTED = _jitted(AXIS_TABLE, ROWS)  # checked as JITTED


@pytest.mark.parametrize("x", ROWS, ids=["int-rows", "float-nan-rows", "int-3d", "bool"])
@pytest.mark.parametrize(
    "index", range(len(AXIS_CALLS)), ids=[str(sorted(k.items())) for k in AXIS_CALLS]
)
def test_unique_along_an_axis(x, index):
    kw = AXIS_CALLS[index]
    want = _jax("unique", x, kw)
    _same(jnp.unique(x, **kw), want)
    if "size" in kw:
        _same(_jit_result(AXIS_JITTED, AXIS_TABLE[index], x), want)


def test_unique_inverse_of_a_matrix_keeps_its_shape():
    x = XS[0]
    _same(jnp.unique(x, return_inverse=True), jjnp.unique(x, return_inverse=True))
    _same(jnp.unique(x, axis=1, return_inverse=True), jjnp.unique(x, axis=1, return_inverse=True))


API_XS = [*XS, ROWS[1]]
API_NAMES = ["unique_all", "unique_counts", "unique_inverse", "unique_values"]
API_SIZE = dict(size=6, fill_value=0)


@pytest.mark.parametrize("x", API_XS, ids=[*IDS, "float-nan-rows"])
@pytest.mark.parametrize("name", API_NAMES)
@pytest.mark.parametrize("kw", [{}, API_SIZE], ids=["", "size"])
def test_unique_array_api_functions(x, name, kw):
    want = _jax(name, x, kw)
    got = getattr(jnp, name)(x, **kw)
    if isinstance(want, tuple):
        assert type(got).__name__ == type(want).__name__ and got._fields == want._fields
    _same(
        tuple(got) if isinstance(want, tuple) else got,
        tuple(want) if isinstance(want, tuple) else want,
    )


@pytest.mark.parametrize("equal_nan", [True, False])
def test_unique_equal_nan(equal_nan):
    x = XS[1]
    kw = dict(equal_nan=equal_nan, return_counts=True, return_inverse=True)
    _same(jnp.unique(x, **kw), jjnp.unique(x, **kw))


# ----------------------------------------------------------------------------- JAX's answers

# JAX's answers to the calls with a `size`, 16 to a compiled program (eagerly, each of JAX's
# operations is a compile of its own); a call without one has a data-dependent shape, which
# only eager JAX gives.
SIZED = [
    *((name, kw, x) for name, kw in CALLS if "size" in kw for x in XS),
    *(("unique", kw, x) for kw in AXIS_CALLS if "size" in kw for x in ROWS),
    *((name, API_SIZE, x) for name in API_NAMES for x in API_XS),
]
JAX_SIZED = JaxOracle.in_chunks(
    [((name, id(kw), id(x)), partial(getattr(jjnp, name), **kw), [x]) for name, kw, x in SIZED],
    16,
)


def _jax(name: str, x: np.ndarray, kw: dict):
    if "size" not in kw:
        return getattr(jjnp, name)(x, **kw)
    return JAX_SIZED.get((name, id(kw), id(x)))
