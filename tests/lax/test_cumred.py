"""`lax.cummax`, `lax.cummin` and `lax.cumlogsumexp` (`cummax_p`, `cummin_p`,
`cumlogsumexp_p`) against JAX: values (eager and jit, forward and reverse, integers,
infinities, NaN), gradients, vmap, the primitives' rules (`check_rules`: jvp vs finite
differences, vmap, lowering) and the jaxpr text as JAX 0.10.2 prints it."""

from __future__ import annotations

import didax
import numpy as np
import pytest
from didax.primitives.cumulative import cumlogsumexp_p, cummax_p, cummin_p
from didax.test_util import check_rules

jax = pytest.importorskip("jax")
from helpers.jaxpr_text import canonical
from helpers.oracle import JaxOracle

pytestmark = pytest.mark.oracle

X = np.random.default_rng(7).normal(size=(3, 5)).astype(np.float32)
PRIMS = {"cummax": cummax_p, "cummin": cummin_p, "cumlogsumexp": cumlogsumexp_p}
NAMES = sorted(PRIMS)


def _loss(f, axis, reverse):
    return lambda x: (f(x, axis, reverse) ** 2).sum()


def _jax_value_and_grad(name, axis, reverse):
    theirs = getattr(jax.lax, name)
    return lambda x: (theirs(x, axis, reverse), jax.grad(_loss(theirs, axis, reverse))(x))


def _jax_vmap(name):
    return lambda xs: jax.vmap(lambda x: getattr(jax.lax, name)(x, 1, True), in_axes=2)(xs)


XS = np.stack([X, X[::-1]])
# JAX's side of the value, gradient and vmap tests as one compiled program (eagerly, each of
# JAX's operations is a compile of its own: up to 71 a test).
ORACLE = JaxOracle(
    {
        "all": [
            *(
                ((name, axis, reverse), _jax_value_and_grad(name, axis, reverse), [X])
                for name in NAMES
                for axis in (0, 1)
                for reverse in (False, True)
            ),
            *(((name, "vmap"), _jax_vmap(name), [XS]) for name in NAMES),
        ]
    }
)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
def test_rules_values_and_grads(name, axis, reverse):
    check_rules(PRIMS[name], X, axis=axis, reverse=reverse)
    ours = getattr(didax.lax, name)
    want, want_grad = ORACLE.get((name, axis, reverse))
    for fn in (ours, didax.jit(ours, static_argnums=(1, 2))):
        got = fn(X, axis, reverse)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)
    loss = _loss(ours, axis, reverse)
    for grad in (didax.grad(loss), didax.jit(didax.grad(loss))):
        np.testing.assert_allclose(np.asarray(grad(X)), want_grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_jaxpr_text_as_jax_prints_it(name):
    ours, theirs = getattr(didax.lax, name), getattr(jax.lax, name)
    for fn, args in [
        (lambda lib: lambda x: lib(x, 1, True), (X,)),
        (lambda lib: lambda x: lib(x), (X,)),
    ]:
        got = str(didax.make_jaxpr(fn(ours))(*args))
        want = str(jax.make_jaxpr(fn(theirs))(*args))
        assert canonical(got) == canonical(want), got
    got = str(didax.make_jaxpr(didax.vmap(lambda x: ours(x, 0), in_axes=1))(X))
    want = str(jax.make_jaxpr(jax.vmap(lambda x: theirs(x, 0), in_axes=1))(X))
    assert canonical(got) == canonical(want), got


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_integers_and_nan(name):
    ours, theirs = getattr(didax.lax, name), getattr(jax.lax, name)
    ints = np.array([[3, -1, 7, 7, 2], [0, 9, -4, 5, 5]], np.int32)
    for fn in (ours, didax.jit(ours, static_argnums=(1, 2))):
        for reverse in (False, True):
            got = fn(ints, 1, reverse)
            assert got.dtype == np.int32
            np.testing.assert_array_equal(np.asarray(got), theirs(ints, 1, reverse))
    nan = np.array([1.0, np.nan, 3.0, -np.inf], np.float32)
    for fn in (ours, didax.jit(ours)):
        np.testing.assert_array_equal(np.asarray(fn(nan)), theirs(nan))


def test_cumlogsumexp_infinities():
    x = np.array([-np.inf, -np.inf, 3.0, np.inf, 1.0], np.float32)
    want = jax.lax.cumlogsumexp(x)
    for fn in (didax.lax.cumlogsumexp, didax.jit(didax.lax.cumlogsumexp)):
        np.testing.assert_array_equal(np.asarray(fn(x)), want)


@pytest.mark.parametrize("name", NAMES)
def test_vmap_matches_jax(name):
    ours = getattr(didax.lax, name)
    got = didax.vmap(lambda x: ours(x, 1, True), in_axes=2)(XS)
    want = ORACLE.get((name, "vmap"))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_bool_and_bad_axis_raise_as_jax(name):
    ours, theirs = getattr(didax.lax, name), getattr(jax.lax, name)
    with pytest.raises(TypeError):
        theirs(X > 0)
    with pytest.raises(TypeError):
        ours(X > 0)
    with pytest.raises(ValueError):
        theirs(X, 2)
    with pytest.raises(ValueError):
        ours(X, 2)
    with pytest.raises(ValueError, match="negative axes"):
        theirs(X, -1)
    with pytest.raises(ValueError, match="negative axes"):
        ours(X, -1)
