"""Derivation provenance in the IR: each equation a transformation emits records the
equation of the transformed program it comes from and its role (source_info.py's
`Derivation`), through jvp, linearize, transposition, vmap, nested jaxprs and jit;
`pretty_print(derivation=True)` prints it."""

from __future__ import annotations

from functools import partial

import didax
import didax.numpy as jnp
from didax import lax
from didax.jaxpr import eval_jaxpr, params_texts

X = jnp.float32(0.5)


def program(fn, *args):
    """f's program, and a function that evaluates it (so a transformation of that function
    transforms the program, equation by equation)."""
    closed = didax.make_jaxpr(fn)(*args)

    def run(*xs):
        return eval_jaxpr(closed.jaxpr, closed.consts, *xs)[0]

    return closed, run


def marks(closed) -> list[tuple[str, str]]:
    # as the printer writes them (`params_texts`: a parameter as the jaxpr shows it)
    return [
        (e.primitive.name, e.derivation.describe(e.params, "", partial(params_texts, e.primitive)))
        if e.derivation
        else (e.primitive.name, "")
        for e in closed.eqns
    ]


def sin_times_x(x):
    return jnp.sin(x) * x


def test_jvp_marks_primal_and_tangent_equations_of_each_equation():
    _, f = program(sin_times_x, X)
    jvp = didax.make_jaxpr(lambda x, t: didax.jvp(f, (x,), (t,)))(X, X)
    assert marks(jvp) == [
        ("sin", "primal of eqn 0"),
        ("cos", "tangent of eqn 0"),  # sin's rule: the derivative, times the tangent
        ("mul", "tangent of eqn 0"),
        ("mul", "primal of eqn 1"),  # the value
        ("mul", "tangent of eqn 1"),  # the product rule's two terms and their sum
        ("mul", "tangent of eqn 1"),
        ("add_any", "tangent of eqn 1"),
    ]


def test_linearized_and_transposed_equations_name_f_equations():
    _, f = program(sin_times_x, X)
    lin = didax.make_jaxpr(didax.linearize(f, X)[1])(X)
    assert marks(lin) == [
        ("mul", "tangent of eqn 0"),
        ("mul", "tangent of eqn 1"),
        ("mul", "tangent of eqn 1"),
        ("add_any", "tangent of eqn 1"),
    ]
    transposed = didax.make_jaxpr(didax.vjp(f, X)[1])(X)
    assert marks(transposed) == [
        ("mul", "transpose of eqn 1"),
        ("mul", "transpose of eqn 1"),
        ("mul", "transpose of eqn 0"),
        ("add_any", "cotangent sum"),
    ]


def test_pretty_print_with_derivation():
    x = jnp.ones(3)  # array residuals: constants, not literals
    _, f = program(sin_times_x, x)
    lin = didax.make_jaxpr(didax.linearize(f, x)[1])(x)
    assert lin.pretty_print(derivation=True) == (
        "{ lambda a:f32[3] b:f32[3] c:f32[3]; d:f32[3]. let\n"
        "    e:f32[3] = mul d a                             # tangent of eqn 0\n"
        "    f:f32[3] = mul e b                             # tangent of eqn 1\n"
        "    g:f32[3] = mul c d                             # tangent of eqn 1\n"
        "    h:f32[3] = add_any f g                         # tangent of eqn 1\n"
        "  in (h,) }"
    )
    assert lin.pretty_print() == str(lin)  # nothing printed unless asked


def test_vmap_names_changed_params_and_moved_operands():
    closed, f = program(lambda x, y: jnp.dot(x, y) + y.sum(), jnp.ones(3), jnp.ones(3))
    batched = didax.make_jaxpr(didax.vmap(f, (1, 0)))(jnp.ones((3, 4)), jnp.ones((4, 3)))
    assert marks(batched) == [
        ("transpose", "moved for eqn 0"),
        (
            "dot_general",
            "batched eqn 0 (dimension_numbers (([0], [0]), ([], [])) \u2192 "
            "(([1], [1]), ([0], [0])))",
        ),
        ("reduce_sum", "batched eqn 1 (axes (0,) \u2192 (1,))"),
        ("add", "batched eqn 2"),
    ]


def test_nested_equations_are_marked_with_paths():
    def c(x):
        return lax.cond(x > 0, jnp.sin, jnp.cos, x) * 2.0

    _, f = program(c, X)
    jvp = didax.make_jaxpr(lambda x, t: didax.jvp(f, (x,), (t,)))(X, X)
    [cond] = [e for e in jvp.eqns if e.primitive.name == "cond"]
    assert cond.derivation.describe() == "primal of eqn 2"
    branch1 = cond.params["branches"][1].jaxpr
    assert [e.derivation.describe() for e in branch1.eqns] == [
        "primal of eqn 0",  # sin, in branch 1 of f's eqn 2
        "tangent of eqn 0",
        "tangent of eqn 0",
    ]
    text = jvp.pretty_print(derivation=True)
    assert "sin m" in text.split("# primal of eqn 2/branch 1/eqn 0")[0].splitlines()[-1]
    assert "# tangent of eqn 2/branch 0/eqn 0" in text


def test_derivation_survives_jit_grad_of_vmap_and_nested_jit():
    _, f = program(sin_times_x, X)
    jitted = didax.make_jaxpr(didax.jit(lambda x: didax.jvp(f, (x,), (x,))))(X)
    inner = jitted.eqns[0].params["jaxpr"].jaxpr
    assert [e.derivation.describe() for e in inner.eqns][:2] == [
        "primal of eqn 0",
        "tangent of eqn 0",
    ]
    grad_vmap = didax.make_jaxpr(didax.grad(lambda xs: didax.vmap(f)(xs).sum()))(jnp.ones(3))
    described = [e.derivation.describe() for e in grad_vmap.eqns if e.derivation]
    assert "transpose of eqn 0" in described and "cotangent sum" in described
    _, g = program(lambda x: didax.jit(sin_times_x)(x), X)
    grad = didax.make_jaxpr(didax.grad(g))(X)
    backward = [e for e in grad.eqns if e.primitive.name == "jit"][1]
    assert backward.derivation.describe() == "transpose of eqn 0"
    text = grad.pretty_print(derivation=True)
    assert "# transpose of eqn 0/jaxpr/eqn 1" in text and "# primal of eqn 0/jaxpr/eqn 0" in text


def test_a_traced_function_and_a_plain_copy():
    # tracing Python records no derivation; re-staging a program copies each equation
    closed, f = program(sin_times_x, X)
    assert all(e.derivation is None for e in closed.eqns)
    copy = didax.make_jaxpr(f)(X)
    assert marks(copy) == [("sin", "copy of eqn 0"), ("mul", "copy of eqn 1")]
    lin = didax.make_jaxpr(didax.linearize(f, X)[1])(X)
    again = didax.make_jaxpr(lambda t: eval_jaxpr(lin.jaxpr, lin.consts, t))(X)
    assert marks(again) == marks(lin)  # a derived equation keeps its derivation
