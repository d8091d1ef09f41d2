"""`lax.custom_linear_solve` (`custom_linear_solve_p`) and the `jnp.linalg` functions built on
it, against JAX 0.10.2: values eagerly and under jit, jvp, grad (through the operator's consts
and through b), vmap, second derivatives, errors, and jaxprs as JAX prints them
(`custom_linear_solve[const_lengths=_LinearSolveTuple(...) jaxprs=_LinearSolveTuple(...)]`,
`jnp.linalg.solve` of a vector, `jnp.linalg.det` of 2x2 and 3x3 matrices); `has_aux=True`
(aux outputs returned, not differentiated)."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jjnp = jax.numpy
from helpers.jaxpr_text import canonical
from helpers.oracle import JaxOracle, jax_quick

pytestmark = pytest.mark.oracle

A = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 1.0], [0.2, 1.0, 2.0]], np.float32)
B = np.array([1.0, 2.0, 3.0], np.float32)
SPD = (A @ A.T + np.eye(3)).astype(np.float32)


def linear_solve(lib, m, symmetric=False):
    # a user's solve: the operator x -> a x, solved by the library's dense solver
    def f(a, b):
        def solve(matvec, x):
            return m.linalg.solve(a, x)

        def transpose_solve(vecmat, x):
            return m.linalg.solve(a.T, x)

        return lib.lax.custom_linear_solve(
            lambda x: m.dot(a, x),
            b,
            solve,
            transpose_solve=None if symmetric else transpose_solve,
            symmetric=symmetric,
        )

    return f


def _close(got, want, tol=1e-4):
    got_leaves, want_leaves = didax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=tol, atol=tol)


TRANSFORMS = {
    "eval": lambda lib, f: f,
    "jit": lambda lib, f: lib.jit(f),
    "grad_a": lambda lib, f: lib.grad(lambda a, b: (f(a, b) ** 2).sum()),
    "grad_b": lambda lib, f: lib.grad(lambda a, b: (f(a, b) ** 3).sum(), 1),
    "jit_grad": lambda lib, f: lib.jit(lib.grad(lambda a, b: f(a, b).sum(), (0, 1))),
    "jvp": lambda lib, f: lambda a, b: lib.jvp(f, (a, b), (a * 0.1, b * 0.5)),
    "vmap_b": lambda lib, f: lambda a, b: lib.vmap(f, (None, 0))(a, lib.numpy.stack([b, -2 * b])),
    "vmap_a": lambda lib, f: lambda a, b: lib.vmap(f, (0, None))(lib.numpy.stack([a, a.T]), b),
    "grad_of_vmap": lambda lib, f: lib.grad(
        lambda a, b: lib.vmap(f, (0, 0))(lib.numpy.stack([a, a + 1]), lib.numpy.stack([b, b])).sum()
    ),
    "hessian_b": lambda lib, f: lib.hessian(lambda a, b: (f(a, b) ** 3).sum(), 1),
    "jacrev_jacfwd": lambda lib, f: lib.jacrev(lib.jacfwd(f, 1)),
}


@pytest.mark.parametrize("symmetric", [False, True], ids=["general", "symmetric"])
@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_custom_linear_solve_matches_jax(name, symmetric):
    a = SPD if symmetric else A
    got = TRANSFORMS[name](didax, linear_solve(didax, dnp, symmetric))(a, B)
    _close(got, ORACLE.result("plain", (name, symmetric)))


def test_custom_linear_solve_jaxpr_as_jax():
    # an iterative-style solve closing over the operator: the four jaxprs and the const
    # counts print as JAX's named tuples
    def prog(lib, m):
        def f(a, b):
            matvec = lambda x: m.dot(a, x)  # noqa: E731
            solve = lambda mv, x: x / a[0, 0]  # noqa: E731  (a one-step preconditioner)
            return lib.lax.custom_linear_solve(matvec, b, solve, transpose_solve=solve)

        return f

    got = str(didax.make_jaxpr(prog(didax, dnp))(A, B))
    want = str(jax.make_jaxpr(prog(jax, jjnp))(A, B))
    assert canonical(got) == canonical(want), got
    assert "_LinearSolveTuple(matvec=1, vecmat=1, solve=1, transpose_solve=1)" in got


def aux_linear_solve(lib, m):
    # solve and transpose_solve return (x, aux): a residual norm and an iteration count
    def f(a, b):
        def solve(matvec, x):
            y = m.linalg.solve(a, x)
            return y, {"residual": m.sum((matvec(y) - x) ** 2), "iterations": m.int32(3)}

        def transpose_solve(vecmat, x):
            y = m.linalg.solve(a.T, x)
            return y, {"residual": m.sum((vecmat(y) - x) ** 2), "iterations": m.int32(4)}

        return lib.lax.custom_linear_solve(
            lambda x: m.dot(a, x), b, solve, transpose_solve, has_aux=True
        )

    return f


AUX_TRANSFORMS = {
    "eval": lambda lib, f: f,
    "jit": lambda lib, f: lib.jit(f),
    # the aux outputs are not differentiated: the residual adds nothing to the gradient
    "grad": lambda lib, f: lib.grad(
        lambda a, b: (f(a, b)[0] ** 2).sum() + 5 * f(a, b)[1]["residual"], (0, 1)
    ),
    "jit_grad": lambda lib, f: lib.jit(lib.grad(lambda a, b: f(a, b)[0].sum(), (0, 1))),
    "jvp": lambda lib, f: lambda a, b: lib.jvp(f, (a, b), (a * 0.1, b * 0.5))[1][0],
    "jvp_aux": lambda lib, f: lambda a, b: lib.jvp(f, (a, b), (a * 0.1, b * 0.5))[1][1]["residual"],
    "vmap_b": lambda lib, f: lambda a, b: lib.vmap(f, (None, 0))(a, lib.numpy.stack([b, -2 * b])),
    "vmap_a": lambda lib, f: lambda a, b: lib.vmap(f, (0, None))(lib.numpy.stack([a, a.T]), b),
    "jacrev": lambda lib, f: lib.jacrev(lambda a, b: f(a, b)[0], 1),
}


# JAX's side of the two transform tests, one program each (JaxOracle): eagerly, each operation
# of a grad, jvp or vmap is a compile of its own
ORACLE = JaxOracle(
    {
        "plain": [
            (
                (name, symmetric),
                TRANSFORMS[name](jax, linear_solve(jax, jjnp, symmetric)),
                [SPD if symmetric else A, B],
            )
            for name in TRANSFORMS
            for symmetric in (False, True)
        ],
        "aux": [
            (name, make(jax, aux_linear_solve(jax, jjnp)), [A, B])
            for name, make in AUX_TRANSFORMS.items()
        ],
    }
)


@pytest.mark.parametrize("name", sorted(AUX_TRANSFORMS))
def test_custom_linear_solve_has_aux_matches_jax(name):
    got = AUX_TRANSFORMS[name](didax, aux_linear_solve(didax, dnp))(A, B)
    _close(got, ORACLE.result("aux", name))


def test_custom_linear_solve_has_aux_jaxpr_as_jax():
    # aux leaves are the primitive's trailing outputs; its solve jaxprs return them after x
    def prog(lib, m):
        def f(a, b):
            def solve(matvec, x):
                return x / a[0, 0], (m.sum(x), 2)

            matvec = lambda x: m.dot(a, x)  # noqa: E731
            return lib.lax.custom_linear_solve(matvec, b, solve, solve, has_aux=True)

        return f

    for transform in (lambda lib, f: f, lambda lib, f: lib.grad(lambda a, b: f(a, b)[0].sum())):
        got = str(didax.make_jaxpr(transform(didax, prog(didax, dnp)))(A, B))
        want = str(jax.make_jaxpr(transform(jax, prog(jax, jjnp)))(A, B))
        assert canonical(got) == canonical(want), got
    x, (total, two) = prog(didax, dnp)(A, B)
    _close((x, total, two), prog(jax, jjnp)(A, B))


@pytest.mark.parametrize(
    "name, fn, args",
    [
        ("solve", lambda m: m.linalg.solve, (A, B)),
        ("det_3x3", lambda m: m.linalg.det, (A,)),
        ("det_2x2", lambda m: m.linalg.det, (A[:2, :2],)),
    ],
    ids=["solve", "det_3x3", "det_2x2"],
)
def test_linalg_jaxprs_as_jax(name, fn, args):
    got = str(didax.make_jaxpr(fn(dnp))(*args))
    want = str(jax.make_jaxpr(fn(jjnp))(*args))
    assert canonical(got) == canonical(want), got


@pytest.mark.parametrize(
    "fn, args",
    [
        (lambda m, a, b: m.linalg.solve(a, b), (A, B)),
        (lambda m, a, b: m.linalg.solve(a, b[:, None] * np.arange(1.0, 3.0)), (A, B)),
        (lambda m, a, b: m.linalg.solve(m.stack([a, a.T]), b), (A, B)),
        (lambda m, a, b: m.linalg.inv(a) @ b, (A, B)),
        (lambda m, a, b: m.linalg.inv(m.stack([a, a + 1])).sum(0) @ b, (A, B)),
    ],
    ids=["vector", "matrix", "batched_a", "inv", "inv_batched"],
)
def test_linalg_values_and_grads(fn, args):
    makes = (
        lambda lib, f: f,
        lambda lib, f: lib.jit(f),
        lambda lib, f: lib.grad(lambda a, b: (f(a, b) ** 2).sum(), (0, 1)),
        lambda lib, f: lib.jit(lib.grad(lambda a, b: f(a, b).sum(), (0, 1))),
        lambda lib, f: lib.jacfwd(f, 1),
    )
    # JAX's side as one program: eagerly, each operation of its grads is a compile of its own
    j_fn = lambda a, b: fn(jjnp, a, b)  # noqa: E731
    wants = jax_quick(lambda *xs: [make(jax, j_fn)(*xs) for make in makes], *args)
    for make, want in zip(makes, wants, strict=True):
        _close(make(didax, lambda a, b: fn(dnp, a, b))(*args), want)


def test_errors_as_jax():
    no_transpose = lambda lib, m: (
        lambda a, b: lib.lax.custom_linear_solve(  # noqa: E731
            lambda x: m.dot(a, x), b, lambda mv, x: m.linalg.solve(a, x)
        )
    )
    # forward mode needs no transpose_solve; reverse mode does
    _close(
        didax.jvp(no_transpose(didax, dnp), (A, B), (A, B)),
        jax.jvp(no_transpose(jax, jjnp), (A, B), (A, B)),
    )
    with pytest.raises(TypeError, match="transpose_solve required"):
        jax.grad(lambda b: no_transpose(jax, jjnp)(A, b).sum())(B)
    with pytest.raises(TypeError, match="transpose_solve required"):
        didax.grad(lambda b: no_transpose(didax, dnp)(A, b).sum())(B)
    bad = (
        lambda lib, m: (
            lambda b: lib.lax.custom_linear_solve(  # noqa: E731
                lambda x: x[:2], b, lambda mv, x: x
            )
        )
    )
    with pytest.raises(ValueError):
        bad(jax, jjnp)(B)
    with pytest.raises(ValueError):
        bad(didax, dnp)(B)
