"""Oracle: `didax.Array` against `jax.Array`: methods, operators, indexing and dtype rules.

Expressions that give arrays run once under didax (eagerly, on `didax.Array`s) and once
under JAX (all of them in one compiled program, see `helpers.oracle.JaxOracle`); shapes, dtypes,
weak types and values must agree. What reads an array on the host (`np.asarray`, `.item()`,
`.tolist()`, `len`, `repr`, ...) is compared with eager JAX arrays.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import didax
import didax.numpy as dnp
import ml_dtypes
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
from helpers.oracle import JaxOracle, assert_matches

pytestmark = pytest.mark.oracle

_rng = np.random.default_rng(7)
INPUTS = {
    "x": _rng.uniform(-2, 2, (2, 3)).astype(np.float32),
    "y": _rng.uniform(0.5, 2, (3,)).astype(np.float32),
    "z": _rng.uniform(-2, 2, (2, 3, 4)).astype(np.float32),
    "m": _rng.uniform(-2, 2, (3, 2)).astype(np.float32),
    "i": _rng.integers(-5, 6, (2, 3)).astype(np.int32),
    "b": _rng.random((2, 3)) < 0.5,
    "s": np.float32(1.25),
    "h": _rng.uniform(-2, 2, (3,)).astype(ml_dtypes.bfloat16),
    "d": _rng.uniform(-2, 2, (3,)),  # float64: taken as float32
    "l": _rng.integers(-5, 6, (3,)),  # int64: taken as int32
    "u": _rng.uniform(-2, 2, (1, 3, 1)).astype(np.float32),
}
NP_X = _rng.uniform(-2, 2, (2, 3)).astype(np.float32)  # a NumPy operand of reflected ops
NP_M = _rng.uniform(-2, 2, (3, 2)).astype(np.float32)

# name -> expression of (namespace, arrays); `a.x` is a didax.Array or a JAX array
EXPRESSIONS: dict[str, Callable[[Any, Any], Any]] = {
    # methods
    "T": lambda m, a: a.x.T,
    "T_3d": lambda m, a: a.z.T,
    "reshape_args": lambda m, a: a.x.reshape(3, 2),
    "reshape_tuple": lambda m, a: a.x.reshape((3, 2)),
    "reshape_minus_one": lambda m, a: a.z.reshape(-1, 4),
    "astype_int32": lambda m, a: a.x.astype(m.int32),
    "astype_np_float32": lambda m, a: a.i.astype(np.float32),
    "astype_bool": lambda m, a: a.i.astype(m.bool_),
    "sum": lambda m, a: a.x.sum(),
    "sum_axis": lambda m, a: a.x.sum(axis=0),
    "sum_int": lambda m, a: a.i.sum(1),
    "sum_bool": lambda m, a: a.b.sum(),
    "mean": lambda m, a: a.x.mean(),
    "mean_keepdims": lambda m, a: a.x.mean(axis=1, keepdims=True),
    "mean_int": lambda m, a: a.i.mean(0),
    "max": lambda m, a: a.x.max(),
    "max_axis": lambda m, a: a.z.max(axis=(0, 2)),
    "min": lambda m, a: a.x.min(axis=-1),
    "min_int": lambda m, a: a.i.min(),
    "transpose": lambda m, a: a.z.transpose(),
    "transpose_args": lambda m, a: a.z.transpose(2, 0, 1),
    "transpose_tuple": lambda m, a: a.z.transpose((1, 0, 2)),
    "squeeze": lambda m, a: a.u.squeeze(),
    "squeeze_axis": lambda m, a: a.u.squeeze(0),
    # operators
    "add": lambda m, a: a.x + a.y,
    "sub": lambda m, a: a.x - a.y,
    "mul": lambda m, a: a.x * a.y,
    "div": lambda m, a: a.x / a.y,
    "pow": lambda m, a: a.y**a.y,
    "pow_int": lambda m, a: a.x**3,
    "pow_float": lambda m, a: a.y**0.5,
    "matmul": lambda m, a: a.x @ a.m,
    "matmul_vec": lambda m, a: a.x @ a.y,
    "neg": lambda m, a: -a.x,
    "neg_int": lambda m, a: -a.i,
    "int_div": lambda m, a: a.i / a.i.astype(m.float32).max(),
    "lt": lambda m, a: a.x < a.y,
    "le": lambda m, a: a.x <= 0.5,
    "gt": lambda m, a: a.x > a.i,
    "ge": lambda m, a: a.i >= 0,
    "eq": lambda m, a: a.i == a.i.T.T,
    "ne": lambda m, a: a.x != a.y,
    # Python scalars are weakly typed
    "f32_times_float": lambda m, a: a.x * 2.0,
    "f32_times_int": lambda m, a: a.x * 2,
    "int32_times_float": lambda m, a: a.i * 2.0,
    "int32_plus_int": lambda m, a: a.i + 3,
    "int32_div_int": lambda m, a: a.i / 2,
    "bf16_times_int": lambda m, a: a.h * 2,
    "bf16_plus_float": lambda m, a: a.h + 1.5,
    "bf16_plus_f32": lambda m, a: a.h + a.y,
    "scalar_plus_float": lambda m, a: a.s + 1.0,
    "float64_input": lambda m, a: a.d * 1.0,
    "int64_input": lambda m, a: a.l + 1,
    "float64_plus_int64": lambda m, a: a.d + a.l,
    # reflected operators: Python scalars and NumPy arrays on the left
    "radd": lambda m, a: 1.5 + a.x,
    "rsub": lambda m, a: 1.5 - a.x,
    "rmul_int": lambda m, a: 3 * a.i,
    "rdiv": lambda m, a: 1.0 / a.y,
    "rpow": lambda m, a: 2.0**a.x,
    "np_rmul": lambda m, a: NP_X * a.x,
    "np_radd": lambda m, a: NP_X + a.x,
    "np_rsub": lambda m, a: NP_X - a.x,
    "np_rdiv": lambda m, a: NP_X / a.y,
    "np_rmatmul": lambda m, a: NP_M @ a.x,
    "np_float64_rmul": lambda m, a: NP_X.astype(np.float64) * a.x,
    "np_scalar_rmul": lambda m, a: np.float32(2.0) * a.x,
    # static indexing and slicing
    "index_0": lambda m, a: a.x[0],
    "index_neg": lambda m, a: a.x[-1],
    "index_2d": lambda m, a: a.x[1, 2],
    "index_2d_neg": lambda m, a: a.x[-2, -1],
    "slice": lambda m, a: a.y[1:3],
    "slice_neg": lambda m, a: a.y[-2:],
    "slice_step": lambda m, a: a.z[..., ::2],
    "slice_rows": lambda m, a: a.x[:, 0],
    "slice_mixed": lambda m, a: a.z[1, 1:, ::3],
    "slice_empty": lambda m, a: a.y[2:1],
    "slice_past_end": lambda m, a: a.y[1:10],
    "newaxis": lambda m, a: a.x[None],
    "newaxis_middle": lambda m, a: a.x[:, None, 1:],
    "ellipsis_newaxis": lambda m, a: a.z[..., None, 0],
    "ellipsis_only": lambda m, a: a.x[...],
    "int_array_index": lambda m, a: a.i[1],
    "np_int_index": lambda m, a: a.x[np.int32(1)],
    "out_of_bounds": lambda m, a: a.y[5],  # JAX clamps out-of-bounds indices
    "out_of_bounds_neg": lambda m, a: a.x[-7, 1],
    "out_of_bounds_2d": lambda m, a: a.x[:, 9],
}


def _arrays(namespace: Any) -> SimpleNamespace:
    return SimpleNamespace(**{k: namespace.asarray(v) for k, v in INPUTS.items()})


@pytest.fixture(scope="module")
def oracle() -> JaxOracle:
    members = [
        (name, lambda inputs, fn=fn: fn(jnp, SimpleNamespace(**inputs)), [INPUTS])
        for name, fn in EXPRESSIONS.items()
    ]
    return JaxOracle({"array": members})


@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_expression(name: str, oracle: JaxOracle) -> None:
    expected = oracle.result("array", name)
    assert_matches(EXPRESSIONS[name](dnp, _arrays(dnp)), expected)


# ----------------------------------------------------------------------------- on the host


def _both(fn: Callable[[Any, Any], Any]) -> tuple[Any, Any]:
    return fn(dnp, _arrays(dnp)), fn(jnp, _arrays(jnp))


HOST = {
    "np_asarray": lambda m, a: np.asarray(a.x),
    "np_asarray_int": lambda m, a: np.asarray(a.i),
    "np_asarray_dtype": lambda m, a: np.asarray(a.x, dtype=np.float64),
    "np_array": lambda m, a: np.array(a.b),
    "shape": lambda m, a: a.z.shape,
    "ndim": lambda m, a: a.z.ndim,
    "size": lambda m, a: a.z.size,
    "dtype": lambda m, a: a.x.dtype,
    "dtype_int": lambda m, a: a.i.dtype,
    "dtype_float64_input": lambda m, a: a.d.dtype,
    "dtype_int64_input": lambda m, a: a.l.dtype,
    "dtype_bf16": lambda m, a: a.h.dtype,
    "weak_type_float": lambda m, a: m.asarray(2.0).weak_type,
    "weak_type_int": lambda m, a: m.asarray(3).dtype,
    "item": lambda m, a: a.s.item(),
    "item_of_size_one": lambda m, a: a.x[1:2, 0:1].item(),
    "item_int": lambda m, a: a.i[0, 1].item(),
    "item_bool": lambda m, a: a.b[0, 0].item(),
    "tolist": lambda m, a: a.x.tolist(),
    "tolist_int": lambda m, a: a.i.tolist(),
    "tolist_scalar": lambda m, a: a.s.tolist(),
    "len": lambda m, a: len(a.z),
    "iterate": lambda m, a: np.stack([np.asarray(row) for row in a.x]),
    "iterate_types": lambda m, a: [type(row) is type(a.x) for row in a.x],
    "float": lambda m, a: float(a.s),
    "int": lambda m, a: int(a.i[1, 1]),
    "bool": lambda m, a: bool(a.b[0, 1]),
    "index_use": lambda m, a: [10, 20, 30][a.i[0, 0] % 3],
    "format": lambda m, a: f"{a.s:.3f}",
    "block_until_ready": lambda m, a: np.asarray(a.x.block_until_ready()),
    "repr_vector": lambda m, a: repr(m.asarray(np.arange(3, dtype=np.float32))),
    "repr_int_matrix": lambda m, a: repr(m.asarray(np.arange(6, dtype=np.int32).reshape(2, 3))),
    "repr_weak": lambda m, a: repr(m.asarray(2.0)),
    "repr_bool": lambda m, a: repr(m.asarray(np.array([True, False]))),
    "str": lambda m, a: str(m.asarray(np.arange(3, dtype=np.float32))),
}


@pytest.mark.parametrize("name", list(HOST))
def test_host(name: str) -> None:
    got, want = _both(HOST[name])
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(got, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want


def test_block_until_ready_returns_the_array() -> None:
    x = dnp.asarray(INPUTS["x"])
    assert x.block_until_ready() is x


# ----------------------------------------------------------------------------- errors

ERRORS = {
    "too_many_indices": lambda m, a: a.y[0, 0],
    "two_ellipses": lambda m, a: a.x[..., ...],
    "float_index": lambda m, a: a.y[1.5],
    "string_index": lambda m, a: a.y["a"],
    "len_of_scalar": lambda m, a: len(a.s),
    "iterate_scalar": lambda m, a: list(a.s),
    "hash": lambda m, a: hash(a.x),
    "item_of_many": lambda m, a: a.x.item(),
    "float_of_many": lambda m, a: float(a.x),
    "bool_of_many": lambda m, a: bool(a.x),
    "add_shapes": lambda m, a: a.x + a.m,
    "add_string": lambda m, a: a.x + "a",
    "matmul_shapes": lambda m, a: a.x @ a.x,
    "reshape_size": lambda m, a: a.x.reshape(4),
    "sum_bad_axis": lambda m, a: a.x.sum(axis=2),
    "squeeze_not_one": lambda m, a: a.x.squeeze(0),
    "astype_string": lambda m, a: a.x.astype("not a dtype"),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_type(name: str) -> None:
    with pytest.raises(Exception) as want:
        ERRORS[name](jnp, _arrays(jnp))
    with pytest.raises(Exception) as got:
        ERRORS[name](dnp, _arrays(dnp))
    assert isinstance(got.value, type(want.value)), (
        f"didax raised {type(got.value).__name__}: {got.value}; JAX raises "
        f"{type(want.value).__name__}: {want.value}"
    )


def test_reflected_ops_return_didax_arrays() -> None:
    x = dnp.asarray(INPUTS["x"])
    for value in (NP_X * x, NP_X + x, 2.0 * x, operator.sub(NP_X, x), NP_M @ x):
        assert isinstance(value, didax.Array), type(value)
