"""`didax.custom_derivatives`: user-defined derivatives. Like `jax.custom_derivatives`.

Layer 5 (re-exports only): `custom_jvp` and its primitive, `SymbolicZero` and
`zero_from_primal` from `control_flow/custom_derivatives.py`; `custom_vjp`, its primitive,
`CustomVJPPrimal` and `custom_vjp_primal_tree_values` from `control_flow/custom_vjp.py`; `custom_gradient` and `closure_convert` from
`control_flow/custom_gradient.py`.
"""

from didax.control_flow.custom_derivatives import (
    SymbolicZero,
    custom_jvp,
    custom_jvp_call_p,
    zero_from_primal,
)
from didax.control_flow.custom_gradient import closure_convert, custom_gradient
from didax.control_flow.custom_vjp import (
    CustomVJPPrimal,
    custom_vjp,
    custom_vjp_call_p,
    custom_vjp_primal_tree_values,
)

__all__ = [
    "CustomVJPPrimal",
    "SymbolicZero",
    "closure_convert",
    "custom_gradient",
    "custom_jvp",
    "custom_jvp_call_p",
    "custom_vjp",
    "custom_vjp_call_p",
    "custom_vjp_primal_tree_values",
    "zero_from_primal",
]
