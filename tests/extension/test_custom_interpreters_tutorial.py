"""JAX's "Writing custom Jaxpr interpreters" page (design document 002), run on JAX 0.10.2 and
on didax, its printed output compared.

`tutorial(lib)` is the page's code, cell by cell, with `jax` replaced by the library under
test: `lib.make_jaxpr`, `lib.numpy`, `lib.lax` (its `exp_p`, `tanh_p`), `lib.extend.core`
(`Literal`, `ClosedJaxpr.literals`), `lib.jit/grad/vmap/random`. One line differs from the
page: `safe_map` comes from `jax._src.util`, JAX's private tree (the page warns it uses
internal APIs), so it is written out here.

The printed outputs must match line for line (floats to 1e-5, tests/float_text.py), after
two normalisations: a `Var`'s id is a
memory address (numbered here by first appearance), and an equation's params dict and its
literals' reprs are JAX-internal (`Literal(TypedInt(1, dtype=int32))`, dot_general's
`out_sharding`), so `equation:` lines are compared up to the params, with literals as values.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import re
from functools import wraps
from types import SimpleNamespace

import didax
import numpy as np
import pytest
from float_text import texts_match

jax = pytest.importorskip("jax")

pytestmark = pytest.mark.oracle


def safe_map(f, *xs):
    return [f(*args) for args in zip(*xs, strict=True)]


def _library(name: str) -> SimpleNamespace:
    lib = importlib.import_module(name)
    return SimpleNamespace(
        jax=lib,
        jnp=importlib.import_module(f"{name}.numpy"),
        lax=importlib.import_module(f"{name}.lax"),
        core=importlib.import_module(f"{name}.extend.core"),
        random=importlib.import_module(f"{name}.random"),
    )


def tutorial(name: str) -> tuple[str, dict]:  # noqa: C901 - the page, cell by cell
    m = _library(name)
    jax, jnp, lax, core, random = m.jax, m.jnp, m.lax, m.core, m.random
    jit, grad, vmap = jax.jit, jax.grad, jax.vmap
    results: dict = {}

    # "What is JAX doing?"
    x = random.normal(random.key(0), (50, 50))

    def f(w, b, x):
        return jnp.tanh(jnp.dot(x, w) + b)

    fast_f = jit(f)
    results["fast_f"] = fast_f(x, x[0], x)

    # "Jaxpr tracer"
    def examine_jaxpr(closed_jaxpr):
        jaxpr = closed_jaxpr.jaxpr
        print("invars:", jaxpr.invars)
        print("outvars:", jaxpr.outvars)
        print("constvars:", jaxpr.constvars)
        for eqn in jaxpr.eqns:
            print("equation:", eqn.invars, eqn.primitive, eqn.outvars, eqn.params)
        print()
        print("jaxpr:", jaxpr)

    def foo(x):
        return x + 1

    print("foo")
    print("=====")
    examine_jaxpr(jax.make_jaxpr(foo)(5))
    print()

    def bar(w, b, x):
        return jnp.dot(w, x) + b + jnp.ones(5), x

    print("bar")
    print("=====")
    examine_jaxpr(jax.make_jaxpr(bar)(jnp.ones((5, 10)), jnp.ones(5), jnp.ones(10)))

    # "1. Tracing a function"
    def f(x):
        return jnp.exp(jnp.tanh(x))

    closed_jaxpr = jax.make_jaxpr(f)(jnp.ones(5))
    print(closed_jaxpr.jaxpr)
    print(closed_jaxpr.literals)

    # "2. Evaluating a Jaxpr"
    def eval_jaxpr(jaxpr, consts, *args):
        env = {}

        def read(var):
            if type(var) is core.Literal:
                return var.val
            return env[var]

        def write(var, val):
            env[var] = val

        safe_map(write, jaxpr.invars, args)
        safe_map(write, jaxpr.constvars, consts)
        for eqn in jaxpr.eqns:
            invals = safe_map(read, eqn.invars)
            outvals = eqn.primitive.bind(*invals, **eqn.params)
            if not eqn.primitive.multiple_results:
                outvals = [outvals]
            safe_map(write, eqn.outvars, outvals)
        return safe_map(read, jaxpr.outvars)

    closed_jaxpr = jax.make_jaxpr(f)(jnp.ones(5))
    results["eval_jaxpr"] = eval_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.literals, jnp.ones(5))
    print(results["eval_jaxpr"])

    # "Custom inverse Jaxpr interpreter"
    inverse_registry = {}
    inverse_registry[lax.exp_p] = jnp.log
    inverse_registry[lax.tanh_p] = jnp.arctanh

    def inverse(fun):
        @wraps(fun)
        def wrapped(*args, **kwargs):
            closed_jaxpr = jax.make_jaxpr(fun)(*args, **kwargs)
            out = inverse_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.literals, *args)
            return out[0]

        return wrapped

    def inverse_jaxpr(jaxpr, consts, *args):
        env = {}

        def read(var):
            if type(var) is core.Literal:
                return var.val
            return env[var]

        def write(var, val):
            env[var] = val

        safe_map(write, jaxpr.outvars, args)
        safe_map(write, jaxpr.constvars, consts)
        for eqn in jaxpr.eqns[::-1]:
            invals = safe_map(read, eqn.outvars)
            if eqn.primitive not in inverse_registry:
                raise NotImplementedError(f"{eqn.primitive} does not have registered inverse.")
            outval = inverse_registry[eqn.primitive](*invals)
            safe_map(write, eqn.invars, [outval])
        return safe_map(read, jaxpr.invars)

    f_inv = inverse(f)
    assert jnp.allclose(f_inv(f(1.0)), 1.0)
    print(jax.make_jaxpr(inverse(f))(f(1.0)))
    results["composed"] = jit(vmap(grad(inverse(f))))((jnp.arange(5) + 1.0) / 5.0)
    print(results["composed"])
    return "", results


def _normalise(text: str) -> list[str]:
    ids: dict[str, str] = {}
    text = re.sub(r"id=(\d+)", lambda mt: "id=" + ids.setdefault(mt.group(1), str(len(ids))), text)
    lines = []
    for line in text.splitlines():
        if line.startswith("equation:"):
            line = line[: line.rindex("] {") + 1]  # drop the params dict
            line = re.sub(r"Literal\(TypedInt\((\S+), dtype=\w+\)\)", r"\1", line)
            line = re.sub(r"Literal\(([^):]+)(:\w+\[\])?\)", r"\1", line)
        lines.append(line)
    return lines


def _run(name: str) -> tuple[list[str], dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        _, results = tutorial(name)
    return _normalise(out.getvalue()), results


def test_tutorial_prints_what_jax_prints() -> None:
    want, want_results = _run("jax")
    got, got_results = _run("didax")
    # floats within float_text's tolerance (XLA and NumPy round the last digit differently)
    assert texts_match("\n".join(got), "\n".join(want)), "\n".join(got)
    for key, value in want_results.items():
        got_value = got_results[key]
        got_value = got_value if isinstance(got_value, list) else [got_value]
        value = value if isinstance(value, list) else [value]
        for g, w in zip(got_value, value, strict=True):
            assert isinstance(g, didax.Array)
            assert (g.dtype, g.shape, g.weak_type) == (w.dtype, w.shape, w.weak_type), key
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)


def test_extend_core_names_are_jax_names() -> None:
    from didax.extend import core as dcore
    from jax.extend import core as jcore

    for name in dcore.__all__:
        assert hasattr(jcore, name), name
    closed = didax.make_jaxpr(lambda x: x * 2.0 + 1.0)(np.float32(3))
    assert closed.literals is closed.consts
    assert dcore.jaxpr_as_fun(closed)(np.float32(3))[0] == 7.0
    dcore.check_jaxpr(closed.jaxpr)
    assert isinstance(closed.jaxpr.eqns[0].invars[1], dcore.Literal)


def test_lax_exports_the_primitives_jax_exports() -> None:
    # every primitive didax defines has rules in its tables (not gc.get_objects(): the test
    # workers freeze what is alive between modules, tests/conftest.py, and it leaves those out)
    core = didax.core
    tables = [t for t in vars(core).values() if isinstance(t, core.RuleTable)]
    ours = {p for t in tables for p in t.primitives()}
    assert len(ours) > 150, len(ours)
    exported = {
        n
        for n in dir(jax.lax)
        if n.endswith("_p") and getattr(jax.lax, n).name in {p.name for p in ours}
    }
    missing = sorted(n for n in exported if not hasattr(didax.lax, n))
    assert not missing, missing
    for n in exported:
        assert getattr(didax.lax, n).name == getattr(jax.lax, n).name, n
