"""Oracle: didax.numpy, didax.nn and didax.lax against jax==0.10.2, case by case.

For every case of `op_cases.CASES`: the value (dtype, shape and weak type equal; float32
values within rtol 1e-4 / atol 1e-5), `jvp` against `jax.jvp`, and `vmap` against `jax.vmap`
with the batch axis first, last, or only on the first array argument. Then bad inputs: didax
raises the exception type JAX raises.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from op_cases import CASES, OpCase, close_over

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
from helpers.oracle import JaxOracle, assert_matches

pytestmark = pytest.mark.oracle


def _rng(case: OpCase, salt: int) -> np.random.Generator:
    return np.random.default_rng([case.seed, salt])


# Each test's inputs, made the same way when the oracle and the test ask for them.


def value_inputs(case: OpCase) -> list[Any]:
    return case.make_inputs(_rng(case, 0))


def jvp_inputs(case: OpCase) -> tuple[list[Any], list[np.ndarray]]:
    rng = _rng(case, 1)
    args = case.make_inputs(rng)
    tangents = [
        rng.standard_normal(np.shape(args[i])).astype(np.float32) for i in case.float_positions
    ]
    return args, tangents


def vmap_inputs(case: OpCase, in_axes: tuple[Any, ...]) -> tuple[list[Any], list[Any]]:
    """The case's arguments, and its array arguments with a batch of 3 at `in_axes`."""
    rng = _rng(case, 2)
    args = case.make_inputs(rng)
    batched = []
    for i, axis in zip(case.array_positions, in_axes, strict=True):
        if axis is None:
            batched.append(args[i])
        else:
            batched.append(np.stack([case.args[i].make(rng) for _ in range(3)], axis=axis))
    return args, batched


VALUE_CASES = [c for c in CASES if not c.raises]
# Differences from JAX that cases found when they joined the table (issue 21), as
# xfail(strict): the tests report when they are fixed.
DIFFERENT = {"linalg.lu(float32[3, 3]:spd)": "didax's lu returns a tuple, JAX's a list"}


def _param(case: OpCase, *values: Any, id: str) -> Any:
    reason = DIFFERENT.get(case.id)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(case, *values, id=id, marks=marks)


JVP_CASES = [c for c in VALUE_CASES if c.differentiable and c.float_positions]
VMAP_PARAMS = []
for _case in VALUE_CASES:
    _n = len(_case.array_positions)
    if not _n:
        continue
    _variants = {"axis0": (0,) * _n}
    if any(_case.args[i].shape for i in _case.array_positions):  # else the same as axis0
        _variants["axis_last"] = (-1,) * _n
    if _n > 1:
        _variants["first_only"] = (0,) + (None,) * (_n - 1)
    for _name, _axes in _variants.items():
        VMAP_PARAMS.append(_param(_case, _axes, id=f"{_case.id}-{_name}"))


def _jax_value(case: OpCase) -> tuple[Any, Any, list]:
    fn, arrays = close_over(case.jax_fn, value_inputs(case), case.array_positions)
    return ("value", case.id), fn, arrays


def _jax_jvp(case: OpCase) -> tuple[Any, Any, list]:
    args, tangents = jvp_inputs(case)
    fn, primals = close_over(case.jax_fn, args, case.float_positions)

    def jvp(*xs: Any) -> Any:
        n = len(xs) // 2
        return jax.jvp(fn, xs[:n], xs[n:])

    return ("jvp", case.id), jvp, [*primals, *tangents]


def _jax_vmap(case: OpCase, in_axes: tuple[Any, ...]) -> tuple[Any, Any, list]:
    args, batched = vmap_inputs(case, in_axes)
    fn, _ = close_over(case.jax_fn, args, case.array_positions)
    return ("vmap", case.id, in_axes), jax.vmap(fn, in_axes=in_axes), batched


def _groups() -> dict[Any, list]:
    groups: dict[Any, list] = {}
    for case in VALUE_CASES:
        groups.setdefault((case.module, case.name), []).append(_jax_value(case))
    for case in JVP_CASES:
        groups.setdefault((case.module, case.name), []).append(_jax_jvp(case))
    for param in VMAP_PARAMS:
        case, in_axes = param.values
        groups.setdefault((case.module, case.name), []).append(_jax_vmap(case, in_axes))
    return groups


@pytest.fixture(scope="module")
def oracle() -> JaxOracle:
    return JaxOracle(_groups())


# ----------------------------------------------------------------------------- values


@pytest.mark.parametrize("case", [_param(c, id=c.id) for c in VALUE_CASES])
def test_value(case: OpCase, oracle: JaxOracle) -> None:
    expected = oracle.result((case.module, case.name), ("value", case.id))
    assert_matches(case.didax_fn(*value_inputs(case)), expected)


RAISING_CASES = [c for c in CASES if c.raises]


@pytest.mark.parametrize("case", RAISING_CASES, ids=[c.id for c in RAISING_CASES])
def test_value_raises(case: OpCase) -> None:
    args = value_inputs(case)
    with pytest.raises(case.raises):
        case.jax_fn(*args)
    with pytest.raises(case.raises):
        case.didax_fn(*args)


# ----------------------------------------------------------------------------- jvp


@pytest.mark.parametrize("case", [_param(c, id=c.id) for c in JVP_CASES])
def test_jvp(case: OpCase, oracle: JaxOracle) -> None:
    want_out, want_tangent = oracle.result((case.module, case.name), ("jvp", case.id))
    args, tangents = jvp_inputs(case)
    fn, primals = close_over(case.didax_fn, args, case.float_positions)
    out, tangent = didax.jvp(fn, primals, tangents)
    assert_matches(out, want_out)
    assert_matches(tangent, want_tangent)


# ----------------------------------------------------------------------------- vmap


@pytest.mark.parametrize(("case", "in_axes"), VMAP_PARAMS)
def test_vmap(case: OpCase, in_axes: tuple[Any, ...], oracle: JaxOracle) -> None:
    expected = oracle.result((case.module, case.name), ("vmap", case.id, in_axes))
    args, batched = vmap_inputs(case, in_axes)
    fn, _ = close_over(case.didax_fn, args, case.array_positions)
    assert_matches(didax.vmap(fn, in_axes=in_axes)(*batched), expected)


# ----------------------------------------------------------------------------- errors

f32 = np.float32
_X3, _X4, _M23 = np.ones(3, f32), np.ones(4, f32), np.ones((2, 3), f32)


def _namespace(np_module: Any, nn: Any, lax: Any, vmap: Any) -> SimpleNamespace:
    # the operands are the library's own arrays: JAX raises other errors for NumPy inputs
    return SimpleNamespace(
        np=np_module,
        nn=nn,
        lax=lax,
        vmap=vmap,
        x3=np_module.asarray(_X3),
        x4=np_module.asarray(_X4),
        m23=np_module.asarray(_M23),
    )


DIDAX = _namespace(dnp, didax.nn, didax.lax, didax.vmap)
JAX = _namespace(jnp, jax.nn, jax.lax, jax.vmap)

ERROR_CASES = {
    "add_shapes": lambda m: m.np.add(m.x3, m.x4),
    "multiply_shapes_2d": lambda m: m.np.multiply(m.m23, np.ones((3, 2), f32)),
    "where_shapes": lambda m: m.np.where(m.x3 > 0, m.x3, m.x4),
    "reshape_size": lambda m: m.np.reshape(m.m23, (4,)),
    "reshape_minus_one": lambda m: m.np.reshape(m.m23, (4, -1)),
    "reshape_two_minus_ones": lambda m: m.np.reshape(m.m23, (-1, -1)),
    "sum_bad_axis": lambda m: m.np.sum(m.m23, axis=2),
    "sum_duplicate_axes": lambda m: m.np.sum(m.m23, axis=(0, 0)),
    "mean_bad_axis": lambda m: m.np.mean(m.m23, axis=-3),
    "max_bad_axis": lambda m: m.np.max(m.x3, axis=1),
    "argmax_bad_axis": lambda m: m.np.argmax(m.m23, axis=2),
    "softmax_bad_axis": lambda m: m.nn.softmax(m.m23, axis=2),
    "expand_dims_bad_axis": lambda m: m.np.expand_dims(m.x3, 3),
    "squeeze_not_one": lambda m: m.np.squeeze(m.m23, axis=0),
    "transpose_bad_perm": lambda m: m.np.transpose(m.m23, (0, 0)),
    "broadcast_to_bad": lambda m: m.np.broadcast_to(m.x3, (4,)),
    "concatenate_shapes": lambda m: m.np.concatenate([m.m23, np.ones((2, 2), f32)], axis=0),
    "concatenate_scalars": lambda m: m.np.concatenate([f32(1), f32(2)]),
    "stack_shapes": lambda m: m.np.stack([m.x3, m.x4]),
    "matmul_shapes": lambda m: m.np.matmul(m.m23, m.m23),
    "matmul_scalar": lambda m: m.np.matmul(f32(2), m.m23),
    "dot_shapes": lambda m: m.np.dot(m.x3, m.x4),
    "sin_string": lambda m: m.np.sin("abc"),
    "add_string": lambda m: m.np.add(m.x3, "abc"),
    "sum_string": lambda m: m.np.sum("abc"),
    "relu_string": lambda m: m.nn.relu("abc"),
    "array_string": lambda m: m.np.array("abc"),
    "add_list": lambda m: m.np.add([1.0, 2.0], m.x3),
    "add_none": lambda m: m.np.add(m.x3, None),
    "subtract_bools": lambda m: m.np.subtract(m.x3 > 0, m.x3 > 1),
    "lax_add_dtypes": lambda m: m.lax.add(m.x3, np.ones(3, np.int32)),
    "lax_add_shapes": lambda m: m.lax.add(m.x3, m.x4),
    "lax_sin_int": lambda m: m.lax.sin(np.ones(3, np.int32)),
    "lax_dot_general_shapes": lambda m: m.lax.dot_general(m.m23, m.m23, (((1,), (0,)), ((), ()))),
    "lax_broadcast_in_dim_bad": lambda m: m.lax.broadcast_in_dim(m.x3, (2, 4), (1,)),
    "lax_squeeze_not_one": lambda m: m.lax.squeeze(m.m23, (0,)),
    "lax_select_n_shapes": lambda m: m.lax.select_n(m.x3 > 0, m.x3, m.x4),
    "vmap_sizes": lambda m: m.vmap(m.np.add)(m.x3, m.x4),
    "vmap_axis_out_of_range": lambda m: m.vmap(m.np.sin, in_axes=1)(m.x3),
}


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_error_type(name: str) -> None:
    call = ERROR_CASES[name]
    with pytest.raises(Exception) as want:
        call(JAX)
    with pytest.raises(Exception) as got:
        call(DIDAX)
    assert isinstance(got.value, type(want.value)), (
        f"didax raised {type(got.value).__name__}: {got.value}; JAX raises "
        f"{type(want.value).__name__}: {want.value}"
    )


def test_add_shapes_error_names_both_shapes() -> None:
    with pytest.raises(TypeError) as got:
        dnp.add(_X3, _X4)
    assert "(3,)" in str(got.value) and "(4,)" in str(got.value)
    with pytest.raises(TypeError) as got:
        didax.Array(_X3) + didax.Array(_X4)
    assert "(3,)" in str(got.value) and "(4,)" in str(got.value)
