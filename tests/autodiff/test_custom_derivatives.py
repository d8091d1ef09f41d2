"""`custom_jvp` and `custom_vjp` against JAX: under eval, make_jaxpr (the printed
equation), jvp, grad, vmap, jit and their compositions; `nondiff_argnums`, `defjvps`; and
the errors JAX raises for bad rules and for forward mode of a custom_vjp function."""

from __future__ import annotations

from functools import partial
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from didax.compile.jit import jit

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
from helpers.oracle import jax_quick  # noqa: E402

pytestmark = pytest.mark.oracle

X = np.array([-30.0, -1.5, 0.0, 2.0, 40.0], np.float32)


def close(got: Any, want: Any, tol: float = 1e-4) -> None:
    got_leaves = didax.tree_util.tree_leaves(got)
    want_leaves = jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol / 10)


# The example of JAX's tutorial: log(1 + e^x), whose naive derivative is nan for large x.
def make_log1pexp(lib: Any, np_: Any) -> Any:
    @lib.custom_jvp
    def log1pexp(x):
        return np_.log(1.0 + np_.exp(x))

    @log1pexp.defjvp
    def log1pexp_jvp(primals, tangents):
        (x,), (x_dot,) = primals, tangents
        return log1pexp(x), (1.0 - 1.0 / (1.0 + np_.exp(x))) * x_dot

    return log1pexp


# A custom_vjp that clips the cotangent (JAX's "clip_gradient" example).
def make_clip_gradient(lib: Any, np_: Any) -> Any:
    @partial(lib.custom_vjp, nondiff_argnums=(0, 1))
    def clip_gradient(lo, hi, x):
        return x

    def fwd(lo, hi, x):
        return x, None

    def bwd(lo, hi, _, g):
        return (np_.clip(g, lo, hi),)

    clip_gradient.defvjp(fwd, bwd)
    return clip_gradient


D_F, J_F = make_log1pexp(didax, dnp), make_log1pexp(jax, jnp)
D_C, J_C = make_clip_gradient(didax, dnp), make_clip_gradient(jax, jnp)


@pytest.mark.parametrize(
    "transform",
    [
        "eval",
        "grad",
        "jvp",
        "vmap_grad",
        "grad_vmap",
        "jit",
        "jit_grad",
        "grad_jit",
        "hessian",
        "jacfwd",
        "jacrev",
        "vmap_jvp",
    ],
)
def test_custom_jvp_under_transformations(transform: str) -> None:
    def run(lib: Any, np_: Any, f: Any, x: Any) -> Any:
        jit_ = jax.jit if lib is jax else jit
        scalar = lambda x: f(x) * 2.0  # noqa: E731
        total = lambda xs: np_.sum(f(xs))  # noqa: E731
        return {
            "eval": lambda: f(x),
            "grad": lambda: lib.vmap(lib.grad(scalar))(x),
            "jvp": lambda: lib.jvp(f, (x,), (np.ones(np.shape(x), np.float32),)),
            "vmap_grad": lambda: lib.vmap(lib.grad(f))(x),
            "grad_vmap": lambda: lib.grad(lambda xs: np_.sum(lib.vmap(f)(xs)))(x),
            "jit": lambda: jit_(f)(x),
            "jit_grad": lambda: jit_(lib.grad(total))(x),
            "grad_jit": lambda: lib.grad(jit_(total))(x),
            "hessian": lambda: lib.hessian(total)(x[1:4]),
            "jacfwd": lambda: lib.jacfwd(f)(x[1:4]),
            "jacrev": lambda: lib.jacrev(f)(x[1:4]),
            "vmap_jvp": lambda: lib.vmap(lambda v: lib.jvp(f, (v,), (1.0,)))(x),
        }[transform]()

    # JAX's side as one program (eagerly, each of its operations is a compile of its own)
    got, want = run(didax, dnp, D_F, X), jax_quick(lambda x: run(jax, jnp, J_F, x), X)
    close(got, want)
    assert np.all(np.isfinite(np.asarray(didax.tree_util.tree_leaves(got)[-1])))


def test_custom_jvp_jaxpr_text_matches_jax() -> None:
    got = str(didax.make_jaxpr(D_F)(X))
    want = str(jax.make_jaxpr(J_F)(X))
    assert got == want
    assert "custom_jvp_call[" in got and "jvp=log1pexp_jvp" in got


def test_custom_jvp_rule_is_used_not_the_function() -> None:
    @didax.custom_jvp
    def f(x):
        return dnp.sin(x)

    f.defjvp(lambda p, t: (f(p[0]), 10.0 * t[0]))
    assert float(didax.grad(f)(0.3)) == pytest.approx(10.0)
    assert float(didax.jvp(f, (0.3,), (1.0,))[1]) == pytest.approx(10.0)


def test_custom_jvp_nondiff_argnums_and_defjvps() -> None:
    def build(lib, np_):
        @partial(lib.custom_jvp, nondiff_argnums=(1,))
        def power(x, n):
            return x**n

        power.defjvp(lambda n, p, t: (power(p[0], n), n * p[0] ** (n - 1) * t[0]))

        @lib.custom_jvp
        def mul(x, y):
            return x * y

        mul.defjvps(lambda g, ans, x, y: g * y * 3.0, lambda g, ans, x, y: g * x)
        return lambda x: (
            lib.grad(power)(x, 3),
            lib.grad(mul, (0, 1))(x, 2.0),
            lib.grad(lambda z: power(z, 2) * mul(z, z))(x),
        )

    close(build(didax, dnp)(1.5), build(jax, jnp)(1.5))


def test_defjvps_sums_the_tangents_with_add_any() -> None:
    # JAX sums the rules' tangents as tangents (`add_any`), not with `+` (`add`)
    def program(lib):
        @lib.custom_jvp
        def mul(x, y):
            return x * y

        mul.defjvps(lambda g, ans, x, y: g * y, lambda g, ans, x, y: g * x)
        jaxpr = lib.make_jaxpr(lambda x, y: lib.jvp(mul, (x, y), (x, y)))(1.0, 2.0)
        return [str(e.primitive) for e in jaxpr.eqns], lib.jvp(mul, (1.0, 2.0), (3.0, 4.0))

    (got_prims, got), (want_prims, want) = program(didax), program(jax)
    assert got_prims == want_prims
    assert got_prims[-1] == "add_any"
    close(got, want)


@pytest.mark.parametrize(
    "transform",
    ["eval", "grad", "vmap_grad", "grad_vmap", "jit_grad", "grad_jit", "jacrev", "grad_grad_free"],
)
def test_custom_vjp_under_transformations(transform: str) -> None:
    def run(lib: Any, np_: Any, clip: Any, x: Any) -> Any:
        jit_ = jax.jit if lib is jax else jit
        f = lambda v: np_.sin(clip(-0.5, 0.5, v * 3.0))  # noqa: E731
        total = lambda xs: np_.sum(f(xs))  # noqa: E731
        return {
            "eval": lambda: f(x),
            "grad": lambda: lib.grad(total)(x),
            "vmap_grad": lambda: lib.vmap(lib.grad(f))(x),
            "grad_vmap": lambda: lib.grad(lambda xs: np_.sum(lib.vmap(f)(xs)))(x),
            "jit_grad": lambda: jit_(lib.grad(total))(x),
            "grad_jit": lambda: lib.grad(jit_(total))(x),
            "jacrev": lambda: lib.jacrev(f)(x),
            # second derivative: the first grad's backward pass differentiated again
            "grad_grad_free": lambda: lib.grad(lib.grad(lambda v: np_.sin(v) * clip(-1.0, 1.0, v)))(
                0.3
            ),
        }[transform]()

    close(run(didax, dnp, D_C, X), jax_quick(lambda x: run(jax, jnp, J_C, x), X))


def test_custom_vjp_residuals_and_pytrees() -> None:
    def build(lib, np_):
        @lib.custom_vjp
        def f(p, x):
            return {"out": np_.tanh(p["w"] * x + p["b"])}

        def fwd(p, x):
            y = np_.tanh(p["w"] * x + p["b"])
            return {"out": y}, (y, p["w"], x)

        def bwd(res, ct):
            y, w, x = res
            g = ct["out"] * (1 - y**2)
            return {"w": np_.sum(g * x), "b": np_.sum(g)}, g * w

        f.defvjp(fwd, bwd)
        return lib.grad(lambda p, x: np_.sum(f(p, x)["out"] ** 2), (0, 1))

    p = {"w": np.float32(0.7), "b": np.float32(-0.2)}
    # JAX's side as one program (eagerly, each of its operations is a compile of its own)
    close(build(didax, dnp)(p, X / 10), jax_quick(build(jax, jnp), p, X / 10))


def test_custom_vjp_jaxpr_text_matches_jax() -> None:
    def build(lib, np_):
        @lib.custom_vjp
        def g(x, y):
            return x * y

        def g_fwd(x, y):
            return x * y, (x, y)

        def g_bwd(res, ct):
            x, y = res
            return ct * y, ct * x

        g.defvjp(g_fwd, g_bwd)
        return g

    d, j = build(didax, dnp), build(jax, jnp)
    assert str(didax.make_jaxpr(d)(1.0, 2.0)) == str(jax.make_jaxpr(j)(1.0, 2.0))
    assert str(didax.make_jaxpr(didax.grad(d))(1.0, 2.0)) == str(
        jax.make_jaxpr(jax.grad(j))(1.0, 2.0)
    )


def _same_error(d_call: Any, j_call: Any) -> str:
    with pytest.raises(Exception) as j_info:
        j_call()
    with pytest.raises(type(j_info.value)) as d_info:
        d_call()
    return str(d_info.value)


def test_forward_mode_of_custom_vjp_raises() -> None:
    msg = _same_error(
        lambda: didax.jvp(lambda x: D_C(-1.0, 1.0, x), (1.0,), (1.0,)),
        lambda: jax.jvp(lambda x: J_C(-1.0, 1.0, x), (1.0,), (1.0,)),
    )
    assert msg == "can't apply forward-mode autodiff (jvp) to a custom_vjp function."
    _same_error(
        lambda: didax.jacfwd(lambda x: D_C(-1.0, 1.0, x))(X),
        lambda: jax.jacfwd(lambda x: J_C(-1.0, 1.0, x))(X),
    )


def test_missing_rules_raise() -> None:
    _same_error(
        lambda: didax.custom_jvp(lambda x: x)(1.0), lambda: jax.custom_jvp(lambda x: x)(1.0)
    )
    _same_error(
        lambda: didax.custom_vjp(lambda x: x)(1.0), lambda: jax.custom_vjp(lambda x: x)(1.0)
    )


@pytest.mark.parametrize("bad", ["structure", "shape"])
def test_bad_custom_jvp_rule(bad: str) -> None:
    def build(lib, np_):
        @lib.custom_jvp
        def f(x):
            return np_.sin(x)

        if bad == "structure":
            f.defjvp(lambda p, t: (f(p[0]), (t[0],)))
        else:
            f.defjvp(lambda p, t: (f(p[0]), np_.ones(3)))
        return lambda: lib.jvp(f, (1.0,), (1.0,))

    msg = _same_error(build(didax, dnp), build(jax, jnp))
    assert msg.startswith("Custom JVP rule")


@pytest.mark.parametrize("bad", ["length", "shape"])
def test_bad_custom_vjp_bwd(bad: str) -> None:
    def build(lib, np_):
        @lib.custom_vjp
        def g(x, y):
            return x * y

        if bad == "length":
            g.defvjp(lambda x, y: (x * y, (x, y)), lambda r, ct: (ct * r[1],))
        else:
            g.defvjp(lambda x, y: (x * y, (x, y)), lambda r, ct: (ct * r[1], np_.ones(3)))
        return lambda: lib.grad(g, (0, 1))(1.0, 2.0)

    msg = _same_error(build(didax, dnp), build(jax, jnp))
    assert msg.startswith("Custom VJP bwd rule must produce an output with the same")


def test_custom_vjp_bwd_may_return_none_for_an_argument() -> None:
    def build(lib, np_):
        @lib.custom_vjp
        def g(x, y):
            return x * y

        g.defvjp(lambda x, y: (x * y, (x, y)), lambda r, ct: (ct * r[1], None))
        return lib.grad(g, (0, 1))

    close(build(didax, dnp)(1.0, 2.0), build(jax, jnp)(1.0, 2.0))


def test_stop_gradient_under_grad_jit_vmap() -> None:
    def build(lib, np_):
        jit_ = jax.jit if lib is jax else jit
        f = lambda x: np_.sum(x * lib.lax.stop_gradient(np_.sin(x)) + x**2)  # noqa: E731
        return lambda x: (
            lib.grad(f)(x),
            jit_(lib.grad(f))(x),
            lib.grad(jit_(f))(x),
            lib.vmap(lib.grad(lambda y: f(y[None])))(x),
        )

    close(build(didax, dnp)(X), jax_quick(build(jax, jnp), X))  # JAX's side as one program


def test_relu_gradient_at_zero_matches_jax() -> None:
    # jax.nn.relu is a custom_jvp whose derivative at 0 is 0; max's balanced rule would say 0.5
    x = np.array([-1.0, 0.0, 2.0], np.float32)
    got = didax.grad(lambda v: didax.numpy.sum(didax.nn.relu(v)))(x)
    want = jax.grad(lambda v: jax.numpy.sum(jax.nn.relu(v)))(x)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert float(got[1]) == 0.0


def _product_with_rule(lib: Any) -> Any:
    @lib.custom_jvp
    def f(x, y):
        return x * y

    @f.defjvp
    def f_jvp(primals, tangents):  # arithmetic on every tangent: a symbolic zero would fail
        (x, y), (tx, ty) = primals, tangents
        return f(x, y), tx * y + x * ty

    return f


# Inside a jitted caller, an operand of `custom_jvp_call` that does not depend on the
# differentiated input (a constant, a nondifferentiated argument) has a symbolic zero
# tangent; the primitive's jvp rule instantiates it before the user's rule sees it.
JITTED_CALLERS = {
    "grad_constant": lambda lib, f: lib.grad(lib.jit(lambda x: f(x, 3.0)))(2.0),
    "grad_nondiff_arg": lambda lib, f: lib.grad(lambda x: lib.jit(f)(x, 3.0))(2.0),
    "grad_both_orders": lambda lib, f: lib.grad(lib.jit(lambda x: f(x, 3.0) + f(2.0, x)))(2.0),
    "jvp": lambda lib, f: lib.jvp(lib.jit(lambda x: f(x, 3.0)), (2.0,), (1.0,)),
    "vmap_grad": lambda lib, f: lib.vmap(lib.grad(lib.jit(lambda x: f(x, 3.0))))(
        np.arange(2.0, dtype=np.float32)
    ),
}


@pytest.mark.parametrize("name", JITTED_CALLERS)
def test_derivatives_through_a_jitted_caller_of_a_custom_jvp(name: str) -> None:
    got = JITTED_CALLERS[name](didax, _product_with_rule(didax))
    want = JITTED_CALLERS[name](jax, _product_with_rule(jax))
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
