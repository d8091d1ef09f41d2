"""Trace state: one ContextVar, reset after every transformation, even one that raises;
threads never see each other's traces; leaked tracers and concretization errors."""

from __future__ import annotations

import re
import threading

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import core


class Boom(Exception):
    pass


def _raise_midway(x):
    y = jnp.sin(x) * 2.0
    raise Boom(y)


def _assert_default() -> None:
    state = core.trace_state()
    assert len(state.stack) == 1 and state.stack[0].trace_type is core.EvalTrace
    assert state.dynamic is None


X = np.arange(3, dtype=np.float32)

TRANSFORMS = {
    "make_jaxpr": lambda f: didax.make_jaxpr(f)(X),
    "jvp": lambda f: didax.jvp(f, (X,), (X,)),
    "vmap": lambda f: didax.vmap(f)(X),
    "jvp_of_vmap": lambda f: didax.jvp(didax.vmap(f), (X,), (X,)),
    "make_jaxpr_of_jvp": lambda f: didax.make_jaxpr(lambda x: didax.jvp(f, (x,), (x,)))(X),
    "vmap_of_make_jaxpr_eval": lambda f: didax.vmap(
        lambda x: didax.eval_jaxpr(didax.make_jaxpr(f)(x).jaxpr, [], x)
    )(X),
}


def test_default_state_outside_any_transformation() -> None:
    _assert_default()


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_exception_midway_leaves_default_state(name: str) -> None:
    with pytest.raises(Boom):
        TRANSFORMS[name](_raise_midway)
    _assert_default()
    # and eager evaluation still works as usual
    assert isinstance(jnp.sin(X), didax.Array)


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_state_restored_after_success(name: str) -> None:
    TRANSFORMS[name](lambda x: jnp.cos(x) + 1.0)
    _assert_default()


def test_state_inside_nested_transformations_is_a_stack() -> None:
    seen = []

    def f(x):
        seen.append(core.trace_state())
        return x * 2.0

    didax.jvp(lambda x: didax.vmap(f)(x), (X,), (X,))
    (state,) = seen
    assert [m.trace_type.__name__ for m in state.stack] == ["EvalTrace", "JVPTrace", "BatchTrace"]
    assert [m.level for m in state.stack] == [0, 1, 2]
    assert state.dynamic is None


def test_make_jaxpr_sets_the_dynamic_trace() -> None:
    seen = []

    def f(x):
        seen.append(core.trace_state())
        return x

    didax.make_jaxpr(f)(X)
    assert seen[0].dynamic is seen[0].stack[-1]


def test_threads_do_not_see_each_others_traces() -> None:
    inside = threading.Event()
    checked = threading.Event()
    results: dict[str, object] = {}

    def tracing_thread() -> None:
        def f(x):
            inside.set()
            checked.wait(timeout=10)
            results["tracer_state_depth"] = len(core.trace_state().stack)
            return jnp.sin(x)

        results["jaxpr"] = didax.make_jaxpr(f)(X)

    t = threading.Thread(target=tracing_thread)
    t.start()
    assert inside.wait(timeout=10)
    try:
        # while the other thread is in the middle of make_jaxpr, this thread evaluates eagerly
        results["state"] = core.trace_state()
        results["value"] = jnp.sin(X)
    finally:
        checked.set()
        t.join(timeout=10)
    assert results["state"] is core.trace_state()  # this thread's default state
    assert len(results["state"].stack) == 1 and results["state"].dynamic is None
    assert isinstance(results["value"], didax.Array)
    np.testing.assert_allclose(np.asarray(results["value"]), np.sin(X), rtol=1e-6)
    assert results["tracer_state_depth"] == 2
    assert [e.primitive.name for e in results["jaxpr"].eqns] == ["sin"]


def test_trace_in_two_threads_at_once() -> None:
    barrier = threading.Barrier(2, timeout=10)
    out: dict[int, didax.ClosedJaxpr] = {}

    def run(i: int) -> None:
        def f(x):
            y = jnp.sin(x) if i == 0 else jnp.cos(x)
            barrier.wait()  # both traces are live at once
            return y * float(i + 1)

        out[i] = didax.make_jaxpr(f)(X)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert [e.primitive.name for e in out[0].eqns] == ["sin", "mul"]
    assert [e.primitive.name for e in out[1].eqns] == ["cos", "mul"]
    _assert_default()


# ----------------------------------------------------------------------------- leaked tracers


@pytest.mark.parametrize("name", ["make_jaxpr", "jvp", "vmap"])
def test_leaked_tracer_used_later_raises(name: str) -> None:
    leaked = []

    def f(x):
        leaked.append(x)
        return jnp.sin(x)

    TRANSFORMS[name](f)
    with pytest.raises(didax.UnexpectedTracerError, match="unexpected tracer"):
        jnp.sin(leaked[0])
    with pytest.raises(didax.UnexpectedTracerError):
        leaked[0] + 1.0
    _assert_default()


def test_leaked_tracer_used_in_a_later_transformation_raises() -> None:
    leaked = []
    didax.make_jaxpr(lambda x: leaked.append(x) or x)(X)
    with pytest.raises(didax.UnexpectedTracerError):
        didax.make_jaxpr(lambda x: x + leaked[0])(X)
    _assert_default()


def test_leaked_tracer_of_inner_transformation_inside_outer_one_raises() -> None:
    leaked = []

    def outer(x):
        didax.jvp(lambda y: leaked.append(y) or y, (x,), (x,))
        return x * leaked[0]  # the inner jvp has returned: its tracer is dead

    with pytest.raises(didax.UnexpectedTracerError):
        didax.make_jaxpr(outer)(X)
    _assert_default()


# ----------------------------------------------------------------------------- concretization


def test_python_if_on_traced_value_raises_concretization_type_error() -> None:
    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(didax.ConcretizationTypeError, match="boolean conversion") as info:
        didax.make_jaxpr(f)(1.0)
    assert isinstance(info.value, TypeError)
    assert "bool[]" in str(info.value)
    _assert_default()


@pytest.mark.parametrize(
    "op,error,what",
    [
        (int, didax.errors.ConcretizationTypeError, "`int` function"),
        (float, didax.errors.ConcretizationTypeError, "`float` function"),
        (lambda x: np.asarray(x), didax.errors.TracerArrayConversionError, "__array__()"),
        (lambda x: range(x), didax.errors.TracerIntegerConversionError, "__index__()"),
    ],
)
def test_other_concretizations_name_the_operation(op, error, what) -> None:
    with pytest.raises(error, match=re.escape(what)):
        didax.make_jaxpr(lambda x: op(x))(np.int32(3))
    _assert_default()


def test_concrete_values_under_jvp_and_vmap_of_unmapped() -> None:
    # jvp keeps concrete primals: Python control flow on them works, as in JAX
    def f(x):
        return x * 2.0 if x > 0 else -x

    primal, tangent = didax.jvp(f, (3.0,), (1.0,))
    assert float(primal) == 6.0 and float(tangent) == 2.0
    primal, tangent = didax.jvp(f, (-3.0,), (1.0,))
    assert float(primal) == 3.0 and float(tangent) == -1.0


def test_bool_of_batched_value_raises() -> None:
    with pytest.raises(didax.ConcretizationTypeError):
        didax.vmap(lambda x: x if x > 0 else -x)(X)
    _assert_default()
