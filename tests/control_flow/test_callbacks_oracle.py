"""Oracle: host callbacks (issue 24, item 4) against JAX 0.10.2: `pure_callback` eagerly and
under jit (one host-callback path with `debug.print`), its jaxpr, every `vmap_method` (the
values, what the callback sees, the batched jaxpr), its errors (no JVP, wrong result shape or
dtype, an unknown vmap_method); `debug.callback` eagerly, under jit, vmap and grad; and
`effects_barrier`.
"""

from __future__ import annotations

import re

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from helpers.jaxpr_text import canonical

jax = pytest.importorskip("jax")
jnp = jax.numpy

pytestmark = pytest.mark.oracle

LIBS = [(didax, dnp), (jax, jnp)]


def _text(jaxpr) -> str:
    return re.sub(r" at 0x\w+", " at 0x", canonical(str(jaxpr)))


def _host(x):
    return np.sin(np.asarray(x)) * 2


def _sin2(m):
    return lambda x: m.pure_callback(_host, m.ShapeDtypeStruct(x.shape, x.dtype), x)


def test_pure_callback_eager_and_jit():
    outs = []
    for m, np_ in LIBS:
        f = _sin2(m)
        outs.append([np.asarray(f(np_.arange(3.0))), np.asarray(m.jit(f)(np_.arange(3.0)))])
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-6)


def test_pure_callback_jaxpr_matches_jax():
    got, want = (_text(m.make_jaxpr(_sin2(m))(np_.arange(3.0))) for m, np_ in LIBS)
    assert got == want


def _pytree_callback(m) -> list:
    seen = []

    def host(x, *, scale):
        seen.append(type(x).__name__)
        return x, {"a": np.asarray(x) * scale}

    out_type = (m.ShapeDtypeStruct((), np.float32), {"a": m.ShapeDtypeStruct((), np.float32)})

    def f(x):
        return m.pure_callback(host, out_type, x, scale=2.0)

    outs = [f(np.float32(1.5)), m.jit(f)(np.float32(1.5))]
    return [[float(o[0]), float(o[1]["a"]), type(o[1]["a"]).__name__] for o in outs] + [seen]


def test_pure_callback_receives_arrays_and_returns_pytrees():
    got, want = (_pytree_callback(m) for m, _ in LIBS)
    rename = {"ArrayImpl": "Array"}
    want = [[rename.get(x, x) for x in row] for row in want]
    assert got == want
    assert got[-1] == ["Array", "Array"]


VMAP_METHODS = [
    "sequential",
    "sequential_unrolled",
    "expand_dims",
    "broadcast_all",
    "legacy_vectorized",
]


def _vmapped(m, np_, method):
    calls = []

    def host(x, y):
        calls.append((np.shape(x), np.shape(y)))
        return np.asarray(x) + np.asarray(y)

    def g(x, y):
        return m.pure_callback(host, m.ShapeDtypeStruct(x.shape, x.dtype), x, y, vmap_method=method)

    args = (np_.ones((2, 3)), np_.arange(3.0))
    out = m.vmap(g, in_axes=(0, None))(*args)
    text = _text(m.make_jaxpr(m.vmap(g, in_axes=(0, None)))(*args))
    return np.asarray(out).tolist(), calls, text


@pytest.mark.parametrize("method", VMAP_METHODS)
def test_pure_callback_vmap_methods_match_jax(method):
    got, want = (_vmapped(m, np_, method) for m, np_ in LIBS)
    assert got == want


def test_pure_callback_errors_match_jax():
    for m, np_ in LIBS:
        x = np_.arange(3.0)
        g = lambda x, m=m: m.pure_callback(_host, m.ShapeDtypeStruct(x.shape, x.dtype), x)  # noqa: E731
        with pytest.raises(NotImplementedError, match="Got vmap_method=None"):
            m.vmap(g)(np_.ones((2, 3)))
        with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
            m.grad(lambda x, g=g: g(x).sum())(x)
        with pytest.raises(ValueError, match="vmap_method must be on of the allowed methods"):
            m.pure_callback(_host, m.ShapeDtypeStruct((3,), np.float32), x, vmap_method="nope")
        for spec, what in (((4,), np.float32), "shape"), (((3,), np.int32), "dtype"):
            with pytest.raises(RuntimeError, match=f"Incorrect output {what} for return value #0"):
                m.pure_callback(_host, m.ShapeDtypeStruct(*spec), x)
        # a float64 result where float32 is promised is canonicalized, not refused
        out = m.pure_callback(lambda v: np.ones(3), m.ShapeDtypeStruct((3,), np.float32), x)
        assert np.asarray(out).dtype == np.float32


def test_pure_callback_error_under_jit_is_a_runtime_error():
    for m, np_ in LIBS:
        f = m.jit(lambda x, m=m: m.pure_callback(_host, m.ShapeDtypeStruct((4,), np.float32), x))
        with pytest.raises(RuntimeError, match="Incorrect output shape"):
            f(np_.arange(3.0))


def _debug_calls(m, np_):
    calls = []

    def cb(x, y=None):
        calls.append(
            (
                type(x).__name__ in ("Array", "ArrayImpl"),
                np.asarray(x).tolist(),
                y if y is None else np.asarray(y).tolist(),
            )
        )

    m.debug.callback(cb, np_.arange(2.0), y=3)
    m.jit(lambda x: m.debug.callback(cb, x, y=x * 2))(np_.arange(2.0))
    m.vmap(lambda x: m.debug.callback(cb, x))(np_.arange(2.0))
    g = m.grad(lambda x: (m.debug.callback(cb, x), x * 2)[1])(1.0)
    m.effects_barrier()
    text = _text(m.make_jaxpr(lambda x: m.debug.callback(cb, x, ordered=True))(1.0))
    return calls, float(g), text


def test_debug_callback_matches_jax():
    (calls_d, g_d, text_d), (calls_j, g_j, text_j) = (_debug_calls(m, np_) for m, np_ in LIBS)
    assert calls_d == calls_j
    assert g_d == g_j
    # JAX prints the flat callback's repr, didax its name
    text_j = re.sub(r"<function [\w.<>]*\._flat_callback at 0x>", "_flat_callback", text_j)
    assert text_d == text_j
    assert "effect=OrderedDebug" in text_d


def test_debug_print_still_prints_under_jit(capsys):
    didax.jit(lambda x: didax.debug.print("x={x}", x=x))(dnp.ones(2))
    assert capsys.readouterr().out == "x=[1. 1.]\n"
