"""`didax.numpy`'s added functions against `jax.numpy` 0.10.2: values, dtypes, shapes and
weak types, eagerly and under jit; gradients where the function is differentiable; the
Array methods (`x.std()`, `x.cumsum()`, `x.real` ...)."""

from __future__ import annotations

from functools import partial

import didax
import didax.numpy as dnp
import didax.scipy.special
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
import jax.scipy.special  # noqa: E402
from helpers.grouped import Grouped  # noqa: E402
from helpers.oracle import EagerJax, JaxOracle, jax_quick  # noqa: E402

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(0)
V = RNG.normal(size=5).astype(np.float32)
M = RNG.normal(size=(3, 4)).astype(np.float32)
S = RNG.normal(size=(4, 4)).astype(np.float32)
T = RNG.normal(size=(2, 3, 4)).astype(np.float32)
SPECIAL = np.array([1.0, np.nan, np.inf, -np.inf, -0.0, 2.5, -1.5], np.float32)
I = np.array([[3, -1, 7], [0, 2, -5]], np.int32)

# (id, function of the numpy module, args, differentiable in args[0])
CASES = [
    ("isnan", lambda m, x: m.isnan(x), (SPECIAL,), False),
    ("isinf", lambda m, x: m.isinf(x), (SPECIAL,), False),
    ("isfinite", lambda m, x: m.isfinite(x), (SPECIAL,), False),
    ("isnan_int", lambda m, x: m.isnan(x), (I,), False),
    ("isclose", lambda m, x, y: m.isclose(x, y), (SPECIAL, SPECIAL[::-1].copy()), False),
    ("isclose_nan", lambda m, x: m.isclose(x, x, equal_nan=True), (SPECIAL,), False),
    ("isclose_tol", lambda m, x: m.isclose(x, x + 1e-3, atol=1e-2), (V,), False),
    ("allclose", lambda m, x, y: m.allclose(x, y), (V, V + 1e-9), False),
    ("allclose_false", lambda m, x, y: m.allclose(x, y), (V, V + 1.0), False),
    ("round", lambda m, x: m.round(x), (np.array([0.5, 1.5, 2.5, -0.5, 1.26], np.float32),), False),
    ("round_dec", lambda m, x: m.round(x, 1), (V,), False),
    ("round_int", lambda m, x: m.round(x), (I,), False),
    ("real", lambda m, x: m.real(x), (V,), True),
    ("imag", lambda m, x: m.imag(x), (V,), False),
    ("conj", lambda m, x: m.conj(x), (M,), True),
    ("angle", lambda m, x: m.angle(x), (SPECIAL,), False),
    ("angle_int", lambda m, x: m.angle(x), (I,), False),
    ("var", lambda m, x: m.var(x), (M,), True),
    ("var_axis", lambda m, x: m.var(x, axis=0, ddof=1), (M,), True),
    ("std", lambda m, x: m.std(x, axis=1, keepdims=True), (M,), True),
    ("std_int", lambda m, x: m.std(x), (I,), False),
    ("cumsum", lambda m, x: m.cumsum(x), (M,), True),
    ("cumsum_axis", lambda m, x: m.cumsum(x, axis=1), (T,), True),
    ("cumsum_int", lambda m, x: m.cumsum(x, axis=0), (I,), False),
    ("cumprod", lambda m, x: m.cumprod(x, axis=-1), (M,), True),
    (
        "cumprod_zero",
        lambda m, x: m.cumprod(x),
        (np.array([2.0, 0.0, 3.0, 4.0], np.float32),),
        True,
    ),
    ("argmin", lambda m, x: m.argmin(x), (M,), False),
    ("argmin_axis", lambda m, x: m.argmin(x, axis=0), (M,), False),
    ("argmin_nan", lambda m, x: m.argmin(x), (SPECIAL,), False),
    ("argmin_int", lambda m, x: m.argmin(x, axis=1), (I,), False),
    ("sort", lambda m, x: m.sort(x), (M,), True),
    ("sort_axis0", lambda m, x: m.sort(x, axis=0), (M,), True),
    ("sort_none", lambda m, x: m.sort(x, axis=None), (M,), True),
    ("sort_special", lambda m, x: m.sort(x), (SPECIAL,), False),
    ("argsort", lambda m, x: m.argsort(x), (M,), False),
    ("sort_desc", lambda m, x: m.sort(x, descending=True), (SPECIAL,), False),
    ("sort_desc_grad", lambda m, x: m.sort(x, axis=0, descending=True), (M,), True),
    (
        "argsort_desc",
        lambda m, x: m.argsort(x, descending=True),
        (np.array([2, 1, 2, 1, 0], np.int32),),
        False,
    ),
    ("argsort_desc_axis0", lambda m, x: m.argsort(x, axis=0, descending=True), (M,), False),
    ("argsort_ties", lambda m, x: m.argsort(x), (np.array([2, 1, 2, 1, 0], np.int32),), False),
    ("outer", lambda m, x, y: m.outer(x, y), (V, M[0]), True),
    ("kron", lambda m, x, y: m.kron(x, y), (M[:2, :2], S[:3, :2]), True),
    ("kron_1d", lambda m, x, y: m.kron(x, y), (V, V[:2]), True),
    ("tril", lambda m, x: m.tril(x), (S,), True),
    ("triu_k", lambda m, x: m.triu(x, k=1), (M,), True),
    ("tril_neg", lambda m, x: m.tril(x, -1), (T,), True),
    ("meshgrid", lambda m, x, y: m.meshgrid(x, y), (V, M[0]), True),
    ("meshgrid_ij", lambda m, x, y: m.meshgrid(x, y, indexing="ij"), (V, M[0]), True),
    ("meshgrid_sparse", lambda m, x, y: m.meshgrid(x, y, sparse=True), (V, M[0]), True),
    ("einsum_mm", lambda m, x, y: m.einsum("ij,jk->ik", x, y), (M, S), True),
    (
        "einsum_batch",
        lambda m, x, y: m.einsum("bij,bjk->bik", x, y),
        (T, T.transpose(0, 2, 1).copy()),
        True,
    ),
    ("einsum_trace_sum", lambda m, x: m.einsum("ij->", x), (M,), True),
    ("einsum_transpose", lambda m, x: m.einsum("ij->ji", x), (M,), True),
    ("einsum_implicit", lambda m, x, y: m.einsum("ij,jk", x, y), (M, S), True),
    ("einsum_dot", lambda m, x, y: m.einsum("i,i->", x, y), (V, V), True),
    ("einsum_outer", lambda m, x, y: m.einsum("i,j->ij", x, y), (V, V), True),
    ("einsum_three", lambda m, x, y, z: m.einsum("ij,jk,kl->il", x, y, z), (M, S, S), True),
    ("convolve", lambda m, x, y: m.convolve(x, y), (V, V[:3]), True),
    ("convolve_same", lambda m, x, y: m.convolve(x, y, mode="same"), (V, V[:3]), True),
    ("convolve_valid", lambda m, x, y: m.convolve(x, y, mode="valid"), (V, V[:2]), True),
    ("convolve_swap", lambda m, x, y: m.convolve(x, y), (V[:2], V), True),
    ("all", lambda m, x: m.all(x > -5), (M,), False),
    ("any_axis", lambda m, x: m.any(x > 1, axis=0), (M,), False),
    ("norm", lambda m, x: m.linalg.norm(x), (M,), True),
    ("norm_vec_inf", lambda m, x: m.linalg.norm(x, ord=np.inf), (V,), False),
    ("norm_vec_1", lambda m, x: m.linalg.norm(x, ord=1), (V,), True),
    ("norm_vec_3", lambda m, x: m.linalg.norm(x, ord=3), (V,), True),
    ("norm_axis", lambda m, x: m.linalg.norm(x, axis=1), (M,), True),
    ("norm_fro", lambda m, x: m.linalg.norm(x, ord="fro", keepdims=True), (M,), True),
    ("norm_mat_1", lambda m, x: m.linalg.norm(x, ord=1), (M,), False),
    ("norm_mat_inf", lambda m, x: m.linalg.norm(x, ord=np.inf), (M,), False),
    ("swapaxes", lambda m, x: m.swapaxes(x, 0, 2), (T,), True),
    ("ravel", lambda m, x: m.ravel(x), (T,), True),
]


def _special(m):
    return didax.scipy.special if m is dnp else jax.scipy.special


CASES += [
    ("logsumexp", lambda m, x: _special(m).logsumexp(x, axis=1), (M,), True),
    ("logsumexp_b", lambda m, x: _special(m).logsumexp(x, b=np.float32(2.0)), (V,), True),
    (
        "logsumexp_sign",
        lambda m, x: _special(m).logsumexp(x, b=-np.ones(5, np.float32), return_sign=True),
        (V,),
        False,
    ),
]


def _check(got, want, rtol=1e-5, atol=1e-6):
    # the same tree (containers and namedtuples by name: JAX flattens both), each leaf an
    # Array where JAX's is (a NumPy value or Python scalar is not), of the same dtype, shape
    # and weak type, and close values
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert str(got_tree) == str(want_tree), (got_tree, want_tree)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert isinstance(g, didax.Array) == isinstance(w, jax.Array), (type(g), type(w))
        if isinstance(w, jax.Array):
            assert g.weak_type == w.weak_type, (g, w)
        assert type(g) is type(w) or isinstance(w, jax.Array), (type(g), type(w))
        w = np.asarray(w)
        assert np.asarray(g).dtype == w.dtype
        assert np.shape(g) == w.shape
        np.testing.assert_allclose(np.asarray(g), w, rtol=rtol, atol=atol)


@pytest.mark.parametrize(
    "got, want",
    [
        ((dnp.ones(2), dnp.ones(2)), [jnp.ones(2), jnp.ones(2)]),  # tuple vs list
        ({"a": dnp.ones(2)}, {"b": jnp.ones(2)}),  # other keys
        (np.ones(2, np.float32), jnp.ones(2)),  # a NumPy value where JAX gives an Array
        (dnp.asarray(1.0), jnp.asarray(np.float32(1.0))),  # weak vs strong
        (dnp.asarray(np.float32(1.0)), jnp.asarray(1.0)),  # strong vs weak
    ],
    ids=["tuple_vs_list", "dict_keys", "numpy_vs_array", "weak_vs_strong", "strong_vs_weak"],
)
def test_check_compares_tree_structures_and_weak_types(got, want):
    with pytest.raises(AssertionError):
        _check(got, want)


# didax's `jit`s of the cases, 16 to a program (helpers/grouped.py). Checked when grouped
# (2026-11-26): every result has the bits of its own `jit`.
JITTED = Grouped(didax.jit, lambda: [(partial(c[1], dnp), c[2]) for c in CASES], chunk=16)
# JAX's answers the same way, not eager JAX (a compile per operation). Checked (2026-11-26):
# for all 76 cases they have eager JAX's tree structure, bits, dtypes and weak types.
JAX_VALUES = Grouped(jax.jit, lambda: [(partial(c[1], jnp), c[2]) for c in CASES], chunk=16)


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c[0] for c in CASES])
def test_value_eager_and_jit(index):
    _, fn, args, _ = CASES[index]
    want = JAX_VALUES.result(index)
    _check(fn(dnp, *args), want)
    _check(JITTED.result(index), want)


def _loss(case, m):
    _, fn, args, _ = case

    def f(x):
        out = fn(m, x, *args[1:])
        leaves = jax.tree_util.tree_leaves(out) if m is jnp else didax.tree_util.tree_leaves(out)
        return sum((m.sin(leaf) * (i + 1)).sum() for i, leaf in enumerate(leaves))

    return f


GRAD_CASES = [c for c in CASES if c[3]]


@pytest.fixture(scope="module")
def grad_oracle() -> JaxOracle:
    """JAX's gradients (always Arrays), compiled in chunks (`helpers.oracle`): eagerly, each
    of JAX's operations would be a compile of its own."""
    members = [(c[0], jax.grad(_loss(c, jnp)), [c[2][0]]) for c in GRAD_CASES]
    return JaxOracle.in_chunks(members, 16)


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_grad(case, grad_oracle):
    want = grad_oracle.get(case[0])
    _check(didax.grad(_loss(case, dnp))(case[2][0]), want, rtol=1e-4, atol=1e-5)


def test_methods_and_properties():
    d = dnp.asarray(M)
    calls = [
        ("std", lambda x: x.std()),
        ("var", lambda x: x.var(axis=0)),
        ("round", lambda x: x.round(2)),
        ("conj", lambda x: x.conj()),
        ("real", lambda x: x.real),
        ("imag", lambda x: x.imag),
        ("cumsum", lambda x: x.cumsum(axis=1)),
        ("cumprod", lambda x: x.cumprod()),
        ("argmin", lambda x: x.argmin(axis=1)),
        ("argsort", lambda x: x.argsort()),
        ("sort", lambda x: x.sort(axis=0)),
        ("all", lambda x: (x > 0).all()),
        ("any", lambda x: (x > 0).any(axis=1)),
        ("ravel", lambda x: x.ravel()),
        ("flatten", lambda x: x.flatten()),
        ("clip", lambda x: x.clip(-0.5, 0.5)),
    ]
    # JAX's side as one program (eagerly, each of its operations is a compile of its own)
    wants = jax_quick(lambda j: [call(j) for _, call in calls], M)
    for (_, call), want in zip(calls, wants, strict=True):
        _check(call(d), want)
        _check(didax.jit(call)(d), want)


# `jax.Array` methods that forward to a `jax.numpy` function didax also has: (id, the method
# call, the function call it forwards to in module m, whether didax's jaxpr is JAX's; where it
# is not, the function's own jaxpr differs: JAX wraps it in an inner jit or searches by scan).
FORWARDING_METHODS = [
    ("diagonal", lambda x: x.diagonal(), lambda m, x: m.diagonal(x), False),
    ("diagonal_offset", lambda x: x.diagonal(1), lambda m, x: m.diagonal(x, 1), False),
    (
        "diagonal_axes",
        lambda x: x.diagonal(offset=-1, axis1=1, axis2=0),
        lambda m, x: m.diagonal(x, -1, 1, 0),
        False,
    ),
    ("trace", lambda x: x.trace(), lambda m, x: m.trace(x), False),
    (
        "trace_args",
        lambda x: x.trace(1, dtype=np.int32),
        lambda m, x: m.trace(x, 1, dtype=np.int32),
        False,
    ),
    ("repeat", lambda x: x.repeat(2), lambda m, x: m.repeat(x, 2), True),
    (
        "repeat_axis",
        lambda x: x.repeat(np.array([1, 0, 2]), axis=0, total_repeat_length=3),
        lambda m, x: m.repeat(x, np.array([1, 0, 2]), 0, total_repeat_length=3),
        False,
    ),
    ("ptp", lambda x: x.ptp(), lambda m, x: m.ptp(x), False),
    (
        "ptp_axis",
        lambda x: x.ptp(axis=1, keepdims=True),
        lambda m, x: m.ptp(x, 1, keepdims=True),
        False,
    ),
    ("swapaxes", lambda x: x.swapaxes(0, 1), lambda m, x: m.swapaxes(x, 0, 1), True),
    (
        "take",
        lambda x: x.take(np.array([0, 5, 2])),
        lambda m, x: m.take(x, np.array([0, 5, 2])),
        True,
    ),
    (
        "take_axis",
        lambda x: x.take(np.array([3, 0]), axis=1, mode="clip"),
        lambda m, x: m.take(x, np.array([3, 0]), 1, mode="clip"),
        True,
    ),
    ("copy", lambda x: x.copy(), lambda m, x: m.copy(x), True),
    (
        "searchsorted",
        lambda x: x.ravel().searchsorted(np.float32(0.1), side="right"),
        lambda m, x: m.searchsorted(m.ravel(x), np.float32(0.1), "right"),
        False,
    ),
    ("mT", lambda x: x.mT, lambda m, x: m.matrix_transpose(x), True),
]


SORTED = [np.sort(M, axis=None).reshape(3, 4), np.sort(S[:3, :3], axis=None).reshape(3, 3)]
# the methods' `jit`s on each input as one program; checked when grouped (2026-11-26): every
# result has the bits of its own `jit`
JITTED_METHODS = [
    Grouped(didax.jit, lambda x=x: [(c[1], (x,)) for c in FORWARDING_METHODS]) for x in SORTED
]
# JAX's results of the methods on each input, compiled (helpers/oracle.py)
JAX_METHODS = [EagerJax(lambda x=x: [(c[1], (x,), {}) for c in FORWARDING_METHODS]) for x in SORTED]


@pytest.mark.parametrize(
    "index", range(len(FORWARDING_METHODS)), ids=[c[0] for c in FORWARDING_METHODS]
)
@pytest.mark.parametrize("k", range(len(SORTED)), ids=["x0", "x1"])  # sorted when raveled
def test_forwarding_methods_as_jax(index, k):
    _, method, function, same_jaxpr = FORWARDING_METHODS[index]
    x = SORTED[k]
    want = JAX_METHODS[k].result(index)
    _check(method(dnp.asarray(x)), want)
    _check(JITTED_METHODS[k].result(index), want)
    got = str(didax.make_jaxpr(method)(x))
    assert got == str(didax.make_jaxpr(lambda x: function(dnp, x))(x))  # the method is the function
    if same_jaxpr:
        assert got == str(jax.make_jaxpr(method)(x))


def test_nonzero_method_as_jax():
    x = np.array([[0, 3, 0], [1, 0, 2]], np.int32)
    _check(dnp.asarray(x).nonzero(), jnp.asarray(x).nonzero())
    call = lambda x: x.nonzero(size=4, fill_value=-1)  # noqa: E731 - the method under test
    _check(didax.jit(call)(x), jax_quick(call, x))
    assert str(didax.make_jaxpr(call)(x)) == str(jax.make_jaxpr(call)(x))


def test_forwarding_methods_on_tracers_differentiate_as_jax():
    def loss(x):
        return (x.diagonal() * 2).sum() + x.trace() + x.repeat(2, axis=1).ptp() + x.mT.sum()

    _check(didax.grad(loss)(S), jax_quick(jax.grad(loss), S), rtol=1e-6)


def test_vmap_of_new_functions():
    fns = (
        lambda m, x: m.cumsum(x),
        lambda m, x: m.sort(x),
        lambda m, x: m.argsort(x),
        lambda m, x: m.std(x),
        lambda m, x: m.tril(m.outer(x, x)),
        lambda m, x: m.convolve(x, x[:2]),
    )
    wants = jax_quick(lambda xs: [jax.vmap(lambda x, fn=fn: fn(jnp, x))(xs) for fn in fns], M)
    for fn, want in zip(fns, wants, strict=True):
        got = didax.vmap(lambda x, fn=fn: fn(dnp, x))(M)
        _check(got, want)


def test_matrix_norm_ord_2_is_jax_s():  # raised NotImplementedError before the SVD (issue 24)
    _check(dnp.linalg.norm(M, ord=2), jnp.linalg.norm(M, ord=2))


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, x: m.sort(x),
        lambda m, x: m.sort(x, axis=0, descending=True),
        lambda m, x: m.argsort(x),
        lambda m, x: m.argsort(x, axis=0, descending=True),
    ],
)
def test_sort_jaxprs_as_jax(fn):
    got = didax.make_jaxpr(lambda x: fn(dnp, x))(M)
    want = jax.make_jaxpr(lambda x: fn(jnp, x))(M)
    assert str(got) == str(want)
