"""Helpers for the control-flow tests: canonical jaxpr text (helpers.jaxpr_text), the two
namespaces a program is written against, and value comparison."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np


def namespaces() -> tuple[SimpleNamespace, SimpleNamespace]:
    import jax
    import jax.numpy as jnp

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
