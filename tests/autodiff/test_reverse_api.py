"""The reverse-mode API against JAX: argnums, has_aux, pytrees, higher-order derivatives,
perturbation confusion, composition with jit and vmap, the jaxprs grad builds, and the
errors JAX raises (same exception types, and the messages JAX's users know)."""

from __future__ import annotations

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


def close(got: Any, want: Any, tol: float = 1e-4) -> None:
    got_leaves, got_tree = didax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert len(got_leaves) == len(want_leaves), f"{got_tree} vs JAX's {want_tree}"
    for g, w in zip(got_leaves, want_leaves, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        if g.dtype.kind != "V":
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol / 10)


def both(build: Any, *args: Any) -> tuple[Any, Any]:
    """`build(lib, np_lib)` for didax and for JAX, each applied to `args`: JAX's as one
    program (`jax_quick`; eagerly, each of its operations is a compile of its own)."""
    return build(didax, dnp)(*args), jax_quick(build(jax, jnp), *args)


X = np.array([0.3, -1.2, 2.0], np.float32)
W = np.arange(12, dtype=np.float32).reshape(3, 4) / 10


# ----------------------------------------------------------------------------- argnums, aux


@pytest.mark.parametrize("argnums", [0, 1, (0,), (1, 0), (0, 1), -1])
def test_argnums(argnums: Any) -> None:
    def build(lib, np_):
        return lib.grad(lambda x, w, s: np_.sum(np_.tanh(x @ w) * s), argnums)

    close(*both(build, X, W, 2.0))


def test_value_and_grad_has_aux() -> None:
    def build(lib, np_):
        def loss(w, x):
            y = np_.tanh(x @ w)
            return np_.mean(y**2), {"y": y, "n": 3, "note": "any value"}

        return lib.value_and_grad(loss, has_aux=True)

    (d_val, d_aux), d_g = build(didax, dnp)(W, X)
    (j_val, j_aux), j_g = build(jax, jnp)(W, X)
    close(d_val, j_val)
    close(d_aux["y"], j_aux["y"])
    assert d_aux["note"] == j_aux["note"] == "any value"
    close(d_g, j_g)


def test_grad_has_aux_returns_pair() -> None:
    g, aux = didax.grad(lambda x: (dnp.sin(x), x * 2), has_aux=True)(1.0)
    assert np.isclose(g, np.cos(1.0)) and np.isclose(aux, 2.0)


def test_pytree_inputs_and_outputs() -> None:
    def build(lib, np_):
        def loss(params, batch):
            h = np_.tanh(batch["x"] @ params["w"] + params["b"])
            return np_.sum((h - batch["y"]) ** 2)

        return lib.grad(loss)

    params = {"w": W, "b": np.ones(4, np.float32)}
    batch = {"x": np.ones((2, 3), np.float32), "y": np.zeros((2, 4), np.float32)}
    close(*both(build, params, batch))


def test_vjp_pytrees_and_integer_input() -> None:
    def f(lib, np_):
        return lambda x, n: ({"a": x * n, "b": np_.sin(x)}, [x.sum()])

    d_out, d_vjp = didax.vjp(f(didax, dnp), X, 3)
    j_out, j_vjp = jax.vjp(f(jax, jnp), X, 3)
    close(d_out, j_out)
    ct = ({"a": np.ones(3, np.float32), "b": X}, [np.float32(2.0)])
    close(d_vjp(ct), j_vjp(ct))  # float0 cotangent for the integer input


def test_vjp_has_aux() -> None:
    d_out, d_vjp, d_aux = didax.vjp(lambda x: (dnp.sin(x), x + 1), X, has_aux=True)
    j_out, j_vjp, j_aux = jax.vjp(lambda x: (jnp.sin(x), x + 1), X, has_aux=True)
    close((d_out, d_aux, d_vjp(X)), (j_out, j_aux, j_vjp(X)))


def test_linearize_pytrees() -> None:
    d_out, d_lin = didax.linearize(lambda p: {"s": dnp.sin(p[0]) * p[1]}, (X, 2.0))
    j_out, j_lin = jax.linearize(lambda p: {"s": jnp.sin(p[0]) * p[1]}, (X, 2.0))
    close(d_out, j_out)
    close(d_lin((X, 1.0)), j_lin((X, 1.0)))


@pytest.mark.parametrize("jac", ["jacfwd", "jacrev", "hessian"])
def test_jacobians_pytrees_and_has_aux(jac: str) -> None:
    def build(lib, np_):
        def f(x, y):
            return {"p": np_.sin(x) * y, "q": np_.sum(x**2) * y}, x

        return getattr(lib, jac)(f, argnums=(0, 1), has_aux=True)

    close(*both(build, X, np.float32(1.5)))


def test_stop_gradient() -> None:
    def build(lib, np_):
        return lib.grad(lambda x: np_.sum(lib.lax.stop_gradient(x**2) * x + x**2))

    close(*both(build, X))


def test_zero_gradient_of_unused_input_is_concrete_zeros() -> None:
    close(
        didax.grad(lambda x, y: dnp.sum(x), argnums=(0, 1))(X, W),
        jax.grad(lambda x, y: jnp.sum(x), argnums=(0, 1))(X, W),
    )


def test_linear_transpose() -> None:
    def build(lib, np_):
        return lib.linear_transpose(
            lambda x, y: (x @ W + 2 * y, -x.sum()), X, np.ones(4, np.float32)
        )

    d_t, j_t = build(didax, dnp), build(jax, jnp)
    ct = (np.arange(4, dtype=np.float32), np.float32(3.0))
    close(d_t(ct), j_t(ct))


# ----------------------------------------------------------------------------- higher order


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_nth_derivative(order: int) -> None:
    def build(lib, np_):
        f = lambda x: np_.sin(x) * np_.exp(x / 2)  # noqa: E731
        for _ in range(order):
            f = lib.grad(f)
        return f

    close(*both(build, 0.7), tol=1e-3)


def test_mixed_forward_reverse() -> None:
    def build(lib, np_):
        f = lambda x: np_.sum(np_.tanh(x) ** 3)  # noqa: E731
        return lambda x: lib.jvp(lib.grad(f), (x,), (np_.ones_like(x),))

    close(*both(build, X), tol=1e-3)


# ----------------------------------------------------------------------------- perturbation


def test_perturbation_confusion_grad_of_closure() -> None:
    # d/dx [x * d/dy (x + y)] = d/dx [x * 1] = 1; confusing the perturbations would give 2
    def build(lib, _):
        return lib.grad(lambda x: x * lib.grad(lambda y: x + y)(1.0))

    d, j = both(build, 3.0)
    close(d, j)
    assert float(d) == 1.0


def test_perturbation_confusion_nested_closures() -> None:
    def build(lib, np_):
        def f(x):
            g = lambda y: np_.sin(x * y)  # noqa: E731
            return lib.grad(g)(x) * x

        return lib.grad(f)

    close(*both(build, 0.8), tol=1e-3)


def test_perturbation_confusion_jvp_inside_grad() -> None:
    def build(lib, _):
        def f(x):
            _, t = lib.jvp(lambda y: x * y**2, (x,), (1.0,))
            return t

        return lib.grad(f)

    close(*both(build, 1.5))


# ----------------------------------------------------------------------------- composition


def test_vmap_of_grad_and_grad_of_vmap() -> None:
    xs = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)

    def build(lib, np_):
        f = lambda w, x: np_.sum(np_.tanh(x @ w))  # noqa: E731
        per_example = lib.vmap(lib.grad(f), in_axes=(None, 0))
        batched = lib.grad(lambda w: np_.sum(lib.vmap(f, in_axes=(None, 0))(w, xs)))
        return lambda w: (per_example(w, xs), batched(w))

    close(*both(build, W))


def test_grad_of_jit_and_jit_of_grad() -> None:
    f_d = lambda x, w: dnp.sum(dnp.tanh(x @ w) ** 2)  # noqa: E731
    f_j = lambda x, w: jnp.sum(jnp.tanh(x @ w) ** 2)  # noqa: E731
    want = jax.grad(f_j, (0, 1))(X, W)
    close(didax.grad(jit(f_d), (0, 1))(X, W), want)
    close(jit(didax.grad(f_d, (0, 1)))(X, W), want)
    close(jit(didax.grad(jit(f_d), (0, 1)))(X, W), want)
    close(
        didax.grad(didax.grad(jit(lambda x: dnp.sin(x) * x)))(0.5),
        jax.grad(jax.grad(jax.jit(lambda x: jnp.sin(x) * x)))(0.5),
    )


def test_grad_of_jit_keeps_one_jit_forward_and_one_backward() -> None:
    got = didax.make_jaxpr(didax.grad(jit(lambda x: dnp.sum(dnp.sin(x) * 2.0))))(X)
    want = jax.make_jaxpr(jax.grad(jax.jit(lambda x: jnp.sum(jnp.sin(x) * 2.0))))(X)

    def names(closed: Any) -> list[str]:
        return [e.primitive.name for e in closed.eqns]

    assert names(got) == names(want) == ["jit", "jit"]
    for d_eqn, j_eqn in zip(got.eqns, want.eqns, strict=True):  # forward, then backward
        assert names(d_eqn.params["jaxpr"]) == names(j_eqn.params["jaxpr"])
        assert len(d_eqn.invars) == len(j_eqn.invars)
        assert len(d_eqn.outvars) == len(j_eqn.outvars)


def test_grad_jaxpr_text_matches_jax() -> None:
    text = str(didax.make_jaxpr(didax.grad(lambda x: dnp.sum(dnp.sin(x) * 2.0)))(X))
    want = str(jax.make_jaxpr(jax.grad(lambda x: jnp.sum(jnp.sin(x) * 2.0)))(X))
    assert text == want


def test_grad_of_jit_repeated_calls_do_not_recompile() -> None:
    f = jit(lambda x: dnp.sum(dnp.sin(x) ** 2))
    g = didax.grad(f)
    g(X)
    compiled = f.compilations
    for _ in range(3):
        close(g(X + 1), jax.grad(lambda x: jnp.sum(jnp.sin(x) ** 2))(X + 1))
    assert f.compilations == compiled


# ----------------------------------------------------------------------------- errors


def _same_error(d_call: Any, j_call: Any) -> str:
    with pytest.raises(Exception) as j_info:
        j_call()
    with pytest.raises(type(j_info.value)) as d_info:
        d_call()
    return str(d_info.value)


def test_grad_of_non_scalar_output() -> None:
    msg = _same_error(lambda: didax.grad(lambda x: x * 2)(X), lambda: jax.grad(lambda x: x * 2)(X))
    assert msg == "Gradient only defined for scalar-output functions. Output had shape: (3,)."


def test_grad_of_tuple_output() -> None:
    msg = _same_error(
        lambda: didax.grad(lambda x: (x, x))(1.0), lambda: jax.grad(lambda x: (x, x))(1.0)
    )
    assert msg.startswith("Gradient only defined for scalar-output functions. Output was")


@pytest.mark.parametrize(
    "value, dtype", [(1, "int32"), (True, "bool"), (np.arange(3, dtype=np.int32), "int32")]
)
def test_grad_of_integer_input(value: Any, dtype: str) -> None:
    msg = _same_error(
        lambda: didax.grad(lambda x: x * 2.0)(value), lambda: jax.grad(lambda x: x * 2.0)(value)
    )
    assert msg.startswith(
        "grad requires real- or complex-valued inputs (input dtype that is a "
        f"sub-dtype of np.inexact), but got {dtype}."
    )


def test_grad_of_integer_output() -> None:
    msg = _same_error(
        lambda: didax.grad(lambda x: (x > 0).astype(dnp.int32))(1.0),
        lambda: jax.grad(lambda x: (x > 0).astype(jnp.int32))(1.0),
    )
    assert msg.startswith("grad requires real-valued outputs")


def test_argnums_out_of_range() -> None:
    msg = _same_error(
        lambda: didax.grad(lambda x, y: x, argnums=2)(1.0, 2.0),
        lambda: jax.grad(lambda x, y: x, argnums=2)(1.0, 2.0),
    )
    assert "argnums=2" in msg


def test_has_aux_without_pair() -> None:
    _same_error(
        lambda: didax.grad(lambda x: x, has_aux=True)(1.0),
        lambda: jax.grad(lambda x: x, has_aux=True)(1.0),
    )


def test_vjp_called_with_wrong_arguments() -> None:
    _, d_vjp = didax.vjp(lambda x: x, X)
    _, j_vjp = jax.vjp(lambda x: x, jnp.asarray(X))
    _same_error(lambda: d_vjp(X, X), lambda: j_vjp(X, X))
    msg = _same_error(lambda: d_vjp(np.ones(2, np.float32)), lambda: j_vjp(np.ones(2, np.float32)))
    assert "got float32[2], but expected float32[3]" in msg.replace("f32", "float32")


def test_linearized_called_with_wrong_shape() -> None:
    _, d_lin = didax.linearize(lambda x: x, X)
    _, j_lin = jax.linearize(lambda x: x, jnp.asarray(X))
    _same_error(lambda: d_lin(np.ones(2, np.float32)), lambda: j_lin(np.ones(2, np.float32)))


def test_jacobian_input_and_output_dtypes() -> None:
    _same_error(lambda: didax.jacfwd(lambda x: x)(1), lambda: jax.jacfwd(lambda x: x)(1))
    _same_error(lambda: didax.jacrev(lambda x: x)(1), lambda: jax.jacrev(lambda x: x)(1))
    _same_error(
        lambda: didax.jacrev(lambda x: (x > 0).astype(dnp.int32))(1.0),
        lambda: jax.jacrev(lambda x: (x > 0).astype(jnp.int32))(1.0),
    )


def test_python_control_flow_on_primal_values_works_under_grad() -> None:
    def build(lib, np_):
        def f(x):
            return np_.sin(x) if x > 0 else np_.cos(x)

        return lib.grad(f)

    for x in (0.5, -0.5):  # JAX eagerly: its Python branch needs the concrete value
        close(build(didax, dnp)(x), build(jax, jnp)(x))


@pytest.mark.parametrize("name", ["grad", "vjp", "jvp"])
def test_symbolic_zero_of_a_weak_input_is_weak(name: str) -> None:
    # a derivative that is symbolically zero keeps the input's weak type, as in JAX
    def run(lib: Any) -> Any:
        const = lambda y: 2.0  # noqa: E731
        if name == "grad":
            return lib.grad(const)(1.0)
        if name == "vjp":
            return lib.vjp(const, 1.0)[1](1.0)[0]
        return lib.jvp(const, (1.0,), (1.0,))[1]

    got, want = run(didax), run(jax)
    assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type)
    assert float(got) == float(want) == 0.0
