"""The transformations users call: make_jaxpr, jvp, vmap; and the small top-level functions
over avals and devices: eval_shape, typeof, device_put, device_get.

Layer 5. Each transformation flattens pytrees, checks its arguments and calls the flat driver
of an interpreter (`jvp_flat`, `vmap_flat`, `trace_to_jaxpr`). Like `jax`'s public API. Reverse
mode and the derivative functions built on it (grad, vjp, jacrev, ...) are in `derivatives.py`.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from didax import api_util, core, dtypes, typed_sharding
from didax.array import Array
from didax.compile import jit_refs
from didax.compile.jit import jit
from didax.interpreters import jvp as jvp_interp
from didax.interpreters import staging
from didax.interpreters import vmap as vmap_interp
from didax.jaxpr import ClosedJaxpr
from didax.runtime import sharding
from didax.runtime.sharding import PartitionSpec
from didax.tree_util import (
    PyTreeDef,
    broadcast_prefix,
    flatten_fun,
    tree_flatten,
    tree_map,
    tree_unflatten,
)


def _numpy_to_arrays(leaves: Sequence[Any]) -> list[Any]:
    # NumPy inputs become Arrays (canonical dtypes), so that outputs are Arrays even where a
    # function returns an input, or a tangent, unchanged
    return [Array(x) if isinstance(x, (np.ndarray, np.generic)) else x for x in leaves]


def _check_leaves(leaves: Sequence[Any], fn: Callable[..., Any], what: str) -> None:
    for leaf in leaves:
        if not jit_refs.is_argument(leaf):
            raise TypeError(
                f"Argument {leaf!r} of type {type(leaf).__name__} passed to {what} "
                f"of {getattr(fn, '__name__', fn)} is not a valid didax type: "
                "expected arrays, scalars, or pytrees of them"
            )


def _static_split(args: tuple, static_argnums: Sequence[int]) -> tuple[list, Callable]:
    static = set(api_util.ensure_inbounds(static_argnums, len(args), allow_invalid=True))
    dynamic = [a for i, a in enumerate(args) if i not in static]

    def merge(dyn: Sequence[Any]) -> list[Any]:
        it = iter(dyn)
        return [args[i] if i in static else next(it) for i in range(len(args))]

    return dynamic, merge


# ----------------------------------------------------------------------------- make_jaxpr


def make_jaxpr(
    fn: Callable[..., Any],
    static_argnums: int | Sequence[int] = (),
    axis_env: Sequence[tuple[Any, int]] = (),
) -> Callable[..., ClosedJaxpr]:
    """The jaxpr of `fn` at the types of the given arguments. Like `jax.make_jaxpr`.

    Closed-over arrays become constvars; scalar constants become typed literals.
    `axis_env` binds axis names to sizes, so that collectives stage with their names
    (`psum[axes=('i',) ...]`) instead of raising NameError.
    """
    static_argnums = api_util.ensure_index_tuple(static_argnums, "static_argnums")
    api_util.validate_argnums(fn, static_argnums, "static_argnums")

    @functools.wraps(fn)
    def make(*args: Any, **kwargs: Any) -> ClosedJaxpr:
        __tracebackhide__ = True
        with contextlib.ExitStack() as frames:
            for name, size in axis_env:
                frames.enter_context(core.axis_frame(name, size))
            closed, _ = trace_fn(fn, args, kwargs, static_argnums)
        return closed

    return make


def trace_fn(
    fn: Callable[..., Any], args: tuple, kwargs: dict, static_argnums: Sequence[int] = ()
) -> tuple[ClosedJaxpr, PyTreeDef]:
    """Stage `fn(*args, **kwargs)`; returns the jaxpr and the output tree."""
    __tracebackhide__ = True
    dynamic, merge = _static_split(args, static_argnums)
    leaves, in_tree = tree_flatten((dynamic, kwargs))
    _check_leaves(leaves, fn, "make_jaxpr")

    def call(dyn: list, kw: dict) -> Any:
        __tracebackhide__ = True
        return fn(*merge(dyn), **kw)

    flat_fn, out_tree = flatten_fun(call, in_tree)
    closed = staging.trace_to_jaxpr(flat_fn, [core.get_aval(x) for x in leaves])
    return closed, out_tree()


# ----------------------------------------------------------------------------- jvp


def jvp(fn: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    """Forward-mode Jacobian-vector product. Like `jax.jvp`."""
    __tracebackhide__ = True
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(
            "primal and tangent arguments to jvp must be tuples or lists; found "
            f"{type(primals).__name__} and {type(tangents).__name__}."
        )
    primal_leaves, in_tree = tree_flatten(tuple(primals))
    tangent_leaves, tangent_tree = tree_flatten(tuple(tangents))
    if in_tree != tangent_tree:
        raise TypeError(
            "primal and tangent arguments to jvp must have the same tree "
            f"structure; primals have tree structure {in_tree} whereas tangents "
            f"have tree structure {tangent_tree}."
        )
    _check_leaves(primal_leaves, fn, "jvp")
    for p, t in zip(primal_leaves, tangent_leaves, strict=True):
        pa, ta = core.get_aval(p), core.get_aval(t)
        if pa.shape != ta.shape:
            raise ValueError(
                "jvp called with different primal and tangent shapes; got primal "
                f"shape {pa.shape} and tangent shape {ta.shape}"
            )
        if pa.dtype != ta.dtype and dtypes.is_float(pa.dtype):
            raise TypeError(
                "primal and tangent arguments to jvp do not match; dtypes must be "
                f"equal, got {pa.dtype.name} and {ta.dtype.name}"
            )
    flat_fn, out_tree = flatten_fun(fn, in_tree)
    primal_leaves = _numpy_to_arrays(primal_leaves)
    tangent_leaves = _numpy_to_arrays(tangent_leaves)
    tangents_in = [
        t if dtypes.is_float(core.get_aval(p).dtype) else core.Zero.like(p)
        for p, t in zip(primal_leaves, tangent_leaves, strict=True)
    ]
    primals_out, tangents_out = jvp_interp.jvp_flat(flat_fn, primal_leaves, tangents_in)
    # as in JAX, integer and bool outputs have float0 tangents (NumPy arrays of no bytes)
    tangents_out = [
        t
        if dtypes.is_float(core.get_aval(p).dtype)
        else np.zeros(core.get_aval(p).shape, dtypes.float0)
        for p, t in zip(primals_out, tangents_out, strict=True)
    ]
    tree = out_tree()
    return tree_unflatten(tree, primals_out), tree_unflatten(tree, tangents_out)


# ----------------------------------------------------------------------------- vmap


def vmap(
    fn: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0, axis_name: Any = None
) -> Callable[..., Any]:
    """Vectorize `fn` over an axis of its inputs. Like `jax.vmap`.

    `in_axes`/`out_axes` are ints, None, or pytree prefixes of the arguments/outputs.
    `axis_name` names the mapped axis for collectives in `fn` (`lax.psum(x, axis_name)`).
    """
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    _check_axes_spec(in_axes, "in_axes")
    _check_axes_spec(out_axes, "out_axes")

    @functools.wraps(fn)
    def batched(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        if kwargs:
            raise NotImplementedError(
                "vmap: keyword arguments are not batched; pass them positionally"
            )
        leaves, in_tree = tree_flatten(args)
        _check_leaves(leaves, fn, "vmap")
        leaves = _numpy_to_arrays(leaves)
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(
                f"vmap in_axes must be an int, None, or a tuple of entries "
                f"corresponding to the positional arguments passed to the "
                f"function, but got len(in_axes)={len(in_axes)}, "
                f"len(args)={len(args)}"
            )
        dims = broadcast_prefix(
            in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args),
            in_tree,
            "vmap in_axes",
        )
        dims = [_normalize_axis(d, x, "in_axes") for d, x in zip(dims, leaves, strict=True)]
        axis_size = _axis_size(fn, args, leaves, dims, in_tree)
        flat_fn, out_tree = flatten_fun(fn, in_tree)
        outs, out_dims = vmap_interp.vmap_flat(
            flat_fn, axis_size, dims, leaves, axis_name=axis_name
        )
        tree = out_tree()
        dsts = broadcast_prefix(out_axes, tree, "vmap out_axes")
        return tree_unflatten(tree, vmap_interp.move_out_axes(outs, out_dims, dsts, axis_size))

    return batched


def _check_axes_spec(spec: Any, what: str) -> None:
    leaves, _ = tree_flatten(spec, is_leaf=lambda x: x is None)
    for leaf in leaves:
        if leaf is not None and not isinstance(leaf, (int, np.integer)):
            raise TypeError(
                f"vmap {what} must be an int, None, or (nested) container with "
                f"those types as leaves, but got {spec!r}."
            )


def _normalize_axis(d: Any, x: Any, what: str) -> Any:
    if d is None:
        return None
    ndim = core.get_aval(x).ndim
    if not -ndim <= d < ndim:
        raise ValueError(
            f"vmap was requested to map its argument along axis {d}, which "
            f"implies that its rank should be at least {d + 1 if d >= 0 else -d}, "
            f"but is only {ndim} (its shape is {core.get_aval(x).shape})"
        )
    return d % ndim


def _axis_size(
    fn: Callable[..., Any], args: tuple, leaves: list, dims: list, in_tree: PyTreeDef
) -> int:
    sizes = {core.get_aval(x).shape[d] for x, d in zip(leaves, dims, strict=True) if d is not None}
    if not sizes:
        raise ValueError("vmap must have at least one non-None value in in_axes")
    if len(sizes) == 1:
        return sizes.pop()
    names = api_util.arg_names(fn, len(args))
    lines = []
    arg_of_leaf = []
    for i, a in enumerate(args):
        arg_of_leaf += [names[i]] * len(tree_flatten(a)[0])
    for x, d, name in zip(leaves, dims, arg_of_leaf, strict=True):
        if d is not None:
            aval = core.get_aval(x)
            lines.append(
                f"  * one axis had size {aval.shape[d]}: axis {d} of argument {name} "
                f"of type {aval.str_short()}"
            )
    raise ValueError(
        "vmap got inconsistent sizes for array axes to be mapped:\n" + "\n".join(lines)
    )


# ----------------------------------------------------------------------------- eval_shape, typeof, devices


def eval_shape(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The shapes and dtypes `fn` returns for these arguments (arrays or
    `ShapeDtypeStruct`s), as a pytree of `ShapeDtypeStruct`s, without computing anything.
    Like `jax.eval_shape`."""
    return jit(fn).eval_shape(*args, **kwargs)


def typeof(x: Any) -> Any:
    """The abstract value of `x`: its shape, dtype and weak type (a `Ref`'s: `Ref{f32[3]}`).
    Like `jax.typeof`."""
    return core.get_aval(x)


def device_put(x: Any, device: Any = None, *, src: Any = None, **options: Any) -> Any:
    """Every array of the pytree `x` as an Array on `device` (default: the first device), or
    split over a mesh by a `NamedSharding` (`device` may be a pytree prefix of `x` of
    them). Like `jax.device_put`."""
    if isinstance(device, PartitionSpec):  # over the context mesh (`set_mesh`), as JAX
        device = typed_sharding.resolve(device)
    if device is None or _node_type_free(device):
        return tree_map(lambda v: sharding.device_put(v, device), x)
    leaves, treedef = tree_flatten(x)
    targets = broadcast_prefix(device, treedef, "device_put's device")
    return tree_unflatten(treedef, [sharding.device_put(v, t) for v, t in zip(leaves, targets)])


def _node_type_free(device: Any) -> bool:
    return not isinstance(device, (tuple, list, dict))


def device_get(x: Any) -> Any:
    """Every Array of the pytree `x` as a NumPy array on the host; other leaves as they
    are. Like `jax.device_get`."""
    return tree_map(lambda v: np.asarray(v) if isinstance(v, Array) else v, x)


def named_call(fun: Callable[..., Any], *, name: str | None = None) -> Callable[..., Any]:
    """`fun`, its computations named `name` in JAX's name stack. Like `jax.named_call`:
    didax keeps no name stack, so the jaxpr (as JAX's) is `fun`'s own."""

    @functools.wraps(fun)
    def named(*args: Any, **kwargs: Any) -> Any:
        return fun(*args, **kwargs)

    return named


@contextlib.contextmanager
def named_scope(name: str) -> Iterator[None]:
    """Name the computations of the block (JAX's name stack, seen in profiles). Like
    `jax.named_scope`; didax keeps no name stack, and the jaxpr does not show it in JAX.

    Raises:
        TypeError: `name` is not a string.
    """
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    yield
