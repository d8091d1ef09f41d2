"""Cases: elementwise operations of `didax.numpy` and `didax.lax` (arithmetic, comparisons,
transcendental functions, `where`, `clip`, `select_n`, `clamp`, conversions), with NumPy
broadcasting, type promotion and weak Python scalars.
"""

from __future__ import annotations

import numpy as np

from op_cases.spec import Arr, B, F, I, M, S, Table, V

TABLE = Table()
add = TABLE.add
CASES = TABLE.cases

# --- elementwise binary (NumPy broadcasting, promotion, weak Python scalars)
BROADCAST_PAIRS = [(V, V), (M, V), ((2, 1), (1, 3)), (S, V), (M, S), (S, S), ((2, 1, 3), (4, 1))]


def _binary_cases(
    name: str,
    dx: str = "real",
    dy: str = "real",
    *,
    linear: bool = False,
    differentiable: bool = True,
    ints: bool = True,
    bools: bool = False,
    full: bool = True,
) -> None:
    """`full=False` for an op made like one already tested in full (`less` like `greater`):
    fewer broadcasting pairs, and the dtype variants that decide the weak types only."""
    d = differentiable
    for sx, sy in BROADCAST_PAIRS if full else BROADCAST_PAIRS[:1] + BROADCAST_PAIRS[3:4]:
        add("numpy", name, Arr(sx, F, dx), Arr(sy, F, dy), differentiable=d, linear=linear)
    py_x, py_y = (1.5 if dx == "real" else 1.25), (1.5 if dy == "real" else 1.25)
    add("numpy", name, Arr(V, F, dx), py_y, differentiable=d, linear=linear)  # f32 * 2.0: f32
    add("numpy", name, py_x, Arr(M, F, dy), differentiable=d, linear=linear)
    add("numpy", name, Arr(V, F, dx), 2, differentiable=d, linear=linear)  # f32 * 2: f32
    add("numpy", name, py_x, py_y, differentiable=False)  # both weak: weak f32
    if not full:
        if ints:
            add("numpy", name, Arr(V, I, dx), py_y, differentiable=False)
            add("numpy", name, 2, 3, differentiable=False)
        return
    add("numpy", name, Arr(V, "bfloat16", dx), 2, differentiable=False)  # stays bf16
    add("numpy", name, Arr(V, "float64", dx), Arr(V, F, dy), differentiable=d)  # f64 -> f32
    add("numpy", name, np.float32(py_x), Arr(V, F, dy), differentiable=d)  # NumPy scalar: strong
    if ints:
        add("numpy", name, Arr(V, I, dx), Arr(V, I, dy), differentiable=False)
        add("numpy", name, Arr(V, I, dx), py_y, differentiable=False)  # int32 * 2.0: weak f32
        add("numpy", name, Arr(M, I, dx), 2, differentiable=False)  # int32 * 2: int32
        add("numpy", name, 2, 3, differentiable=False)  # weak int32
        add("numpy", name, Arr(V, I, dx), Arr(M, F, dy), differentiable=d)  # int32 + f32: f32
        add("numpy", name, Arr(V, "int64", dx), Arr(V, I, dy), differentiable=False)
        add("numpy", name, Arr(V, "bfloat16", dx), Arr(V, I, dy), differentiable=False)
    if bools:
        add("numpy", name, Arr(V, B), Arr(V, B), differentiable=False)
        add("numpy", name, Arr(V, B), Arr(V, I, dy), differentiable=False)
        add("numpy", name, Arr(V, B), 2.0, differentiable=False)


_binary_cases("add", linear=True, bools=True)
_binary_cases("subtract", linear=True)
_binary_cases("multiply", bools=True)
_binary_cases("divide", dy="nonzero")
_binary_cases("maximum", bools=True)
_binary_cases("minimum", full=False)
_binary_cases("power", dx="positive", ints=False)
_binary_cases("remainder", dy="nonzero", differentiable=False, full=False)
_binary_cases("floor_divide", dy="nonzero", differentiable=False, full=False)
add("numpy", "remainder", Arr(V, I), Arr(V, I, "nonzero"), differentiable=False)
add("numpy", "floor_divide", Arr(V, I), Arr(V, I, "nonzero"), differentiable=False)
for y in (2, 3, 0, -1, 1):  # a static integer exponent: integer_pow
    add("numpy", "power", Arr(M, F, "nonzero"), y)
add("numpy", "power", Arr(V, I), 2, differentiable=False)
add("numpy", "power", Arr(V, F, "positive"), Arr(V, I, "positive"))
add("numpy", "power", Arr(V, I, "positive"), 0.5, differentiable=False)
for name in ("greater", "equal"):
    _binary_cases(name, differentiable=False, bools=True)
for name in ("less", "greater_equal", "less_equal", "not_equal"):
    _binary_cases(name, differentiable=False, full=False)
for name in ("greater", "less", "equal", "greater_equal", "less_equal", "not_equal"):
    add("numpy", name, Arr((4, 3), I), Arr(V, I), differentiable=False)  # ties are likely

# --- elementwise unary
for name, domain in [
    ("sin", "real"),
    ("cos", "real"),
    ("tan", "unit"),
    ("tanh", "real"),
    ("arctanh", "unit"),
    ("exp", "real"),
    ("log", "positive"),
    ("log1p", "positive"),
    ("expm1", "real"),
    ("sqrt", "positive"),
]:
    for shape in (S, V, M):
        add("numpy", name, Arr(shape, F, domain))
    positive_int = "positive" if domain == "positive" else "real"
    add("numpy", name, Arr(V, I, positive_int), differentiable=False)  # int -> float32
    add("numpy", name, Arr(V, B), differentiable=False)
    add("numpy", name, 0.5, differentiable=False)  # weak float32
    add("numpy", name, 1, differentiable=False)  # weak int -> weak float32
    add("numpy", name, Arr(V, "float64", domain), differentiable=False)
    add("numpy", name, Arr(V, "bfloat16", domain), differentiable=False)
for name in ("negative", "abs", "sign"):
    for shape in (S, V, M):
        add("numpy", name, Arr(shape, F, "nonzero"), linear=name == "negative")
    add("numpy", name, Arr(V, I), differentiable=False)
    add("numpy", name, -1.5, differentiable=False)
    add("numpy", name, -2, differentiable=False)
add("numpy", "abs", Arr(V, B), differentiable=False)

# --- where, clip
for c, x, y in [
    (Arr(V, B), Arr(V), Arr(V)),
    (Arr(M, B), Arr(V), Arr(M)),
    (Arr((2, 1), B), Arr(V), Arr(S)),
    (Arr(V, B), Arr(V), 0.0),
    (Arr(V, B), 1.0, 0.0),
    (Arr(V, I), Arr(V), Arr(V)),
    (Arr(V, F), Arr(V), Arr(V)),
    (Arr(V, B), Arr(V, I), Arr(V)),
    (Arr(V, B), Arr(V, I), 2),
    (True, Arr(V), 2.0),
    (Arr(V, B), Arr(V, I), Arr(V, I)),
]:
    add("numpy", "where", c, x, y, linear=True)
for args, kw in [
    ((Arr(M), -0.5, 0.5), {}),
    ((Arr(M),), {"min": -0.5}),
    ((Arr(M),), {"max": 0.5}),
    ((Arr(V), Arr(V, F, "unit"), 1.0), {}),
    ((Arr(V, I), -2, 2), {}),
    ((Arr(V, I), -1.5, 2.5), {}),
    ((1.5, 0.0, 1.0), {}),
    ((Arr(M), Arr(V, F, "unit")), {"max": 1.0}),
]:
    add("numpy", "clip", *args, **kw)


# --- didax.lax: the primitives' wrappers (equal dtypes; rank-0 operands broadcast)
for name, dy in [
    ("add", "real"),
    ("sub", "real"),
    ("mul", "real"),
    ("div", "nonzero"),
    ("max", "real"),
    ("min", "real"),
    ("pow", "real"),
    ("rem", "nonzero"),
]:
    dx = "positive" if name == "pow" else "real"
    linear = name in ("add", "sub")
    differentiable = name != "rem"
    add("lax", name, Arr(M, F, dx), Arr(M, F, dy), linear=linear, differentiable=differentiable)
    add("lax", name, Arr(M, F, dx), Arr(S, F, dy), linear=linear, differentiable=differentiable)
    add("lax", name, Arr(M, F, dx), 2.0, linear=linear, differentiable=differentiable)
    add("lax", name, Arr(S, F, dx), Arr(S, F, dy), linear=linear, differentiable=differentiable)
    if name != "pow":
        add("lax", name, Arr(M, I, dx), Arr(M, I, dy), differentiable=False)
        add("lax", name, Arr(V, I, dx), 3, differentiable=False)
add("lax", "pow", Arr(M, F, "positive"), Arr(M, I))  # JAX 0.10 takes an integer exponent
add("lax", "round", np.array([0.5, 1.5, -0.5, -2.5, 2.4], np.float32), differentiable=False)
add("lax", "round", np.array([0.5, 1.5, -0.5, -2.5, 2.4], np.float32), 1, differentiable=False)
add("lax", "pow", Arr(M, F, "positive"), Arr(S, I))
for name in ("gt", "lt", "ge", "le", "eq", "ne"):
    add("lax", name, Arr(M), Arr(M), differentiable=False)
    add("lax", name, Arr(V, I), Arr(V, I), differentiable=False)
    add("lax", name, Arr(V), 0.5, differentiable=False)
for name, domain in [
    ("neg", "real"),
    ("sin", "real"),
    ("cos", "real"),
    ("tan", "unit"),
    ("tanh", "real"),
    ("atanh", "unit"),
    ("exp", "real"),
    ("log", "positive"),
    ("log1p", "positive"),
    ("expm1", "real"),
    ("logistic", "real"),
    ("sqrt", "positive"),
    ("abs", "nonzero"),
    ("sign", "nonzero"),
    ("floor", "real"),
    ("erfc", "real"),
    ("lgamma", "positive"),
    ("digamma", "positive"),
    ("stop_gradient", "real"),
]:
    add("lax", name, Arr(M, F, domain), linear=name == "neg")
    add("lax", name, Arr(S, F, domain), linear=name == "neg")
    if name in ("neg", "abs", "sign", "stop_gradient"):
        add("lax", name, Arr(V, I), differentiable=False)
add("lax", "is_finite", Arr(M, F, "special"), differentiable=False)
for y in (2, 3, 0, 1, -2):
    add("lax", "integer_pow", Arr(M, F, "nonzero"), y)
add("lax", "integer_pow", Arr(V, I), 3, differentiable=False)
add("lax", "clamp", -0.5, Arr(M), 0.5)
add("lax", "clamp", Arr(M, F, "unit"), Arr(M), Arr(M, F, "positive"))
# JAX 0.10.2's clamp jvp fails for scalar bounds of an array ("select cases must have the
# same shapes"): no derivative tests there
add("lax", "clamp", Arr(S, F, "unit"), Arr(V), Arr(S, F, "positive"), differentiable=False)
add("lax", "clamp", -1, Arr(V, I), 2, differentiable=False)
add("lax", "select_n", Arr(M, B), Arr(M), Arr(M), linear=True)
add("lax", "select_n", Arr(M, I, "index"), Arr(M), Arr(M), Arr(M), linear=True)
add("lax", "select_n", Arr(S, B), Arr(V), Arr(V), linear=True)
add("lax", "select_n", Arr(V, B), Arr(V, I), Arr(V, I), differentiable=False)
add("lax", "convert_element_type", Arr(M), np.int32, differentiable=False)
add("lax", "convert_element_type", Arr(M, I), np.float32, differentiable=False)
add("lax", "convert_element_type", Arr(M), np.bool_, differentiable=False)
add("lax", "convert_element_type", Arr(M, B), np.float32, differentiable=False)
add("lax", "convert_element_type", Arr(M), "bfloat16", differentiable=False)
add("lax", "convert_element_type", Arr(M), np.float32, linear=True)
add("lax", "convert_element_type", 2.5, np.float32, differentiable=False)
add("lax", "convert_element_type", 3, np.int32, differentiable=False)

# more transcendental and rounding primitives (issue 21: they had tables of their own)
add("lax", "atan2", Arr(M), Arr(M, F, "nonzero"))
add("lax", "atan2", Arr(S), Arr(V, F, "nonzero"))
for name, domain in [
    ("cbrt", "real"),
    ("exp2", "real"),
    ("erf", "real"),
    ("erf_inv", "unit"),
]:
    add("lax", name, Arr(M, F, domain))
    add("lax", name, Arr(S, F, domain))
add("lax", "ceil", Arr(M))
for name, domain in [
    ("asin", "unit"),
    ("acos", "unit"),
    ("atan", "real"),
    ("sinh", "real"),
    ("cosh", "real"),
    ("asinh", "real"),
    ("acosh", "above_one"),
]:
    add("lax", name, Arr(M, F, domain))
    add("lax", name, Arr(S, F, domain))
add("lax", "reduce_precision", Arr(M), exponent_bits=5, mantissa_bits=10)
add("lax", "reduce_precision", Arr(V, F, "special"), 8, 7, differentiable=False)
add("lax", "optimization_barrier", Arr(M))
add("lax", "empty", (2, 3), "float32", differentiable=False)
add("lax", "empty", (2, 3), np.float32, differentiable=False)
add("ad_checkpoint", "checkpoint_name", Arr(M), "w", linear=True)
for name in ("cbrt", "ceil", "exp2"):  # (from tests/lax/test_ceil_cbrt_exp2.py's table)
    add("lax", name, Arr((8,), F, "special"), differentiable=False)  # inf, -inf, nan
    add("lax", name, Arr(V, I), differentiable=False, raises=TypeError)  # floats only, as JAX
add("lax", "polygamma", 1.0, Arr(M, F, "positive"))
add("lax", "polygamma", Arr(V, F, "index"), Arr(V, F, "positive"), differentiable=False)
add("lax", "nextafter", Arr(M), Arr(M), differentiable=False)
add("lax", "bessel_i0e", Arr(M))
add("lax", "bessel_i1e", Arr(M))
add("lax", "zeta", Arr(M, F, "above_one"), Arr(M, F, "positive"), differentiable=False)
add("lax", "nextafter", Arr(V), Arr(V, F, "special"), differentiable=False)
# the incomplete gamma and beta functions (lowered as traced while loops, as JAX's)
for name in ("igamma", "igammac"):
    add("lax", name, Arr(M, F, "positive"), Arr(M, F, "positive"))
    add("lax", name, Arr(S, F, "positive"), Arr(V, F, "positive"))
    add("lax", name, Arr(V, I), Arr(V, I), differentiable=False, raises=TypeError)
add("lax", "igamma_grad_a", Arr(M, F, "positive"), Arr(M, F, "positive"), differentiable=False)
add("lax", "random_gamma_grad", Arr(M, F, "positive"), Arr(M, F, "positive"), differentiable=False)
add("lax", "betainc", 1.5, 2.0, Arr(M, F, "probability"))  # differentiable in x only
add(
    "lax",
    "betainc",
    Arr(V, F, "positive"),
    Arr(V, F, "positive"),
    Arr(V, F, "probability"),
    differentiable=False,
)
add(
    "lax",
    "betainc",
    Arr(V, F, "positive"),
    Arr(V, F),
    Arr(V, I),
    differentiable=False,
    raises=TypeError,
)
add("scipy.special", "gammainc", Arr(M, F, "positive"), Arr(M, F, "positive"))
add("scipy.special", "gammaincc", 2, Arr(V, F, "positive"))
add(
    "scipy.special",
    "betainc",
    Arr(V, F, "positive"),
    2.0,
    Arr(V, F, "probability"),
    differentiable=False,
)
add("lax", "bitcast_convert_type", Arr(M), np.int32, differentiable=False)
add("lax", "bitcast_convert_type", Arr(V, I), np.float32, differentiable=False)

# --- complex numbers
add("lax", "complex", Arr(M), Arr(M))
add("lax", "complex", Arr(V), Arr(S))
for name in ("conj", "real", "imag"):
    add("lax", name, Arr(M, "complex64", "complex"), differentiable=False)
add("lax", "conj", Arr(V), differentiable=False)  # conj of a real array: complex
add("numpy", "real", Arr(V, "complex64", "complex"), differentiable=False)
add("numpy", "imag", Arr(V, "complex64", "complex"), differentiable=False)

# --- bitwise operations and shifts (`not`, `and`, `or`, `xor`, `shift_*`)
for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    add("lax", name, Arr(V, I), Arr(V, I), differentiable=False)
    add("lax", name, Arr(V, B), Arr(V, B), differentiable=False)
add("lax", "bitwise_not", Arr(V, I), differentiable=False)
add("lax", "bitwise_not", Arr(M, B), differentiable=False)
add("lax", "bitwise_not", Arr(V, "uint8"), differentiable=False)
for name in ("clz", "population_count"):
    add("lax", name, Arr(V, I), differentiable=False)
    add("lax", name, Arr(V, "uint8"), differentiable=False)
add("lax", "mulhi", Arr(V, I), Arr(V, I), differentiable=False)
add("lax", "mulhi", Arr(V, "uint32"), Arr(V, "uint32"), differentiable=False)
for name in ("shift_left", "shift_right_arithmetic", "shift_right_logical"):
    add("lax", name, Arr(V, I), Arr(V, I, "index"), differentiable=False)
    add("lax", name, Arr(V, "uint32"), Arr(V, "uint32", "index"), differentiable=False)
add("lax", "shift_right_logical", np.int32(-8), np.int32(2), differentiable=False)
for name in ("bitwise_and", "bitwise_xor", "invert", "left_shift", "right_shift"):
    args = (Arr(V, I),) if name == "invert" else (Arr(V, I), Arr(V, I, "index"))
    add("numpy", name, *args, differentiable=False)
