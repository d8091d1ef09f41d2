"""`didax.scipy` against `jax.scipy`: `special` (values, dtypes, weak types, jit, and vmap of
grad, through the custom JVPs at 0 and in the tails), `stats` (every distribution function
didax has, with its gradient in x, and the CDFs at the edges of their supports), `linalg`
(triangular and Cholesky solves, block_diag, expm in every range of its Padé degrees).
JAX runs under `jit` (one program per case, JAX's values and weak types)."""

from __future__ import annotations

import contextlib
from typing import Any

import didax
import didax.scipy.linalg as dlinalg
import didax.scipy.special as dspecial
import didax.scipy.stats as dstats
import numpy as np
import pytest
from helpers.oracle import JaxOracle, assert_matches, jax_quick, x64_in_both

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jspecial = pytest.importorskip("jax.scipy.special")
jstats = pytest.importorskip("jax.scipy.stats")
jlinalg = pytest.importorskip("jax.scipy.linalg")

pytestmark = pytest.mark.oracle

F = np.float32
X = np.array([-30.0, -12.0, -3.0, -1.5, -0.5, 0.0, 0.5, 1.0, 2.5, 7.0], F)
POS = np.array([0.01, 0.3, 1.0, 2.5, 10.0], F)
UNIT = np.array([1e-4, 0.01, 0.3, 0.5, 0.9, 0.9999], F)
EDGE_P = np.array([0.0, 0.0, 1.0, 1.0, -1.0], F)
EDGE_Q = np.array([0.0, -1.0, 0.0, 2.0, 1.0], F)
LAMBDA = np.array([0.0, 0.5, 1.0, -1.0, 2.0], F)

SPECIAL = {
    "erf": (X,),
    "erfc": (X,),
    "erfinv": (UNIT * 2 - 1,),
    "expit": (X,),
    "logit": (UNIT,),
    "xlogy": (np.array([0, 1, 2, 0], F), np.array([0, 2, 0.5, 3], F)),
    "xlog1py": (np.array([0, 1, 2, 0], F), np.array([-1, 2, 0.5, 3], F)),
    "entr": (np.array([-1, 0, 0.5, 2], F),),
    "rel_entr": (EDGE_P, EDGE_Q),
    "kl_div": (EDGE_P, EDGE_Q),
    "ndtr": (X,),
    "ndtri": (UNIT,),
    "log_ndtr": (X,),
    "gammaln": (POS,),
    "digamma": (POS,),
    "betaln": (POS, POS[::-1]),
    "beta": (POS, POS[::-1]),
    "gamma": (np.array([-2.5, -1.5, -0.5, 0.5, 1, 2.5, 5], F),),
    "gammasgn": (np.array([-2.5, -2, -1.5, -0.5, 0, -0.0, 0.5], F),),
    "loggamma": (np.array([-1, 0.5, 3], F),),
    "factorial": (np.array([-1, 0, 3, 4.5], F),),
    "boxcox": (POS, LAMBDA),
    "boxcox1p": (POS, LAMBDA),
    "softmax": (X,),
    "log_softmax": (X,),
    "logsumexp": (X,),
}
NO_GRAD = {"gammasgn", "factorial"}  # piecewise constant; JAX's factorial grad is lgamma's


def _special_has_grad(name: str) -> bool:
    return name not in NO_GRAD and name not in ("softmax", "log_softmax", "logsumexp")


@pytest.fixture(scope="module")
def special_oracle() -> JaxOracle:
    """JAX's values and gradients, compiled in chunks (`helpers.oracle`), not a compile each."""
    members = [(("value", n), getattr(jspecial, n), list(SPECIAL[n])) for n in sorted(SPECIAL)]
    members += [
        (("grad", n), jax.vmap(jax.grad(getattr(jspecial, n))), list(SPECIAL[n]))
        for n in sorted(SPECIAL)
        if _special_has_grad(n)
    ]
    return JaxOracle.in_chunks(members, 16)


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special(name: str, special_oracle: JaxOracle) -> None:
    args = SPECIAL[name]
    dfn = getattr(dspecial, name)
    want = special_oracle.get(("value", name))
    assert_matches(dfn(*args), want)
    assert_matches(didax.jit(dfn)(*args), want)
    if not _special_has_grad(name):
        return
    want_grad = special_oracle.get(("grad", name))
    got_grad = didax.vmap(didax.grad(dfn))(*args)
    assert got_grad.dtype == want_grad.dtype
    np.testing.assert_allclose(
        np.asarray(got_grad), np.asarray(want_grad), rtol=1e-3, atol=1e-4, equal_nan=True
    )


def test_special_scalars_integers_and_orders() -> None:
    def calls(special, pos, x, scalars):
        e, a, b, g, r = scalars
        return [
            special.expit(e),
            special.xlogy(a, b),
            special.gammaln(g),
            special.erf(r),
            special.polygamma(1, pos),
            special.polygamma(np.int32(2), pos),
            special.multigammaln(pos + 2, 3),
            special.log_ndtr(x, series_order=5),
        ]

    args = (POS, X, (1.0, 1, 2, 3, 1))  # Python scalars: weak-typed, as in an eager call
    # JAX's answers as one program (eagerly, each of its operations is a compile of its own)
    wants = jax_quick(lambda *a: calls(jspecial, *a), *args)
    for got, want in zip(calls(dspecial, *args), wants, strict=True):
        assert_matches(got, want)
    for lib in (jspecial, dspecial):
        with pytest.raises(ValueError):
            lib.polygamma(1.5, POS)
        with pytest.raises(NotImplementedError):
            lib.factorial(3, exact=True)


Q = np.array([0.01, 0.2, 0.5, 0.9, 0.999], F)
XS = np.array([-3.0, -0.5, 0.0, 0.5, 1.0, 2.5], F)
K = np.array([0.0, 1.0, 2.0, 5.0, -1.0, 1.5], F)
CDFS = ("cdf", "logcdf", "sf", "logsf")
STATS = [
    *[("norm", f, (XS, 0.5, 2.0)) for f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")],
    *[("norm", f, (Q, 0.5, 2.0)) for f in ("ppf", "isf")],
    *[("expon", f, (XS, -1.0, 2.0)) for f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")],
    ("expon", "ppf", (Q,)),
    *[("laplace", f, (XS, 0.5, 2.0)) for f in ("logpdf", "pdf", "cdf")],
    *[("logistic", f, (XS, 0.5, 2.0)) for f in ("logpdf", "pdf", "cdf", "sf")],
    *[("logistic", f, (Q, 0.5, 2.0)) for f in ("ppf", "isf")],
    *[("cauchy", f, (XS, 0.5, 2.0)) for f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")],
    *[("cauchy", f, (Q, 0.5, 2.0)) for f in ("ppf", "isf")],
    *[("uniform", f, (XS, -1.0, 2.0)) for f in ("logpdf", "pdf", "cdf")],
    ("uniform", "ppf", (Q, -1.0, 2.0)),
    *[("t", f, (XS, 3.0, 0.5, 2.0)) for f in ("logpdf", "pdf")],
    *[("gamma", f, (POS, 2.0, 0.0, 1.5)) for f in ("logpdf", "pdf")],
    *[("gamma", f, (XS, 2.0, -1.0, 1.5)) for f in CDFS],
    *[("beta", f, (Q, 2.0, 3.0)) for f in ("logpdf", "pdf")],
    *[("beta", f, (XS, 2.0, 3.0, -1.0, 3.0)) for f in CDFS],
    *[("chi2", f, (POS, 3.0, 0.0, 1.5)) for f in ("logpdf", "pdf")],
    *[("chi2", f, (XS, 3.0, -1.0, 1.5)) for f in CDFS],
    *[("truncnorm", f, (XS, -1.0, 1.5, 0.5, 2.0)) for f in ("logpdf", "pdf", *CDFS)],
    *[("poisson", f, (K, 2.0)) for f in ("logpmf", "pmf", "cdf")],
    *[("geom", f, (K, 0.3, -1.0)) for f in ("logpmf", "pmf")],
    *[("nbinom", f, (K, 2.5, 0.4)) for f in ("logpmf", "pmf")],
    *[("pareto", f, (XS, 2.0, -1.0, 1.5)) for f in ("logpdf", "pdf", *CDFS)],
    *[(g, f, (XS, 0.5, 2.0)) for g in ("gumbel_l", "gumbel_r") for f in ("logpdf", "pdf", *CDFS)],
    *[("bernoulli", f, (K[:5], 0.3)) for f in ("logpmf", "pmf", "cdf")],
    ("bernoulli", "ppf", (Q, 0.3)),
]


@pytest.fixture(scope="module")
def stats_oracle() -> JaxOracle:
    """JAX's values and gradients, compiled in chunks (`helpers.oracle`), not a compile each."""
    members = []
    for dist, fn, args in STATS:
        jfn = getattr(getattr(jstats, dist), fn)
        in_axes = (0,) + (None,) * (len(args) - 1)
        members.append((("value", dist, fn), jfn, list(args)))
        members.append((("grad", dist, fn), jax.vmap(jax.grad(jfn), in_axes=in_axes), list(args)))
    return JaxOracle.in_chunks(members, 16)


@pytest.mark.parametrize(("dist", "fn", "args"), STATS, ids=[f"{d}.{f}" for d, f, _ in STATS])
def test_stats(dist: str, fn: str, args: tuple, stats_oracle: JaxOracle) -> None:
    dfn = getattr(getattr(dstats, dist), fn)
    assert_matches(dfn(*args), stats_oracle.get(("value", dist, fn)))
    in_axes = (0,) + (None,) * (len(args) - 1)
    want = stats_oracle.get(("grad", dist, fn))
    got = didax.vmap(didax.grad(dfn), in_axes=in_axes)(*args)
    np.testing.assert_allclose(
        np.asarray(got), np.asarray(want), rtol=1e-3, atol=1e-4, equal_nan=True
    )


# the edges: below and above the support, at its ends, inf and NaN; shapes at the edges
EDGES = np.array([-np.inf, -1.0, 0.0, 0.3, 1.0, 2.5, 40.0, np.inf, np.nan], F)
EDGE_CASES = [
    *[("gamma", f, (EDGES, a)) for f in CDFS for a in (0.5, 1.0)],
    *[("chi2", f, (EDGES, df)) for f in ("logpdf", *CDFS) for df in (1.0, 2.0)],
    *[("beta", f, (EDGES, 0.5, 2.0)) for f in CDFS],
    ("poisson", "cdf", (EDGES, 0.5, 1.0)),
    *[(d, f, (EDGES, 0.7, 1.0)) for d in ("geom", "nbinom") for f in ("logpmf", "pmf")],
    *[("pareto", f, (EDGES, 0.5, -1.0, 2.0)) for f in ("logpdf", *CDFS)],
    ("pareto", "ppf", (EDGES - 0.2, 2.0)),
    *[
        (g, f, (EDGES, 0.5, scale))
        for g in ("gumbel_l", "gumbel_r")
        for f in ("logpdf", *CDFS)
        for scale in (2.0, 0.0, -1.0)
    ],
    *[(g, "ppf", (EDGES - 0.2, 0.5, 2.0)) for g in ("gumbel_l", "gumbel_r")],
    *[
        ("truncnorm", f, (EDGES, a, b))
        for f in ("logpdf", *CDFS)
        for a, b in ((-4.0, -2.0), (5.0, 8.0), (-np.inf, 0.5), (1.0, 1.0), (2.0, 1.0))
    ],
]


@pytest.fixture(scope="module")
def edge_oracle() -> JaxOracle:
    members = [
        ((dist, fn, repr(args[1:])), getattr(getattr(jstats, dist), fn), list(args))
        for dist, fn, args in EDGE_CASES
    ]
    return JaxOracle.in_chunks(members, 32)


def test_stats_at_the_edges(edge_oracle: JaxOracle) -> None:
    for dist, fn, args in EDGE_CASES:
        got = getattr(getattr(dstats, dist), fn)(*args)
        want = edge_oracle.get((dist, fn, repr(args[1:])))
        assert got.dtype == want.dtype, (dist, fn, args[1:])
        np.testing.assert_allclose(
            np.asarray(got),
            np.asarray(want),
            rtol=2e-5,
            atol=1e-6,
            err_msg=f"{dist}.{fn}{args[1:]}",
        )


def test_dirichlet() -> None:
    alpha = np.array([0.5, 2.0, 3.0], F)
    points = np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8], [0.0, 0.5, 0.5], [0.3, 0.3, 0.3]], F).T
    for x in (points, points[:2], points[:, 0]):  # every entry, one fewer, one point
        for fn in ("logpdf", "pdf"):
            want = jax_quick(getattr(jstats.dirichlet, fn), x, alpha)
            assert_matches(getattr(dstats.dirichlet, fn)(x, alpha), want)
    got = didax.grad(lambda a: dstats.dirichlet.logpdf(points[:, :2], a).sum())(alpha)
    want = jax.grad(lambda a: jstats.dirichlet.logpdf(points[:, :2], a).sum())(alpha)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4)
    for lib in (dstats, jstats):
        with pytest.raises(ValueError, match="`alpha` must be one-dimensional"):
            lib.dirichlet.logpdf(points, np.ones((3, 1), F))
        with pytest.raises(ValueError, match="one entry fewer"):
            lib.dirichlet.logpdf(points[:1], alpha)


_RNG = np.random.default_rng(0)
_A = _RNG.normal(size=(3, 3)).astype(F)
COV = _A @ _A.T + np.eye(3, dtype=F)
MEAN = np.arange(3, dtype=F)
XMVN = _RNG.normal(size=(4, 3)).astype(F)


def test_multivariate_normal() -> None:
    cases = [(XMVN, MEAN, COV), (XMVN[0], MEAN, COV), (XMVN, MEAN, 2.0), (1.5, 0.5, 2.0)]

    def jax_side(cases, x, mean, cov):
        mvn = jstats.multivariate_normal
        grad = jax.grad(lambda c: mvn.logpdf(x, mean, c).sum())(cov)
        return [(mvn.logpdf(*a), mvn.pdf(*a)) for a in cases], grad

    # JAX's answers as one program (eagerly, each of its operations is a compile of its own:
    # 96 here); the Python scalars are weak-typed arguments, as in an eager call
    wants, want = jax_quick(jax_side, cases, XMVN, MEAN, COV)
    for args, (want_logpdf, want_pdf) in zip(cases, wants, strict=True):
        assert_matches(dstats.multivariate_normal.logpdf(*args), want_logpdf)
        assert_matches(dstats.multivariate_normal.pdf(*args), want_pdf)
    got = didax.grad(lambda c: dstats.multivariate_normal.logpdf(XMVN, MEAN, c).sum())(COV)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-5)
    for lib in (jstats, dstats):
        with pytest.raises(ValueError, match="incompatible shapes"):
            lib.multivariate_normal.logpdf(XMVN, MEAN, np.eye(2, dtype=F))


L = np.tril(_A) + 3 * np.eye(3, dtype=F)
B = _RNG.normal(size=(3, 2)).astype(F)


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"lower": True}, {"trans": 1, "lower": True}, {"trans": "C"}, {"unit_diagonal": True}],
)
def test_solve_triangular(kwargs: dict) -> None:
    for b in (B, B[:, 0]):
        assert_matches(
            dlinalg.solve_triangular(L, b, **kwargs), jlinalg.solve_triangular(L, b, **kwargs)
        )
    want = jax.grad(lambda b: jlinalg.solve_triangular(L, b, **kwargs).sum())(B)
    got = didax.grad(lambda b: dlinalg.solve_triangular(L, b, **kwargs).sum())(B)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("lower", [False, True])
def test_cholesky_family(lower: bool) -> None:
    assert_matches(dlinalg.cholesky(COV, lower=lower), jlinalg.cholesky(COV, lower=lower))
    c, low = dlinalg.cho_factor(COV, lower=lower)
    assert low is lower
    for b in (B, B[:, 0]):
        assert_matches(
            dlinalg.cho_solve((c, low), b), jlinalg.cho_solve(jlinalg.cho_factor(COV, lower), b)
        )
    assert_matches(dlinalg.solve(COV, B), jlinalg.solve(COV, B))
    assert_matches(dlinalg.det(COV), jlinalg.det(COV))
    assert_matches(dlinalg.inv(COV), jlinalg.inv(COV))


def test_block_diag() -> None:
    for arrs in [(np.ones((2, 2), F), 3, np.arange(3.0, dtype=F)), (np.ones((2, 2), F), 3)]:
        assert_matches(dlinalg.block_diag(*arrs), jlinalg.block_diag(*arrs))
    assert_matches(dlinalg.block_diag(), jlinalg.block_diag())
    with pytest.raises(ValueError):
        jlinalg.block_diag(np.ones((2, 2, 2)))
    with pytest.raises(ValueError):
        dlinalg.block_diag(np.ones((2, 2, 2)))


# matrices whose 1-norms fall in each range of Padé degrees, and beyond (scaled, squared)
_EXPM_SCALES = (0.01, 0.2, 0.7, 1.5, 2.5, 4.0, 12.0, 150.0)


def _expm_matches(got: Any, want: Any) -> None:
    # JAX's dtype, and its values to 1e-4 in 32 bits, 1e-10 in 64 (not assert_matches'
    # 1e-12: each of up to 8 squarings here doubles the relative rounding error)
    assert got.dtype == want.dtype and got.shape == want.shape
    rtol = 1e-4 if got.dtype in (np.float32, np.complex64) else 1e-10
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("x64", [False, True], ids=["float32", "float64"])
def test_expm(x64: bool) -> None:
    rng = np.random.default_rng(1)
    dtype = np.float64 if x64 else F
    cases = [
        (rng.standard_normal((n, n)) * s / n).astype(dtype) for s in _EXPM_SCALES for n in (1, 3)
    ]
    with x64_in_both() if x64 else contextlib.nullcontext():
        for a in cases:
            _expm_matches(dlinalg.expm(a), jlinalg.expm(a))
        upper = np.triu(cases[9])
        _expm_matches(
            dlinalg.expm(upper, upper_triangular=True), jlinalg.expm(upper, upper_triangular=True)
        )
        complex_a = (cases[5] + 1j * cases[7]).astype(np.complex128 if x64 else np.complex64)
        _expm_matches(dlinalg.expm(complex_a), jlinalg.expm(complex_a))


def test_expm_batches_gradients_and_errors() -> None:
    rng = np.random.default_rng(2)
    batch = (rng.standard_normal((2, 3, 3, 3)) * 2).astype(F)
    assert_matches(dlinalg.expm(batch), jlinalg.expm(batch))
    assert_matches(didax.vmap(dlinalg.expm)(batch[0]), jax.vmap(jlinalg.expm)(batch[0]))
    assert_matches(didax.jit(dlinalg.expm)(batch[0, 0]), jax.jit(jlinalg.expm)(batch[0, 0]))
    got = didax.grad(lambda a: dlinalg.expm(a).sum())(batch[0, 1])
    want = jax.grad(lambda a: jlinalg.expm(a).sum())(batch[0, 1])
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-4)
    huge = np.eye(2, dtype=F) * 1e6  # needs 18 squarings: NaN beyond max_squarings
    assert_matches(dlinalg.expm(huge, max_squarings=4), jlinalg.expm(huge, max_squarings=4))
    assert_matches(dlinalg.expm(np.eye(2, dtype=np.int32)), jlinalg.expm(np.eye(2, dtype=np.int32)))
    for bad in (np.ones(3, F), np.ones((2, 3), F)):
        with pytest.raises(ValueError, match=r"Expected A to be a \(batched\) square matrix"):
            dlinalg.expm(bad)
    with pytest.raises(TypeError, match="A.dtype=float16 is not supported"):
        dlinalg.expm(np.eye(2, dtype=np.float16))
