"""Jaxpr text vs JAX: the same program, written once against a NumPy-like namespace, staged by
`jax.make_jaxpr` and by `didax.make_jaxpr`, prints the same text after variables are renamed
in order of first appearance (JAX and didax may pick different letters when a program
shares names across nested jaxprs; everything else must match)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from helpers.jaxpr_text import canonical

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

pytestmark = pytest.mark.oracle

JAX = SimpleNamespace(
    np=jnp,
    lax=jax.lax,
    jvp=jax.jvp,
    vmap=jax.vmap,
    make_jaxpr=jax.make_jaxpr,
    jit=jax.jit,
    grad=jax.grad,
)
DIDAX = SimpleNamespace(
    np=dnp,
    lax=didax.lax,
    jvp=didax.jvp,
    vmap=didax.vmap,
    make_jaxpr=didax.make_jaxpr,
    jit=didax.jit,
    grad=didax.grad,
)


def test_canonical_renames_in_order_of_first_appearance() -> None:
    text = (
        "{ lambda a:f32[3]; b:f32[]. let\n    c:f32[3] = mul a b\n    _:f32[] = sin b\n  in (c,) }"
    )
    assert canonical(text) == (
        "{ lambda v0:f32[3]; v1:f32[]. let\n    v2:f32[3] = mul v0 v1\n    _:f32[] = sin v1\n"
        "  in (v2,) }"
    )


def test_canonical_keeps_primitives_params_and_literals() -> None:
    text = (
        "{ lambda ; a:i32[2]. let b:f32[2] = convert_element_type[new_dtype=float32 "
        "weak_type=False] a; c:f32[2] = add b 1.0:f32[] in (c,) }"
    )
    out = canonical(text)
    assert "convert_element_type[new_dtype=float32 weak_type=False] v0" in out
    assert "add v1 1.0:f32[]" in out


@dataclass(frozen=True)
class Program:
    name: str
    make: Callable[[SimpleNamespace], Callable[..., Any]]  # namespace -> function to stage
    args: Callable[[], tuple]  # fresh NumPy inputs (or Python scalars)


rng = np.random.default_rng(0)


def f32(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def i32(*shape: int) -> np.ndarray:
    return rng.integers(-5, 5, shape).astype(np.int32)


_CONST = f32(3)  # closed over by a program: becomes a constvar


def _long_chain(m: SimpleNamespace) -> Callable[..., Any]:
    def f(x, y):
        z = m.np.sin(x) * y + m.np.cos(y) / 2.0
        w = m.np.exp(-z) - m.np.log1p(m.np.abs(x))
        return m.np.tanh(w) ** 2, m.np.sqrt(m.np.abs(z)) + 1.0

    return f


def _unused(m: SimpleNamespace) -> Callable[..., Any]:
    def f(x):
        m.np.sin(x)  # result unused: its binder prints `_`
        return m.np.cos(x)

    return f


def _jvp_of_sin_mul(m: SimpleNamespace) -> Callable[..., Any]:
    def f(x, t):
        return m.jvp(lambda u: m.np.sin(u) * u, (x,), (t,))

    return f


def _jvp_one_of_two(m: SimpleNamespace) -> Callable[..., Any]:
    def f(x, y, t):
        return m.jvp(lambda u: m.np.sin(u) * y, (x,), (t,))

    return f


def _vmap_matvec(m: SimpleNamespace) -> Callable[..., Any]:
    def f(a, xs):
        return m.vmap(lambda x: m.np.dot(a, x) + 1.0)(xs)

    return f


def _vmap_in_axes(m: SimpleNamespace) -> Callable[..., Any]:
    def f(x, y):
        return m.vmap(lambda u, v: m.np.sum(u * v), in_axes=(1, None))(x, y)

    return f


def _vmap_out_axes(m: SimpleNamespace) -> Callable[..., Any]:
    def f(x):
        return m.vmap(lambda u: m.np.sin(u) + u[0], out_axes=1)(x)

    return f


def _jvp_broadcast(m: SimpleNamespace) -> Callable[..., Any]:
    def f(x, y, t):  # the tangent of the size-1 operand is broadcast to the output
        return m.jvp(lambda u: u + y, (x,), (t,))

    return f


def _vmap_unbatched_array(m: SimpleNamespace) -> Callable[..., Any]:
    def f(xs, c):  # the unbatched operand gets a size-1 batch axis
        return m.vmap(lambda x: x * c - c)(xs)

    return f


def _vmap_batched_scalar(m: SimpleNamespace) -> Callable[..., Any]:
    def f(s, c):  # a batched scalar gets trailing size-1 axes
        return m.vmap(lambda u: u * c, in_axes=0)(s)

    return f


def _vmap_nested(m: SimpleNamespace) -> Callable[..., Any]:
    def f(x, y):
        return m.vmap(lambda u: m.vmap(lambda v: m.np.sin(u) * v)(y))(x)

    return f


def _many_variables(m: SimpleNamespace) -> Callable[..., Any]:
    def f(x):  # names run past z: ..., z, ba, bb, ...
        for _ in range(30):
            x = m.np.sin(x)
        return x

    return f


PROGRAMS = [
    Program("sin_mul_literal", lambda m: lambda x: m.np.sin(x) * 3.0, lambda: (f32(3),)),
    Program(
        "elementwise_chain",
        lambda m: lambda x: m.np.exp(m.np.sin(x) + m.np.cos(x)) - x,
        lambda: (f32(2, 3),),
    ),
    Program("neg_div_sub", lambda m: lambda x, y: -x / y - y, lambda: (f32(4), f32(4))),
    Program("weak_python_scalar_arg", lambda m: lambda x, s: x * s + s, lambda: (f32(3), 2.0)),
    Program("python_scalars_only", lambda m: lambda s, t: s * t + 1.0, lambda: (2.0, 3.0)),
    Program("int_arg_float_literal", lambda m: lambda n: n + 1.5, lambda: (i32(3),)),
    Program("int_times_float_array", lambda m: lambda n, x: n * x, lambda: (i32(3), f32(3))),
    Program("int_literal", lambda m: lambda n: n * 2 + 1, lambda: (i32(3),)),
    Program("integer_pow", lambda m: lambda x: x**2 + x**3, lambda: (f32(3),)),
    Program("sum_all", lambda m: lambda x: m.np.sum(x), lambda: (f32(2, 3),)),
    Program(
        "sum_axis_keepdims",
        lambda m: lambda x: m.np.sum(x, axis=0, keepdims=True),
        lambda: (f32(2, 3),),
    ),
    Program(
        "max_min_axis",
        lambda m: lambda x: m.np.max(x, axis=1) - m.np.min(x, axis=1),
        lambda: (f32(2, 3),),
    ),
    Program("mean", lambda m: lambda x: m.np.mean(x), lambda: (f32(2, 3),)),
    Program(
        "mean_axis_keepdims",
        lambda m: lambda x: m.np.mean(x, axis=1, keepdims=True),
        lambda: (f32(2, 3),),
    ),
    Program(
        "prod_argmax",
        lambda m: lambda x: (m.np.prod(x, axis=0), m.np.argmax(x, axis=1)),
        lambda: (f32(2, 3),),
    ),
    Program("dot_2d", lambda m: lambda a, b: m.np.dot(a, b), lambda: (f32(2, 3), f32(3, 4))),
    Program("dot_1d", lambda m: lambda a, b: m.np.dot(a, b), lambda: (f32(3), f32(3))),
    Program("matvec", lambda m: lambda a, b: a @ b, lambda: (f32(2, 3), f32(3))),
    Program(
        "matmul_batched",
        lambda m: lambda a, b: m.np.matmul(a, b),
        lambda: (f32(5, 2, 3), f32(5, 3, 4)),
    ),
    Program(
        "transpose_reshape",
        lambda m: lambda x: m.np.reshape(m.np.transpose(x), (6,)),
        lambda: (f32(2, 3),),
    ),
    Program("dot_T", lambda m: lambda x: x.T @ x, lambda: (f32(2, 3),)),
    Program(
        "squeeze_expand_dims",
        lambda m: lambda x: m.np.expand_dims(m.np.squeeze(x, axis=0), 2),
        lambda: (f32(1, 2, 3),),
    ),
    Program("broadcast_to", lambda m: lambda x: m.np.broadcast_to(x, (4, 3)), lambda: (f32(3),)),
    Program("broadcasting_add", lambda m: lambda x, y: x + y, lambda: (f32(2, 1), f32(3))),
    Program(
        "concatenate",
        lambda m: lambda x, y: m.np.concatenate([x, y], axis=1),
        lambda: (f32(2, 3), f32(2, 1)),
    ),
    Program(
        "stack", lambda m: lambda x, y: m.np.stack([x, y], axis=1), lambda: (f32(2, 3), f32(2, 3))
    ),
    Program("static_index", lambda m: lambda x: x[0] + x[:, 1].sum(), lambda: (f32(2, 3),)),
    Program("static_slices", lambda m: lambda x: x[1:3] * x[..., ::2].sum(), lambda: (f32(4, 3),)),
    Program(
        "comparisons",
        lambda m: lambda x, y: (x > y, m.np.less_equal(x, 0.5), x == y),
        lambda: (f32(3), f32(3)),
    ),
    Program(
        "maximum_minimum",
        lambda m: lambda x, y: m.np.maximum(x, 0.0) + m.np.minimum(x, y),
        lambda: (f32(3), f32(3)),
    ),
    Program(
        "closed_over_array", lambda m: lambda x: x * m.np.asarray(_CONST) + 1.0, lambda: (f32(3),)
    ),
    Program("closed_over_numpy", lambda m: lambda x: m.np.sin(x) + _CONST, lambda: (f32(3),)),
    Program("unused_result", _unused, lambda: (f32(3),)),
    Program("multiple_outputs_long", _long_chain, lambda: (f32(3), f32(3))),
    Program(
        "zeros_ones_like",
        lambda m: lambda x: m.np.zeros_like(x) + m.np.ones((3,)) * x,
        lambda: (f32(3),),
    ),
    Program("jvp_inside", _jvp_of_sin_mul, lambda: (f32(3), f32(3))),
    Program("jvp_one_of_two", _jvp_one_of_two, lambda: (f32(3), f32(3), f32(3))),
    Program("vmap_inside", _vmap_matvec, lambda: (f32(2, 3), f32(5, 3))),
    Program("vmap_in_axes", _vmap_in_axes, lambda: (f32(3, 5), f32(3))),
    Program("vmap_out_axes", _vmap_out_axes, lambda: (f32(5, 3),)),
    Program("jvp_broadcast", _jvp_broadcast, lambda: (f32(2, 1), f32(3), f32(2, 1))),
    Program("vmap_unbatched_array", _vmap_unbatched_array, lambda: (f32(5, 3), f32(3))),
    Program("vmap_batched_scalar", _vmap_batched_scalar, lambda: (f32(5), f32(2, 3))),
    Program("vmap_nested", _vmap_nested, lambda: (f32(4), f32(5))),
    Program(
        "float_literals_in_float32",
        lambda m: lambda x: x * 0.1 - 1e-8 + 1e20 * m.np.float32(2.5) + (-2.5),
        lambda: (f32(3),),
    ),
    Program(
        "inf_nan_literals",
        lambda m: lambda x: m.np.maximum(x * m.np.inf, m.np.nan),
        lambda: (f32(3),),
    ),
    Program("bool_and_int_literals", lambda m: lambda n: (n > 0) & True, lambda: (i32(3),)),
    Program(
        "numpy_scalar_constants",
        lambda m: lambda x: x * np.float32(0.1) + np.float64(2),
        lambda: (f32(3),),
    ),
    Program(
        "asarray_scalar_constant", lambda m: lambda x: m.np.asarray(3.0) * x, lambda: (f32(3),)
    ),
    Program("many_variables", _many_variables, lambda: (f32(3),)),
    Program("astype_float16", lambda m: lambda x: x.astype(m.np.float16) * 0.1, lambda: (f32(3),)),
    Program(
        "rank_promotion_both",
        lambda m: lambda x, y: m.np.maximum(x, y) * (x > 0.0),
        lambda: (f32(4, 1, 3), f32(2, 1)),
    ),
]


def _big_branch(m: SimpleNamespace) -> Callable[..., Any]:
    def big(x):
        for _ in range(6):  # 12 equations: JAX prints a nested jaxpr this long as `let jaxpr`
            x = m.np.sin(x) * 2.0
        return x

    return lambda p, x: m.lax.cond(p, big, lambda x: x, x)


def _jitted_twice(m: SimpleNamespace) -> Callable[..., Any]:
    g = m.jit(lambda x: m.np.sin(x) * 2.0)
    return lambda x: g(x) + g(x * 2.0)  # one jaxpr used twice: printed once, as `let`


def _grad_of_where(m: SimpleNamespace) -> Callable[..., Any]:
    return m.grad(lambda x: m.np.where(x > 0, x, 0.0).sum())


# Functions jax.numpy wraps in an inner `jit(..., inline=True)`, shared nested jaxprs
PROGRAMS += [
    Program("where_scalars", lambda m: lambda c: m.np.where(c, 1, 2.0), lambda: (i32(2, 3),)),
    Program(
        "where_bool", lambda m: lambda c, x: m.np.where(c > 0, x, -x), lambda: (f32(3), f32(3))
    ),
    Program(
        "where_twice",
        lambda m: lambda x: m.np.where(x > 0, x, 0.0) + m.np.where(x < 1, x, 1.0),
        lambda: (f32(3),),
    ),
    Program("clip_both", lambda m: lambda x: m.np.clip(x, -0.5, 0.5), lambda: (f32(2, 3),)),
    Program("clip_max_int", lambda m: lambda n: m.np.clip(n, max=3), lambda: (i32(2, 3),)),
    Program("grad_of_where", _grad_of_where, lambda: (f32(5),)),
    Program("big_cond_branch_hoisted", _big_branch, lambda: (True, f32(3))),
    Program("jitted_twice_hoisted", _jitted_twice, lambda: (f32(3),)),
]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_jaxpr_text_matches_jax(program: Program) -> None:
    args = program.args()
    expected = str(jax.make_jaxpr(program.make(JAX))(*args))
    got = str(didax.make_jaxpr(program.make(DIDAX))(*args))
    want, have = canonical(expected), canonical(got)
    if "np.int64(" in expected:  # JAX's longer spelling may break a line didax keeps whole
        want, have = re.sub(r"\s+", "", want), re.sub(r"\s+", "", have)
    assert have == want, f"\n--- jax\n{expected}\n--- didax\n{got}"


# Lines longer than 80 columns: JAX fills them (`pp_vars`: a line takes binders, arguments or
# outputs while it has room, then breaks, indented by 2 more). Compared exactly, not after
# renaming (renaming changes the widths that decide the breaks).
FILLED = {
    "15 binders": (lambda ns: lambda *xs: xs[::-1], lambda np_: [np_.float32(1.0)] * 15),
    "30 outputs": (lambda ns: lambda *xs: xs[::-1], lambda np_: [np_.float32(1.0)] * 30),
    "12 results of one equation": (
        lambda ns: lambda x: ns.np.split(x, 12),
        lambda np_: [np_.ones((24,), np_.float32)],
    ),
    "12 results, nested indentation": (
        lambda ns: lambda *xs: ns.lax.sort(xs, num_keys=1),
        lambda np_: [np_.ones((3,), np_.float32)] * 12,
    ),
    "40 arguments of one equation": (
        lambda ns: lambda *xs: ns.np.concatenate(xs),
        lambda np_: [np_.ones((2,), np_.float32)] * 40,
    ),
}


@pytest.mark.parametrize("name", FILLED)
def test_long_lines_are_filled_as_jax_fills_them(name: str) -> None:
    make, args = FILLED[name]
    expected = str(jax.make_jaxpr(make(JAX))(*args(jnp)))
    got = str(didax.make_jaxpr(make(DIDAX))(*args(dnp)))
    assert max(map(len, expected.splitlines())) > 80  # the program does fill JAX's lines
    assert got == expected, f"\n--- jax\n{expected}\n--- didax\n{got}"
