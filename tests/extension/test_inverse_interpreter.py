"""A user writes a new interpreter, `inverse`, and composes it with jit, vmap and grad.

JAX's "Writing custom Jaxpr interpreters" page, in didax. `inverse(f)` traces `f` with
`make_jaxpr`, then walks the jaxpr backwards, from outputs to inputs, applying each
equation's inverse. The inverses live in the interpreter's own `RuleTable`, used as
didax's own tables are. A rule gets the equation's output value and the values already
known among its inputs (None for the one being solved for), so `x * 3.0` and `x + c` invert
as well as `exp`. Because the walk only calls didax functions, and `eval_jaxpr`-style
interpreters are traceable, `inverse(f)` can itself be jitted, vmapped and differentiated.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from didax import core, lax
from didax.jaxpr import Literal

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

# --------------------------------------------------------------------------- the interpreter

# rule(out, *ins, **params) -> the unknown input; `ins` holds None for the unknown operand
inverse_rules: core.RuleTable[Callable[..., Any]] = core.RuleTable("inverse")

inverse_rules.register(lax.elementwise.exp_p, lambda out, x: dnp.log(out))
inverse_rules.register(lax.elementwise.log_p, lambda out, x: dnp.exp(out))
inverse_rules.register(
    lax.elementwise.tanh_p, lambda out, x: 0.5 * dnp.log((1 + out) / (1 - out))
)  # artanh
inverse_rules.register(lax.elementwise.neg_p, lambda out, x: -out)


@inverse_rules.register(lax.elementwise.add_p)
def _add_inverse(out, x, y):
    return out - y if x is None else out - x


@inverse_rules.register(lax.elementwise.sub_p)
def _sub_inverse(out, x, y):
    return out + y if x is None else x - out


@inverse_rules.register(lax.elementwise.mul_p)
def _mul_inverse(out, x, y):
    return out / y if x is None else out / x


@inverse_rules.register(lax.convert.convert_element_type_p)
def _convert_inverse(out, x, *, new_dtype, weak_type):
    return out  # only float32 -> float32 (a change of weak type) reaches here


def inverse_jaxpr(jaxpr: Any, consts: list[Any], *outs: Any) -> list[Any]:
    """Run `jaxpr` backwards: from values of its outputs to values of its inputs."""
    known: dict[Any, Any] = dict(zip(jaxpr.constvars, consts, strict=True))
    inverted: dict[Any, Any] = dict(zip(jaxpr.outvars, outs, strict=True))

    def read(atom: Any) -> Any:  # a literal or constant known from the program, else None
        return atom.val if isinstance(atom, Literal) else known.get(atom)

    # Forward: equations that do not depend on the inputs just compute constants.
    depends = set(jaxpr.invars)
    for eqn in jaxpr.eqns:
        if any(not isinstance(v, Literal) and v in depends for v in eqn.invars):
            depends.update(eqn.outvars)
        else:
            vals = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
            outs = vals if eqn.primitive.multiple_results else [vals]
            known.update(zip(eqn.outvars, outs, strict=True))
    # Backward: each equation gives back its one input that depends on the function's input.
    for eqn in reversed(jaxpr.eqns):
        if not any(v in depends for v in eqn.outvars):
            continue
        unknown = [
            i for i, v in enumerate(eqn.invars) if not isinstance(v, Literal) and v in depends
        ]
        if len(unknown) != 1:
            raise NotImplementedError(f"{eqn.primitive}: can only invert one unknown operand")
        ins = [None if i == unknown[0] else read(v) for i, v in enumerate(eqn.invars)]
        (out_var,) = eqn.outvars
        value = inverse_rules[eqn.primitive](inverted[out_var], *ins, **eqn.params)
        inverted[eqn.invars[unknown[0]]] = value
    return [inverted[v] for v in jaxpr.invars]


def inverse(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """The inverse of a function of one array, built from its primitives' inverses."""

    @functools.wraps(fn)
    def inverted(y: Any) -> Any:
        closed = didax.make_jaxpr(fn)(y)  # traced at the output's type: f maps x -> y alike
        (x,) = inverse_jaxpr(closed.jaxpr, closed.consts, y)
        return x

    return inverted


# --------------------------------------------------------------------------- using it


def f(x: Any) -> Any:
    return dnp.exp(dnp.tanh(x))


def f_inverse_jax(y: Any) -> Any:  # what inverse(f) should compute, for the oracle
    return jnp.arctanh(jnp.log(y))


XS = (np.arange(5, dtype=np.float32) + 1.0) / 5.0  # JAX's example points
YS = np.linspace(0.45, 2.5, 5, dtype=np.float32)  # inside f's range: inverse(f) is finite


def test_inverse_undoes_f() -> None:
    np.testing.assert_allclose(inverse(f)(f(1.0)), 1.0, rtol=1e-5)
    np.testing.assert_allclose(inverse(f)(f(XS)), XS, rtol=1e-5)
    np.testing.assert_allclose(f(inverse(f)(YS)), YS, rtol=1e-5)


def test_inverse_traces_to_the_inverse_program() -> None:
    # like JAX's page: { lambda ; a:f32[]. let b:f32[] = log a; c:f32[] = atanh b in (c,) }
    jaxpr = didax.make_jaxpr(inverse(f))(f(1.0))
    assert [e.primitive.name for e in jaxpr.eqns][:1] == ["log"]
    assert "tanh" not in [e.primitive.name for e in jaxpr.eqns]


def test_inverse_with_constants_and_binary_ops() -> None:
    offset = np.array([0.5, -1.0, 2.0, 0.0, 1.0], np.float32)

    def g(x):
        return 3.0 * dnp.exp(x) - offset + 1.0

    np.testing.assert_allclose(inverse(g)(g(XS)), XS, rtol=1e-5)


def test_inverse_of_unsupported_primitive_raises() -> None:
    with pytest.raises(NotImplementedError, match="no inverse rule for 'sin'"):
        inverse(dnp.sin)(0.5)


def test_jit_vmap_grad_of_inverse() -> None:
    # JAX's page: jit(vmap(grad(inverse(f))))((jnp.arange(5) + 1.) / 5.)
    got = didax.jit(didax.vmap(didax.grad(inverse(f))))(XS)
    want = jax.jit(jax.vmap(jax.grad(f_inverse_jax)))(XS)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4)


@pytest.mark.parametrize("compose", ["grad_jit", "vmap_jit", "jit_grad", "hessian", "jacrev"])
def test_inverse_in_other_compositions(compose: str) -> None:
    def run(lib: Any, g: Any) -> Any:
        return {
            "grad_jit": lambda: lib.vmap(lib.grad(lib.jit(g)))(YS),
            "vmap_jit": lambda: lib.vmap(lib.jit(g))(YS),
            "jit_grad": lambda: lib.jit(lib.grad(lambda y: g(y).sum()))(YS),
            "hessian": lambda: lib.hessian(lambda y: g(y).sum())(YS),
            "jacrev": lambda: lib.jacrev(g)(YS),
        }[compose]()

    np.testing.assert_allclose(
        np.asarray(run(didax, inverse(f))),
        np.asarray(run(jax, f_inverse_jax)),
        rtol=1e-4,
        atol=1e-5,
    )


def test_inverse_of_a_jitted_function_needs_a_rule_for_jit() -> None:
    # A jit is one equation; an interpreter that does not know it says so, naming it.
    with pytest.raises(NotImplementedError, match="no inverse rule for 'jit'"):
        inverse(didax.jit(f))(f(1.0))
