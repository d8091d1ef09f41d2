"""Oracle: the lax primitives under `didax.random` against `jax.lax`: shifts, `xor`,
`bitcast_convert_type`, `sort`/`sort_key_val`, `erf_inv`, `erf`, `nextafter` and the
`threefry2x32` hash. Values eagerly and under `jit` (bit for bit where the op is exact), the
batching rules under `vmap`, derivatives where they exist, and the jaxpr text JAX prints.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import didax
import didax.lax as dlax
import numpy as np
import pytest
from didax.primitives import bits as dbits

jax = pytest.importorskip("jax")
jlax = pytest.importorskip("jax.lax")

pytestmark = pytest.mark.oracle

_rng = np.random.default_rng(3)
U = _rng.integers(0, 2**32, (4, 5), dtype=np.uint32)
S = np.uint32([0, 1, 7, 31, 32, 33, 255, 2**31])  # shift amounts, out of range included
I = _rng.integers(-(2**31), 2**31, (8,), dtype=np.int64).astype(np.int32)
F = np.float32([[3.0, -1.0, np.nan, 0.0], [-0.0, 2.5, -np.inf, 1.0], [1.0, 1.0, -2.0, np.inf]])
P = _rng.uniform(-1, 1, (6,)).astype(np.float32)


def _exact(d: Any, j: Any) -> None:
    d_np, j_np = np.asarray(d), np.asarray(j)
    assert d_np.dtype == j_np.dtype and d_np.shape == j_np.shape, (d_np, j_np)
    assert np.array_equal(d_np.reshape(-1).view(np.uint8), j_np.reshape(-1).view(np.uint8)), (
        d_np,
        j_np,
    )


def _jax_threefry(*args: Any) -> Any:
    from jax._src.random import threefry2x32 as t  # noqa: PLC0415 - JAX's private module

    return t.threefry2x32_p.bind(*args)


# (name, didax fn, jax fn, args): exact in both modes
EXACT: list[tuple[str, Callable, Callable, tuple]] = [
    ("shift_left", dlax.shift_left, jlax.shift_left, (U[0, :1].repeat(8), S)),
    (
        "shift_right_logical",
        dlax.shift_right_logical,
        jlax.shift_right_logical,
        (U[1, :1].repeat(8), S),
    ),
    (
        "shift_right_arithmetic",
        dlax.shift_right_arithmetic,
        jlax.shift_right_arithmetic,
        (I, S.astype(np.int32)),
    ),
    ("shift_left_i32", dlax.shift_left, jlax.shift_left, (I, S.astype(np.int32))),
    (
        "shift_right_logical_i32",
        dlax.shift_right_logical,
        jlax.shift_right_logical,
        (I, S.astype(np.int32)),
    ),
    (
        "shift_right_logical_i32_scalar",
        dlax.shift_right_logical,
        jlax.shift_right_logical,
        (np.int32(-8), np.int32(2)),
    ),
    ("xor", dlax.bitwise_xor, jlax.bitwise_xor, (U, U[::-1])),
    ("xor_i32", dlax.bitwise_xor, jlax.bitwise_xor, (I, I[::-1])),
    (
        "bitcast_f32_u32",
        lambda x: dlax.bitcast_convert_type(x, np.uint32),
        lambda x: jlax.bitcast_convert_type(x, np.uint32),
        (F,),
    ),
    (
        "bitcast_u32_f32",
        lambda x: dlax.bitcast_convert_type(x, np.float32),
        lambda x: jlax.bitcast_convert_type(x, np.float32),
        (U,),
    ),
    (
        "bitcast_u32_u16",
        lambda x: dlax.bitcast_convert_type(x, np.uint16),
        lambda x: jlax.bitcast_convert_type(x, np.uint16),
        (U,),
    ),
    (
        "bitcast_u8_i32",
        lambda x: dlax.bitcast_convert_type(x, np.int32),
        lambda x: jlax.bitcast_convert_type(x, np.int32),
        (U.view(np.uint8).reshape(4, 5, 4),),
    ),
    ("sort", dlax.sort, jlax.sort, (F,)),
    ("sort_dim0", lambda x: dlax.sort(x, dimension=0), lambda x: jlax.sort(x, dimension=0), (F,)),
    ("sort_u32", dlax.sort, jlax.sort, (U,)),
    (
        "sort_key_val",
        dlax.sort_key_val,
        jlax.sort_key_val,
        (U % 3, np.arange(20, dtype=np.float32).reshape(4, 5)),
    ),
    (
        "sort_two_keys",
        lambda a, b, c: dlax.sort((a, b, c), num_keys=2),
        lambda a, b, c: jlax.sort((a, b, c), num_keys=2),
        (U % 2, U % 3, U),
    ),
    (
        "nextafter",
        dlax.nextafter,
        jlax.nextafter,
        (P, np.float32([np.inf, -np.inf, 0, 1, -1, 0.5])),
    ),
    ("threefry2x32", lambda *a: dbits.threefry2x32(*a), _jax_threefry, (U[0], U[1], U[2], U[3])),
]
EXACT_IDS = [c[0] for c in EXACT]


@pytest.mark.parametrize("case", EXACT, ids=EXACT_IDS)
def test_exact_eager_and_jit(case: tuple) -> None:
    _, dfn, jfn, args = case
    want = jfn(*args)
    for got in (dfn(*args), didax.jit(dfn)(*args)):
        if isinstance(want, (list, tuple)):
            assert len(got) == len(want)
            for g, w in zip(got, want, strict=True):
                _exact(g, w)
        else:
            _exact(got, want)


@pytest.mark.parametrize("case", EXACT, ids=EXACT_IDS)
def test_vmap_matches_jax(case: tuple) -> None:
    _, dfn, jfn, args = case
    batched = tuple(np.stack([a, a[::-1] if np.ndim(a) else a]) for a in args)
    want = jax.vmap(jfn)(*batched)
    got = didax.vmap(dfn)(*batched)
    for g, w in zip(
        *(v if isinstance(v, (list, tuple)) else [v] for v in (got, want)), strict=True
    ):
        _exact(g, w)


@pytest.mark.parametrize("fn", ["erf_inv", "erf"])
def test_special_functions(fn: str) -> None:
    x = np.concatenate([P, np.float32([0.0, 0.999, -0.999])])
    want = getattr(jlax, fn)(x)
    _exact(didax.jit(getattr(dlax, fn))(x), want)  # compiled: the same XLA expansion
    np.testing.assert_allclose(np.asarray(getattr(dlax, fn)(x)), np.asarray(want), rtol=1e-6)
    np.testing.assert_allclose(
        np.asarray(didax.vmap(didax.grad(getattr(dlax, fn)))(x)),
        np.asarray(jax.vmap(jax.grad(getattr(jlax, fn)))(x)),
        rtol=1e-5,
    )


def test_erf_inv_edges() -> None:
    x = np.float32([-1.0, 1.0, 0.0, 2.0])
    np.testing.assert_array_equal(np.asarray(dlax.erf_inv(x)), np.asarray(jlax.erf_inv(x)))


def test_sort_jvp_and_grad() -> None:
    x = np.float32([3.0, 1.0, 2.0, -1.0])
    t = np.float32([1.0, 2.0, 3.0, 4.0])
    for d, j in zip(didax.jvp(dlax.sort, (x,), (t,)), jax.jvp(jlax.sort, (x,), (t,)), strict=True):
        _exact(d, j)
    f_d = lambda v: (dlax.sort(v) * np.arange(4.0, dtype=np.float32)).sum()  # noqa: E731
    f_j = lambda v: (jlax.sort(v) * np.arange(4.0, dtype=np.float32)).sum()  # noqa: E731
    np.testing.assert_allclose(np.asarray(didax.grad(f_d)(x)), np.asarray(jax.grad(f_j)(x)))
    g_d = lambda k, v: (dlax.sort_key_val(k, v)[1] * np.arange(4.0, dtype=np.float32)).sum()  # noqa: E731
    g_j = lambda k, v: (jlax.sort_key_val(k, v)[1] * np.arange(4.0, dtype=np.float32)).sum()  # noqa: E731
    np.testing.assert_allclose(
        np.asarray(didax.jit(didax.grad(g_d, argnums=1))(t, x)),
        np.asarray(jax.grad(g_j, argnums=1)(t, x)),
    )


# (name, didax fn, jax fn, args): the jaxpr text must be JAX's
JAXPRS = [
    ("sort", dlax.sort, jlax.sort, (P,)),
    ("sort_key_val", dlax.sort_key_val, jlax.sort_key_val, (P, P)),
    (
        "bitcast",
        lambda x: dlax.bitcast_convert_type(x, np.uint32),
        lambda x: jlax.bitcast_convert_type(x, np.uint32),
        (P,),
    ),
    (
        "shift_left",
        lambda x: dlax.shift_left(x, np.uint32(3)),
        lambda x: jlax.shift_left(x, np.uint32(3)),
        (U[0],),
    ),
    ("shift_right_logical", dlax.shift_right_logical, jlax.shift_right_logical, (U[0], U[1])),
    ("xor", dlax.bitwise_xor, jlax.bitwise_xor, (U[0], U[1])),
    ("erf_inv", dlax.erf_inv, jlax.erf_inv, (P,)),
    ("erf", dlax.erf, jlax.erf, (P,)),
    ("nextafter", dlax.nextafter, jlax.nextafter, (P, P)),
    ("threefry2x32", lambda *a: dbits.threefry2x32(*a), _jax_threefry, (U[0], U[1], U[2], U[3])),
]


@pytest.mark.parametrize("case", JAXPRS, ids=[c[0] for c in JAXPRS])
def test_jaxpr_text(case: tuple) -> None:
    _, dfn, jfn, args = case
    assert str(didax.make_jaxpr(dfn)(*args)) == str(jax.make_jaxpr(jfn)(*args))


@pytest.mark.parametrize(
    "call",
    [
        lambda lax: lax.shift_left(np.float32([1.0]), np.float32([1.0])),
        lambda lax: lax.shift_left(np.uint32([1]), np.int32([1])),
        lambda lax: lax.bitwise_xor(np.float32([1.0]), np.float32([1.0])),
        lambda lax: lax.bitcast_convert_type(np.uint8([1, 2, 3]), np.int32),
        lambda lax: lax.sort((np.float32([1.0, 2.0]), np.float32([1.0]))),
        lambda lax: lax.erf_inv(np.int32([1])),
    ],
)
def test_errors_as_jax(call: Callable[[Any], Any]) -> None:
    with pytest.raises(Exception) as want:
        call(jlax)
    with pytest.raises(want.type):
        call(dlax)


def test_threefry2x32_rejects_non_uint32_as_jax() -> None:
    args = (np.int32(1), np.uint32(1), np.uint32([1]), np.uint32([2]))
    with pytest.raises(TypeError):
        _jax_threefry(*args)
    with pytest.raises(TypeError, match="threefry2x32"):
        dbits.threefry2x32(*args)
    with pytest.raises(TypeError, match="threefry2x32"):
        didax.jit(dbits.threefry2x32)(*args)
