"""`lax.map` (with and without `batch_size`), `lax.associative_scan`, `lax.custom_root` and
`lax.top_k` against JAX: values, jaxprs, gradients, vmap. Where JAX's side of a test takes
several values and gradients, it is one `jax.jit` program (`helpers.oracle.jax_quick`): run
eagerly, each of its operations is a compile of its own (~40 a test)."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from didax import lax as dlax

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
from helpers.jaxpr_text import canonical
from helpers.oracle import assert_same_leaves, jax_quick
from jax import lax as jlax

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(3)


_same = assert_same_leaves


def _same_jaxpr(f, jf, *args):
    got, want = str(didax.make_jaxpr(f)(*args)), str(jax.make_jaxpr(jf)(*args))
    assert canonical(got) == canonical(want), (got, want)


@pytest.mark.parametrize("batch_size", [None, 2, 5, 7, 0])
def test_map(batch_size):
    x = RNG.normal(size=(5, 3)).astype(np.float32)
    f = lambda L: lambda x: L.map(lambda r: (r * 2, r.sum()), x, batch_size=batch_size)  # noqa: E731
    loss = lambda L, lib: lambda x: (f(L)(x)[1] ** 2).sum()  # noqa: E731
    want, want_grad = jax_quick(lambda x: (f(jlax)(x), jax.grad(loss(jlax, jax))(x)), x)
    _same(f(dlax)(x), want)
    _same(didax.jit(f(dlax))(x), want)
    _same_jaxpr(f(dlax), f(jlax), x)
    _same(didax.grad(loss(dlax, didax))(x), want_grad, 1e-5)


@pytest.mark.parametrize("n", [1, 2, 5, 8])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan(n, reverse):
    y = RNG.normal(size=(n, 3)).astype(np.float32)
    f = lambda L: lambda y: L.associative_scan(L.add, y, reverse=reverse)  # noqa: E731
    g = lambda L: (
        lambda y: L.associative_scan(  # noqa: E731
            lambda a, b: (a[0] * b[0], a[1] + b[1]), (y, 2 * y), axis=1
        )
    )
    loss = lambda L: lambda y: (g(L)(y)[0] ** 2).sum()  # noqa: E731
    want_f, want_g, want_grad = jax_quick(
        lambda y: (f(jlax)(y), g(jlax)(y), jax.grad(loss(jlax))(y)), y
    )
    _same(f(dlax)(y), want_f)
    _same(didax.jit(f(dlax))(y), want_f)
    _same_jaxpr(f(dlax), f(jlax), y)
    _same(g(dlax)(y), want_g)
    _same(didax.grad(loss(dlax))(y), want_grad, 1e-4)
    with pytest.raises(TypeError, match="should be callable"):
        dlax.associative_scan(None, y)


def _sqrt_newton(L):
    def sqrt(a):
        f = lambda x: x**2 - a  # noqa: E731

        def solve(f, x0):
            return L.fori_loop(0, 20, lambda i, x: x - f(x) / (2 * x), x0)

        return L.custom_root(f, 1.0, solve, lambda g, y: y / g(1.0))

    return sqrt


def test_custom_root_scalar():
    f, jf = _sqrt_newton(dlax), _sqrt_newton(jlax)
    _same(f(2.0), jf(2.0))
    _same(didax.grad(f)(2.0), jax.grad(jf)(2.0))
    _same(didax.jit(didax.grad(f))(2.0), jax.grad(jf)(2.0))
    _same(didax.grad(didax.grad(f))(2.0), jax.grad(jax.grad(jf))(2.0), 1e-4)
    xs = np.array([1.0, 4.0, 9.0], np.float32)
    _same(didax.vmap(f)(xs), jax.vmap(jf)(xs))


def test_custom_root_vector_with_aux():
    a = np.array([[3.0, 1.0], [1.0, 2.0]], np.float32)

    def g(L, lib, np_):
        def fn(a):
            f = lambda x: a @ x - np_.ones(2)  # noqa: E731
            solve = lambda f, x0: (np_.linalg.solve(a, np_.ones(2)), 3.0)  # noqa: E731
            tangent_solve = lambda g, y: np_.linalg.solve(lib.jacobian(g)(y), y)  # noqa: E731
            sol, aux = L.custom_root(f, np_.zeros(2), solve, tangent_solve, has_aux=True)
            return sol.sum() + aux

        return fn

    _same(g(dlax, didax, dnp)(a), g(jlax, jax, jnp)(a))
    _same(didax.grad(g(dlax, didax, dnp))(a), jax.grad(g(jlax, jax, jnp))(a), 1e-5)
    with pytest.raises(TypeError, match="f\\(\\) output pytree structure"):
        dlax.custom_root(lambda x: (x, x), 1.0, lambda f, x: x, lambda g, y: y)


def test_top_k():
    x = np.array([[3.0, np.nan, 2.0, 5.0, -np.nan, 5.0, -0.0, 0.0], np.arange(8)], np.float32)
    for k in (0, 3, 8):
        want = jlax.top_k(x, k)
        _same(dlax.top_k(x, k), want)
        _same(didax.jit(lambda x, k=k: dlax.top_k(x, k))(x), want)
        assert type(dlax.top_k(x, k)) is type(want)
    ints = np.array([3, 1, 3, 2], np.int32)
    _same(dlax.top_k(ints, 3), jlax.top_k(ints, 3))
    y = RNG.normal(size=(3, 5)).astype(np.float32)
    f = lambda L: lambda y: L.top_k(y, 2)  # noqa: E731
    _same(didax.jvp(f(dlax), (y,), (2 * y,))[1][0], jax.jvp(f(jlax), (y,), (2 * y,))[1][0])
    _same(didax.vmap(f(dlax), in_axes=1)(y), jax.vmap(f(jlax), in_axes=1)(y))
    loss = lambda L: lambda y: (L.top_k(y, 2)[0] ** 2).sum()  # noqa: E731
    _same(didax.grad(loss(dlax))(y), jax.grad(loss(jlax))(y))
    _same_jaxpr(lambda y: dlax.top_k(y, 2, axis=0), lambda y: jlax.top_k(y, 2, axis=0), y)
    for bad, msg in [(9, "no larger than size"), (-1, "nonnegative")]:
        with pytest.raises(ValueError, match=msg):
            dlax.top_k(y, bad)
