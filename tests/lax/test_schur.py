"""`lax.linalg.schur`, `hessenberg`, `householder_product` and `scipy.linalg.schur`,
`hessenberg` against JAX: values (both call the same LAPACK routines -- SciPy's wrappers
eagerly, jaxlib's handlers under jit -- so they are compared directly), reconstructions
A = Q T Q^H, dtypes, batching, jaxprs, LAPACK calls in the lowering, and JAX's errors."""

from __future__ import annotations

import didax
import didax.scipy.linalg
import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("jax.scipy.linalg")
from helpers.jaxpr_text import canonical
from helpers.oracle import assert_same_leaves, x64_in_both

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(24)
INPUTS = {
    "f32": RNG.normal(size=(4, 4)).astype(np.float32),
    "batch": RNG.normal(size=(2, 3, 3)).astype(np.float32),
    "c64": (RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3))).astype(np.complex64),
}
TOL = 1e-4  # float32 LAPACK results, eager SciPy vs jit's jaxlib and JAX


def _same(got, want, tol=TOL):
    assert_same_leaves(got, want, tol)


def _adjoint(q):
    return np.conj(np.swapaxes(q, -1, -2))


def _reconstructs(t, q, a, tol=TOL):
    t, q = np.asarray(t), np.asarray(q)
    np.testing.assert_allclose(q @ t @ _adjoint(q), a, atol=tol * 10, rtol=tol * 10)
    eye = np.broadcast_to(np.eye(a.shape[-1]), a.shape)
    np.testing.assert_allclose(_adjoint(q) @ q, eye, atol=tol * 10)


@pytest.mark.parametrize("name", list(INPUTS))
def test_schur_eval_jit_vmap_against_jax(name):
    x = INPUTS[name]
    for vectors in (True, False):
        f = lambda lib, v=vectors: lambda a: lib.lax.linalg.schur(a, compute_schur_vectors=v)  # noqa: E731
        want = f(jax)(x)
        _same(f(didax)(x), want)
        _same(didax.jit(f(didax))(x), want)
        xs = np.stack([x, 2 * x])
        _same(didax.vmap(f(didax))(xs), jax.vmap(f(jax))(xs))
    t, q = didax.lax.linalg.schur(x)
    _reconstructs(t, q, x)
    t = np.asarray(t)
    below = np.tril(np.ones(x.shape[-2:], bool), -2 if name != "c64" else -1)
    assert not t[..., below].any()  # (quasi-)upper triangular


@pytest.mark.parametrize("name", list(INPUTS))
def test_hessenberg_eval_jit_vmap_against_jax(name):
    x = INPUTS[name]
    f = lambda lib: lib.lax.linalg.hessenberg  # noqa: E731
    want = f(jax)(x)
    _same(f(didax)(x), want)
    _same(didax.jit(f(didax))(x), want)
    xs = np.stack([x, 2 * x])
    _same(didax.vmap(f(didax))(xs), jax.vmap(f(jax))(xs))
    # the reflectors below the subdiagonal and their factors give Q with A = Q H Q^H
    for wrap in (lambda f: f, didax.jit):
        h, q = wrap(lambda a: didax.scipy.linalg.hessenberg(a, calc_q=True))(x)
        _same((h, q), jax.scipy.linalg.hessenberg(x, calc_q=True))
        _reconstructs(h, q, x)
    _same(didax.scipy.linalg.hessenberg(x), jax.scipy.linalg.hessenberg(x))


def test_householder_product_against_jax():
    h, taus = jax.lax.linalg.hessenberg(INPUTS["f32"])
    square = (np.asarray(h)[1:, :-1], np.asarray(taus))  # hessenberg's reflectors
    raw, raw_taus = jax.numpy.linalg.qr(RNG.normal(size=(5, 3)).astype(np.float32), mode="raw")
    tall = (np.asarray(raw).T.copy(), np.asarray(raw_taus))  # geqrf's, of a tall matrix
    f = lambda lib: lib.lax.linalg.householder_product  # noqa: E731
    for a, taus in [square, tall, (tall[0], tall[1][:1])]:
        want = f(jax)(a, taus)
        _same(f(didax)(a, taus), want)
        _same(didax.jit(f(didax))(a, taus), want)
    a, taus = square
    xs, ts = np.stack([a, 2 * a]), np.stack([taus, taus / 2])
    _same(didax.vmap(f(didax))(xs, ts), jax.vmap(f(jax))(xs, ts))
    for in_axes, args in [((0, None), (xs, taus)), ((None, 0), (a, ts))]:
        g = lambda lib, ax=in_axes: lib.vmap(f(lib), in_axes=ax)  # noqa: E731
        _same(g(didax)(*args), g(jax)(*args))


@pytest.fixture
def x64():
    with x64_in_both():
        yield


def test_float64_and_complex128(x64):
    real = RNG.normal(size=(5, 5))
    for x in (real, real + 1j * RNG.normal(size=(5, 5))):
        for name in ("schur", "hessenberg"):
            f = lambda lib, name=name: getattr(lib.lax.linalg, name)  # noqa: E731
            want = f(jax)(x)
            _same(f(didax)(x), want, 1e-10)
            _same(didax.jit(f(didax))(x), want, 1e-10)
            assert [np.asarray(o).dtype for o in f(didax)(x)] == [x.dtype, x.dtype]
        _reconstructs(*didax.lax.linalg.schur(x), x, 1e-12)


def test_scipy_schur_real_and_complex():
    x = INPUTS["f32"]
    for output in ("real", "complex"):
        f = lambda lib, o=output: lambda a: lib.scipy.linalg.schur(a, output=o)  # noqa: E731
        want = f(jax)(x)
        _same(f(didax)(x), want)
        _same(didax.jit(f(didax))(x), want)
        _reconstructs(*f(didax)(x), x)
    with pytest.raises(ValueError, match="Expected 'output' to be either 'real' or 'complex'"):
        didax.scipy.linalg.schur(x, output="bogus")


def test_nonfinite_matrices_as_jax():
    # both go to LAPACK (eagerly too): the same NaNs and infs, NaNs where it reports failure
    x = np.tile(INPUTS["f32"], (3, 1, 1))
    x[1] = np.nan
    x[2, 1, 2] = np.inf
    for name in ("schur", "hessenberg"):
        f = lambda lib, name=name: getattr(lib.lax.linalg, name)  # noqa: E731
        want = f(jax)(x)
        _same(f(didax)(x), want)
        _same(didax.jit(f(didax))(x), want)


def test_empty_and_one_by_one():
    for n in (0, 1):
        x = np.ones((n, n), np.float32)
        _same(didax.lax.linalg.schur(x), jax.lax.linalg.schur(x))
        _same(didax.jit(didax.lax.linalg.schur)(x), jax.lax.linalg.schur(x))
        calc = lambda lib: lambda a: lib.scipy.linalg.hessenberg(a, calc_q=True)  # noqa: E731
        _same(calc(didax)(x), calc(jax)(x))
        _same(didax.jit(calc(didax))(x), calc(jax)(x))
    # JAX's hessenberg of a 0 x 0 matrix fails to compile (taus of length -1); didax's has none
    assert didax.lax.linalg.hessenberg(np.ones((0, 0), np.float32))[1].shape == (0,)


def test_jaxprs_and_lapack_calls():
    x = INPUTS["f32"]
    for f in (
        lambda lib: lib.lax.linalg.schur,
        lambda lib: lambda a: lib.lax.linalg.schur(a, compute_schur_vectors=False),
        lambda lib: lib.lax.linalg.hessenberg,
        lambda lib: lambda a: lib.scipy.linalg.schur(a, output="complex"),
        lambda lib: lambda a: lib.scipy.linalg.hessenberg(a, calc_q=True),
    ):
        got = str(didax.make_jaxpr(f(didax))(x))
        assert canonical(got) == canonical(str(jax.make_jaxpr(f(jax))(x)))
    for f, targets in [
        (didax.lax.linalg.schur, ["lapack_sgees_ffi"]),
        (didax.lax.linalg.hessenberg, ["lapack_sgehrd_ffi"]),
        (lambda a: didax.scipy.linalg.hessenberg(a, calc_q=True), ["lapack_sorgqr_ffi"]),
    ]:
        text = didax.jit(f).lower(x).as_text()
        assert all(t in text for t in targets), targets
    assert "lapack_cgees_ffi" in didax.jit(didax.lax.linalg.schur).lower(INPUTS["c64"]).as_text()


def _raised(fn, *args):
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        return type(e), str(e)
    raise AssertionError("no error")


def test_errors_as_jax():
    x = INPUTS["f32"]
    wide = np.ones((3, 4), np.float32)
    cases = [
        lambda lib: lib.lax.linalg.schur(wide),
        lambda lib: lib.lax.linalg.schur(np.ones((2, 3, 4), np.float32)),
        lambda lib: lib.lax.linalg.schur(np.ones(3, np.float32)),
        lambda lib: lib.lax.linalg.schur(np.eye(3, dtype=np.int32)),
        lambda lib: lib.lax.linalg.schur(x, sort_eig_vals=True),
        lambda lib: lib.jit(lambda a: lib.lax.linalg.schur(a, sort_eig_vals=True))(x),
        lambda lib: lib.lax.linalg.hessenberg(wide),
        lambda lib: lib.lax.linalg.hessenberg(np.ones(3, np.float32)),
        lambda lib: lib.lax.linalg.hessenberg(np.eye(3, dtype=np.int32)),
        lambda lib: lib.jit(lib.lax.linalg.hessenberg)(wide),
        lambda lib: lib.lax.linalg.householder_product(wide, np.ones(3, np.float32)),
        lambda lib: lib.lax.linalg.householder_product(wide.T, np.ones(4, np.float32)),
        lambda lib: lib.lax.linalg.householder_product(
            np.ones((2, 4, 3), np.float32), np.ones(3, np.float32)
        ),
        lambda lib: lib.lax.linalg.householder_product(wide.T, np.ones(3, np.int32)),
        lambda lib: lib.lax.linalg.householder_product(wide.T, np.ones((), np.float32)),
        lambda lib: lib.lax.linalg.householder_product(wide.T, np.ones(3, np.complex64)),
        lambda lib: lib.lax.linalg.householder_product(wide.T.astype(np.int32), np.ones(3)),
    ]
    for case in cases:
        assert _raised(case, didax) == _raised(case, jax)
    # no derivative, as in JAX ("Differentiation rule for 'schur' not implemented")
    for name in ("schur", "hessenberg"):
        for lib in (didax, jax):
            kind, message = _raised(lib.jvp, getattr(lib.lax.linalg, name), (x,), (x,))
            assert kind is NotImplementedError and f"'{name}'" in message
