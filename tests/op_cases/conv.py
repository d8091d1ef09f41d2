"""Cases: convolutions (`lax.conv`, `lax.conv_general_dilated`): windows, strides, padding,
dilations, feature groups and layouts."""

from __future__ import annotations

from op_cases.spec import Arr, I, Table

TABLE = Table()
add = TABLE.add
CASES = TABLE.cases

add("lax", "conv", Arr((1, 2, 5, 5)), Arr((3, 2, 3, 3)), (1, 1), "VALID")
add("lax", "conv", Arr((2, 1, 6)), Arr((2, 1, 3)), (2,), "SAME")
for kwargs in [
    {"window_strides": (1, 1), "padding": ((1, 1), (0, 1))},
    {"window_strides": (2, 1), "padding": "VALID", "rhs_dilation": (2, 1)},
    {"window_strides": (1, 1), "padding": ((0, 0), (0, 0)), "lhs_dilation": (2, 1)},
]:
    add("lax", "conv_general_dilated", Arr((1, 2, 6, 5)), Arr((3, 2, 2, 2)), **kwargs)
add(
    "lax",
    "conv_general_dilated",
    Arr((1, 4, 5)),
    Arr((4, 2, 3)),
    window_strides=(1,),
    padding="SAME",
    feature_group_count=2,
)
add(
    "lax",
    "conv_general_dilated",
    Arr((1, 5, 5, 2)),
    Arr((3, 3, 2, 3)),
    window_strides=(1, 1),
    padding="VALID",
    dimension_numbers=("NHWC", "HWIO", "NHWC"),
)
add(
    "lax",
    "conv_general_dilated",
    Arr((1, 1, 4), I),
    Arr((1, 1, 2), I),
    window_strides=(1,),
    padding="VALID",
    differentiable=False,
)
