"""The transformations users call: make_jaxpr, jvp, vmap (and, with reverse mode, grad & co).

Layer 5. Each function here flattens pytrees, checks its arguments and calls the flat driver
of an interpreter (`jvp_flat`, `vmap_flat`, `trace_to_jaxpr`). Like `jax`'s public API.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import api_util, array, core, dtypes
from didax.array import Array
from didax.interpreters import jvp as jvp_interp
from didax.interpreters import partial_eval, staging, transpose
from didax.interpreters import vmap as vmap_interp
from didax.jaxpr import ClosedJaxpr, eval_jaxpr
from didax.parallel import collectives as parallel
from didax.primitives import ad_helpers, concatenation, convert, creation, shape
from didax.tree_util import (
    Partial,
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
        if not core.is_arraylike(leaf):
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


# ----------------------------------------------------------------------------- reverse mode


def _zeros_for(aval: core.ShapedArray) -> Any:
    # JAX gives integer and bool values float0 (co)tangents: NumPy arrays of no bytes
    if not dtypes.is_float(aval.dtype):
        return np.zeros(aval.shape, dtypes.float0)
    return ad_helpers.instantiate(core.Zero(aval))  # a weak primal gets a weak zero, as in JAX


def _flatten_fun_aux(
    fn: Callable[..., Any], in_tree: PyTreeDef
) -> tuple[Callable[..., list[Any]], Callable[[], tuple]]:
    """Like `flatten_fun` for a function returning (output, aux): the flat function returns
    the output's leaves, then aux's array leaves; the second function returns (out tree,
    function rebuilding aux from its array leaves). Aux's other leaves pass through as-is."""
    store: list[tuple] = []

    def flat_fn(*leaves: Any) -> list[Any]:
        out = fn(*tree_unflatten(in_tree, leaves))
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError(
                "expected function with aux output to return a two-element "
                f"tuple, but got type {type(out)} with value {out!r}"
            )
        out_leaves, out_tree = tree_flatten(out[0])
        aux_leaves, aux_tree = tree_flatten(out[1])
        is_array = [core.is_arraylike(x) for x in aux_leaves]

        def rebuild_aux(arrays: Sequence[Any]) -> Any:
            it = iter(arrays)
            return tree_unflatten(
                aux_tree,
                [next(it) if arr else x for x, arr in zip(aux_leaves, is_array, strict=True)],
            )

        store[:] = [(out_tree, rebuild_aux)]
        return [*out_leaves, *(x for x, arr in zip(aux_leaves, is_array, strict=True) if arr)]

    return flat_fn, lambda: store[0]


def linearize(fn: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """The value of `fn` at `primals` and its linearization there. Like `jax.linearize`."""
    __tracebackhide__ = True
    leaves, in_tree = tree_flatten(primals)
    _check_leaves(leaves, fn, "linearize")
    flat_fn, out_tree = flatten_fun(fn, in_tree)
    primals_out, lin, in_linear, out_nonzero = partial_eval.linearize_flat(flat_fn, leaves)
    tree = out_tree()
    in_avals = [core.get_aval(x) for x in leaves]
    out_avals = [core.get_aval(x) for x in primals_out]

    def fn_jvp(*tangents: Any) -> Any:
        __tracebackhide__ = True
        t_leaves, t_tree = tree_flatten(tangents)
        if t_tree != in_tree:
            raise ValueError(
                f"linearized function called with tangents of tree structure "
                f"{t_tree}, but the primals have tree structure {in_tree}"
            )
        for p, t in zip(in_avals, t_leaves, strict=True):
            ta = core.get_aval(t)
            if ta.shape != p.shape or (dtypes.is_float(p.dtype) and ta.dtype != p.dtype):
                raise ValueError(
                    "linearized function called on tangent values inconsistent "
                    "with the original primal values:\nGot tangent aval "
                    f"{ta.str_short()} for primal aval {p.str_short()} but "
                    f"expected {p.str_short()}."
                )
        lin_in = [t for t, is_lin in zip(t_leaves, in_linear, strict=True) if is_lin]
        outs = iter(eval_jaxpr(lin.jaxpr, lin.consts, *lin_in))
        return tree_unflatten(
            tree,
            [
                next(outs) if nz else _zeros_for(a)
                for a, nz in zip(out_avals, out_nonzero, strict=True)
            ],
        )

    return tree_unflatten(tree, primals_out), fn_jvp


def vjp(fn: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple:
    """`(fn(*primals), vjp_fn)`, or with `has_aux`, `(out, vjp_fn, aux)`. Like `jax.vjp`.

    `vjp_fn(ct)` takes one cotangent shaped like the output and returns a tuple with one
    cotangent per primal (float0 zeros for integer primals, as in JAX).
    """
    __tracebackhide__ = True
    leaves, in_tree = tree_flatten(primals)
    _check_leaves(leaves, fn, "vjp")
    return _vjp(fn, leaves, in_tree, has_aux)


def _vjp(fn: Callable[..., Any], leaves: list[Any], in_tree: PyTreeDef, has_aux: bool) -> tuple:
    __tracebackhide__ = True
    if has_aux:
        flat_fn, trees = _flatten_fun_aux(fn, in_tree)
    else:
        flat_fn, out_tree = flatten_fun(fn, in_tree)
        trees = lambda: (out_tree(), None)  # noqa: E731
    outs, fn_vjp_flat, residuals = transpose.vjp_flat(flat_fn, leaves)
    tree, rebuild_aux = trees()
    n_out = tree.num_leaves
    out_avals = [core.get_aval(x) for x in outs[:n_out]]
    in_avals = [core.get_aval(x) for x in leaves]
    name = getattr(fn, "__name__", "fn")

    def pullback(residuals: list[Any], *cts: Any) -> tuple:
        __tracebackhide__ = True
        if len(cts) != 1:
            raise TypeError(
                f"The function returned by `vjp` applied to {name} was called "
                f"with {len(cts)} arguments, but functions returned by `vjp` must "
                "be called with a single argument corresponding to the single "
                "value returned by the function being differentiated (even if "
                "that returned value is a tuple or other container)."
            )
        ct_leaves, ct_tree = tree_flatten(cts[0])
        if ct_tree != tree:
            raise ValueError(
                f"Tree structure of cotangent input {ct_tree}, does not match "
                f"structure of primal output {tree}."
            )
        for ct, aval in zip(ct_leaves, out_avals, strict=True):
            ct_aval = core.get_aval(ct)
            if ct_aval.shape != aval.shape or (
                dtypes.is_float(aval.dtype) and ct_aval.dtype != aval.dtype
            ):
                raise ValueError(
                    "unexpected type (e.g. shape/dtype) for argument to VJP "
                    f"function: got {ct_aval.str_short()}, but expected "
                    f"{aval.str_short()} because the "
                    "corresponding output of the differentiated function had "
                    f"type {aval.str_short()}"
                )
        cts_all = [*ct_leaves, *(core.Zero.like(x) for x in outs[n_out:])]
        cts_in = fn_vjp_flat(residuals, cts_all)
        return tree_unflatten(
            in_tree,
            [
                _zeros_for(a) if isinstance(ct, core.Zero) else _with_weak_type(ct, a)
                for ct, a in zip(cts_in, in_avals, strict=True)
            ],
        )

    # a pytree holding the residuals, as JAX's: it can be passed into and out of `jit`
    fn_vjp = Partial(pullback, residuals)
    out = tree_unflatten(tree, outs[:n_out])
    if has_aux:
        return out, fn_vjp, rebuild_aux(outs[n_out:])
    return out, fn_vjp


def _with_weak_type(ct: Any, aval: core.ShapedArray) -> Any:
    # The cotangent of a weakly typed input is weak, as JAX's is (its transpose of the
    # convert that made the input strong converts back): grad(f)(0.5) stays weak.
    ct_aval = core.get_aval(ct)
    if aval.weak_type and not ct_aval.weak_type and ct_aval.dtype == aval.dtype:
        return convert.convert_element_type(ct, aval.dtype, True)
    return ct


def _argnums_partial(
    fn: Callable[..., Any],
    argnums: int | Sequence[int],
    args: tuple,
    kwargs: dict,
    *,
    count_check: bool = False,
) -> tuple[Callable[..., Any], tuple]:
    nums = api_util.ensure_index_tuple(argnums, "argnums")
    if count_check and nums and max(nums) >= len(args):  # grad's own message, as in JAX
        raise TypeError(
            f"differentiating with respect to argnums={argnums} requires at "
            f"least {max(nums) + 1} positional arguments to be passed by the "
            f"caller, but got only {len(args)} positional arguments."
        )
    nums = api_util.ensure_inbounds(nums, len(args), allow_invalid=False)

    def partial_fn(*dyn_args: Any) -> Any:
        __tracebackhide__ = True
        full = list(args)
        for i, x in zip(nums, dyn_args, strict=True):
            full[i] = x
        return fn(*full, **kwargs)

    return partial_fn, tuple(args[i] for i in nums)


def _dtype_name(dtype: np.dtype) -> str:
    return "bool" if dtype == np.bool_ else dtype.name


def _check_input_dtype(name: str, leaves: Sequence[Any], holomorphic: bool = False) -> None:
    # JAX's checks for reverse mode (grad, jacrev): inexact inputs, complex ones if
    # `holomorphic`
    for x in leaves:
        dtype = core.get_aval(x).dtype
        if holomorphic and not dtypes.is_complex(dtype):
            raise TypeError(
                f"{name} with holomorphic=True requires inputs with complex dtype, "
                f"but got {dtype.name}."
            )
        if not dtypes.is_float(dtype):
            raise TypeError(
                f"{name} requires real- or complex-valued inputs (input dtype that "
                "is a sub-dtype of np.inexact), but got "
                f"{_dtype_name(dtype)}. If you want to use "
                "Boolean- or integer-valued inputs, use vjp or set allow_int to "
                "True."
            )


def _check_output_dtype(name: str, leaves: Sequence[Any], holomorphic: bool = False) -> None:
    # reverse mode: a real output, or a complex one if `holomorphic` (a complex output
    # otherwise has no one gradient: JAX points to vjp)
    for x in leaves:
        dtype = core.get_aval(x).dtype
        if holomorphic:
            if not dtypes.is_complex(dtype):
                raise TypeError(
                    f"{name} with holomorphic=True requires outputs with complex dtype, "
                    f"but got {dtype.name}."
                )
        elif dtypes.is_complex(dtype):
            raise TypeError(
                f"{name} requires real-valued outputs (output dtype that is a sub-dtype "
                f"of np.floating), but got {dtype.name}. For holomorphic differentiation, "
                "pass holomorphic=True. For differentiation of non-holomorphic functions "
                "involving complex outputs, use jax.vjp directly."
            )
        elif not dtypes.is_float(dtype):
            raise TypeError(
                f"{name} requires real-valued outputs (output dtype that is a "
                "sub-dtype of np.floating), but got "
                f"{_dtype_name(dtype)}. For "
                "differentiation of functions with integer outputs, use "
                "jax.vjp directly."
            )


def value_and_grad(
    fn: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable[..., Any]:
    """`fn`'s value and its gradient with respect to the `argnums` arguments. Like
    `jax.value_and_grad`. With `has_aux`, `fn` returns (value, aux) and so does this
    function's first output: ((value, aux), grad). With `holomorphic`, inputs and output
    are complex and the gradient is the complex derivative; without it, a complex input's
    gradient is JAX's (the transpose of the real-linear derivative, not conjugated)."""

    @functools.wraps(fn)
    def value_and_grad_fn(*args: Any, **kwargs: Any) -> tuple:
        __tracebackhide__ = True
        partial_fn, dyn_args = _argnums_partial(fn, argnums, args, kwargs, count_check=True)
        leaves, in_tree = tree_flatten(dyn_args)
        _check_leaves(leaves, fn, "grad")
        _check_input_dtype("grad", leaves, holomorphic)
        out, fn_vjp, *aux = _vjp(partial_fn, leaves, in_tree, has_aux)
        out_leaves = tree_flatten(out)[0]
        if not (len(out_leaves) == 1 and out_leaves[0] is out):
            raise TypeError(
                f"Gradient only defined for scalar-output functions. Output was {out!r}."
            )
        aval = core.get_aval(out)
        if aval.shape != ():
            raise TypeError(
                "Gradient only defined for scalar-output functions. Output had "
                f"shape: {aval.shape}."
            )
        _check_output_dtype("grad", [out], holomorphic)
        grads = fn_vjp(_one_like(out))
        g = grads[0] if isinstance(argnums, int) else grads
        return ((out, aux[0]) if has_aux else out), g

    return value_and_grad_fn


def _one_like(x: Any) -> Any:
    aval = core.get_aval(x)
    one = array.eager_result(np.ones((), aval.dtype), aval.weak_type)
    # in a check_vma shard_map's body the seed varies as the output does, as JAX's
    return parallel.pvary(one, tuple(aval.vma)) if aval.vma else one


def grad(
    fn: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable[..., Any]:
    """The gradient of scalar-valued `fn` with respect to the `argnums` arguments. Like
    `jax.grad`; with `has_aux`, returns (grad, aux); `holomorphic` as in `value_and_grad`."""
    value_and_grad_fn = value_and_grad(fn, argnums, has_aux, holomorphic)

    @functools.wraps(fn)
    def grad_fn(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        out, g = value_and_grad_fn(*args, **kwargs)
        return (g, out[1]) if has_aux else g

    return grad_fn


def _std_basis(leaves: Sequence[Any]) -> list[Any]:
    # One tangent per leaf, each with a leading axis of the total size: together, the rows of
    # an identity matrix split up by leaf.
    sizes = [core.get_aval(x).size for x in leaves]
    total = sum(sizes)
    dtype = (
        dtypes.result_type(*((core.get_aval(x).dtype, False) for x in leaves))[0]
        if leaves
        else dtypes.float32
    )
    eye = np.eye(total, dtype=dtype)
    out, start = [], 0
    for x, n in zip(leaves, sizes, strict=True):
        aval = core.get_aval(x)
        out.append(
            Array(eye[:, start : start + n].reshape((total, *aval.shape)).astype(aval.dtype))
        )
        start += n
    return out


def jacfwd(
    fn: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable[..., Any]:
    """The Jacobian of `fn` by forward mode (one jvp per input element, vmapped). Like
    `jax.jacfwd`: each output leaf gets an array of shape `out.shape + in.shape` per input.
    Complex inputs need `holomorphic=True` (then outputs must be complex too)."""

    def jacfun(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        partial_fn, dyn_args = _argnums_partial(fn, argnums, args, kwargs)
        leaves, in_tree = tree_flatten(dyn_args)
        _check_leaves(leaves, fn, "jacfwd")
        for x in leaves:
            dtype = core.get_aval(x).dtype
            if holomorphic and not dtypes.is_complex(dtype):
                raise TypeError(
                    "jacfwd with holomorphic=True requires inputs with complex "
                    f"dtype, but got {dtype.name}."
                )
            if not holomorphic and not dtypes.is_real_float(dtype):
                raise TypeError(
                    "jacfwd requires real-valued inputs (input dtype that is a "
                    f"sub-dtype of np.floating), but got {dtype.name}. For "
                    "holomorphic differentiation, pass holomorphic=True. For "
                    "differentiation of non-holomorphic functions involving "
                    "complex inputs or integer inputs, use jax.jvp directly."
                )

        def push(*basis: Any) -> tuple:
            __tracebackhide__ = True
            tangents = tree_unflatten(in_tree, basis)
            if has_aux:
                (out, aux), (t_out, _) = jvp(partial_fn, dyn_args, tangents)
            else:
                out, t_out = jvp(partial_fn, dyn_args, tangents)
            # JAX's Jacobian of an integer output is zeros of its dtype, not float0
            t_out = tree_map(
                lambda y, t: (
                    creation.full(core.get_aval(y).shape, 0, core.get_aval(y).dtype)
                    if isinstance(t, np.ndarray) and t.dtype == dtypes.float0
                    else t
                ),
                out,
                t_out,
            )
            return (out, t_out, aux) if has_aux else (out, t_out)

        out_axes = (None, -1, None) if has_aux else (None, -1)
        out, jac, *aux = vmap(push, out_axes=out_axes)(*_std_basis(leaves))
        if holomorphic:
            for y in tree_flatten(out)[0]:
                if not dtypes.is_complex(core.get_aval(y).dtype):
                    raise TypeError(
                        "jacfwd with holomorphic=True requires outputs with complex dtype, "
                        f"but got {core.get_aval(y).dtype.name}."
                    )
        jac_leaves, jac_tree = tree_flatten(jac)
        unravelled = [_split_last(j, leaves, in_tree, isinstance(argnums, int)) for j in jac_leaves]
        result = tree_unflatten(jac_tree, unravelled)
        return (result, aux[0]) if has_aux else result

    return jacfun


def _split_last(j: Any, leaves: Sequence[Any], in_tree: PyTreeDef, single: bool) -> Any:
    # j: out.shape + (total,) -> a tree like the inputs of out.shape + in.shape arrays
    out_shape = core.get_aval(j).shape[:-1]
    nd = len(out_shape)
    pieces, start = [], 0
    for x in leaves:
        aval = core.get_aval(x)
        piece = concatenation.slice(j, (0,) * nd + (start,), (*out_shape, start + aval.size))
        pieces.append(shape.reshape(piece, (*out_shape, *aval.shape)))
        start += aval.size
    tree = tree_unflatten(in_tree, pieces)
    return tree[0] if single else tree


def jacrev(
    fn: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable[..., Any]:
    """The Jacobian of `fn` by reverse mode (one vjp per output element, vmapped). Like
    `jax.jacrev`: each output leaf gets an array of shape `out.shape + in.shape` per input.
    Complex outputs need `holomorphic=True` (then inputs must be complex too)."""

    def jacfun(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        partial_fn, dyn_args = _argnums_partial(fn, argnums, args, kwargs)
        leaves, in_tree = tree_flatten(dyn_args)
        _check_leaves(leaves, fn, "jacrev")
        _check_input_dtype("jacrev", leaves, holomorphic)
        out, fn_vjp, *aux = _vjp(partial_fn, leaves, in_tree, has_aux)
        out_leaves, out_tree = tree_flatten(out)
        _check_output_dtype("jacrev", out_leaves, holomorphic)
        basis = _std_basis(out_leaves)
        cts = vmap(lambda *b: fn_vjp(tree_unflatten(out_tree, b)))(*basis)
        ct_leaves = tree_flatten(cts)[0]  # each (total_out, *in.shape)
        per_out, start = [], 0
        for y in out_leaves:
            y_aval = core.get_aval(y)
            pieces = []
            for ct, x in zip(ct_leaves, leaves, strict=True):
                x_shape = core.get_aval(x).shape
                rows = concatenation.slice(
                    ct, (start,) + (0,) * len(x_shape), (start + y_aval.size, *x_shape)
                )
                pieces.append(shape.reshape(rows, (*y_aval.shape, *x_shape)))
            tree = tree_unflatten(in_tree, pieces)
            per_out.append(tree[0] if isinstance(argnums, int) else tree)
            start += y_aval.size
        result = tree_unflatten(out_tree, per_out)
        return (result, aux[0]) if has_aux else result

    return jacfun


def hessian(
    fn: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable[..., Any]:
    """The Hessian of `fn`: `jacfwd(jacrev(fn))`. Like `jax.hessian`."""
    return jacfwd(jacrev(fn, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


def linear_transpose(fn: Callable[..., Any], *primals: Any) -> Callable[..., Any]:
    """The transpose of the linear function `fn`, at the types of `primals`. Like
    `jax.linear_transpose`."""
    leaves, in_tree = tree_flatten(primals)
    _check_leaves(leaves, fn, "linear_transpose")
    in_avals = [core.get_aval(x) for x in leaves]
    flat_fn, out_tree = flatten_fun(fn, in_tree)
    fn_transpose_flat = transpose.linear_transpose_flat(flat_fn, in_avals)
    tree = out_tree()

    def fn_transpose(ct: Any) -> tuple:
        __tracebackhide__ = True
        ct_leaves, ct_tree = tree_flatten(ct)
        if ct_tree != tree:
            raise TypeError(
                f"cotangent tree does not match function output, expected {tree} but got {ct_tree}"
            )
        cts_in = fn_transpose_flat(ct_leaves)
        return tree_unflatten(
            in_tree,
            [
                _zeros_for(a) if isinstance(c, core.Zero) else c
                for c, a in zip(cts_in, in_avals, strict=True)
            ],
        )

    return fn_transpose
