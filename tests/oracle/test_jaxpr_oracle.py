"""Oracle: for every case of `op_cases.CASES`, the jaxpr didax stages prints as JAX's does
(after renaming variables), equations, params, literals, inner `jit`s and `let`-hoisting
included. The few known differences are listed below with the reason; a listed case that
starts to match fails too, so the list stays current."""

from __future__ import annotations

import didax
import pytest
from op_cases import close_over

jax = pytest.importorskip("jax")
from helpers.jaxpr_text import canonical
from test_numpy_oracle import VALUE_CASES, value_inputs  # noqa: E402

pytestmark = pytest.mark.oracle

KNOWN_DIFFERENT = {
    # JAX prints a NumPy scalar type given as `empty`'s dtype as `<class 'numpy.float32'>`,
    # didax as `float32`
    "lax.empty((2, 3), float32)",
    # JAX prints `reduce`'s computation param as the function's repr (with its address),
    # didax as its name
    "lax.reduce(float32[2, 3], -inf, (1,))",
    # jax.numpy's dot_general takes operands of different dtypes (int32 x float32) and
    # contracts scalars with an empty dot_general; didax converts first and multiplies
    "numpy.dot(float32[], float32[3])",
    "numpy.dot(int32[2, 3], float32[3])",
    "numpy.matmul(int32[2, 3], float32[3])",
    # JAX squeezes size-1 batch axes and transposes; didax broadcasts the batch axes
    "numpy.matmul(float32[1, 3, 4], float32[2, 4, 5])",
    # integer linspace: JAX computes in float and floors; didax converts the float result
    "numpy.linspace(0, 10, 6, dtype=int32)",
    # JAX shifts integer inputs by their max before converting to float
    "nn.softmax(int32[3])",
    "nn.log_softmax(int32[3])",
    # weak integer operands: JAX converts the two predicates to bool before `and`
    "numpy.floor_divide(2, 3)",
    # didax passes epsilon to standardize's inner jit as an operand; JAX closes over it
    "nn.standardize(float32[3]:nonzero)",
    # the same for the `reduce` rows of op_cases/reductions.py
    "lax.reduce.product(float32[3, 4, 5], (1,))",
    "lax.reduce.product(float32[3, 4, 5], (0, 2))",
    # jnp.linalg.trace: JAX sums the input masked by an iota comparison (jit[name=trace]);
    # jnp.linalg.diagonal: JAX multiplies by an eye mask under a platform_index cond; didax
    # gathers the diagonal for both
    "numpy.linalg.trace(float32[4, 4])",
    "numpy.linalg.trace(float32[2, 3, 3])",
    "numpy.linalg.diagonal(float32[4, 4])",
    "numpy.linalg.diagonal(float32[2, 3, 3])",
    # JAX slices all of x1's components first and concatenates and transposes in an inner
    # jit[name=cross]; didax slices the pairs as it multiplies them and stacks
    "numpy.linalg.cross(float32[2, 3], float32[2, 3])",
    # through inv's lu_solve: JAX gathers the permuted rows with offset dims and reshapes around
    # triangular_solve; didax gathers with a batching dim and broadcasts the factor
    "numpy.linalg.tensorinv(float32[4, 4], ind=1)",
    # JAX takes the residual through an inner jit[name=norm] and compares s > 0 first
    "numpy.linalg.lstsq(float32[5, 3], float32[5])",
}


def _texts(case) -> tuple[str, str]:
    inputs = value_inputs(case)
    jax_fn, arrays = close_over(case.jax_fn, inputs, case.array_positions)
    didax_fn, d_arrays = close_over(case.didax_fn, inputs, case.array_positions)
    return (str(jax.make_jaxpr(jax_fn)(*arrays)), str(didax.make_jaxpr(didax_fn)(*d_arrays)))


def test_known_differences_are_cases() -> None:
    assert KNOWN_DIFFERENT <= {c.id for c in VALUE_CASES}


@pytest.mark.parametrize("case", VALUE_CASES, ids=lambda c: c.id)
def test_jaxpr_matches_jax(case) -> None:
    expected, got = _texts(case)
    same = canonical(expected) == canonical(got)
    if case.id in KNOWN_DIFFERENT:
        assert not same, f"{case.id} now matches JAX: remove it from KNOWN_DIFFERENT"
    else:
        assert same, f"\n--- jax\n{expected}\n--- didax\n{got}"
