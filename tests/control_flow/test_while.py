"""`while_loop` and `fori_loop` against JAX: values, jaxpr text (a static-bound fori_loop is a
scan, a traced one a while), jvp, vmap with a batched predicate (lanes finish at different
iterations), grad (static fori_loop) and the reverse-mode error of a while, and the errors
JAX raises."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import didax
import numpy as np
import pytest
from cf_helpers import Program, Tagged, assert_close, canonical, namespaces
from didax.control_flow.while_loop import while_p

jax = pytest.importorskip("jax")
JX, DX = namespaces()
pytestmark = pytest.mark.oracle

rng = np.random.default_rng(2)


def f32(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def _collatz(ns: SimpleNamespace) -> Callable[..., Any]:
    def fn(n):
        def body(c):
            k, steps = c
            k = ns.np.where(k % 2 == 0, k // 2, 3 * k + 1)
            return k, steps + 1

        return ns.lax.while_loop(lambda c: c[0] > 1, body, (n, 0))[1]

    return fn


PROGRAMS = [
    Program(
        "doubling",
        lambda ns: lambda x: ns.lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x),
        (np.float32(0.3),),
        (np.array([0.3, 4.0, 20.0], np.float32),),
    ),
    Program(
        "tuple_carry",
        lambda ns: (
            lambda x, y: ns.lax.while_loop(
                lambda c: c[0] < 5.0,
                lambda c: (c[0] + 1.0, c[1] * ns.np.cos(c[0]), c[2]),
                (x, y, y),
            )
        ),
        (np.float32(0.5), f32(2)),
        (np.array([0.5, 3.0, 7.0], np.float32), f32(3, 2)),
    ),
    Program(
        "consts",
        lambda ns: (
            lambda x, w: ns.lax.while_loop(
                lambda c: ns.np.sum(c) < w * 10.0, lambda c: c * w + 1.0, x
            )
        ),
        (f32(3), np.float32(1.5)),
        (f32(3, 3), np.array([1.5, 2.0, 1.1], np.float32)),
    ),
    Program("collatz", _collatz, (np.int32(27),), (np.array([27, 1, 6], np.int32),)),
    Program(
        "fori_static",
        lambda ns: lambda x: ns.lax.fori_loop(0, 5, lambda i, c: c * 0.5 + ns.np.sin(c) + i, x),
        (f32(3),),
        (f32(3, 3),),
    ),
    Program(
        "fori_static_pytree",
        lambda ns: (
            lambda x, y: ns.lax.fori_loop(2, 6, lambda i, c: (c[0] * c[1], c[1] + 1.0), (x, y))
        ),
        (np.float32(0.9), np.float32(0.2)),
        (f32(3), f32(3)),
    ),
    Program(
        "fori_traced",
        lambda ns: lambda x, n: ns.lax.fori_loop(0, n, lambda i, c: c * 1.5 + i, x),
        (np.float32(0.5), np.int32(4)),
        (f32(3), np.array([0, 3, 5], np.int32)),
    ),
    Program(
        "fori_traced_lower",
        lambda ns: lambda x, n: ns.lax.fori_loop(n, 6, lambda i, c: c + ns.np.sin(c * i), x),
        (np.float32(0.5), np.int32(2)),
        (np.float32(0.5), np.array([0, 3, 7], np.int32)),
        (None, 0),
    ),
    Program(
        "fori_empty",
        lambda ns: lambda x: ns.lax.fori_loop(5, 2, lambda i, c: c * 100.0, x),
        (np.float32(1.5),),
    ),
    Program(
        "cond_in_while",
        lambda ns: (
            lambda x: ns.lax.while_loop(
                lambda c: c[1] < 6,
                lambda c: (
                    ns.lax.cond(c[0] > 1.0, lambda u: u * 0.5, lambda u: u * 3.0, c[0]),
                    c[1] + 1,
                ),
                (x, 0),
            )[0]
        ),
        (np.float32(0.7),),
        (np.array([0.7, 2.0, 9.0], np.float32),),
    ),
    Program(
        "scan_in_while",
        lambda ns: (
            lambda x: ns.lax.while_loop(
                lambda c: c[0] < 30.0,
                lambda c: (ns.lax.scan(lambda a, b: (a + b, a), c[0], c[1])[0], c[1] * 1.5),
                (x, ns.np.ones(3)),
            )
        ),
        (np.float32(0.5),),
        (np.array([0.5, 10.0, 40.0], np.float32),),
    ),
]
BY_NAME = {p.name: p for p in PROGRAMS}


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_eval_matches_jax(prog: Program) -> None:
    assert_close(prog.make(DX)(*prog.args), prog.make(JX)(*prog.args))


TEXT = [
    "doubling",
    "tuple_carry",
    "fori_static",
    "fori_static_pytree",
    "fori_traced",
    "fori_traced_lower",
    "fori_empty",
    "cond_in_while",
]


@pytest.mark.parametrize("name", TEXT)
def test_jaxpr_text_matches_jax(name: str) -> None:
    prog = BY_NAME[name]
    got = str(didax.make_jaxpr(prog.make(DX))(*prog.args))
    want = str(jax.make_jaxpr(prog.make(JX))(*prog.args))
    assert canonical(got) == canonical(want)


def test_fori_loop_static_bounds_is_a_scan_traced_bounds_a_while() -> None:
    static = didax.make_jaxpr(BY_NAME["fori_static"].make(DX))(f32(3))
    traced = didax.make_jaxpr(BY_NAME["fori_traced"].make(DX))(np.float32(1), np.int32(3))
    assert [e.primitive.name for e in static.eqns] == ["scan"]
    assert [e.primitive.name for e in traced.eqns] == ["while"]


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_staged_jaxpr_typechecks_and_evaluates(prog: Program) -> None:
    closed = didax.make_jaxpr(prog.make(DX))(*prog.args)
    didax.typecheck(closed.jaxpr)
    got = didax.eval_jaxpr(closed.jaxpr, closed.consts, *didax.tree_util.tree_leaves(prog.args))
    assert_close(got, didax.tree_util.tree_leaves(prog.make(DX)(*prog.args)))


def _float_argnums(args: tuple) -> list[int]:
    return [i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f"]


def _with(args: tuple, argnums: list[int], xs: tuple) -> list[Any]:
    out = list(args)
    for i, x in zip(argnums, xs, strict=True):
        out[i] = x
    return out


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_jvp_matches_jax(prog: Program) -> None:
    argnums = _float_argnums(prog.args)
    if not argnums:
        pytest.skip("no float input")
    primals = tuple(prog.args[i] for i in argnums)
    tangents = tuple(np.full_like(p, 0.5) for p in primals)

    def run(ns: SimpleNamespace, jvp: Callable[..., Any]) -> Any:
        fn = prog.make(ns)
        return jvp(lambda *xs: fn(*_with(prog.args, argnums, xs)), primals, tangents)

    assert_close(run(DX, didax.jvp), run(JX, jax.jvp))


def test_jvp_jaxpr_text_matches_jax() -> None:
    def make(ns: SimpleNamespace) -> Callable[..., Any]:
        inner = lambda x, y: ns.lax.while_loop(
            lambda c: c[0] < 5.0, lambda c: (c[0] + 1.0, c[1] * ns.np.sin(c[0]), c[2]), (x, y, y)
        )
        return lambda x, y: ns.jvp(inner, (x, y), (x, y))

    args = BY_NAME["tuple_carry"].args
    assert canonical(str(didax.make_jaxpr(make(DX))(*args))) == canonical(
        str(jax.make_jaxpr(make(JX))(*args))
    )


BATCHED = [p for p in PROGRAMS if p.batch is not None]


@pytest.mark.parametrize("prog", BATCHED, ids=lambda p: p.name)
def test_vmap_matches_jax(prog: Program) -> None:
    got = didax.vmap(prog.make(DX), in_axes=prog.in_axes)(*prog.batch)
    assert_close(got, jax.vmap(prog.make(JX), in_axes=prog.in_axes)(*prog.batch))


# (not cond_in_while: JAX prints the batched predicate's jaxpr, used twice, once as a `let`)
@pytest.mark.parametrize("name", ["doubling", "tuple_carry", "fori_traced", "consts"])
def test_vmap_jaxpr_text_matches_jax(name: str) -> None:
    prog = BY_NAME[name]
    got = didax.make_jaxpr(didax.vmap(prog.make(DX), in_axes=prog.in_axes))(*prog.batch)
    want = jax.make_jaxpr(jax.vmap(prog.make(JX), in_axes=prog.in_axes))(*prog.batch)
    assert canonical(str(got)) == canonical(str(want))


def test_batched_predicate_freezes_finished_lanes() -> None:
    # Lanes need 6, 2 and 0 doublings: each keeps the value it had when its predicate failed.
    xs = np.array([0.2, 4.0, 20.0], np.float32)
    got = didax.vmap(BY_NAME["doubling"].make(DX))(xs)
    np.testing.assert_array_equal(np.asarray(got), np.array([12.8, 16.0, 20.0], np.float32))
    closed = didax.make_jaxpr(didax.vmap(BY_NAME["doubling"].make(DX)))(xs)
    (eqn,) = closed.eqns
    assert eqn.primitive is while_p
    assert eqn.params["cond_jaxpr"].out_avals[0].shape == (3,)  # the predicate is batched


def test_vmap_of_vmap_with_batched_predicates() -> None:
    def make(ns: SimpleNamespace) -> Callable[..., Any]:
        return ns.vmap(ns.vmap(BY_NAME["doubling"].make(ns)))

    xs = np.abs(f32(2, 3)) * 5
    assert_close(make(DX)(xs), make(JX)(xs))
    assert canonical(str(didax.make_jaxpr(make(DX))(xs))) == canonical(
        str(jax.make_jaxpr(make(JX))(xs))
    )


def test_vmap_of_jvp_of_while() -> None:
    def make(ns: SimpleNamespace) -> Callable[..., Any]:
        inner = BY_NAME["tuple_carry"].make(ns)
        return ns.vmap(lambda x, y: ns.jvp(inner, (x, y), (x * 0.5, y)))

    assert_close(make(DX)(*BY_NAME["tuple_carry"].batch), make(JX)(*BY_NAME["tuple_carry"].batch))


GRADS = ["fori_static", "fori_static_pytree", "fori_empty"]


@pytest.mark.parametrize("name", GRADS)
def test_grad_of_static_fori_loop_matches_jax(name: str) -> None:
    prog = BY_NAME[name]

    def loss(ns: SimpleNamespace) -> Callable[..., Any]:
        fn = prog.make(ns)
        leaves = jax.tree_util.tree_leaves if ns is JX else didax.tree_util.tree_leaves
        return lambda *args: sum(ns.np.sum(leaf) for leaf in leaves(fn(*args)))

    argnums = tuple(_float_argnums(prog.args))
    assert_close(didax.grad(loss(DX), argnums)(*prog.args), jax.grad(loss(JX), argnums)(*prog.args))


def test_linearize_of_while_works() -> None:
    # Forward mode (jvp, linearize) differentiates a while; only transposition fails.
    prog = BY_NAME["tuple_carry"]
    y, f_lin = didax.linearize(lambda x: prog.make(DX)(x, prog.args[1]), prog.args[0])
    y_j, f_lin_j = jax.linearize(lambda x: prog.make(JX)(x, prog.args[1]), prog.args[0])
    assert_close(y, y_j)
    assert_close(f_lin(np.float32(1.0)), f_lin_j(np.float32(1.0)))


@pytest.mark.parametrize("name", ["doubling", "tuple_carry", "consts"])
def test_grad_of_while_raises_like_jax(name: str) -> None:
    prog = BY_NAME[name]

    def loss(ns: SimpleNamespace) -> Callable[..., Any]:
        fn = prog.make(ns)
        leaves = jax.tree_util.tree_leaves if ns is JX else didax.tree_util.tree_leaves
        return lambda *args: sum(ns.np.sum(leaf) for leaf in leaves(fn(*args)))

    with pytest.raises(ValueError) as want:
        jax.grad(loss(JX))(*prog.args)
    with pytest.raises(ValueError) as got:
        didax.grad(loss(DX))(*prog.args)
    assert str(got.value) == str(want.value)
    assert "Reverse-mode differentiation does not work for lax.while_loop" in str(got.value)


def test_while_impl_runs_a_batched_predicate() -> None:
    # The primitive itself: a predicate of shape (2,) over carries of shape (2, 3).
    cond = didax.make_jaxpr(lambda c: c[:, 0] < 5.0)(np.zeros((2, 3), np.float32))
    body = didax.make_jaxpr(lambda c: c + 1.0)(np.zeros((2, 3), np.float32))
    init = np.array([[0.0] * 3, [3.5] * 3], np.float32)
    (out,) = while_p.bind(init, cond_nconsts=0, cond_jaxpr=cond, body_nconsts=0, body_jaxpr=body)
    np.testing.assert_array_equal(np.asarray(out), [[5.0] * 3, [5.5] * 3])


# ----------------------------------------------------------------------------- errors


def _error(fn: Callable[[], Any]) -> BaseException:
    with pytest.raises(Exception) as info:
        fn()
    return info.value


ERRORS = {
    "carry_dtype": lambda ns: ns.lax.while_loop(
        lambda c: c < 10, lambda c: c.astype(ns.np.int32), np.float32(1)
    ),
    "carry_component_dtype": lambda ns: ns.lax.while_loop(
        lambda c: c[0] < 10,
        lambda c: (c[0] * 2, c[1].astype(ns.np.int32)),
        (np.float32(1), np.float32(1)),
    ),
    "carry_shape": lambda ns: ns.lax.while_loop(
        lambda c: c.sum() < 10, lambda c: ns.np.stack([c, c]), np.float32(1)
    ),
    "pred_not_scalar": lambda ns: ns.lax.while_loop(
        lambda c: ns.np.array([True, False]), lambda c: c * 2, np.float32(1)
    ),
    "pred_not_bool": lambda ns: ns.lax.while_loop(lambda c: 1.0, lambda c: c * 2, np.float32(1)),
    "pred_tuple": lambda ns: ns.lax.while_loop(
        lambda c: (c < 1, c < 2), lambda c: c * 2, np.float32(1)
    ),
    "not_callable": lambda ns: ns.lax.while_loop(1, lambda c: c, np.float32(1)),
    # a registered namedtuple with fewer children than fields, through both fori_loop paths
    "fori_tagged_carry": lambda ns: ns.lax.fori_loop(
        0, 3, lambda i, c: Tagged(c.a.astype(ns.np.int32), c.b, c.tag), Tagged(1.0, 2.0, "t")
    ),
    "fori_tagged_carry_traced": lambda ns: ns.jit(
        lambda n: ns.lax.fori_loop(
            0, n, lambda i, c: Tagged(c.a, c.b.astype(ns.np.int32), c.tag), Tagged(1.0, 2.0, "t")
        )
    )(3),
    "fori_bound_types": lambda ns: ns.lax.fori_loop(
        np.int32(0), np.float32(3), lambda i, c: c, np.float32(1)
    ),
    "fori_unroll_traced": lambda ns: ns.jit(
        lambda n: ns.lax.fori_loop(0, n, lambda i, c: c, np.float32(1), unroll=2)
    )(3),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_jax(name: str) -> None:
    if DX.jit is None and name == "fori_unroll_traced":
        pytest.skip("didax.jit not available yet")
    got, want = _error(lambda: ERRORS[name](DX)), _error(lambda: ERRORS[name](JX))
    assert type(got) is type(want), (got, want)
    if name != "pred_tuple":  # JAX prints its PyTreeDef class, didax its own
        assert str(got) == str(want)


def test_carry_type_error_names_the_types() -> None:
    e = _error(lambda: ERRORS["carry_component_dtype"](DX))
    assert isinstance(e, TypeError)
    assert (
        "The input carry component c[1] has type float32[] but the corresponding output "
        "carry component has type int32[], so the dtypes do not match." in str(e)
    )
