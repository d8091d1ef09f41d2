"""jvp: forward mode with nested transformations and no perturbation confusion, higher
derivatives, symbolic zero tangents that never become arrays, pytrees and argument checks."""

from __future__ import annotations

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import lax

X = np.linspace(-1.5, 1.5, 7, dtype=np.float32)


def derivative(f, x):
    _, t = didax.jvp(f, (x,), (jnp.ones_like(x),))
    return t


def nth_derivative(n, f, x):
    if n == 0:
        return f(x)
    return derivative(lambda y: nth_derivative(n - 1, f, y), x)


def close(got, want, rtol=1e-5, atol=1e-6) -> None:
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


# ----------------------------------------------------------------------------- perturbations


def test_perturbation_confusion_seed_example() -> None:
    # autodidax2: g is constant in y, so its derivative is zero; an AD that confuses the two
    # perturbations would return x instead
    def f(x):
        def g(y):
            return x

        should_be_zero = derivative(g, 0.0)
        return x * should_be_zero

    assert float(derivative(f, 0.0)) == 0.0
    assert float(derivative(f, 3.0)) == 0.0


def test_nested_derivative_of_closure() -> None:
    # d/dx [ x * d/dy (x * y) ] = d/dx x^2 = 2x
    def f(x):
        return x * derivative(lambda y: x * y, 1.0)

    for x in (0.5, 2.0, -3.0):
        close(derivative(f, x), 2 * x)


def test_nested_closure_other_order() -> None:
    # d/dy [ d/dx (x * y)^2 ] at x, y: d/dx = 2 x y^2, d/dy of that = 4 x y
    def inner(y):
        return derivative(lambda x: (x * y) ** 2, 1.5)

    close(derivative(inner, 2.0), 4 * 1.5 * 2.0)


def test_higher_derivatives_of_polynomial() -> None:
    foo = lambda x: x * (x + 3.0)
    got = [float(nth_derivative(n, foo, 2.0)) for n in range(5)]
    assert got == [10.0, 7.0, 2.0, 0.0, 0.0]


def test_fourth_derivative_of_sin_is_sin() -> None:
    close(nth_derivative(4, jnp.sin, X), np.sin(X), rtol=1e-5, atol=1e-6)
    cycle = [np.sin, np.cos, lambda v: -np.sin(v), lambda v: -np.cos(v), np.sin]
    for n, want in enumerate(cycle):
        close(nth_derivative(n, jnp.sin, X), want(X))


def test_jvp_inside_make_jaxpr_and_vmap_inside_jvp() -> None:
    def f(x):
        return jnp.sum(didax.vmap(lambda r: jnp.sin(r) * x)(jnp.ones((3, 2)) * x))

    # f(x) = sum over 6 entries of sin(x) * x = 6 x sin x; f' = 6 (sin x + x cos x)
    close(derivative(f, 0.7), 6 * (np.sin(0.7) + 0.7 * np.cos(0.7)), rtol=1e-5)


# ----------------------------------------------------------------------------- symbolic zeros


def _jaxpr_has_zero_work(closed) -> list[str]:
    """Equations that only a materialized zero tangent would need."""
    bad = []
    for eqn in closed.eqns:
        for a in eqn.invars:
            if hasattr(a, "val") and a.val == 0 and eqn.primitive.name in ("mul", "add", "add_any"):
                bad.append(str(eqn.primitive))
        if eqn.primitive.name == "broadcast_in_dim" and hasattr(eqn.invars[0], "val"):
            bad.append("broadcast of a constant")
    return bad


def test_jvp_with_respect_to_one_of_two_args_stages_no_zero_work() -> None:
    def f(x, y, t):
        return didax.jvp(lambda u: jnp.sin(u) * y + jnp.exp(y), (x,), (t,))

    closed = didax.make_jaxpr(f)(X, X, X)
    assert not _jaxpr_has_zero_work(closed), str(closed)
    names = [e.primitive.name for e in closed.eqns]
    # primal: sin, mul, exp, add; tangent: cos, mul, mul (nothing for the exp(y) term)
    assert sorted(names) == sorted(["sin", "mul", "exp", "add", "cos", "mul", "mul"]), names


def test_zero_tangents_of_integer_inputs_never_materialize() -> None:
    def f(x, t):
        n = jnp.arange(7)
        return didax.jvp(lambda u, k: u * k + k, (x, n), (t, np.zeros(7, np.float32)))

    closed = didax.make_jaxpr(f)(X, X)
    assert not _jaxpr_has_zero_work(closed), str(closed)


def test_unused_input_gives_instantiated_zero_tangent() -> None:
    _, tangent = didax.jvp(lambda x, y: y * 2.0, (X, X), (X, np.zeros_like(X)))
    close(tangent, np.zeros_like(X))
    assert np.asarray(tangent).shape == X.shape
    _, tangent = didax.jvp(lambda x: jnp.ones(3), (X,), (X,))
    close(tangent, np.zeros(3, np.float32))
    assert np.asarray(tangent).dtype == np.float32


def test_stop_gradient_has_zero_tangent() -> None:
    _, t = didax.jvp(lambda x: x * lax.stop_gradient(x), (X,), (np.ones_like(X),))
    close(t, X)


# ----------------------------------------------------------------------------- API


def test_pytrees_in_and_out() -> None:
    primals = ({"a": X, "b": (X, 2.0)},)
    tangents = ({"a": np.ones_like(X), "b": (np.zeros_like(X), 1.0)},)

    def f(d):
        return {"out": (d["a"] * d["b"][1], jnp.sum(d["b"][0]))}

    p, t = didax.jvp(f, primals, tangents)
    close(p["out"][0], X * 2.0)
    close(t["out"][0], 2.0 + X)  # d(a*s) = da*s + a*ds
    close(t["out"][1], 0.0)


def test_tangent_structure_must_match() -> None:
    with pytest.raises(TypeError, match="same tree structure"):
        didax.jvp(lambda a, b: a, (X, X), (X,))


def test_tangent_shape_must_match() -> None:
    with pytest.raises(ValueError, match="different primal and tangent shapes"):
        didax.jvp(jnp.sin, (X,), (X[:3],))


def test_tangent_dtype_must_match() -> None:
    with pytest.raises(TypeError, match="dtypes must be equal"):
        didax.jvp(jnp.sin, (X,), (X.astype(np.float16),))


def test_primals_must_be_a_tuple_or_list() -> None:
    with pytest.raises(TypeError, match="must be tuples or lists"):
        didax.jvp(jnp.sin, X, X)


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["sin", "cos", "tanh", "exp", "log1p", "sqrt", "square"])
def test_jvp_matches_jax(name: str) -> None:
    jax = pytest.importorskip("jax")
    jjnp = pytest.importorskip("jax.numpy")
    x = np.abs(X) + 0.5
    t = np.linspace(0.5, 1.5, 7, dtype=np.float32)

    def prog(np_):
        return lambda v: getattr(np_, name)(v) * v + np_.sum(v)

    p1, t1 = didax.jvp(prog(jnp), (x,), (t,))
    p2, t2 = jax.jvp(prog(jjnp), (x,), (t,))
    close(p1, p2, rtol=1e-4, atol=1e-5)
    close(t1, t2, rtol=1e-4, atol=1e-5)
    assert np.asarray(t1).dtype == np.asarray(t2).dtype
