"""Oracle: `didax.ad_checkpoint.saved_residuals` / `print_saved_residuals` name the values
`vjp` keeps for the backward pass as JAX 0.10.2's do: the same avals, in the same order, from
the same source (argument, constant, literal, named value, equation and its line)."""

from __future__ import annotations

import contextlib
import io

import didax
import didax.numpy as dnp
import pytest
from didax import ad_checkpoint as dad

jax = pytest.importorskip("jax")
jnp = jax.numpy
jad = pytest.importorskip("jax.ad_checkpoint")
# JAX 0.10.2 exports only the printing one; the list it prints is jax._src's saved_residuals
jax_saved_residuals = pytest.importorskip("jax._src.ad_checkpoint").saved_residuals

pytestmark = pytest.mark.oracle

LIBS = [(didax, dnp, dad), (jax, jnp, jad)]


def _chain(m, np_, ad):
    return lambda x: np_.sin(np_.cos(np_.sin(x)))


def _layers(m, np_, ad):
    def g(w, x):
        y = ad.checkpoint_name(np_.sin(w @ x), "h")
        return np_.sum(np_.cos(w @ y))

    return g


def _policy(name):
    return lambda m, np_, ad: m.checkpoint(_layers(m, np_, ad), policy=name(m))


# (name, function of (lib, numpy, ad_checkpoint) -> (fn, args, kwargs))
CASES = {
    "chain": lambda m, np_, ad: (_chain(m, np_, ad), (1.0,), {}),
    # tanh's jvp as JAX writes it, (t + t tanh)(1 - tanh): it keeps tanh and 1 - tanh
    "tanh layer": lambda m, np_, ad: (
        lambda w, x: np_.sum(np_.tanh(w @ x)),
        (np_.ones((3, 3)), np_.ones(3)),
        {},
    ),
    "checkpointed chain": lambda m, np_, ad: (m.checkpoint(_chain(m, np_, ad)), (1.0,), {}),
    "named": lambda m, np_, ad: (_layers(m, np_, ad), (np_.ones((3, 3)), np_.ones(3)), {}),
    **{
        f"policy {p}": lambda m, np_, ad, p=p: (
            _policy(lambda m: getattr(m.checkpoint_policies, p))(m, np_, ad),
            (np_.ones((3, 3)), np_.ones(3)),
            {},
        )
        for p in ("dots_saveable", "everything_saveable", "nothing_saveable")
    },
    "names policy": lambda m, np_, ad: (
        _policy(lambda m: m.checkpoint_policies.save_only_these_names("h"))(m, np_, ad),
        (np_.ones((3, 3)), np_.ones(3)),
        {},
    ),
    "pytree and keyword": lambda m, np_, ad: (
        lambda p, y: np_.sin(p["a"] * y),
        ({"a": 1.0, "b": np_.ones(2)},),
        {"y": np_.ones(2)},
    ),
    "constant": lambda m, np_, ad: (
        (lambda c: lambda x: np_.sin(x * c))(np_.arange(3.0)),
        (np_.ones(3),),
        {},
    ),
}


def _printed(m, np_, ad, case):
    fn, args, kwargs = CASES[case](m, np_, ad)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        ad.print_saved_residuals(fn, *args, **kwargs)
    return out.getvalue()


@pytest.mark.parametrize("case", CASES)
def test_print_saved_residuals_matches_jax(case):
    ours, theirs = (_printed(*lib, case) for lib in LIBS)
    assert ours == theirs
    assert ours  # every case saves something


@pytest.mark.parametrize("case", ["chain", "named", "policy dots_saveable"])
def test_saved_residuals_avals_match_jax(case):
    ours, theirs = (_saved(lib, case) for lib in LIBS)
    assert ours == theirs


def _saved(lib, case):
    fn, args, kwargs = CASES[case](*lib)
    saved = dad.saved_residuals if lib[0] is didax else jax_saved_residuals
    return [(a.shape, a.dtype, src) for a, src in saved(fn, *args, **kwargs)]


def test_checkpoint_trades_residuals_for_recomputation():
    """Under `checkpoint` with the default policy the chain keeps only its argument."""
    fn, args, _ = CASES["checkpointed chain"](*LIBS[0])
    assert [src for _, src in dad.saved_residuals(fn, *args)] == ["from the argument x"]
