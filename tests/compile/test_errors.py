"""Errors of compilation, as a user meets them: Python control flow on a traced value, a
non-array argument, a primitive that cannot be lowered, a lowering rule that fails."""

from __future__ import annotations

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import core
from didax.interpreters.lowering import LoweringError


def test_python_if_on_a_traced_value_is_a_concretization_error() -> None:
    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(didax.ConcretizationTypeError) as info:
        didax.jit(f)(1.0)
    assert isinstance(info.value, TypeError)
    message = str(info.value) + "\n".join(getattr(info.value, "__notes__", []))
    assert "boolean conversion" in message  # the operation
    assert "lax.cond" in message and "static_argnums" in message  # the ways out
    assert "tracing f" in message  # the function


@pytest.mark.parametrize(
    "use,error",
    [
        (int, didax.errors.ConcretizationTypeError),
        (float, didax.errors.ConcretizationTypeError),
        (lambda x: np.asarray(x), didax.errors.TracerArrayConversionError),
        (lambda x: range(x), didax.errors.TracerIntegerConversionError),
    ],
)
def test_other_concrete_uses_of_a_traced_value(use, error) -> None:
    with pytest.raises(error) as info:
        didax.jit(lambda x: use(x))(3)
    assert "static_argnums" in "\n".join(info.value.__notes__)  # jit's note: the ways out


def test_static_argnums_is_the_way_out() -> None:
    def f(x, flag):
        return x if flag > 0 else -x

    assert float(didax.jit(f, static_argnums=1)(2.0, 1)) == 2.0
    assert float(didax.jit(f, static_argnums=1)(2.0, -1)) == -2.0


@pytest.mark.oracle
def test_concretization_error_type_matches_jax() -> None:
    jax = pytest.importorskip("jax")
    with pytest.raises(TypeError):
        jax.jit(lambda x: 1 if x > 0 else 2)(1.0)
    with pytest.raises(TypeError):
        didax.jit(lambda x: 1 if x > 0 else 2)(1.0)


def test_string_argument_names_the_argument() -> None:
    def f(x, label):
        return x

    with pytest.raises(TypeError, match="argument 'label' of jitted function f") as info:
        didax.jit(f)(1.0, "hello")
    assert "str" in str(info.value) and "static_argnums" in str(info.value)
    assert float(didax.jit(f, static_argnums=1)(1.0, "hello")) == 1.0


def test_string_keyword_argument_names_it() -> None:
    with pytest.raises(TypeError, match="argument 'label'"):
        didax.jit(lambda x, label=None: x)(1.0, label="hi")


def test_non_callable() -> None:
    with pytest.raises(TypeError, match="Expected a callable"):
        didax.jit(3)


def _user_primitive(name: str) -> core.Primitive:
    prim = core.Primitive(name)
    prim.def_impl(lambda x: [np.asarray(x) * 2])
    prim.def_abstract_eval(lambda x: [x])
    return prim


def test_missing_lowering_rule_names_the_primitive() -> None:
    foo_p = _user_primitive("foo")
    assert float(foo_p.bind(1.5)) == 3.0  # evaluates eagerly
    with pytest.raises(
        NotImplementedError, match="MLIR translation rule for primitive 'foo' not found"
    ):
        didax.jit(lambda x: foo_p.bind(x))(1.5)


def test_failing_lowering_rule_names_the_primitive() -> None:
    bar_p = _user_primitive("bar")
    core.lowering_rules.register(
        bar_p, lambda ctx, x: [ctx.hlo.add(x, ctx.constant(np.ones(5, np.float32)))]
    )
    with pytest.raises(LoweringError, match=r"lowering 'bar' on \(f32\[3\]\)"):
        didax.jit(lambda x: bar_p.bind(x))(np.ones(3, np.float32))
    assert issubclass(LoweringError, ValueError)


def test_lowering_rule_with_a_wrong_result_type_names_the_primitive() -> None:
    baz_p = _user_primitive("baz")
    core.lowering_rules.register(
        baz_p,
        lambda ctx, x: [
            ctx.hlo.convert(ctx.tensor_type(ctx.avals_out[0].update(dtype=np.int32)), x)
        ],
    )
    with pytest.raises(
        LoweringError,
        match="rule for 'baz' returned a value of type "
        r"tensor<3xi32> for an output of type f32\[3\]",
    ):
        didax.jit(lambda x: baz_p.bind(x))(np.ones(3, np.float32))


def test_a_failed_trace_leaves_the_cache_and_trace_state_clean() -> None:
    calls = []

    def f(x):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("first call fails")
        return jnp.sin(x)

    jf = didax.jit(f)
    with pytest.raises(RuntimeError):
        jf(1.0)
    assert jf._cache_size() == 0
    assert len(core.trace_state().stack) == 1 and core.trace_state().dynamic is None
    assert float(jf(0.0)) == 0.0
