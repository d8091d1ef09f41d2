"""Source provenance (issue 12, item 2): each equation records the user's line that bound
it, kept through jvp, vmap, partial evaluation, transposition and jit; `pretty_print(
source_info=True)` prints it as JAX does (oracle tests compare the whole text)."""

from __future__ import annotations

import _thread
import os
import threading

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from didax import lax, source_info
from didax.jaxpr import Jaxpr, JaxprEqn, Var, eval_jaxpr
from didax.primitives import elementwise

HERE = os.path.abspath(__file__)
CORE = os.path.dirname(os.path.abspath(didax.__file__))


def f(np_, x):
    y = np_.sin(x)
    return y * 3.0


F_SIN = f.__code__.co_firstlineno + 1  # the line of `np_.sin(x)`
F_MUL = f.__code__.co_firstlineno + 2


def g(np_, x):
    return np_.sin(np_.cos(np_.tan(x)))


def _all_eqns(jaxpr, path=()):
    for i, eqn in enumerate(jaxpr.eqns):
        yield path + (i,), eqn
        for v in eqn.params.values():
            for x in v if isinstance(v, tuple) else (v,):
                inner = getattr(x, "jaxpr", x)
                if hasattr(inner, "eqns"):
                    yield from _all_eqns(inner, path + (i,))


def _lines(closed):
    return [(e.primitive.name, e.source_info.line) for _, e in _all_eqns(closed.jaxpr)]


def test_make_jaxpr_records_the_users_line() -> None:
    closed = didax.make_jaxpr(lambda x: f(dnp, x))(1.0)
    sin, mul = closed.eqns
    assert (sin.source_info.file, sin.source_info.line) == (HERE, F_SIN)
    assert sin.source_info.function == "f"
    assert sin.source_info.text == "y = np_.sin(x)"
    assert sin.source_info.column == 8  # where `np_.sin(x)` starts
    assert (mul.source_info.line, mul.source_info.text) == (F_MUL, "return y * 3.0")
    assert sin.source_info.summary() == f"{HERE}:{F_SIN}:8 (f)"


def test_no_frame_of_didax_is_recorded() -> None:
    # jnp.sum stages several equations deep inside didax; all point at this file
    closed = didax.make_jaxpr(lambda x: dnp.sum(dnp.sin(dnp.ones((3, 3)) * x)))(1.0)
    assert len(closed.eqns) >= 4
    for _, eqn in _all_eqns(closed.jaxpr):
        assert eqn.source_info.file == HERE
        assert not eqn.source_info.file.startswith(CORE + os.sep)
    assert source_info.is_internal(elementwise.__file__)
    assert not source_info.is_internal(HERE)


def test_str_is_unchanged_by_source_info() -> None:
    closed = didax.make_jaxpr(lambda x: f(dnp, x))(1.0)
    assert closed.pretty_print() == str(closed)
    assert "#" not in str(closed)
    assert closed.pretty_print(source_info=True) != str(closed)


VEC = np.ones(3, np.float32)


@pytest.mark.parametrize(
    "transform, x",
    [
        (lambda fn: didax.grad(fn), 1.0),
        (lambda fn: didax.vmap(fn), VEC),
        (lambda fn: didax.jit(didax.grad(fn)), 1.0),
        (lambda fn: didax.grad(didax.jit(fn)), 1.0),
        (lambda fn: didax.vmap(didax.grad(fn)), VEC),
        (lambda fn: lambda x: didax.jvp(fn, (x,), (x,)), 1.0),
        (lambda fn: lambda x: didax.linearize(fn, x)[1](x), 1.0),
        (lambda fn: lambda x: didax.vjp(fn, x)[1](x), 1.0),
    ],
    ids=["grad", "vmap", "jit_grad", "grad_jit", "vmap_grad", "jvp", "linearize", "vjp"],
)
def test_every_equation_keeps_the_users_line_through_transformations(transform, x) -> None:
    closed = didax.make_jaxpr(transform(lambda x: f(dnp, x)))(x)
    lines = _lines(closed)
    inner = [(p, n) for p, n in lines if p != "jit"]
    assert inner and {n for _, n in inner} <= {F_SIN, F_MUL}, lines
    # the derivative of sin (cos, and its product with the tangent) comes from sin's line
    for prim, line in inner:
        if prim in ("sin", "cos"):
            assert line == F_SIN


def test_grad_program_lines_as_jax() -> None:
    jaxpr = didax.make_jaxpr(didax.grad(lambda x: f(dnp, x)))(1.0).jaxpr
    # forward sin, cos (sin's jvp); mul b 3.0, mul 1.0 3.0 (mul's jvp and transpose);
    # mul d c: the cotangent through sin, at sin's line
    assert [(e.primitive.name, e.source_info.line) for e in jaxpr.eqns] == [
        ("sin", F_SIN),
        ("cos", F_SIN),
        ("mul", F_MUL),
        ("mul", F_MUL),
        ("mul", F_SIN),
    ]


def control_flow(x):
    y = lax.cond(x > 0, dnp.sin, lambda z: z * 2.0, x)
    z = lax.scan(lambda c, a: (c * a, dnp.cos(c)), y, dnp.ones(3))[0]
    return lax.fori_loop(0, 3, lambda i, c: c * 1.5, z)


def test_control_flow_keeps_lines_through_grad_and_vmap() -> None:
    first = control_flow.__code__.co_firstlineno
    for fn, x in [
        (didax.grad(control_flow), 1.0),
        (didax.vmap(didax.grad(control_flow)), np.ones(2, np.float32)),
    ]:
        lines = {line for _, line in _lines(didax.make_jaxpr(fn)(x))}
        assert lines <= {first + 1, first + 2, first + 3}, lines
        assert len(lines) == 3


def test_linear_transpose_keeps_lines() -> None:
    def lin(x):
        return x * 2.0

    line = lin.__code__.co_firstlineno + 1
    t = didax.linear_transpose(lin, 1.0)
    closed = didax.make_jaxpr(t)(1.0)
    assert [e.source_info.line for e in closed.eqns] == [line]


def test_eval_jaxpr_restages_with_the_equations_source() -> None:
    closed = didax.make_jaxpr(lambda x: f(dnp, x))(1.0)
    again = didax.make_jaxpr(lambda x: eval_jaxpr(closed.jaxpr, closed.consts, x))(1.0)
    assert [e.source_info for e in again.eqns] == [e.source_info for e in closed.eqns]


def _ipython_module(name: str, source: str) -> dict:
    # `source` run as if it were a file of IPython's package (as interactiveshell.py's
    # run_line_magic, between a cell and the magic it runs)
    ipython = pytest.importorskip("IPython")
    fake = os.path.join(os.path.dirname(os.path.abspath(ipython.__file__)), "core", name)
    namespace: dict = {}
    exec(compile(source, fake, "exec"), namespace)
    return namespace


def test_frames_of_ipython_are_skipped_for_the_cells() -> None:
    # a magic binding an equation itself (%grad's final convert): didax's frames, then
    # IPython's run_line_magic, then the cell that ran the magic, which is what is recorded
    run_line_magic = _ipython_module(
        "fake_shell.py", "def run_line_magic(magic, *args):\n    return magic(*args)\n"
    )["run_line_magic"]

    def cell(x):
        return run_line_magic(lax.sin, x)

    closed = didax.make_jaxpr(cell)(1.0)
    (eqn,) = closed.eqns
    assert (eqn.source_info.file, eqn.source_info.code) == (HERE, cell.__code__)
    assert eqn.source_info.line == cell.__code__.co_firstlineno + 1
    assert source_info.is_internal(run_line_magic.__code__.co_filename)
    traitlets = pytest.importorskip("traitlets")
    assert source_info.is_internal(traitlets.__file__)


def test_an_equation_with_only_ipython_frames_has_no_source() -> None:
    # a thread started by `_thread` has no Python frame below its function: every frame
    # outside didax is IPython's, so nothing is recorded
    run = _ipython_module(
        "fake_magic.py",
        "def run(didax, lax, out, done):\n"
        "    try:\n"
        "        out.append(didax.make_jaxpr(lambda x: lax.sin(x))(1.0))\n"
        "    finally:\n"
        "        done.set()\n",
    )["run"]
    out: list = []
    done = threading.Event()
    _thread.start_new_thread(run, (didax, lax, out, done))
    assert done.wait(60)
    (eqn,) = out[0].eqns
    assert eqn.source_info is None
    assert out[0].pretty_print(source_info=True).endswith("} # ")


def test_an_equation_without_source_prints_an_empty_note() -> None:
    a, b = Var(didax.core.ShapedArray((), np.float32)), Var(didax.core.ShapedArray((), np.float32))
    jaxpr = Jaxpr([], [a], [b], [JaxprEqn(elementwise.sin_p, [a], [b], {})])
    assert jaxpr.eqns[0].source_info is None
    assert jaxpr.pretty_print(source_info=True) == (
        "{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) } # "
    )


# ----------------------------------------------------------------------------- oracle


def _jax():
    return pytest.importorskip("jax")


def h(np_, x):
    return np_.sum(np_.sin(np_.ones((3, 3)) * x))


MAKERS = {
    "plain": (lambda m, fn: m.make_jaxpr(lambda x: fn(m.numpy, x)), 1.0),
    "grad": (lambda m, fn: m.make_jaxpr(m.grad(lambda x: fn(m.numpy, x))), 1.0),
    "jit": (lambda m, fn: m.make_jaxpr(lambda x: m.jit(lambda y: fn(m.numpy, y))(x) + 1.0), 1.0),
    "vmap": (lambda m, fn: m.make_jaxpr(m.vmap(lambda x: fn(m.numpy, x))), VEC),
}
# programs whose plain text didax prints as JAX does (grad of tan and of a sum, and vmap of
# a sum, stage other equations than JAX's), so that the notes are what is compared
CASES = [
    *((f, k) for k in MAKERS),
    *((g, k) for k in ("plain", "jit", "vmap")),
    *((h, k) for k in ("plain", "jit")),
]


@pytest.mark.oracle
@pytest.mark.parametrize("fn, kind", CASES, ids=[f"{fn.__name__}-{k}" for fn, k in CASES])
def test_pretty_print_source_info_as_jax(fn, kind) -> None:
    jax = _jax()
    make, x = MAKERS[kind]
    ours, theirs = make(didax, fn)(x), make(jax, fn)(x)
    assert str(ours) == str(theirs)
    assert ours.pretty_print(source_info=True) == theirs.pretty_print(source_info=True)
    assert ours.jaxpr.pretty_print(source_info=True) == theirs.jaxpr.pretty_print(source_info=True)
    assert f"{HERE}:" in ours.pretty_print(source_info=True)
