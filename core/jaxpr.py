"""The jaxpr IR: variables, literals, equations, `Jaxpr`, `ClosedJaxpr`; typecheck; dead-code
elimination (`dce_jaxpr`, the one home of jaxpr surgery); eval.

Layer 1 (autodidax part 3, "Jaxprs"; "Understanding Jaxprs"). A jaxpr is a list of
equations in A-normal form: each applies one primitive to variables or literals and binds its
outputs to fresh variables. `typecheck` re-derives every equation's output types with the
abstract-eval rules; `eval_jaxpr` binds each equation's primitive, so evaluating a jaxpr under
a transformation transforms it (the interpreter is itself traceable).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from didax import array, core, dtypes, pretty
from didax import source_info as si
from didax.core import ShapedArray

# Var and JaxprEqn are made once per traced operation, so they are the cheapest immutable
# shapes Python has: a one-slot class (compared by identity) and a NamedTuple. A frozen
# dataclass would cost tracing a microsecond per equation.


class Var:
    """A variable: identity matters, its name is chosen when the jaxpr is printed."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return f"Var({self.aval.str_short()})"


class DropVar(Var):
    """An output nobody reads; printed `_`."""

    __slots__ = ()


@dataclass(frozen=True, eq=False, slots=True)
class Literal:
    """A scalar constant written inline, printed `3.0:f32[]`."""

    val: Any
    aval: ShapedArray

    @property
    def value(self) -> Any:
        """The literal as an operand: a Python scalar when that carries its exact type (its
        default dtype and weakness), otherwise an array of the literal's dtype (bf16, i8...)."""
        v, aval = self.val, self.aval
        if (
            dtypes.is_python_scalar(v)
            and dtypes.python_scalar_dtype(v) == aval.dtype
            and aval.weak_type == (type(v) is not bool)
        ):
            return v
        return array.eager_result(np.asarray(v, aval.dtype)[()], aval.weak_type)

    def __repr__(self) -> str:
        return f"Literal({self.val!r}:{self.aval.str_short()})"


Atom = Var | Literal


class JaxprEqn(NamedTuple):
    """`outvars = primitive[params] invars`."""

    primitive: core.Primitive
    invars: list[Atom]
    outvars: list[Var]
    params: dict[str, Any]
    source_info: si.SourceInfo | None = None  # the user's line that bound it (source_info.py)


@dataclass(frozen=True, eq=False, slots=True)
class Jaxpr:
    constvars: list[Var]
    invars: list[Var]
    outvars: list[Atom]
    eqns: list[JaxprEqn]

    @property
    def in_avals(self) -> list[ShapedArray]:
        return [v.aval for v in self.invars]

    @property
    def out_avals(self) -> list[ShapedArray]:
        return [v.aval for v in self.outvars]

    def __str__(self) -> str:
        return pretty.pp_jaxpr(self)

    __repr__ = __str__

    def pretty_print(self, *, source_info: bool = False, width: int = pretty.WIDTH) -> str:
        """The jaxpr as text; with `source_info`, each equation's user source location.
        Like `jax.core.Jaxpr.pretty_print`."""
        return pretty.pp_jaxpr(self, width, source_info=source_info)


@dataclass(frozen=True, eq=False, slots=True, weakref_slot=True)  # jit caches per jaxpr
class ClosedJaxpr:
    """A jaxpr with values for its constvars. Like `jax.core.ClosedJaxpr`."""

    jaxpr: Jaxpr
    consts: list[Any] = field(default_factory=list)

    @property
    def in_avals(self) -> list[ShapedArray]:
        return self.jaxpr.in_avals

    @property
    def out_avals(self) -> list[ShapedArray]:
        return self.jaxpr.out_avals

    @property
    def eqns(self) -> list[JaxprEqn]:
        return self.jaxpr.eqns

    def __str__(self) -> str:
        return str(self.jaxpr)

    __repr__ = __str__

    def pretty_print(self, *, source_info: bool = False, width: int = pretty.WIDTH) -> str:
        """The jaxpr as text; with `source_info`, each equation's user source location
        (`# file:line:column (function)`). Like `jax.core.ClosedJaxpr.pretty_print`."""
        return self.jaxpr.pretty_print(source_info=source_info, width=width)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(str(self))

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        # IPython's rich display: the didax.widgets view, with text/plain and text/html
        # fallbacks. Imported here, like the IPython hook, so that `import didax` never
        # imports ipywidgets; only a front end asking for a rich display pays for it.
        views = importlib.import_module("didax.widgets.views")
        return views.jaxpr_bundle(self, include=include, exclude=exclude)


class JaxprTypeError(TypeError):
    """A jaxpr is ill-typed: raised by `typecheck`."""


def typecheck(jaxpr: Jaxpr) -> tuple[list[ShapedArray], list[ShapedArray]]:
    """Check that every variable is bound once before use and every equation's output types
    are what its primitive's abstract-eval rule gives. Returns (in_avals, out_avals)."""
    env: set[Var] = set()

    def bind_var(v: Var, where: str, eqn_index: int | None = None) -> None:
        if v in env:
            context = "" if eqn_index is None else f":\n{_context(jaxpr, eqn_index)}"
            raise JaxprTypeError(
                f"variable {_name_in(jaxpr, v)}:{v.aval.str_short()} bound "
                f"twice, the second time in {where}{context}"
            )
        env.add(v)

    def read(atom: Atom, eqn_index: int) -> ShapedArray:
        if isinstance(atom, Literal):
            return atom.aval
        if atom not in env:
            name = f"{_name_in(jaxpr, atom)}:{atom.aval.str_short()}"
            if eqn_index == len(jaxpr.eqns):
                raise JaxprTypeError(
                    f"output variable {name} is not bound by the jaxpr's "
                    f"inputs or equations:\n{jaxpr}"
                )
            raise JaxprTypeError(
                f"variable {name} used before it is bound, in equation "
                f"{eqn_index}:\n{_context(jaxpr, eqn_index)}"
            )
        return atom.aval

    for v in jaxpr.constvars:
        bind_var(v, "constvars")
    for v in jaxpr.invars:
        bind_var(v, "invars")
    for i, eqn in enumerate(jaxpr.eqns):
        in_avals = [read(x, i) for x in eqn.invars]
        try:
            out_avals = core.abstract_eval_rules[eqn.primitive](*in_avals, **eqn.params)
        except TypeError as e:
            raise JaxprTypeError(f"{e}\nin equation {i}:\n{_context(jaxpr, i)}") from None
        if len(eqn.outvars) != len(out_avals):
            raise JaxprTypeError(
                f"{eqn.primitive}: the equation binds {len(eqn.outvars)} outputs but its "
                f"rule gives {len(out_avals)}, in equation {i}:\n{_context(jaxpr, i)}"
            )
        for v, aval in zip(eqn.outvars, out_avals, strict=True):
            if not core.types_match(v.aval, aval):
                raise JaxprTypeError(
                    f"{eqn.primitive}: output type {v.aval.str_short()} does not match the "
                    f"type {aval.str_short()} its rule gives, in equation {i}:\n"
                    f"{_context(jaxpr, i)}"
                )
            bind_var(v, f"equation {i}", i)
    out_avals = [read(x, len(jaxpr.eqns)) for x in jaxpr.outvars]
    return [v.aval for v in jaxpr.invars], out_avals


def _name_in(jaxpr: Jaxpr, var: Var) -> str:
    return pretty.var_name_in(jaxpr, var)


def _context(jaxpr: Jaxpr, i: int) -> str:
    return pretty.pp_eqn_context(jaxpr, i)


def has_effects(jaxpr: Any) -> bool:
    """Whether `jaxpr` (a Jaxpr or ClosedJaxpr), or a jaxpr nested in one of its equations'
    params, holds an effectful primitive (`core.effectful`)."""
    return any(map(eqn_has_effects, getattr(jaxpr, "jaxpr", jaxpr).eqns))


def eqn_has_effects(eqn: JaxprEqn) -> bool:
    """Whether `eqn` is effectful, or holds an effectful jaxpr in its params."""
    return eqn.primitive in core.effectful or any(map(_param_has_effects, eqn.params.values()))


def _param_has_effects(v: Any) -> bool:
    if isinstance(v, (Jaxpr, ClosedJaxpr)):
        return has_effects(v)
    return isinstance(v, tuple) and any(map(_param_has_effects, v))


# ----------------------------------------------------------------------------- dead code


def live_eqns(eqns: Sequence[JaxprEqn], outvars: Sequence[Atom]) -> list[JaxprEqn]:
    """The equations that `outvars` depend on, in their original order."""
    live = {x for x in outvars if isinstance(x, Var)}
    kept = []
    for eqn in reversed(eqns):
        if any(v in live for v in eqn.outvars) or eqn_has_effects(eqn):
            kept.append(eqn)
            live.update(x for x in eqn.invars if isinstance(x, Var))
    kept.reverse()
    return kept


def dce_jaxpr(
    jaxpr: Jaxpr, used_outputs: Sequence[bool], instantiate: bool = False
) -> tuple[Jaxpr, list[bool]]:
    """Drop the outputs not in `used_outputs` and the equations only they needed. Returns the
    smaller jaxpr and which inputs it still reads; with `instantiate` it keeps every input."""
    outvars = [x for x, u in zip(jaxpr.outvars, used_outputs, strict=True) if u]
    eqns = live_eqns(jaxpr.eqns, outvars)
    read = {x for e in eqns for x in e.invars if isinstance(x, Var)}
    read.update(x for x in outvars if isinstance(x, Var))
    used_inputs = [instantiate or v in read for v in jaxpr.invars]
    invars = [v for v, u in zip(jaxpr.invars, used_inputs, strict=True) if u]
    constvars = [v for v in jaxpr.constvars if v in read]
    return Jaxpr(constvars, invars, outvars, eqns), used_inputs


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence[Any], *args: Any) -> list[Any]:
    """Evaluate `jaxpr` by binding each equation's primitive: traceable, so evaluating a
    jaxpr under a transformation transforms it. Like `jax.core.eval_jaxpr`."""
    env: dict[Var, Any] = {}

    def read(atom: Atom) -> Any:
        return atom.value if isinstance(atom, Literal) else env[atom]

    for v, val in zip(jaxpr.constvars, consts, strict=True):
        env[v] = val
    if len(args) != len(jaxpr.invars):
        raise TypeError(
            f"eval_jaxpr: the jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}"
        )
    for v, val in zip(jaxpr.invars, args, strict=True):
        env[v] = val
    for eqn in jaxpr.eqns:
        outs = bind_eqn(eqn, [read(x) for x in eqn.invars])
        for v, val in zip(eqn.outvars, outs, strict=True):
            env[v] = val
    return [read(x) for x in jaxpr.outvars]


def bind_eqn(eqn: JaxprEqn, operands: Sequence[Any]) -> list[Any]:
    """Bind `eqn`'s primitive on `operands`; what the interpreters stage meanwhile inherits
    the equation's source (source_info.py). The interpreters' loops call this."""
    token = si.enter(eqn.source_info)
    try:
        return core.bind(eqn.primitive, operands, eqn.params)
    finally:
        si.leave(token)


def literal(val: Any, aval: ShapedArray) -> Literal:
    """A Literal holding `val` as a Python scalar of the aval's dtype."""
    if type(val) in (bool, int) and (type(val) is not int or aval.dtype.kind in "iu"):
        return Literal(val, aval)
    if type(val) is float and aval.dtype == np.float32:
        # the value the program computes with, as JAX prints it: 0.1 is 0.10000000149011612
        return Literal(float(np.float32(val)), aval)
    return Literal(np.asarray(val, aval.dtype).item(), aval)
