"""Windowed and generic reductions against JAX: `lax.reduce_window` (its monoids bind
reduce_window_sum/max/min, whose derivatives are select_and_gather_add and
select_and_scatter_add), `lax.reduce` with a user's computation, argmin, reduce_and/or/xor,
conv_transpose and the shape tuples: values under eval, jit and vmap, jvps and gradients,
and the jaxprs JAX prints."""

from __future__ import annotations

import didax
import didax.numpy
import numpy as np
import pytest
from didax import lax as dlax

jax = pytest.importorskip("jax")
from helpers.jaxpr_text import canonical
from helpers.oracle import JaxOracle, assert_same_leaves, jax_quick
from jax import lax as jlax

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(5)
X = RNG.normal(size=(2, 5, 6, 3)).astype(np.float32)

WINDOWS = [
    ((1, 2, 2, 1), (1, 1, 1, 1), "SAME", None, None),
    ((1, 3, 2, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (0, 1), (0, 0)), None, None),
    ((1, 2, 2, 1), (1, 1, 1, 1), ((0, 0), (1, 0), (0, 0), (0, 0)), (1, 2, 1, 1), (1, 1, 2, 1)),
    ((1, 2, 3, 1), (1, 2, 1, 1), ((0, 0), (0, 0), (-1, 1), (0, 0)), None, None),
]
MONOIDS = [("sum", 0.0, "add"), ("max", -np.inf, "max"), ("min", np.inf, "min")]


_same = assert_same_leaves


def _pool(lib, init, op, window):
    wd, ws, pad, bd, wdl = window
    return lambda x: lib.lax.reduce_window(x, init, getattr(lib.lax, op), wd, ws, pad, bd, wdl)


def _has_vjp(window, op):  # JAX has no VJP for these either
    negative_pad = isinstance(window[2], tuple) and min(min(p) for p in window[2]) < 0
    dilated = window[4] is not None
    return not (negative_pad or (dilated and op != "add"))


def _monoid_inputs(w, m):
    """A tangent, a batch of two inputs (batch axis first and at 3) and a cotangent."""
    rng = np.random.default_rng([5, w, m])
    _, init, op = MONOIDS[m]
    t = rng.normal(size=X.shape).astype(np.float32)
    xs = np.stack([X, 2 * X])
    out = jax.eval_shape(_pool(jax, init, op, WINDOWS[w]), X)
    ct = rng.normal(size=out.shape).astype(np.float32)
    return t, xs, np.moveaxis(xs, 0, 3), ct


def _jax_monoid(w, m):
    _, init, op = MONOIDS[m]
    jf = _pool(jax, init, op, WINDOWS[w])

    def answers(x, t, xs, xs_last, ct):
        out = [jf(x), jax.jvp(jf, (x,), (t,)), jax.vmap(jf)(xs), jax.vmap(jf, in_axes=3)(xs_last)]
        if _has_vjp(WINDOWS[w], op):
            grad = jax.grad(lambda x: (jf(x) * ct).sum())
            out += [grad(x), jax.vmap(grad)(xs)]
        return out

    return ("monoid", w, m), answers, [X, *_monoid_inputs(w, m)]


@pytest.mark.parametrize("window", range(len(WINDOWS)))
@pytest.mark.parametrize("monoid", range(len(MONOIDS)), ids=[m[0] for m in MONOIDS])
def test_reduce_window_monoids(window, monoid):
    _, init, op = MONOIDS[monoid]
    f = _pool(didax, init, op, WINDOWS[window])
    jf = _pool(jax, init, op, WINDOWS[window])
    t, xs, xs_last, ct = _monoid_inputs(window, monoid)
    want, want_jvp, want_vmap, want_vmap_last, *want_grads = ORACLE.get(("monoid", window, monoid))
    _same(f(X), want)
    _same(didax.jit(f)(X), want)
    _same(didax.jvp(f, (X,), (t,)), want_jvp)
    _same(didax.vmap(f)(xs), want_vmap)
    _same(didax.vmap(f, in_axes=3)(xs_last), want_vmap_last)
    if not _has_vjp(WINDOWS[window], op):
        return
    want_grad, want_vmap_grad = want_grads
    loss = lambda g: lambda x: (g(x) * ct).sum()  # noqa: E731
    _same(didax.grad(loss(f))(X), want_grad, 1e-4)
    _same(didax.jit(didax.grad(loss(f)))(X), want_grad, 1e-4)
    _same(didax.vmap(didax.grad(loss(f)))(xs), want_vmap_grad, 1e-4)
    # (the closed-over cotangent as each library's Array: a NumPy constant kept as a VJP
    # residual shows twice in didax's jaxprs since main's VJP-object change, once in JAX's)
    ct_d, ct_j = didax.numpy.asarray(ct), jax.numpy.asarray(ct)
    g = lambda fn, c: lambda x: (fn(x) * c).sum()  # noqa: E731
    got = didax.make_jaxpr(didax.grad(g(f, ct_d)))(X)
    want_text = jax.make_jaxpr(jax.grad(g(jf, ct_j)))(X)
    assert canonical(str(got)) == canonical(str(want_text)), (got, want_text)


def test_max_pool_ties_and_int_operands():
    x = np.array([[1.0, 3.0, 3.0, 0.0], [3.0, 2.0, 3.0, 1.0]], np.float32)
    f = lambda lib: (
        lambda x: (_pool(lib, -np.inf, "max", ((2, 2), (1, 1), "VALID", None, None))(x) ** 2).sum()
    )  # noqa: E731
    _same(didax.grad(f(didax))(x), jax.grad(f(jax))(x))
    ints = np.arange(12, dtype=np.int32).reshape(3, 4)
    for lib_init, op in [(np.iinfo(np.int32).min, "max"), (0, "add")]:
        win = ((2, 2), (1, 2), "SAME", None, None)
        _same(_pool(didax, lib_init, op, win)(ints), _pool(jax, lib_init, op, win)(ints))


REDUCES = [
    lambda L: lambda x: L.reduce(x, 0.0, L.add, (0, 2)),
    lambda L: lambda x: L.reduce(x, 1.0, lambda a, b: a * b, (1,)),
    lambda L: (
        lambda x: L.reduce(
            (x, 2 * x), (0.0, -np.inf), lambda a, b: (a[0] + b[0], L.max(a[1], b[1])), (0, 1)
        )
    ),
    lambda L: lambda x: L.reduce_window(x, 1.0, lambda a, b: a * b, (2, 2, 1), (1, 1, 1), "SAME"),
]


def _generic_inputs(case):
    """An input, a tangent and a batch of two inputs."""
    rng = np.random.default_rng([5, 100 + case])
    x = rng.normal(size=(3, 4, 5)).astype(np.float32)
    return x, rng.normal(size=x.shape).astype(np.float32), np.stack([x, x + 1])


def _generic_loss(g):
    return lambda x: sum((y**2).sum() for y in jax.tree.leaves(g(x)))


def _jax_generic(case):
    jf = REDUCES[case](jlax)

    def answers(x, t, xs):
        out = [jf(x), jax.vmap(jf)(xs), jax.jvp(jf, (x,), (t,))]
        if case < 3:  # the generic reduce_window has no transpose (nor in JAX)
            out.append(jax.grad(_generic_loss(jf))(x))
        return out

    return ("generic", case), answers, list(_generic_inputs(case))


@pytest.mark.parametrize("case", range(len(REDUCES)))
def test_generic_reduce_and_reduce_window(case):
    x, t, xs = _generic_inputs(case)
    f, jf = REDUCES[case](dlax), REDUCES[case](jlax)
    want, want_vmap, want_jvp, *want_grad = ORACLE.get(("generic", case))
    _same(f(x), want, 1e-4)
    _same(didax.jit(f)(x), want, 1e-4)
    _same(didax.vmap(f)(xs), want_vmap, 1e-4)
    got, want_text = str(didax.make_jaxpr(f)(x)), str(jax.make_jaxpr(jf)(x))
    strip = lambda s: "\n".join(ln for ln in s.splitlines() if "computation=" not in ln)  # noqa: E731
    assert canonical(strip(got)) == canonical(strip(want_text)), (got, want_text)
    _same(didax.jvp(f, (x,), (t,)), want_jvp, 1e-4)
    _same(didax.jit(lambda x, t: didax.jvp(f, (x,), (t,)))(x, t), want_jvp, 1e-4)
    if case < 3:
        _same(didax.grad(_generic_loss(f))(x), want_grad[0], 1e-3)


# JAX's side of the two tests above, 8 tests to a compiled program (eagerly, each of JAX's
# operations is a compile of its own: up to 62 a test).
ORACLE = JaxOracle.in_chunks(
    [
        *(_jax_monoid(w, m) for m in range(len(MONOIDS)) for w in range(len(WINDOWS))),
        *(_jax_generic(case) for case in range(len(REDUCES))),
    ],
    8,
)


def test_reduce_errors():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match="same tree structure"):
        dlax.reduce((x, x), 0.0, dlax.add, (0,))
    with pytest.raises(ValueError, match="at least one operand"):
        dlax.reduce_window((), (), dlax.add, (), ())
    with pytest.raises(TypeError, match="wrong number of window_dimensions"):
        dlax.reduce_window(x, 0.0, dlax.add, (2,), (1,), "VALID")


def test_argmin_and_bitwise_reductions():
    x = np.array([[3.0, 1.0, np.nan], [2.0, 2.0, 0.0]], np.float32)
    for axis in (0, 1):
        want = jlax.argmin(x, axis, np.int32)
        _same(dlax.argmin(x, axis, np.int32), want)
        _same(didax.jit(lambda x, axis=axis: dlax.argmin(x, axis, np.int32))(x), want)
    _same(
        didax.vmap(lambda x: dlax.argmin(x, 0, np.int32))(x),
        jax.vmap(lambda x: jlax.argmin(x, 0, np.int32))(x),
    )
    b = np.array([[True, False], [True, True]])
    i = np.array([[3, 5], [6, 2]], np.int32)
    for v in (b, i):
        for name in ("reduce_and", "reduce_or", "reduce_xor"):
            want = getattr(jlax, name)(v, (0,))
            _same(getattr(dlax, name)(v, (0,)), want)
            _same(didax.jit(lambda v, name=name: getattr(dlax, name)(v, (0,)))(v), want)
        mono = [
            (True if v.dtype == bool else -1, "bitwise_and"),
            (False if v.dtype == bool else 0, "bitwise_or"),
        ]
        for init, op in mono:
            f = lambda L, init=init, op=op: lambda y: L.reduce(y, init, getattr(L, op), (0,))  # noqa: E731
            got, want_text = str(didax.make_jaxpr(f(dlax))(v)), str(jax.make_jaxpr(f(jlax))(v))
            assert canonical(got) == canonical(want_text), (got, want_text)
    with pytest.raises(TypeError, match="reduce_and does not accept dtype float32"):
        dlax.reduce_and(x, (0,))


@pytest.mark.parametrize("padding", ["SAME", "VALID", ((1, 0), (0, 2))])
@pytest.mark.parametrize("transpose_kernel", [False, True])
def test_conv_transpose_and_shape_tuples(padding, transpose_kernel):
    x = RNG.normal(size=(2, 5, 6, 3)).astype(np.float32)
    w = RNG.normal(size=(3, 2, 3, 4)).astype(np.float32)
    f = lambda L: (
        lambda x, w: L.conv_transpose(  # noqa: E731
            x, w, (2, 1), padding, transpose_kernel=transpose_kernel
        )
    )
    if transpose_kernel:
        w = RNG.normal(size=(3, 2, 4, 3)).astype(np.float32)
    want = f(jlax)(x, w)
    _same(f(dlax)(x, w), want, 1e-4)
    _same(didax.jit(f(dlax))(x, w), want, 1e-4)
    dn = ("NHWC", "HWIO", "NHWC")
    pads = padding if isinstance(padding, str) else list(padding)
    for name in ("conv_general_shape_tuple", "conv_transpose_shape_tuple"):
        got = getattr(dlax, name)(x.shape, w.shape, (2, 1), pads, dn)
        assert got == tuple(getattr(jlax, name)(x.shape, w.shape, (2, 1), pads, dn)), name
    nchw = np.moveaxis(x, 3, 1)
    assert dlax.conv_shape_tuple(nchw.shape, (4, 3, 2, 2), (1, 2), padding) == tuple(
        jlax.conv_shape_tuple(nchw.shape, (4, 3, 2, 2), (1, 2), padding)
    )
    wd, ws, pad = (1, 2, 2, 1), (1, 2, 1, 1), ((0, 0), (1, 1), (0, 1), (0, 0))
    assert dlax.reduce_window_shape_tuple(x.shape, wd, ws, pad) == tuple(
        jlax.reduce_window_shape_tuple(x.shape, wd, ws, pad)
    )


# ----------------------------------------------------------------------------- closures
# A computation closing over a value being traced fails in JAX ("Reduction computations can't
# close over Tracers") and in didax. Over a concrete array JAX fails too, by accident (its
# reduce asserts that the staged computation has no consts, its reduce_window puts them in an
# unhashable param); didax keeps them as the computation's consts and runs it.

W = np.array([0.5, 1.5], np.float32)  # sums to 2


def _scaled_max(L, scale):  # associative and commutative, -inf its unit; exact for scale 2
    return lambda a, b: L.lax.max(a * scale(), b * scale()) / scale()


def _reducers(L, scale):
    comp = _scaled_max(L, scale)
    return [
        lambda x: L.lax.reduce(x, np.float32(-np.inf), comp, (1,)),
        lambda x: L.lax.reduce_window(x, np.float32(-np.inf), comp, (1, 2), (1, 1), "VALID"),
    ]


def _raised(fn, *args):
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        return type(e), str(e)
    return None


@pytest.mark.parametrize("kind", [0, 1], ids=["reduce", "reduce_window"])
def test_computation_closing_over_tracers_raises_as_jax(kind):
    x = RNG.normal(size=(3, 4)).astype(np.float32)
    over_x = lambda L: lambda x: _reducers(L, lambda: x[0, 0])[kind](x)  # noqa: E731
    over_y = lambda L: lambda x, y: _reducers(L, lambda: y)[kind](x)  # noqa: E731
    for run in (
        lambda L: L.jit(over_x(L))(x),
        lambda L: L.vmap(over_x(L))(np.stack([x, x])),
        lambda L: L.grad(lambda x: over_x(L)(x).sum())(x),
        lambda L: L.vmap(over_y(L), in_axes=(None, 0))(x, np.ones(2, np.float32)),
    ):
        for L in (didax, jax):
            kind_, message = _raised(run, L)
            assert kind_ is NotImplementedError, (L, message)
            assert message.startswith("Reduction computations can't close over Tracers")


@pytest.mark.parametrize("kind", [0, 1], ids=["reduce", "reduce_window"])
def test_computation_closing_over_concrete_arrays(kind):
    x = RNG.normal(size=(3, 4)).astype(np.float32)
    # JAX: the same computation with the closed-over sum as a literal (NumPy scalar)
    want_fn = _reducers(jax, lambda: np.float32(2.0))[kind]
    ws = (W, didax.numpy.asarray(W))  # a NumPy array, an Array
    ts = [RNG.normal(size=x.shape).astype(np.float32) for _ in ws]  # a tangent for each
    xs = np.stack([x, x + 1])
    g = lambda f: lambda x: f(x).sum()  # noqa: E731

    def jax_side(x, xs, ts):  # one program (eagerly, each JAX operation is a compile)
        jvps = [jax.jvp(want_fn, (x,), (t,)) for t in ts]
        # the generic reduce_window has no transpose (nor in JAX)
        grad = jax.grad(g(want_fn))(x) if kind == 0 else None
        return want_fn(x), jax.vmap(want_fn)(xs), jvps, grad

    want, want_vmap, want_jvps, want_grad = jax_quick(jax_side, x, xs, ts)
    for w, t, want_jvp in zip(ws, ts, want_jvps, strict=True):
        f = _reducers(didax, lambda w=w: didax.numpy.sum(w))[kind]
        _same(f(x), want, 1e-5)
        _same(didax.jit(f)(x), want, 1e-5)
        _same(didax.vmap(f)(xs), want_vmap, 1e-5)
        _same(didax.jvp(f, (x,), (t,)), want_jvp, 1e-4)
        if kind == 0:
            _same(didax.grad(g(f))(x), want_grad, 1e-4)
    jax_f = _reducers(jax, lambda: jax.numpy.sum(W))[kind]
    failure = (AssertionError, TypeError)[kind]
    assert _raised(jax_f, x)[0] is failure  # JAX's own fails: see above
    if kind == 0:  # JAX stages reduce's consts as constvars of its jaxpr, as didax does
        f = _reducers(didax, lambda: didax.numpy.sum(W))[kind]
        got, want = str(didax.make_jaxpr(f)(x)), str(jax.make_jaxpr(jax_f)(x))
        strip = lambda s: "\n".join(ln for ln in s.splitlines() if "computation=" not in ln)  # noqa: E731
        assert canonical(strip(got)) == canonical(strip(want)), (got, want)
