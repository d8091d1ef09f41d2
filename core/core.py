"""The heart of didax: primitives, rule tables, traces and `bind`. (`ShapedArray`, `Array`
and the operator table sit just below, in array.py; this module re-exports the table and
`ShapedArray`, and its eval interpreter returns `Array`s.)

Layer 1 (autodidax part 1, "Transformations as interpreters"). A program is a Python function
calling primitives. `bind` hands each primitive application to the *current interpreter*: the
trace of highest level among the operands (and the dynamic trace, while `make_jaxpr`/`jit`
stage a function). Interpreters are `Trace` subclasses that box values in `Tracer`s. The
eval interpreter at level 0 runs each primitive's `impl` rule on NumPy arrays.

Trace state lives in one `ContextVar` holding an immutable `TraceState`; `new_main` sets it
and resets it in a `finally`, so an exception in the middle of a trace leaves nothing behind
and threads never see each other's traces.

The standard rule tables (defined in `rule_tables.py`, re-exported here) and the types their
rules see (`Zero` tangents, `UndefinedPrimal`, `NOT_MAPPED`) are reached through this module,
so that `lax` (layer 2) can register rules for every interpreter without importing the
interpreters (layer 3).
"""

from __future__ import annotations

import abc
import operator
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from didax import dtypes, nan_checks
from didax import source_info as si
from didax.array import (  # noqa: F401 - below core; `core.ShapedArray` etc. stay importable
    BINARY_OPERATORS,
    REFLECTED_OPERATORS,
    UNARY_METHODS,
    Array,
    OnDevices,
    ShapedArray,
    VaryingArray,
    eager_result,
    install_operators,
    operator_table,
    to_numpy,
    with_vma,
)
from didax.config import config
from didax.ref_types import AbstractRef, is_ref
from didax.rule_tables import (  # noqa: F401 - the tables live in rule_tables.py; `core.jvp_rules` etc.
    AbstractEvalRule,
    EagerRule,
    ImplRule,
    JvpRule,
    LoweringContext,
    LoweringRule,
    RuleTable,
    ShardingRule,
    TransposeRule,
    VmapRule,
    VmaRule,
    abstract_eval_rules,
    allocating,
    eager_rules,
    effectful,
    impl_rules,
    jvp_rules,
    lowering_rules,
    own_program,
    sharding_rules,
    stateful,
    transpose_rules,
    unconstrained_results,
    vma_rules,
    vmap_rules,
)
from didax.sharded_aval import ShardedArray  # noqa: F401 - `core.ShardedArray`
from didax.tracer_errors import (  # noqa: F401 - `core.ConcretizationTypeError` etc.
    ConcretizationTypeError,
    JAXTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
)

# --------------------------------------------------------------------------- primitives


class Primitive:
    """A primitive operation. Hashed by identity: a notebook's `Primitive("add")` is not
    `lax.add_p`. Operands are positional, params keyword-only and hashable."""

    multiple_results = False

    def __init__(self, name: str, *, multiple_results: bool = False) -> None:
        self.name = name
        self.multiple_results = multiple_results

    def bind(self, *operands: Any, **params: Any) -> Any:
        # The one eager hook: while nothing is traced, a primitive with an eager rule (`sin`
        # of an Array) is one NumPy call; a declined call goes on to `bind` and the eval
        # interpreter, as does every call while something is traced.
        eager = eager_rules._rules.get(self)
        if eager is not None and trace_state() is EAGER_STATE:
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


# --------------------------------------------------------------------------- abstract values


def types_match(a: ShapedArray, b: ShapedArray) -> bool:
    """Equal shape and dtype; weak types may differ (a weak f32 fits where f32 is expected)."""
    return a.shape == b.shape and a.dtype == b.dtype


def get_aval(x: Any) -> ShapedArray:
    """The abstract value of anything didax accepts as an array."""
    if isinstance(x, Tracer):
        return x.aval
    if isinstance(x, (np.ndarray, np.generic)):  # before `getattr`: a miss on NumPy is slow
        return ShapedArray.make(x.shape, dtypes.canonicalize(x.dtype), False)
    aval = getattr(x, "aval", None)  # didax.Array (or a Ref: primitives/refs.py)
    if isinstance(aval, ShapedArray) or type(aval) is AbstractRef:
        return aval
    if dtypes.is_python_scalar(x):
        return ShapedArray((), dtypes.python_scalar_dtype(x), type(x) is not bool)
    raise TypeError(f"Value {x!r} of type {type(x).__name__} is not a valid didax type")


def is_arraylike(x: Any) -> bool:
    return (
        isinstance(x, (Tracer, np.ndarray, np.generic))
        or dtypes.is_python_scalar(x)
        or (isinstance(getattr(x, "aval", None), ShapedArray))
    )


# --------------------------------------------------------------------------- symbolic zeros


class Zero:
    """A tangent (or cotangent) known to be zero, kept symbolic so it costs nothing.

    A tangent has its primal's aval, weak type included, as in JAX. Tangents of integer and
    bool values have no meaning (JAX's dtype float0); didax keeps them as `Zero`s of the
    primal's aval and never materializes them."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    @staticmethod
    def like(x: Any) -> Zero:
        return Zero(get_aval(x))

    def __repr__(self) -> str:
        return f"Zero({self.aval.str_short()})"


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


class AxisSize(int):
    """The size of a vmapped axis, carrying the axis's name (`vmap(..., axis_name=)`, None
    when unnamed). vmap rules receive it as `axis_size`: plain rules use it as an int;
    collectives read `.name`; and higher-order rules, which hand `axis_size` on to
    `vmap_jaxpr`, keep the name for collectives in their bodies without knowing of it."""

    name: Any
    # a `shard_map(check_vma=True)` mesh axis: the mesh's axis names, in order (else None)
    mesh_axes: tuple | None = None

    def __new__(cls, size: int, name: Any = None) -> AxisSize:
        out = super().__new__(cls, size)
        out.name = name
        return out


# Collectives (psum, all_gather, axis_index, ...) act over named axes: the param that holds
# the names, per primitive. `bind` hands such a primitive to the trace of the innermost
# frame (a main whose `global_data` is an `AxisSize`) of those names, even when no operand
# is a tracer of that trace, and raises NameError for a name no frame binds.
axis_name_params: dict[Primitive, str] = {}


def axis_names(primitive: Primitive, params: dict[str, Any]) -> tuple[Any, ...] | None:
    """The axis names a collective acts over (positional int axes left out), or None for a
    primitive that is not a collective."""
    key = axis_name_params.get(primitive)
    if key is None:
        return None
    names = params[key]
    names = names if isinstance(names, tuple) else (names,)
    return tuple(n for n in names if not isinstance(n, int))


# --------------------------------------------------------------------------- traces


class MainTrace:
    """One interpreter on the trace stack: its level, its Trace class and global data."""

    __slots__ = ("level", "trace_type", "global_data", "trace", "deriving")

    def __init__(
        self,
        level: int,
        trace_type: type[Trace],
        global_data: Any = None,
        deriving: si.Deriving | None = None,
    ) -> None:
        self.level = level
        self.trace_type = trace_type
        self.global_data = global_data
        self.deriving = deriving  # None for the eval interpreter at the bottom
        self.trace = trace_type(self)  # the interpreter `bind` hands this level's work to

    def __repr__(self) -> str:
        return f"MainTrace({self.level}, {self.trace_type.__name__})"


class Trace(abc.ABC):
    """An interpreter. `lift` boxes a value of a lower level (or a constant) as a tracer of
    this trace; `process_primitive` applies one primitive to this trace's tracers."""

    def __init__(self, main: MainTrace) -> None:
        self.main = main

    @abc.abstractmethod
    def lift(self, val: Any) -> Tracer: ...

    @abc.abstractmethod
    def process_primitive(
        self, primitive: Primitive, tracers: Sequence[Any], params: dict[str, Any]
    ) -> list[Any]: ...

    def full_raise(self, val: Any) -> Tracer:
        if not isinstance(val, Tracer):
            if not is_arraylike(val) and not is_ref(val):
                raise TypeError(
                    f"Value {val!r} of type {type(val).__name__} is not a valid "
                    "didax type: expected an array or a scalar"
                )
            return self.lift(val)
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
    at = property(lambda self: operator_table["at"](self))  # `x.at[idx].set(v)`

    # Conversions to Python and NumPy values follow JAX: `bool`, `int` and `__index__` (and
    # `item`) use a concrete value where the tracer has one (under `jvp`/`grad` of a function
    # that is not jitted); `float`, `complex`, `__array__` and `tolist` never do, because
    # their result would silently drop the derivative (`float(x) * x`).
    def _concrete(self, what: str) -> Any:
        value = self.to_concrete_value()
        if value is None:
            raise ConcretizationTypeError(self._abstract_message(what))
        return value

    def _error_repr(self) -> str:
        dims = ",".join(map(str, self.aval.shape))
        return f"traced array with shape {self.aval.dtype.name}[{dims}]"

    def _abstract_message(self, context: str) -> str:
        return (
            "Abstract tracer value encountered where concrete value is expected: "
            f"{self._error_repr()}\n{context}\n{_origin_message(self)}"
        )

    def _check_scalar(self) -> None:
        if self.ndim > 0:
            raise TypeError(
                f"Only scalar arrays can be converted to Python scalars; got arr.ndim={self.ndim}"
            )

    def __bool__(self) -> bool:
        value = self.to_concrete_value()
        if value is not None:
            return bool(value)
        if self.size != 1:
            raise ValueError(
                "The truth value of an empty array is ambiguous. Use `array.size > 0` to "
                "check that an array is not empty."
                if self.size == 0
                else "The truth value of an array with more than one element is ambiguous. "
                "Use a.any() or a.all()"
            )
        raise TracerBoolConversionError(
            f"Attempted boolean conversion of {self._error_repr()}.\n{_origin_message(self)}"
            "\nBranch on traced values with lax.cond / lax.while_loop, or mark the argument "
            "static (static_argnums)."
        )

    def __int__(self) -> int:
        value = self.to_concrete_value()
        if value is not None:
            return int(value)
        self._check_scalar()
        raise ConcretizationTypeError(self._abstract_message(_conversion_context(int)))

    def __float__(self) -> float:
        self._check_scalar()
        raise ConcretizationTypeError(self._abstract_message(_conversion_context(float)))

    def __complex__(self) -> complex:
        self._check_scalar()
        raise ConcretizationTypeError(self._abstract_message(_conversion_context(complex)))

    def __index__(self) -> int:
        value = self.to_concrete_value()
        if value is not None:
            return operator.index(value)
        if self.shape != () or not dtypes.is_int(self.dtype):
            raise TypeError("Only integer scalar arrays can be converted to a scalar index.")
        raise TracerIntegerConversionError(
            f"The __index__() method was called on {self._error_repr()}\n{_origin_message(self)}"
        )

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TracerArrayConversionError(
            "The numpy.ndarray conversion method __array__() was called on "
            f"{self._error_repr()}\n{_origin_message(self)}"
        )

    def item(self, *args: int) -> Any:
        context = "This occurred in the item() method of jax.Array"
        return np.asarray(self._concrete(context)).item(*args)

    def tolist(self) -> Any:
        context = f"The tolist() method was called on {self._error_repr()}."
        raise ConcretizationTypeError(self._abstract_message(context))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self) -> Iterator[Any]:
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __setitem__(self, idx: Any, value: Any) -> None:  # a ref's write; an array refuses
        operator_table["setitem"](self, idx, value)

    def __hash__(self) -> int:
        raise TypeError(f"unhashable type: {type(self).__name__}")

    def __repr__(self) -> str:
        return f"Traced<{self.aval!r}> with {type(self).__name__}"


def _conversion_context(fn: type) -> str:
    name = fn.__name__
    return (
        f"The problem arose with the `{name}` function. If trying to convert the data type of "
        f"a value, try using `x.astype({name})` or `jnp.array(x, {name})` instead."
    )


_ENGINE_DIR = os.path.dirname(os.path.abspath(__file__))


def _origin_message(tracer: Tracer) -> str:
    # The user's line that asked for the value: the innermost frame outside the engine.
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_ENGINE_DIR):
        frame = frame.f_back
    where = "" if frame is None else f" at {frame.f_code.co_filename}:{frame.f_lineno}"
    func = "" if frame is None else f" (in {frame.f_code.co_name})"
    return f"The error occurred{where}{func}, on a {type(tracer).__name__}."


install_operators(Tracer)

# --------------------------------------------------------------------------- eval interpreter


def _is_weak(x: Any) -> bool:
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval.weak_type
    return type(x) is float or type(x) is int or type(x) is complex


class EvalTrace(Trace):
    """Level 0: run each primitive's impl rule on NumPy values; no boxing."""

    def lift(self, val: Any) -> Any:
        return val

    def process_primitive(
        self, primitive: Primitive, tracers: Sequence[Any], params: dict[str, Any]
    ) -> list[Any]:
        return eval_primitive(primitive, tracers, params)


# Runs a primitive with an operand on several devices (an Array split over a mesh, see
# array.py) as one program that XLA partitions over the mesh, its results split as XLA
# chooses (JAX's `apply_primitive`); returns None to decline (then the operands are read to
# the host and the impl rule runs). Declared by compile/jit.py (layer 4), whose sharded
# calls it reuses, through `set_split_evaluator`.
SplitEvaluator = Callable[[Primitive, Sequence[Any], dict], "list[Any] | None"]
_split_evaluator: SplitEvaluator = lambda primitive, operands, params: None  # noqa: E731


def set_split_evaluator(evaluator: SplitEvaluator) -> None:
    """Declare how eager operations on Arrays split over several devices run (called once, at
    import, by `didax.compile.jit`)."""
    global _split_evaluator
    _split_evaluator = evaluator


# Guards an eager operation's host operands (NumPy arrays, scalars), as JAX's transfer guard
# sees them go to the device. Declared by runtime/placement.py, which knows the devices.
_host_operand_guard: Callable[[Sequence[Any]], None] = lambda operands: None  # noqa: E731


def set_host_operand_guard(guard: Callable[[Sequence[Any]], None]) -> None:
    global _host_operand_guard
    _host_operand_guard = guard


def eval_primitive(primitive: Primitive, operands: Sequence[Any], params: dict) -> list[Any]:
    __tracebackhide__ = True
    rule = impl_rules._rules.get(primitive)
    if rule is None:
        raise NotImplementedError(impl_rules.missing.format(primitive))
    hot = config.hot
    if hot.guard_host is not None:  # (eager closures decline while it is set)
        _host_operand_guard(operands)
    if primitive in stateful:  # it reads or writes a Ref: its operands go in as they are
        return rule(*operands, **params)
    try:
        args = [to_numpy(x, False) for x in operands]
    except OnDevices:  # an Array split over a mesh (or computed on one): run on its devices
        outs = _split_evaluator(primitive, operands, params)
        if outs is not None:
            return outs
        args = [to_numpy(x) for x in operands]
    outs = rule(*args, **params)
    if hot.check_special:
        nan_checks.check_special(primitive.name, outs)
    weak_operand = any(_is_weak(x) for x in operands)
    # Eager results carry a weak type without running abstract evaluation on the hot path:
    # with no weak operand a result is strong (the common case); otherwise the abstract
    # evaluation rule says (`1.0 < 2.0` is a weak bool, `f32 * 2.0` is strong, a cond's
    # index is strong but its branches may return weak values, so primitives with several
    # results, the higher-order ones, always ask); a conversion says itself.
    if "weak_type" in params:
        return [eager_result(o, params["weak_type"]) for o in outs]
    if not weak_operand and not primitive.multiple_results:
        return [eager_result(o, False) for o in outs]
    if not operands:
        return [eager_result(o, False) for o in outs]
    if primitive not in abstract_eval_rules:  # a user's impl-only primitive still runs eagerly
        weak = all(_is_weak(x) for x in operands)
        dtype = args[0].dtype
        return [eager_result(o, weak and o.dtype == dtype) for o in outs]
    out_avals = abstract_eval_rules[primitive](*map(get_aval, operands), **params)
    # (an Array result is kept: a partitioned jit's, split over a mesh)
    return [
        o if type(o) is Array else eager_result(o, a.weak_type)
        for o, a in zip(outs, out_avals, strict=True)
    ]


# --------------------------------------------------------------------------- trace state


@dataclass(frozen=True)
class TraceState:
    stack: tuple[MainTrace, ...]
    dynamic: MainTrace | None = None  # set while make_jaxpr / jit stage a function


_EVAL_MAIN = MainTrace(0, EvalTrace)
# The state while nothing is being traced: eager paths test `trace_state() is EAGER_STATE`.
EAGER_STATE = TraceState((_EVAL_MAIN,))
_state: ContextVar[TraceState] = ContextVar("didax_trace_state", default=EAGER_STATE)
# The current trace state (the ContextVar's own `get`: one C call, no Python frame).
trace_state: Callable[[], TraceState] = _state.get


@contextmanager
def new_main(
    trace_type: type[Trace], global_data: Any = None, *, dynamic: bool = False
) -> Iterator[MainTrace]:
    """Push an interpreter for the duration of a `with`; `dynamic=True` makes it catch
    every primitive bound below it, tracers or not (omnistaging)."""
    state = trace_state()
    deriving = state.stack[-1].deriving or si.Deriving()  # shared by the mains above
    main = MainTrace(len(state.stack), trace_type, global_data, deriving)
    new = replace(state, stack=(*state.stack, main), dynamic=main if dynamic else state.dynamic)
    token = _state.set(new)
    try:
        yield main
    finally:
        _state.reset(token)


@contextmanager
def new_base_main() -> Iterator[None]:
    """Evaluate eagerly below every current trace (used by `jit`'s impl rule)."""
    token = _state.set(EAGER_STATE)
    try:
        yield
    finally:
        _state.reset(token)


@contextmanager
def eval_context() -> Iterator[None]:
    """Ops on non-tracers run at once, even while staging. Like `ensure_compile_time_eval`."""
    token = _state.set(replace(trace_state(), dynamic=None))
    try:
        yield
    finally:
        _state.reset(token)


def find_top_trace(operands: Sequence[Any]) -> Trace:
    state = trace_state()
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
    if trace_state() is EAGER_STATE:  # nothing is traced: straight to the eval interpreter
        for x in operands:
            if isinstance(x, Tracer):
                break
        else:
            return eval_primitive(primitive, operands, params)
    trace = find_top_trace(operands)
    if primitive in allocating:  # a new ref belongs to the innermost transformation
        trace = trace_state().stack[-1].trace
    if primitive in axis_name_params:
        trace = _axis_frame_trace(primitive, params, trace)
    tracers = [trace.full_raise(x) for x in operands]
    outs = trace.process_primitive(primitive, tracers, params)
    return [out.full_lower() if isinstance(out, Tracer) else out for out in outs]


def _frame_name(main: MainTrace) -> Any:
    data = main.global_data
    return data.name if isinstance(data, AxisSize) else None


@contextmanager
def axis_frame(name: Any, size: int, mesh_axes: tuple | None = None) -> Iterator[MainTrace]:
    """Bind axis `name` (of `size`) for the collectives traced inside the `with`, without
    mapping anything: `make_jaxpr(..., axis_env=)` stages them with their names. A
    `shard_map(check_vma=True)` passes its mesh's axis names (`mesh_axes`): values vary
    along its axes in the types (`ShapedArray.vma`)."""
    data = AxisSize(size, name)
    data.mesh_axes = mesh_axes
    with new_main(EvalTrace, data) as main:
        yield main


def axis_frame_size(name: Any) -> int:
    """The size of the innermost vmapped axis named `name`.

    Raises:
      NameError: no frame binds the name.
    """
    for main in reversed(trace_state().stack):
        if _frame_name(main) == name:
            return int(main.global_data)
    raise NameError(f"unbound axis name: {name}")


def _axis_frame_trace(primitive: Primitive, params: dict[str, Any], top: Trace) -> Trace:
    stack = trace_state().stack
    for name in axis_names(primitive, params):
        frame = next((m for m in reversed(stack) if _frame_name(m) == name), None)
        if frame is None:
            raise NameError(
                f"Found an unbound axis name: {name}. To fix this, call {primitive} under "
                f"`didax.vmap(..., axis_name={name!r})`."
            )
        if frame.level > top.main.level:
            top = frame.trace
    return top


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
