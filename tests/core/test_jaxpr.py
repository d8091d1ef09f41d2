"""The jaxpr IR: fields of make_jaxpr's ClosedJaxpr, typecheck's errors on hand-built
ill-typed jaxprs, and eval_jaxpr (which is itself traceable)."""

from __future__ import annotations

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import lax
from didax.core import ShapedArray
from didax.jaxpr import (
    ClosedJaxpr,
    Jaxpr,
    JaxprEqn,
    JaxprTypeError,
    Literal,
    Var,
    eval_jaxpr,
    typecheck,
)
from didax.primitives import elementwise, shape


def f32(*shape_: int) -> ShapedArray:
    return ShapedArray(shape_, np.float32)


def i32(*shape_: int) -> ShapedArray:
    return ShapedArray(shape_, np.int32)


X = np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(2, 3)


# ----------------------------------------------------------------------------- structure


def test_closed_jaxpr_fields() -> None:
    c = np.ones(3, np.float32)
    closed = didax.make_jaxpr(lambda x, y: (jnp.sin(x) * c + y, x))(np.ones(3, np.float32), 2.0)
    assert isinstance(closed, ClosedJaxpr)
    jaxpr = closed.jaxpr
    assert len(jaxpr.invars) == 2 and len(jaxpr.constvars) == 1 and len(jaxpr.outvars) == 2
    assert len(closed.consts) == 1 and np.array_equal(np.asarray(closed.consts[0]), c)
    assert [a.str_short() for a in closed.in_avals] == ["f32[3]", "f32[]"]
    assert closed.in_avals[1].weak_type
    assert [a.str_short() for a in closed.out_avals] == ["f32[3]", "f32[3]"]
    # the weak scalar input is made strong before it meets a float32 array, as in JAX
    assert [e.primitive.name for e in closed.eqns] == ["sin", "mul", "convert_element_type", "add"]
    assert jaxpr.outvars[1] is jaxpr.invars[0]
    mul = closed.eqns[1]
    assert mul.invars == [closed.eqns[0].outvars[0], jaxpr.constvars[0]]
    assert mul.params == {}


def test_python_scalar_constants_become_literals() -> None:
    closed = didax.make_jaxpr(lambda x: x * 3.0 + 1)(np.ones(3, np.float32))
    lits = [a for e in closed.eqns for a in e.invars if isinstance(a, Literal)]
    assert [(lit.val, lit.aval.str_short()) for lit in lits] == [(3.0, "f32[]"), (1.0, "f32[]")]
    assert closed.consts == []


def test_params_are_hashable_keyword_values() -> None:
    closed = didax.make_jaxpr(lambda x: jnp.sum(x, axis=1))(X)
    (eqn,) = closed.eqns
    assert eqn.primitive.name == "reduce_sum"
    assert eqn.params["axes"] == (1,)
    hash(tuple(sorted(eqn.params.items())))


# ----------------------------------------------------------------------------- typecheck


def test_typecheck_accepts_staged_jaxprs() -> None:
    def f(x, y):
        return jnp.dot(jnp.tanh(x), y.T).sum(axis=0), jnp.max(x) > 0.0

    closed = didax.make_jaxpr(f)(X, X)
    in_avals, out_avals = typecheck(closed.jaxpr)
    assert in_avals == closed.in_avals
    assert [a.str_short() for a in out_avals] == ["f32[2]", "bool[]"]


def test_typecheck_incompatible_shapes_names_primitive_types_and_equation() -> None:
    a, b, c = Var(f32(3)), Var(f32(4)), Var(f32(3))
    jaxpr = Jaxpr([], [a, b], [c], [JaxprEqn(elementwise.add_p, [a, b], [c], {})])
    with pytest.raises(JaxprTypeError) as info:
        typecheck(jaxpr)
    msg = str(info.value)
    assert "add" in msg and "(3,)" in msg and "(4,)" in msg
    assert "equation 0" in msg
    assert "> c:f32[3] = add a b" in msg
    assert isinstance(info.value, TypeError)


def test_typecheck_dtype_mismatch() -> None:
    a, b, c = Var(f32(3)), Var(i32(3)), Var(f32(3))
    jaxpr = Jaxpr([], [a, b], [c], [JaxprEqn(elementwise.mul_p, [a, b], [c], {})])
    with pytest.raises(
        JaxprTypeError, match="mul requires arguments to have the same dtypes, got float32, int32"
    ):
        typecheck(jaxpr)


def test_typecheck_literal_of_wrong_dtype() -> None:
    a, c = Var(f32(3)), Var(f32(3))
    two = Literal(2, i32())
    jaxpr = Jaxpr([], [a], [c], [JaxprEqn(elementwise.mul_p, [a, two], [c], {})])
    with pytest.raises(JaxprTypeError) as info:
        typecheck(jaxpr)
    assert "2:i32[]" in str(info.value) and "float32, int32" in str(info.value)


def test_typecheck_wrong_output_type_names_both_types() -> None:
    a, b = Var(f32(3)), Var(f32(4))
    jaxpr = Jaxpr([], [a], [b], [JaxprEqn(elementwise.sin_p, [a], [b], {})])
    with pytest.raises(JaxprTypeError) as info:
        typecheck(jaxpr)
    msg = str(info.value)
    assert msg.startswith("sin:") and "f32[4]" in msg and "f32[3]" in msg
    assert "> b:f32[4] = sin a" in msg


def test_typecheck_wrong_output_dtype() -> None:
    a, b = Var(f32(3)), Var(i32(3))
    jaxpr = Jaxpr([], [a], [b], [JaxprEqn(elementwise.cos_p, [a], [b], {})])
    with pytest.raises(JaxprTypeError, match=r"cos: output type i32\[3\] does not match"):
        typecheck(jaxpr)


def test_typecheck_unbound_variable_names_it_and_shows_neighbours() -> None:
    a, b, c, d, e = Var(f32(3)), Var(f32(3)), Var(f32(3)), Var(f32(3)), Var(f32(3))
    ghost = Var(f32(3))
    eqns = [
        JaxprEqn(elementwise.sin_p, [a], [b], {}),
        JaxprEqn(elementwise.cos_p, [b], [c], {}),
        JaxprEqn(elementwise.mul_p, [c, ghost], [d], {}),
        JaxprEqn(elementwise.neg_p, [d], [e], {}),
    ]
    jaxpr = Jaxpr([], [a], [e], eqns)
    with pytest.raises(JaxprTypeError) as info:
        typecheck(jaxpr)
    msg = str(info.value)
    assert "used before it is bound" in msg and "equation 2" in msg
    lines = msg.splitlines()
    marked = [ln for ln in lines if ln.startswith("> ")]
    assert len(marked) == 1 and " = mul " in marked[0]
    # the neighbouring equations are printed too, unmarked
    assert any(" = cos " in ln for ln in lines) and any(" = neg " in ln for ln in lines)
    # the name in the message is the name the equation prints for the variable
    name = marked[0].split()[-1]
    assert f"variable {name}:f32[3]" in msg


def test_typecheck_variable_bound_twice() -> None:
    a, b = Var(f32(3)), Var(f32(3))
    eqns = [JaxprEqn(elementwise.sin_p, [a], [b], {}), JaxprEqn(elementwise.cos_p, [a], [b], {})]
    with pytest.raises(JaxprTypeError, match=r"variable b:f32\[3\] bound twice.*equation 1"):
        typecheck(Jaxpr([], [a], [b], eqns))
    with pytest.raises(JaxprTypeError, match=r"variable a:f32\[3\] bound twice.*invars"):
        typecheck(Jaxpr([], [a, a], [a], []))


def test_typecheck_unbound_output() -> None:
    a, b, ghost = Var(f32(3)), Var(f32(3)), Var(f32(2))
    jaxpr = Jaxpr([], [a], [ghost], [JaxprEqn(elementwise.sin_p, [a], [b], {})])
    with pytest.raises(JaxprTypeError, match=r"output variable .*:f32\[2\] is not bound"):
        typecheck(jaxpr)


def test_typecheck_wrong_number_of_outputs() -> None:
    a, b, c = Var(f32(3)), Var(f32(3)), Var(f32(3))
    jaxpr = Jaxpr([], [a], [b], [JaxprEqn(elementwise.sin_p, [a], [b, c], {})])
    with pytest.raises(
        JaxprTypeError, match="sin: the equation binds 2 outputs but its rule gives 1"
    ):
        typecheck(jaxpr)


def test_typecheck_bad_params() -> None:
    a, b = Var(f32(2, 3)), Var(f32(3))
    eqn = JaxprEqn(shape.reduce_sum_p, [a], [b], {"axes": (5,), "out_sharding": None})
    with pytest.raises(JaxprTypeError) as info:
        typecheck(Jaxpr([], [a], [b], [eqn]))
    assert "reduce_sum" in str(info.value)


def test_typecheck_constvars_are_bound() -> None:
    k, a, b = Var(f32(3)), Var(f32(3)), Var(f32(3))
    jaxpr = Jaxpr([k], [a], [b], [JaxprEqn(elementwise.add_p, [k, a], [b], {})])
    assert typecheck(jaxpr) == ([f32(3)], [f32(3)])


def test_typecheck_weak_type_differences_are_fine() -> None:
    # a weakly typed f32 fits where f32 is expected, as in JAX
    a, b = Var(ShapedArray((), np.float32, weak_type=True)), Var(f32())
    jaxpr = Jaxpr([], [a], [b], [JaxprEqn(elementwise.sin_p, [a], [b], {})])
    typecheck(jaxpr)


# ----------------------------------------------------------------------------- eval_jaxpr


def _program(x, y):
    z = jnp.sin(x) * y + jnp.exp(-x)
    return jnp.sum(z * z, axis=1), jnp.mean(y)


def test_eval_jaxpr_equals_the_function() -> None:
    y = X * 2.0 + 1.0
    closed = didax.make_jaxpr(_program)(X, y)
    got = eval_jaxpr(closed.jaxpr, closed.consts, X, y)
    want = _program(X, y)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def test_eval_jaxpr_with_consts() -> None:
    c = np.arange(3, dtype=np.float32)
    closed = didax.make_jaxpr(lambda x: x * c + jnp.asarray(c))(X)
    assert len(closed.jaxpr.constvars) >= 1
    (got,) = eval_jaxpr(closed.jaxpr, closed.consts, X)
    np.testing.assert_allclose(np.asarray(got), X * c + c, rtol=1e-6)


def test_eval_jaxpr_wrong_number_of_args() -> None:
    closed = didax.make_jaxpr(jnp.sin)(X)
    with pytest.raises(TypeError, match="takes 1 arguments, got 2"):
        eval_jaxpr(closed.jaxpr, closed.consts, X, X)


def _as_fn(closed: ClosedJaxpr):
    return lambda *args: eval_jaxpr(closed.jaxpr, closed.consts, *args)


def test_eval_jaxpr_under_jvp() -> None:
    f = lambda x: jnp.sin(x) * x
    closed = didax.make_jaxpr(f)(X)
    t = np.ones_like(X)
    (p1,), (t1,) = didax.jvp(_as_fn(closed), (X,), (t,))
    p2, t2 = didax.jvp(f, (X,), (t,))
    np.testing.assert_allclose(np.asarray(p1), np.asarray(p2), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(t1), np.asarray(t2), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(t1), np.cos(X) * X + np.sin(X), rtol=1e-5)


def test_eval_jaxpr_under_vmap() -> None:
    row = X[0]
    closed = didax.make_jaxpr(lambda r: jnp.sum(jnp.sin(r) * r))(row)
    (got,) = didax.vmap(_as_fn(closed))(X)
    np.testing.assert_allclose(np.asarray(got), np.sum(np.sin(X) * X, axis=1), rtol=1e-5)


def test_eval_jaxpr_under_make_jaxpr_reproduces_the_program() -> None:
    closed = didax.make_jaxpr(_program)(X, X)
    again = didax.make_jaxpr(_as_fn(closed))(X, X)
    assert str(again) == str(closed)


def test_eval_jaxpr_of_jvp_jaxpr_under_vmap() -> None:
    closed = didax.make_jaxpr(lambda x, t: didax.jvp(jnp.tanh, (x,), (t,)))(X[0], X[0])
    primal, tangent = didax.vmap(_as_fn(closed))(X, np.ones_like(X))
    np.testing.assert_allclose(np.asarray(primal), np.tanh(X), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(tangent), 1 - np.tanh(X) ** 2, rtol=1e-4, atol=1e-6)


def test_user_interpreter_over_a_jaxpr() -> None:
    # a user's own interpreter: count the primitives a program applies, by name
    closed = didax.make_jaxpr(lambda x: jnp.sin(jnp.sin(x)) + lax.cos(x))(X)
    counts: dict[str, int] = {}
    for eqn in closed.eqns:
        counts[eqn.primitive.name] = counts.get(eqn.primitive.name, 0) + 1
    assert counts == {"sin": 2, "cos": 1, "add": 1}
