"""The one case table of didax's public ops (STYLE §11), shared by the eval, jit, jvp, grad,
vmap and oracle tests.

Each `OpCase` names a function of `didax.numpy`, `didax.nn` or `didax.lax` (and the JAX
function of the same name), its arguments (`Arr` specs for arrays, anything else is passed
as it is: Python scalars to exercise weak types, shapes, dtypes), its keyword arguments and
whether it is differentiable and linear in its float array arguments. `case.make_inputs(rng)`
builds the arguments; `case.didax_fn` / `case.jax_fn` call the function on them. Importing
this module never imports `jax`: the JAX side is looked up only when asked for.

    for case in CASES:
        args = case.make_inputs(np.random.default_rng(case.seed))
        out = case.didax_fn(*args)
"""

from __future__ import annotations

import importlib
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np

_MODULES = {
    "numpy": ("didax.numpy", "jax.numpy"),
    "nn": ("didax.nn", "jax.nn"),
    "lax": ("didax.lax", "jax.lax"),
}

# ----------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Arr:
    """An array argument: shape, NumPy dtype name and value domain.

    Domains: "real" (-2..2), "positive" (0.5..2), "unit" (-0.9..0.9), "nonzero"
    (+-0.5..2, or +-1..5 for integers), "special" (finite values mixed with inf and nan),
    "index" (integers 0..2, for `select_n`).
    """

    shape: tuple[int, ...] = ()
    dtype: str = "float32"
    domain: str = "real"

    def __repr__(self) -> str:
        return f"{self.dtype}{list(self.shape)}{'' if self.domain == 'real' else ':' + self.domain}"

    @property
    def np_dtype(self) -> np.dtype:
        return np.dtype(ml_dtypes.bfloat16 if self.dtype == "bfloat16" else self.dtype)

    def make(self, rng: np.random.Generator) -> np.ndarray:
        dtype = self.np_dtype
        if dtype == np.bool_:
            return rng.random(self.shape) < 0.5
        if self.domain == "index":
            return rng.integers(0, 3, self.shape).astype(dtype)
        if np.issubdtype(dtype, np.integer):
            if self.domain == "positive":
                return rng.integers(1, 6, self.shape).astype(dtype)
            if self.domain == "nonzero":
                sign = np.where(rng.random(self.shape) < 0.5, -1, 1)
                return (sign * rng.integers(1, 6, self.shape)).astype(dtype)
            return rng.integers(-5, 6, self.shape).astype(dtype)
        if self.domain == "positive":
            value = rng.uniform(0.5, 2.0, self.shape)
        elif self.domain == "unit":
            value = rng.uniform(-0.9, 0.9, self.shape)
        elif self.domain == "nonzero":
            value = np.where(rng.random(self.shape) < 0.5, -1, 1) * rng.uniform(0.5, 2, self.shape)
        else:
            value = rng.uniform(-2.0, 2.0, self.shape)
        if self.domain == "special":
            flat = value.reshape(-1)
            flat[::3] = np.array([np.inf, -np.inf, np.nan])[np.arange(len(flat[::3])) % 3]
        return np.asarray(value).astype(dtype)


# ----------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class OpCase:
    """One call of one public function on one signature of arguments."""

    module: str  # "numpy", "nn" or "lax"
    name: str
    args: tuple[Any, ...]  # Arr specs and literal arguments, in call order
    kwargs: dict[str, Any] = field(default_factory=dict)
    differentiable: bool = True  # jvp/grad tests run (on the float32 Arr arguments)
    linear: bool = False  # linear in its float Arr arguments (transpose tests)
    # How to call the function: `call(fn, *args, **kwargs)`; e.g. to pass arrays as a list.
    call: Callable[..., Any] | None = None
    raises: type[Exception] | None = None  # JAX raises this for these arguments; so must didax

    @property
    def id(self) -> str:
        parts = [_short(a) for a in self.args] + [
            f"{k}={_short(v)}" for k, v in self.kwargs.items()
        ]
        return f"{self.module}.{self.name}({', '.join(parts)})"

    @property
    def seed(self) -> int:
        return zlib.crc32(self.id.encode())

    @property
    def array_positions(self) -> tuple[int, ...]:
        return tuple(i for i, a in enumerate(self.args) if isinstance(a, Arr))

    @property
    def float_positions(self) -> tuple[int, ...]:
        """Positions of float32 array arguments: the ones jvp/grad/vmap tests perturb."""
        return tuple(
            i for i, a in enumerate(self.args) if isinstance(a, Arr) and a.dtype == "float32"
        )

    def make_inputs(self, rng: np.random.Generator) -> list[Any]:
        return [a.make(rng) if isinstance(a, Arr) else a for a in self.args]

    def fn(self, library: str) -> Callable[..., Any]:
        """The case as a function of all its arguments; `library` is "didax" or "jax"."""
        module = importlib.import_module(_MODULES[self.module][library == "jax"])
        target = getattr(module, self.name)
        kwargs, call = self.kwargs, self.call

        def apply(*args: Any) -> Any:
            return call(target, *args, **kwargs) if call else target(*args, **kwargs)

        return apply

    @property
    def didax_fn(self) -> Callable[..., Any]:
        return self.fn("didax")

    @property
    def jax_fn(self) -> Callable[..., Any]:
        return self.fn("jax")


def _short(v: Any) -> str:
    if isinstance(v, (type, np.dtype)):
        return np.dtype(v).name
    if isinstance(v, np.generic):
        return f"np.{np.dtype(type(v)).name}({v.item()!r})"
    return repr(v)


def close_over(
    fn: Callable[..., Any], args: list[Any], positions: tuple[int, ...]
) -> tuple[Callable[..., Any], list[Any]]:
    """`fn` as a function of the arguments at `positions` only, the others fixed."""

    def partial(*chosen: Any) -> Any:
        full = list(args)
        for i, x in zip(positions, chosen, strict=True):
            full[i] = x
        return fn(*full)

    return partial, [args[i] for i in positions]


def _as_list(fn: Callable[..., Any], *xs: Any, **kwargs: Any) -> Any:
    return fn(list(xs), **kwargs)


def _lax_concatenate(fn: Callable[..., Any], *xs: Any, dimension: int) -> Any:
    return fn(list(xs), dimension)


# ----------------------------------------------------------------------------- the table

F = "float32"
I = "int32"
B = "bool"
S, V, M = (), (3,), (2, 3)  # scalar, vector, matrix shapes

CASES: list[OpCase] = []


def _add(
    module: str,
    name: str,
    *args: Any,
    differentiable: bool = True,
    linear: bool = False,
    call: Any = None,
    raises: Any = None,
    **kwargs: Any,
) -> None:
    CASES.append(OpCase(module, name, args, kwargs, differentiable, linear, call, raises))


# --- creation
for args, kw in [
    (([1, 2, 3],), {}),
    (([1.0, 2],), {}),
    (([[1, 2], [3, 4]],), {}),
    ((2.0,), {}),
    ((3,), {}),
    ((True,), {}),
    (([1, 2],), {"dtype": np.float32}),
    ((Arr(V, "float64"),), {}),
    ((Arr(V, "int64"),), {}),
    ((Arr(M),), {}),
    ((Arr(V, I),), {"dtype": np.float32}),
]:
    for name in ("array", "asarray"):
        differentiable = any(isinstance(a, Arr) and a.dtype == F for a in args)
        _add("numpy", name, *args, differentiable=differentiable, linear=differentiable, **kw)
for name in ("zeros", "ones"):
    for args, kw in [
        (((2, 3),), {}),
        ((3,), {}),
        (((),), {}),
        (((2,),), {"dtype": np.int32}),
        (((2,),), {"dtype": np.bool_}),
    ]:
        _add("numpy", name, *args, differentiable=False, **kw)
for name in ("zeros_like", "ones_like"):
    for args, kw in [
        ((Arr(M),), {}),
        ((Arr(V, I),), {}),
        ((Arr(S),), {}),
        ((Arr(V),), {"dtype": np.int32}),
        ((2.0,), {}),
    ]:
        _add("numpy", name, *args, **kw)
for args, kw in [
    (((2, 3), 2.0), {}),
    (((2,), 3), {}),
    (((2,), 1.5), {"dtype": np.int32}),
    ((3, True), {}),
    (((2, 3), Arr(V)), {}),
    (((2,), Arr(S, I)), {}),
]:
    _add(
        "numpy",
        "full",
        *args,
        differentiable=any(isinstance(a, Arr) and a.dtype == F for a in args),
        **kw,
    )
for args, kw in [
    ((5,), {}),
    ((1, 7, 2), {}),
    ((0.0, 1.0, 0.25), {}),
    ((5,), {"dtype": np.float32}),
    ((-3, 3), {}),
    ((2.5,), {}),
]:
    _add("numpy", "arange", *args, differentiable=False, **kw)
for args, kw in [
    ((0, 1, 5), {}),
    ((0.0, 1.0, 4), {"endpoint": False}),
    ((-1, 1), {}),
    ((0, 10, 6), {"dtype": np.int32}),
]:
    _add("numpy", "linspace", *args, differentiable=False, **kw)
for args, kw in [
    ((3,), {}),
    ((2, 3), {}),
    ((3,), {"k": 1}),
    ((3,), {"dtype": np.int32}),
    ((3, 4), {"k": -1}),
]:
    _add("numpy", "eye", *args, differentiable=False, **kw)
for name, arg_list in [
    ("float32", [Arr(V, I), Arr(M), Arr(V, "float64"), 2, 2.5, Arr(V, B)]),
    ("int32", [Arr(V), Arr(V, I), 3, Arr(V, "int64"), Arr(V, B)]),
    ("bool_", [Arr(V), Arr(V, I), 0, Arr(V, B)]),
]:
    for a in arg_list:
        _add(
            "numpy",
            name,
            a,
            differentiable=name == "float32" and isinstance(a, Arr) and a.dtype == F,
            linear=name == "float32",
        )

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
        _add("numpy", name, Arr(sx, F, dx), Arr(sy, F, dy), differentiable=d, linear=linear)
    py_x, py_y = (1.5 if dx == "real" else 1.25), (1.5 if dy == "real" else 1.25)
    _add("numpy", name, Arr(V, F, dx), py_y, differentiable=d, linear=linear)  # f32 * 2.0: f32
    _add("numpy", name, py_x, Arr(M, F, dy), differentiable=d, linear=linear)
    _add("numpy", name, Arr(V, F, dx), 2, differentiable=d, linear=linear)  # f32 * 2: f32
    _add("numpy", name, py_x, py_y, differentiable=False)  # both weak: weak f32
    if not full:
        if ints:
            _add("numpy", name, Arr(V, I, dx), py_y, differentiable=False)
            _add("numpy", name, 2, 3, differentiable=False)
        return
    _add("numpy", name, Arr(V, "bfloat16", dx), 2, differentiable=False)  # stays bf16
    _add("numpy", name, Arr(V, "float64", dx), Arr(V, F, dy), differentiable=d)  # f64 -> f32
    _add("numpy", name, np.float32(py_x), Arr(V, F, dy), differentiable=d)  # NumPy scalar: strong
    if ints:
        _add("numpy", name, Arr(V, I, dx), Arr(V, I, dy), differentiable=False)
        _add("numpy", name, Arr(V, I, dx), py_y, differentiable=False)  # int32 * 2.0: weak f32
        _add("numpy", name, Arr(M, I, dx), 2, differentiable=False)  # int32 * 2: int32
        _add("numpy", name, 2, 3, differentiable=False)  # weak int32
        _add("numpy", name, Arr(V, I, dx), Arr(M, F, dy), differentiable=d)  # int32 + f32: f32
        _add("numpy", name, Arr(V, "int64", dx), Arr(V, I, dy), differentiable=False)
        _add("numpy", name, Arr(V, "bfloat16", dx), Arr(V, I, dy), differentiable=False)
    if bools:
        _add("numpy", name, Arr(V, B), Arr(V, B), differentiable=False)
        _add("numpy", name, Arr(V, B), Arr(V, I, dy), differentiable=False)
        _add("numpy", name, Arr(V, B), 2.0, differentiable=False)


_binary_cases("add", linear=True, bools=True)
_binary_cases("subtract", linear=True)
_binary_cases("multiply", bools=True)
_binary_cases("divide", dy="nonzero")
_binary_cases("maximum", bools=True)
_binary_cases("minimum", full=False)
_binary_cases("power", dx="positive", ints=False)
_binary_cases("remainder", dy="nonzero", differentiable=False, full=False)
_binary_cases("floor_divide", dy="nonzero", differentiable=False, full=False)
_add("numpy", "remainder", Arr(V, I), Arr(V, I, "nonzero"), differentiable=False)
_add("numpy", "floor_divide", Arr(V, I), Arr(V, I, "nonzero"), differentiable=False)
for y in (2, 3, 0, -1, 1):  # a static integer exponent: integer_pow
    _add("numpy", "power", Arr(M, F, "nonzero"), y)
_add("numpy", "power", Arr(V, I), 2, differentiable=False)
_add("numpy", "power", Arr(V, F, "positive"), Arr(V, I, "positive"))
_add("numpy", "power", Arr(V, I, "positive"), 0.5, differentiable=False)
for name in ("greater", "equal"):
    _binary_cases(name, differentiable=False, bools=True)
for name in ("less", "greater_equal", "less_equal", "not_equal"):
    _binary_cases(name, differentiable=False, full=False)
for name in ("greater", "less", "equal", "greater_equal", "less_equal", "not_equal"):
    _add("numpy", name, Arr((4, 3), I), Arr(V, I), differentiable=False)  # ties are likely

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
        _add("numpy", name, Arr(shape, F, domain))
    positive_int = "positive" if domain == "positive" else "real"
    _add("numpy", name, Arr(V, I, positive_int), differentiable=False)  # int -> float32
    _add("numpy", name, Arr(V, B), differentiable=False)
    _add("numpy", name, 0.5, differentiable=False)  # weak float32
    _add("numpy", name, 1, differentiable=False)  # weak int -> weak float32
    _add("numpy", name, Arr(V, "float64", domain), differentiable=False)
    _add("numpy", name, Arr(V, "bfloat16", domain), differentiable=False)
for name in ("negative", "abs", "sign"):
    for shape in (S, V, M):
        _add("numpy", name, Arr(shape, F, "nonzero"), linear=name == "negative")
    _add("numpy", name, Arr(V, I), differentiable=False)
    _add("numpy", name, -1.5, differentiable=False)
    _add("numpy", name, -2, differentiable=False)
_add("numpy", "abs", Arr(V, B), differentiable=False)

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
    _add("numpy", "where", c, x, y, linear=True)
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
    _add("numpy", "clip", *args, **kw)

# --- reductions
for name in ("sum", "mean", "max", "min", "prod"):
    linear = name in ("sum", "mean")
    for kw in [
        {},
        {"axis": 0},
        {"axis": 1},
        {"axis": -1},
        {"axis": (0, 1)},
        {"keepdims": True},
        {"axis": 1, "keepdims": True},
    ]:
        _add("numpy", name, Arr(M), linear=linear, **kw)
    _add("numpy", name, Arr((2, 3, 4)), axis=(0, 2), linear=linear)
    _add("numpy", name, Arr(S), linear=linear)
    _add("numpy", name, Arr(M, I), differentiable=False)
    _add("numpy", name, Arr(M, I), axis=0, differentiable=False)
    _add("numpy", name, Arr(M, B), axis=1, differentiable=False)
    _add("numpy", name, 2.5, differentiable=False)
    _add("numpy", name, Arr(V, "bfloat16"), differentiable=False)
for name in ("sum", "mean"):
    _add("numpy", name, Arr(M, I), dtype=np.float32, differentiable=False)
    _add("numpy", name, Arr(M), dtype=np.int32, axis=0, differentiable=False)
for kw in [
    {},
    {"axis": 0},
    {"axis": 1},
    {"axis": -1},
    {"keepdims": True},
    {"axis": 1, "keepdims": True},
]:
    _add("numpy", "argmax", Arr(M), differentiable=False, **kw)
    _add("numpy", "argmax", Arr(M, I), differentiable=False, **kw)
_add("numpy", "argmax", Arr(V, B), differentiable=False)
_add("numpy", "argmax", Arr(S), differentiable=False)

# --- linear algebra
DOT_PAIRS = [
    (V, V),
    (M, V),
    (M, (3, 4)),
    (V, (3, 4)),
    (S, V),
    ((2, 2, 3), (3, 4)),
    ((2, 2, 3), (3,)),
]
MATMUL_PAIRS = [
    (V, V),
    (M, V),
    (M, (3, 4)),
    (V, (3, 4)),
    ((2, 2, 3), (3, 4)),
    ((2, 2, 3), (2, 3, 4)),
    (V, (2, 3, 4)),
    ((2, 3, 4), (4,)),
    ((3, 4), (2, 4, 5)),
    ((1, 3, 4), (2, 4, 5)),
]
for name, pairs in (("dot", DOT_PAIRS), ("matmul", MATMUL_PAIRS)):
    for sx, sy in pairs:
        _add("numpy", name, Arr(sx), Arr(sy))
    _add("numpy", name, Arr(M, I), Arr((3, 2), I), differentiable=False)
    _add("numpy", name, Arr(M, I), Arr(V))
    _add("numpy", name, Arr(M, B), Arr(V, B), differentiable=False)

# --- shapes
for args, kw in [
    ((Arr(M),), {}),
    ((Arr((2, 3, 4)), (1, 0, 2)), {}),
    ((Arr((2, 3, 4)),), {"axes": (-1, 0, 1)}),
    ((Arr(V),), {}),
    ((Arr(S),), {}),
    ((Arr(M, I),), {}),
]:
    _add("numpy", "transpose", *args, linear=True, **kw)
for x, shape in [
    (Arr(M), (3, 2)),
    (Arr(M), (6,)),
    (Arr(M), (-1,)),
    (Arr(M), (1, -1)),
    (Arr(M), 6),
    (Arr((2, 3, 4)), (4, -1, 2)),
    (Arr(S), (1, 1)),
    (Arr(V, I), (3, 1)),
    (Arr((1,)), ()),
]:
    _add("numpy", "reshape", x, shape, linear=True)
for x, axis in [
    (Arr(V), 0),
    (Arr(V), -1),
    (Arr(M), 1),
    (Arr(M), (0, 2)),
    (Arr(S), 0),
    (Arr(M), (-1, 0)),
    (Arr(V, I), 1),
]:
    _add("numpy", "expand_dims", x, axis, linear=True)
for x, kw in [
    (Arr((1, 3, 1)), {}),
    (Arr((1, 3, 1)), {"axis": 0}),
    (Arr((1, 3, 1)), {"axis": (0, 2)}),
    (Arr((1, 3, 1)), {"axis": -1}),
    (Arr(V), {}),
    (Arr((1, 1)), {}),
    (Arr((1, 2), I), {}),
]:
    _add("numpy", "squeeze", x, linear=True, **kw)
for x, shape in [
    (Arr(V), (2, 3)),
    (Arr(S), (2,)),
    (Arr((2, 1)), (2, 3)),
    (Arr(M), (4, 2, 3)),
    (Arr(V, I), (2, 3)),
    (Arr(V), (3,)),
]:
    _add("numpy", "broadcast_to", x, shape, linear=True)
_add("numpy", "broadcast_to", 2.0, (2,), differentiable=False)
for name in ("concatenate", "stack"):
    axes = (0, 1, -1) if name == "concatenate" else (0, 1, 2, -1)
    for axis in axes:
        _add("numpy", name, Arr(M), Arr(M), Arr(M), axis=axis, linear=True, call=_as_list)
    _add("numpy", name, Arr(V), Arr(V, I), call=_as_list)
    _add("numpy", name, Arr(V, I), Arr(V, I), call=_as_list, differentiable=False)
    _add("numpy", name, Arr(V), call=_as_list, linear=True)
    _add("numpy", name, Arr(V, "bfloat16"), Arr(V), call=_as_list, differentiable=False)
_add("numpy", "concatenate", Arr(M), Arr((1, 3)), call=_as_list, linear=True)
_add("numpy", "concatenate", Arr(M), Arr((2, 1)), axis=1, call=_as_list, linear=True)
_add("numpy", "stack", Arr(S), Arr(S), call=_as_list, linear=True)
_add("numpy", "stack", Arr(S), 2.0, call=_as_list)

# --- didax.nn
for name in ("relu", "sigmoid", "softmax", "log_softmax"):
    for shape in (S, V, M):
        if name in ("softmax", "log_softmax") and shape == S:
            continue
        _add("nn", name, Arr(shape, F, "nonzero"))
    # jax.nn.sigmoid is lax.logistic, which takes floats only; the others convert ints
    _add(
        "nn", name, Arr(V, I), differentiable=False, raises=TypeError if name == "sigmoid" else None
    )
    _add("nn", name, Arr(V, "bfloat16", "nonzero"), differentiable=False)
for name in ("softmax", "log_softmax"):
    _add("nn", name, Arr(M), axis=0)
    _add("nn", name, Arr((2, 3, 4)), axis=(0, 2))
    _add("nn", name, Arr(M, F, "special"), differentiable=False)
_add("nn", "relu", 1.5, differentiable=False)
_add("nn", "relu", -2, differentiable=False)
_add("nn", "sigmoid", 0.5, differentiable=False)
for kw in [{}, {"axis": 0}, {"axis": 1}, {"axis": -1, "keepdims": True}, {"axis": (0, 1)}]:
    _add("nn", "logsumexp", Arr(M), **kw)
_add("nn", "logsumexp", Arr(S))
_add("nn", "logsumexp", Arr(V, I), differentiable=False)
_add("nn", "logsumexp", Arr(V, F, "special"), differentiable=False)
# the rest of jax.nn's activations (issue 24), on floats away from their kinks
for name in (
    "celu",
    "elu",
    "gelu",
    "hard_sigmoid",
    "hard_silu",
    "hard_tanh",
    "leaky_relu",
    "log_sigmoid",
    "mish",
    "relu6",
    "selu",
    "silu",
    "soft_sign",
    "softplus",
    "sparse_plus",
    "sparse_sigmoid",
    "squareplus",
    "standardize",
):
    _add("nn", name, Arr(V, F, "nonzero"))
_add("nn", "log1mexp", Arr(V, F, "positive"))
_add("nn", "glu", Arr((2, 4), F, "nonzero"))
_add("nn", "gelu", Arr(V, F, "nonzero"), approximate=False)
_add("nn", "one_hot", Arr(V, I, "index"), 3, differentiable=False)

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
    _add("lax", name, Arr(M, F, dx), Arr(M, F, dy), linear=linear, differentiable=differentiable)
    _add("lax", name, Arr(M, F, dx), Arr(S, F, dy), linear=linear, differentiable=differentiable)
    _add("lax", name, Arr(M, F, dx), 2.0, linear=linear, differentiable=differentiable)
    _add("lax", name, Arr(S, F, dx), Arr(S, F, dy), linear=linear, differentiable=differentiable)
    if name != "pow":
        _add("lax", name, Arr(M, I, dx), Arr(M, I, dy), differentiable=False)
        _add("lax", name, Arr(V, I, dx), 3, differentiable=False)
_add("lax", "pow", Arr(M, F, "positive"), Arr(M, I))  # JAX 0.10 takes an integer exponent
_add("lax", "round", np.array([0.5, 1.5, -0.5, -2.5, 2.4], np.float32), differentiable=False)
_add("lax", "round", np.array([0.5, 1.5, -0.5, -2.5, 2.4], np.float32), 1, differentiable=False)
_add("lax", "pow", Arr(M, F, "positive"), Arr(S, I))
for name in ("gt", "lt", "ge", "le", "eq", "ne"):
    _add("lax", name, Arr(M), Arr(M), differentiable=False)
    _add("lax", name, Arr(V, I), Arr(V, I), differentiable=False)
    _add("lax", name, Arr(V), 0.5, differentiable=False)
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
    _add("lax", name, Arr(M, F, domain), linear=name == "neg")
    _add("lax", name, Arr(S, F, domain), linear=name == "neg")
    if name in ("neg", "abs", "sign", "stop_gradient"):
        _add("lax", name, Arr(V, I), differentiable=False)
_add("lax", "is_finite", Arr(M, F, "special"), differentiable=False)
for y in (2, 3, 0, 1, -2):
    _add("lax", "integer_pow", Arr(M, F, "nonzero"), y)
_add("lax", "integer_pow", Arr(V, I), 3, differentiable=False)
_add("lax", "clamp", -0.5, Arr(M), 0.5)
_add("lax", "clamp", Arr(M, F, "unit"), Arr(M), Arr(M, F, "positive"))
# JAX 0.10.2's clamp jvp fails for scalar bounds of an array ("select cases must have the
# same shapes"): no derivative tests there
_add("lax", "clamp", Arr(S, F, "unit"), Arr(V), Arr(S, F, "positive"), differentiable=False)
_add("lax", "clamp", -1, Arr(V, I), 2, differentiable=False)
_add("lax", "select_n", Arr(M, B), Arr(M), Arr(M), linear=True)
_add("lax", "select_n", Arr(M, I, "index"), Arr(M), Arr(M), Arr(M), linear=True)
_add("lax", "select_n", Arr(S, B), Arr(V), Arr(V), linear=True)
_add("lax", "select_n", Arr(V, B), Arr(V, I), Arr(V, I), differentiable=False)
for name in ("reduce_sum", "reduce_max", "reduce_min", "reduce_prod"):
    for axes in [(0,), (1,), (0, 1), ()]:
        _add("lax", name, Arr(M), axes, linear=name == "reduce_sum")
    _add("lax", name, Arr(M, I), (1,), differentiable=False)
_add("lax", "argmax", Arr(M), 1, np.int32, differentiable=False)
_add("lax", "argmax", Arr(M, I), 0, np.int32, differentiable=False)
_add("lax", "iota", np.int32, 5, differentiable=False)
_add("lax", "iota", np.float32, 4, differentiable=False)
_add("lax", "broadcasted_iota", np.int32, (2, 3), 1, differentiable=False)
_add("lax", "full", (2, 3), 1.5, differentiable=False)
_add("lax", "full", (2,), 3, np.float32, differentiable=False)
_add("lax", "full", (2, 3), Arr(S))
_add("lax", "broadcast_in_dim", Arr(V), (2, 3), (1,), linear=True)
_add("lax", "broadcast_in_dim", Arr(S), (2, 3), (), linear=True)
_add("lax", "broadcast_in_dim", Arr((2, 1)), (2, 4, 3), (0, 1), linear=True)
_add("lax", "broadcast_in_dim", Arr(V, I), (3, 2), (0,), differentiable=False)
_add("lax", "reshape", Arr(M), (3, 2), linear=True)
_add("lax", "reshape", Arr(M), (6,), linear=True)
_add("lax", "reshape", Arr(M), (3, 2), (1, 0), linear=True)
_add("lax", "reshape", Arr(V, I), (1, 3), differentiable=False)
_add("lax", "transpose", Arr(M), (1, 0), linear=True)
_add("lax", "transpose", Arr((2, 3, 4)), (2, 0, 1), linear=True)
_add("lax", "squeeze", Arr((1, 3, 1)), (0, 2), linear=True)
_add("lax", "squeeze", Arr((1, 3)), (0,), linear=True)
_add("lax", "expand_dims", Arr(M), (0, 3), linear=True)
_add("lax", "slice", Arr((4, 5)), (1, 0), (3, 4), linear=True)
_add("lax", "slice", Arr((4, 5)), (0, 1), (4, 5), (2, 3), linear=True)
_add("lax", "slice", Arr((4,), I), (1,), (3,), differentiable=False)
_add("lax", "pad", Arr(M), 0.0, ((1, 2, 0), (0, 1, 1)), linear=True)
_add("lax", "pad", Arr(M), Arr(S), ((0, 0, 0), (-1, 2, 0)))
_add("lax", "concatenate", Arr(M), Arr(M), dimension=0, call=_lax_concatenate, linear=True)
_add(
    "lax",
    "concatenate",
    Arr(M),
    Arr((2, 1)),
    Arr(M),
    dimension=1,
    call=_lax_concatenate,
    linear=True,
)
_add("lax", "dot_general", Arr(M), Arr((3, 4)), (((1,), (0,)), ((), ())))
_add("lax", "dot_general", Arr((2, 3, 4)), Arr((2, 4, 5)), (((2,), (1,)), ((0,), (0,))))
_add("lax", "dot_general", Arr((3, 2)), Arr((3, 4)), (((0,), (0,)), ((), ())))
_add("lax", "dot_general", Arr((3, 2, 4)), Arr((4, 3)), (((0, 2), (1, 0)), ((), ())))
_add(
    "lax", "dot_general", Arr(M, I), Arr((3, 2), I), (((1,), (0,)), ((), ())), differentiable=False
)
_add(
    "lax",
    "dot_general",
    Arr(M),
    Arr((3, 4)),
    (((1,), (0,)), ((), ())),
    preferred_element_type=np.float32,
)
_add("lax", "convert_element_type", Arr(M), np.int32, differentiable=False)
_add("lax", "convert_element_type", Arr(M, I), np.float32, differentiable=False)
_add("lax", "convert_element_type", Arr(M), np.bool_, differentiable=False)
_add("lax", "convert_element_type", Arr(M, B), np.float32, differentiable=False)
_add("lax", "convert_element_type", Arr(M), "bfloat16", differentiable=False)
_add("lax", "convert_element_type", Arr(M), np.float32, linear=True)
_add("lax", "convert_element_type", 2.5, np.float32, differentiable=False)
_add("lax", "convert_element_type", 3, np.int32, differentiable=False)

CASE_IDS = [c.id for c in CASES]
assert len(set(CASE_IDS)) == len(CASE_IDS), "case ids must be unique"
