"""`scan` against JAX: values, jaxpr text, jvp, vmap, grad (scan is the reverse-
differentiable loop), the primitive's own rules, and the errors JAX raises."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import didax
import numpy as np
import pytest
from cf_helpers import Program, Tagged, assert_close, namespaces, transform_calls
from didax.control_flow.scan import scan_p
from helpers.jaxpr_text import canonical
from hypothesis import given, settings
from hypothesis import strategies as st

jax = pytest.importorskip("jax")
from helpers.oracle import EagerJax, jax_quick  # noqa: E402

JX, DX = namespaces()
pytestmark = pytest.mark.oracle

rng = np.random.default_rng(1)


def f32(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def _rnn(ns: SimpleNamespace) -> Callable[..., Any]:
    def fn(w, h0, xs):
        def step(h, x):
            h = ns.np.tanh(ns.np.dot(w, h) + x)
            return h, ns.np.sum(h * h)

        return ns.lax.scan(step, h0, xs)

    return fn


PROGRAMS = [
    Program(
        "cumsum",
        lambda ns: lambda xs: ns.lax.scan(lambda c, x: (c + x, c * x), np.float32(0), xs),
        (f32(5),),
        (f32(3, 5),),
    ),
    Program(
        "reverse",
        lambda ns: (
            lambda xs: ns.lax.scan(
                lambda c, x: (c * 0.9 + x, ns.np.sin(c)), np.float32(1), xs, reverse=True
            )
        ),
        (f32(4),),
        (f32(3, 4),),
    ),
    Program(
        "closure",
        lambda ns: lambda w, xs: ns.lax.scan(lambda c, x: (c * w + x, c - w), w, xs),
        (np.float32(0.8), f32(6)),
        (f32(3), f32(6)),
        (0, None),
    ),
    Program(
        "rnn",
        _rnn,
        (f32(3, 3) * 0.5, f32(3), f32(4, 3)),
        (f32(3, 3, 3) * 0.5, f32(3, 3), f32(3, 4, 3)),
    ),
    Program(
        "pytree",
        lambda ns: (
            lambda a, b: ns.lax.scan(
                lambda c, x: ({"p": c["p"] * x[0], "q": c["q"] + x[1]}, (x[0] + c["q"], None)),
                {"p": a, "q": b},
                (ns.np.ones(3) * a, ns.np.arange(3.0)),
            )
        ),
        (np.float32(1.1), np.float32(0.5)),
        (f32(3), f32(3)),
    ),
    Program(
        "length_only",
        lambda ns: lambda x: ns.lax.scan(lambda c, _: (c * 1.5, c), x, None, length=4),
        (f32(2),),
        (f32(3, 2),),
    ),
    Program(
        "forwarded_carry",
        lambda ns: lambda x, xs: ns.lax.scan(lambda c, a: ((c[0], c[1] + a * c[0]), a), (x, x), xs),
        (np.float32(2.0), f32(4)),
        (f32(3), f32(3, 4)),
    ),
    Program(
        "nested",
        lambda ns: (
            lambda x, xs: ns.lax.scan(
                lambda c, row: (ns.lax.scan(lambda d, y: (d + y * c, d), c, row)[0], c), x, xs
            )
        ),
        (np.float32(0.3), f32(3, 2)),
        (f32(3), f32(3, 3, 2)),
    ),
    Program(
        "cond_in_scan",
        lambda ns: (
            lambda xs: ns.lax.scan(
                lambda c, x: (ns.lax.cond(x > 0, lambda u: u + x, lambda u: u * x, c), c),
                np.float32(1),
                xs,
            )
        ),
        (f32(6),),
        (f32(3, 6),),
    ),
    Program(
        "zero_length",
        lambda ns: lambda x, xs: ns.lax.scan(lambda c, a: (c + a, c * a), x, xs),
        (np.float32(1.0), np.zeros(0, np.float32)),
    ),
]
BY_NAME = {p.name: p for p in PROGRAMS}


def _jvp_call(prog: Program, ns: SimpleNamespace, jvp: Callable[..., Any]) -> Any:
    """`jvp` of the program in all its arguments, the tangents 0.25."""
    argnums = list(range(len(prog.args)))
    tangents = tuple(np.full_like(a, 0.25) for a in prog.args)
    fn = prog.make(ns)
    return jvp(lambda *xs: fn(*_with(prog.args, argnums, xs)), tuple(prog.args), tangents)


# JAX's answers to the eval, jvp, vmap and grad tests as compiled programs (helpers/oracle.py;
# eagerly, each of JAX's operations is a compile of its own)
JAX_ANSWERS = EagerJax(
    lambda: transform_calls(
        PROGRAMS,
        JX,
        lambda prog: _jvp_call(prog, JX, jax.jvp),
        lambda prog: jax.grad(_loss(JX, prog), tuple(range(len(prog.args)))),
    ),
    chunk=12,
)


def _jax(kind: str, prog: Program) -> Any:
    return JAX_ANSWERS.result((kind, prog.name))


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_eval_matches_jax(prog: Program) -> None:
    assert_close(prog.make(DX)(*prog.args), _jax("eval", prog))


# The scan programs whose jaxprs JAX and didax write alike (`arange` and `dot` are written
# differently by didax.numpy, not by scan).
TEXT = [
    "cumsum",
    "reverse",
    "closure",
    "length_only",
    "forwarded_carry",
    "nested",
    "cond_in_scan",
    "zero_length",
]


@pytest.mark.parametrize("name", TEXT)
def test_jaxpr_text_matches_jax(name: str) -> None:
    prog = BY_NAME[name]
    got = str(didax.make_jaxpr(prog.make(DX))(*prog.args))
    want = str(jax.make_jaxpr(prog.make(JX))(*prog.args))
    assert canonical(got) == canonical(want)


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_staged_jaxpr_typechecks_and_evaluates(prog: Program) -> None:
    closed = didax.make_jaxpr(prog.make(DX))(*prog.args)
    didax.typecheck(closed.jaxpr)
    got = didax.eval_jaxpr(closed.jaxpr, closed.consts, *didax.tree_util.tree_leaves(prog.args))
    assert_close(got, didax.tree_util.tree_leaves(prog.make(DX)(*prog.args)))


def _with(args: tuple, argnums: list[int], xs: tuple) -> list[Any]:
    out = list(args)
    for i, x in zip(argnums, xs, strict=True):
        out[i] = x
    return out


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_jvp_matches_jax(prog: Program) -> None:
    assert_close(_jvp_call(prog, DX, didax.jvp), _jax("jvp", prog))


def test_jvp_jaxpr_text_matches_jax() -> None:
    def make(ns: SimpleNamespace) -> Callable[..., Any]:
        inner = lambda x, xs: ns.lax.scan(lambda c, a: (c * a, ns.np.sin(c)), x, xs)
        return lambda x, xs: ns.jvp(inner, (x, xs), (x, xs))

    args = (np.float32(0.5), f32(3))
    assert canonical(str(didax.make_jaxpr(make(DX))(*args))) == canonical(
        str(jax.make_jaxpr(make(JX))(*args))
    )


BATCHED = [p for p in PROGRAMS if p.batch is not None]


@pytest.mark.parametrize("prog", BATCHED, ids=lambda p: p.name)
def test_vmap_matches_jax(prog: Program) -> None:
    got = didax.vmap(prog.make(DX), in_axes=prog.in_axes)(*prog.batch)
    assert_close(got, _jax("vmap", prog))


@pytest.mark.parametrize("name", ["cumsum", "closure", "forwarded_carry", "nested"])
def test_vmap_jaxpr_text_matches_jax(name: str) -> None:
    prog = BY_NAME[name]
    got = didax.make_jaxpr(didax.vmap(prog.make(DX), in_axes=prog.in_axes))(*prog.batch)
    want = jax.make_jaxpr(jax.vmap(prog.make(JX), in_axes=prog.in_axes))(*prog.batch)
    assert canonical(str(got)) == canonical(str(want))


def test_vmap_over_xs_axis_one() -> None:
    make = BY_NAME["cumsum"].make
    xs = f32(5, 3)
    assert_close(didax.vmap(make(DX), in_axes=1)(xs), jax.vmap(make(JX), in_axes=1)(xs))


def _loss(ns: SimpleNamespace, prog: Program) -> Callable[..., Any]:
    fn = prog.make(ns)
    leaves = jax.tree_util.tree_leaves if ns is JX else didax.tree_util.tree_leaves
    return lambda *args: sum(ns.np.sum(ns.np.sin(leaf)) for leaf in leaves(fn(*args)))


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_grad_matches_jax(prog: Program) -> None:
    argnums = tuple(range(len(prog.args)))
    got = didax.grad(_loss(DX, prog), argnums)(*prog.args)
    assert_close(got, _jax("grad", prog))


def test_grad_jaxpr_text_matches_jax() -> None:
    def make(ns: SimpleNamespace) -> Callable[..., Any]:
        return ns.grad(lambda x, xs: ns.lax.scan(lambda c, a: (c * ns.np.sin(a), c), x, xs)[0])

    args = (np.float32(1.0), f32(3))
    assert canonical(str(didax.make_jaxpr(make(DX))(*args))) == canonical(
        str(jax.make_jaxpr(make(JX))(*args))
    )


def test_vjp_matches_jax() -> None:
    prog = BY_NAME["rnn"]
    out, f_vjp = didax.vjp(prog.make(DX), *prog.args)
    out_j, f_vjp_j = jax.vjp(prog.make(JX), *prog.args)
    cts = (f32(3), f32(4))
    assert_close(out, out_j)
    assert_close(f_vjp(cts), f_vjp_j(cts))


def test_hessian_through_scan() -> None:
    def make(ns: SimpleNamespace) -> Callable[..., Any]:
        return lambda w: ns.lax.scan(
            lambda c, x: (ns.np.sin(c * w) + x, c), w, ns.np.ones(3) * 0.5
        )[0]

    ws = (np.float32(0.3), np.float32(1.2))
    # JAX's side as one program (eagerly, each of its operations is a compile of its own)
    wants = jax_quick(lambda *ws: [jax.grad(jax.grad(make(JX)))(w) for w in ws], *ws)
    for w, want in zip(ws, wants, strict=True):
        assert_close(didax.grad(didax.grad(make(DX)))(w), want)


def test_grad_of_vmap_and_vmap_of_grad() -> None:
    prog = BY_NAME["rnn"]

    def batched_loss(ns: SimpleNamespace) -> Callable[..., Any]:
        return lambda *args: ns.np.sum(ns.vmap(_loss(ns, prog))(*args))

    # JAX's side as one program (eagerly, each of its operations is a compile of its own)
    want_grad, want_vmap = jax_quick(
        lambda *b: (
            jax.grad(batched_loss(JX), (0, 1, 2))(*b),
            jax.vmap(jax.grad(_loss(JX, prog)))(*b),
        ),
        *prog.batch,
    )
    assert_close(didax.grad(batched_loss(DX), (0, 1, 2))(*prog.batch), want_grad)
    assert_close(didax.vmap(didax.grad(_loss(DX, prog)))(*prog.batch), want_vmap)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 6), st.booleans(), st.floats(-2, 2, width=32))
def test_scan_is_the_python_loop(length: int, reverse: bool, scale: float) -> None:
    xs = (np.arange(length, dtype=np.float32) - 2.0) * np.float32(scale)
    carry, ys = np.float32(0.5), [None] * length
    for i in reversed(range(length)) if reverse else range(length):
        carry, ys[i] = carry * np.float32(0.5) + xs[i], carry * xs[i]
    got_c, got_ys = didax.lax.scan(
        lambda c, x: (c * 0.5 + x, c * x), np.float32(0.5), xs, reverse=reverse
    )
    np.testing.assert_allclose(np.asarray(got_c), carry, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        np.asarray(got_ys), np.array(ys, np.float32).reshape(length), rtol=1e-5, atol=1e-6
    )


def test_ys_forwarded_from_xs_are_not_outputs() -> None:
    closed = didax.make_jaxpr(lambda xs: didax.lax.scan(lambda c, x: (c + x, x), 0.0, xs))(f32(3))
    (eqn,) = closed.eqns
    assert len(eqn.outvars) == 1  # only the carry: the ys are the xs themselves


def test_scan_params_are_jaxs() -> None:
    closed = didax.make_jaxpr(BY_NAME["cumsum"].make(DX))(*BY_NAME["cumsum"].args)
    (eqn,) = closed.eqns
    assert eqn.primitive is scan_p
    assert set(eqn.params) == {"jaxpr", "length", "num_carry", "num_consts", "reverse", "unroll"}


# ----------------------------------------------------------------------------- errors


def _error(fn: Callable[[], Any]) -> BaseException:
    with pytest.raises(Exception) as info:
        fn()
    return info.value


ERRORS = {
    "carry_shape": lambda ns: ns.lax.scan(
        lambda c, a: (ns.np.stack([c, c]), a), np.float32(1), np.ones(3, np.float32)
    ),
    "carry_dtype": lambda ns: ns.lax.scan(
        lambda c, a: ((c[0], c[1].astype(ns.np.int32)), a),
        (np.float32(1), np.float32(2)),
        np.ones(3, np.float32),
    ),
    "carry_tree": lambda ns: ns.lax.scan(
        lambda c, a: ((c, c), a), np.float32(1), np.ones(3, np.float32)
    ),
    # a registered namedtuple with fewer children than fields: paths from its flatten
    "tagged_carry_dtype": lambda ns: ns.lax.scan(
        lambda c, a: (Tagged(c.a.astype(ns.np.int32), c.b, c.tag), a),
        Tagged(np.float32(1), np.float32(2), "t"),
        np.ones(3, np.float32),
    ),
    "tagged_carry_meta": lambda ns: ns.lax.scan(
        lambda c, a: (Tagged(c.a, c.b, "other"), a),
        Tagged(np.float32(1), np.float32(2), "t"),
        np.ones(3, np.float32),
    ),
    "dict_carry_extra_key": lambda ns: ns.lax.scan(
        lambda c, a: ({**c, "b": c["a"]}, a), {"a": np.float32(1)}, np.ones(3, np.float32)
    ),
    "dict_carry_other_key": lambda ns: ns.lax.scan(
        lambda c, a: ({"b": c["a"]}, a), {"a": np.float32(1)}, np.ones(3, np.float32)
    ),
    "not_a_pair": lambda ns: ns.lax.scan(lambda c, a: c, np.float32(1), np.ones(3, np.float32)),
    "lengths_differ": lambda ns: ns.lax.scan(
        lambda c, a: (c, a), np.float32(1), (np.ones(3, np.float32), np.ones(4, np.float32))
    ),
    "length_disagrees": lambda ns: ns.lax.scan(
        lambda c, a: (c, a), np.float32(1), np.ones(3, np.float32), length=4
    ),
    "no_length": lambda ns: ns.lax.scan(lambda c, a: (c, a), np.float32(1), None),
    "not_callable": lambda ns: ns.lax.scan(3, np.float32(1), None, length=2),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_jax(name: str) -> None:
    got, want = _error(lambda: ERRORS[name](DX)), _error(lambda: ERRORS[name](JX))
    assert type(got) is type(want), (got, want)
    if name == "not_a_pair":  # JAX prints the output avals (~float32[]), didax the tree
        return
    # JAX calls a leaf of the carry "a <class 'jax._src.core.ShapedArray'>" (it compares
    # trees of avals); didax says "a pytree leaf", as JAX does for cond's branch outputs.
    assert str(got) == str(want).replace("<class 'jax._src.core.ShapedArray'>", "pytree leaf")


def test_a_registered_namedtuple_with_fewer_children_than_fields_is_a_carry() -> None:
    def run(ns: SimpleNamespace) -> Any:
        init = Tagged(np.float32(1), np.arange(3, dtype=np.float32), "t")
        step = lambda c, x: (Tagged(c.a + x, c.b * 2, c.tag), c.a * x)  # noqa: E731
        fori = ns.lax.fori_loop(0, 3, lambda i, c: step(c, 1.0)[0], init)
        return ns.lax.scan(step, init, np.arange(4, dtype=np.float32)), fori

    got, want = run(DX), run(JX)
    assert got[0][0].tag == want[0][0].tag == "t"
    assert_close(got, want)


def test_carry_type_error_names_the_types() -> None:
    e = _error(lambda: ERRORS["carry_dtype"](DX))
    assert isinstance(e, TypeError)
    assert (
        "The input carry component c[1] has type float32[] but the corresponding output "
        "carry component has type int32[], so the dtypes do not match." in str(e)
    )
