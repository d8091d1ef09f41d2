"""`cond` and `switch` against JAX: values, jaxpr text, jvp, vmap (a batched predicate
included), grad, and the errors JAX raises. Each program is written once against a namespace
(`ns.np`, `ns.lax`) and run under both libraries."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import didax
import numpy as np
import pytest
from cf_helpers import Program, Tagged, assert_close, namespaces, transform_calls
from didax.control_flow.cond import cond_p
from helpers.jaxpr_text import canonical
from hypothesis import given, settings
from hypothesis import strategies as st

jax = pytest.importorskip("jax")
from helpers.oracle import EagerJax, jax_quick  # noqa: E402

JX, DX = namespaces()
pytestmark = pytest.mark.oracle

rng = np.random.default_rng(0)


def f32(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def _branches(ns: SimpleNamespace) -> list[Callable[[Any], Any]]:
    return [lambda y: y + 1.0, lambda y: ns.np.sin(y) * 2.0, lambda y: y * y]


PROGRAMS = [
    Program(
        "cond_gt",
        lambda ns: lambda x: ns.lax.cond(x > 0, lambda y: ns.np.sin(y), lambda y: y * 2.0, x),
        (np.float32(0.7),),
        (np.array([0.5, -1.0, 2.0], np.float32),),
    ),
    Program(
        "cond_false",
        lambda ns: lambda x: ns.lax.cond(x > 0, lambda y: ns.np.sin(y), lambda y: y * 2.0, x),
        (np.float32(-0.7),),
    ),
    Program(
        "cond_closure",
        lambda ns: (
            lambda x, w: ns.lax.cond(
                x.sum() > 0, lambda y: y * w + ns.np.cos(w), lambda y: y - w, x
            )
        ),
        (f32(3), f32(3)),
        (f32(3, 3), f32(3, 3)),
    ),
    Program(
        "cond_pytree",
        lambda ns: (
            lambda x, y: ns.lax.cond(
                x[0] < y,
                lambda a, b: {"s": a * b, "t": (a, b + 1.0)},
                lambda a, b: {"s": a - b, "t": (a * 2.0, b)},
                x,
                y,
            )
        ),
        (f32(2), np.float32(0.3)),
        (f32(3, 2), f32(3)),
    ),
    Program(
        "cond_int_pred",
        lambda ns: lambda n, x: ns.lax.cond(n, lambda y: ns.np.exp(y), lambda y: -y, x),
        (np.int32(2), np.float32(0.4)),
    ),
    Program(
        "cond_operand_kw",
        lambda ns: lambda x: ns.lax.cond(x < 1.0, lambda y: y * 3.0, lambda y: y, operand=x),
        (np.float32(0.5),),
    ),
    Program(
        "switch",
        lambda ns: lambda i, x: ns.lax.switch(i, _branches(ns), x),
        (np.int32(1), np.float32(0.3)),
        (np.array([0, 1, 2], np.int32), np.array([0.1, 0.2, 0.3], np.float32)),
    ),
    Program(
        "switch_clamps_low",
        lambda ns: lambda i, x: ns.lax.switch(i, _branches(ns), x),
        (np.int32(-4), np.float32(0.3)),
    ),
    Program(
        "switch_clamps_high",
        lambda ns: lambda i, x: ns.lax.switch(i, _branches(ns), x),
        (np.int32(9), np.float32(0.3)),
        (np.array([-1, 5, 1], np.int32), np.array([0.1, 0.2, 0.3], np.float32)),
    ),
    Program(
        "nested",
        lambda ns: (
            lambda x: ns.lax.cond(
                x > 0, lambda y: ns.lax.cond(y > 1.0, ns.np.sin, ns.np.cos, y), lambda y: y * y, x
            )
        ),
        (np.float32(1.5),),
        (np.array([1.5, 0.5, -2.0], np.float32),),
    ),
]
BY_NAME = {p.name: p for p in PROGRAMS}


def _jax(kind: str, prog: Program) -> Any:
    return JAX_ANSWERS.result((kind, prog.name))


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_eval_matches_jax(prog: Program) -> None:
    assert_close(prog.make(DX)(*prog.args), _jax("eval", prog))


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_jaxpr_text_matches_jax(prog: Program) -> None:
    got = str(didax.make_jaxpr(prog.make(DX))(*prog.args))
    want = str(jax.make_jaxpr(prog.make(JX))(*prog.args))
    assert canonical(got) == canonical(want)


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_staged_jaxpr_typechecks_and_evaluates(prog: Program) -> None:
    closed = didax.make_jaxpr(prog.make(DX))(*prog.args)
    didax.typecheck(closed.jaxpr)
    leaves = didax.tree_util.tree_leaves(prog.args)
    got = didax.eval_jaxpr(closed.jaxpr, closed.consts, *leaves)
    want = didax.tree_util.tree_leaves(prog.make(DX)(*prog.args))
    assert_close(got, want)


def _float_args(prog: Program) -> list[int]:
    return [i for i, a in enumerate(prog.args) if np.asarray(a).dtype.kind == "f"]


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_jvp_matches_jax(prog: Program) -> None:
    assert_close(_jvp_call(prog, DX, didax.jvp), _jax("jvp", prog))


def _jvp_call(prog: Program, ns: SimpleNamespace, jvp: Callable[..., Any]) -> Any:
    """`jvp` of the program in its float arguments, the tangents 0.5."""
    argnums = _float_args(prog)
    tangents = tuple(np.ones_like(prog.args[i]) * 0.5 for i in argnums)
    fn = prog.make(ns)

    def partial(*xs: Any) -> Any:
        args = list(prog.args)
        for i, x in zip(argnums, xs, strict=True):
            args[i] = x
        return fn(*args)

    return jvp(partial, tuple(prog.args[i] for i in argnums), tangents)


BATCHED = [p for p in PROGRAMS if p.batch is not None]


@pytest.mark.parametrize("prog", BATCHED, ids=lambda p: p.name)
def test_vmap_matches_jax(prog: Program) -> None:
    assert_close(didax.vmap(prog.make(DX))(*prog.batch), _jax("vmap", prog))


@pytest.mark.parametrize("prog", BATCHED, ids=lambda p: p.name)
def test_vmap_jaxpr_text_matches_jax(prog: Program) -> None:
    got = str(didax.make_jaxpr(didax.vmap(prog.make(DX)))(*prog.batch))
    want = str(jax.make_jaxpr(jax.vmap(prog.make(JX)))(*prog.batch))
    assert canonical(got) == canonical(want)


def test_vmap_batched_predicate_is_a_select() -> None:
    prog = BY_NAME["cond_gt"]
    closed = didax.make_jaxpr(didax.vmap(prog.make(DX)))(*prog.batch)
    names = [e.primitive.name for e in closed.eqns]
    assert "cond" not in names and names[-1] == "select_n"


def test_vmap_unbatched_predicate_stays_a_cond() -> None:
    fn = didax.vmap(
        lambda p, x: didax.lax.cond(p, didax.numpy.sin, didax.numpy.cos, x), in_axes=(None, 0)
    )
    closed = didax.make_jaxpr(fn)(True, f32(4))
    assert [e.primitive for e in closed.eqns].count(cond_p) == 1
    assert_close(fn(True, np.ones(4, np.float32)), np.sin(np.ones(4, np.float32)))


def test_vmap_in_axes_other_than_zero() -> None:
    make = BY_NAME["cond_closure"].make
    xs, ws = f32(3, 4), f32(3)
    assert_close(
        didax.vmap(make(DX), in_axes=(1, None))(xs, ws),
        jax_quick(jax.vmap(make(JX), in_axes=(1, None)), xs, ws),
    )


GRADS = [
    "cond_gt",
    "cond_false",
    "cond_closure",
    "cond_pytree",
    "switch",
    "switch_clamps_high",
    "nested",
]


def _scalar_loss(ns: SimpleNamespace, prog: Program) -> Callable[..., Any]:
    fn = prog.make(ns)
    return lambda *args: sum(
        ns.np.sum(leaf)
        for leaf in (
            jax.tree_util.tree_leaves(fn(*args))
            if ns is JX
            else didax.tree_util.tree_leaves(fn(*args))
        )
    )


@pytest.mark.parametrize("name", GRADS)
def test_grad_matches_jax(name: str) -> None:
    prog = BY_NAME[name]
    argnums = tuple(_float_args(prog))
    got = didax.grad(_scalar_loss(DX, prog), argnums)(*prog.args)
    assert_close(got, _jax("grad", prog))


# JAX's answers to the eval, jvp, vmap and grad tests as compiled programs (helpers/oracle.py;
# eagerly, each of JAX's operations is a compile of its own)
JAX_ANSWERS = EagerJax(
    lambda: transform_calls(
        PROGRAMS,
        JX,
        lambda prog: _jvp_call(prog, JX, jax.jvp),
        lambda prog: (
            jax.grad(_scalar_loss(JX, prog), tuple(_float_args(prog)))
            if prog.name in GRADS
            else None
        ),
    ),
    chunk=12,
)


def test_grad_of_vmap_with_batched_predicate() -> None:
    def make(ns: SimpleNamespace) -> Callable[..., Any]:
        inner = BY_NAME["cond_gt"].make(ns)
        return lambda xs: ns.np.sum(ns.vmap(inner)(xs))

    xs = np.array([0.5, -1.0, 2.0, -0.1], np.float32)
    assert_close(didax.grad(make(DX))(xs), jax_quick(jax.grad(make(JX)), xs))


def test_vmap_of_grad() -> None:
    def make(ns: SimpleNamespace) -> Callable[..., Any]:
        return ns.vmap(ns.grad(BY_NAME["cond_gt"].make(ns)))

    xs = np.array([0.5, -1.0, 2.0, -0.1], np.float32)
    assert_close(make(DX)(xs), jax_quick(make(JX), xs))


def test_grad_of_grad() -> None:
    def make(ns: SimpleNamespace) -> Callable[..., Any]:
        return ns.grad(ns.grad(BY_NAME["nested"].make(ns)))

    xs = (np.float32(1.5), np.float32(0.5), np.float32(-2.0))
    wants = jax_quick(lambda *v: [make(JX)(x) for x in v], *xs)  # one program, not eager JAX
    for x, want in zip(xs, wants, strict=True):
        assert_close(make(DX)(x), want)


@pytest.mark.filterwarnings("ignore:invalid value encountered in log")
def test_unselected_branch_nan_does_not_leak_into_batched_grad() -> None:
    # log of a negative number is NaN; lanes that take the other branch must not see it.
    def make(ns: SimpleNamespace) -> Callable[..., Any]:
        f = lambda x: ns.lax.cond(x > 0, ns.np.log, lambda y: y * 0.0, x)
        return lambda xs: ns.np.sum(ns.vmap(f)(xs))

    xs = np.array([1.0, -1.0, 2.0], np.float32)
    got = didax.grad(make(DX))(xs)
    assert_close(got, jax_quick(jax.grad(make(JX)), xs))
    assert np.isfinite(np.asarray(got)).all()


def test_eager_cond_binds_the_primitive() -> None:
    # Like JAX, a concrete predicate still goes through `cond` (both branches are traced).
    traced = []

    def true_fun(y: Any) -> Any:
        traced.append("true")
        return y + 1.0

    def false_fun(y: Any) -> Any:
        traced.append("false")
        return y - 1.0

    out = didax.lax.cond(True, true_fun, false_fun, np.float32(1.0))
    assert sorted(traced) == ["false", "true"]
    assert isinstance(out, didax.Array) and float(out) == 2.0


def test_branch_returning_operand_is_forwarded() -> None:
    fn = lambda ns: (
        lambda x, y: ns.lax.cond(x > 0, lambda a, b: (a, b + 1.0), lambda a, b: (a, b * 2.0), x, y)
    )
    args = (np.float32(1.0), np.float32(2.0))
    closed = didax.make_jaxpr(fn(DX))(*args)
    (eqn,) = [e for e in closed.eqns if e.primitive is cond_p]
    assert len(eqn.outvars) == 1  # `a` is returned directly, as JAX does
    assert_close(fn(DX)(*args), fn(JX)(*args))


SWITCH_BRANCHES = [lambda y: y + 1.0, lambda y: y * 3.0, lambda y: -y, lambda y: y * y]
# staged once: the index is an argument, so every example runs the one compiled program
STAGED_SWITCH = didax.jit(lambda i, y: didax.lax.switch(i, SWITCH_BRANCHES, y))


@settings(max_examples=30, deadline=None)
@given(st.integers(-5, 8), st.floats(-3, 3, width=32))
def test_switch_is_the_clamped_python_choice(index: int, x: float) -> None:
    branches = SWITCH_BRANCHES
    want = branches[min(max(index, 0), 3)](np.float32(x))
    got = didax.lax.switch(index, branches, np.float32(x))
    staged = STAGED_SWITCH(np.int32(index), np.float32(x))
    # JAX's float32 tolerance (XLA flushes subnormal results such as (1e-20)**2 to zero)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(staged), want, rtol=1e-4, atol=1e-5)


def test_single_branch_switch_calls_it() -> None:
    closed = didax.make_jaxpr(lambda i, x: didax.lax.switch(i, [didax.numpy.sin], x))(
        np.int32(0), np.float32(1.0)
    )
    assert [e.primitive.name for e in closed.eqns] == ["sin"]


# ----------------------------------------------------------------------------- errors


def _error(fn: Callable[[], Any]) -> BaseException:
    with pytest.raises(Exception) as info:
        fn()
    return info.value


ERRORS = {
    "dtype_mismatch": lambda ns: ns.lax.cond(
        True, lambda y: y, lambda y: y.astype(ns.np.int32), np.float32(1.0)
    ),
    "tagged_dtype_mismatch": lambda ns: ns.lax.cond(
        True,
        lambda y: y,
        lambda y: Tagged(y.a, y.b.astype(ns.np.int32), y.tag),
        Tagged(1.0, 2.0, "t"),
    ),
    "tagged_meta_mismatch": lambda ns: ns.lax.cond(
        True, lambda y: y, lambda y: Tagged(y.a, y.b, "u"), Tagged(1.0, 2.0, "t")
    ),
    "dict_extra_key": lambda ns: ns.lax.cond(
        True, lambda y: {"a": y}, lambda y: {"a": y, "b": y}, np.float32(1.0)
    ),
    "shape_mismatch": lambda ns: ns.lax.cond(
        True, lambda y: y, lambda y: ns.np.stack([y, y]), np.float32(1.0)
    ),
    "tree_mismatch": lambda ns: ns.lax.cond(True, lambda y: (y, y), lambda y: y, np.float32(1.0)),
    "length_mismatch": lambda ns: ns.lax.cond(
        True, lambda y: (y, y), lambda y: (y, y, y), np.float32(1.0)
    ),
    "pred_not_scalar": lambda ns: ns.lax.cond(
        np.array([True, False]), lambda y: y, lambda y: y, np.float32(1.0)
    ),
    "pred_none": lambda ns: ns.lax.cond(None, lambda y: y, lambda y: y, np.float32(1.0)),
    "not_callable": lambda ns: ns.lax.cond(True, 1.0, lambda y: y, np.float32(1.0)),
    "switch_float_index": lambda ns: ns.lax.switch(
        1.0, [lambda y: y, lambda y: y], np.float32(1.0)
    ),
    "switch_index_not_scalar": lambda ns: ns.lax.switch(
        np.array([1, 0]), [lambda y: y, lambda y: y], np.float32(1.0)
    ),
    "switch_empty": lambda ns: ns.lax.switch(1, [], np.float32(1.0)),
    "switch_dtype_mismatch": lambda ns: ns.lax.switch(
        1, [lambda y: y, lambda y: y, lambda y: y > 0], np.float32(1.0)
    ),
    "operand_and_operands": lambda ns: ns.lax.cond(
        True, lambda y: y, lambda y: y, np.float32(1.0), operand=np.float32(1.0)
    ),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_jax(name: str) -> None:
    # Same type and same message (the functions' source locations included).
    got, want = _error(lambda: ERRORS[name](DX)), _error(lambda: ERRORS[name](JX))
    assert type(got) is type(want), (got, want)
    assert str(got) == str(want)


def test_dtype_mismatch_names_the_types() -> None:
    e = _error(lambda: ERRORS["dtype_mismatch"](DX))
    assert isinstance(e, TypeError)
    assert (
        "The output of true_fun has type float32[] but the corresponding output of "
        "false_fun has type int32[], so the dtypes do not match." in str(e)
    )


def test_cond_primitive_rejects_a_float_index() -> None:
    branch = didax.make_jaxpr(lambda y: y)(np.float32(0))
    staged = didax.make_jaxpr(lambda i, x: cond_p.bind(i, x, branches=(branch, branch)))
    with pytest.raises(TypeError, match="int32 scalar"):
        staged(np.float32(0), np.float32(1))
