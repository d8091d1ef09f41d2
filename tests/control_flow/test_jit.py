"""Control flow compiled: every program of test_cond/test_scan/test_while under `jit` (values
against eager didax and JAX), the StableHLO ops each primitive lowers to, and compositions of
jit with vmap (a batched predicate included), jvp and grad in both orders.

JAX's side of the tests of each kind (jit, batched, grad, jvp) is one `jax.jit` program over
all programs (`helpers.oracle.JaxOracle`; a member that fails to trace is compiled alone):
compiled one by one, or run eagerly, each is a compile of its own."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import didax
import numpy as np
import pytest
import test_cond
import test_scan
import test_while
from cf_helpers import assert_close, namespaces
from helpers.grouped import of_args_at
from helpers.oracle import JaxOracle

jax = pytest.importorskip("jax")
JX, DX = namespaces()
pytestmark = [
    pytest.mark.oracle,
    pytest.mark.skipif(DX.jit is None, reason="didax.jit not available"),
]

PROGRAMS = [*test_cond.PROGRAMS, *test_scan.PROGRAMS, *test_while.PROGRAMS]
BATCHED = [p for p in PROGRAMS if p.batch is not None]


def _float_argnums(args: tuple) -> tuple[int, ...]:
    return tuple(i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f")


def _loss(ns: SimpleNamespace, fn: Callable[..., Any]) -> Callable[..., Any]:
    leaves = jax.tree_util.tree_leaves if ns is JX else didax.tree_util.tree_leaves
    return lambda *args: sum(ns.np.sum(ns.np.sin(leaf)) for leaf in leaves(fn(*args)))


def _of_floats(prog: Any, fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` as a function of `prog`'s float arguments, the others held at their values."""
    return of_args_at(fn, prog.args, _float_argnums(prog.args))


GRADS = [
    *(test_cond.BY_NAME[n] for n in test_cond.GRADS),
    *test_scan.PROGRAMS,
    *(test_while.BY_NAME[n] for n in test_while.GRADS),
]
JVPS = [p for p in PROGRAMS if _float_argnums(p.args)]


def _jvp_member(prog: Any) -> Callable[..., Any]:
    n = len(_float_argnums(prog.args))
    fn = _of_floats(prog, jax.jit(prog.make(JX)))
    return lambda *xs: jax.jvp(fn, xs[:n], xs[n:])


def _floats_and_halves(prog: Any) -> list[Any]:
    """The float arguments of `prog`, then their tangents (0.5 everywhere)."""
    primals = [prog.args[i] for i in _float_argnums(prog.args)]
    return [*primals, *(np.full_like(p, 0.5) for p in primals)]


# JAX's jit and jit-of-vmap take all arguments as jit's do; grad and jvp, the float ones (the
# others held, as in an eager call). A vmap of jit and a jit of vmap compute the same values:
# both tests compare with the one batched program. Members are keyed by the Program object
# (two modules have a program named "nested0").
ORACLE = JaxOracle(
    {
        "jit": [(id(p), p.make(JX), list(p.args)) for p in PROGRAMS],
        "batched": [
            (id(p), jax.vmap(p.make(JX), in_axes=p.in_axes), list(p.batch)) for p in BATCHED
        ],
        "grad": [
            (
                id(p),
                _of_floats(p, jax.grad(_loss(JX, p.make(JX)), _float_argnums(p.args))),
                [p.args[i] for i in _float_argnums(p.args)],
            )
            for p in GRADS
        ],
        "jvp": [(id(p), _jvp_member(p), _floats_and_halves(p)) for p in JVPS],
    }
)


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_jit_matches_eager_and_jax(prog: Any) -> None:
    got = didax.jit(prog.make(DX))(*prog.args)
    assert_close(got, prog.make(DX)(*prog.args))
    assert_close(got, ORACLE.result("jit", id(prog)))


@pytest.mark.parametrize("prog", BATCHED, ids=lambda p: p.name)
def test_jit_of_vmap_matches_jax(prog: Any) -> None:
    in_axes = getattr(prog, "in_axes", 0)
    got = didax.jit(didax.vmap(prog.make(DX), in_axes=in_axes))(*prog.batch)
    assert_close(got, ORACLE.result("batched", id(prog)))


@pytest.mark.parametrize("prog", BATCHED, ids=lambda p: p.name)
def test_vmap_of_jit_matches_jax(prog: Any) -> None:
    in_axes = getattr(prog, "in_axes", 0)
    got = didax.vmap(didax.jit(prog.make(DX)), in_axes=in_axes)(*prog.batch)
    assert_close(got, ORACLE.result("batched", id(prog)))


@pytest.mark.parametrize("prog", GRADS, ids=lambda p: p.name)
def test_grad_of_jit_and_jit_of_grad(prog: Any) -> None:
    argnums = _float_argnums(prog.args)
    want = ORACLE.result("grad", id(prog))
    assert_close(didax.grad(_loss(DX, didax.jit(prog.make(DX))), argnums)(*prog.args), want)
    assert_close(didax.jit(didax.grad(_loss(DX, prog.make(DX)), argnums))(*prog.args), want)


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_jvp_of_jit(prog: Any) -> None:
    argnums = _float_argnums(prog.args)
    if not argnums:
        pytest.skip("no float input")
    primals = tuple(prog.args[i] for i in argnums)
    tangents = tuple(np.full_like(p, 0.5) for p in primals)
    got = didax.jvp(_of_floats(prog, didax.jit(prog.make(DX))), primals, tangents)
    assert_close(got, ORACLE.result("jvp", id(prog)))


def test_grad_of_jit_of_vmap_with_batched_predicate() -> None:
    def make(ns: SimpleNamespace) -> Callable[..., Any]:
        f = lambda x: ns.lax.cond(x > 0, ns.np.sin, lambda y: y * y, x)
        return ns.grad(ns.jit(lambda xs: ns.np.sum(ns.vmap(f)(xs))))

    xs = np.array([0.5, -1.0, 2.0, -0.1], np.float32)
    assert_close(make(DX)(xs), make(JX)(xs))


def test_jit_of_grad_of_while_raises_like_jax() -> None:
    def make(ns: SimpleNamespace) -> Callable[..., Any]:
        return ns.jit(
            ns.grad(lambda x: ns.lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x))
        )

    with pytest.raises(ValueError) as want:
        make(JX)(np.float32(1))
    with pytest.raises(ValueError) as got:
        make(DX)(np.float32(1))
    assert str(got.value) == str(want.value)


def test_fori_loop_with_bounds_traced_by_jit_is_a_while() -> None:
    fn = didax.jit(lambda x, n: didax.lax.fori_loop(0, n, lambda i, c: c * 2.0, x))
    assert float(fn(np.float32(1), 5)) == 32.0
    text = fn.lower(np.float32(1), 5).as_text()
    assert "stablehlo.while" in text


@pytest.mark.parametrize(
    "fn, ops",
    [
        (lambda x: didax.lax.cond(x > 0, didax.numpy.sin, didax.numpy.cos, x), ["stablehlo.case"]),
        (
            lambda x: didax.lax.while_loop(lambda c: c < 5.0, lambda c: c + 1.0, x),
            ["stablehlo.while"],
        ),
        (
            lambda x: didax.lax.scan(lambda c, a: (c + a, c), x, didax.numpy.ones(3)),
            ["stablehlo.while", "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice"],
        ),
    ],
)
def test_lowered_text_uses_the_stablehlo_ops(fn: Callable[..., Any], ops: list[str]) -> None:
    text = didax.jit(fn).lower(np.float32(1)).as_text()
    for op in ops:
        assert op in text


def test_batched_while_lowers_an_or_reduction_and_a_select() -> None:
    fn = didax.jit(
        didax.vmap(lambda x: didax.lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x))
    )
    text = fn.lower(np.ones(3, np.float32)).as_text()
    assert "stablehlo.reduce" in text and "stablehlo.select" in text
    assert_close(
        fn(np.array([0.2, 4.0, 20.0], np.float32)), np.array([12.8, 16.0, 20.0], np.float32)
    )


def test_jit_compiles_once_per_shape_not_per_predicate_value() -> None:
    fn = didax.jit(lambda p, x: didax.lax.cond(p, lambda y: y + 1.0, lambda y: y - 1.0, x))
    assert float(fn(True, np.float32(1))) == 2.0
    assert float(fn(False, np.float32(1))) == 0.0
    assert fn._cache_size() == 1
