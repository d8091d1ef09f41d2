"""vmap: in_axes/out_axes (ints, None, negative, tuples, pytree prefixes), nested vmap, size
errors, and a batching rule for every first-order primitive, each checked against a Python
loop over the batch stacked with NumPy."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import core, lax
from didax.primitives import (
    comparison,
    concatenation,
    convert,
    creation,
    dot,
    elementwise,
    precision_barriers,
    reductions,
    shape,
)

B = 3  # batch size
rng = np.random.default_rng(1)


def randf(*shape_: int, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    return rng.uniform(low, high, shape_).astype(np.float32)


def close(got: Any, want: Any) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- in_axes / out_axes


X = randf(B, 4)
Y = randf(4, B)


def test_in_axes_int() -> None:
    close(didax.vmap(jnp.sin)(X), np.sin(X))
    close(didax.vmap(lambda r: jnp.sum(r * r))(X), np.sum(X * X, axis=1))


def test_in_axes_none_and_tuple() -> None:
    v = randf(4)
    out = didax.vmap(lambda r, w: jnp.dot(r, w), in_axes=(0, None))(X, v)
    close(out, X @ v)
    out = didax.vmap(lambda r, c: r * c, in_axes=(0, 1))(X, Y)
    close(out, X * Y.T)


def test_in_axes_list_is_taken_as_tuple() -> None:
    out = didax.vmap(lambda r, c: r - c, in_axes=[0, 1])(X, Y)
    close(out, X - Y.T)


def test_negative_in_axes_and_out_axes() -> None:
    out = didax.vmap(lambda c: c * 2.0, in_axes=-1, out_axes=-1)(Y)
    close(out, Y * 2.0)
    z = randf(2, 4, B)
    out = didax.vmap(lambda m: m.T, in_axes=-1, out_axes=-2)(z)
    close(out, np.stack([z[..., i].T for i in range(B)], axis=-2))


def test_out_axes_int() -> None:
    out = didax.vmap(lambda r: jnp.stack([r, r + 1.0]), out_axes=2)(X)
    close(out, np.stack([np.stack([r, r + 1]) for r in X], axis=2))


def test_out_axes_none_with_unbatched_output() -> None:
    c = randf(4)
    f = lambda r: (r * 2.0, c + 1.0)
    mapped, same = didax.vmap(f, out_axes=(0, None))(X)
    close(mapped, X * 2)
    close(same, c + 1)


def test_out_axes_none_with_batched_output_raises() -> None:
    with pytest.raises(ValueError, match="out_axes is None"):
        didax.vmap(lambda r: r * 2.0, out_axes=None)(X)


def test_unbatched_output_is_broadcast() -> None:
    out = didax.vmap(lambda r: 7.0)(X)
    close(out, np.full(B, 7.0, np.float32))
    out = didax.vmap(lambda r: jnp.ones(2), out_axes=1)(X)
    close(out, np.ones((2, B), np.float32))


def test_pytree_in_axes_prefixes() -> None:
    args = {"a": X, "b": (Y, randf(5))}
    f = lambda d: d["a"] * jnp.sum(d["b"][0]) + jnp.sum(d["b"][1])
    out = didax.vmap(f, in_axes=({"a": 0, "b": (1, None)},))(args)
    want = np.stack([X[i] * Y[:, i].sum() + args["b"][1].sum() for i in range(B)])
    close(out, want)
    # a None covering a whole subtree
    out = didax.vmap(f, in_axes=({"a": 0, "b": None},))({"a": X, "b": (Y[:, 0], args["b"][1])})
    close(out, np.stack([X[i] * Y[:, 0].sum() + args["b"][1].sum() for i in range(B)]))


def test_pytree_outputs_and_out_axes_prefix() -> None:
    f = lambda r: {"s": jnp.sin(r), "pair": (r, jnp.sum(r))}
    out = didax.vmap(f, out_axes={"s": 1, "pair": 0})(X)
    close(out["s"], np.sin(X).T)
    close(out["pair"][0], X)
    close(out["pair"][1], X.sum(axis=1))


def test_in_axes_not_a_prefix_raises() -> None:
    with pytest.raises(ValueError, match="in_axes"):
        didax.vmap(lambda d: d["a"], in_axes=({"x": 0},))({"a": X})


def test_in_axes_wrong_length_raises() -> None:
    with pytest.raises(ValueError, match="len\\(in_axes\\)=1"):
        didax.vmap(lambda a, b: a + b, in_axes=(0,))(X, X)


def test_in_axes_bad_type_raises() -> None:
    with pytest.raises(TypeError, match="in_axes must be an int, None"):
        didax.vmap(jnp.sin, in_axes="0")(X)


def test_in_axis_out_of_range_raises() -> None:
    with pytest.raises(ValueError, match="axis 2"):
        didax.vmap(jnp.sin, in_axes=2)(X)


def test_all_in_axes_none_raises() -> None:
    with pytest.raises(ValueError, match="at least one non-None"):
        didax.vmap(jnp.sin, in_axes=None)(X)


def test_inconsistent_sizes_name_both_sizes() -> None:
    with pytest.raises(ValueError) as info:
        didax.vmap(lambda a, b: a + b)(np.ones((3, 2), np.float32), np.ones((4, 2), np.float32))
    msg = str(info.value)
    assert "inconsistent sizes" in msg
    assert "size 3" in msg and "size 4" in msg
    assert "argument a" in msg and "argument b" in msg


def test_nested_vmap_matrix_product() -> None:
    a, b = randf(3, 4), randf(4, 5)
    mm = didax.vmap(didax.vmap(jnp.dot, in_axes=(None, 1)), in_axes=(0, None))
    close(mm(a, b), a @ b)


def test_nested_vmap_inner_batch_at_other_axes() -> None:
    z = randf(2, 3, 4)
    f = didax.vmap(didax.vmap(lambda v: jnp.sum(jnp.sin(v)), in_axes=1), in_axes=2)
    close(f(z), np.sin(z).sum(axis=0).T)


def test_vmap_of_closure_over_outer_batched_value() -> None:
    def outer(r):
        return didax.vmap(lambda s: s * r)(randf(2) + 0.0 * jnp.sum(r))

    out = didax.vmap(outer)(X)
    assert out.shape == (B, 2, 4)


def test_vmap_of_jvp_and_jvp_of_vmap_agree() -> None:
    t = np.ones_like(X)
    f = lambda r: jnp.sin(r) * r
    _, t1 = didax.vmap(lambda r, s: didax.jvp(f, (r,), (s,)))(X, t)
    _, t2 = didax.jvp(didax.vmap(f), (X,), (t,))
    close(t1, t2)
    close(t1, np.cos(X) * X + np.sin(X))


# ----------------------------------------------------------------------------- every primitive


@dataclass(frozen=True)
class Case:
    prim: core.Primitive
    fn: Callable[..., Any]
    operands: Callable[[], list[np.ndarray]]  # one unbatched example
    name: str = ""


def pos(*s: int) -> np.ndarray:
    return randf(*s, low=0.5, high=2.0)


def boolean(*s: int) -> np.ndarray:
    return rng.uniform(size=s) > 0.5


UNARY_FLOAT = [
    elementwise.sin_p,
    elementwise.cos_p,
    elementwise.tan_p,
    elementwise.tanh_p,
    elementwise.exp_p,
    elementwise.log_p,
    elementwise.log1p_p,
    elementwise.expm1_p,
    elementwise.sqrt_p,
    elementwise.logistic_p,
    elementwise.neg_p,
    elementwise.sign_p,
    elementwise.abs_p,
    elementwise.floor_p,
    elementwise.ceil_p,
    elementwise.cbrt_p,
    elementwise.exp2_p,
    elementwise.square_p,
    elementwise.rsqrt_p,
    convert.stop_gradient_p,
]
BINARY = [
    elementwise.add_p,
    elementwise.add_any_p,
    elementwise.sub_p,
    elementwise.mul_p,
    elementwise.div_p,
    elementwise.rem_p,
    elementwise.max_p,
    elementwise.min_p,
    elementwise.pow_p,
    elementwise.atan2_p,
    elementwise.complex_p,
    comparison.gt_p,
    comparison.lt_p,
    comparison.ge_p,
    comparison.le_p,
    comparison.eq_p,
    comparison.ne_p,
]
BINARY_SHAPES = {"same": ((2, 3), (2, 3)), "scalar": ((2, 3), ()), "size1": ((2, 1), (1, 3))}


def _unary_case(p: core.Primitive) -> Case:
    return Case(p, lambda x, p=p: p.bind(x), lambda: [pos(2, 3)], p.name)


def _binary_case(p: core.Primitive, kind: str) -> Case:
    sx, sy = BINARY_SHAPES[kind]
    return Case(p, lambda x, y, p=p: p.bind(x, y), lambda: [pos(*sx), pos(*sy)], f"{p.name}-{kind}")


CASES = [
    *map(_unary_case, UNARY_FLOAT),
    *(_binary_case(p, k) for p in BINARY for k in BINARY_SHAPES),
    Case(comparison.is_finite_p, lax.is_finite, lambda: [randf(2, 3)]),
    Case(elementwise.real_p, lax.real, lambda: [lax.complex(randf(2, 3), randf(2, 3))]),
    Case(elementwise.imag_p, lax.imag, lambda: [lax.complex(randf(2, 3), randf(2, 3))]),
    Case(elementwise.conj_p, lax.conj, lambda: [lax.complex(randf(2, 3), randf(2, 3))], "conj-c"),
    Case(elementwise.conj_p, lax.conj, lambda: [randf(2, 3)], "conj-real"),
    Case(shape.copy_p, shape.copy, lambda: [randf(2, 3)]),
    Case(elementwise.round_p, lambda x: lax.round(x, 1), lambda: [randf(2, 3) * 4]),
    Case(comparison.and_p, lax.bitwise_and, lambda: [boolean(2, 3), boolean(2, 3)]),
    Case(comparison.or_p, lax.bitwise_or, lambda: [boolean(2, 3), boolean(1, 3)]),
    Case(comparison.not_p, lax.bitwise_not, lambda: [boolean(2, 3)]),
    Case(comparison.select_n_p, lax.select_n, lambda: [boolean(2, 3), randf(2, 3), randf(2, 3)]),
    Case(
        comparison.select_n_p,
        lax.select_n,
        lambda: [np.bool_(True), randf(2, 3), randf(2, 3)],
        "select_n-scalar_pred",
    ),
    Case(elementwise.clamp_p, lax.clamp, lambda: [randf(2, 3) - 1, randf(2, 3), randf(2, 3) + 1]),
    Case(
        elementwise.clamp_p,
        lax.clamp,
        lambda: [np.float32(-0.5), randf(2, 3), np.float32(0.5)],
        "clamp-scalar_bounds",
    ),
    Case(elementwise.integer_pow_p, lambda x: lax.integer_pow(x, 3), lambda: [randf(2, 3)]),
    Case(
        precision_barriers.reduce_precision_p,
        lambda x: lax.reduce_precision(x, 5, 10),
        lambda: [randf(2, 3)],
    ),
    Case(
        convert.convert_element_type_p,
        lambda x: lax.convert_element_type(x, np.int32),
        lambda: [randf(2, 3) * 3],
    ),
    Case(
        shape.broadcast_in_dim_p,
        lambda x: lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)),
        lambda: [randf(2, 3)],
    ),
    Case(
        shape.broadcast_in_dim_p,
        lambda x: lax.broadcast_in_dim(x, (2, 3), (0, 1)),
        lambda: [randf(2, 1)],
        "broadcast_in_dim-size1",
    ),
    Case(shape.reshape_p, lambda x: lax.reshape(x, (3, 2)), lambda: [randf(2, 3)]),
    Case(
        shape.reshape_p,
        lambda x: lax.reshape(x, (6,), (1, 0)),
        lambda: [randf(2, 3)],
        "reshape-dimensions",
    ),
    Case(shape.transpose_p, lambda x: lax.transpose(x, (2, 0, 1)), lambda: [randf(2, 3, 4)]),
    Case(shape.squeeze_p, lambda x: lax.squeeze(x, (1,)), lambda: [randf(2, 1, 3)]),
    Case(shape.rev_p, lambda x: lax.rev(x, (0, 2)), lambda: [randf(2, 3, 4)]),
    Case(concatenation.slice_p, lambda x: lax.slice(x, (0, 1), (2, 3)), lambda: [randf(2, 3)]),
    Case(
        concatenation.slice_p,
        lambda x: lax.slice(x, (1, 0), (5, 3), (2, 2)),
        lambda: [randf(5, 3)],
        "slice-strided",
    ),
    Case(
        concatenation.pad_p,
        lambda x, v: lax.pad(x, v, ((1, 0, 0), (0, 2, 1))),
        lambda: [randf(2, 3), np.float32(0.5)],
    ),  # padding value unbatched: see below
    Case(
        concatenation.concatenate_p,
        lambda x, y: lax.concatenate([x, y], 1),
        lambda: [randf(2, 3), randf(2, 1)],
    ),
    Case(
        concatenation.stack_p, lambda x, y: lax.stack([x, y], 1), lambda: [randf(2, 3), randf(2, 3)]
    ),
    Case(shape.reduce_sum_p, lambda x: lax.reduce_sum(x, (1,)), lambda: [randf(2, 3, 4)]),
    Case(
        shape.reduce_sum_p,
        lambda x: lax.reduce_sum(x, (0, 2)),
        lambda: [randf(2, 3, 4)],
        "reduce_sum-two_axes",
    ),
    Case(reductions.reduce_max_p, lambda x: lax.reduce_max(x, (0,)), lambda: [randf(2, 3)]),
    Case(reductions.reduce_min_p, lambda x: lax.reduce_min(x, (1,)), lambda: [randf(2, 3)]),
    Case(reductions.reduce_prod_p, lambda x: lax.reduce_prod(x, (1,)), lambda: [randf(2, 3)]),
    Case(reductions.argmax_p, lambda x: lax.argmax(x, 1), lambda: [randf(2, 3)]),
    Case(reductions.argmin_p, lambda x: lax.argmin(x, 0), lambda: [randf(2, 3)]),
    Case(reductions.reduce_and_p, lambda x: lax.reduce_and(x, (1,)), lambda: [boolean(2, 3)]),
    Case(reductions.reduce_or_p, lambda x: lax.reduce_or(x, (0,)), lambda: [boolean(2, 3)]),
    Case(reductions.reduce_xor_p, lambda x: lax.reduce_xor(x, (1,)), lambda: [boolean(2, 3)]),
    Case(
        dot.dot_general_p,
        lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))),
        lambda: [randf(2, 3), randf(3, 4)],
        "dot_general-matmul",
    ),
    Case(
        dot.dot_general_p,
        lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
        lambda: [randf(2, 3, 4), randf(2, 4, 5)],
        "dot_general-batched",
    ),
    Case(
        dot.dot_general_p,
        lambda x, y: lax.dot_general(x, y, (((0,), (0,)), ((), ()))),
        lambda: [randf(3), randf(3)],
        "dot_general-inner",
    ),
]

# Primitives without a vmap case, and why.
NO_VMAP_CASE = {
    creation.iota_p,  # takes no operands: nothing to batch
}


def _in_axes_patterns(case: Case, operands: list[np.ndarray]) -> list[tuple]:
    n = len(operands)
    pats = {(0,) * n, (-1,) * n}
    for i in range(n):  # one operand batched, the others not
        pats.add(tuple(0 if j == i else None for j in range(n)))
    if np.ndim(operands[0]) >= 1:  # the first operand batched at an inner axis
        pats.add((1,) + (0,) * (n - 1))
    return sorted(pats, key=str)


def test_pad_with_batched_padding_value() -> None:
    x, v = randf(B, 2), randf(B)
    got = didax.vmap(lambda a, b: lax.pad(a, b, ((1, 1, 0),)))(x, v)
    close(got, np.stack([np.pad(x[i], 1, constant_values=v[i]) for i in range(B)]))


def _batched(example_rows: list[np.ndarray], axis: int | None) -> np.ndarray:
    return example_rows[0] if axis is None else np.stack(example_rows, axis=axis)


def _case_id(case: Case) -> str:
    return case.name or case.prim.name


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_primitive_vmap_matches_loop(case: Case) -> None:
    # the case really applies its primitive
    staged = didax.make_jaxpr(case.fn)(*case.operands())
    assert case.prim in [e.primitive for e in staged.eqns], staged
    rows = [case.operands() for _ in range(B)]  # rows[b][i]: operand i of example b
    for in_axes in _in_axes_patterns(case, rows[0]):
        args = [_batched([r[i] for r in rows], ax) for i, ax in enumerate(in_axes)]
        unbatched = [
            [r[i] if ax is not None else rows[0][i] for i, ax in enumerate(in_axes)] for r in rows
        ]
        want = np.stack([np.asarray(case.fn(*u)) for u in unbatched])
        got = didax.vmap(case.fn, in_axes=in_axes)(*args)
        try:
            close(got, want)
        except AssertionError as e:
            raise AssertionError(f"in_axes={in_axes}: {e}") from None


def test_every_primitive_with_operands_has_a_vmap_case() -> None:
    covered = {c.prim for c in CASES}
    prims = set()
    for mod in (comparison, convert, dot, elementwise, reductions, shape):
        prims |= {v for v in vars(mod).values() if isinstance(v, core.Primitive)}
    missing = {p.name for p in prims - covered - NO_VMAP_CASE}
    assert not missing, f"primitives without a vmap case: {sorted(missing)}"
    for p in prims - NO_VMAP_CASE:
        assert p in core.vmap_rules, p


def test_nested_vmap_of_every_binary_primitive() -> None:
    for p in BINARY:
        x, y = pos(B, 2, 3), pos(2, B, 3)
        f = didax.vmap(didax.vmap(lambda a, b, p=p: p.bind(a, b)), in_axes=(0, 1))
        want = np.stack(
            [np.stack([np.asarray(p.bind(x[i, j], y[j, i])) for j in range(2)]) for i in range(B)]
        )
        close(f(x, y), want)


@pytest.mark.parametrize("in_axes", list(itertools.product([0, 1, None], repeat=2))[:-1])
def test_broadcasting_add_all_in_axes(in_axes) -> None:
    x, y = randf(2, 1), randf(1, 3)
    xb = x if in_axes[0] is None else np.stack([x + i for i in range(B)], in_axes[0])
    yb = y if in_axes[1] is None else np.stack([y * i for i in range(B)], in_axes[1])
    want = np.stack(
        [
            (x if in_axes[0] is None else x + i) + (y if in_axes[1] is None else y * i)
            for i in range(B)
        ]
    )
    close(didax.vmap(lax.add, in_axes=in_axes)(xb, yb), want)
