"""Control flow compiled: every program of test_cond/test_scan/test_while under `jit` (values
against eager didax and JAX), the StableHLO ops each primitive lowers to, and compositions of
jit with vmap (a batched predicate included), jvp and grad in both orders."""

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

jax = pytest.importorskip("jax")
JX, DX = namespaces()
pytestmark = [
    pytest.mark.oracle,
    pytest.mark.skipif(DX.jit is None, reason="didax.jit not available"),
]

PROGRAMS = [*test_cond.PROGRAMS, *test_scan.PROGRAMS, *test_while.PROGRAMS]
BATCHED = [p for p in PROGRAMS if p.batch is not None]


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_jit_matches_eager_and_jax(prog: Any) -> None:
    got = didax.jit(prog.make(DX))(*prog.args)
    assert_close(got, prog.make(DX)(*prog.args))
    assert_close(got, jax.jit(prog.make(JX))(*prog.args))


@pytest.mark.parametrize("prog", BATCHED, ids=lambda p: p.name)
def test_jit_of_vmap_matches_jax(prog: Any) -> None:
    in_axes = getattr(prog, "in_axes", 0)
    got = didax.jit(didax.vmap(prog.make(DX), in_axes=in_axes))(*prog.batch)
    assert_close(got, jax.jit(jax.vmap(prog.make(JX), in_axes=in_axes))(*prog.batch))


@pytest.mark.parametrize("prog", BATCHED, ids=lambda p: p.name)
def test_vmap_of_jit_matches_jax(prog: Any) -> None:
    in_axes = getattr(prog, "in_axes", 0)
    got = didax.vmap(didax.jit(prog.make(DX)), in_axes=in_axes)(*prog.batch)
    assert_close(got, jax.vmap(jax.jit(prog.make(JX)), in_axes=in_axes)(*prog.batch))


def _float_argnums(args: tuple) -> tuple[int, ...]:
    return tuple(i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f")


def _loss(ns: SimpleNamespace, fn: Callable[..., Any]) -> Callable[..., Any]:
    leaves = jax.tree_util.tree_leaves if ns is JX else didax.tree_util.tree_leaves
    return lambda *args: sum(ns.np.sum(ns.np.sin(leaf)) for leaf in leaves(fn(*args)))


GRADS = [
    *(test_cond.BY_NAME[n] for n in test_cond.GRADS),
    *test_scan.PROGRAMS,
    *(test_while.BY_NAME[n] for n in test_while.GRADS),
]


@pytest.mark.parametrize("prog", GRADS, ids=lambda p: p.name)
def test_grad_of_jit_and_jit_of_grad(prog: Any) -> None:
    argnums = _float_argnums(prog.args)
    want = jax.grad(_loss(JX, prog.make(JX)), argnums)(*prog.args)
    assert_close(didax.grad(_loss(DX, didax.jit(prog.make(DX))), argnums)(*prog.args), want)
    assert_close(didax.jit(didax.grad(_loss(DX, prog.make(DX)), argnums))(*prog.args), want)


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
def test_jvp_of_jit(prog: Any) -> None:
    argnums = _float_argnums(prog.args)
    if not argnums:
        pytest.skip("no float input")
    primals = tuple(prog.args[i] for i in argnums)
    tangents = tuple(np.full_like(p, 0.5) for p in primals)

    def run(ns: SimpleNamespace) -> Any:
        fn = ns.jit(prog.make(ns))

        def partial(*xs: Any) -> Any:
            args = list(prog.args)
            for i, x in zip(argnums, xs, strict=True):
                args[i] = x
            return fn(*args)

        return ns.jvp(partial, primals, tangents)

    assert_close(run(DX), run(JX))


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
