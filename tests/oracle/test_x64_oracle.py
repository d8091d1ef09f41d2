"""Oracle: `jax_enable_x64`, against JAX 0.10.2.

With the flag on, default dtypes are float64/int64/complex128, weak types canonicalize to
the 64-bit types, float64 values are kept (not truncated to float32), and `jit` lowers
f64/i64/c128; switching it off restores 32-bit behaviour, also for functions jitted before
(the flag is part of jit's cache key, as in JAX's). The fixture sets the flag in both
libraries and restores it; the environment variable is checked in a subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from helpers.oracle import EagerJax, assert_matches, x64_in_both

jax = pytest.importorskip("jax")
jnp = jax.numpy

pytestmark = pytest.mark.oracle
from helpers.jaxpr_text import canonical


@pytest.fixture
def x64():
    with x64_in_both():
        yield


def assert_tree_matches(got, want):
    got_leaves, want_leaves = didax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert_matches(g, w)


PROGRAMS = {
    "asarray_scalars": lambda lib, np_: (np_.asarray(1.0), np_.asarray(1), np_.asarray(1j)),
    "array_of_list": lambda lib, np_: (np_.array([1.5, 2.0]), np_.array([1, 2])),
    "array_of_float64": lambda lib, np_: np_.asarray(np.array([0.1, 1 / 3], np.float64)),
    "array_of_complex128": lambda lib, np_: np_.asarray(np.array([0.1 + 1j / 3])),
    "defaults": lambda lib, np_: (np_.ones(3), np_.zeros(2), np_.eye(2), np_.full(2, 3.0)),
    "arange": lambda lib, np_: (np_.arange(3), np_.arange(0.0, 1.0, 0.25)),
    "linspace": lambda lib, np_: np_.linspace(0, 1, 5),
    "like": lambda lib, np_: (np_.zeros_like(np_.arange(2)), np_.ones_like(2.0)),
    "float32_stays": lambda lib, np_: np_.ones(2, np.float32) * 2.5,
    "int32_stays": lambda lib, np_: np_.ones(2, np.int32) + 1,
    "weak_float64": lambda lib, np_: np_.asarray(1.0) / 3,
    "precision": lambda lib, np_: np_.asarray(1.0) + 1e-12,
    "reductions": lambda lib, np_: (
        np_.sum(np_.arange(4)),
        np_.mean(np_.arange(4)),
        np_.argmax(np_.arange(4)),
        np_.prod(np_.asarray([1.5, 2.0])),
    ),
    "where": lambda lib, np_: np_.where(np_.arange(3) > 0, 1.0, 0.0),
    "astype_float": lambda lib, np_: np_.arange(3).astype(float),
    "complex128_math": lambda lib, np_: np_.exp(np_.array([1 + 1j, 0.5j])) * 2,
    "jit_python_scalar": lambda lib, np_: lib.jit(lambda x: x * 1.1 + 1)(2.0),
    "jit_float64": lambda lib, np_: lib.jit(lambda x: np_.sin(x) * 1.1)(np.array([0.1, 0.2])),
    "jit_int64": lambda lib, np_: lib.jit(lambda x: x * 3 + 2**40)(np.array([1, 2], np.int64)),
    "jit_complex128": lambda lib, np_: lib.jit(lambda z: np_.exp(z) * np_.conj(z))(
        np.array([1 + 1j], np.complex128)
    ),
    "grad": lambda lib, np_: (lib.grad(lambda x: x**3)(2.0), lib.grad(np_.sin)(0.3)),
    "grad_complex128": lambda lib, np_: lib.grad(lambda z: np_.abs(z) ** 2)(np.complex128(1 + 2j)),
    "vmap": lambda lib, np_: lib.vmap(lambda x: x * 2.0)(np.arange(3.0)),
    "random_float64": lambda lib, np_: (
        lib.random.uniform(lib.random.PRNGKey(0), (3,)),
        lib.random.normal(lib.random.PRNGKey(1), (2, 2)),
        lib.jit(lambda k: lib.random.uniform(k, (2,)))(lib.random.PRNGKey(2)),
    ),
    "random_int64": lambda lib, np_: (
        lib.random.randint(lib.random.PRNGKey(0), (4,), 0, 10),
        lib.random.randint(lib.random.PRNGKey(0), (2,), -(2**40), 2**40),
        lib.random.bits(lib.random.PRNGKey(3), (2,), np.uint64),
        lib.random.PRNGKey(2**40 + 7),
    ),
    "random_others": lambda lib, np_: (
        lib.random.bernoulli(lib.random.PRNGKey(0), 0.5, (4,)),
        lib.random.permutation(lib.random.PRNGKey(0), 5),
        lib.random.split(lib.random.PRNGKey(4)),
    ),
}


def _jax_programs():
    """JAX's outcomes of the programs, in the flag's current setting: compiled programs
    (helpers/oracle.py; eagerly, each of JAX's operations is a compile of its own)."""
    return EagerJax(lambda: [(PROGRAMS[name], (jax, jnp), {}) for name in sorted(PROGRAMS)])


# one for each setting of the flag, computed in the first test of that setting
JAX_OUTCOMES = {True: _jax_programs(), False: _jax_programs()}


def assert_same_outcome(name):
    # the same values, or the same exception type (2**40 overflows int32 in 32 bits)
    x64 = jax.config.jax_enable_x64
    want = JAX_OUTCOMES[x64].outcome(sorted(PROGRAMS).index(name))
    if isinstance(want, Exception):  # JAX's exception is the expected one
        with pytest.raises(type(want)):
            PROGRAMS[name](didax, dnp)
        return
    assert_tree_matches(PROGRAMS[name](didax, dnp), want)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_under_x64(x64, name):
    assert_same_outcome(name)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_back_in_32_bits(name):
    for lib in (didax, jax):  # a round trip through x64 leaves nothing behind
        lib.config.update("jax_enable_x64", True)
        lib.config.update("jax_enable_x64", False)
    assert_same_outcome(name)


def test_jaxprs_under_x64(x64):
    def f(np_, x):  # eye's iotas are of the default int (a traced int32 + k did not add)
        return x * 1.1 + np_.sin(x) + np_.sum(np_.arange(3)) + np_.eye(3, k=1)[0]

    for arg in (2.0, np.float32(2.0), np.arange(3.0)):
        got = didax.make_jaxpr(lambda x: f(dnp, x))(arg)
        want = jax.make_jaxpr(lambda x: f(jnp, x))(arg)
        assert canonical(str(got)) == canonical(str(want))


def test_jit_cache_keys_on_x64():
    # the same function and argument values trace anew when the flag changes, as in JAX
    results = {}
    for lib, np_ in ((didax, dnp), (jax, jnp)):
        f = lib.jit(lambda x, np_=np_: x + np_.ones(2) / 3)
        outs = [f(1.0)]
        lib.config.update("jax_enable_x64", True)
        try:
            outs.append(f(1.0))
        finally:
            lib.config.update("jax_enable_x64", False)
        outs.append(f(1.0))
        results[lib] = outs
    assert [o.dtype for o in results[didax]] == [np.float32, np.float64, np.float32]
    assert_tree_matches(results[didax], results[jax])


def test_lowered_module_has_64_bit_types(x64):
    text = didax.jit(lambda x: x * 2).lower(np.arange(3.0)).as_text()
    assert "tensor<3xf64>" in text
    text = didax.jit(lambda x: x * 2).lower(np.arange(3)).as_text()
    assert "tensor<3xi64>" in text


SCRIPT = Path(__file__).parent / "scripts" / "x64_from_env.py"


@pytest.mark.parametrize("value", [None, "0", "1", "true", "False"])
def test_environment_variable_as_jax_reads_it(value):
    env = dict(os.environ)
    env.pop("JAX_ENABLE_X64", None)
    if value is not None:
        env["JAX_ENABLE_X64"] = value
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "didax", "jax"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    got, want = done.stdout.splitlines()
    assert got == want
