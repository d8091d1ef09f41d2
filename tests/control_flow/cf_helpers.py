"""Helpers for the control-flow tests: canonical jaxpr text (helpers.jaxpr_text), the two
namespaces a program is written against, and value comparison."""

from __future__ import annotations

import collections
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np

# A namedtuple registered with a flatten that keeps `tag` as aux data: two children for three
# fields, so its key paths must come from the registered flatten (`[<flat index 0>]`).
Tagged = collections.namedtuple("Tagged", "a b tag")


def _tagged_flatten(t: Tagged) -> tuple:
    return (t.a, t.b), t.tag


def _tagged_unflatten(tag: Any, xs: Any) -> Tagged:
    return Tagged(xs[0], xs[1], tag)


didax.tree_util.register_pytree_node(Tagged, _tagged_flatten, _tagged_unflatten)
_jax_registered: list[bool] = []  # JAX's registry refuses a second registration


def namespaces() -> tuple[SimpleNamespace, SimpleNamespace]:
    import jax
    import jax.numpy as jnp

    if not _jax_registered:
        jax.tree_util.register_pytree_node(Tagged, _tagged_flatten, _tagged_unflatten)
        _jax_registered.append(True)

    jx = SimpleNamespace(
        np=jnp,
        lax=jax.lax,
        jvp=jax.jvp,
        vmap=jax.vmap,
        grad=jax.grad,
        jit=jax.jit,
        make_jaxpr=jax.make_jaxpr,
        name="jax",
    )
    dx = SimpleNamespace(
        np=dnp,
        lax=didax.lax,
        jvp=didax.jvp,
        vmap=didax.vmap,
        grad=getattr(didax, "grad", None),
        jit=getattr(didax, "jit", None),
        make_jaxpr=didax.make_jaxpr,
        name="didax",
    )
    return jx, dx


def assert_close(got: Any, want: Any, rtol: float = 1e-4, atol: float = 1e-5) -> None:
    """Same tree, dtypes and shapes; float values within JAX's float32 tolerance."""
    got_leaves, got_tree = didax.tree_util.tree_flatten(got)
    want_leaves, want_tree = didax.tree_util.tree_flatten(want)
    assert len(got_leaves) == len(want_leaves), (got, want)
    assert str(got_tree) == str(want_tree), (got_tree, want_tree)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (g.shape, w.shape)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


@dataclass(frozen=True)
class Program:
    """A test program written once against a namespace (`ns.np`, `ns.lax`), its arguments,
    and optionally a batch of arguments (leading axis 3) with the in_axes to vmap it over."""

    name: str
    make: Callable[[SimpleNamespace], Callable[..., Any]]
    args: tuple
    batch: tuple | None = None
    in_axes: Any = 0


def transform_calls(
    programs: list[Program],
    jx: SimpleNamespace,
    jvp_call: Callable[[Program], Any],
    grad_of: Callable[[Program], Callable[..., Any] | None],
) -> dict[tuple[str, str], tuple[Callable, tuple, dict]]:
    """JAX's eval, jvp, vmap and grad calls of a table of programs, keyed `(kind, name)`, for
    `helpers.oracle.EagerJax`: `jvp_call(prog)` computes its jvp; vmap where a program has a
    batch; grad where `grad_of(prog)` gives the gradient function (not None)."""
    calls: dict[tuple[str, str], tuple[Callable, tuple, dict]] = {}
    for prog in programs:
        calls["eval", prog.name] = (prog.make(jx), prog.args, {})
        calls["jvp", prog.name] = (lambda prog=prog: jvp_call(prog), (), {})
        if prog.batch is not None:
            calls["vmap", prog.name] = (
                jx.vmap(prog.make(jx), in_axes=prog.in_axes),
                prog.batch,
                {},
            )
        grad = grad_of(prog)
        if grad is not None:
            calls["grad", prog.name] = (grad, prog.args, {})
    return calls
