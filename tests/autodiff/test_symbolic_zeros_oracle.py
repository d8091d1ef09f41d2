"""Oracle: `custom_jvp`'s `defjvp(..., symbolic_zeros=True)` and `didax.custom_derivatives`
against JAX 0.10.2: which tangents a rule gets as `SymbolicZero`s (under jvp, grad with
either argnum, jit, vmap, jacfwd, linearize; an integer input's, of dtype float0), a rule
that returns a `SymbolicZero`, the staged equation's text, `SymbolicZero`'s attributes and
`zero_from_primal`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from didax import custom_derivatives as didax_cd
from helpers.jaxpr_text import canonical

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax_cd = jax.custom_derivatives

pytestmark = pytest.mark.oracle

LIBS = {"didax": (didax, dnp, didax_cd), "jax": (jax, jnp, jax_cd)}


def _product(lib: Any, cd: Any, seen: list) -> Callable[..., Any]:
    """`x * y` with a rule that records which tangents are symbolic zeros and adds only the
    others' terms (arithmetic on a SymbolicZero fails)."""

    @lib.custom_jvp
    def f(x, y):
        return x * y

    def f_jvp(primals, tangents):
        x, y = primals
        x_dot, y_dot = tangents
        seen.append(tuple(isinstance(t, cd.SymbolicZero) for t in tangents))
        out = 0.0
        if not isinstance(x_dot, cd.SymbolicZero):
            out = out + x_dot * y
        if not isinstance(y_dot, cd.SymbolicZero):
            out = out + x * y_dot
        return f(x, y), out

    f.defjvp(f_jvp, symbolic_zeros=True)
    return f


CASES: dict[str, Callable[[Any, Any, Callable], Any]] = {
    "jvp in x": lambda lib, m, f: lib.jvp(lambda x: f(x, 3.0), (2.0,), (1.0,)),
    "jvp in both": lambda lib, m, f: lib.jvp(f, (2.0, 3.0), (1.0, 0.5)),
    "grad in x": lambda lib, m, f: lib.grad(f)(2.0, 3.0),
    "grad in y": lambda lib, m, f: lib.grad(f, argnums=1)(2.0, 3.0),
    "grad of jit": lambda lib, m, f: lib.grad(lib.jit(f))(2.0, 3.0),
    "jit of grad": lambda lib, m, f: lib.jit(lib.grad(f))(2.0, 3.0),
    "vmap of grad": lambda lib, m, f: lib.vmap(lib.grad(f))(m.ones(3), m.arange(3.0)),
    "jvp of vmap": lambda lib, m, f: lib.jvp(
        lib.vmap(lambda a: f(a, 2.0)), (m.ones(3),), (m.arange(3.0),)
    ),
    "jvp of vmap in both": lambda lib, m, f: lib.jvp(
        lib.vmap(f), (m.ones(3), m.arange(3.0)), (m.ones(3), m.ones(3))
    ),
    "jacfwd": lambda lib, m, f: lib.jacfwd(f)(2.0, 3.0),
    "linearize": lambda lib, m, f: lib.linearize(lambda x: f(x, 3.0), 2.0)[1](1.0),
}


def _same_as_jax(run: Callable, make: Callable) -> None:
    """`run(lib, m, f)` with `f = make(lib, cd, log)`, in didax and in JAX: the same values
    and dtypes, and the same log of what the rules were given (and they ran)."""
    results = {}
    for name, (lib, m, cd) in LIBS.items():
        log: list = []
        out = run(lib, m, make(lib, cd, log))
        results[name] = (lib.tree_util.tree_leaves(out), log)
    (d_out, d_log), (j_out, j_log) = results["didax"], results["jax"]
    assert d_log == j_log and d_log
    assert len(d_out) == len(j_out)
    for d, j in zip(d_out, j_out, strict=True):
        np.testing.assert_allclose(np.asarray(d), np.asarray(j), rtol=1e-6)
        assert np.asarray(d).dtype == np.asarray(j).dtype


@pytest.mark.parametrize("case", CASES)
def test_the_rule_gets_symbolic_zeros_as_in_jax(case: str) -> None:
    _same_as_jax(CASES[case], _product)


def test_an_integer_inputs_symbolic_zero_has_dtype_float0() -> None:
    seen = {}
    for name, (lib, _, cd) in LIBS.items():

        @lib.custom_jvp
        def scale(x, n):
            return x * n

        def scale_jvp(primals, tangents, cd=cd, name=name):
            n_dot = tangents[1]
            seen[name] = (type(n_dot).__name__, n_dot.dtype, n_dot.shape, repr(n_dot))
            return scale(*primals), tangents[0] * primals[1]

        scale.defjvp(scale_jvp, symbolic_zeros=True)
        assert float(lib.grad(scale)(2.0, 3)) == 3.0
    assert seen["didax"] == seen["jax"] == ("SymbolicZero", jax.dtypes.float0, (), "SymbolicZero")


def _flat(lib: Any, m: Any, cd: Any) -> Callable[..., Any]:
    """`sin` with a rule that says its tangent is a symbolic zero."""

    @lib.custom_jvp
    def flat(x):
        return m.sin(x)

    flat.defjvp(
        lambda p, t: (flat(p[0]), cd.SymbolicZero.from_primal_value(p[0])), symbolic_zeros=True
    )
    return flat


def test_a_rule_may_return_a_symbolic_zero() -> None:
    for lib, m, cd in LIBS.values():
        flat = _flat(lib, m, cd)
        value, tangent = lib.jvp(flat, (1.0,), (1.0,))
        np.testing.assert_allclose(float(value), np.sin(1.0), rtol=1e-6)
        assert float(tangent) == 0.0 and float(lib.grad(flat)(1.0)) == 0.0
        np.testing.assert_array_equal(lib.vmap(lib.grad(flat))(m.arange(3.0)), np.zeros(3))
        # the rule mapped over a batch (jvp of vmap): its zero comes back batched
        values, tangents = lib.jvp(lib.vmap(flat), (m.arange(3.0),), (m.ones(3),))
        np.testing.assert_allclose(np.asarray(values), np.sin(np.arange(3.0)), rtol=1e-6)
        assert np.asarray(tangents).shape == (3,) and not np.asarray(tangents).any()


def test_a_symbolic_zero_of_the_wrong_type_is_refused_as_in_jax() -> None:
    errors = {}
    for name, (lib, m, cd) in LIBS.items():

        @lib.custom_jvp
        def f(x):
            return x * 2.0

        f.defjvp(
            lambda p, t, cd=cd, m=m: (f(p[0]), cd.SymbolicZero.from_primal_value(m.ones(2))),
            symbolic_zeros=True,
        )
        with pytest.raises(TypeError) as info:
            lib.jvp(f, (1.0,), (1.0,))
        errors[name] = str(info.value)
    assert "Custom JVP rule must produce primal and tangent outputs with" in errors["didax"]
    assert "corresponding shapes and dtypes" in errors["jax"]


def test_the_staged_equation_prints_as_jax() -> None:
    texts = []
    for lib, _, cd in LIBS.values():
        f = _product(lib, cd, [])
        texts.append(canonical(str(lib.make_jaxpr(lib.jit(f))(2.0, 3.0))))
        texts.append(canonical(str(lib.make_jaxpr(lib.grad(f))(2.0, 3.0))))
    assert "symbolic_zeros=True" in texts[0]
    assert texts[:2] == texts[2:]


def test_symbolic_zero_and_zero_from_primal_as_jax() -> None:
    def describe(cd: Any, m: Any) -> list:
        z = cd.zero_from_primal(m.ones((2, 3)), symbolic_zeros=True)
        i = cd.zero_from_primal(3, symbolic_zeros=True)
        zeros = cd.zero_from_primal({"a": 1.0, "b": m.ones(2), "n": 3})
        return [
            repr(z),
            z.shape,
            z.dtype,
            z.ndim,
            z.size,
            z.weak_type,
            repr(z.aval),
            repr(i.aval),
            {k: (np.asarray(v).dtype, np.asarray(v).shape) for k, v in zeros.items()},
            float(zeros["a"]),
        ]

    assert describe(didax_cd, dnp) == describe(jax_cd, jnp)
    with pytest.raises(TypeError, match="unsupported operand"):
        didax_cd.zero_from_primal(dnp.ones(2), symbolic_zeros=True) * 2.0


def test_the_module_has_jaxs_names() -> None:
    for name in didax_cd.__all__:
        assert hasattr(jax_cd, name), name
    assert didax_cd.custom_jvp is didax.custom_jvp and didax_cd.custom_vjp is didax.custom_vjp


# --------------------------------------------------------------------------- custom_vjp


def _sum_and_product(lib: Any, cd: Any, log: list) -> Callable[..., Any]:
    """`(x * y, x + y)` whose fwd records which arguments are perturbed and whose bwd records
    which output cotangents are symbolic zeros (and uses only the others)."""

    @lib.custom_vjp
    def f(x, y):
        return x * y, x + y

    def f_fwd(x, y):
        log.append(("fwd", type(x).__name__, x.perturbed, y.perturbed))
        xv, yv = cd.custom_vjp_primal_tree_values((x, y))
        return f(xv, yv), (xv, yv)

    def f_bwd(res, cts):
        x, y = res
        product, total = cts
        log.append(("bwd", *(isinstance(c, cd.SymbolicZero) for c in cts)))
        gx = gy = 0.0
        if not isinstance(product, cd.SymbolicZero):
            gx, gy = gx + product * y, gy + product * x
        if not isinstance(total, cd.SymbolicZero):
            gx, gy = gx + total, gy + total
        return gx, gy

    f.defvjp(f_fwd, f_bwd, symbolic_zeros=True)
    return f


VJP_CASES: dict[str, Callable[[Any, Any, Callable], Any]] = {
    "grad of the product in x": lambda lib, m, f: lib.grad(lambda x, y: f(x, y)[0])(2.0, 3.0),
    "grad of the sum in y": lambda lib, m, f: lib.grad(lambda x, y: f(x, y)[1], argnums=1)(
        2.0, 3.0
    ),
    "grad of both in both": lambda lib, m, f: lib.grad(
        lambda x, y: f(x, y)[0] + f(x, y)[1], argnums=(0, 1)
    )(2.0, 3.0),
    "jit of grad": lambda lib, m, f: lib.jit(lib.grad(lambda x, y: f(x, y)[0]))(2.0, 3.0),
    "vmap of grad": lambda lib, m, f: lib.vmap(lib.grad(lambda x, y: f(x, y)[0]))(
        m.ones(3), m.arange(3.0)
    ),
    "grad of vmap": lambda lib, m, f: lib.grad(lambda x: lib.vmap(lambda a: f(a, 2.0)[0])(x).sum())(
        m.arange(3.0)
    ),
}


@pytest.mark.parametrize("case", VJP_CASES)
def test_fwd_and_bwd_get_perturbations_and_symbolic_zeros_as_in_jax(case: str) -> None:
    _same_as_jax(VJP_CASES[case], _sum_and_product)


def test_bwd_may_return_a_symbolic_zero_of_its_inputs_type_only() -> None:
    errors = {}
    for name, (lib, m, cd) in LIBS.items():

        @lib.custom_vjp
        def g(x, y):
            return x * y

        g.defvjp(
            lambda x, y: (g(x.value, y.value), (x.value, y.value)),
            lambda r, ct, cd=cd: (ct * r[1], cd.SymbolicZero.from_primal_value(r[1])),
            symbolic_zeros=True,
        )
        gx, gy = lib.grad(g, argnums=(0, 1))(2.0, 3.0)
        assert (float(gx), float(gy)) == (3.0, 0.0)

        @lib.custom_vjp
        def h(x):
            return x * 2.0

        h.defvjp(
            lambda x: (x.value * 2.0, None),
            lambda r, ct, cd=cd, m=m: (cd.SymbolicZero.from_primal_value(m.ones(3)),),
            symbolic_zeros=True,
        )
        with pytest.raises(ValueError) as info:
            lib.grad(h)(1.0)
        errors[name] = str(info.value).split(":")[0]
    assert errors["didax"] == errors["jax"]


def test_custom_vjp_with_symbolic_zeros_prints_as_jax() -> None:
    texts = []
    for lib, _, cd in LIBS.values():
        f = _sum_and_product(lib, cd, [])
        texts.append(canonical(str(lib.make_jaxpr(f)(2.0, 3.0))))
    assert "symbolic_zeros=True" in texts[0] and texts[0] == texts[1]


def test_custom_vjp_primal_helpers_as_jax() -> None:
    def describe(cd: Any) -> list:
        try:
            cd.custom_vjp_primal_tree_values([1.0])
        except TypeError as e:
            error = str(e)
        return [
            cd.custom_vjp_primal_tree_values({"a": cd.CustomVJPPrimal(1.0, True)}),
            repr(cd.CustomVJPPrimal(1.0, False)),
            error,
        ]

    assert describe(didax_cd) == describe(jax_cd)
    for lib in (didax, jax):
        f = lib.custom_vjp(lambda x: x)
        with pytest.raises(NotImplementedError, match="does not support symbolic zeros"):
            f.defvjp(
                lambda x: (x, None), lambda r, g: (g,), symbolic_zeros=True, optimize_remat=True
            )
