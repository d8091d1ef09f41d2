"""Oracle: simple top-level names of `jax` (issue 24): `clear_caches`, `default_backend`,
`process_indices`, `named_call`, `named_scope`, `ensure_compile_time_eval`, `float0`,
against JAX 0.10.2."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from helpers.jaxpr_text import canonical

jax = pytest.importorskip("jax")
jnp = jax.numpy

pytestmark = pytest.mark.oracle

LIBS = [(didax, dnp), (jax, jnp)]


def test_backend_and_processes():
    assert didax.default_backend() == jax.default_backend() == "cpu"
    assert didax.process_indices() == jax.process_indices() == [0]
    assert didax.float0 == jax.float0


def _jaxprs(m, np_) -> list[str]:
    f = m.named_call(lambda x: np_.sin(x) * 2, name="foo")

    def g(x):
        with m.named_scope("bar"):
            return np_.cos(x)

    def h(x):
        with m.ensure_compile_time_eval():
            y = np_.arange(3.0) * 2  # a value, not an equation, inside the staged h
            assert not isinstance(y, m.core.Tracer)
        return x + y

    return [canonical(str(m.make_jaxpr(fn)(1.0))) for fn in (f, g, h)]


def test_named_call_scope_and_compile_time_eval_match_jax():
    assert _jaxprs(didax, dnp) == _jaxprs(jax, jnp)
    assert float(didax.named_call(dnp.sin, name="s")(1.0)) == pytest.approx(np.sin(1.0))


def test_named_scope_needs_a_string():
    for m, _ in LIBS:
        with pytest.raises(TypeError, match="named_scope name argument must be a string"):
            with m.named_scope(3):
                pass


def test_ensure_compile_time_eval_allows_python_control_flow():
    def f(x):
        with didax.ensure_compile_time_eval():
            n = dnp.sum(dnp.arange(4))
            k = int(n)  # concrete: no ConcretizationTypeError
        return x * k

    assert float(didax.jit(f)(2.0)) == 12.0


def test_clear_caches_makes_jit_compile_again():
    j = didax.jit(lambda x: x + 1)
    j(1.0)
    j(2.0)
    assert j.compilations == 1
    didax.clear_caches()
    assert float(j(3.0)) == 4.0
    assert j.compilations == 2
    assert jax.clear_caches() is None and didax.clear_caches() is None
