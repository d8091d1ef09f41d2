"""`debug.print` in compiled programs: a jitted function holding one is compiled (not run
equation by equation), its StableHLO calls `xla_ffi_python_cpu_callback` as JAX's does on
CPU, and the compiled program prints what JAX prints, in order, under jit, vmap and grad,
before the call returns; AOT (`.lower().compile()`) programs print too."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


def _f(lib, m):
    def f(x):
        lib.debug.print("a {}", x)
        y = m.sin(x)
        lib.debug.print("b {y}", y=y)
        lib.debug.print("c {} {}", x * 2, y.sum())
        return y * 2

    return f


def test_jit_compiles_the_print_into_the_program(capsys):
    f = didax.jit(_f(didax, dnp))
    f(dnp.arange(3.0))
    f(dnp.arange(3.0) + 1)
    assert f.compilations == 1  # compiled once, called twice: both calls print
    text = f.lower(dnp.arange(3.0)).as_text()
    assert text.count("xla_ffi_python_cpu_callback") == 3
    got = capsys.readouterr().out
    g = jax.jit(_f(jax, jnp))
    g(jnp.arange(3.0))
    g(jnp.arange(3.0) + 1)
    assert got == capsys.readouterr().out
    assert "python_cpu_callback" in g.lower(jnp.arange(3.0)).as_text()


@pytest.mark.parametrize("how", ["vmap", "grad", "aot", "no-operands"])
def test_compiled_prints_match_jax(capsys, how):
    def run(lib, m):
        f = _f(lib, m)
        if how == "vmap":
            out = lib.jit(lib.vmap(f))(m.arange(6.0).reshape(2, 3))
        elif how == "grad":
            out = lib.jit(lib.grad(lambda x: f(x).sum()))(m.arange(3.0))
        elif how == "aot":
            out = lib.jit(f).lower(m.arange(3.0)).compile()(m.arange(3.0))
        else:
            out = lib.jit(lambda: lib.debug.print("no operands"))()
        print("returned")  # the prints came before the call returned
        return out

    got = run(didax, dnp)
    got_text = capsys.readouterr().out
    want = run(jax, jnp)
    assert got_text == capsys.readouterr().out
    if got is not None:
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_prints_inside_cond_scan_and_nested_jit(capsys):
    def run(lib):
        def body(c, v):
            lib.debug.print("step c={} v={}", c, v)
            return c + v, None

        def g(x):
            lib.lax.cond(
                x.sum() > 0,
                lambda: lib.debug.print("pos {}", x),
                lambda: lib.debug.print("neg {}", x),
            )
            inner = lib.jit(lambda y: (lib.debug.print("inner {}", y), y * 2)[1])
            return lib.lax.scan(body, 0.0, inner(x))[0]

        f = lib.jit(g)
        lib.block_until_ready(f(lib.numpy.arange(3.0)))
        lib.block_until_ready(f(-lib.numpy.arange(3.0)))

    run(didax)
    got = capsys.readouterr().out
    run(jax)
    assert got == capsys.readouterr().out


def test_cached_calls_print_before_they_return(capsys):
    # The second and later calls take the fast path (one output: `execute_one`); a program
    # with host callbacks must still be waited for there, or "returned" can come first.
    @didax.jit
    def f(x):
        y = x
        for _ in range(200):  # enough work before the print for a race to show
            y = dnp.sin(y) + x
        didax.debug.print("in {}", y[0])
        return y

    x = dnp.arange(300_000.0)
    for i in range(30):
        f(x + i)
        print("returned")
    lines = capsys.readouterr().out.splitlines()
    assert [line.startswith("in ") for line in lines[::2]] == [True] * 30
    assert lines[1::2] == ["returned"] * 30


@pytest.mark.parametrize("static", [False, True])
def test_a_callback_that_raises_runs_once_per_call_as_in_jax(static):
    # A callback's error fails the launch; the launch is not retried (the retry is for
    # arguments on another device, and here none is): the callback ran once, as in JAX.
    def run(lib, m):
        calls = []

        def callback(v):
            calls.append(1)
            if len(calls) >= 3:
                raise ValueError("the third call fails")

        def f(x, n):
            lib.debug.callback(callback, x)
            return x * n

        g = lib.jit(f, static_argnums=1) if static else lib.jit(lambda x: f(x, 2))
        x = lib.device_put(np.ones(2, np.float32))
        args = (x, 2) if static else (x,)
        lib.block_until_ready(g(*args))  # compiled
        lib.block_until_ready(g(*args))  # the fast path
        with pytest.raises(Exception) as raised:
            lib.block_until_ready(g(*args))
        return len(calls), type(raised.value).__name__

    assert run(didax, dnp) == run(jax, jnp) == (3, "JaxRuntimeError")
