"""Behaviours that once had no test failing when they broke (issue 14, item 8): of 30
one-line bugs planted in the engine, these went unnoticed. Each test here fails under the
corresponding planted bug; most compare with JAX.
"""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from didax import lax
from didax.interpreters import partial_eval as pe

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


# ----------------------------------------------------------------------------- max/min ties


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("x,y", [(1.0, 1.0), (2.0, 1.0), (-0.5, 3.0)])
def test_max_min_gradients_split_ties_as_jax(name: str, x: float, y: float) -> None:
    ours = didax.grad(getattr(lax, name), argnums=(0, 1))(x, y)
    theirs = jax.grad(getattr(jax.lax, name), argnums=(0, 1))(x, y)
    assert [float(g) for g in ours] == [float(g) for g in theirs]
    if x == y:
        assert [float(g) for g in ours] == [0.5, 0.5]  # a tie: half to each operand


@pytest.mark.oracle
def test_max_gradient_at_ties_inside_arrays() -> None:
    x = np.array([1.0, 2.0, 3.0], np.float32)
    y = np.array([1.0, 0.0, 3.0], np.float32)

    def f(m):
        return lambda a, b: m.numpy.sum(m.lax.max(a, b) * m.numpy.arange(1.0, 4.0))

    ours = didax.grad(f(didax), argnums=(0, 1))(x, y)
    theirs = jax.grad(f(jax), argnums=(0, 1))(x, y)
    for o, t in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(np.asarray(o), np.asarray(t))


# ----------------------------------------------------------------------------- partial eval


@pytest.mark.oracle
def test_partial_eval_instantiate_on_a_known_output_counts_it_as_a_residual() -> None:
    from jax._src.interpreters import partial_eval as jax_pe  # noqa: PLC0415 - the oracle

    def f(m):  # output 0 is known and not read by the unknown side
        return lambda x, y: (m.numpy.cos(x), m.numpy.sin(x) * y)

    x, y = np.float32(0.5), np.float32(2.0)
    closed = didax.make_jaxpr(f(didax))(x, y)
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(
        closed, [False, True], instantiate=[True, False]
    )
    j_known, _, j_out_unknowns, j_res_avals = jax_pe.partial_eval_jaxpr_nounits(
        jax.make_jaxpr(f(jax))(x, y), [False, True], instantiate=[True, False]
    )
    assert out_unknowns == list(j_out_unknowns) == [True, True]
    assert num_res == len(j_res_avals) == 2  # sin(x) for the product, and cos(x) itself
    assert len(known.out_avals) == len(j_known.out_avals) == 2
    res = didax.eval_jaxpr(known.jaxpr, known.consts, x)
    cos_x, product = didax.eval_jaxpr(unknown.jaxpr, unknown.consts, *res, y)
    np.testing.assert_allclose(np.asarray(cos_x), np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(product), np.sin(x) * y, rtol=1e-6)


# ----------------------------------------------------------------------------- jit cache


def test_jit_fast_path_key_tells_weak_from_strong_arrays() -> None:
    f = didax.jit(lambda x: x * 2.0)
    strong = dnp.ones(3)
    weak = didax.Array(np.ones(3, np.float32), weak_type=True)
    assert not strong.weak_type and weak.weak_type
    for _ in range(2):  # the second call of each takes the fast path
        assert not f(strong).weak_type
    for _ in range(2):
        out = f(weak)
        assert out.weak_type and out.dtype == np.float32
    assert f._cache_size() == 2 and f.compilations == 2
    assert not f(strong).weak_type  # and the strong entry is still the strong one


@pytest.mark.oracle
def test_jit_weak_result_matches_jax() -> None:
    weak = jax.lax.broadcast(1.0, (3,))  # a weak f32[3] in JAX
    assert jax.jit(lambda x: x * 2.0)(weak).weak_type
    ours = didax.jit(lambda x: x * 2.0)(didax.Array(np.ones(3, np.float32), weak_type=True))
    assert ours.weak_type


# ----------------------------------------------------------------------------- custom rules


def _custom_product(m):
    @m.custom_jvp
    def f(x, y):
        return x * y

    @f.defjvp
    def f_jvp(primals, tangents):  # deliberately not the true derivative: every tangent used
        (x, y), (x_dot, y_dot) = primals, tangents
        return f(x, y), 2.0 * x_dot * y + 3.0 * y_dot * x

    return f


@pytest.mark.oracle
@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_custom_jvp_of_two_arguments_under_grad_argnums(argnums) -> None:
    ours = didax.grad(_custom_product(didax), argnums=argnums)(2.0, 5.0)
    theirs = jax.grad(_custom_product(jax), argnums=argnums)(2.0, 5.0)
    ours, theirs = (ours, theirs) if isinstance(argnums, tuple) else ((ours,), (theirs,))
    assert [float(g) for g in ours] == [float(g) for g in theirs]
    assert [float(g) for g in ours] == {0: [10.0], 1: [6.0], (0, 1): [10.0, 6.0]}[argnums]


def _two_outputs(m, seen: list):
    @m.custom_vjp
    def f(x):
        return m.numpy.sin(x), m.numpy.cos(x)

    def fwd(x):
        return f(x), x

    def bwd(x, cts):
        ct_a, ct_b = cts
        seen.append((np.shape(ct_b), np.asarray(ct_b).tolist()))
        return (2.0 * ct_a + 3.0 * ct_b,)

    f.defvjp(fwd, bwd)
    return f


@pytest.mark.oracle
def test_custom_vjp_output_with_a_zero_cotangent() -> None:
    ours_seen: list = []
    theirs_seen: list = []
    x = np.array([0.5, 1.0], np.float32)
    ours = didax.grad(lambda v: dnp.sum(_two_outputs(didax, ours_seen)(v)[0]))(x)
    theirs = jax.grad(lambda v: jnp.sum(_two_outputs(jax, theirs_seen)(v)[0]))(x)
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
    np.testing.assert_array_equal(np.asarray(ours), [2.0, 2.0])
    assert ours_seen == theirs_seen == [((2,), [0.0, 0.0])]  # zeros of the output's shape
