"""Decompositions against JAX: `lax.linalg.qr`, `eigh`, `svd` (values, dtypes, jvps, vmap,
jit through LAPACK, jaxprs) and the `jnp.linalg` functions on them. Eigen- and singular
vectors are defined up to sign; both sides call the same LAPACK routines (NumPy or SciPy eagerly,
jaxlib's handlers under jit), so they are compared directly, and reconstructions too.

JAX's side of a test is one `jax.jit` program (`helpers.oracle.jax_quick`): run eagerly, each
operation of its `jvp`, `vmap` or `grad` is a compile of its own."""

from __future__ import annotations

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import lax as dlax

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")
from helpers.jaxpr_text import canonical
from helpers.oracle import assert_same_leaves, jax_quick, x64_in_both

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(11)
SHAPES = [(4, 4), (5, 3), (3, 5), (2, 4, 3)]
MATS = {s: RNG.normal(size=s).astype(np.float32) for s in SHAPES}
CMAT = (RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3))).astype(np.complex64)


def _same(got, want, tol=1e-4):
    assert_same_leaves(got, want, tol)


def _tangent(x):
    t = RNG.normal(size=x.shape)
    if np.iscomplexobj(x):
        t = t + 1j * RNG.normal(size=x.shape)
    return t.astype(x.dtype)


# ----------------------------------------------------------------------------- lax.linalg


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_qr_svd_values_eval_jit_vmap_jvp(shape, full_matrices):
    x, t = MATS[shape], _tangent(MATS[shape])
    xs = np.stack([x, 2 * x])
    f = lambda lib, name: (
        lambda a: getattr(lib.lax.linalg, name)(  # noqa: E731
            a, full_matrices=full_matrices
        )
    )
    no_jvp = full_matrices and shape[-1] != shape[-2]  # svd's

    def jax_side(x, xs, t):
        return {
            name: (
                f(jax, name)(x),
                jax.vmap(f(jax, name))(xs),
                None if name == "svd" and no_jvp else jax.jvp(f(jax, name), (x,), (t,)),
            )
            for name in ("qr", "svd")
        }

    wants = jax_quick(jax_side, x, xs, t)
    for name in ("qr", "svd"):
        want, want_vmap, want_jvp = wants[name]
        _same(f(didax, name)(x), want)
        _same(didax.jit(f(didax, name))(x), want)
        _same(didax.vmap(f(didax, name))(xs), want_vmap)
        if name == "svd" and no_jvp:
            with pytest.raises(NotImplementedError, match="full matrices"):
                didax.jvp(f(didax, name), (x,), (x,))
            continue
        _same(didax.jvp(f(didax, name), (x,), (t,)), want_jvp, 2e-3)


@pytest.mark.parametrize("x", [MATS[(4, 4)], np.stack([MATS[(4, 4)]] * 2), CMAT], ids=str)
def test_eigh_values_jit_vmap_jvp(x):
    f = lambda lib: lib.lax.linalg.eigh  # noqa: E731
    t, xx = _tangent(x), np.stack([x, x])
    want, want_jvp, want_vmap = jax_quick(
        lambda x, t, xx: (f(jax)(x), jax.jvp(f(jax), (x,), (t,)), jax.vmap(f(jax))(xx)), x, t, xx
    )
    _same(f(didax)(x), want)
    _same(didax.jit(f(didax))(x), want)
    _same(didax.jvp(f(didax), (x,), (t,)), want_jvp, 2e-3)
    _same(didax.vmap(f(didax))(xx), want_vmap)


def test_complex_qr_svd_jvp():
    t = _tangent(CMAT)
    names = ("qr", "svd")
    f = lambda lib, name: getattr(lib.lax.linalg, name)  # noqa: E731
    wants = jax_quick(
        lambda a, t: [(f(jax, n)(a), jax.jvp(f(jax, n), (a,), (t,))) for n in names], CMAT, t
    )
    for name, (want, want_jvp) in zip(names, wants, strict=True):
        _same(didax.jit(f(didax, name))(CMAT), want)
        _same(didax.jvp(f(didax, name), (CMAT,), (t,)), want_jvp, 2e-3)


def test_svd_compute_uv_false_and_grads():
    x = MATS[(5, 3)]
    f = lambda lib: lambda a: lib.lax.linalg.svd(a, compute_uv=False)  # noqa: E731
    loss = lambda lib: lambda a: (f(lib)(a) ** 2).sum() + f(lib)(a)[0]  # noqa: E731
    qloss = lambda lib: lambda a: (lib.lax.linalg.qr(a, full_matrices=False)[1] ** 3).sum()  # noqa: E731
    want, want_grad, want_qgrad = jax_quick(
        lambda a: (f(jax)(a), jax.grad(loss(jax))(a), jax.grad(qloss(jax))(a)), x
    )
    _same(didax.jit(f(didax))(x), want)
    _same(didax.grad(loss(didax))(x), want_grad, 1e-3)
    _same(didax.grad(qloss(didax))(x), want_qgrad, 1e-3)
    _same(didax.jit(didax.grad(qloss(didax)))(x), want_qgrad, 1e-3)


def test_decomposition_errors_match_jax():
    for name in ("qr", "svd"):
        for bad in (np.ones((3, 3), np.int32), np.ones((3,), np.float32)):
            with pytest.raises(TypeError) as want:
                getattr(jax.lax.linalg, name)(bad)
            with pytest.raises(TypeError) as got:
                getattr(dlax.linalg, name)(bad)
            assert str(got.value) == str(want.value)
    ints = np.array([[2, 1], [1, 3]], np.int32)  # symmetrized by a true division: floats
    _same(dlax.linalg.eigh(ints), jax.lax.linalg.eigh(ints))
    with pytest.raises(TypeError):
        dlax.linalg.eigh(np.ones((3,), np.float32))
    with pytest.raises(ValueError, match=r"must have shape \[..., n, n\]"):
        dlax.linalg.eigh(MATS[(5, 3)], symmetrize_input=False)


def test_nan_operand_gives_nans_as_jax():
    x = MATS[(4, 4)].copy()
    x[0, 0] = np.nan
    for name in ("svd", "eigh"):
        want = getattr(jax.lax.linalg, name)(x)
        for fn in (getattr(dlax.linalg, name), didax.jit(getattr(dlax.linalg, name))):
            got = fn(x)
            for g, w in zip(got, want, strict=True):
                assert np.isnan(np.asarray(w)).all() == np.isnan(np.asarray(g)).all()


def test_eig_of_a_batch_with_a_bad_matrix_keeps_the_others_complex():
    # the batch's good matrix keeps its complex eigenvalues (they lost their imaginary parts
    # when a matrix holding inf sent eager eig matrix by matrix into a float buffer), and the
    # bad one gives NaN in both parts, as jit's geev
    x = np.array([[[1.0, 2.0], [-3.0, 1.0]], [[np.inf, 1.0], [0.0, 1.0]]], np.float32)
    want = np.asarray(jax.jit(jjnp.linalg.eigvals)(x))
    for fn in (jnp.linalg.eigvals, didax.jit(jnp.linalg.eigvals)):
        got = np.asarray(fn(x))
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.sort_complex(got[0]), np.sort_complex(want[0]), rtol=1e-5)
        assert np.isnan(got[1].real).all() and np.isnan(got[1].imag).all()
        assert np.isnan(want[1].real).all() and np.isnan(want[1].imag).all()


def test_jaxprs_and_lowering_as_jax():
    x = MATS[(4, 4)]
    for f in (jnp.linalg.qr, jnp.linalg.svd, jnp.linalg.eigh):
        jf = getattr(jjnp.linalg, f.__name__)
        got, want = str(didax.make_jaxpr(f)(x)), str(jax.make_jaxpr(jf)(x))
        assert canonical(got) == canonical(want), (got, want)
    for f, targets in [
        (dlax.linalg.qr, ["lapack_sgeqrf_ffi", "lapack_sorgqr_ffi"]),
        (dlax.linalg.svd, ["lapack_sgesdd_ffi"]),
        (dlax.linalg.eigh, ["lapack_ssyevd_ffi"]),
    ]:
        text = didax.jit(f).lower(x).as_text()
        assert all(t in text for t in targets), text
    assert "lapack_cungqr_ffi" in didax.jit(dlax.linalg.qr).lower(CMAT).as_text()


# ----------------------------------------------------------------------------- jnp.linalg


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_jnp_decompositions(shape):
    x = MATS[shape]
    calls = [
        ("qr", {}),
        ("qr", {"mode": "complete"}),
        ("qr", {"mode": "r"}),
        ("svd", {"full_matrices": False}),
        ("svdvals", {}),
        ("pinv", {}),
        ("matrix_rank", {}),
        ("norm", {"ord": 2, "axis": (-2, -1)}),
        ("norm", {"ord": -2, "axis": (-2, -1)}),
        ("norm", {"ord": "nuc", "axis": (-2, -1)}),
        ("matrix_norm", {"ord": "nuc"}),
        ("cond", {}),
    ]
    f = lambda lib, name, kw: lambda a: getattr(lib.numpy.linalg, name)(a, **kw)  # noqa: E731
    wants = jax_quick(lambda a: [f(jax, name, kw)(a) for name, kw in calls], x)
    for (name, kwargs), want in zip(calls, wants, strict=True):
        _same(f(didax, name, kwargs)(x), want, 2e-4)
        _same(didax.jit(f(didax, name, kwargs))(x), want, 2e-4)


def test_jnp_hermitian_paths_and_eigvalsh():
    a = MATS[(4, 4)] + MATS[(4, 4)].T
    for f in (
        lambda lib: lib.numpy.linalg.eigvalsh(a),
        lambda lib: lib.numpy.linalg.eigh(a, UPLO="U"),
        lambda lib: lib.numpy.linalg.svd(a, hermitian=True, compute_uv=False),
        lambda lib: lib.numpy.linalg.pinv(a, hermitian=True),
        lambda lib: lib.numpy.linalg.matrix_rank(a, hermitian=True),
    ):
        _same(f(didax), f(jax))
    u, s, vh = jnp.linalg.svd(a, hermitian=True)  # vectors up to sign: reconstruct
    np.testing.assert_allclose(np.asarray((u * s) @ vh), a, atol=1e-4)
    _same(s, jjnp.linalg.svd(a, hermitian=True).S)
    with pytest.raises(ValueError, match="UPLO"):
        jnp.linalg.eigh(a, UPLO="X")


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)], ids=str)
def test_pinv_lstsq_grads(shape):
    x = MATS[shape]
    b = RNG.normal(size=(shape[0],)).astype(np.float32)
    losses = [
        lambda lib, b: lambda a: (lib.numpy.linalg.pinv(a) ** 2).sum(),
        lambda lib, b: lambda a: lib.numpy.linalg.norm(a, "nuc"),
        lambda lib, b: lambda a: lib.numpy.linalg.norm(a, 2),
        lambda lib, b: lambda a: (lib.numpy.linalg.lstsq(a, b)[0] ** 2).sum(),
    ]
    want, want_grads = jax_quick(
        lambda x, b: (jjnp.linalg.lstsq(x, b), [jax.grad(loss(jax, b))(x) for loss in losses]),
        x,
        b,
    )
    _same(jnp.linalg.lstsq(x, b), want, 2e-4)
    _same(didax.jit(jnp.linalg.lstsq)(x, b), want, 2e-4)
    for loss, want_grad in zip(losses, want_grads, strict=True):
        _same(didax.grad(loss(didax, b))(x), want_grad, 2e-3)


def test_jnp_linalg_products():
    a, v = MATS[(4, 4)], RNG.normal(size=(3,)).astype(np.float32)
    w = RNG.normal(size=(2, 3)).astype(np.float32)
    cases = [
        ("matrix_power", (a, 5)),
        ("matrix_power", (a, -2)),
        ("matrix_power", (a, 0)),
        ("multi_dot", ([a, a.T, a[:, 0]],)),
        ("multi_dot", ([a[0], a, MATS[(4, 4)][:, :3]],)),
        ("cross", (w, w[::-1])),
        ("outer", (v, v)),
        ("trace", (a,)),
        ("diagonal", (np.stack([a, a]),)),
        ("matmul", (a, a)),
        ("matrix_transpose", (w,)),
        ("tensordot", (a, a)),
        ("vecdot", (w, w)),
        ("tensorinv", (np.reshape(a, (2, 2, 4)), 2)),
        ("tensorsolve", (np.reshape(a + 4 * np.eye(4, dtype=np.float32), (2, 2, 2, 2)), a[:2, :2])),
    ]
    wants = jax_quick(lambda: [getattr(jjnp.linalg, name)(*args) for name, args in cases])
    for (name, args), want in zip(cases, wants, strict=True):
        _same(getattr(jnp.linalg, name)(*args), want, 2e-4)
    with pytest.raises(ValueError, match="3-dimensional vectors"):
        jnp.linalg.cross(v[:2], v[:2])
    with pytest.raises(TypeError, match="exponent must be an integer"):
        jnp.linalg.matrix_power(a, 1.5)
    with pytest.raises(ValueError, match="multi_dot requires at least two"):
        jnp.linalg.multi_dot([a])


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_pivoted_qr(shape, full_matrices):
    x = MATS[shape]
    f = lambda lib: lambda a: lib.lax.linalg.qr(a, pivoting=True, full_matrices=full_matrices)  # noqa: E731
    xs = np.stack([x, x])
    if len(shape) == 2:  # (JAX's own jvp fails on a batch: its dx[..., p] indexing)
        t = _tangent(x)
        want, want_vmap, want_t = jax_quick(
            lambda a, b, t: (f(jax)(a), jax.vmap(f(jax))(b), jax.jvp(f(jax), (a,), (t,))),
            x,
            xs,
            t,
        )
    else:
        want, want_vmap = jax_quick(lambda a, b: (f(jax)(a), jax.vmap(f(jax))(b)), x, xs)
    _same(f(didax)(x), want)
    _same(didax.jit(f(didax))(x), want)
    _same(didax.vmap(f(didax))(xs), want_vmap)
    assert "lapack_sgeqp3_ffi" in didax.jit(f(didax)).lower(x).as_text()
    if len(shape) == 2:
        got = didax.jvp(f(didax), (x,), (t,))
        _same(got[1][:2], want_t[1][:2], 2e-3)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_jnp_qr_raw(shape):
    x = MATS[shape]
    want = jjnp.linalg.qr(x, mode="raw")
    _same(jnp.linalg.qr(x, mode="raw"), want)
    _same(didax.jit(lambda a: jnp.linalg.qr(a, mode="raw"))(x), want)
    got = str(didax.make_jaxpr(lambda a: jnp.linalg.qr(a, mode="raw"))(x))
    assert canonical(got) == canonical(
        str(jax.make_jaxpr(lambda a: jjnp.linalg.qr(a, mode="raw"))(x))
    )
    with pytest.raises(NotImplementedError, match="geqrf"):
        didax.grad(lambda a: jnp.linalg.qr(a, mode="raw")[1].sum())(x)
    with pytest.raises(ValueError, match="Unsupported QR decomposition mode"):
        jnp.linalg.qr(x, mode="bogus")


# ----------------------------------------------------------------------------- eig

EIG_INPUTS = [
    MATS[(4, 4)],
    RNG.normal(size=(2, 3, 3)).astype(np.float32),
    CMAT,
]


@pytest.mark.parametrize("x", EIG_INPUTS, ids=["real", "batch", "complex"])
def test_eig_values_jvp_vmap_and_jnp(x):
    sides = [(True, True), (False, True), (False, False), (True, False)]
    f = lambda lib, left, right: (
        lambda a: lib.lax.linalg.eig(  # noqa: E731
            a, compute_left_eigenvectors=left, compute_right_eigenvectors=right
        )
    )
    jvp_kwargs = (
        dict(compute_left_eigenvectors=False, compute_right_eigenvectors=False),
        dict(enable_eigvec_derivs=True),
    )
    g = lambda lib, kw: lambda a: lib.lax.linalg.eig(a, **kw)  # noqa: E731
    loss = lambda lib: lambda a: lib.numpy.linalg.eigvals(a).real.sum()  # noqa: E731
    t, xx = _tangent(x), np.stack([x, x])

    def jax_side(x, t, xx):
        return (
            [(f(jax, *lr)(x), jax.vmap(f(jax, *lr))(xx)) for lr in sides],
            [jax.jvp(g(jax, kw), (x,), (t,)) for kw in jvp_kwargs],
            (jjnp.linalg.eig(x), jjnp.linalg.eigvals(x), jax.grad(loss(jax))(x)),
        )

    wants, want_jvps, (want_eig, want_eigvals, want_grad) = jax_quick(jax_side, x, t, xx)
    for lr, (want, want_vmap) in zip(sides, wants, strict=True):
        _same(f(didax, *lr)(x), want)
        _same(didax.jit(f(didax, *lr))(x), want)
        _same(didax.vmap(f(didax, *lr))(xx), want_vmap)
    for kw, want_jvp in zip(jvp_kwargs, want_jvps, strict=True):
        _same(didax.jvp(g(didax, kw), (x,), (t,)), want_jvp, 1e-3)
    _same(jnp.linalg.eig(x), want_eig)
    _same(jnp.linalg.eigvals(x), want_eigvals)
    _same(didax.grad(loss(didax))(x), want_grad, 1e-3)
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        didax.jvp(dlax.linalg.eig, (x,), (t,))
    got = str(didax.make_jaxpr(jnp.linalg.eigvals)(x))
    assert canonical(got) == canonical(str(jax.make_jaxpr(jjnp.linalg.eigvals)(x)))
    assert "lapack_" in didax.jit(dlax.linalg.eig).lower(x).as_text()
    assert "geev_ffi" in didax.jit(dlax.linalg.eig).lower(x).as_text()


@pytest.fixture
def x64():
    with x64_in_both():
        yield


def test_decompositions_in_float64(x64):
    # (eig's complex128 NaN constant once failed to lower: complex splats are written out)
    x = RNG.normal(size=(4, 4))
    for name in ("qr", "svd", "eigh", "eig"):
        f = lambda lib, name=name: getattr(lib.lax.linalg, name)  # noqa: E731
        want = f(jax)(x)
        _same(f(didax)(x), want, 1e-10)
        _same(didax.jit(f(didax))(x), want, 1e-10)
    z = (x + 1j * x).astype(np.complex128)
    _same(didax.jit(lambda a: a * (1 + 2j))(z), jax.jit(lambda a: a * (1 + 2j))(z), 1e-12)


@pytest.mark.parametrize("alg", ["DEFAULT", "QR", "DIVIDE_AND_CONQUER"])
def test_svd_algorithms_and_implementation_enums(alg):
    x = MATS[(5, 3)]
    f = lambda L: (
        lambda a: L.lax.linalg.svd(  # noqa: E731
            a, full_matrices=False, algorithm=getattr(L.lax.linalg.SvdAlgorithm, alg)
        )
    )
    want = f(jax)(x)
    _same(f(didax)(x), want)
    _same(didax.jit(f(didax))(x), want)
    assert canonical(str(didax.make_jaxpr(f(didax))(x))) == canonical(
        str(jax.make_jaxpr(f(jax))(x))
    )
    routine = "gesvd" if alg == "QR" else "gesdd"
    assert f"lapack_s{routine}_ffi" in didax.jit(f(didax)).lower(x).as_text()
    for E, JE in [
        (dlax.linalg.SvdAlgorithm, jax.lax.linalg.SvdAlgorithm),
        (dlax.linalg.EighImplementation, jax.lax.linalg.EighImplementation),
        (dlax.linalg.EigImplementation, jax.lax.linalg.EigImplementation),
    ]:
        assert [(m.name, m.value) for m in E] == [(m.name, m.value) for m in JE]


def test_algorithms_not_on_cpu_raise_as_jax():
    s = np.eye(3, dtype=np.float32)
    cases = [
        (lambda L: L.svd(s, algorithm=L.SvdAlgorithm.JACOBI), "Jacobi and Polar"),
        (lambda L: L.eigh(s, implementation=L.EighImplementation.JACOBI), "Jacobi"),
        (lambda L: L.eigh(s, implementation=L.EighImplementation.QDWH), "QDWH"),
    ]
    for call, msg in cases:
        with pytest.raises(NotImplementedError, match=msg):
            call(jax.lax.linalg)
        with pytest.raises(NotImplementedError, match=msg):
            call(dlax.linalg)
    assert dlax.linalg.eig_p is not None and dlax.linalg.svd_p.name == "svd"


@pytest.mark.parametrize(
    "x", [MATS[(4, 4)], RNG.normal(size=(2, 3, 3)).astype(np.float32), np.eye(3, dtype=np.float32)]
)
def test_slogdet_qr_method(x):
    want = jjnp.linalg.slogdet(x, method="qr")
    _same(tuple(jnp.linalg.slogdet(x, method="qr")), tuple(want))
    _same(tuple(didax.jit(lambda a: jnp.linalg.slogdet(a, method="qr"))(x)), tuple(want))
    with pytest.raises(ValueError, match="Unknown slogdet method"):
        jnp.linalg.slogdet(x, method="cholesky")
