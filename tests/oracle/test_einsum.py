"""`jnp.einsum` against JAX: values, shapes and, for one or two operands, the jaxpr as JAX
0.10.2 prints it (matmul, batched matmul, inner and outer products, transposes, sums,
diagonals and traces), and gradients."""

from __future__ import annotations

import didax
import didax.numpy as jnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")
from helpers.jaxpr_text import canonical
from helpers.oracle import JaxOracle

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(11)
CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("i,i->", [(3,), (3,)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->i", [(2, 3)]),
    ("i,j->ij", [(2,), (3,)]),
    ("ij,j->i", [(2, 3), (3,)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ii,ij->j", [(3, 3), (3, 2)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    # `...`: broadcast batch axes (a size-1 axis is squeezed against a longer one)
    ("...ij,...jk->...ik", [(5, 1, 2, 3), (4, 3, 2)]),
    ("...ij,...jk", [(2, 2, 3), (2, 3, 4)]),
    ("...i,...i->...", [(2, 3), (3,)]),
    ("i...->...", [(3, 2, 4)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("...", [(2, 3)]),
    ("ij...,jk...->ik...", [(2, 3, 4), (3, 5, 4)]),
    ("b...d,bkd->b...k", [(2, 3, 5, 4), (2, 6, 4)]),
    ("...d,de->...e", [(2, 3, 4), (4, 5)]),
    ("bij,...->bij", [(2, 3, 3), ()]),
    ("...ij,...j", [(1, 2, 3), (4, 1, 3)]),
    # repeated indices beside other axes, and a threefold one (JAX's Kronecker delta)
    ("iij->ij", [(3, 3, 2)]),
    ("iii->i", [(3, 3, 3)]),
    ("ijk,kji", [(2, 3, 4), (4, 3, 2)]),
    # three and four operands: the contraction order of opt_einsum's "optimal" path
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ij,jk,k->i", [(2, 3), (3, 100), (100,)]),
    ("i,ij,j->", [(30,), (30, 2), (2,)]),
    ("ab,bc,cd,de->ae", [(2, 9), (9, 3), (3, 8), (8, 2)]),
    ("ab,bc,cd,de->ae", [(9, 2), (2, 9), (9, 2), (2, 9)]),
    ("bij,bjk,bkl->bil", [(2, 3, 4), (2, 4, 5), (2, 5, 3)]),
    ("...ij,jk,k", [(2, 3, 4), (4, 6), (6,)]),
    ("ij,ij,ij->i", [(3, 4), (3, 4), (3, 4)]),
    ("ai,bi,ci,di->abcd", [(2, 3), (2, 3), (2, 3), (2, 3)]),
]


def _args(i: int) -> list[np.ndarray]:
    return [np.random.default_rng([11, i]).normal(size=s).astype(np.float32) for s in CASES[i][1]]


def _loss(m, subscripts):
    return lambda *a: (m.einsum(subscripts, *a) ** 2).sum()


def _jax_member(i: int):
    subscripts, shapes = CASES[i]
    argnums = tuple(range(len(shapes)))

    def value_and_grads(*a):
        return jjnp.einsum(subscripts, *a), jax.grad(_loss(jjnp, subscripts), argnums)(*a)

    return i, value_and_grads, _args(i)


# JAX's values and gradients, 10 cases to a compiled program (eagerly, each of JAX's
# operations is a compile of its own: ~7 a case).
ORACLE = JaxOracle.in_chunks([_jax_member(i) for i in range(len(CASES))], 10)


@pytest.mark.parametrize(
    "i", range(len(CASES)), ids=[f"{c[0]}-{'x'.join(map(str, c[1][0]))}" for c in CASES]
)
def test_einsum_values_jaxpr_and_grads(i):
    subscripts, shapes = CASES[i]
    args = _args(i)
    want, want_grads = ORACLE.get(i)
    got = jnp.einsum(subscripts, *args)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)
    text = str(didax.make_jaxpr(lambda *a: jnp.einsum(subscripts, *a))(*args))
    assert canonical(text) == canonical(
        str(jax.make_jaxpr(lambda *a: jjnp.einsum(subscripts, *a))(*args))
    ), text
    argnums = tuple(range(len(args)))
    got_grads = didax.grad(_loss(jnp, subscripts), argnums)(*args)
    for g, w in zip(got_grads, want_grads, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "subscripts, shapes",
    [("...i.,i", [(2, 3), (3,)]), ("...ij,j", [(2,), (2,)]), ("ij,jk", [(2, 3)])],
)
def test_einsum_bad_subscripts_raise_as_jax(subscripts, shapes):
    args = [np.ones(s, np.float32) for s in shapes]
    with pytest.raises(ValueError):
        jjnp.einsum(subscripts, *args)
    with pytest.raises(ValueError):
        jnp.einsum(subscripts, *args)


def test_einsum_five_operands_values():
    # five or more operands contract left to right (opt_einsum's branch search is not copied)
    shapes = [(2, 3), (3, 4), (4, 5), (5, 6), (6, 2)]
    args = [RNG.normal(size=s).astype(np.float32) for s in shapes]
    np.testing.assert_allclose(
        np.asarray(jnp.einsum("ij,jk,kl,lm,mn->in", *args)),
        np.asarray(jjnp.einsum("ij,jk,kl,lm,mn->in", *args)),
        rtol=1e-5,
        atol=1e-5,
    )


def test_dot_general_precision_prints_and_transposes_as_jax():
    # lax.Precision: printed in the jaxpr as JAX prints it, carried by the transpose, which
    # (like JAX's) keeps preferred_element_type=None when the product had none
    a, x = RNG.normal(size=(3, 3)).astype(np.float32), RNG.normal(size=3).astype(np.float32)

    def f(lax):
        return lambda x: lax.dot_general(
            a, x, (((1,), (0,)), ((), ())), precision=lax.Precision.HIGHEST
        ).sum()

    for make in (lambda lib, f: lib.make_jaxpr(f), lambda lib, f: lib.make_jaxpr(lib.grad(f))):
        got = str(make(didax, f(didax.lax))(x))
        assert canonical(got) == canonical(str(make(jax, f(jax.lax))(x))), got
    np.testing.assert_allclose(
        np.asarray(didax.grad(f(didax.lax))(x)), jax.grad(f(jax.lax))(x), rtol=1e-6
    )
