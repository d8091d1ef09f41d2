"""A primitive a user defines with only an impl and an abstract eval, taken where it has no
rule: each transformation raises JAX 0.10.2's NotImplementedError with JAX's message (oracle:
the same primitive made with `jax.extend.core.Primitive`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import didax
import didax.extend.core
import jax
import jax.extend.core
import numpy as np
import pytest


def _jax_primitive(name: str) -> Any:
    prim = jax.extend.core.Primitive(name)
    prim.def_impl(lambda x: np.asarray(x) * 2)
    prim.def_abstract_eval(lambda x: jax.core.ShapedArray(x.shape, x.dtype))
    return prim


def _didax_primitive(name: str) -> Any:
    prim = didax.extend.core.Primitive(name)
    prim.def_impl(lambda x: [np.asarray(x) * 2])
    prim.def_abstract_eval(lambda x: [x])
    return prim


# (what the user does, with `lib` the library and `f` the function binding the primitive)
USES: dict[str, Callable[[Any, Callable[[Any], Any]], Any]] = {
    "jvp": lambda lib, f: lib.jvp(f, (1.5,), (1.0,)),
    "grad": lambda lib, f: lib.grad(f)(1.5),
    "vmap": lambda lib, f: lib.vmap(f)(np.ones(3, np.float32)),
    "jit": lambda lib, f: lib.jit(f)(1.5),
}


def _error(lib: Any, prim: Any, use: str) -> BaseException:
    with pytest.raises(Exception) as info:  # noqa: PT011 - the type is compared with JAX's
        USES[use](lib, lambda x: prim.bind(x))
    return info.value


@pytest.mark.parametrize("use", sorted(USES))
def test_a_missing_rule_raises_jaxs_error(use: str) -> None:
    want = _error(jax, _jax_primitive(f"mine_{use}"), use)
    got = _error(didax, _didax_primitive(f"mine_{use}"), use)
    assert type(got) is type(want) is NotImplementedError
    # JAX's lowering message adds "for platform cpu": didax's lowering is platform-free
    assert str(want).startswith(str(got)), (str(got), str(want))
    assert f"'mine_{use}'" in str(got)


def test_a_missing_transpose_rule_raises_jaxs_error() -> None:
    # a jvp rule whose tangent is the primitive itself, which has no transpose rule
    jp, dp = _jax_primitive("lin"), _didax_primitive("lin")
    jax.interpreters.ad.primitive_jvps[jp] = lambda xs, ts: (jp.bind(*xs), jp.bind(*ts))
    didax.core.jvp_rules.register(dp, lambda xs, ts: ([dp.bind(*xs)], [dp.bind(*ts)]))
    want = _error(jax, jp, "grad")
    got = _error(didax, dp, "grad")
    assert type(got) is type(want) is NotImplementedError
    assert str(got) == str(want)
