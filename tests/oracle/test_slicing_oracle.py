"""Oracle: the `lax` indexing primitives against JAX 0.10.2 — `gather`, `scatter`,
`scatter_add/sub/mul/min/max`, `dynamic_slice`, `dynamic_update_slice` and their `_in_dim`
forms, `rev` — values, dtypes, shapes and jaxpr text under eval and `jit` (the lowering),
every `GatherScatterMode` with out-of-bounds indices, batching dimension numbers, and
gradients."""

from __future__ import annotations

from functools import partial
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from didax import lax as dlax

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from helpers.grouped import Grouped
from helpers.jaxpr_text import canonical
from helpers.oracle import JaxOracle
from jax import lax as jlax  # noqa: E402

pytestmark = pytest.mark.oracle

X = np.arange(24, dtype=np.float32).reshape(4, 6) / 3 - 2
XI = np.arange(24, dtype=np.int32).reshape(4, 6) - 5
IDX = np.array([[0], [3], [5], [-1], [2]], np.int32)  # 5 and -1 are out of bounds for rows
IDX2 = np.array([[0, 1], [3, 4], [2, 5], [-1, 0]], np.int32)
U_ROWS = (np.arange(30, dtype=np.float32).reshape(5, 6) - 7) / 4


def _g_rows(lax):
    return lax.GatherDimensionNumbers(
        offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)
    )


def _g_points(lax):
    return lax.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(0, 1), start_index_map=(0, 1)
    )


def _g_windows(lax):  # 2x3 windows, nothing collapsed
    return lax.GatherDimensionNumbers(
        offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1)
    )


def _s_rows(lax):
    return lax.ScatterDimensionNumbers(
        update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )


MODES = [None, "clip", "fill", "promise_in_bounds"]

# (name, function of (lax module, numpy-like module, x)); `x` is float32[4,6] or int32[4,6]
CASES = [
    *(
        (
            f"gather rows mode={m}",
            lambda lax, mod, x, m=m: lax.gather(x, IDX, _g_rows(lax), (1, 6), mode=m),
        )
        for m in MODES
    ),
    *(
        (
            f"gather points mode={m}",
            lambda lax, mod, x, m=m: lax.gather(x, IDX2, _g_points(lax), (1, 1), mode=m),
        )
        for m in MODES
    ),
    *(
        (
            f"gather windows mode={m}",
            lambda lax, mod, x, m=m: lax.gather(x, IDX2, _g_windows(lax), (2, 3), mode=m),
        )
        for m in MODES
    ),
    (
        "gather fill_value",
        lambda lax, mod, x: lax.gather(x, IDX, _g_rows(lax), (1, 6), mode="fill", fill_value=-9),
    ),
    (
        "gather batching dims",
        lambda lax, mod, x: lax.gather(
            x,
            np.array([[1], [0], [5], [2]], np.int32),
            lax.GatherDimensionNumbers(
                offset_dims=(),
                collapsed_slice_dims=(1,),
                start_index_map=(1,),
                operand_batching_dims=(0,),
                start_indices_batching_dims=(0,),
            ),
            (1, 1),
            mode="clip",
        ),
    ),
    *(
        (
            f"{op} mode={m}",
            lambda lax, mod, x, op=op, m=m: getattr(lax, op)(
                x, IDX, U_ROWS.astype(x.dtype), _s_rows(lax), mode=m
            ),
        )
        for op in (
            "scatter",
            "scatter_add",
            "scatter_sub",
            "scatter_mul",
            "scatter_min",
            "scatter_max",
        )
        for m in MODES
    ),
    (
        "scatter_add windows",
        lambda lax, mod, x: lax.scatter_add(
            x,
            IDX2,
            mod.ones((4, 2, 3), x.dtype),
            lax.ScatterDimensionNumbers(
                update_window_dims=(1, 2),
                inserted_window_dims=(),
                scatter_dims_to_operand_dims=(0, 1),
            ),
        ),
    ),
    ("dynamic_slice", lambda lax, mod, x: lax.dynamic_slice(x, (1, 2), (2, 3))),
    ("dynamic_slice clamps", lambda lax, mod, x: lax.dynamic_slice(x, (3, -1), (2, 3))),
    (
        "dynamic_slice array starts",
        lambda lax, mod, x: lax.dynamic_slice(x, mod.array([1, 4]), (2, 2)),
    ),
    (
        "dynamic_update_slice",
        lambda lax, mod, x: lax.dynamic_update_slice(x, mod.ones((2, 3), x.dtype), (1, 2)),
    ),
    (
        "dynamic_update_slice clamps",
        lambda lax, mod, x: lax.dynamic_update_slice(x, mod.ones((2, 3), x.dtype), (9, -2)),
    ),
    ("dynamic_index_in_dim", lambda lax, mod, x: lax.dynamic_index_in_dim(x, 2, 1)),
    (
        "dynamic_index_in_dim no keepdims",
        lambda lax, mod, x: lax.dynamic_index_in_dim(x, -1, 0, False),
    ),
    ("dynamic_slice_in_dim", lambda lax, mod, x: lax.dynamic_slice_in_dim(x, 1, 3, axis=1)),
    (
        "dynamic_update_index_in_dim",
        lambda lax, mod, x: lax.dynamic_update_index_in_dim(x, mod.zeros(6, x.dtype), 2, 0),
    ),
    (
        "dynamic_update_slice_in_dim",
        lambda lax, mod, x: lax.dynamic_update_slice_in_dim(x, mod.zeros((4, 2), x.dtype), 3, 1),
    ),
    ("rev", lambda lax, mod, x: lax.rev(x, (0, 1))),
]

# JAX wraps these two helpers in an inner `jit`; didax's lax layer sits below `jit` and
# writes their equations inline
INLINE_JIT = {
    "dynamic_index_in_dim",
    "dynamic_index_in_dim no keepdims",
    "dynamic_update_index_in_dim",
}


def _run(fn, lib, x):
    if lib == "jax":
        return fn(jlax, jnp, x)
    return fn(dlax, dnp, x)


def _jax_loss(fn):
    return lambda x: jnp.sum(jnp.sin(_run(fn, "jax", x)))


@pytest.fixture(scope="module")
def oracle() -> JaxOracle:
    """JAX's values and gradients, compiled in chunks (`helpers.oracle`): eagerly, each of
    JAX's operations would be a compile of its own."""
    members = [
        (("value", name, dtype), partial(_run, fn, "jax"), [x])
        for name, fn in CASES
        for dtype, x in ((np.float32, X), (np.int32, XI))
    ]
    members += [(("grad", name), jax.grad(_jax_loss(fn)), [X]) for name, fn in DIFFERENTIABLE]
    return JaxOracle.in_chunks(members, 16)


DTYPES = [np.float32, np.int32]


def _jit_calls() -> list[Any]:
    return [
        (
            partial(_run, fn, "didax"),
            (dnp.asarray((X if dtype == np.float32 else XI).astype(dtype)),),
        )
        for _, fn in CASES
        for dtype in DTYPES
    ]


# didax's `jit`s of the cases, 16 to a program (helpers/grouped.py). Checked when grouped
# (2026-11-26): every result has the bits of its own `jit`.
JITTED = Grouped(didax.jit, _jit_calls, chunk=16)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "i32"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_values_match_jax(case, dtype, oracle) -> None:
    name, fn = case
    x = (X if dtype == np.float32 else XI).astype(dtype)
    want = oracle.get(("value", name, dtype))
    got = _run(fn, "didax", dnp.asarray(x))
    index = next(i for i, c in enumerate(CASES) if c is case)
    jitted = JITTED.result(index * len(DTYPES) + DTYPES.index(dtype))
    for out in (got, jitted):
        assert (out.shape, out.dtype) == (want.shape, want.dtype), name
        np.testing.assert_allclose(np.asarray(out), np.asarray(want), rtol=1e-6)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_jaxpr_matches_jax(case) -> None:
    name, fn = case
    jax_text = str(jax.make_jaxpr(lambda x: _run(fn, "jax", x))(jnp.asarray(X)))
    didax_text = str(didax.make_jaxpr(lambda x: _run(fn, "didax", x))(dnp.asarray(X)))
    same = canonical(jax_text) == canonical(didax_text)
    if name in INLINE_JIT:
        assert not same, f"{name} now matches JAX: drop it from INLINE_JIT"
    else:
        assert same, f"\n--- jax\n{jax_text}\n--- didax\n{didax_text}"


DIFFERENTIABLE = [
    c for c in CASES if c[0].split()[0] not in ("scatter_mul",) and "in_dim" not in c[0]
]


@pytest.mark.parametrize("case", DIFFERENTIABLE, ids=[c[0] for c in DIFFERENTIABLE])
def test_grad_matches_jax(case, oracle) -> None:
    name, fn = case
    want = oracle.get(("grad", name))
    got = didax.grad(lambda x: dnp.sum(dnp.sin(_run(fn, "didax", x))))(dnp.asarray(X))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-5)


def test_scatter_update_grads_match_jax() -> None:
    for op in ("scatter", "scatter_add", "scatter_sub", "scatter_min", "scatter_max"):
        for mode in MODES:
            if op in ("scatter_min", "scatter_max") and mode == "clip":
                # JAX 0.10.2 gives -inf to an update clamped onto a row it wins (its tie
                # count is 0 there); didax gives cos(out), the derivative
                continue

            def loss(x, u, lax, mod, op=op, mode=mode):
                return mod.sum(mod.sin(getattr(lax, op)(x, IDX, u, _s_rows(lax), mode=mode)))

            want = jax.grad(loss, (0, 1))(jnp.asarray(X), jnp.asarray(U_ROWS), jlax, jnp)
            got = didax.grad(loss, (0, 1))(dnp.asarray(X), dnp.asarray(U_ROWS), dlax, dnp)
            for g, w in zip(got, want, strict=True):
                np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-5)


def test_scatter_mul_grad_needs_unique_indices_as_jax() -> None:
    def loss(u, lax, mod, unique):
        x = mod.asarray(X)
        idx = np.array([[0], [2]], np.int32)
        return mod.sum(lax.scatter_mul(x, idx, u, _s_rows(lax), unique_indices=unique))

    u = U_ROWS[:2]
    want = jax.grad(loss)(jnp.asarray(u), jlax, jnp, True)
    got = didax.grad(loss)(dnp.asarray(u), dlax, dnp, True)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5)
    with pytest.raises(NotImplementedError):
        jax.grad(loss)(jnp.asarray(u), jlax, jnp, False)
    with pytest.raises(NotImplementedError, match="unique_indices"):
        didax.grad(loss)(dnp.asarray(u), dlax, dnp, False)


def test_mode_parsing_matches_jax() -> None:
    for m in ("clip", "fill", "drop", "promise_in_bounds", None):
        assert dlax.GatherScatterMode.from_any(m).name == jlax.GatherScatterMode.from_any(m).name
    with pytest.raises(ValueError, match="Unknown gather mode"):
        dlax.GatherScatterMode.from_any("nope")
    assert str(dlax.GatherScatterMode.CLIP) == str(jlax.GatherScatterMode.CLIP)
    dn = dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
    assert repr(dlax.GatherDimensionNumbers(**dn)) == repr(jlax.GatherDimensionNumbers(**dn))


def test_bad_operands_raise_type_errors() -> None:
    x = dnp.asarray(X)
    with pytest.raises(TypeError, match="gather"):
        dlax.gather(x, IDX.astype(np.float32), _g_rows(dlax), (1, 6))
    with pytest.raises(TypeError, match="gather"):
        dlax.gather(x, IDX, _g_rows(dlax), (2, 6))  # a collapsed dim of size 2
    with pytest.raises(TypeError, match="scatter"):
        dlax.scatter_add(x, IDX, dnp.ones((4, 6)), _s_rows(dlax))
    with pytest.raises(TypeError, match="dynamic_slice"):
        dlax.dynamic_slice(x, (0, 0), (5, 1))
    with pytest.raises(ValueError, match="Length of slice indices"):
        dlax.dynamic_slice(x, (0,), (1, 1))


def _vmapped_outputs(lax, mod, vmap):
    xs = mod.asarray(np.stack([X, X[::-1] * 2]))
    starts = mod.asarray(np.array([[1, 2], [3, -1]], np.int32))
    idxs = mod.asarray(np.stack([IDX, IDX[::-1]]))
    us = mod.asarray(np.stack([U_ROWS, -U_ROWS]))
    x0, u0 = mod.asarray(X), mod.asarray(U_ROWS)
    out = [
        vmap(lambda x, s: lax.dynamic_slice(x, (s[0], s[1]), (2, 3)))(xs, starts),
        vmap(lambda s: lax.dynamic_slice(x0, (s[0], s[1]), (2, 3)))(starts),
        vmap(lambda x: lax.dynamic_slice(x, (1, 2), (2, 3)))(xs),
        vmap(lambda x, s: lax.dynamic_update_slice(x, mod.ones((2, 3)), (s[0], s[1])))(xs, starts),
        vmap(lambda s: lax.dynamic_update_slice(x0, mod.ones((2, 3)), (s[0], s[1])))(starts),
        vmap(lambda x: lax.rev(x, (1,)))(xs),
    ]
    for m in MODES:
        out.append(vmap(lambda x, i, m=m: lax.gather(x, i, _g_rows(lax), (1, 6), mode=m))(xs, idxs))
        out.append(vmap(lambda i, m=m: lax.gather(x0, i, _g_rows(lax), (1, 6), mode=m))(idxs))
        out.append(vmap(lambda x, m=m: lax.gather(x, IDX, _g_rows(lax), (1, 6), mode=m))(xs))
        for op in (
            "scatter",
            "scatter_add",
            "scatter_sub",
            "scatter_mul",
            "scatter_min",
            "scatter_max",
        ):
            f = getattr(lax, op)
            out.append(
                vmap(lambda x, i, u, f=f, m=m: f(x, i, u, _s_rows(lax), mode=m))(xs, idxs, us)
            )
            out.append(vmap(lambda u, f=f, m=m: f(x0, IDX, u, _s_rows(lax), mode=m))(us))
            out.append(vmap(lambda i, f=f, m=m: f(x0, i, u0, _s_rows(lax), mode=m))(idxs))
    return out


def test_vmap_matches_jax() -> None:
    # JAX's answers and didax's jitted ones each as one program (one compile, not one per
    # case and, for JAX's eager vmap, one per primitive): the same values, a tenth of the time
    want = jax.jit(lambda: _vmapped_outputs(jlax, jnp, jax.vmap))()
    got = _vmapped_outputs(dlax, dnp, didax.vmap)
    jitted = didax.jit(lambda: _vmapped_outputs(dlax, dnp, didax.vmap))()
    for k, (g, j, w) in enumerate(zip(got, jitted, want, strict=True)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, err_msg=str(k))
        np.testing.assert_allclose(np.asarray(j), np.asarray(w), rtol=1e-6, err_msg=str(k))
