"""The heart of didax: primitives, rule tables, abstract values, traces and `bind`.

Layer 1 (autodidax part 1, "Transformations as interpreters"). A program is a Python function
calling primitives. `bind` hands each primitive application to the *current interpreter*: the
trace of highest level among the operands (and the dynamic trace, while `make_jaxpr`/`jit`
stage a function). Interpreters are `Trace` subclasses that box values in `Tracer`s. The
eval interpreter at level 0 runs each primitive's `impl` rule on NumPy arrays.

Trace state lives in one `ContextVar` holding an immutable `TraceState`; `new_main` sets it
and resets it in a `finally`, so an exception in the middle of a trace leaves nothing behind
and threads never see each other's traces.

The six standard rule tables live here too, with the types their rules see (`Zero` tangents,
`UndefinedPrimal`, `NOT_MAPPED`), so that `lax` (layer 2) can register rules for every
interpreter without importing the interpreters (layer 3).
"""

from __future__ import annotations

import abc
import operator
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

import numpy as np
from didax import dtypes

# --------------------------------------------------------------------------- primitives


class Primitive:
    """A primitive operation. Hashed by identity: a notebook's `Primitive("add")` is not
    `lax.add_p`. Operands are positional, params keyword-only and hashable."""

    multiple_results = False
    # An optional shortcut past the interpreters for eager calls (see `bind` below): given the
    # operands (and params), it returns the result, or NotImplemented to decline. It must
    # decline unless nothing is being traced (`trace_state() is EAGER_STATE`), and agree with
    # the impl rule where it accepts. `lax` sets one for the elementwise primitives.
    eager: Callable[..., Any] | None = None

    def __init__(self, name: str, *, multiple_results: bool = False) -> None:
        self.name = name
        self.multiple_results = multiple_results

    def bind(self, *operands: Any, **params: Any) -> Any:
        # The eager shortcut: with nothing being traced, a plain eager call of a simple
        # primitive (`sin` of an Array) is one NumPy call. Everything else, and every call
        # the shortcut declines, goes through `bind` and the interpreters.
        eager = self.eager
        if eager is not None and _state.get() is _DEFAULT_STATE:
            out = eager(*operands, **params)
            if out is not NotImplemented:
                return out
        out = bind(self, operands, params)
        return out if self.multiple_results else out[0]

    def __repr__(self) -> str:
        return self.name

    # Thin shortcuts for notebook users adding a primitive; each calls RuleTable.register.
    def def_impl(self, rule: Callable) -> Callable:
        return impl_rules.register(self, rule, replace=True)

    def def_abstract_eval(self, rule: Callable) -> Callable:
        return abstract_eval_rules.register(self, rule, replace=True)


R = TypeVar("R", bound=Callable)


class RuleTable(Generic[R]):
    """One interpreter's rules, keyed by primitive."""

    def __init__(self, interpreter: str) -> None:
        self.interpreter = interpreter
        self._rules: dict[Primitive, R] = {}

    def register(self, prim: Primitive, rule: R | None = None, *, replace: bool = False) -> Any:
        def add(rule: R) -> R:
            if prim in self._rules and not replace:
                raise ValueError(
                    f"{self.interpreter} rule for '{prim}' already registered; "
                    "pass replace=True to redefine it"
                )
            self._rules[prim] = rule
            return rule

        return add if rule is None else add(rule)

    def __getitem__(self, prim: Primitive) -> R:
        rule = self._rules.get(prim)
        if rule is None:
            raise NotImplementedError(f"no {self.interpreter} rule for '{prim}'")
        return rule

    def __contains__(self, prim: Primitive) -> bool:
        return prim in self._rules

    def primitives(self) -> list[Primitive]:
        return list(self._rules)


ImplRule = Callable[..., list]  # (*np.ndarray, **params) -> [np.ndarray]
AbstractEvalRule = Callable[..., list]  # (*ShapedArray, **params) -> [ShapedArray]
JvpRule = Callable[..., tuple]  # (primals, tangents, **params) -> (primals_out, tangents_out)
TransposeRule = Callable[..., list]  # (cts, *operands, **params) -> [ct or None per operand]
VmapRule = Callable[..., tuple]  # (axis_size, vals, dims, **params) -> (vals_out, dims_out)
LoweringRule = Callable[..., list]  # (ctx, *ir.Value, **params) -> [ir.Value]

impl_rules: RuleTable[ImplRule] = RuleTable("impl")
abstract_eval_rules: RuleTable[AbstractEvalRule] = RuleTable("abstract_eval")
jvp_rules: RuleTable[JvpRule] = RuleTable("jvp")
transpose_rules: RuleTable[TransposeRule] = RuleTable("transpose")
vmap_rules: RuleTable[VmapRule] = RuleTable("vmap")
lowering_rules: RuleTable[LoweringRule] = RuleTable("lowering")


@dataclass(frozen=True)
class LoweringContext:
    """What a lowering rule sees besides its operands (`ir.Value`s), made by
    `interpreters/lowering.py` for each equation:

    - `hlo`, `ir`: jaxlib's StableHLO op builders and MLIR core (`ctx.hlo.sine(x)`,
      `ctx.ir.DenseI64ArrayAttr`); loaded on the first compile, so `lax` never imports jaxlib.
    - `avals_in`, `avals_out`: the equation's operand and result types.
    - `tensor_type(aval)`, `constant(value, dtype)`: MLIR types and (deduplicated) constants.
    - `lower_jaxpr(closed_jaxpr, args)`: lower a nested jaxpr at the current insertion point
      on `ir.Value` arguments and return its results (control flow bodies, nested jit).
    """

    hlo: Any
    ir: Any
    avals_in: tuple[ShapedArray, ...]
    avals_out: tuple[ShapedArray, ...]
    module: Any  # lowering.ModuleBuilder: the module being built

    def tensor_type(self, aval: ShapedArray) -> Any:
        return self.module.tensor_type(aval)

    def constant(self, value: Any, dtype: Any = None) -> Any:
        return self.module.constant(value, dtype)

    def lower_jaxpr(self, closed_jaxpr: Any, args: Sequence[Any]) -> list[Any]:
        return self.module.lower_jaxpr(closed_jaxpr, args)

    def replace(self, **changes: Any) -> LoweringContext:
        return replace(self, **changes)


# Primitives with an effect (a print): dead-code elimination keeps their equations even when
# nothing reads their outputs, and `jit` evaluates programs holding them eagerly.
effectful: set[Primitive] = set()

# Operators of Array and Tracer (`x + y`, `x[0]`, `x.sum()`) dispatch through this table,
# which `didax.numpy` fills at import: the array classes sit below the numpy layer.
operator_table: dict[str, Callable[..., Any]] = {}

# --------------------------------------------------------------------------- abstract values


class ShapedArray:
    """The abstract value of an array: shape, dtype and whether the dtype is weak."""

    __slots__ = ("shape", "dtype", "weak_type", "_hash")
    array_abstraction_level = 1

    def __init__(self, shape: tuple[int, ...], dtype: Any, weak_type: bool = False) -> None:
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = weak_type

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

    @classmethod
    def make(cls, shape: tuple[int, ...], dtype: np.dtype, weak_type: bool) -> ShapedArray:
        """Construct from an already canonical tuple and np.dtype (the eager hot path)."""
        aval = object.__new__(cls)
        aval.shape, aval.dtype, aval.weak_type = shape, dtype, weak_type
        return aval

    def update(self, **changes: Any) -> ShapedArray:
        fields = {"shape": self.shape, "dtype": self.dtype, "weak_type": self.weak_type}
        return ShapedArray(**{**fields, **changes})

    def strip_weak_type(self) -> ShapedArray:
        return ShapedArray(self.shape, self.dtype) if self.weak_type else self

    def str_short(self) -> str:
        return f"{dtypes.short_name(self.dtype)}[{','.join(map(str, self.shape))}]"

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is ShapedArray
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.weak_type == other.weak_type
        )

    def __hash__(self) -> int:
        try:  # avals are immutable, and jit's cache hashes them on every dispatch
            return self._hash
        except AttributeError:
            self._hash = hash((self.shape, self.dtype, self.weak_type))
            return self._hash

    def __str__(self) -> str:  # JAX spells the dtype out here: float32[3], ~float32[] if weak
        weak = "~" if self.weak_type else ""
        return f"{weak}{self.dtype.name}[{','.join(map(str, self.shape))}]"

    def __repr__(self) -> str:
        shape = ",".join(map(str, self.shape))
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.dtype.name}[{shape}]{weak})"


def types_match(a: ShapedArray, b: ShapedArray) -> bool:
    """Equal shape and dtype; weak types may differ (a weak f32 fits where f32 is expected)."""
    return a.shape == b.shape and a.dtype == b.dtype


def get_aval(x: Any) -> ShapedArray:
    """The abstract value of anything didax accepts as an array."""
    if isinstance(x, Tracer):
        return x.aval
    aval = getattr(x, "aval", None)  # didax.Array
    if isinstance(aval, ShapedArray):
        return aval
    if dtypes.is_python_scalar(x):
        return ShapedArray((), dtypes.python_scalar_dtype(x), type(x) is not bool)
    if isinstance(x, (np.ndarray, np.generic)):
        return ShapedArray(np.shape(x), dtypes.canonicalize(x.dtype))
    raise TypeError(f"Value {x!r} of type {type(x).__name__} is not a valid didax type")


def is_arraylike(x: Any) -> bool:
    return (
        isinstance(x, (Tracer, np.ndarray, np.generic))
        or dtypes.is_python_scalar(x)
        or (isinstance(getattr(x, "aval", None), ShapedArray))
    )


def to_numpy(x: Any) -> np.ndarray | np.generic:
    """A concrete operand as a canonical NumPy value (Array, NumPy value or Python scalar)."""
    value = getattr(x, "_value", None)  # didax.Array keeps its host value here
    if value is not None:
        return value
    if isinstance(x, (np.ndarray, np.generic)):
        dtype = dtypes.canonicalize(x.dtype)
        return x if dtype == x.dtype else x.astype(dtype)
    if dtypes.is_python_scalar(x):
        return np.array(x, dtypes.python_scalar_dtype(x))
    if hasattr(x, "__array__"):
        return to_numpy(np.asarray(x))
    raise TypeError(f"Value {x!r} of type {type(x).__name__} is not a valid didax type")


# --------------------------------------------------------------------------- symbolic zeros


class Zero:
    """A tangent (or cotangent) known to be zero, kept symbolic so it costs nothing."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    @staticmethod
    def like(x: Any) -> Zero:
        return Zero(tangent_aval(get_aval(x)))

    def __repr__(self) -> str:
        return f"Zero({self.aval.str_short()})"


def tangent_aval(aval: ShapedArray) -> ShapedArray:
    """The aval of a tangent of a value of `aval`: the same, weak type included, as in JAX.
    Tangents of integer and bool values have no meaning (JAX's dtype float0); didax keeps
    them as symbolic `Zero`s of the primal's aval and never materializes them."""
    return aval


class UndefinedPrimal:
    """A linear input to a transpose rule: only its aval is known."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return f"UndefinedPrimal({self.aval.str_short()})"


class _NotMapped:
    def __repr__(self) -> str:
        return "NOT_MAPPED"


NOT_MAPPED: Any = _NotMapped()  # the batch dim of a value vmap does not map over

# --------------------------------------------------------------------------- errors


class UnexpectedTracerError(Exception):
    """A tracer was used after the transformation that made it had returned."""


class ConcretizationTypeError(TypeError):
    """A traced value was used where Python needs a concrete one (`if x > 0:` under jit)."""


# --------------------------------------------------------------------------- traces


class MainTrace:
    """One interpreter on the trace stack: its level, its Trace class and global data."""

    __slots__ = ("level", "trace_type", "global_data", "trace")

    def __init__(self, level: int, trace_type: type[Trace], global_data: Any = None) -> None:
        self.level = level
        self.trace_type = trace_type
        self.global_data = global_data
        self.trace = trace_type(self)  # the interpreter `bind` hands this level's work to

    def __repr__(self) -> str:
        return f"MainTrace({self.level}, {self.trace_type.__name__})"


class Trace(abc.ABC):
    """An interpreter. `pure` and `lift` box values of lower levels; `process_primitive`
    applies one primitive to this trace's tracers."""

    def __init__(self, main: MainTrace) -> None:
        self.main = main

    def pure(self, val: Any) -> Tracer:
        return self.lift(val)

    @abc.abstractmethod
    def lift(self, val: Any) -> Tracer: ...

    @abc.abstractmethod
    def process_primitive(
        self, primitive: Primitive, tracers: Sequence[Any], params: dict[str, Any]
    ) -> list[Any]: ...

    def full_raise(self, val: Any) -> Tracer:
        if not isinstance(val, Tracer):
            if not is_arraylike(val):
                raise TypeError(
                    f"Value {val!r} of type {type(val).__name__} is not a valid "
                    "didax type: expected an array or a scalar"
                )
            return self.pure(val)
        level = self.main.level
        if val._trace.main is self.main:
            return val
        if val._trace.main.level < level:
            return self.lift(val)
        raise UnexpectedTracerError(
            f"a tracer of level {val._trace.main.level} reached a trace of level {level}: "
            "a value escaped the transformation that created it"
        )


class Tracer:
    """A boxed value flowing through a Trace. Operators go through `operator_table`."""

    __array_priority__ = 1000
    __slots__ = ("_trace",)
    _trace: Trace

    @property
    def aval(self) -> ShapedArray:
        raise NotImplementedError

    def full_lower(self) -> Any:
        return self

    def to_concrete_value(self) -> Any:
        """The concrete value behind this tracer, or None when there is none (staging)."""
        return None

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)
    T = property(lambda self: operator_table["transpose"](self))

    def _concrete(self, what: str) -> Any:
        value = self.to_concrete_value()
        if value is None:
            raise ConcretizationTypeError(
                f"Attempted {what} on an abstract value {self.aval.str_short()} "
                f"(a {type(self).__name__}). The value is only known when the program runs: "
                "use lax.cond / lax.while_loop for control flow on traced values, or mark the "
                "argument static with static_argnums."
            )
        return value

    def __bool__(self) -> bool:
        return bool(self._concrete("boolean conversion (`if`, `while`, `and`, `or`)"))

    def __int__(self) -> int:
        return int(self._concrete("int()"))

    def __float__(self) -> float:
        return float(self._concrete("float()"))

    def __index__(self) -> int:
        return operator.index(self._concrete("use as an index"))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray(self._concrete("conversion to a NumPy array"), dtype)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self) -> Iterator[Any]:
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __hash__(self) -> int:
        raise TypeError(f"unhashable type: {type(self).__name__}")

    def __repr__(self) -> str:
        return f"Traced<{self.aval!r}> with {type(self).__name__}"


def _forward(name: str) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # engine frame: IPython leaves it out of tracebacks
        return operator_table[name](self, *args, **kwargs)

    method.__name__ = name
    return method


def _binary(name: str) -> Callable[..., Any]:
    def method(self: Any, other: Any) -> Any:  # no *args: `x * y` is the eager hot loop
        __tracebackhide__ = True
        return operator_table[name](self, other)

    method.__name__ = name
    return method


def _reflected(name: str) -> Callable[..., Any]:
    def method(self: Any, other: Any) -> Any:
        __tracebackhide__ = True
        return operator_table[name](other, self)

    method.__name__ = f"r{name}"
    return method


# Operator names shared by Tracer and Array; the array module reuses this list.
BINARY_OPERATORS = {
    "__add__": "add",
    "__sub__": "subtract",
    "__mul__": "multiply",
    "__truediv__": "divide",
    "__floordiv__": "floor_divide",
    "__mod__": "remainder",
    "__pow__": "power",
    "__matmul__": "matmul",
    "__lt__": "less",
    "__le__": "less_equal",
    "__gt__": "greater",
    "__ge__": "greater_equal",
    "__eq__": "equal",
    "__ne__": "not_equal",
    "__and__": "logical_and",
    "__or__": "logical_or",
}
REFLECTED_OPERATORS = {
    "__radd__": "add",
    "__rsub__": "subtract",
    "__rmul__": "multiply",
    "__rtruediv__": "divide",
    "__rfloordiv__": "floor_divide",
    "__rmod__": "remainder",
    "__rpow__": "power",
    "__rmatmul__": "matmul",
}
UNARY_METHODS = {
    "__neg__": "negative",
    "__pos__": "positive",
    "__abs__": "abs",
    "__getitem__": "getitem",
    "reshape": "reshape_method",
    "astype": "astype",
    "sum": "sum",
    "mean": "mean",
    "max": "max",
    "min": "min",
    "prod": "prod",
    "argmax": "argmax",
    "transpose": "transpose_method",
    "squeeze": "squeeze",
    "dot": "dot",
    "std": "std",
    "var": "var",
    "round": "round",
    "conj": "conj",
    "conjugate": "conjugate",
    "cumsum": "cumsum",
    "cumprod": "cumprod",
    "argmin": "argmin",
    "argsort": "argsort",
    "sort": "sort",
    "all": "all",
    "any": "any",
    "ravel": "ravel",
    "flatten": "flatten",
    "clip": "clip",
}
PROPERTIES = {"real": "real", "imag": "imag"}


def _property(name: str) -> property:
    return property(lambda self: operator_table[name](self))


def install_operators(cls: type) -> type:
    """Give an array class its operators, each forwarding to `operator_table`.

    A class decorator run once at class creation (not methods bolted on later): the table's
    entries are filled by `didax.numpy` at import.
    """
    for dunder, name in BINARY_OPERATORS.items():
        if dunder not in cls.__dict__:
            setattr(cls, dunder, _binary(name))
    for dunder, name in UNARY_METHODS.items():
        if dunder not in cls.__dict__:
            setattr(cls, dunder, _forward(name))
    for dunder, name in REFLECTED_OPERATORS.items():
        if dunder not in cls.__dict__:
            setattr(cls, dunder, _reflected(name))
    for attr, name in PROPERTIES.items():
        if attr not in cls.__dict__:
            setattr(cls, attr, _property(name))
    return cls


install_operators(Tracer)

# --------------------------------------------------------------------------- eval interpreter


def _is_weak(x: Any) -> bool:
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval.weak_type
    return type(x) is float or type(x) is int


class EvalTrace(Trace):
    """Level 0: run each primitive's impl rule on NumPy values; no boxing."""

    def lift(self, val: Any) -> Any:
        return val

    pure = lift

    def process_primitive(
        self, primitive: Primitive, tracers: Sequence[Any], params: dict[str, Any]
    ) -> list[Any]:
        return eval_primitive(primitive, tracers, params)


# Set by array.py: wraps an impl rule's NumPy outputs as didax.Array.
wrap_eager: Callable[[Any, bool], Any] = lambda value, weak: value


def eval_primitive(primitive: Primitive, operands: Sequence[Any], params: dict) -> list[Any]:
    __tracebackhide__ = True
    rule = impl_rules._rules.get(primitive)
    if rule is None:
        raise NotImplementedError(f"no impl rule for '{primitive}'")
    args = [to_numpy(x) for x in operands]
    outs = rule(*args, **params)
    weak_operand = any(_is_weak(x) for x in operands)
    # Eager results carry a weak type without running abstract evaluation on the hot path:
    # with no weak operand a result is strong (the common case); otherwise the abstract
    # evaluation rule says (`1.0 < 2.0` is a weak bool, `f32 * 2.0` is strong, a cond's
    # index is strong but its branches may return weak values, so primitives with several
    # results, the higher-order ones, always ask); a conversion says itself.
    if "weak_type" in params:
        return [wrap_eager(o, params["weak_type"]) for o in outs]
    if not weak_operand and not primitive.multiple_results:
        return [wrap_eager(o, False) for o in outs]
    if not operands:
        return [wrap_eager(o, False) for o in outs]
    if primitive not in abstract_eval_rules:  # a user's impl-only primitive still runs eagerly
        weak = all(_is_weak(x) for x in operands)
        dtype = args[0].dtype
        return [wrap_eager(o, weak and o.dtype == dtype) for o in outs]
    out_avals = abstract_eval_rules[primitive](*map(get_aval, operands), **params)
    return [wrap_eager(o, a.weak_type) for o, a in zip(outs, out_avals, strict=True)]


# --------------------------------------------------------------------------- trace state


@dataclass(frozen=True)
class TraceState:
    stack: tuple[MainTrace, ...]
    dynamic: MainTrace | None = None  # set while make_jaxpr / jit stage a function


_EVAL_MAIN = MainTrace(0, EvalTrace)
_DEFAULT_STATE = TraceState((_EVAL_MAIN,))
_state: ContextVar[TraceState] = ContextVar("didax_trace_state", default=_DEFAULT_STATE)


# The current trace state, and the state while nothing is being traced: eager shortcuts test
# `trace_state() is EAGER_STATE` (one C call, no Python frame).
trace_state: Callable[[], TraceState] = _state.get
EAGER_STATE = _DEFAULT_STATE


@contextmanager
def new_main(
    trace_type: type[Trace], global_data: Any = None, *, dynamic: bool = False
) -> Iterator[MainTrace]:
    """Push an interpreter for the duration of a `with`; `dynamic=True` makes it catch
    every primitive bound below it, tracers or not (omnistaging)."""
    state = _state.get()
    main = MainTrace(len(state.stack), trace_type, global_data)
    new = replace(state, stack=(*state.stack, main), dynamic=main if dynamic else state.dynamic)
    token = _state.set(new)
    try:
        yield main
    finally:
        _state.reset(token)


@contextmanager
def new_base_main() -> Iterator[None]:
    """Evaluate eagerly below every current trace (used by `jit`'s impl rule)."""
    token = _state.set(_DEFAULT_STATE)
    try:
        yield
    finally:
        _state.reset(token)


def find_top_trace(operands: Sequence[Any]) -> Trace:
    state = _state.get()
    top = state.dynamic or _EVAL_MAIN
    for x in operands:
        if isinstance(x, Tracer):
            main = x._trace.main
            level = main.level
            if level >= len(state.stack) or state.stack[level] is not main:
                raise UnexpectedTracerError(
                    f"Encountered an unexpected tracer {x!r}: it was created by a "
                    f"transformation ({main.trace_type.__name__}) that has already returned. "
                    "Return values out of a transformed function instead of storing them "
                    "in outer variables."
                )
            if level > top.level:
                top = main
    return top.trace


def bind(primitive: Primitive, operands: Sequence[Any], params: dict[str, Any]) -> list[Any]:
    """Apply `primitive` under the current interpreter. Returns a list of outputs."""
    __tracebackhide__ = True
    if _state.get() is _DEFAULT_STATE:  # eager fast path: nothing is being traced
        for x in operands:
            if isinstance(x, Tracer):
                break
        else:
            return eval_primitive(primitive, operands, params)
    trace = find_top_trace(operands)
    tracers = [trace.full_raise(x) for x in operands]
    outs = trace.process_primitive(primitive, tracers, params)
    return [out.full_lower() if isinstance(out, Tracer) else out for out in outs]


def full_lower(val: Any) -> Any:
    return val.full_lower() if isinstance(val, Tracer) else val


def concrete_value(x: Any) -> Any:
    """A concrete NumPy value for `x`, or None if it is only known abstractly."""
    if isinstance(x, Tracer):
        return x.to_concrete_value()
    return to_numpy(x)


def concrete_or_error(x: Any, what: str) -> Any:
    if isinstance(x, Tracer):
        return x._concrete(what)
    return to_numpy(x)
