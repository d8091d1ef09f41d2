"""Ahead-of-time inspection: `jit(f).lower(x)` -> StableHLO text; `.compile()` -> XLA's
optimized HLO, its cost analysis, a callable; and the time of each phase."""

from __future__ import annotations

import re

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import lax

X = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)


def f(x):
    return jnp.sum(jnp.sin(x) * 2.0 + x @ x.T[:, :1], axis=0)


def test_lowered_text_is_a_stablehlo_module_with_the_expected_ops() -> None:
    text = didax.jit(f).lower(X).as_text()
    assert text.startswith("module @jit_f")
    assert "func.func public @main(%arg0: tensor<2x4xf32>) -> tensor<4xf32>" in text
    for op in (
        "stablehlo.sine",
        "stablehlo.multiply",
        "stablehlo.dot_general",
        "stablehlo.transpose",
        "stablehlo.slice",
        "stablehlo.reduce",
        "stablehlo.add",
    ):
        assert op in text, op


@pytest.mark.parametrize(
    "fn, ops",
    [
        (lambda x: lax.cos(x), ["stablehlo.cosine"]),
        (
            lambda x: jnp.exp(x) + jnp.log1p(x * x),
            ["stablehlo.exponential", "stablehlo.log_plus_one"],
        ),
        (lambda x: jnp.max(x, axis=1), ["stablehlo.reduce", "stablehlo.maximum"]),
        (
            lambda x: jnp.argmax(x, axis=1),
            ["stablehlo.reduce", "stablehlo.iota", "stablehlo.select"],
        ),
        (lambda x: jnp.where(x > 0, x, 0.0), ["stablehlo.compare GT", "stablehlo.select"]),
        (lambda x: x.astype(jnp.int32), ["stablehlo.convert"]),
        (lambda x: jnp.concatenate([x, x]), ["stablehlo.concatenate"]),
        (lambda x: x.reshape(8), ["stablehlo.reshape"]),
        (lambda x: x**3, ["stablehlo.multiply"]),
    ],
)
def test_each_primitive_lowers_to_its_stablehlo_op(fn, ops) -> None:
    text = didax.jit(fn).lower(X).as_text()
    for op in ops:
        assert op in text, f"{op} not in\n{text}"


def test_constants_are_emitted_once_per_function() -> None:
    c = np.arange(4, dtype=np.float32)

    def g(x):
        return (x + c) * c + 2.0 * x + 2.0

    text = didax.jit(g).lower(X).as_text()
    assert text.count("dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]>") == 1
    assert text.count("dense<2.000000e+00> : tensor<f32>") == 1


def test_compiled_text_cost_analysis_and_call() -> None:
    compiled = didax.jit(f).lower(X).compile()
    hlo = compiled.as_text()
    assert hlo.startswith("HloModule jit_f") and "ENTRY" in hlo
    assert re.search(r"sine|fusion", hlo)
    cost = compiled.cost_analysis()
    assert {"flops", "transcendentals", "bytes accessed"} <= set(cost)
    assert cost["flops"] > 0 and cost["transcendentals"] >= X.size
    np.testing.assert_allclose(np.asarray(compiled(X)), np.asarray(f(X)), rtol=1e-5, atol=1e-6)


def test_compiled_rejects_other_argument_types() -> None:
    compiled = didax.jit(f).lower(X).compile()
    with pytest.raises(TypeError, match="compiled for arguments of types"):
        compiled(np.ones((3, 4), np.float32))


def test_timings_of_each_phase() -> None:
    lowered = didax.jit(f).lower(X)
    assert set(lowered.timings) == {"trace", "lower"}
    compiled = lowered.compile()
    assert set(compiled.timings) == {"trace", "lower", "compile"}
    assert all(t > 0 for t in compiled.timings.values())


def _fresh_f():
    # a new function object: jit objects of one function share its cache (as in JAX), so a
    # test that counts compilations must not reuse `f`, which other tests compile
    return lambda x: f(x)


def test_lower_shares_the_trace_of_the_jitted_function() -> None:
    jf = didax.jit(_fresh_f())
    jf(X)
    lowered = jf.lower(X)
    assert lowered.jaxpr is next(iter(jf._cache.values())).closed
    assert jf.compilations == 1  # lowering does not compile


def test_aot_compile_serves_the_next_call() -> None:
    # %jit times lower().compile() and then calls the function: that call must not compile again
    jf = didax.jit(_fresh_f())
    compiled = jf.lower(X).compile()
    np.testing.assert_allclose(np.asarray(jf(X)), np.asarray(compiled(X)))
    assert jf.compilations == 0


@pytest.mark.oracle
def test_cost_analysis_matches_jax() -> None:
    jax = pytest.importorskip("jax")

    def g(x):
        return x @ x.T + 1.0

    ours = didax.jit(g).lower(X).compile().cost_analysis()
    theirs = jax.jit(g).lower(X).compile().cost_analysis()
    assert ours["flops"] == theirs["flops"]
    assert ours["bytes accessed"] == theirs["bytes accessed"]


@pytest.mark.oracle
def test_stablehlo_ops_match_jax() -> None:
    jax = pytest.importorskip("jax")

    def ops(text: str) -> list[str]:
        return sorted(set(re.findall(r"stablehlo\.[a-z_]+", text)))

    def g(x):
        return jax.numpy.tanh(x) * 2.0 - x

    def dg(x):
        return jnp.tanh(x) * 2.0 - x

    assert ops(didax.jit(dg).lower(X).as_text()) == ops(jax.jit(g).lower(X).as_text())
