"""`lax.conv_general_dilated` (`conv_general_dilated_p`), `lax.conv` and `jnp.convolve` /
`jnp.correlate` against JAX: values under eval and jit, gradients in both operands (the two
transposes), vmap of either or both operands, strides, padding strings and pairs (negative
too), input and kernel dilation, layouts, feature and batch groups, and the jaxpr text.

JAX's gradients and vmaps are each one `jax.jit` program (`helpers.oracle.jax_quick`): run
eagerly, each of their operations is a compile of its own."""

from __future__ import annotations

import didax
import didax.numpy as jnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")
from helpers.jaxpr_text import canonical
from helpers.oracle import jax_quick

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(3)

CASES = [
    ((1, 2, 5, 5), (4, 2, 3, 3), dict(window_strides=(1, 1), padding="VALID")),
    (
        (2, 5, 5, 2),
        (3, 3, 2, 4),
        dict(window_strides=(1, 1), padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
    ),
    (
        (2, 6, 7, 2),
        (3, 3, 2, 4),
        dict(window_strides=(2, 1), padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
    ),
    (
        (2, 4, 7, 6),
        (4, 2, 3, 2),
        dict(
            window_strides=(2, 3),
            padding=[(1, 0), (0, 2)],
            lhs_dilation=(1, 2),
            rhs_dilation=(2, 1),
            feature_group_count=2,
        ),
    ),
    (
        (2, 4, 7, 6),
        (4, 4, 3, 2),
        dict(
            window_strides=(1, 2),
            padding=[(2, 1), (-1, 2)],
            lhs_dilation=(2, 1),
            rhs_dilation=(1, 2),
        ),
    ),
    ((1, 3, 9), (6, 1, 3), dict(window_strides=(2,), padding="SAME", feature_group_count=3)),
]
IDS = ["valid", "nhwc-same", "nhwc-strided", "dilated-groups", "negative-pad", "1d-depthwise"]


def _conv(lib, params):
    return lambda x, w: lib.lax.conv_general_dilated(x, w, **params)


def _close(got, want, atol=1e-4):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, atol=atol, rtol=1e-3)


def _operands(xs, ws):
    return RNG.normal(size=xs).astype(np.float32), RNG.normal(size=ws).astype(np.float32)


@pytest.mark.parametrize("xs, ws, params", CASES, ids=IDS)
def test_conv_values_eval_and_jit(xs, ws, params):
    x, w = _operands(xs, ws)
    want = _conv(jax, params)(x, w)
    _close(_conv(didax, params)(x, w), want)
    _close(didax.jit(_conv(didax, params))(x, w), want)


@pytest.mark.parametrize("xs, ws, params", CASES, ids=IDS)
def test_conv_grads_both_operands(xs, ws, params):
    x, w = _operands(xs, ws)
    loss = lambda lib: lambda x, w: (_conv(lib, params)(x, w) ** 2).sum()  # noqa: E731
    want = jax_quick(jax.grad(loss(jax), argnums=(0, 1)), x, w)
    for got in (
        didax.grad(loss(didax), argnums=(0, 1))(x, w),
        didax.jit(didax.grad(loss(didax), argnums=(0, 1)))(x, w),
    ):
        for g, v in zip(got, want, strict=True):
            _close(g, v, atol=1e-2)


@pytest.mark.parametrize("xs, ws, params", CASES, ids=IDS)
@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0)])
def test_conv_vmap(xs, ws, params, in_axes):
    x, w = _operands(xs, ws)
    xb, wb = np.stack([x, 2 * x]), np.stack([w, w - 1])
    args = (xb if in_axes[0] == 0 else x, wb if in_axes[1] == 0 else w)
    want = jax_quick(jax.vmap(_conv(jax, params), in_axes), *args)
    _close(didax.vmap(_conv(didax, params), in_axes)(*args), want)


def test_batch_group_count_values():
    x, w = _operands((4, 3, 9), (6, 3, 3))
    f = lambda lib: (
        lambda x, w: lib.lax.conv_general_dilated(  # noqa: E731
            x, w, (1,), "VALID", batch_group_count=2
        )
    )
    _close(f(didax)(x, w), f(jax)(x, w))
    _close(didax.jit(f(didax))(x, w), f(jax)(x, w))


def test_conv_jaxpr_and_lax_conv():
    x, w = _operands((1, 5, 5, 2), (3, 3, 2, 4))
    dn = ("NHWC", "HWIO", "NHWC")
    for f, args in [
        (lambda lib: lambda x, w: lib.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=dn), (x, w)),
        (lambda lib: lambda x, w: lib.lax.conv(x, w, (1, 1), "VALID"), _operands((1, 2, 5, 5), (4, 2, 3, 3))),
    ]:  # fmt: skip
        got = str(didax.make_jaxpr(f(didax))(*args))
        assert canonical(got) == canonical(str(jax.make_jaxpr(f(jax))(*args))), got
        _close(f(didax)(*args), f(jax)(*args))
    assert "stablehlo.convolution" in didax.jit(f(didax)).lower(*args).as_text()


def test_conv_errors():
    x, w = _operands((1, 4, 5), (2, 3, 3))
    for lib in (jax, didax):
        with pytest.raises(ValueError, match="feature dimension size"):
            lib.lax.conv_general_dilated(x, w, (1,), "VALID")
        with pytest.raises(RuntimeError, match="padding type"):
            lib.lax.conv_general_dilated(x, w, (1,), "NOPE")
        with pytest.raises(TypeError, match="spatial"):
            lib.lax.conv_general_dilated(
                x, w, (1,), "VALID", dimension_numbers=("NCX", "OIY", "NCX")
            )


@pytest.mark.parametrize("op", ["convolve", "correlate"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_correlate(op, mode):
    a = np.arange(5.0, dtype=np.float32)
    v = np.array([1.0, 2.0, -1.0], np.float32)
    pairs = [(a, v), (v, a), (a.astype(np.int32), v.astype(np.int32))]
    loss = lambda m: lambda x, y: (getattr(m, op)(x, y, mode=mode) ** 2).sum()  # noqa: E731

    def jax_side(pairs, a, v):  # one program (eagerly, each JAX operation is a compile)
        values = [getattr(jjnp, op)(x, y, mode=mode) for x, y in pairs]
        return values, jax.grad(loss(jjnp), argnums=(0, 1))(a, v)

    wants, want_grad = jax_quick(jax_side, pairs, a, v)
    for (x, y), want in zip(pairs, wants, strict=True):
        _close(getattr(jnp, op)(x, y, mode=mode), want)
        _close(didax.jit(lambda x, y: getattr(jnp, op)(x, y, mode=mode))(x, y), want)
    got = str(didax.make_jaxpr(lambda x, y: getattr(jnp, op)(x, y, mode=mode))(a, v))
    want = str(jax.make_jaxpr(lambda x, y: getattr(jjnp, op)(x, y, mode=mode))(a, v))
    assert canonical(got) == canonical(want), got
    got = didax.grad(loss(jnp), argnums=(0, 1))(a, v)
    for g, w in zip(got, want_grad, strict=True):
        _close(g, w, atol=1e-3)


@pytest.mark.parametrize("dn", [None, ("WCN", "WOI", "CWN")], ids=["default", "permuted"])
@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0), (1, None), (None, 1)])
def test_vmap_with_batch_groups(dn, in_axes):
    x, w = _operands((4, 3, 9), (6, 3, 3))
    if dn is not None:
        x, w = np.transpose(x, (2, 1, 0)), np.transpose(w, (2, 0, 1))
    f = lambda lib: (
        lambda x, w: lib.lax.conv_general_dilated(  # noqa: E731
            x, w, (2,), "SAME", batch_group_count=2, dimension_numbers=dn
        )
    )
    xb, wb = np.stack([x, 2 * x, x - 1]), np.stack([w, w + 1, -w])
    args = (
        x if in_axes[0] is None else np.moveaxis(xb, 0, in_axes[0]),
        w if in_axes[1] is None else np.moveaxis(wb, 0, in_axes[1]),
    )
    _close(didax.vmap(f(didax), in_axes)(*args), jax_quick(jax.vmap(f(jax), in_axes), *args))


def test_per_example_kernel_grads_of_a_grouped_conv():
    # grad w.r.t. a grouped conv's kernel is a batch-grouped conv; vmap of it needs both
    xs = RNG.normal(size=(3, 1, 4, 7)).astype(np.float32)
    k = RNG.normal(size=(4, 2, 3)).astype(np.float32)
    loss = lambda lib: (
        lambda k, x: (  # noqa: E731
            lib.lax.conv_general_dilated(x, k, (1,), "SAME", feature_group_count=2) ** 2
        ).sum()
    )
    want = jax_quick(jax.vmap(jax.grad(loss(jax)), (None, 0)), k, xs)
    per_example = didax.vmap(didax.grad(loss(didax)), (None, 0))
    _close(per_example(k, xs), want, atol=1e-3)
    _close(didax.jit(per_example)(k, xs), want, atol=1e-3)


@pytest.mark.parametrize("dn", [None, ("WCN", "WOI", "CWN")], ids=["default", "permuted"])
@pytest.mark.parametrize(
    "extra", [{}, dict(lhs_dilation=(2,), rhs_dilation=(2,))], ids=["plain", "dilated"]
)
def test_grads_with_batch_groups(dn, extra):
    x, w = _operands((4, 3, 9), (6, 3, 3))
    if dn is not None:
        x, w = np.transpose(x, (2, 1, 0)), np.transpose(w, (2, 0, 1))
    loss = lambda lib: (
        lambda x, w: (  # noqa: E731
            lib.lax.conv_general_dilated(
                x, w, (2,), [(1, 2)], batch_group_count=2, dimension_numbers=dn, **extra
            )
            ** 2
        ).sum()
    )
    got = didax.grad(loss(didax), argnums=(0, 1))(x, w)
    want = jax_quick(jax.grad(loss(jax), argnums=(0, 1)), x, w)
    for g, v in zip(got, want, strict=True):
        _close(g, v, atol=1e-2)


def test_string_padding_with_input_dilation_is_an_error():
    x, w = _operands((1, 1, 4), (1, 1, 2))
    for lib in (jax, didax):
        with pytest.raises(ValueError, match="String padding is not implemented"):
            lib.lax.conv_general_dilated(x, w, (1,), "SAME", lhs_dilation=(2,))
