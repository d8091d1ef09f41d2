"""Oracle: the samplers of `didax/random/distributions.py` (laplace ... multivariate_normal)
against `jax.random` 0.10.2: the same key gives the same values (bit for bit where both run
the same XLA arithmetic; to 1e-6 where a gamma draw's rejection loop runs eagerly), with the
same dtype and shape, eagerly, and to 1e-6 under `jit` and under `vmap` over split keys (an
outer program may fold constants, as XLA rounds them); the errors JAX
raises for bad dtypes and shapes; gradients of the reparameterized samplers.

The time is XLA compiling, so programs are compiled once per module: JAX's side of a test
family is one `jax.jit` program run for each seed (`helpers.oracle.jax_per_key`), and a case's `didax.jit`
program is compiled once for all its seeds (`_didax_jitted`). JAX's samplers are themselves
jitted functions whose eager calls pass the parameters as arguments; the programs here take
them as arguments too (Python ints, which JAX's samplers take as static, closed over), so XLA
compiles the same arithmetic and gives eager JAX's bits (with the session's options, which
didax's side compiles with too: `helpers.environment`; the oracles' quick ones,
`helpers.oracle._QUICK_COMPILE`, change the bits of cauchy, maxwell and wald). A JAX
error in such a program fails all its tests: JAX is the oracle, and all its cases run."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import didax
import didax.random as drandom
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jrandom = pytest.importorskip("jax.random")
from helpers.oracle import jax_per_key

pytestmark = [pytest.mark.oracle, pytest.mark.filterwarnings("ignore::RuntimeWarning")]

F = np.float32
COV = np.array([[2.0, 0.5], [0.5, 1.0]], F)
# (name, args after the key, kwargs, exact bits?)
CASES = [
    ("laplace", (), dict(shape=(5,)), True),
    ("laplace", (), dict(shape=(3,), dtype=np.float16), True),
    ("logistic", (), dict(shape=(5,)), True),
    ("cauchy", (), dict(shape=(2, 3)), True),
    ("rademacher", (), dict(shape=(6,)), True),
    ("rademacher", (), dict(shape=(4,), dtype=np.int8), True),
    ("pareto", (F([1.0, 2.0, 3.0]),), {}, True),
    ("rayleigh", (F(2.0),), dict(shape=(4,)), True),
    ("maxwell", (), dict(shape=(4,)), True),
    ("double_sided_maxwell", (F(1.0), F(2.0)), dict(shape=(4,)), True),
    ("weibull_min", (F(1.5), F(2.0)), dict(shape=(4,)), True),
    ("lognormal", (), dict(shape=(4,)), True),
    ("lognormal", (F([0.5, 2.0]),), {}, True),
    ("triangular", (0.0, 0.3, 1.0), dict(shape=(5,)), True),
    ("wald", (F([1.0, 2.0, 3.0]),), {}, True),
    ("t", (F(3.0),), dict(shape=(4,)), False),
    ("chisquare", (F([1.0, 2.0, 5.0]),), {}, False),
    ("f", (F(3.0), F(5.0)), dict(shape=(4,)), False),
    ("generalized_normal", (1.5,), dict(shape=(4,)), False),
    ("ball", (3,), dict(shape=(2,)), False),
    ("ball", (2,), dict(p=1.0), False),
    ("geometric", (F([0.2, 0.5, 0.9]),), {}, True),
    ("geometric", (0.3,), dict(shape=(5,)), True),
    ("multivariate_normal", (np.zeros(2, F), COV), dict(shape=(3,)), False),
    ("multivariate_normal", (np.ones((4, 2), F), COV), {}, False),
    ("multivariate_normal", (np.zeros(2, F), COV), dict(shape=(3,), method="svd"), False),
    ("multivariate_normal", (np.zeros(2, F), COV), dict(shape=(3,), method="eigh"), False),
    ("orthogonal", (3,), {}, False),
    ("orthogonal", (3,), dict(shape=(2,)), False),
    ("orthogonal", (2,), dict(m=4), False),
    ("orthogonal", (4,), dict(m=2), False),
]
IDS = [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


def _params(args: tuple) -> list[Any]:
    """The arguments a program takes: all but Python ints (ball's `d`, orthogonal's `n`),
    which the samplers need static."""
    return [a for a in args if not isinstance(a, int)]


def _sampler_call(name: str, args: tuple, kwargs: dict) -> Callable[..., Any]:
    """`(random module, key, *_params(args)) -> draws` of one case of CASES."""

    def call(r: Any, key: Any, *params: Any) -> Any:
        rest = iter(params)
        full = [a if isinstance(a, int) else next(rest) for a in args]
        return getattr(r, name)(key, *full, **kwargs)

    return call


def _jax_calls(calls: list[tuple[Callable[..., Any], list[Any]]], batch: bool = False) -> list:
    """`calls` (`fn(random module, key, *params)`, params) as `jax_per_key`'s calls of JAX,
    with `batch` vmapped over a batch of keys."""
    out = []
    for fn, params in calls:
        draw = functools.partial(fn, jrandom)
        if batch:
            draw = lambda keys, *p, draw=draw: jax.vmap(lambda k: draw(k, *p))(keys)  # noqa: E731
        out.append((draw, params))
    return out


_CASE_CALLS = [(_sampler_call(n, a, kw), _params(a)) for n, a, kw, _ in CASES]
_jax_draws = jax_per_key(_jax_calls(_CASE_CALLS), jrandom.key)


@functools.cache
def _didax_jitted(i: int) -> Any:
    """Case `i` under an outer `didax.jit` (its parameters closed over), one program for all
    seeds."""
    name, args, kwargs, _ = CASES[i]
    return didax.jit(lambda k: getattr(drandom, name)(k, *args, **kwargs))


def _same(got, want, exact, what):
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got, want)
    if exact:
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (what, got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=what)


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
@pytest.mark.parametrize("seed", [0, 42])
def test_same_values_as_jax(i, seed):
    name, args, kwargs, exact = CASES[i]
    want = _jax_draws(seed)[i]
    ours = getattr(drandom, name)
    _same(ours(drandom.key(seed), *args, **kwargs), want, exact, f"{name} eager")
    _same(ours(drandom.PRNGKey(seed), *args, **kwargs), want, exact, f"{name} raw key")
    # under an outer jit the parameters are constants XLA may fold (a division becomes a
    # multiplication by the reciprocal): the last place may differ
    _same(_didax_jitted(i)(drandom.key(seed)), want, False, f"{name} jit")


_jax_vmapped_draws = jax_per_key(
    _jax_calls(_CASE_CALLS[:12], batch=True), lambda seed: jrandom.split(jrandom.key(seed), 3)
)


@pytest.mark.parametrize("i", range(12), ids=IDS[:12])
def test_vmap_over_keys(i):
    name, args, kwargs, _ = CASES[i]
    got = didax.vmap(lambda k: getattr(drandom, name)(k, *args, **kwargs))(
        drandom.split(drandom.key(3), 3)
    )
    _same(got, _jax_vmapped_draws(3)[i], False, name)


@pytest.mark.parametrize(
    "call",
    [
        lambda r, k: r.laplace(k, (2,), dtype=np.int32),
        lambda r, k: r.pareto(k, F([1.0, 2.0]), shape=(3,)),
        lambda r, k: r.geometric(k, 0.5, dtype=np.float32),
        lambda r, k: r.multivariate_normal(k, np.zeros(()), COV),
        lambda r, k: r.multivariate_normal(k, np.zeros(3), COV),
        lambda r, k: r.multivariate_normal(k, np.zeros(2), COV, method="qr"),
    ],
)
def test_errors_as_in_jax(call):
    with pytest.raises(Exception) as want:
        call(jrandom, jrandom.key(0))
    with pytest.raises(type(want.value)):
        call(drandom, drandom.key(0))


@pytest.mark.parametrize(
    "name,fn",
    [
        ("pareto", lambda r, k, b: r.pareto(k, b, (3,)).sum()),
        ("rayleigh", lambda r, k, s: r.rayleigh(k, s, (3,)).sum()),
        ("weibull_min", lambda r, k, s: r.weibull_min(k, s, 2.0, (3,)).sum()),
        ("lognormal", lambda r, k, s: r.lognormal(k, s, (3,)).sum()),
        ("wald", lambda r, k, m: r.wald(k, m, (3,)).sum()),
        ("triangular", lambda r, k, m: r.triangular(k, 0.0, m, 1.0, (3,)).sum()),
        ("double_sided_maxwell", lambda r, k, s: r.double_sided_maxwell(k, 0.0, s, (3,)).sum()),
    ],
)
def test_gradients_as_in_jax(name, fn):
    want = jax.grad(lambda v: fn(jrandom, jrandom.key(1), v))(
        F(1.5) if name != "triangular" else F(0.4)
    )
    x = F(1.5) if name != "triangular" else F(0.4)
    got = didax.grad(lambda v: fn(drandom, drandom.key(1), v))(x)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_key_impl_and_dtype():
    assert drandom.key_impl(drandom.key(0)) == jrandom.key_impl(jrandom.key(0))
    assert drandom.key_impl(drandom.PRNGKey(0)) == jrandom.key_impl(jrandom.PRNGKey(0))
    assert str(drandom.key_dtype()) == str(jrandom.key_dtype())
    assert drandom.key(0).dtype == drandom.key_dtype()


P5 = F([0.1, 0.2, 0.3, 0.4, 1e-9])
# (name, draw(random module, key, mode, *params), params)
MODES = [
    ("gumbel", lambda r, k, m: r.gumbel(k, (7,), np.float32, mode=m), ()),
    ("gumbel16", lambda r, k, m: r.gumbel(k, (7,), np.float16, mode=m), ()),
    ("bernoulli", lambda r, k, m, p: r.bernoulli(k, p, mode=m), (F([1e-8, 0.3, 0.5, 0.9]),)),
    ("choice", lambda r, k, m, p: r.choice(k, 5, (3,), p=p, mode=m), (P5,)),
    (
        "choice-noreplace",
        lambda r, k, m, p: r.choice(k, 5, (3,), replace=False, p=p, mode=m),
        (P5,),
    ),
    ("categorical", lambda r, k, m, lg: r.categorical(k, lg, shape=(4,), mode=m), (np.log(P5),)),
    (
        "categorical-noreplace",
        lambda r, k, m, lg: r.categorical(k, lg, shape=(3,), replace=False, mode=m),
        (np.log(P5),),
    ),
]
MODE_NAMES = ["low", "high", "highest"]
# JAX raises for bernoulli's "highest": that member is not in the program
_MODE_MEMBERS = [(i, m) for i, c in enumerate(MODES) for m in MODE_NAMES]
_MODE_MEMBERS.remove((2, "highest"))
_jax_mode_draws = jax_per_key(
    _jax_calls(
        [
            (lambda r, k, *p, call=MODES[i][1], m=m: call(r, k, m, *p), list(MODES[i][2]))
            for i, m in _MODE_MEMBERS
        ]
    ),
    jrandom.key,
)


@pytest.mark.parametrize("mode", MODE_NAMES)
@pytest.mark.parametrize("i", range(len(MODES)), ids=[m[0] for m in MODES])
def test_modes_as_in_jax(i, mode):
    name, call, params = MODES[i]
    if name == "bernoulli" and mode == "highest":
        for r, k in ((jrandom, jrandom.key(0)), (drandom, drandom.key(0))):
            with pytest.raises(ValueError):
                call(r, k, mode, *params)
        return
    for seed in (0, 5):
        want = _jax_mode_draws(seed)[_MODE_MEMBERS.index((i, mode))]
        _same(call(drandom, drandom.key(seed), mode, *params), want, True, f"{name} {mode}")


LAM = F([0.0, 0.5, 3.0, 9.9, 10.0, 25.0, 300.0])
# (name, draw(random module, key, *params), params)
COUNTS = [
    ("poisson", lambda r, k, lam: r.poisson(k, lam), (LAM,)),
    ("poisson-scalar", lambda r, k, lam: r.poisson(k, lam, shape=(5,)), (4.0,)),
    ("poisson-int8", lambda r, k, lam: r.poisson(k, lam, dtype=np.int8), (F([1.0, 30.0]),)),
    (
        "binomial",
        lambda r, k, n, p: r.binomial(k, n, p),
        (F([5, 20, 100, 1000, 3]), F([0.3, 0.6, 0.5, 0.01, 0.9])),
    ),
    ("binomial-scalar", lambda r, k, n, p: r.binomial(k, n, p, shape=(4,)), (10.0, 0.3)),
    (
        "binomial-bad",
        lambda r, k, n, p: r.binomial(k, n, p),
        (F([-1.0, 5.0, np.inf]), F([0.5, np.nan, 0.5])),
    ),
    ("multinomial", lambda r, k, n, p: r.multinomial(k, n, p), (20.0, F([0.2, 0.5, 0.3]))),
    (
        "multinomial-batch",
        lambda r, k, n, p: r.multinomial(k, n, p, shape=(2, 3)),
        (F([10, 50]), F([0.2, 0.5, 0.3])),
    ),
]
_jax_counts = jax_per_key(
    _jax_calls([(call, list(params)) for _, call, params in COUNTS]), jrandom.key
)


@functools.cache
def _didax_jitted_count(i: int) -> Any:
    """Count case `i` under an outer `didax.jit` (its parameters closed over)."""
    _, call, params = COUNTS[i]
    return didax.jit(lambda k: call(drandom, k, *params))


@pytest.mark.parametrize("i", range(len(COUNTS)), ids=[c[0] for c in COUNTS])
@pytest.mark.parametrize("seed", [0, 3])
def test_counts_as_in_jax(i, seed):
    name, call, params = COUNTS[i]
    want = _jax_counts(seed)[i]
    _same(call(drandom, drandom.key(seed), *params), want, True, f"{name} eager")
    _same(_didax_jitted_count(i)(drandom.key(seed)), want, True, f"{name} jit")


def test_count_errors_as_in_jax():
    for r, k in ((jrandom, jrandom.key(0)), (drandom, drandom.key(0))):
        with pytest.raises(ValueError):
            r.binomial(k, 3.0, 0.5, dtype=np.int32)


ALPHAS = F([0.3, 1.0, 2.5, 7.0])
GAMMAS = ["gamma", "loggamma"]


@functools.cache
def _jax_gammas() -> dict[str, list[Any]]:
    """JAX's draws of `test_random_gamma_primitive`, both samplers in one `jax.jit` program:
    the draw from key(2), vmapped over 3 split keys, vmapped over two rows of shapes."""

    def program(key: Any, keys: Any, alphas: Any, rows: Any) -> dict[str, list[Any]]:
        out = {}
        for name in GAMMAS:
            sample = getattr(jrandom, name)
            out[name] = [
                sample(key, alphas),
                jax.vmap(lambda k, sample=sample: sample(k, alphas))(keys),
                jax.vmap(lambda al, sample=sample: sample(key, al))(rows),
            ]
        return out

    keys = jrandom.split(jrandom.key(1), 3)
    return jax.jit(program)(jrandom.key(2), keys, ALPHAS, np.stack([ALPHAS, 2 * ALPHAS]))


@pytest.mark.parametrize("name", GAMMAS)
def test_random_gamma_primitive(name):
    # the `_gamma` jit holds one `random_gamma[log_space=...]` equation, as JAX's
    text = str(didax.make_jaxpr(lambda k: getattr(drandom, name)(k, ALPHAS))(drandom.PRNGKey(0)))
    assert f"random_gamma[log_space={name == 'loggamma'}]" in text, text
    assert drandom.random_gamma_p.name == jrandom.random_gamma_p.name == "random_gamma"
    want, want_keys, want_rows = _jax_gammas()[name]
    _same(getattr(drandom, name)(drandom.key(2), ALPHAS), want, True, name)
    # vmap over keys, and over the shapes with one key (the batch rule moves both to front)
    keys_d = drandom.split(drandom.key(1), 3)
    got = didax.vmap(lambda k: getattr(drandom, name)(k, ALPHAS))(keys_d)
    _same(got, want_keys, False, "vmap keys")
    alphas = np.stack([ALPHAS, 2 * ALPHAS])
    got = didax.vmap(lambda al: getattr(drandom, name)(drandom.key(2), al))(alphas)
    _same(got, want_rows, False, "vmap shapes")


def _gamma_draws(random: Any, name: str, a: Any) -> Any:
    key = random.key(0)
    if name == "beta":
        return random.beta(key, a, a[::-1])
    return getattr(random, name)(key, a, shape=(3, 4))


@functools.cache
def _jax_gamma_grads() -> dict[str, Any]:
    """JAX's gradients of `test_gamma_draws_differentiate_in_the_shape`, one `jax.jit`
    program for the three samplers."""

    def program(a: Any) -> dict[str, Any]:
        return {
            name: jax.grad(lambda a, name=name: jax.numpy.sum(_gamma_draws(jrandom, name, a)))(a)
            for name in ("gamma", "loggamma", "beta")
        }

    return jax.jit(program)(ALPHAS)


@pytest.mark.parametrize("name", ["gamma", "loggamma", "beta"])
@pytest.mark.parametrize("jitted", [False, True])
def test_gamma_draws_differentiate_in_the_shape(name, jitted):
    # issue 24: JAX's jvp of random_gamma, the tangent of `a` times random_gamma_grad(a, draw)
    d_fn = didax.grad(lambda a: didax.numpy.sum(_gamma_draws(drandom, name, a)))
    got = (didax.jit(d_fn) if jitted else d_fn)(ALPHAS)
    np.testing.assert_allclose(got, _jax_gamma_grads()[name], rtol=2e-5, atol=1e-6)


def test_gamma_draw_not_in_the_differentiated_value():
    # a draw that does not depend on a differentiated value is fine
    got = didax.grad(lambda x: x * drandom.gamma(drandom.key(0), 2.0))(1.0)
    want = jax.grad(lambda x: x * jrandom.gamma(jrandom.key(0), 2.0))(1.0)
    np.testing.assert_allclose(got, want, rtol=1e-6)
