"""Oracle: `didax.random` against `jax.random` (JAX 0.10.2, `jax_threefry_partitionable`
on, its default): the same key gives the same bits, compared bit for bit with the same dtype
and shape, eagerly, under `jit` and under `vmap` over split keys. The float samplers
(`normal`, `exponential`, `gumbel`, ...) are jitted functions in both libraries, so eager
draws are XLA's arithmetic in both; keys, `split`, `fold_in` and `bits` are exact NumPy.

The jaxprs differ only where JAX's keys are typed: `tests/oracle/test_random_jaxpr.py`.

The time is XLA compiling, so programs are compiled once per module: JAX's draws of a test
family come from one `jax.jit` program run for each seed (`helpers.oracle.jax_per_key`; they
are eager JAX's bits, which the eager didax draws equal), and a case's `didax.jit` program is
compiled once for all its seeds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import didax
import didax.random as drandom
import ml_dtypes
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jrandom = pytest.importorskip("jax.random")
from helpers.oracle import jax_per_key

pytestmark = pytest.mark.oracle

SEEDS = [0, 1, 42, -7, 2**32 + 5]


def assert_same_bits(d: Any, j: Any) -> None:
    d_np, j_np = np.asarray(d), np.asarray(j)
    assert isinstance(d, didax.Array), type(d)
    assert d_np.dtype == j_np.dtype and d_np.shape == j_np.shape, (d_np, j_np)
    assert np.array_equal(d_np.reshape(-1).view(np.uint8), j_np.reshape(-1).view(np.uint8)), (
        d_np,
        j_np,
    )


_P7 = np.random.default_rng(1).uniform(0, 1, 7).astype(np.float32)

# Each case: a function of (random module, key) -> array, run with both libraries. The
# float transforms below are split off only to name them.
EXACT_EAGER: dict[str, Callable[[Any, Any], Any]] = {
    "split": lambda r, k: r.split(k),
    "split_3": lambda r, k: r.split(k, 3),
    "split_shape": lambda r, k: r.split(k, (2, 3)),
    "fold_in": lambda r, k: r.fold_in(k, 7),
    "fold_in_array": lambda r, k: r.fold_in(k, np.int32(-3)),
    "bits_scalar": lambda r, k: r.bits(k),
    "bits": lambda r, k: r.bits(k, (2, 3)),
    "bits_u8": lambda r, k: r.bits(k, (5,), np.uint8),
    "bits_u16": lambda r, k: r.bits(k, (5,), np.uint16),
    "uniform": lambda r, k: r.uniform(k, (3, 4)),
    "uniform_scalar": lambda r, k: r.uniform(k),
    "uniform_f16": lambda r, k: r.uniform(k, (6,), np.float16),
    "uniform_bf16": lambda r, k: r.uniform(k, (6,), ml_dtypes.bfloat16),
    "randint": lambda r, k: r.randint(k, (7,), 0, 10),
    "randint_negative": lambda r, k: r.randint(k, (2, 3), -50, 50),
    "randint_i8": lambda r, k: r.randint(k, (4,), -5, 5, np.int8),
    "randint_empty_range": lambda r, k: r.randint(k, (3,), 5, 5),
    "bernoulli": lambda r, k: r.bernoulli(k, 0.3, (9,)),
    "bernoulli_default": lambda r, k: r.bernoulli(k),
    "bernoulli_p_array": lambda r, k: r.bernoulli(k, np.float32([0.1, 0.5, 0.9])),
    "permutation_int": lambda r, k: r.permutation(k, 10),
    "permutation_array": lambda r, k: r.permutation(k, np.arange(8.0, dtype=np.float32)),
    "permutation_rows": lambda r, k: r.permutation(k, np.arange(12).reshape(4, 3)),
    "permutation_axis1": lambda r, k: r.permutation(k, np.arange(12).reshape(3, 4), axis=1),
    "permutation_independent": lambda r, k: r.permutation(
        k, np.arange(12).reshape(3, 4), axis=1, independent=True
    ),
    "choice": lambda r, k: r.choice(k, 10, (3,)),
    "choice_no_replace": lambda r, k: r.choice(k, 10, (4,), replace=False),
    "choice_array": lambda r, k: r.choice(k, np.arange(12.0, dtype=np.float32).reshape(4, 3), (2,)),
    "choice_p": lambda r, k: r.choice(k, 7, (40,), p=_P7),
    "choice_p_array": lambda r, k: r.choice(k, np.arange(14).reshape(7, 2), (3,), p=_P7),
    "choice_array_axis1": lambda r, k: r.choice(
        k, np.arange(12).reshape(3, 4), (2, 2), replace=False, axis=1
    ),
}

FLOAT_TRANSFORMS: dict[str, Callable[[Any, Any], Any]] = {
    "choice_p_no_replace": lambda r, k: r.choice(k, 7, (3,), replace=False, p=_P7),
    "normal": lambda r, k: r.normal(k, (200,)),
    "normal_2d": lambda r, k: r.normal(k, (3, 4)),
    "exponential": lambda r, k: r.exponential(k, (50,)),
    "gumbel": lambda r, k: r.gumbel(k, (50,)),
    "truncated_normal": lambda r, k, lower, upper: r.truncated_normal(k, lower, upper, (50,)),
    "uniform_range": lambda r, k: r.uniform(k, (20,), minval=-2.0, maxval=3.0),
    "categorical": lambda r, k: r.categorical(k, np.log(np.float32([0.1, 0.2, 0.3, 0.4]))),
    "categorical_no_replace": lambda r, k: r.categorical(
        k, np.log(np.float32([0.1, 0.2, 0.3, 0.4])), shape=(3,), replace=False
    ),
    "categorical_no_replace_axis0": lambda r, k: r.categorical(
        k, np.float32([[0.1, 0.9, 0.3], [0.5, 0.5, 0.0]]), axis=0, shape=(2, 3), replace=False
    ),
    "categorical_shape": lambda r, k: r.categorical(
        k, np.log(np.float32([[0.1, 0.9], [0.5, 0.5], [0.8, 0.2]])), shape=(4, 3)
    ),
}


@pytest.mark.parametrize("seed", SEEDS)
def test_keys_from_seeds(seed: int) -> None:
    assert_same_bits(drandom.PRNGKey(seed), jrandom.PRNGKey(seed))
    assert_same_bits(drandom.key_data(drandom.key(seed)), jrandom.key_data(jrandom.key(seed)))


ALL = {**EXACT_EAGER, **FLOAT_TRANSFORMS}
NAMES = sorted(ALL)
# A case's float parameters, passed as arguments (to JAX's program, to didax's sampler, to
# didax's jitted case), as an eager call passes them to the samplers' own jitted functions:
# closed over, XLA may fold them into the arithmetic, whose bits then depend on its
# optimization level (truncated_normal's did under `jax_disable_most_optimizations`).
PARAMS: dict[str, list[float]] = {"truncated_normal": [-1.0, 2.0]}
_jax_draws = jax_per_key(
    [(functools.partial(ALL[n], jrandom), PARAMS.get(n, [])) for n in NAMES], jrandom.PRNGKey
)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_exact_eager(name: str, seed: int) -> None:
    want = _jax_draws(seed)[NAMES.index(name)]
    assert_same_bits(ALL[name](drandom, drandom.PRNGKey(seed), *PARAMS.get(name, [])), want)


@functools.cache
def _didax_jitted(name: str) -> Any:
    """Case `name` under `didax.jit`: one program for all seeds."""
    return didax.jit(lambda k, *params: ALL[name](drandom, k, *params))


@pytest.mark.parametrize("name", NAMES)
def test_exact_under_jit(name: str) -> None:
    for seed in (3, -11):
        got = _didax_jitted(name)(drandom.PRNGKey(seed), *PARAMS.get(name, []))
        assert_same_bits(got, _jax_draws(seed)[NAMES.index(name)])


VMAPPED = ["uniform", "normal", "split", "permutation_int", "randint", "fold_in"]
_jax_vmapped_draws = jax_per_key(
    [(lambda keys, fn=ALL[n]: jax.vmap(lambda k: fn(jrandom, k))(keys), []) for n in VMAPPED],
    lambda seed: jrandom.split(jrandom.PRNGKey(seed), 4),
)


@pytest.mark.parametrize("name", VMAPPED)
def test_vmap_over_split_keys(name: str) -> None:
    fn = ALL[name]
    keys_d = drandom.split(drandom.PRNGKey(5), 4)
    want = _jax_vmapped_draws(5)[VMAPPED.index(name)]
    assert_same_bits(didax.jit(didax.vmap(lambda k: fn(drandom, k)))(keys_d), want)
    assert_same_bits(didax.vmap(lambda k: fn(drandom, k))(keys_d), want)


def test_vmap_in_axes_1_and_unbatched_key() -> None:
    keys_d = drandom.split(drandom.PRNGKey(2), 3).T
    keys_j = jrandom.split(jrandom.PRNGKey(2), 3).T
    f = lambda r: lambda k: r.uniform(k, (2,))  # noqa: E731
    assert_same_bits(
        didax.vmap(f(drandom), in_axes=1)(keys_d), jax.vmap(f(jrandom), in_axes=1)(keys_j)
    )
    g = lambda r: lambda k, x: r.uniform(k, (2,)) + x  # noqa: E731
    xs = np.arange(3.0, dtype=np.float32)
    assert_same_bits(
        didax.vmap(g(drandom), in_axes=(None, 0))(drandom.PRNGKey(1), xs),
        jax.vmap(g(jrandom), in_axes=(None, 0))(jrandom.PRNGKey(1), xs),
    )


# ----------------------------------------------------------------------------- typed keys


def test_typed_key_reads_as_jax() -> None:
    dk, jk = drandom.key(3), jrandom.key(3)
    assert repr(dk) == repr(jk)
    assert str(dk.dtype) == str(jk.dtype) and dk.shape == jk.shape and dk.ndim == jk.ndim
    ds, js = drandom.split(dk, 4), jrandom.split(jk, 4)
    assert repr(ds) == repr(js) and ds.shape == js.shape == (4,)
    assert repr(ds[1]) == repr(js[1]) and len(ds) == len(js)
    assert_same_bits(drandom.key_data(ds), jrandom.key_data(js))


def test_typed_keys_through_samplers_jit_and_vmap() -> None:
    dk, jk = drandom.key(9), jrandom.key(9)
    assert_same_bits(drandom.normal(dk, (4,)), jrandom.normal(jk, (4,)))
    out = didax.jit(lambda k: drandom.split(k))(dk)
    assert isinstance(out, drandom.KeyArray)
    assert_same_bits(drandom.key_data(out), jrandom.key_data(jrandom.split(jk)))
    ds, js = drandom.split(dk, 3), jrandom.split(jk, 3)
    assert_same_bits(
        didax.vmap(lambda k: drandom.uniform(k, (2,)))(ds),
        jax.vmap(lambda k: jrandom.uniform(k, (2,)))(js),
    )
    folded = didax.vmap(lambda k: drandom.fold_in(k, 1))(ds)
    assert_same_bits(
        drandom.key_data(folded), jrandom.key_data(jax.vmap(lambda k: jrandom.fold_in(k, 1))(js))
    )


def test_wrap_key_data_round_trip_and_equality() -> None:
    data = drandom.key_data(drandom.split(drandom.key(1), 2))
    wrapped = drandom.wrap_key_data(data)
    assert repr(wrapped) == repr(
        jrandom.wrap_key_data(jrandom.key_data(jrandom.split(jrandom.key(1), 2)))
    )
    assert np.asarray(wrapped == drandom.split(drandom.key(1), 2)).tolist() == [True, True]


def test_traced_seed_matches() -> None:
    for seed in (0, 5, -1):
        assert_same_bits(
            didax.jit(drandom.PRNGKey)(np.int32(seed)), jax.jit(jrandom.PRNGKey)(np.int32(seed))
        )


# ----------------------------------------------------------------------------- errors


# once accepted: seeds beyond int64 gave the key [0, 0], float shapes drew int(d) values
SILENT: list[Callable[[Any], Any]] = [
    lambda r: r.PRNGKey(2**64),
    lambda r: r.PRNGKey(2**63),
    lambda r: r.PRNGKey(-(2**63) - 1),
    lambda r: r.key(2**64),
    lambda r: r.normal(r.PRNGKey(0), (2.5,)),
    lambda r: r.uniform(r.PRNGKey(0), (np.float32(2.0), 3)),
    lambda r: r.bits(r.PRNGKey(0), (2.0,)),
    lambda r: r.randint(r.PRNGKey(0), (2.5,), 0, 4),
]


@pytest.mark.parametrize(
    "call",
    [
        lambda r: r.PRNGKey(np.zeros(2, np.int32)),
        lambda r: r.key(np.zeros(2, np.int32)),
        lambda r: r.split(r.split(r.PRNGKey(0)), 2),
        lambda r: r.uniform(r.split(r.PRNGKey(0)), (2,)),
        lambda r: r.bits(r.PRNGKey(0), (2,), np.int32),
        lambda r: r.uniform(r.PRNGKey(0), (2,), np.int32),
        lambda r: r.normal(r.PRNGKey(0), (2,), np.int32),
        lambda r: r.randint(r.PRNGKey(0), (2,), 0, 5, np.float32),
        lambda r: r.bernoulli(r.PRNGKey(0), 1),
        lambda r: r.fold_in(r.PRNGKey(0), np.arange(2)),
        lambda r: r.choice(r.PRNGKey(0), 3, (5,), replace=False),
        lambda r: r.choice(r.PRNGKey(0), 3, 5),
        lambda r: r.permutation(r.PRNGKey(0), 2.5),
        lambda r: r.fold_in(r.PRNGKey(0), -3),
        lambda r: r.fold_in(r.PRNGKey(0), 2**32),
        lambda r: r.choice(r.PRNGKey(0), 3, (2,), p=np.float32([0.5, 0.5])),
        lambda r: r.dirichlet(r.PRNGKey(0), np.float32(1.0)),
        lambda r: r.gamma(r.PRNGKey(0), 1.0, dtype=np.int32),
        lambda r: r.categorical(r.PRNGKey(0), np.zeros(3, np.float32), shape=(4,), replace=False),
        *SILENT,
    ],
)
def test_errors_as_jax(call: Callable[[Any], Any]) -> None:
    with pytest.raises(Exception) as want:
        call(jrandom)
    with pytest.raises(want.type):
        call(drandom)


@pytest.mark.parametrize("call", SILENT)
def test_seeds_and_shapes_once_accepted_raise_jax_type(call: Callable[[Any], Any]) -> None:
    with pytest.raises(Exception) as want:
        call(jrandom)
    with pytest.raises(Exception) as got:
        call(drandom)
    assert got.type is want.type, (got.value, want.value)
    if want.type is TypeError:  # JAX's words
        assert str(got.value) == str(want.value)
    else:  # JAX's is C's ("Python int too large to convert to C long"): didax names the seed
        assert "too large to convert" in str(got.value) and "seed" in str(got.value)


# ----------------------------------------------------------------------------- gamma family
# Marsaglia-Tsang rejection loops (nested while_loops under vmap): slow to compile, so a few
# cases, each eagerly (the jitted `_gamma` program) and one inside a user's jit.

# name: (draw(random module, key, *params), params); the params are the arguments of JAX's
# program (`jax_per_key`): closed over, XLA folds them into the rejection loops, other bits
GAMMA_CASES: dict[str, tuple[Callable[..., Any], tuple]] = {
    "gamma": (lambda r, k, a: r.gamma(k, a), (np.float32([0.3, 1.0, 2.5, 7.0]),)),
    "gamma_shape": (lambda r, k, a: r.gamma(k, a, (2, 3)), (np.float32(2.0),)),
    "loggamma": (lambda r, k, a: r.loggamma(k, a), (np.float32([0.05, 3.0]),)),
    "dirichlet": (lambda r, k, a: r.dirichlet(k, a), (np.float32([0.5, 1.0, 2.0]),)),
    "beta": (lambda r, k, a, b: r.beta(k, a, b), (np.float32([0.5, 2.0]), 1.5)),
    "dirichlet_batch": (
        lambda r, k, a: r.dirichlet(k, a, (2,)),
        (np.float32([[0.5, 1.0], [3.0, 0.2]]),),
    ),
}
GAMMA_NAMES = sorted(GAMMA_CASES)
_jax_gamma_draws = jax_per_key(
    [(functools.partial(fn, jrandom), list(ps)) for fn, ps in map(GAMMA_CASES.get, GAMMA_NAMES)],
    jrandom.PRNGKey,
)


@pytest.mark.parametrize("name", GAMMA_NAMES)
def test_gamma_family_exact(name: str) -> None:
    fn, params = GAMMA_CASES[name]
    for seed in (0, 7):
        want = _jax_gamma_draws(seed)[GAMMA_NAMES.index(name)]
        assert_same_bits(fn(drandom, drandom.PRNGKey(seed), *params), want)


def test_gamma_under_user_jit() -> None:
    fn, params = GAMMA_CASES["dirichlet"]
    got = didax.jit(lambda k: fn(drandom, k, *params))(drandom.PRNGKey(3))
    assert_same_bits(got, _jax_gamma_draws(3)[GAMMA_NAMES.index("dirichlet")])


def test_traced_typed_key_prints_its_key_type() -> None:
    seen: dict[str, str] = {}
    for lib, r in (("jax", jrandom), ("didax", drandom)):
        jit = jax.jit if lib == "jax" else didax.jit
        jit(lambda k, lib=lib: seen.setdefault(lib, repr(k)) and k)(r.split(r.key(0), 3))
    for text in seen.values():
        assert "key<fry>[3]" in text and "u32" not in text, seen
