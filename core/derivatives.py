"""Reverse mode and derivative functions: linearize, vjp, grad, value_and_grad, jacfwd,
jacrev, jacobian, hessian, linear_transpose. Like `jax`'s.

Layer 5, after `api` (whose flattening helpers and `jvp`/`vmap` they use). `vjp` linearizes
with the jvp interpreter and partial evaluation, then transposes the linear jaxpr.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import api_util, array, core, dtypes
from didax.api import _check_leaves, jvp, vmap
from didax.array import Array
from didax.interpreters import partial_eval, transpose
from didax.jaxpr import eval_jaxpr
from didax.parallel import collectives as parallel
from didax.primitives import ad_helpers, concatenation, creation, shape
from didax.tree_util import (
    Partial,
    PyTreeDef,
    flatten_fun,
    register_pytree_node,
    tree_flatten,
    tree_map,
    tree_unflatten,
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
    outs, fn_vjp_flat, residuals, lin_jaxpr = transpose.vjp_flat(flat_fn, leaves)
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
                _zeros_for(a) if isinstance(ct, core.Zero) else ct
                for ct, a in zip(cts_in, in_avals, strict=True)
            ],
        )

    fn_vjp = VJP(_Pullback(pullback, lin_jaxpr), in_tree, tree, [None] * len(leaves), residuals)
    out = tree_unflatten(tree, outs[:n_out])
    if has_aux:
        return out, fn_vjp, rebuild_aux(outs[n_out:])
    return out, fn_vjp


def _as_array(x: np.ndarray) -> Array:
    return core.eager_result(x.astype(dtypes.canonicalize(x.dtype), copy=False), False)


class _Pullback:
    """A VJP's function of (residuals, cotangent), with the linear jaxpr it transposes."""

    def __init__(self, pullback: Callable[..., tuple], jaxpr: Any) -> None:
        self.pullback, self.jaxpr = pullback, jaxpr

    def __call__(self, residuals: list[Any], *cts: Any) -> tuple:
        __tracebackhide__ = True
        return self.pullback(residuals, *cts)


class VJP:
    """The function `vjp` returns: call it with a cotangent of the output to get the
    arguments' cotangents. Like JAX 0.10.2's `VJP`: a pytree whose leaves are the residuals
    (`opaque_residuals`), so it goes into and out of `jit`; `jaxpr` is the linearized
    program whose transpose it runs (the residuals are its constvars); `in_tree`/`out_tree`
    are the primals' and the output's structures. (`args_res`: JAX's residuals taken from
    the arguments; didax keeps every residual opaque, so it holds None per argument.)"""

    def __init__(
        self, fun: _Pullback, in_tree: PyTreeDef, out_tree: PyTreeDef, args_res: list, res: list
    ) -> None:
        self.fun, self.in_tree, self.out_tree = fun, in_tree, out_tree
        self.args_res, self._residuals = args_res, res
        # A NumPy array kept as a residual (an argument, a closed-over constant) is shown as
        # an Array, as JAX holds it; the pullback itself gets the very array the forward pass
        # used, so a staged pullback (`make_jaxpr(grad(f))`) refers to the same constant as
        # the forward program: one constvar, as in JAX's jaxpr, not two.
        self.opaque_residuals = [_as_array(r) if type(r) is np.ndarray else r for r in res]

    jaxpr = property(lambda self: self.fun.jaxpr)

    def __call__(self, *cts: Any) -> tuple:
        __tracebackhide__ = True
        return self.fun(self._residuals, *cts)

    def with_refs(self, *maybe_ct_refs: Any) -> Partial:
        """The backward function accumulating each argument's cotangent into the `Ref`
        given for it (`ref[...] += ct`, returning `GradRef()` in its place), skipping those
        given `DontWant()` (`DidntWant()`), and returning the others. Like JAX 0.10.2's
        `VJP.with_refs`; `maybe_ct_refs` has the primals' structure."""
        targets, tree = tree_flatten(maybe_ct_refs)
        if maybe_ct_refs and tree != self.in_tree:
            raise Exception(
                f"with_refs: expected the primals' structure {self.in_tree}, got {tree}"
            )
        return Partial(_accumulate, self, targets)

    def __repr__(self) -> str:
        return (
            f"VJP(in_tree={self.in_tree}, out_tree={self.out_tree}, "
            f"opaque_residuals={self.opaque_residuals})"
        )


class DontWant:
    """Given to `VJP.with_refs` for an argument whose cotangent is not wanted."""

    def __repr__(self) -> str:
        return "DontWant()"


class DidntWant:
    """`VJP.with_refs`'s result for an argument given `DontWant()`."""

    def __repr__(self) -> str:
        return "DidntWant()"


class GradRef:
    """`VJP.with_refs`'s result for an argument whose cotangent went into its Ref."""

    def __repr__(self) -> str:
        return "GradRef()"


def _accumulate(vjp_fn: VJP, targets: list[Any], ct: Any) -> Any:
    cts = tree_flatten(vjp_fn(ct))[0]
    targets = targets or [None] * len(cts)
    out: list[Any] = []
    for target, c in zip(targets, cts, strict=True):
        if isinstance(target, DontWant):
            out.append(DidntWant())
        elif hasattr(target, "addupdate"):  # a Ref (refs.py, a higher layer)
            target.addupdate(c)
            out.append(GradRef())
        else:
            out.append(c)
    return tree_unflatten(vjp_fn.in_tree, out)


register_pytree_node(
    VJP,
    lambda v: ((v.args_res, v.opaque_residuals), (v.fun, v.in_tree, v.out_tree)),
    lambda meta, children: VJP(*meta, *children),
)


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
        aval = core.get_aval(x)
        if core.is_ref(x):  # JAX's: a ref's cotangent would be an array
            raise ValueError(f"Expected cotangent type {aval} but got {aval.inner_aval}")
        dtype = aval.dtype
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


def jacobian(
    fn: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
) -> Callable[..., Any]:
    """The Jacobian of `fn` by reverse mode. Like `jax.jacobian` (which is `jacrev`)."""
    if allow_int:
        raise NotImplementedError("jacobian: allow_int= is not supported")
    return jacrev(fn, argnums, has_aux, holomorphic)
