"""The jaxpr IR: variables, literals, equations, `Jaxpr`, `ClosedJaxpr`; typecheck; dead-code
elimination (`dce_jaxpr`, the one home of jaxpr surgery); eval.

Layer 1 (autodidax part 3, "Jaxprs"; "Understanding Jaxprs"). A jaxpr is a list of
equations in A-normal form: each applies one primitive to variables or literals and binds its
outputs to fresh variables. `typecheck` re-derives every equation's output types with the
abstract-eval rules; `eval_jaxpr` binds each equation's primitive, so evaluating a jaxpr under
a transformation transforms it (the interpreter is itself traceable).
"""

from __future__ import annotations

import collections
import functools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from didax import array, core, dtypes, pretty
from didax import source_info as si
from didax.core import ShapedArray
from didax.pretty import (
    Annotation,
    Break,
    Doc,
    Group,
    Nest,
    TokenKind,
    bracketed,
    concat,
    filled,
    join,
    layout,
    layout_annotated,
    render,
    render_annotated,
    text,
)

# Var and JaxprEqn are made once per traced operation, so they are the cheapest immutable
# shapes Python has: a one-slot class (compared by identity) and a NamedTuple. A frozen
# dataclass would cost tracing a microsecond per equation.


class Var:
    """A variable: identity matters, its name is chosen when the jaxpr is printed."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    def __repr__(self) -> str:  # as JAX's: Var(id=140...):float32[5], weak type unmarked
        shape = ",".join(map(str, self.aval.shape))
        return f"Var(id={id(self)}):{self.aval.dtype.name}[{shape}]"


class DropVar(Var):
    """An output nobody reads; printed `_`."""

    __slots__ = ()


class Literal:
    """A scalar constant written inline, printed `3.0:f32[]`. Immutable by convention: a
    plain slotted class, since a frozen dataclass's `__init__` costs more per staged literal."""

    __slots__ = ("val", "aval")

    def __init__(self, val: Any, aval: ShapedArray) -> None:
        self.val = val
        self.aval = aval

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
    derivation: si.Derivation | None = None  # the transformed equation it comes from


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
        return pp_jaxpr(self)

    __repr__ = __str__

    def pretty_print(
        self, *, source_info: bool = False, derivation: bool = False, width: int = pretty.WIDTH
    ) -> str:
        """The jaxpr as text; with `source_info`, each equation's user source location; with
        `derivation`, the equation of the transformed program it comes from (`# tangent of
        eqn 1`). Like `jax.core.Jaxpr.pretty_print`."""
        return pp_jaxpr(self, width, source_info=source_info, derivation=derivation)


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

    @property
    def literals(self) -> list[Any]:
        """The constvars' values (JAX's newer name for `consts`)."""
        return self.consts

    def __str__(self) -> str:
        return str(self.jaxpr)

    __repr__ = __str__

    def pretty_print(
        self, *, source_info: bool = False, derivation: bool = False, width: int = pretty.WIDTH
    ) -> str:
        """The jaxpr as text; with `source_info`, each equation's user source location
        (`# file:line:column (function)`); with `derivation`, where a transformation took it
        from (`# tangent of eqn 1`). Like `jax.core.ClosedJaxpr.pretty_print`."""
        return self.jaxpr.pretty_print(source_info=source_info, derivation=derivation, width=width)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        # its rich view (didax.widgets) is registered from above, with IPython's display
        # formatter, by `%load_ext didax`: the IR knows nothing of the display
        p.text(str(self))


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
    return var_name_in(jaxpr, var)


def _context(jaxpr: Jaxpr, i: int) -> str:
    return pp_eqn_context(jaxpr, i)


def has_effects(jaxpr: Any) -> bool:
    """Whether `jaxpr` (a Jaxpr or ClosedJaxpr), or a jaxpr nested in one of its equations'
    params, holds an effectful primitive (`core.effectful`)."""
    return any(map(eqn_has_effects, getattr(jaxpr, "jaxpr", jaxpr).eqns))


def holds_own_program(jaxpr: Any) -> bool:
    """Whether `jaxpr`, or a jaxpr nested in its equations' params, holds a primitive that
    runs as a program of its own (`core.own_program`), so it cannot be compiled whole."""
    for eqn in getattr(jaxpr, "jaxpr", jaxpr).eqns:
        if eqn.primitive in core.own_program:
            return True
        for v in eqn.params.values():
            for x in v if isinstance(v, tuple) else (v,):
                if isinstance(x, (Jaxpr, ClosedJaxpr)) and holds_own_program(x):
                    return True
    return False


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
    jaxpr: Jaxpr, used_outputs: Sequence[bool], instantiate: bool = False, prune: Any = live_eqns
) -> tuple[Jaxpr, list[bool]]:
    """Drop the outputs not in `used_outputs` and the equations only they needed (`prune`:
    `live_eqns`'s signature). Returns the smaller jaxpr and which inputs it still reads; with
    `instantiate` it keeps every input."""
    outvars = [x for x, u in zip(jaxpr.outvars, used_outputs, strict=True) if u]
    eqns = prune(jaxpr.eqns, outvars)
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
    for i, eqn in enumerate(jaxpr.eqns):
        outs = bind_eqn(eqn, [read(x) for x in eqn.invars], i)
        for v, val in zip(eqn.outvars, outs, strict=True):
            env[v] = val
    return [read(x) for x in jaxpr.outvars]


def bind_eqn(eqn: JaxprEqn, operands: Sequence[Any], index: int | None = None) -> list[Any]:
    """Bind `eqn`'s primitive on `operands`; what the interpreters stage meanwhile inherits
    the equation's source and, given its `index` in its program, derives from it (a plain
    re-staging keeps its derivation; source_info.py). The interpreters' loops call this."""
    token = si.enter(eqn.source_info)
    d = core.trace_state().stack[-1].deriving if index is not None else None
    if d is None:
        try:
            return core.bind(eqn.primitive, operands, eqn.params)
        finally:
            si.leave(token)
    source, current, start = d.source, d.current, len(d.log)
    # (a rule that evaluates a nested jaxpr inline, as vmap's cond may, nests the path)
    where = index if source is None else _nested_path(source, eqn, index)
    copied = eqn.derivation
    if source is not None and copied is not None and copied.origin is not None:
        # an equation a rule derived from a nested jaxpr, inlined: place what it came from
        copied = copied._replace(source=_nested_path(source, copied.origin, copied.source))
    d.source, d.current = (where, eqn), copied or si.Derivation(where, "copy", None, eqn)
    try:
        return core.bind(eqn.primitive, operands, eqn.params)
    finally:
        d.source, d.current = source, current
        del d.log[start:]
        si.leave(token)


def _nested_path(outer: tuple[Any, JaxprEqn], eqn: JaxprEqn, index: Any) -> Any:
    # `3/branch 1/eqn 0` when eqn is in a jaxpr of the equation being re-bound, else index
    where, holder = outer
    for name, v in holder.params.items():
        items = v if isinstance(v, tuple) else (v,)
        for k, sub in enumerate(items):
            if isinstance(sub, (Jaxpr, ClosedJaxpr)) and any(e is eqn for e in _open(sub).eqns):
                part = part_name(name, k if isinstance(v, tuple) else None)
                return f"{where}/{part}/eqn {index}"
    return index


def literal(val: Any, aval: ShapedArray) -> Literal:
    """A Literal holding `val` as a Python scalar of the aval's dtype.

    As in JAX, a Python float or complex of a float32/64 (complex64/128) literal is kept as
    written, so `x * 1.67` prints `mul a 1.67:f32[]` though it computes with float32's
    nearest value; a NumPy value (`np.float32(1.67)`) or one of a narrower dtype (float16)
    is kept rounded: `1.6699999570846558:f32[]`, `1.669921875:f16[]`."""
    if type(val) in (bool, int) and (type(val) is not int or aval.dtype.kind in "iu"):
        return Literal(val, aval)
    if type(val) is float and aval.dtype in (dtypes.float32, dtypes.float64):
        return Literal(val, aval)
    if type(val) in (float, complex) and aval.dtype in (dtypes.complex64, dtypes.complex128):
        return Literal(complex(val), aval)
    return Literal(np.asarray(val, aval.dtype).item(), aval)


# ----------------------------------------------------------------------------- printing
# Jaxprs as text, in JAX 0.10's format, built as `pretty` documents.


def _letters(n: int) -> str:
    s = ""
    while True:
        n, r = divmod(n, 26)
        s = chr(ord("a") + r) + s
        if n == 0:
            return s


class Names:
    """Names variables a, b, ..., z, ba, bb, ... in the order they are printed; shared by
    nested jaxprs, as in JAX."""

    def __init__(self) -> None:
        self.names: dict[Any, str] = {}
        self.count = 0

    def __getitem__(self, var: Any) -> str:
        name = self.names.get(var)
        if name is None:
            name = self.names[var] = _letters(self.count)
            self.count += 1
        return name


# How a primitive's params print: primitives whose printed params differ from their params
# (hidden defaults, JAX's spelling) register a rule here. The rule returns (name, value) pairs.
pp_params_rules: core.RuleTable[Callable[[dict], list[tuple[str, Any]]]] = core.RuleTable(
    "pp_params"
)

# How a primitive's equation prints, when its params are not enough (`jit` names its inner
# variables after the outer ones). The rule gets the printer, the equation and the set of
# unread outvars, and returns the equation's document (`printer.default_eqn` for the rest).
pp_eqn_rules: core.RuleTable[Callable[[Any, JaxprEqn, set[Var]], Doc]] = core.RuleTable("pp_eqn")


def _open(x: Any) -> Any:  # the Jaxpr inside a ClosedJaxpr
    return x.jaxpr if isinstance(x, ClosedJaxpr) else x


def _unused_outvars(jaxpr: Any) -> set[Any]:
    used = {id(v) for e in jaxpr.eqns for v in e.invars} | {id(v) for v in jaxpr.outvars}
    return {v for e in jaxpr.eqns for v in e.outvars if id(v) not in used}


def jaxprs_in_params(params: dict) -> Iterator[Jaxpr]:
    """The (open) jaxprs an equation's params hold, in params order."""
    for v in params.values():
        for x in v if isinstance(v, tuple) else (v,):
            if isinstance(x, (Jaxpr, ClosedJaxpr)):
                yield _open(x)


def shared_jaxprs(top: Any) -> dict[int, tuple[str, Any]]:
    """The nested jaxprs JAX prints once, before the program, as `let name = {...} in`:
    those reached more than once, and those of more than 10 equations. Each is named after
    the `name` param of the equation holding it (`jit[name=f ...]`), else `jaxpr`; repeated
    names get a number (`f`, `f1`). Keyed by id, in the order a breadth-first walk meets them."""
    counts: dict[int, int] = {}
    found: dict[int, Any] = {}
    names: dict[int, str] = {}
    queue = collections.deque([top])
    while queue:
        jaxpr = queue.popleft()
        key = id(jaxpr)
        found[key] = jaxpr
        counts[key] = counts.get(key, 0) + (2 if jaxpr is not top and len(jaxpr.eqns) > 10 else 1)
        for eqn in jaxpr.eqns:
            subs = list(jaxprs_in_params(eqn.params))
            queue.extend(subs)
            name = eqn.params.get("name")
            if name is not None:
                for sub in subs:
                    names.setdefault(id(sub), str(name).strip("<>"))
    shared: dict[int, tuple[str, Any]] = {}
    taken: collections.Counter[str] = collections.Counter()
    for key, count in counts.items():
        if count == 1:
            continue
        name = names.get(key, "jaxpr")
        if taken[name]:
            taken[name] += 1
            name += str(taken[name] - 1)
        taken[name] += 1
        shared[key] = (name, found[key])
    return shared


class JaxprPrinter:
    def __init__(
        self,
        names: Names,
        shared: dict[int, tuple[str, Any]] | None = None,
        source_info: bool = False,
        derivation: bool = False,
    ) -> None:
        self.names = names
        self.shared = shared or {}  # jaxprs printed once up front, referred to by name
        self.source_info = source_info  # annotate each equation with its user file:line
        self.derivation = derivation  # annotate each equation with where it was derived from
        self.prefix = ""  # the path of the nested jaxpr being printed, `eqn 3/branch 1/`

    def program(self, jaxpr: Any) -> Doc:
        """The top-level jaxpr, after the `let` bindings of its shared nested jaxprs."""
        lets = [
            concat(
                text("let ", TokenKind.KEYWORD),
                text(name, TokenKind.VAR),
                text(" = "),
                self.jaxpr(sub, top=False),
                text(" in", TokenKind.KEYWORD),
                Break(),
            )
            for name, sub in self.shared.values()
        ]
        return concat(*lets, self.jaxpr(jaxpr))

    def atom(self, a: Atom) -> Doc:
        if isinstance(a, Literal):
            return text(f"{literal_text(a.val)}:{a.aval.str_short()}", TokenKind.LITERAL)
        return text(self.names[a], TokenKind.VAR)

    def binder(self, v: Var, unused: set[Any] = frozenset()) -> Doc:
        name = "_" if v in unused or isinstance(v, DropVar) else self.names[v]
        kind = TokenKind.PUNCT if name == "_" else TokenKind.VAR
        return concat(text(name, kind), text(":" + v.aval.str_short(), TokenKind.TYPE))

    def binders(self, vs: Sequence[Any], unused: set[Any] = frozenset()) -> Doc:
        return filled([self.binder(v, unused) for v in vs])

    def jaxpr(self, jaxpr: Any, top: bool = True) -> Doc:
        # JAX 0.10 prints an unread outvar as `_` in the top-level jaxpr only; inside a
        # param (a scan body, a cond branch) it keeps its name. DropVars are `_` everywhere.
        unused = _unused_outvars(jaxpr) if top else set()
        constvars = self.binders(jaxpr.constvars)
        invars = self.binders(jaxpr.invars)
        eqns = join(Break("; "), [self.eqn(e, unused) for e in jaxpr.eqns])
        outs = [self.atom(v) for v in jaxpr.outvars]
        outvars = concat(text("("), filled(outs, ","), text(",)" if len(outs) == 1 else ")"))
        body = concat(
            text("{ "),
            text("lambda ", TokenKind.KEYWORD, jaxpr),  # the views fold a jaxpr by its tokens
            constvars,
            text("; "),
            invars,
            text(". "),
            text("let", TokenKind.KEYWORD),
            Nest(2, concat(Break(), eqns)),
            Break(),
            text("in ", TokenKind.KEYWORD),
            outvars,
        )
        return Group(concat(Nest(2, body), text(" }", ref=jaxpr)))

    def eqn(self, eqn: JaxprEqn, unused: set[Any]) -> Doc:
        if eqn.primitive in pp_eqn_rules:
            return pp_eqn_rules[eqn.primitive](self, eqn, unused)
        return self.default_eqn(eqn, unused)

    def lhs(self, eqn: JaxprEqn, unused: set[Any]) -> Doc:
        """The equation's binders; printing them names its outvars."""
        return self.binders(eqn.outvars, unused)

    def default_eqn(self, eqn: JaxprEqn, unused: set[Any], lhs: Doc | None = None) -> Doc:
        lhs = self.lhs(eqn, unused) if lhs is None else lhs
        args = [self.atom(x) for x in eqn.invars]
        if not eqn.outvars:  # an effect only (debug_print): JAX prints no `=`
            return concat(
                text(eqn.primitive.name, TokenKind.PRIMITIVE, eqn),
                self.params(eqn),
                text(" "),
                filled(args),
            )
        # JAX notes the source on the line of the ` = ` (none for an equation without outputs)
        return concat(
            lhs,
            text(" = "),
            self.notes(eqn),
            text(eqn.primitive.name, TokenKind.PRIMITIVE, eqn),
            self.params(eqn),
            text(" "),
            filled(args),
        )

    def notes(self, eqn: JaxprEqn) -> Doc:
        """The equation's annotations, when asked for: where it was derived from, its source."""
        notes = []
        if self.derivation and eqn.derivation is not None:
            show = functools.partial(params_texts, eqn.primitive)
            notes.append(Annotation(eqn.derivation.describe(eqn.params, self.prefix, show)))
        if self.source_info and eqn.outvars:
            notes.append(Annotation(si.summarize(eqn.source_info)))
        return concat(*notes)

    def params(self, eqn: Any) -> Doc:
        prim = eqn.primitive
        if prim in pp_params_rules:
            pairs = pp_params_rules[prim](eqn.params)
        else:
            pairs = sorted(eqn.params.items())
        if not pairs:
            return concat()
        d = eqn.derivation if self.derivation else None
        # a nested equation's derivation is printed with its path: `eqn 3/branch 1/eqn 0`
        here = f"{self.prefix}{d.source}/" if d is not None and d.source is not None else None
        kvs = [
            concat(text(k, TokenKind.PARAM), text("="), self.param(v, here and (here, k)))
            for k, v in pairs
        ]
        return bracketed("[", kvs, "]")

    def nested(self, jaxpr: Any) -> Doc:
        shared = self.shared.get(id(jaxpr))
        return text(shared[0], TokenKind.VAR) if shared else self.jaxpr(jaxpr, top=False)

    def param(self, v: Any, path: tuple[str, str] | None = None) -> Doc:
        if isinstance(v, (Jaxpr, ClosedJaxpr)):
            return self.nested_at(v, path, None)
        if isinstance(v, tuple) and v and all(isinstance(x, (Jaxpr, ClosedJaxpr)) for x in v):
            items = [self.nested_at(x, path, i) for i, x in enumerate(v)]
            return bracketed("(", items, ")")
        return text(param_text(v))

    def nested_at(self, v: Any, path: tuple[str, str] | None, i: int | None) -> Doc:
        if path is None:
            return self.nested(_open(v))
        outer = self.prefix
        self.prefix = f"{path[0]}{part_name(path[1], i)}/eqn "
        try:
            return self.nested(_open(v))
        finally:
            self.prefix = outer


def params_texts(primitive: core.Primitive, params: dict) -> dict[str, str]:
    """An equation's parameters, other than programs, as the printer writes them."""
    pairs = pp_params_rules[primitive](params) if primitive in pp_params_rules else params.items()
    return {k: param_text(v) for k, v in pairs if not list(jaxprs_in_params({k: v}))}


def part_name(param: str, i: int | None = None) -> str:
    """How a path names a nested jaxpr: `branch 1` of `branches`, `body` of `body_jaxpr`."""
    if param == "branches":
        return f"branch {i}"
    name = param.removesuffix("_jaxpr")
    return name if i is None else f"{name} {i}"


def literal_text(val: Any) -> str:
    """A literal's value as JAX prints it: `str` of the Python scalar (`1.67`, `(1+2j)`)."""
    return str(np.asarray(val).item())


def param_text(v: Any) -> str:
    if isinstance(v, np.dtype):
        return v.name
    if isinstance(v, type) and issubclass(v, np.generic):
        return np.dtype(v).name
    if callable(v) and hasattr(v, "__name__"):
        return v.__name__
    # addresses masked, as JAX prints them (`<function f at 0xXXXXXXXXXXXX>` in a callback's
    # param): the text stays the same from run to run
    return re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)), str(v))


def laid_out(jaxpr: Any, width: int = pretty.WIDTH) -> tuple[JaxprPrinter, list[pretty.Line]]:
    # The whole program laid out; the printer keeps every variable's printed name.
    printer = JaxprPrinter(Names(), shared_jaxprs(jaxpr))
    return printer, layout(printer.program(jaxpr), width)


def jaxpr_lines(jaxpr: Any, width: int = pretty.WIDTH) -> list[pretty.Line]:
    """The jaxpr as laid-out lines of kind-tagged tokens (the widgets' input)."""
    return laid_out(_open(jaxpr), width)[1]


def pp_jaxpr(
    jaxpr: Any, width: int = pretty.WIDTH, *, source_info: bool = False, derivation: bool = False
) -> str:
    """The jaxpr in JAX's text format; with `source_info`, each equation's user source
    location after it (`# file:line:column (function)`), as JAX's `pretty_print` does; with
    `derivation`, where a transformation took it from (`# tangent of eqn 1`)."""
    if not source_info and not derivation:
        return render(jaxpr_lines(jaxpr, width))
    jaxpr = _open(jaxpr)
    printer = JaxprPrinter(
        Names(), shared_jaxprs(jaxpr), source_info=source_info, derivation=derivation
    )
    return render_annotated(*layout_annotated(printer.program(jaxpr), width))


def var_name_in(jaxpr: Any, var: Any) -> str:
    printer, _ = laid_out(jaxpr)
    return printer.names.names.get(var, "?")


def pp_eqn_context(jaxpr: Any, i: int, radius: int = 2) -> str:
    """Equation `i` of `jaxpr` with its neighbours, the failing one marked, for errors."""
    printer, _ = laid_out(jaxpr)  # name every variable as the full printout would
    unused = _unused_outvars(jaxpr)
    out = []
    lo, hi = max(0, i - radius), min(len(jaxpr.eqns), i + radius + 1)
    for j in range(lo, hi):
        line = render(layout(printer.eqn(jaxpr.eqns[j], unused)))
        out.append(("> " if j == i else "  ") + line)
    return "\n".join(out)
