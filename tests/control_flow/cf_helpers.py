"""Helpers for the control-flow tests: canonical jaxpr text (variables renamed in order of
first appearance), the two namespaces a program is written against, and value comparison."""

from __future__ import annotations

import collections
import re
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np

# A name that is a variable: a binder (`a:f32[]`) or a read (`sin a`, `(a, b)`), never a
# primitive (after `= `), a param name (before `=`) or a dtype in a param (`new_dtype=int32`).
_WORD = re.compile(r"(?<![\w.=\[])(?<!= )([a-z]+_?)(?![\w\[=(])")
_BINDER = re.compile(r"(?<![\w.])([a-z]+_?):")


def canonical(text: str) -> str:
    """`text` with its variables renamed v0, v1, ... in order of first appearance; `_` stays.
    NumPy integer reprs in params (`np.int64(1)`) print as plain ints."""
    text = re.sub(r"np\.int(?:32|64)\((-?\d+)\)", r"\1", text)
    binders = set(_BINDER.findall(text))
    names: dict[str, str] = {}

    def rename(m: re.Match[str]) -> str:
        word = m.group(1)
        if word not in binders:
            return word
        return names.setdefault(word, f"v{len(names)}")

    return _WORD.sub(rename, text)


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
