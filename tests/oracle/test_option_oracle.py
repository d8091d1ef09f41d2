"""Oracle: validation of index options (`static_argnums`, `argnums`, `in_axes`, `out_axes`),
out of range and negative, against JAX (issue 14, item 3).

`make_jaxpr(f, static_argnums=3)` on two arguments once wrapped around and made `y` static,
and `jit(f, static_argnums=3)` ignored it; both raise JAX's ValueError now. Each case must
give JAX's value, or JAX's exception type (and, for the index checks, JAX's message).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

pytestmark = pytest.mark.oracle


def f(x, y):
    return x * y


def _ones(m: Any) -> tuple:
    return (m.numpy.ones(3), m.numpy.ones(3))


CASES: dict[str, Callable[[Any], Any]] = {
    "make_jaxpr static_argnums=3": lambda m: m.make_jaxpr(f, static_argnums=3)(1.0, 2.0),
    "make_jaxpr static_argnums=-3": lambda m: m.make_jaxpr(f, static_argnums=-3)(1.0, 2.0),
    "make_jaxpr static_argnums=-1": lambda m: len(
        m.make_jaxpr(f, static_argnums=-1)(1.0, 2.0).jaxpr.invars
    ),
    "jit static_argnums=2": lambda m: m.jit(f, static_argnums=2)(1.0, 2.0),
    "jit static_argnums=3": lambda m: m.jit(f, static_argnums=3)(1.0, 2.0),
    "jit static_argnums=-3": lambda m: m.jit(f, static_argnums=-3)(1.0, 2.0),
    "jit static_argnums=-1": lambda m: m.jit(f, static_argnums=-1)(1.0, 2.0),
    "jit static_argnums=(0, 5)": lambda m: m.jit(f, static_argnums=(0, 5))(1.0, 2.0),
    "jit *args static_argnums=5": lambda m: m.jit(lambda *a: a[0], static_argnums=5)(1.0),
    "jit *args static_argnums=-2": lambda m: m.jit(lambda *a: a[0], static_argnums=-2)(1.0),
    "jit static_argnums='a'": lambda m: m.jit(f, static_argnums="a")(1.0, 2.0),
    "grad argnums=2": lambda m: m.grad(f, argnums=2)(1.0, 2.0),
    "grad argnums=-1": lambda m: m.grad(f, argnums=-1)(1.0, 2.0),
    "grad argnums=-3": lambda m: m.grad(f, argnums=-3)(1.0, 2.0),
    "grad argnums=1.0": lambda m: m.grad(f, argnums=1.0)(1.0, 2.0),
    "value_and_grad argnums=2": lambda m: m.value_and_grad(f, argnums=2)(1.0, 2.0),
    "jacfwd argnums=2": lambda m: m.jacfwd(f, argnums=2)(1.0, 2.0),
    "jacfwd argnums=-3": lambda m: m.jacfwd(f, argnums=-3)(1.0, 2.0),
    "jacrev argnums=2": lambda m: m.jacrev(f, argnums=2)(1.0, 2.0),
    "hessian argnums=2": lambda m: m.hessian(f, argnums=2)(1.0, 2.0),
    "vmap in_axes=1": lambda m: m.vmap(f, in_axes=1)(*_ones(m)),
    "vmap in_axes=-1": lambda m: m.vmap(f, in_axes=-1)(*_ones(m)),
    "vmap in_axes=-2": lambda m: m.vmap(f, in_axes=-2)(*_ones(m)),
    "vmap in_axes=(0,)": lambda m: m.vmap(f, in_axes=(0,))(*_ones(m)),
    "vmap in_axes=(0, 0, 0)": lambda m: m.vmap(f, in_axes=(0, 0, 0))(*_ones(m)),
    "vmap in_axes=1.0": lambda m: m.vmap(f, in_axes=1.0)(*_ones(m)),
    "vmap in_axes=None": lambda m: m.vmap(f, in_axes=None)(*_ones(m)),
    "vmap out_axes=1": lambda m: m.vmap(f, out_axes=1)(*_ones(m)),
    "vmap out_axes=-1": lambda m: m.vmap(f, out_axes=-1)(*_ones(m)),
    "vmap out_axes=-2": lambda m: m.vmap(f, out_axes=-2)(*_ones(m)),
    "vmap out_axes=(0, 0)": lambda m: m.vmap(f, out_axes=(0, 0))(*_ones(m)),
    "vmap out_axes=1.0": lambda m: m.vmap(f, out_axes=1.0)(*_ones(m)),
    "vmap out_axes=None": lambda m: m.vmap(f, out_axes=None)(*_ones(m)),
}

# The index checks whose messages are JAX's word for word
SAME_MESSAGE = ("static_argnums=", "argnums=2", "argnums=-3")


def _outcome(m: Any, case: Callable[[Any], Any]) -> tuple:
    try:
        return ("value", np.asarray(case(m)))
    except Exception as e:  # the outcome under test
        return ("raises", type(e), str(e).splitlines()[0])


@pytest.mark.parametrize("name", CASES)
def test_option_matches_jax(name: str) -> None:
    got = _outcome(didax, CASES[name])
    want = _outcome(jax, CASES[name])
    assert got[0] == want[0], (got, want)
    if got[0] == "value":
        np.testing.assert_array_equal(got[1], want[1])
        return
    assert got[1] is want[1], (got, want)
    if any(s in name for s in SAME_MESSAGE) and "'a'" not in name and "1.0" not in name:
        assert got[2] == want[2]


def test_static_argnums_out_of_range_no_longer_makes_another_argument_static() -> None:
    with pytest.raises(ValueError, match="only accepts 2 positional arguments"):
        didax.make_jaxpr(f, static_argnums=3)
    with pytest.raises(ValueError, match="only accepts 2 positional arguments"):
        didax.jit(f, static_argnums=3)
    assert len(didax.make_jaxpr(f, static_argnums=-1)(dnp.ones(2), 2.0).jaxpr.invars) == 1
