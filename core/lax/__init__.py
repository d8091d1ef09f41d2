"""`didax.lax`: the public facade over the first-order primitive families
(`didax.primitives`, layer 2) and control flow (`didax.control_flow`, layer 4). Like `jax.lax`
over `jax._src.lax`.

Layer 5: it mixes first-order primitives (`sin`) with higher-order ones (`cond`, `scan`), so it
sits above both. Code inside the engine imports the family modules, never this facade. This
`__init__` only re-exports: the wrappers, and the family modules themselves, so that the
extension API's `lax.elementwise.exp_p` keeps naming the primitives.
"""

from didax.compile.sharding_constraint import with_sharding_constraint
from didax.control_flow.cond import cond, switch
from didax.control_flow.loops import associative_scan, map
from didax.control_flow.reducers import reduce, reduce_window
from didax.control_flow.scan import scan
from didax.control_flow.solves import custom_linear_solve, custom_root
from didax.control_flow.while_loop import fori_loop, while_loop
from didax.lax import linalg  # noqa: F401 - `lax.linalg.cholesky`, as `jax.lax.linalg`
from didax.lax.incomplete_gamma import (
    betainc,
    igamma,
    igamma_grad_a,
    igammac,
    random_gamma_grad,
)
from didax.parallel.collectives import axis_index, pmax, pmean, pmin, psum
from didax.parallel.exchanges import all_gather, all_to_all, ppermute, psum_scatter
from didax.primitives import (  # noqa: F401 - the families, for `lax.elementwise.exp_p`
    comparison,
    concatenation,
    convert,
    creation,
    elementwise,
    reductions,
    rules,
    shape,
    sharding_rules,
    slicing,
)
from didax.primitives.bessel import bessel_i0e, bessel_i1e, zeta
from didax.primitives.bit_counts import clz, mulhi, population_count
from didax.primitives.bits import (
    bitcast_convert_type,
    bitwise_xor,
    shift_left,
    shift_right_arithmetic,
    shift_right_logical,
)
from didax.primitives.comparison import (
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
    select,
    select_n,
)
from didax.primitives.concatenation import (
    concatenate,
    index_in_dim,
    pad,
    slice,
    slice_in_dim,
    stack,
)
from didax.primitives.convert import convert_element_type, dtype, stop_gradient
from didax.primitives.convolution import (
    ConvDimensionNumbers,
    conv,
    conv_dimension_numbers,
    conv_general_dilated,
    conv_general_shape_tuple,
    conv_shape_tuple,
    conv_transpose,
    conv_transpose_shape_tuple,
    padtype_to_pads,
)
from didax.primitives.creation import broadcasted_iota, full, full_like, iota, shape_as_value
from didax.primitives.cumulative import cumlogsumexp, cummax, cummin, cumprod, cumsum
from didax.primitives.dot import Precision, batch_matmul, dot, dot_general
from didax.primitives.elementwise import (
    abs,
    add,
    add_any,
    atan2,
    cbrt,
    ceil,
    clamp,
    complex,
    conj,
    cos,
    div,
    exp,
    exp2,
    expm1,
    floor,
    imag,
    integer_pow,
    log,
    log1p,
    logistic,
    max,
    min,
    mul,
    neg,
    pow,
    real,
    reciprocal,
    rem,
    round,
    rsqrt,
    sign,
    sin,
    sqrt,
    square,
    sub,
    tan,
    tanh,
)
from didax.primitives.hyperbolic import acosh, asinh, atanh, cosh, sinh
from didax.primitives.precision_barriers import empty, optimization_barrier, reduce_precision
from didax.primitives.reductions import (
    argmax,
    argmin,
    reduce_and,
    reduce_max,
    reduce_min,
    reduce_or,
    reduce_prod,
    reduce_xor,
)
from didax.primitives.selection import top_k
from didax.primitives.shape import (
    broadcast,
    broadcast_in_dim,
    broadcast_like,
    broadcast_shapes,
    broadcast_to_rank,
    collapse,
    expand_dims,
    reduce_sum,
    reshape,
    rev,
    squeeze,
    transpose,
)
from didax.primitives.slicing import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    dynamic_index_in_dim,
    dynamic_slice,
    dynamic_slice_in_dim,
    dynamic_update_index_in_dim,
    dynamic_update_slice,
    dynamic_update_slice_in_dim,
    gather,
    index_take,
    scatter,
    scatter_add,
    scatter_max,
    scatter_min,
    scatter_mul,
    scatter_sub,
)
from didax.primitives.sorting import sort, sort_key_val
from didax.primitives.special import digamma, erf, erf_inv, erfc, lgamma, nextafter, polygamma
from didax.primitives.tiling import split, tile, unstack
from didax.primitives.trigonometric import acos, asin, atan
from didax.primitives.windows import reduce_window_shape_tuple

__all__ = [
    "broadcast_like",
    "bessel_i0e",
    "bessel_i1e",
    "zeta",
    "betainc",
    "igamma",
    "igamma_grad_a",
    "igammac",
    "random_gamma_grad",
    "split",
    "tile",
    "unstack",
    "empty",
    "optimization_barrier",
    "reduce_precision",
    "select",
    "index_in_dim",
    "dtype",
    "full_like",
    "shape_as_value",
    "batch_matmul",
    "reciprocal",
    "broadcast",
    "broadcast_shapes",
    "broadcast_to_rank",
    "collapse",
    "index_take",
    "clz",
    "mulhi",
    "population_count",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "cosh",
    "rsqrt",
    "sinh",
    "square",
    "associative_scan",
    "map",
    "cumlogsumexp",
    "custom_linear_solve",
    "custom_root",
    "cummax",
    "cummin",
    "cumprod",
    "cumsum",
    "ConvDimensionNumbers",
    "conv",
    "conv_dimension_numbers",
    "conv_general_dilated",
    "conv_general_shape_tuple",
    "conv_shape_tuple",
    "conv_transpose",
    "conv_transpose_shape_tuple",
    "padtype_to_pads",
    "all_gather",
    "all_to_all",
    "axis_index",
    "ppermute",
    "psum_scatter",
    "with_sharding_constraint",
    "pmax",
    "pmean",
    "pmin",
    "psum",
    "bitcast_convert_type",
    "bitwise_xor",
    "erf",
    "atanh",
    "erf_inv",
    "erfc",
    "lgamma",
    "digamma",
    "polygamma",
    "nextafter",
    "shift_left",
    "shift_right_arithmetic",
    "shift_right_logical",
    "sort",
    "sort_key_val",
    "top_k",
    "GatherDimensionNumbers",
    "GatherScatterMode",
    "ScatterDimensionNumbers",
    "dynamic_index_in_dim",
    "dynamic_slice",
    "dynamic_slice_in_dim",
    "dynamic_update_index_in_dim",
    "dynamic_update_slice",
    "dynamic_update_slice_in_dim",
    "gather",
    "rev",
    "scatter",
    "scatter_add",
    "scatter_max",
    "scatter_min",
    "scatter_mul",
    "scatter_sub",
    "abs",
    "add",
    "add_any",
    "argmax",
    "argmin",
    "reduce",
    "reduce_and",
    "reduce_or",
    "reduce_xor",
    "reduce_window",
    "reduce_window_shape_tuple",
    "atan2",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "broadcast_in_dim",
    "broadcasted_iota",
    "clamp",
    "complex",
    "cond",
    "concatenate",
    "conj",
    "convert_element_type",
    "cos",
    "div",
    "dot",
    "dot_general",
    "Precision",
    "eq",
    "exp",
    "expand_dims",
    "expm1",
    "cbrt",
    "ceil",
    "exp2",
    "floor",
    "fori_loop",
    "full",
    "ge",
    "gt",
    "imag",
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
    "real",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
    "rem",
    "reshape",
    "scan",
    "round",
    "select_n",
    "sign",
    "sin",
    "slice",
    "slice_in_dim",
    "sort",
    "sqrt",
    "squeeze",
    "stack",
    "stop_gradient",
    "switch",
    "sub",
    "tan",
    "tanh",
    "transpose",
    "while_loop",
]

# The primitives themselves, under the names `jax.lax` exports them (`lax.exp_p`), for
# interpreters keyed by primitive (extension API; JAX's "custom interpreters" page).
from didax.compile.sharding_constraint import (  # noqa: E402, F401
    sharding_constraint_p,
)
from didax.control_flow.cond import (  # noqa: E402, F401
    cond_p,
)
from didax.control_flow.reducers import (  # noqa: E402, F401
    reduce_p,
    reduce_window_p,
)
from didax.control_flow.scan import (  # noqa: E402, F401
    scan_p,
)
from didax.control_flow.solves import (  # noqa: E402, F401
    linear_solve_p,
)
from didax.control_flow.while_loop import (  # noqa: E402, F401
    while_p,
)
from didax.lax.incomplete_gamma import (  # noqa: E402, F401
    igamma_grad_a_p,
    igamma_p,
    igammac_p,
    regularized_incomplete_beta_p,
)
from didax.parallel.collectives import (  # noqa: E402, F401
    axis_index_p,
    pmax_p,
    pmin_p,
    psum_p,
)
from didax.parallel.exchanges import (  # noqa: E402, F401
    all_gather_p,
    all_to_all_p,
    ppermute_p,
)
from didax.primitives.bessel import (  # noqa: E402, F401
    bessel_i0e_p,
    bessel_i1e_p,
    zeta_p,
)
from didax.primitives.bit_counts import (  # noqa: E402, F401
    clz_p,
    mulhi_p,
    population_count_p,
)
from didax.primitives.bits import (  # noqa: E402, F401
    bitcast_convert_type_p,
    shift_left_p,
    shift_right_arithmetic_p,
    shift_right_logical_p,
    xor_p,
)
from didax.primitives.comparison import (  # noqa: E402, F401
    and_p,
    eq_p,
    ge_p,
    gt_p,
    is_finite_p,
    le_p,
    lt_p,
    ne_p,
    not_p,
    or_p,
    select_n_p,
)
from didax.primitives.concatenation import (  # noqa: E402, F401
    concatenate_p,
    pad_p,
    slice_p,
    stack_p,
)
from didax.primitives.convert import (  # noqa: E402, F401
    convert_element_type_p,
    stop_gradient_p,
)
from didax.primitives.convolution import (  # noqa: E402, F401
    conv_general_dilated_p,
)
from didax.primitives.creation import (  # noqa: E402, F401
    iota_p,
)
from didax.primitives.cumulative import (  # noqa: E402, F401
    cumlogsumexp_p,
    cummax_p,
    cummin_p,
    cumprod_p,
    cumsum_p,
)
from didax.primitives.dot import (  # noqa: E402, F401
    dot_general_p,
)
from didax.primitives.elementwise import (  # noqa: E402, F401
    abs_p,
    add_p,
    atan2_p,
    cbrt_p,
    ceil_p,
    clamp_p,
    complex_p,
    conj_p,
    cos_p,
    div_p,
    exp2_p,
    exp_p,
    expm1_p,
    floor_p,
    imag_p,
    integer_pow_p,
    log1p_p,
    log_p,
    logistic_p,
    max_p,
    min_p,
    mul_p,
    neg_p,
    pow_p,
    real_p,
    rem_p,
    round_p,
    rsqrt_p,
    sign_p,
    sin_p,
    sqrt_p,
    square_p,
    sub_p,
    tan_p,
    tanh_p,
)
from didax.primitives.hyperbolic import (  # noqa: E402, F401
    acosh_p,
    asinh_p,
    atanh_p,
    cosh_p,
    sinh_p,
)
from didax.primitives.precision_barriers import (  # noqa: E402, F401
    empty_p,
    optimization_barrier_p,
    reduce_precision_p,
)
from didax.primitives.reductions import (  # noqa: E402, F401
    argmax_p,
    argmin_p,
    reduce_and_p,
    reduce_max_p,
    reduce_min_p,
    reduce_or_p,
    reduce_prod_p,
    reduce_xor_p,
)
from didax.primitives.selection import (  # noqa: E402, F401
    top_k_p,
)
from didax.primitives.shape import (  # noqa: E402, F401
    broadcast_in_dim_p,
    copy_p,
    reduce_sum_p,
    reshape_p,
    squeeze_p,
    transpose_p,
)
from didax.primitives.slicing import (  # noqa: E402, F401
    dynamic_slice_p,
    dynamic_update_slice_p,
    gather_p,
    rev_p,
    scatter_add_p,
    scatter_max_p,
    scatter_min_p,
    scatter_mul_p,
    scatter_p,
    scatter_sub_p,
)
from didax.primitives.sorting import (  # noqa: E402, F401
    sort_p,
)
from didax.primitives.special import (  # noqa: E402, F401
    digamma_p,
    erf_inv_p,
    erf_p,
    erfc_p,
    lgamma_p,
    nextafter_p,
    polygamma_p,
)
from didax.primitives.tiling import (  # noqa: E402, F401
    split_p,
    tile_p,
    unstack_p,
)
from didax.primitives.trigonometric import (  # noqa: E402, F401
    acos_p,
    asin_p,
    atan_p,
)
from didax.primitives.windows import (  # noqa: E402, F401
    reduce_window_max_p,
    reduce_window_min_p,
    reduce_window_sum_p,
    select_and_gather_add_p,
    select_and_scatter_add_p,
)
