"""`debug_print`: print formatted array values from inside transformed code. The primitive
behind `didax.debug.print`; like JAX 0.10.2's `debug_print_p`.

Also `debug_callback` (`didax.debug.callback`), the same for a user's function, and
`host_callback`, the lowering they and `pure_callback` share.

Layer 2 (`didax.primitives`). A primitive with an effect and no outputs: dead-code
elimination keeps it (`core.effectful`), its jvp prints the primal values, its vmap rule
prints once per batch element in order (as JAX's does), and it has no transpose (it takes no
linear input). Compiled, it is a host callback, as in JAX on CPU: a side-effecting
`xla_ffi_python_cpu_callback` custom call (an FFI handler jaxlib registers) whose `index`
names a Python function handed to the compiler with the module; XLA calls it with the
operands' values while the program runs, and `jit` waits for the program before returning.
"""

from __future__ import annotations

import builtins
import string
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import core
from didax.primitives import concatenation, shape
from didax.tree_util import PyTreeDef, tree_flatten, tree_unflatten

debug_print_p = core.Primitive("debug_print", multiple_results=True)
core.effectful.add(debug_print_p)


def debug_print(fmt: str, *args: Any, ordered: bool = False, **kwargs: Any) -> None:
    """Print `fmt.format(*args, **kwargs)` with the arrays' values, at run time under every
    transformation. Like `jax.debug.print`."""
    leaves, in_tree = tree_flatten((args, kwargs))
    debug_print_p.bind(
        *leaves,
        fmt=fmt,
        has_placeholders=_has_placeholders(fmt),
        in_tree=in_tree,
        logging_record=None,
        np_printoptions=tuple(np.get_printoptions().items()),
        ordered=ordered,
        partitioned=False,
        static_args=(),
    )


def _has_placeholders(fmt: str) -> bool:
    return any(field is not None for _, field, _, _ in string.Formatter().parse(fmt))


def _print(values: list[Any], fmt: str, in_tree: PyTreeDef, np_printoptions: tuple) -> None:
    args, kwargs = tree_unflatten(in_tree, [np.asarray(v) for v in values])
    with np.printoptions(**dict(np_printoptions)):
        builtins.print(fmt.format(*args, **kwargs))


def _debug_print_impl(*xs, fmt, in_tree, np_printoptions, **params):
    _print(list(xs), fmt, in_tree, np_printoptions)
    return []


core.impl_rules.register(debug_print_p, _debug_print_impl)
core.abstract_eval_rules.register(debug_print_p, lambda *avals, **params: [])


@core.jvp_rules.register(debug_print_p)
def _debug_print_jvp(primals, tangents, **params):
    debug_print_p.bind(*primals, **params)
    return [], []


# no transpose rule: debug_print takes no linear input (its jvp drops the tangents)


@core.vmap_rules.register(debug_print_p)
def _debug_print_vmap(axis_size, vals, dims, **params):
    for i in range(axis_size):  # one print per batch element, in order, as JAX prints
        debug_print_p.bind(*(_element(x, d, i) for x, d in zip(vals, dims, strict=True)), **params)
    return [], []


def _element(x: Any, d: Any, i: int) -> Any:
    if d is core.NOT_MAPPED:
        return x
    aval = core.get_aval(x)
    start = [0] * aval.ndim
    limit = list(aval.shape)
    start[d], limit[d] = i, i + 1
    return shape.squeeze(concatenation.slice(x, tuple(start), tuple(limit)), (d,))


@core.lowering_rules.register(debug_print_p)
def _debug_print_lowering(ctx, *xs, fmt, in_tree, np_printoptions, **params):
    def callback(*values: np.ndarray) -> tuple:
        _print(list(values), fmt, in_tree, np_printoptions)
        return ()

    return host_callback(ctx, callback, xs, [], side_effect=True)


def host_callback(
    ctx: core.LoweringContext,
    callback: Callable[..., Sequence[Any]],
    operands: Sequence[Any],
    result_avals: Sequence[core.ShapedArray],
    *,
    side_effect: bool,
) -> list[Any]:
    """Lower a call back into Python, as JAX does on CPU: an `xla_ffi_python_cpu_callback`
    custom call (an FFI handler jaxlib registers) whose `index` names `callback`, handed to
    the compiler with the module; XLA calls it with the operands' values (NumPy arrays) and
    takes its results, one array per `result_avals`. The one host-callback path of didax
    (debug.print, debug.callback, pure_callback)."""
    ir = ctx.ir
    index = ctx.add_host_callback(callback)
    op = ctx.hlo.CustomCallOp(
        [ctx.tensor_type(a) for a in result_avals],
        list(operands),
        call_target_name="xla_ffi_python_cpu_callback",
        has_side_effect=ir.BoolAttr.get(side_effect),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),  # typed FFI
        backend_config=ir.DictAttr.get(
            {"index": ir.IntegerAttr.get(ir.IntegerType.get_unsigned(64), index)}
        ),
    )
    return list(op.results)


# ----------------------------------------------------------------------------- debug_callback

debug_callback_p = core.Primitive("debug_callback", multiple_results=True)
core.effectful.add(debug_callback_p)


class DebugEffect:
    """The effect a `debug_callback` equation prints with (JAX's `Debug`/`OrderedDebug`)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


Debug, OrderedDebug = DebugEffect("Debug"), DebugEffect("OrderedDebug")


def debug_callback(
    callback: Callable[..., Any],
    *args: Any,
    ordered: bool = False,
    partitioned: bool = False,
    **kwargs: Any,
) -> None:
    """Call `callback(*args, **kwargs)` with the arrays' values, at run time under every
    transformation (once per element under vmap), for its side effects. Like
    `jax.debug.callback`; `callback` receives didax Arrays, as JAX's receives its Arrays."""
    if not callable(callback):
        raise TypeError(f"first argument to jax.debug.callback must be callable, got {callback}")
    leaves, in_tree = tree_flatten((args, kwargs))

    def _flat_callback(*values: Any) -> list:
        call_args, call_kwargs = tree_unflatten(in_tree, list(values))
        callback(*call_args, **call_kwargs)
        return []

    debug_callback_p.bind(
        *leaves,
        callback=_flat_callback,
        effect=OrderedDebug if ordered else Debug,
        partitioned=partitioned,
    )


def as_arrays(values: Sequence[Any]) -> list[Any]:
    """Host values as didax Arrays, as a callback receives them."""
    return [core.eager_result(np.asarray(v), False) for v in values]


def _debug_callback_impl(*xs, callback, **params):
    callback(*as_arrays(xs))
    return []


core.impl_rules.register(debug_callback_p, _debug_callback_impl)
core.abstract_eval_rules.register(debug_callback_p, lambda *avals, **params: [])


@core.jvp_rules.register(debug_callback_p)
def _debug_callback_jvp(primals, tangents, **params):
    debug_callback_p.bind(*primals, **params)
    return [], []


# no transpose rule: debug_callback takes no linear input (its jvp drops the tangents)


@core.vmap_rules.register(debug_callback_p)
def _debug_callback_vmap(axis_size, vals, dims, **params):
    for i in range(axis_size):  # one call per batch element, in order, as JAX calls
        debug_callback_p.bind(
            *(_element(x, d, i) for x, d in zip(vals, dims, strict=True)), **params
        )
    return [], []


@core.lowering_rules.register(debug_callback_p)
def _debug_callback_lowering(ctx, *xs, callback, **params):
    def run(*values: np.ndarray) -> tuple:
        callback(*as_arrays(values))
        return ()

    return host_callback(ctx, run, xs, [], side_effect=True)


def effects_barrier() -> None:
    """Wait until every callback issued so far has run. Like `jax.effects_barrier`: didax
    waits for a compiled program's host callbacks when it runs it, and runs eager ones at
    once, so none is ever pending here."""
