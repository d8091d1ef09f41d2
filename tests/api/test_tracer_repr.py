"""Tracers print as JAX 0.10.2 prints them: JitTracer under jit/make_jaxpr/scan,
VmapTracer, JVPTracer under jvp, GradTracer under grad/linearize/vjp, and nestings."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import pytest

jax = pytest.importorskip("jax")
pytestmark = pytest.mark.oracle


def _program(lib, m):
    show = lambda x: print(x) or x  # noqa: E731
    lib.jit(show)(m.ones(3))
    lib.make_jaxpr(lambda x: print(x) or x)(m.ones(3))  # a new function: JAX would reuse
    lib.vmap(show)(m.ones((2, 3)))
    lib.grad(show)(1.0)
    lib.jvp(show, (1.0,), (1.0,))
    lib.linearize(show, 1.0)
    lib.vjp(show, 1.0)
    lib.jit(lib.grad(show))(1.0)
    lib.vmap(lib.grad(lambda x: print(repr(x)) or x))(m.ones(2))
    lib.jacfwd(show)(m.ones(2))
    lib.lax.scan(lambda c, x: (print(c, x) or c, x), 0.0, m.ones(2))
    lib.jit(lambda x: print(f"{x}") or x)(1.0)


def test_tracer_reprs_as_jax(capsys):
    _program(didax, dnp)
    got = capsys.readouterr().out
    _program(jax, jax.numpy)
    assert got == capsys.readouterr().out
