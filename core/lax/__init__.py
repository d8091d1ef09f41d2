"""`didax.lax`: the primitives' own wrappers, by family, and (re-exported from layer 4)
control flow. Like `jax.lax`.

Layer 2 package. Family modules, in import order: common (rule factories), convert, shape
(structural ops, reduce_sum, and the helpers other rules use), comparison, elementwise,
reductions, dot, sort. This `__init__` only re-exports.
"""

from didax.lax.comparison import (
    bitwise_and,
    bitwise_not,
    bitwise_or,
    eq,
    ge,
    gt,
    is_finite,
    le,
    lt,
    ne,
    select_n,
)
from didax.lax.convert import convert_element_type, stop_gradient
from didax.lax.dot import dot_general
from didax.lax.elementwise import (
    abs,
    add,
    add_any,
    clamp,
    cos,
    div,
    exp,
    expm1,
    floor,
    integer_pow,
    log,
    log1p,
    logistic,
    max,
    min,
    mul,
    neg,
    pow,
    rem,
    round,
    sign,
    sin,
    sqrt,
    sub,
    tan,
    tanh,
)
from didax.lax.reductions import argmax, reduce_max, reduce_min, reduce_prod
from didax.lax.shape import (
    broadcast_in_dim,
    broadcasted_iota,
    concatenate,
    expand_dims,
    full,
    iota,
    pad,
    reduce_sum,
    reshape,
    slice,
    squeeze,
    stack,
    transpose,
)
from didax.lax.sort import sort

__all__ = [
    "abs",
    "add",
    "add_any",
    "argmax",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "broadcast_in_dim",
    "broadcasted_iota",
    "clamp",
    "concatenate",
    "convert_element_type",
    "cos",
    "div",
    "dot_general",
    "eq",
    "exp",
    "expand_dims",
    "expm1",
    "floor",
    "full",
    "ge",
    "gt",
    "integer_pow",
    "iota",
    "is_finite",
    "le",
    "log",
    "log1p",
    "logistic",
    "lt",
    "max",
    "min",
    "mul",
    "ne",
    "neg",
    "pad",
    "pow",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
    "rem",
    "reshape",
    "round",
    "select_n",
    "sign",
    "sin",
    "slice",
    "sort",
    "sqrt",
    "squeeze",
    "stack",
    "stop_gradient",
    "sub",
    "tan",
    "tanh",
    "transpose",
]

# lax re-exports layer-4 control flow (`lax.cond`, `lax.scan`, ...): imported last, once every
# family module above is loaded, since the control-flow modules use them through the engines.
from didax.control_flow.cond import cond, switch  # noqa: E402
from didax.control_flow.scan import scan  # noqa: E402
from didax.control_flow.while_loop import fori_loop, while_loop  # noqa: E402

__all__ += ["cond", "fori_loop", "scan", "switch", "while_loop"]
