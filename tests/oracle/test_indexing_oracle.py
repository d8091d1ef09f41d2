"""Oracle: NumPy indexing (`x[idx]`) and `.at[...]` updates against JAX 0.10.2: values,
dtypes, shapes, the jaxpr text (after renaming variables), under eval and `jit`, and
gradients. Index expressions are written once as text and evaluated with each library's
arrays, so both see the same expression."""

from __future__ import annotations

from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from helpers.grouped import Grouped
from helpers.jaxpr_text import canonical
from helpers.oracle import EagerJax, jax_quick

pytestmark = pytest.mark.oracle

X = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
I = np.array([0, 2, -1], np.int32)  # noqa: E741
J = np.array([[1, 0], [3, -2]], np.int32)
M = np.array([True, False, True])
M2 = (np.arange(12) % 3 == 0).reshape(3, 4)

# each expression indexes `x`; `i`, `j` are integer index arrays, `m`, `m2` boolean masks
GETITEM = [
    "x[1]",
    "x[-1]",
    "x[1, 2]",
    "x[1:3]",
    "x[::-1]",
    "x[::-2, 1]",
    "x[1, ::-1]",
    "x[..., ::2]",
    "x[:, None, 1]",
    "x[None]",
    "x[..., None]",
    "x[10]",
    "x[-10]",
    "x[1:100]",
    "x[i]",
    "x[:, i]",
    "x[..., i]",
    "x[i, i]",
    "x[i, :, i]",
    "x[i, 1]",
    "x[1, i]",
    "x[:, 1, i]",
    "x[i, 1:3]",
    "x[i, ::-1]",
    "x[i, ::2]",
    "x[j]",
    "x[j, :, j]",
    "x[:, j, i[:2]]",
    "x[None, i]",
    "x[i, None]",
    "x[m]",
    "x[m2]",
    "x[:, m4]",
    "x[m, 1]",
    "x[(0, 1)]",
    "x[(i, [0, 1, 2])]",
    "x[np.int32(1)]",
    "x[jnp_int(1)]",
    "x[jnp_int(1), ::-1]",
    "x[jnp_int(1), ::2]",
    "x[jnp_int(1), 1:3]",
    "x[1:1]",
    "x[True]",
    "x[False]",
    "x[1, True]",
    "x[True, i]",
    "x[..., True]",
    "x[None, True, ::2]",
    "x[:, False, ..., False]",  # NumPy moves the two bools' axis to the front; JAX does not
    "x[:, True, ..., True]",
    "x[i[:0]]",
]

AT = [
    "x.at[1].set(0.0)",
    "x.at[i].add(1.0)",
    "x.at[i].add(jnp_ones((3, 4, 5)))",
    "x.at[:, i].multiply(2.0)",
    "x.at[i].get()",
    "x.at[np.array([0, 5])].get()",
    "x.at[np.array([0, 5])].get(mode='fill')",
    "x.at[np.array([0, 5])].get(mode='fill', fill_value=-1.0)",
    "x.at[np.array([0, 5])].get(mode='clip')",
    "x.at[np.array([0, 5])].add(100.0)",
    "x.at[np.array([0, 5])].add(100.0, mode='clip')",
    "x.at[np.array([0, 5])].set(7.0, mode='promise_in_bounds')",
    "x.at[1].min(3.0)",
    "x.at[i, 2].max(50.0)",
    "x.at[np.array([0, 0, 1])].add(1.0)",
    "x.at[np.array([0, 0, 1])].multiply(2.0)",
    "x.at[np.array([0, 0, 1])].min(-1.0)",
    "x.at[0].divide(2.0)",
    "x.at[0].power(2)",
    "x.at[0].subtract(1.0)",
    "x.at[m].set(0.0)",
    "x.at[::-1, 1].set(jnp_arange(3.0)[:, None])",
    "x.at[None, 1].set(9.0)",
    "x.at[1:3, ::2].add(1)",
    "x.at[0].apply(lambda v: v * 2)",
    "x.at[True].set(1.0)",
    "x.at[0, False].add(1.0)",
    "x.at[1, True, i].multiply(3.0)",
    "x.at[np.array([0, 0, 2])].apply(lambda v: v + 1)",
    "x.at[i, ::-1].apply(np_sin)",
    "xi.at[1].apply(lambda v: v * 3)",
    "x.at[i].set(3)",
    "xi.at[1].add(2)",
    "xi.at[i].max(7)",
    "xb.at[1].set(False)",
]


def _env(lib):
    np_ = lambda a: jnp.asarray(a) if lib == "jax" else dnp.asarray(a)  # noqa: E731
    mod = jnp if lib == "jax" else dnp
    return {
        "np": np,
        "np_sin": jnp.sin if lib == "jax" else dnp.sin,
        "i": np_(I),
        "j": np_(J),
        "m": np_(M),
        "m2": np_(M2),
        "m4": np_(M2[0]),
        "jnp_int": lambda v: mod.asarray(v, mod.int32),
        "jnp_ones": lambda s: mod.ones(s),
        "jnp_arange": lambda v: mod.arange(v),
        "xi": np_(X.astype(np.int32)),
        "xb": np_(X.astype(np.int32) % 2 == 0),
    }


def _fn(expr: str, lib: str):
    env = _env(lib)
    return lambda x: eval(expr, env, {"x": x})  # noqa: S307 - the test's own expressions


def _check(expr: str, jitted: Any, want: Any) -> None:
    """`expr` eagerly, and `jitted` (its `jit` on X), against JAX's `want`; and its jaxpr."""
    x_np = X
    got = _fn(expr, "didax")(dnp.asarray(x_np))
    assert isinstance(got, didax.Array)
    assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    assert (jitted.shape, jitted.dtype) == (want.shape, want.dtype)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(want), rtol=1e-6)
    jax_text = str(jax.make_jaxpr(_fn(expr, "jax"))(jnp.asarray(x_np)))
    didax_text = str(didax.make_jaxpr(_fn(expr, "didax"))(dnp.asarray(x_np)))
    if expr in KNOWN_DIFFERENT:
        assert canonical(jax_text) != canonical(didax_text), f"{expr} now matches JAX"
    else:
        assert canonical(jax_text) == canonical(didax_text), (
            f"\n--- jax\n{jax_text}\n--- didax\n{didax_text}"
        )


KNOWN_DIFFERENT: set[str] = {
    # same equations; JAX makes the list's array a constant when it converts it, before the
    # other index is normalized, so the two constvars come in the other order
    "x[(i, [0, 1, 2])]",
}


# Each table's `jit`s are compiled as one program (helpers/grouped.py). Checked when grouped
# (2026-11-26): every result has the bits of its own `jit`.
def _jit_on_x(exprs: list[str], lib: str) -> Grouped:
    x = jnp.asarray(X) if lib == "jax" else dnp.asarray(X)
    return Grouped(
        jax.jit if lib == "jax" else didax.jit, lambda: [(_fn(e, lib), (x,)) for e in exprs]
    )


JITTED_GETITEM, JITTED_AT = _jit_on_x(GETITEM, "didax"), _jit_on_x(AT, "didax")
# JAX's answers as one program per table, not eager JAX (a compile per operation). Checked
# (2026-11-26): for all 84 expressions they have eager JAX's bits, dtypes and weak types.
JAX_GETITEM, JAX_AT = _jit_on_x(GETITEM, "jax"), _jit_on_x(AT, "jax")


@pytest.mark.parametrize("index", range(len(GETITEM)), ids=GETITEM)
def test_getitem_matches_jax(index: int) -> None:
    _check(GETITEM[index], JITTED_GETITEM.result(index), JAX_GETITEM.result(index))


@pytest.mark.parametrize("index", range(len(AT)), ids=AT)
def test_at_matches_jax(index: int) -> None:
    _check(AT[index], JITTED_AT.result(index), JAX_AT.result(index))


# expressions both libraries reject, with the same exception type
ERRORS = [
    "x[[0, 1]]",
    "x[1.0]",
    "x[i.astype(float)]",
    "x[..., 1, ...]",
    "x[1, 2, 3, 4]",
    "x['a']",
    "x[m[:2]]",
    "x.at[1].set(0.0, mode='nope')",
    "xb.at[i].add(True)",
    "x.at[np.array([0, 1])].get(fill_value=np.ones(2))",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_errors_match_jax(expr: str) -> None:
    with pytest.raises(Exception) as want:
        _fn(expr, "jax")(jnp.asarray(X))
    with pytest.raises(Exception) as got:
        _fn(expr, "didax")(dnp.asarray(X))
    builtin = next(t for t in type(want.value).__mro__ if t.__module__ == "builtins")
    assert isinstance(got.value, builtin), f"jax raised {want.value!r}, didax {got.value!r}"


# ----------------------------------------------------------------------------- transformations

GRAD = [
    "x[1]",
    "x[::-1, 1]",
    "x[i]",
    "x[i, :, i]",
    "x[m2]",
    "x[jnp_int(1)]",
    "x.at[np.array([0, 0, 1])].get(mode='fill', fill_value=0.0)",
    "x.at[np.array([0, 5])].get(mode='clip')",
    "x.at[i].set(x[0] * 2)",
    "x.at[np.array([0, 0, 1])].add(x[2])",
    "x.at[:, i].multiply(3.0)",
    "x.at[1].multiply(x[0], unique_indices=True)",
    "x.at[np.array([0, 2])].min(x[1])",
    "x.at[np.array([0, 2])].max(30.0)",
    "x.at[0].subtract(x[1])",
    "x.at[0].divide(x[1] + 1)",
]


def _loss(expr: str, lib: str):
    f = _fn(expr, lib)
    mod = jnp if lib == "jax" else dnp
    return lambda x: mod.sum(mod.sin(f(x)))


JITTED_GRAD = Grouped(
    didax.jit, lambda: [(didax.grad(_loss(e, "didax")), (dnp.asarray(X),)) for e in GRAD]
)
XS = np.stack([X, X[::-1] * 0.5])
JITTED_VMAP = Grouped(
    didax.jit, lambda: [(didax.vmap(_fn(e, "didax")), (dnp.asarray(XS),)) for e in GRAD]
)
# JAX's gradients and vmaps likewise, one program per table, not eager JAX (a compile per
# operation: up to 23 a test).
JAX_GRAD = Grouped(jax.jit, lambda: [(jax.grad(_loss(e, "jax")), (jnp.asarray(X),)) for e in GRAD])
JAX_VMAP = Grouped(jax.jit, lambda: [(jax.vmap(_fn(e, "jax")), (jnp.asarray(XS),)) for e in GRAD])


@pytest.mark.parametrize("index", range(len(GRAD)), ids=GRAD)
def test_grad_matches_jax(index: int) -> None:
    expr = GRAD[index]
    want = JAX_GRAD.result(index)
    got = didax.grad(_loss(expr, "didax"))(dnp.asarray(X))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-5)
    got_jit = JITTED_GRAD.result(index)
    np.testing.assert_allclose(np.asarray(got_jit), np.asarray(want), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("index", range(len(GRAD)), ids=GRAD)
def test_vmap_matches_jax(index: int) -> None:
    expr, xs = GRAD[index], XS
    want = JAX_VMAP.result(index)
    got = didax.vmap(_fn(expr, "didax"))(dnp.asarray(xs))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    got_jit = JITTED_VMAP.result(index)
    np.testing.assert_allclose(np.asarray(got_jit), np.asarray(want), rtol=1e-6)


def _batched_index_outputs(mod, vmap):
    idx = mod.asarray(np.array([[0, 2], [1, -1]], np.int32))
    x0, xs = mod.asarray(X), mod.asarray(np.stack([X, X + 1]))
    return (
        vmap(lambda i: x0[i])(idx),
        vmap(lambda x, i: x[i, 1])(xs, idx),
        vmap(lambda x, i: x.at[i].add(1.0))(xs, idx),
        vmap(lambda i: x0.at[i].set(0.0))(idx),
        vmap(lambda x, i: x[i[0]])(xs, idx),
        vmap(lambda x, i: x.at[i[1], 2].max(i[0] * 1.0))(xs, idx),
    )


def test_vmap_of_batched_indices_matches_jax() -> None:
    # JAX's side as one program (eagerly, each of its operations is a compile of its own)
    want = jax_quick(lambda: _batched_index_outputs(jnp, jax.vmap))
    got = _batched_index_outputs(dnp, didax.vmap)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w))


def test_boolean_mask_under_jit_raises_as_jax() -> None:
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError):
        jax.jit(lambda x: x[x > 3])(jnp.asarray(X))
    from didax.numpy.indexing import NonConcreteBooleanIndexError

    with pytest.raises(NonConcreteBooleanIndexError, match=r"bool\[3,4,5\]") as info:
        didax.jit(lambda x: x[x > 3])(dnp.asarray(X))
    assert isinstance(info.value, IndexError)
    eager = dnp.asarray(X)[dnp.asarray(X) > 50]  # a concrete mask works eagerly
    np.testing.assert_array_equal(np.asarray(eager), X[X > 50])


TRACED_INDEX = [
    "x[k]",
    "x[k, 2]",
    "x[1, k]",
    "x[k, ::-1]",
    "x[k, i]",
    "x[i, k]",
    "x.at[k].set(0.0)",
    "x.at[k, i].add(1.0)",
    "x.at[k].get(mode='fill', fill_value=0.0)",
]


SCALARS = (1, -1, np.int32(2), 7)


def _traced_index_fn(expr: str, lib: str):
    env = _env(lib)
    return lambda x, k: eval(expr, env, {"x": x, "k": k})  # noqa: S307


def _traced_index_calls(lib: str) -> list[Any]:
    x = jnp.asarray(X) if lib == "jax" else dnp.asarray(X)
    return [(_traced_index_fn(e, lib), (x, k)) for e in TRACED_INDEX for k in SCALARS]


# both libraries' `jit`s of a table as one program each; checked when grouped (2026-11-26):
# every result has the bits of its own `jit`
JAX_TRACED_INDEX = Grouped(jax.jit, lambda: _traced_index_calls("jax"))
DIDAX_TRACED_INDEX = Grouped(didax.jit, lambda: _traced_index_calls("didax"))


@pytest.mark.parametrize("index", range(len(TRACED_INDEX)), ids=TRACED_INDEX)
def test_traced_scalar_index_matches_jax(index: int) -> None:
    expr = TRACED_INDEX[index]
    for n in range(index * len(SCALARS), (index + 1) * len(SCALARS)):
        want, got = JAX_TRACED_INDEX.result(n), DIDAX_TRACED_INDEX.result(n)
        assert (got.shape, got.dtype) == (want.shape, want.dtype)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want))
    jax_text = str(jax.make_jaxpr(_traced_index_fn(expr, "jax"))(jnp.asarray(X), 1))
    didax_text = str(didax.make_jaxpr(_traced_index_fn(expr, "didax"))(dnp.asarray(X), 1))
    assert canonical(jax_text) == canonical(didax_text), (
        f"\n--- jax\n{jax_text}\n--- didax\n{didax_text}"
    )


TAKE = [
    "mod.take(x, np.array([0, 2, -1, 5]), axis=1)",
    "mod.take(x, np.array([0, 2, -1, 70]))",
    "mod.take(x, np.array([[0, 2], [-1, 5]]), axis=0, mode='clip')",
    "mod.take(x, np.array([0, 2, -1, 5]), axis=-1, mode='wrap')",
    "mod.take(x, np.array([0, 9]), axis=2, fill_value=-1.0)",
    "mod.take(x, 1, axis=1)",
    "mod.take_along_axis(x, np.array([[[0], [1], [2], [-1]]] * 3), axis=2)",
    "mod.take_along_axis(x, np.array([[[0, 1, 2, 3, 4]], [[4, 3, 2, 1, 0]], [[9, 0, 0, 0, 0]]]), axis=1)",
    "mod.take_along_axis(x, np.array([[[0]], [[1]], [[2]]]), axis=1)",
    "mod.take_along_axis(x, np.array([5, 0, 59]), axis=None)",
    "mod.take_along_axis(x[:, :1], np.array([[[0, 4]] * 4] * 3), axis=2)",
    "mod.take_along_axis(x, np.array([[[0]], [[7]], [[2]]]), axis=1, mode='clip')",
]


def _take_fn(expr: str, lib: str):
    env = {"np": np, "mod": jnp if lib == "jax" else dnp}
    return lambda x: eval(expr, env, {"x": x})  # noqa: S307


JITTED_TAKE = Grouped(didax.jit, lambda: [(_take_fn(e, "didax"), (dnp.asarray(X),)) for e in TAKE])


def _take_and_grad(expr):
    f = _take_fn(expr, "jax")
    return lambda x: (f(x), jax.grad(lambda x: jnp.sum(jnp.sin(f(x))))(x))


# JAX's values and gradients, one program (helpers/oracle.py: eagerly, each of JAX's
# operations is a compile of its own)
JAX_TAKE = EagerJax(lambda: [(_take_and_grad(e), (X,), {}) for e in TAKE])


@pytest.mark.parametrize("index", range(len(TAKE)), ids=TAKE)
def test_take_matches_jax(index: int) -> None:
    expr = TAKE[index]
    fn = lambda lib: _take_fn(expr, lib)  # noqa: E731

    want, g_want = JAX_TAKE.result(index)
    for got in (fn("didax")(dnp.asarray(X)), JITTED_TAKE.result(index)):
        assert (got.shape, got.dtype) == (want.shape, want.dtype)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want))
    jax_text = str(jax.make_jaxpr(fn("jax"))(jnp.asarray(X)))
    didax_text = str(didax.make_jaxpr(fn("didax"))(dnp.asarray(X)))
    assert canonical(jax_text) == canonical(didax_text), (
        f"\n--- jax\n{jax_text}\n--- didax\n{didax_text}"
    )
    g_got = didax.grad(lambda x: dnp.sum(dnp.sin(fn("didax")(x))))(dnp.asarray(X))
    np.testing.assert_allclose(np.asarray(g_got), np.asarray(g_want), rtol=1e-5, atol=1e-6)


def test_apply_is_not_differentiable_as_in_jax() -> None:
    with pytest.raises(NotImplementedError, match="scatter_apply JVP"):
        jax.grad(lambda x: jnp.sum(x.at[0].apply(jnp.sin)))(jnp.asarray(X))
    with pytest.raises(NotImplementedError, match="scatter_apply JVP"):
        didax.grad(lambda x: dnp.sum(x.at[0].apply(dnp.sin)))(dnp.asarray(X))
    xs = np.stack([X, -X])
    want = jax.vmap(lambda x: x.at[1, 2].apply(jnp.cos))(jnp.asarray(xs))
    got = didax.vmap(lambda x: x.at[1, 2].apply(dnp.cos))(dnp.asarray(xs))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
