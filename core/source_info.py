"""Source provenance: the user's source line that bound each equation.

Layer 1, first (imports nothing of didax). As JAX's `source_info_util`: when an equation is
staged, `current()` walks the Python stack from the innermost frame and records the first
frame outside didax (the files under its directories core/, display/, magics/, widgets/) and
outside IPython and traitlets as a `SourceInfo`: an equation a magic binds itself (%grad's
final convert) gets the line of the cell that ran the magic, not IPython's `run_line_magic`.
Interpreters that re-trace a jaxpr (eval_jaxpr under jvp, vmap, partial eval, jit's rules;
transposition's backward pass) run each equation inside `user_context(eqn's source_info)`, so
whatever the rules stage for it inherits the equation's source, as JAX's `user_context` does:
provenance survives every transformation.

Cost: staging walks frames with `sys._getframe` (no `inspect.stack()`, which reads source
files), and decides "is this frame didax's" once per file name (a dict keyed by the name
string, whose hash Python caches; a code object's hash is recomputed on every lookup). The
column and the line's text are computed only when asked for (printing, lowering, views).

Derivation provenance: each equation a transformation emits also records which equation of
the program being transformed it comes from, and in what role (`Derivation`: `tangent of eqn
1`, `transpose of eqn 1`, `batched eqn 2 (axes (0,) -> (1,))`). It travels the same path as
the source: `bind_eqn` (didax.jaxpr) says which equation it re-binds (`Deriving.source`);
the interpreter running that equation's rule (jvp, vmap, transposition) sets the role
(`begin_rule` .. `end_rule`); staging and partial evaluation write `Deriving.current` into
each equation they record. `Deriving` is a plain object hung on the trace stack (one per
outermost trace), not a ContextVar: recording costs one attribute read per equation.
"""

from __future__ import annotations

import importlib.util
import itertools
import linecache
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from types import CodeType
from typing import Any, NamedTuple


class SourceInfo(NamedTuple):
    """Where an equation was bound: the calling instruction of the user's code (its code
    object and bytecode offset), from which the file, line, column, function and the line's
    text are read when asked for. Immutable. A NamedTuple of two fields, made with
    `tuple.__new__`, because one is made per staged equation: a frozen dataclass costs
    ~0.8 us, and reading `frame.f_lineno` at staging time ~0.5 us (it decodes the line table)."""

    code: CodeType
    lasti: int  # offset of the instruction that called into didax

    @property
    def file(self) -> str:
        return self.code.co_filename

    @property
    def function(self) -> str:
        """The code's qualified name, as JAX prints it: `f`, `<lambda>`, `g.<locals>.h`."""
        return self.code.co_qualname

    def _position(self) -> tuple[int | None, int | None, int | None, int | None]:
        # (line, end_line, column, end_column) of the calling instruction
        positions = itertools.islice(self.code.co_positions(), max(self.lasti, 0) // 2, None)
        return next(positions, (None, None, None, None))

    @property
    def line(self) -> int:
        line = self._position()[0]
        return self.code.co_firstlineno if line is None else line

    @property
    def column(self) -> int:
        """The 0-based column where the calling expression starts (0 when unknown)."""
        return self._position()[2] or 0

    @property
    def end_column(self) -> int | None:
        return self._position()[3]

    @property
    def text(self) -> str:
        """The source line's text, stripped ('' when the file cannot be read)."""
        return linecache.getline(self.file, self.line).strip()

    def summary(self) -> str:
        """`file:line:column (function)`, or `file:line (function)` at column 0, as JAX's
        `source_info_util.summarize` writes it."""
        line, _, col, _ = self._position()
        line = self.code.co_firstlineno if line is None else line
        where = f"{self.file}:{line}:{col}" if col else f"{self.file}:{line}"
        return f"{where} ({self.function})"

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return f"SourceInfo({self.summary()})"


_new_source_info = tuple.__new__  # skips NamedTuple's argument parsing on the hot path


def summarize(info: SourceInfo | None) -> str:
    """An equation's location as JAX prints it; '' when it has none."""
    return "" if info is None else info.summary()


# ----------------------------------------------------------------------------- the context

# The source that equations staged now inherit: set per equation by the interpreters that
# re-trace a jaxpr. None: staging reads the Python stack.
_context: ContextVar[SourceInfo | None] = ContextVar("didax_source_info", default=None)


@contextmanager
def user_context(info: SourceInfo | None) -> Iterator[None]:
    """Equations staged inside take `info` as their source. Like JAX's `user_context`."""
    token = _context.set(info)
    try:
        yield
    finally:
        _context.reset(token)


def enter(info: SourceInfo | None) -> Token | None:
    """`user_context` without a generator frame, for the interpreters' per-equation loops:
    returns what `leave` takes. An equation without a source leaves the context as it is."""
    return None if info is None else _context.set(info)


def leave(token: Token | None) -> None:
    if token is not None:
        _context.reset(token)


# ----------------------------------------------------------------------------- the stack

_internal: dict[str, bool] = {}  # file name -> is it a didax (or IPython) file (memo)
_prefixes: tuple[str, ...] | None = None


def _skipped_dirs() -> tuple[str, ...]:
    # didax's own directories, wherever they are installed: the package (core/) and its
    # subpackages display/, magics/ and widgets/ (siblings in a source checkout, subdirectories in a
    # wheel); and IPython's and traitlets', whose frames run a magic. find_spec locates them
    # without importing them (and finds nothing where IPython is not installed).
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = [here]
    for name in ("didax.display", "didax.magics", "didax.widgets", "IPython", "traitlets"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            dirs.append(os.path.dirname(os.path.abspath(spec.origin)))
    return tuple(d + os.sep for d in dirs)


def is_internal(filename: str) -> bool:
    """Whether `filename` is one of didax's own source files, or IPython's or traitlets'
    (the frames between a magic and the cell that ran it): frames `current()` skips."""
    global _prefixes
    if _prefixes is None:
        _prefixes = _skipped_dirs()
    internal = _internal[filename] = os.path.abspath(filename).startswith(_prefixes)
    return internal


def current() -> SourceInfo | None:
    """The source of an equation staged now: the context's, else the innermost frame
    outside didax, IPython and traitlets (None when every frame is theirs)."""
    info = _context.get()
    if info is not None:
        return info
    frame = sys._getframe(1)
    internal = _internal
    while frame is not None:
        code = frame.f_code
        filename = code.co_filename
        flag = internal.get(filename)
        if flag is None:
            flag = is_internal(filename)
        if not flag:
            return _new_source_info(SourceInfo, (code, frame.f_lasti))
        frame = frame.f_back
    return None


# ----------------------------------------------------------------------------- derivation

ROLES = ("primal", "tangent", "transpose", "cotangent sum", "batched", "moved", "copy")


class Derivation(NamedTuple):
    """Where a transformation's equation comes from: equation `source` of the program it
    transformed (its index there; None for glue such as a cotangent sum), and its `role`
    (one of `ROLES`). A batched equation keeps the source's `params`, to say what changed."""

    source: int | str | None  # a nested equation's path: `3/branch 1/eqn 0`
    role: str
    params: dict | None = None
    origin: Any = None  # the source equation itself (a JaxprEqn), to place it when inlined

    def describe(self, params: dict | None = None, prefix: str = "", show: Any = None) -> str:
        """`tangent of eqn 1`; `prefix` places a nested equation (`eqn 3/branch 1/`); a
        batched equation given its own `params` says which ones changed (`show(params)`:
        their texts as the printer writes them)."""
        eqn = f"eqn {prefix}{self.source}" if self.source is not None else ""
        if self.role == "batched":
            changed = changed_params(self.params, params, show)
            return f"batched {eqn}" + (f" ({changed})" if changed else "")
        if self.role == "moved":
            return f"moved for {eqn}" if eqn else "moved"
        return f"{self.role} of {eqn}" if eqn else self.role


def changed_params(before: dict | None, after: dict | None, show: Any = None) -> str:
    """`axes (0,) → (1,)`: the parameters, other than programs, whose text changed;
    `show(params)` gives the texts (default: `str` of each)."""
    if before is None or after is None:
        return ""
    if show is None:
        show = _texts
    a, b = show(before), show(after)
    out = [
        f"{k} {a.get(k)} \u2192 {b.get(k)}" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)
    ]
    return ", ".join(out)


def _texts(params: dict) -> dict[str, str]:
    return {k: str(v) for k, v in params.items() if not _holds_program(v)}


def _holds_program(v: Any) -> bool:
    if isinstance(v, tuple):
        return any(_holds_program(x) for x in v)
    return hasattr(v, "eqns")  # a Jaxpr or ClosedJaxpr


class Deriving:
    """What the equations recorded now derive from: one per outermost trace, shared by every
    main above it (`core.MainTrace.deriving`). `source` is (index, equation) while
    `bind_eqn` re-binds an equation; `current` the Derivation staging writes into what it
    records; `log` the (equation list, index, output tracers) recorded while `current` is
    set, so an interpreter can sort what its rule emitted (the primal's from the tangent's)."""

    __slots__ = ("source", "current", "log")

    def __init__(self) -> None:
        self.source: tuple[int | str, Any] | None = None
        self.current: Derivation | None = None
        self.log: list[tuple[list, int, Any]] = []


Mark = tuple  # (the Derivation set, the one before it, the log's length before it)


def begin_derived(d: Deriving | None, derivation: Derivation | None) -> Mark | None:
    """Equations recorded until `end_rule` carry `derivation`."""
    if d is None or derivation is None:
        return None
    mark = (derivation, d.current, len(d.log))
    d.current = derivation
    return mark


def begin_rule(d: Deriving | None, role: str) -> Mark | None:
    """Equations recorded until `end_rule` derive, in `role`, from the equation `bind_eqn`
    is re-binding (and carry nothing new when it is re-binding none)."""
    if d is None or d.source is None:
        return None
    return begin_derived(d, Derivation(d.source[0], role, None, d.source[1]))


def end_rule(d: Deriving | None, mark: Mark | None, relabel: Any = None) -> None:
    """Undo `begin_rule`; `relabel(eqn)` gives each equation recorded meanwhile with the
    rule's own derivation a new one (None: keep it)."""
    if d is None or mark is None:
        return
    mine, d.current, start = mark
    if relabel is not None:
        for eqns, i, _ in d.log[start:]:
            eqn = eqns[i]
            if eqn.derivation is mine:
                new = relabel(eqn)
                if new is not None:
                    eqns[i] = eqn._replace(derivation=new)
    del d.log[start:]


def mark_producers(d: Deriving | None, mark: Mark | None, outs: Any, role: str) -> None:
    """Before `end_rule`: the equations recorded since `mark` that compute `outs` (tracers
    the rule returned), and those they read, take `role` (jvp: the primal's equations)."""
    if d is None or mark is None:
        return
    mine, _, start = mark
    window = d.log[start:]
    producer = {id(v): entry for entry in window for v in entry[0][entry[1]].outvars}
    want = {id(x) for x in outs}
    todo = [e for e in window if any(id(t) in want for t in e[2])]
    seen: set[tuple[int, int]] = set()
    while todo:
        eqns, i, _ = todo.pop()
        if (id(eqns), i) in seen:
            continue
        seen.add((id(eqns), i))
        eqn = eqns[i]
        if eqn.derivation is mine:
            eqns[i] = eqn._replace(derivation=mine._replace(role=role))
        todo.extend(producer[id(x)] for x in eqn.invars if id(x) in producer)
