"""A user adds a primitive in a notebook cell, and it composes with every transformation.

The example of JAX's "How primitives work" page: `multiply_add(x, y, z) = x * y + z`,
defined here from nothing but `didax.core`: a `Primitive`, and one rule per interpreter,
each registered in that interpreter's `RuleTable`:

    impl            what it computes, on NumPy arrays           -> eval
    abstract_eval   the type of the result                      -> make_jaxpr, jit
    jvp             its derivative (tangents may be `Zero`s)    -> jvp, jacfwd
    transpose       its transpose, in the linear operands       -> grad, vjp, jacrev
    vmap            how it handles a batch axis                 -> vmap
    lowering        its StableHLO                               -> jit

Each test then checks one transformation against JAX running the same program written as
`x * y + z`. Read top to bottom, this file is the notebook.
"""

from __future__ import annotations

from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from didax import core

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

# --------------------------------------------------------------------------- the primitive

multiply_add_p = core.Primitive("multiply_add")


def multiply_add(x: Any, y: Any, z: Any) -> Any:
    """x * y + z, as one primitive."""
    return multiply_add_p.bind(x, y, z)


# eval: the rule sees NumPy arrays and returns a list of outputs
@core.impl_rules.register(multiply_add_p)
def _multiply_add_impl(x, y, z):
    return [np.add(np.multiply(x, y), z)]


# make_jaxpr and jit: only the types are known; the rule returns the output's type
@core.abstract_eval_rules.register(multiply_add_p)
def _multiply_add_abstract_eval(x, y, z):
    if not (x.shape == y.shape == z.shape and x.dtype == y.dtype == z.dtype):
        raise TypeError(
            f"multiply_add: operands must agree, got {x.str_short()}, "
            f"{y.str_short()}, {z.str_short()}"
        )
    return [core.ShapedArray(x.shape, x.dtype)]


def _zeros_if_symbolic(t: Any) -> Any:
    # a tangent the jvp interpreter knows to be zero arrives as `core.Zero` (nothing computed)
    return dnp.zeros(t.aval.shape, t.aval.dtype) if isinstance(t, core.Zero) else t


# jvp: d(x y + z) = x_dot y + x y_dot + z_dot, written with multiply_add itself
@core.jvp_rules.register(multiply_add_p)
def _multiply_add_jvp(primals, tangents):
    (x, y, z), (x_dot, y_dot, z_dot) = primals, [_zeros_if_symbolic(t) for t in tangents]
    return [multiply_add(x, y, z)], [multiply_add(x_dot, y, multiply_add(x, y_dot, z_dot))]


# grad: the jvp above is linear in the tangents; reverse mode transposes it. Linear operands
# arrive as `core.UndefinedPrimal`s: z always is; x or y (not both: the product is not linear).
@core.transpose_rules.register(multiply_add_p)
def _multiply_add_transpose(cts, x, y, z):
    (ct,) = cts
    if isinstance(ct, core.Zero):
        ct = dnp.zeros(ct.aval.shape, ct.aval.dtype)
    ct_z = ct if isinstance(z, core.UndefinedPrimal) else None
    zeros = dnp.zeros(ct.shape, ct.dtype)
    if isinstance(x, core.UndefinedPrimal):
        return [multiply_add(ct, y, zeros), None, ct_z]
    if isinstance(y, core.UndefinedPrimal):
        return [None, multiply_add(x, ct, zeros), ct_z]
    return [None, None, ct_z]


# vmap: the rule sees the operands with their batch axes (`core.NOT_MAPPED` where there is
# none); it moves every batch axis to the front, broadcasting unbatched operands
@core.vmap_rules.register(multiply_add_p)
def _multiply_add_vmap(axis_size, vals, dims):
    moved = [
        dnp.broadcast_to(v, (axis_size, *v.shape))
        if d is core.NOT_MAPPED
        else dnp.transpose(v, (d, *(i for i in range(v.ndim) if i != d)))
        for v, d in zip(vals, dims, strict=True)
    ]
    return [multiply_add(*moved)], [0]


# jit: the rule builds StableHLO from the operands' MLIR values
@core.lowering_rules.register(multiply_add_p)
def _multiply_add_lowering(ctx, x, y, z):
    return [ctx.hlo.add(ctx.hlo.multiply(x, y), z)]


# --------------------------------------------------------------------------- using it


def square_add(a: Any, b: Any) -> Any:
    """The program of JAX's page: a * a + b."""
    return multiply_add(a, a, b)


def square_add_jax(a: Any, b: Any) -> Any:
    return a * a + b


A = np.array([1.0, 2.0, 3.0], np.float32)
B = np.array([0.5, -1.0, 4.0], np.float32)


def close(got: Any, want: Any) -> None:
    got_leaves = didax.tree_util.tree_leaves(got)
    want_leaves = jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)


def test_eval() -> None:
    out = square_add(A, B)
    assert isinstance(out, didax.Array)
    close(out, square_add_jax(A, B))


def test_make_jaxpr() -> None:
    jaxpr = didax.make_jaxpr(square_add)(A, B)
    assert str(jaxpr) == (
        "{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = multiply_add a a b in (c,) }"
    )
    didax.typecheck(jaxpr.jaxpr)
    close(didax.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, A, B), [square_add_jax(A, B)])


def test_jvp() -> None:
    close(didax.jvp(square_add, (A, B), (B, A)), jax.jvp(square_add_jax, (A, B), (B, A)))


@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_grad(argnums: Any) -> None:
    def loss(lib, f):
        return lib.grad(lambda a, b: (f(a, b) ** 2).sum(), argnums)

    close(loss(didax, square_add)(A, B), loss(jax, square_add_jax)(A, B))


def test_second_derivative() -> None:
    close(
        didax.grad(didax.grad(lambda a: square_add(a, a).sum() * a))(2.0),
        jax.grad(jax.grad(lambda a: square_add_jax(a, a).sum() * a))(2.0),
    )


def test_jacobians() -> None:
    close(didax.jacfwd(square_add, (0, 1))(A, B), jax.jacfwd(square_add_jax, (0, 1))(A, B))
    close(didax.jacrev(square_add, (0, 1))(A, B), jax.jacrev(square_add_jax, (0, 1))(A, B))


@pytest.mark.parametrize(
    "in_axes, a, b",
    [
        (0, np.outer(A, B), np.outer(B, A)),
        ((0, None), np.outer(A, B), B),
        ((None, 0), A, np.outer(B, A)),
        ((1, 0), np.outer(A, B), np.outer(B, A)),
    ],
)
def test_vmap(in_axes: Any, a: np.ndarray, b: np.ndarray) -> None:
    close(didax.vmap(square_add, in_axes)(a, b), jax.vmap(square_add_jax, in_axes)(a, b))


def test_jit() -> None:
    f = didax.jit(square_add)
    close(f(A, B), square_add_jax(A, B))
    assert "stablehlo.multiply" in f.lower(A, B).as_text()


def test_every_composition() -> None:
    def program(lib, f):
        loss = lambda a, b: (f(a, b) * a).sum()  # noqa: E731
        per_example = lib.vmap(lib.grad(loss), in_axes=(0, None))
        return lib.jit(lambda a, b: (per_example(a, b), lib.grad(lib.jit(loss))(a[0], b)))

    a = np.stack([A, B, A * B])
    close(program(didax, square_add)(a, B), program(jax, square_add_jax)(a, B))
