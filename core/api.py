"""The transformations users call: make_jaxpr, jvp, vmap (and, with reverse mode, grad & co).

Layer 5. Each function here flattens pytrees, checks its arguments and calls the flat driver
of an interpreter (`jvp_flat`, `vmap_flat`, `trace_to_jaxpr`). Like `jax`'s public API.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence

import numpy as np

from didax import core, dtypes
from didax.core import NOT_MAPPED
from didax.interpreters import jvp as jvp_interp
from didax.interpreters import staging
from didax.interpreters import vmap as vmap_interp
from didax.jaxpr import ClosedJaxpr
from didax.lax import shape
from didax.tree_util import (PyTreeDef, broadcast_prefix, tree_flatten, tree_unflatten)


def _arg_names(fn: Callable[..., Any], n: int) -> list[str]:
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        params = []
    return [params[i] if i < len(params) else f"args[{i}]" for i in range(n)]


def _check_leaves(leaves: Sequence[Any], fn: Callable[..., Any], what: str) -> None:
    for leaf in leaves:
        if not core.is_arraylike(leaf):
            raise TypeError(f"Argument {leaf!r} of type {type(leaf).__name__} passed to {what} "
                            f"of {getattr(fn, '__name__', fn)} is not a valid didax type: "
                            "expected arrays, scalars, or pytrees of them")


def flatten_fun(fn: Callable[..., Any], in_tree: PyTreeDef
                ) -> tuple[Callable[..., list[Any]], Callable[[], PyTreeDef]]:
    """`fn` as a function of flat leaves returning flat leaves; the second function returns
    the output tree structure once the first has been called."""
    store: list[PyTreeDef] = []

    def flat_fn(*leaves: Any) -> list[Any]:
        args = tree_unflatten(in_tree, leaves)
        out = fn(*args)
        out_leaves, out_tree = tree_flatten(out)
        store[:] = [out_tree]
        return out_leaves

    return flat_fn, lambda: store[0]


def _static_split(args: tuple, static_argnums: Sequence[int]) -> tuple[list, Callable]:
    static = {i % len(args) for i in static_argnums} if args else set()
    dynamic = [a for i, a in enumerate(args) if i not in static]

    def merge(dyn: Sequence[Any]) -> list[Any]:
        it = iter(dyn)
        return [args[i] if i in static else next(it) for i in range(len(args))]

    return dynamic, merge


# ----------------------------------------------------------------------------- make_jaxpr


def make_jaxpr(fn: Callable[..., Any], static_argnums: int | Sequence[int] = ()
               ) -> Callable[..., ClosedJaxpr]:
    """The jaxpr of `fn` at the types of the given arguments. Like `jax.make_jaxpr`.

    Closed-over arrays become constvars; scalar constants become typed literals.
    """
    static_argnums = (static_argnums,) if isinstance(static_argnums, int) else static_argnums

    @functools.wraps(fn)
    def make(*args: Any, **kwargs: Any) -> ClosedJaxpr:
        closed, _ = trace_fn(fn, args, kwargs, static_argnums)
        return closed

    return make


def trace_fn(fn: Callable[..., Any], args: tuple, kwargs: dict,
             static_argnums: Sequence[int] = ()) -> tuple[ClosedJaxpr, PyTreeDef]:
    """Stage `fn(*args, **kwargs)`; returns the jaxpr and the output tree."""
    dynamic, merge = _static_split(args, static_argnums)
    leaves, in_tree = tree_flatten((dynamic, kwargs))
    _check_leaves(leaves, fn, "make_jaxpr")

    def call(dyn: list, kw: dict) -> Any:
        return fn(*merge(dyn), **kw)

    flat_fn, out_tree = flatten_fun(call, in_tree)
    closed = staging.trace_to_jaxpr(flat_fn, [core.get_aval(x) for x in leaves])
    return closed, out_tree()


# ----------------------------------------------------------------------------- jvp


def jvp(fn: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]
        ) -> tuple[Any, Any]:
    """Forward-mode Jacobian-vector product. Like `jax.jvp`."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("primal and tangent arguments to jvp must be tuples or lists; found "
                        f"{type(primals).__name__} and {type(tangents).__name__}.")
    primal_leaves, in_tree = tree_flatten(tuple(primals))
    tangent_leaves, tangent_tree = tree_flatten(tuple(tangents))
    if in_tree != tangent_tree:
        raise TypeError("primal and tangent arguments to jvp must have the same tree "
                        f"structure; primals have tree structure {in_tree} whereas tangents "
                        f"have tree structure {tangent_tree}.")
    _check_leaves(primal_leaves, fn, "jvp")
    for p, t in zip(primal_leaves, tangent_leaves, strict=True):
        pa, ta = core.get_aval(p), core.get_aval(t)
        if pa.shape != ta.shape:
            raise ValueError("jvp called with different primal and tangent shapes; got primal "
                             f"shape {pa.shape} and tangent shape {ta.shape}")
        if core.tangent_aval(pa).dtype != ta.dtype and dtypes.is_float(pa.dtype):
            raise TypeError("primal and tangent arguments to jvp do not match; dtypes must be "
                            f"equal, got {pa.dtype.name} and {ta.dtype.name}")
    flat_fn, out_tree = flatten_fun(fn, in_tree)
    tangents_in = [t if dtypes.is_float(core.get_aval(p).dtype) else core.Zero.like(p)
                   for p, t in zip(primal_leaves, tangent_leaves, strict=True)]
    primals_out, tangents_out = jvp_interp.jvp_flat(flat_fn, primal_leaves, tangents_in)
    tree = out_tree()
    return tree_unflatten(tree, primals_out), tree_unflatten(tree, tangents_out)


# ----------------------------------------------------------------------------- vmap


def vmap(fn: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0) -> Callable[..., Any]:
    """Vectorize `fn` over an axis of its inputs. Like `jax.vmap`.

    `in_axes`/`out_axes` are ints, None, or pytree prefixes of the arguments/outputs.
    """
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    _check_axes_spec(in_axes, "in_axes")
    _check_axes_spec(out_axes, "out_axes")

    @functools.wraps(fn)
    def batched(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise NotImplementedError("vmap: keyword arguments are not batched; pass them "
                                      "positionally")
        leaves, in_tree = tree_flatten(args)
        _check_leaves(leaves, fn, "vmap")
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries "
                             f"corresponding to the positional arguments passed to the "
                             f"function, but got len(in_axes)={len(in_axes)}, "
                             f"len(args)={len(args)}")
        dims = broadcast_prefix(in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args),
                                in_tree, "vmap in_axes")
        dims = [_normalize_axis(d, x, "in_axes") for d, x in zip(dims, leaves, strict=True)]
        axis_size = _axis_size(fn, args, leaves, dims, in_tree)
        flat_fn, out_tree = flatten_fun(fn, in_tree)
        outs, out_dims = vmap_interp.vmap_flat(flat_fn, axis_size, dims, leaves)
        tree = out_tree()
        dsts = broadcast_prefix(out_axes, tree, "vmap out_axes")
        moved = []
        for val, d, dst in zip(outs, out_dims, dsts, strict=True):
            if dst is None:
                if d is not NOT_MAPPED:
                    raise ValueError("vmap has mapped output but out_axes is None")
                moved.append(val)
            else:
                ndim = core.get_aval(val).ndim + (1 if d is NOT_MAPPED else 0)
                if not -ndim <= dst < ndim:
                    raise ValueError(f"vmap out_axes {dst} is out of bounds for an output of "
                                     f"rank {ndim}")
                moved.append(shape.move_axis(val, d, dst % ndim, axis_size))
        return tree_unflatten(tree, moved)

    return batched


def _check_axes_spec(spec: Any, what: str) -> None:
    leaves, _ = tree_flatten(spec, is_leaf=lambda x: x is None)
    for leaf in leaves:
        if leaf is not None and not isinstance(leaf, (int, np.integer)):
            raise TypeError(f"vmap {what} must be an int, None, or (nested) container with "
                            f"those types as leaves, but got {spec!r}.")


def _normalize_axis(d: Any, x: Any, what: str) -> Any:
    if d is None:
        return None
    ndim = core.get_aval(x).ndim
    if not -ndim <= d < ndim:
        raise ValueError(f"vmap was requested to map its argument along axis {d}, which "
                         f"implies that its rank should be at least {d + 1 if d >= 0 else -d}, "
                         f"but is only {ndim} (its shape is {core.get_aval(x).shape})")
    return d % ndim


def _axis_size(fn: Callable[..., Any], args: tuple, leaves: list, dims: list,
               in_tree: PyTreeDef) -> int:
    sizes = {core.get_aval(x).shape[d] for x, d in zip(leaves, dims, strict=True)
             if d is not None}
    if not sizes:
        raise ValueError("vmap must have at least one non-None value in in_axes")
    if len(sizes) == 1:
        return sizes.pop()
    names = _arg_names(fn, len(args))
    lines = []
    arg_of_leaf = []
    for i, a in enumerate(args):
        arg_of_leaf += [names[i]] * len(tree_flatten(a)[0])
    for x, d, name in zip(leaves, dims, arg_of_leaf, strict=True):
        if d is not None:
            aval = core.get_aval(x)
            lines.append(f"  * one axis had size {aval.shape[d]}: axis {d} of argument {name} "
                         f"of type {aval.str_short()}")
    raise ValueError("vmap got inconsistent sizes for array axes to be mapped:\n"
                     + "\n".join(lines))
