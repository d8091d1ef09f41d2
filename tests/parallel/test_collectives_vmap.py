"""Collectives under `vmap(..., axis_name=)`: psum, pmean, pmax, pmin, axis_index, against
JAX 0.10.2's `vmap(axis_name=)`: values, dtypes, gradients, jaxpr text and the errors of an
unbound axis name. Under vmap the batching rule is the semantics (a psum over the vmapped
axis is a sum over the batch dimension), so every case here would fail without it."""

from __future__ import annotations

import re

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import lax
from helpers.oracle import EagerJax, jax_quick

jax = pytest.importorskip("jax")
jjnp = jax.numpy

pytestmark = pytest.mark.oracle

X = np.arange(6.0, dtype=np.float32).reshape(3, 2) - 2.5
X3 = np.arange(24.0, dtype=np.float32).reshape(3, 4, 2) / 7 - 1
X4 = np.arange(72.0, dtype=np.float32).reshape(3, 4, 3, 2) / 5 - 3


# Each case builds the same program from a namespace (didax or jax): (D, L, N) = the top
# level, lax, numpy.
CASES = {
    "psum": lambda D, L, N: D.vmap(lambda v: L.psum(v, "i"), axis_name="i"),
    "pmean": lambda D, L, N: D.vmap(lambda v: L.pmean(v, "i"), axis_name="i"),
    "pmax": lambda D, L, N: D.vmap(lambda v: L.pmax(v, "i"), axis_name="i"),
    "pmin": lambda D, L, N: D.vmap(lambda v: L.pmin(v, "i"), axis_name="i"),
    "axis_index": lambda D, L, N: D.vmap(lambda v: v * L.axis_index("i"), axis_name="i"),
    "psum_of_constant": lambda D, L, N: D.vmap(lambda v: L.psum(1, "i"), axis_name="i"),
    "normalize": lambda D, L, N: D.vmap(lambda v: v / L.psum(N.abs(v), "i"), axis_name="i"),
    "in_axes_1": lambda D, L, N: D.vmap(lambda v: L.psum(v, "i"), in_axes=1, axis_name="i"),
    "out_axes_1": lambda D, L, N: D.vmap(lambda v: L.psum(v, "i") * v, out_axes=1, axis_name="i"),
    "unbatched_operand": lambda D, L, N: D.vmap(
        lambda v, w: L.psum(w, "i") + v, in_axes=(0, None), axis_name="i"
    ),
    "inner_name": lambda D, L, N: D.vmap(
        D.vmap(lambda v: L.psum(v, "i"), axis_name="j"), axis_name="i"
    ),
    "two_names": lambda D, L, N: D.vmap(
        D.vmap(lambda v: L.psum(v, ("i", "j")), axis_name="j"), axis_name="i"
    ),
    "index_and_max": lambda D, L, N: D.vmap(
        D.vmap(lambda v: v * L.axis_index("i") + L.pmax(v, "j"), axis_name="j"), axis_name="i"
    ),
    "pytree": lambda D, L, N: D.vmap(lambda v: L.psum({"a": v, "b": (v * 2,)}, "i"), axis_name="i"),
    "bool_sums_as_int": lambda D, L, N: D.vmap(lambda v: L.psum(v > 0, "i"), axis_name="i"),
    "grad_in_vmap": lambda D, L, N: D.vmap(D.grad(lambda v: L.psum(v, "i").sum()), axis_name="i"),
    "grad_of_vmap": lambda D, L, N: D.grad(
        lambda v: D.vmap(lambda u: L.psum(u * u, "i"), axis_name="i")(v).sum()
    ),
    "jvp": lambda D, L, N: (
        lambda v: D.jvp(D.vmap(lambda u: L.psum(N.sin(u), "i"), axis_name="i"), (v,), (v,))
    ),
    "jit_in_vmap": lambda D, L, N: D.vmap(
        D.jit(lambda v: L.psum(v, "i") * L.axis_index("i")), axis_name="i"
    ),
    "jit_of_vmap": lambda D, L, N: D.jit(
        D.vmap(lambda v: L.psum(v, "i") - L.pmin(v, "i"), axis_name="i")
    ),
    "all_gather": lambda D, L, N: D.vmap(lambda v: L.all_gather(v, "i"), axis_name="i"),
    "all_gather_axis_1": lambda D, L, N: D.vmap(
        lambda v: L.all_gather(v, "i", axis=1), axis_name="i"
    ),
    "all_gather_tiled": lambda D, L, N: D.vmap(
        lambda v: L.all_gather(v, "i", axis=1, tiled=True), axis_name="i"
    ),
    "all_gather_in_axes_1": lambda D, L, N: D.vmap(
        lambda v: L.all_gather(v, "i", axis=2), in_axes=1, axis_name="i"
    ),
    "all_gather_constant": lambda D, L, N: D.vmap(
        lambda v: L.all_gather(N.ones(2), "i") + v[0, 0], axis_name="i"
    ),
    "all_gather_inner_name": lambda D, L, N: D.vmap(
        D.vmap(lambda v: L.all_gather(v, "i"), axis_name="j"), axis_name="i"
    ),
    "grad_all_gather": lambda D, L, N: D.vmap(
        D.grad(lambda v: (L.all_gather(v, "i") ** 2).sum()), axis_name="i"
    ),
    # an inner (unnamed) vmap whose batch dimension is the gathered one: the tiled gather
    # must move past it (gathering along the batch dimension folds the batch into the data)
    "all_gather_tiled_inner_batch_at_gathered_axis": lambda D, L, N: D.vmap(
        D.vmap(lambda v: L.all_gather(v, "i", axis=0, tiled=True)), axis_name="i"
    ),
    "all_gather_tiled_inner_batch_at_gathered_axis_1": lambda D, L, N: D.vmap(
        D.vmap(lambda v: L.all_gather(v, "i", axis=1, tiled=True), in_axes=1, out_axes=1),
        axis_name="i",
    ),
    "psum_scatter": lambda D, L, N: D.vmap(
        lambda v: L.psum_scatter(v[:3, 0], "i"), in_axes=1, axis_name="i"
    ),
    "psum_scatter_tiled": lambda D, L, N: D.vmap(
        lambda v: L.psum_scatter(v, "i", scatter_dimension=1, tiled=True),
        in_axes=2,
        axis_name="i",
    ),
    "psum_scatter_constant": lambda D, L, N: D.vmap(
        lambda v: L.psum_scatter(N.ones(3), "i") + v[0, 0], axis_name="i"
    ),
    "grad_psum_scatter": lambda D, L, N: D.vmap(
        D.grad(lambda v: (L.psum_scatter(v[:2, 0], "i", tiled=True) ** 2).sum()),
        in_axes=2,
        axis_name="i",
    ),
    "ppermute": lambda D, L, N: D.vmap(
        lambda v: L.ppermute(v, "i", [(0, 1), (1, 2), (2, 0)]), axis_name="i"
    ),
    "ppermute_inner_name": lambda D, L, N: D.vmap(
        D.vmap(lambda v: L.ppermute(v, "i", [(0, 2), (1, 0), (2, 1)]), axis_name="j"),
        axis_name="i",
    ),
    "grad_ppermute": lambda D, L, N: D.vmap(
        D.grad(lambda v: (L.ppermute(v, "i", [(0, 1), (1, 2), (2, 0)]) * v).sum()),
        axis_name="i",
    ),
    # higher-order primitives hand the named axis size on to their bodies
    "scan_body": lambda D, L, N: D.vmap(
        lambda v: L.scan(lambda c, u: (c + L.psum(u, "i"), c), 0.0, v)[1], axis_name="i"
    ),
    "cond_branch": lambda D, L, N: D.vmap(
        lambda v: L.cond(v[0] > 1, lambda u: L.psum(u, "i"), lambda u: u * 2, v), axis_name="i"
    ),
    "fori_body": lambda D, L, N: D.vmap(
        lambda v: L.fori_loop(0, 3, lambda k, u: u + L.pmean(u, "i"), v), axis_name="i"
    ),
    "jit_grad_all_gather": lambda D, L, N: D.jit(
        D.vmap(D.grad(lambda v: (L.all_gather(v, "i") * L.axis_index("i")).sum()), axis_name="i")
    ),
    "all_to_all": lambda D, L, N: D.vmap(lambda v: L.all_to_all(v, "i", 1, 0), axis_name="i"),
    "all_to_all_same_axis": lambda D, L, N: D.vmap(
        lambda v: L.all_to_all(v, "i", 1, 1), axis_name="i"
    ),
    "all_to_all_concat_after": lambda D, L, N: D.vmap(
        lambda v: L.all_to_all(v, "i", 1, 2), axis_name="i"
    ),
    "all_to_all_in_axes_2": lambda D, L, N: D.vmap(
        lambda v: L.all_to_all(v, "i", 0, 2), in_axes=2, axis_name="i"
    ),
    "all_to_all_tiled": lambda D, L, N: D.vmap(
        lambda v: L.all_to_all(v.reshape(6, -1), "i", 0, 1, tiled=True), axis_name="i"
    ),
}
# The arguments, when not (X,).
ARGS = {"unbatched_operand": (X, X[0])}
ARGS.update({name: (X3,) for name in CASES if "gather" in name or "scatter" in name})
ARGS.update({name: (X3,) for name in CASES if "ppermute" in name})
ARGS.update({name: (X4,) for name in CASES if "all_to_all" in name})
ARGS["all_gather_tiled_inner_batch_at_gathered_axis_1"] = (X4,)

# Cases whose jaxpr differs from JAX's for a reason outside the collectives: ppermute's vmap
# rule takes the permuted slices with slice+concatenate where JAX uses a gather; in the
# psum_scatter cases, `v[:3, 0]` on a batched value slices before transposing (JAX: after).
# (The pmean gradient differs too: add_any's vmap rule broadcasts an unmapped operand to rank
# only; it is checked for values below.)
TEXT_CASES = sorted(
    set(CASES)
    - {"ppermute", "ppermute_inner_name", "grad_ppermute", "psum_scatter", "grad_psum_scatter"}
)


def _programs(name: str):
    return CASES[name](didax, lax, jnp), CASES[name](jax, jax.lax, jjnp)


def _same(a, b) -> None:
    leaves_a, tree_a = didax.tree_util.tree_flatten(a)
    leaves_b, tree_b = jax.tree_util.tree_flatten(b)
    assert len(leaves_a) == len(leaves_b)
    for p, q in zip(leaves_a, leaves_b, strict=True):
        p, q = np.asarray(p), np.asarray(q)
        assert p.dtype == q.dtype and p.shape == q.shape
        np.testing.assert_allclose(p, q, rtol=1e-6, atol=1e-6)


# JAX's values, compiled programs (helpers/oracle.py; eagerly, each of JAX's operations is a
# compile of its own)
JAX_VALUES = EagerJax(
    lambda: [(CASES[n](jax, jax.lax, jjnp), ARGS.get(n, (X,)), {}) for n in sorted(CASES)]
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_jax(name: str) -> None:
    mine = CASES[name](didax, lax, jnp)
    args = ARGS.get(name, (X,))
    _same(mine(*args), JAX_VALUES.result(sorted(CASES).index(name)))


def _canonical(text: str) -> str:
    # JAX's batching rules leak NumPy integers into some params: `(np.int64(1),)`
    return re.sub(r"np\.int64\((-?\d+)\)", r"\1", text)


def _one_line(text: str) -> str:
    # JAX breaks an equation's params over lines when their NumPy spelling makes them long;
    # after `_canonical` they are short again: compare the tokens, not the line breaks
    return re.sub(r"\[\s+", "[", re.sub(r"\s+\]", "]", re.sub(r"\s+", " ", text)))


@pytest.mark.parametrize("name", TEXT_CASES)
def test_jaxpr_text_matches_jax(name: str) -> None:
    mine, theirs = _programs(name)
    args = ARGS.get(name, (X,))
    want = _canonical(str(jax.make_jaxpr(theirs)(*args)))
    assert _one_line(str(didax.make_jaxpr(mine)(*args))) == _one_line(want)


# Per-element programs, staged with the axis name bound by `make_jaxpr(axis_env=)`: the
# collectives print with their names, as JAX prints them.
NAMED = {
    "psum": lambda D, L, N: lambda v: L.psum(v, "i"),
    "pmean": lambda D, L, N: lambda v: L.pmean(v, "i"),
    "pmax": lambda D, L, N: lambda v: L.pmax(v, "i"),
    "pmin": lambda D, L, N: lambda v: L.pmin(v, "i"),
    "axis_index": lambda D, L, N: lambda v: v * L.axis_index("i"),
    "psum_of_constant": lambda D, L, N: lambda v: L.psum(1, "i"),
    "grad_psum": lambda D, L, N: D.grad(lambda v: L.psum(v, "i").sum()),
    "jvp_psum": lambda D, L, N: lambda v: D.jvp(lambda u: L.psum(N.sin(u), "i"), (v,), (v,)),
    "two_names": lambda D, L, N: lambda v: L.psum(v, ("i", "j")),
    "all_gather": lambda D, L, N: lambda v: L.all_gather(v, "i"),
    "all_gather_tiled": lambda D, L, N: lambda v: L.all_gather(v, "i", axis=0, tiled=True),
    "all_gather_two_names": lambda D, L, N: lambda v: L.all_gather(v, ("i", "j"), axis=1),
    "psum_scatter": lambda D, L, N: lambda v: L.psum_scatter(N.ones((3, 2)) * v, "i"),
    "psum_scatter_tiled": lambda D, L, N: (
        lambda v: L.psum_scatter(N.ones((2, 6)) * v[0], "i", scatter_dimension=1, tiled=True)
    ),
    "ppermute": lambda D, L, N: lambda v: L.ppermute(v, "i", [(0, 1), (1, 2), (2, 0)]),
    "grad_all_gather": lambda D, L, N: D.grad(lambda v: (L.all_gather(v, "i") ** 2).sum()),
    "grad_psum_scatter": lambda D, L, N: D.grad(
        lambda v: L.psum_scatter(N.ones((3, 2)) * v, "i").sum()
    ),
    "grad_ppermute": lambda D, L, N: D.grad(
        lambda v: (L.ppermute(v, "i", [(0, 1), (1, 2), (2, 0)]) * v).sum()
    ),
    "all_to_all": lambda D, L, N: lambda v: L.all_to_all(N.ones((3, 3)) * v[0], "i", 1, 0),
    "all_to_all_tiled": lambda D, L, N: (
        lambda v: L.all_to_all(N.ones((6, 2)) * v, "i", 0, 1, tiled=True)
    ),
    # (not the untiled all_to_all: JAX 0.10.2's own transpose of it fails on a shape check)
    "grad_all_to_all_tiled": lambda D, L, N: D.grad(
        lambda v: (L.all_to_all(N.ones((6, 2)) * v, "i", 0, 1, tiled=True) ** 2).sum()
    ),
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_jaxpr_text_matches_jax(name: str) -> None:
    mine, theirs = NAMED[name](didax, lax, jnp), NAMED[name](jax, jax.lax, jjnp)
    env = [("i", 3), ("j", 2)]
    text = str(didax.make_jaxpr(mine, axis_env=env)(X[0]))
    assert text == _canonical(str(jax.make_jaxpr(theirs, axis_env=env)(X[0])))


def test_psum_prints_its_named_axis() -> None:
    text = str(didax.make_jaxpr(lambda v: lax.psum(v, "i"), axis_env=[("i", 3)])(X[0]))
    assert "psum[axes=('i',) axis_index_groups=None] a" in text


def test_vmap_of_psum_is_a_sum_over_the_batch() -> None:
    out = didax.vmap(lambda v: lax.psum(v, "i"), axis_name="i")(X)
    np.testing.assert_allclose(np.asarray(out), np.broadcast_to(X.sum(0), X.shape))


def test_pmean_gradient_matches_jax() -> None:
    def build(D, L):
        return D.vmap(D.grad(lambda v: (L.pmean(v * v, "i") * v).sum()), axis_name="i")

    _same(build(didax, lax)(X), jax_quick(build(jax, jax.lax), X))


ERROR_CASES = {
    "other_name_under_vmap": lambda D, L: D.vmap(lambda v: L.psum(v, "j"), axis_name="i")(X),
    "no_name_under_vmap": lambda D, L: D.vmap(lambda v: L.psum(v, "i"))(X),
    "eager_psum": lambda D, L: L.psum(X, "i"),
    "eager_axis_index": lambda D, L: L.axis_index("i"),
    "staged_psum": lambda D, L: D.make_jaxpr(lambda v: L.pmax(v, "i"))(X),
    "jit_psum": lambda D, L: D.jit(lambda v: L.psum(v, "i"))(X),
}


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_unbound_axis_name_raises_name_error(name: str) -> None:
    with pytest.raises(NameError) as theirs:
        ERROR_CASES[name](jax, jax.lax)
    with pytest.raises(NameError, match="unbound axis name: [ij]") as mine:
        ERROR_CASES[name](didax, lax)
    assert "unbound axis name" in str(theirs.value)
    assert str(mine.value).split(":")[1][:2] == str(theirs.value).split(":")[1][:2]


@pytest.mark.parametrize("prim", ["pmax", "pmin"])
def test_pmax_has_no_derivative_as_in_jax(prim: str) -> None:
    def build(D, L):
        return D.vmap(D.grad(lambda v: getattr(L, prim)(v, "i").sum()), axis_name="i")

    with pytest.raises(NotImplementedError):
        build(jax, jax.lax)(X)
    with pytest.raises(NotImplementedError, match=prim):
        build(didax, lax)(X)
