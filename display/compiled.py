"""`%jit`'s data as the views show it: timings, XLA's cost analysis, compiler text.

Layer 6, plain data. `TimingModel` (compiled against eager, the phases), `CostModel` (XLA's
cost dict, per-operand keys apart), `HloModel` (StableHLO or HLO text split into kind-tagged
pieces, `metadata=` marked) and `format_time`, the one way durations are written.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from didax.display.parts import Row


def format_time(seconds: float | None, precision: int = 3) -> str:
    """`1.23 ms`: a duration as IPython's `%timeit` writes it; `-` for None or no number."""
    if seconds is None or not math.isfinite(seconds):
        return "-"
    if seconds >= 60.0:
        minutes, secs = divmod(seconds, 60.0)
        return f"{int(minutes)}min {secs:.{precision}g} s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        text = f"{seconds / scale:.{precision}g}"  # rounded first: 0.9999 µs is "1 µs"
        if float(text) >= 1 or unit == "ns":
            return f"{text} {unit}"
    return f"{seconds:.{precision}g} s"  # below 1 ns


# ----------------------------------------------------------------------------- timing


@dataclass(frozen=True)
class Phase:
    name: str
    seconds: float | None
    note: str = ""


@dataclass(frozen=True)
class TimingModel:
    """`%jit`'s timings as the TimingView draws them (seconds per call)."""

    title: str
    phases: tuple[Phase, ...]  # start-up, trace, lower, compile, first run
    steady_runs: tuple[float, ...]  # seconds per call of each timing run
    eager_runs: tuple[float, ...]
    loops: int  # calls per run (compiled)
    eager_loops: int
    speedup: float
    warnings: tuple[str, ...] = ()
    budget: float | None = None
    text: str = ""  # the text/plain fallback

    @property
    def runs_note(self) -> str:
        def n(runs: Sequence[float], loops: int) -> str:
            return f"{len(runs)} run{'s' if len(runs) != 1 else ''} of {loops:,} call" + (
                "s" if loops != 1 else ""
            )

        budget = f" (time budget {self.budget:g} s)" if self.budget else ""
        return (
            f"compiled: {n(self.steady_runs, self.loops)}; "
            f"eager: {n(self.eager_runs, self.eager_loops)}{budget}"
        )


EAGER_MEANING = (
    "eager = didax without jit: NumPy evaluates each operation, one Python call per operation"
)


# ----------------------------------------------------------------------------- cost


@dataclass(frozen=True)
class CostModel:
    """XLA's cost analysis: the headline figures, and the per-operand keys apart."""

    main: tuple[Row, ...]
    per_operand: tuple[Row, ...]


_MAIN_COSTS = ("flops", "transcendentals", "bytes accessed", "optimal_seconds", "utilization")


def _fmt_number(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return f"{int(v):,}"
    if isinstance(v, (int, float)):
        return f"{v:,}"
    return str(v)


# XLA's per-operand keys: `bytes accessed0{}` (bytes read from operand 0), `bytes
# accessedout{}` (bytes written to the output), `utilization1{}` (the share of operand 1's
# elements the computation reads); what is in the braces is a tuple index, `{}` for the whole
_PER_OPERAND = re.compile(r"^(bytes accessed|utilization)(\d+|out)\{([\d,]*)\}$")
PER_OPERAND_NOTE = (
    "bytes each operand reads and the output writes; utilization: the share of an operand's "
    "elements read"
)


def _fmt_bytes(v: Any) -> str:
    return f"{_fmt_number(v)} B"


def cost_row(key: str, value: Any) -> Row:
    """One entry of XLA's cost dict in words: `bytes accessed0{}` 12.0 is `operand 0 read`
    `12 B`, `bytes accessedout{}` is `output written`, `utilization1{}` `operand 1
    utilization`; `bytes accessed` is in bytes; other keys as XLA names them."""
    m = _PER_OPERAND.match(key)
    if m is None:
        return Row(key, _fmt_bytes(value) if key == "bytes accessed" else _fmt_number(value))
    what, which, index = m.groups()
    who = "output" if which == "out" else f"operand {which}"
    part = f" part {{{index}}}" if index else ""
    if what == "utilization":
        return Row(f"{who}{part} utilization", _fmt_number(value))
    return Row(f"{who}{part} {'written' if which == 'out' else 'read'}", _fmt_bytes(value))


def _operand_order(key: str) -> tuple[int, int, str]:
    m = _PER_OPERAND.match(key)
    if m is None:
        return (2, 0, key)
    what, which, index = m.groups()
    return (0 if what == "bytes accessed" else 1, int(which) if which.isdigit() else 1 << 30, index)


def cost_model(cost: dict[str, Any] | None) -> CostModel:
    """Split XLA's cost dict: `flops`, `transcendentals`, `bytes accessed` first; keys such
    as `bytes accessed0{}` or `bytes accessedout{}` go under `per_operand`, in words
    (`operand 0 read: 12 B`, `output written`, `operand 1 utilization`)."""
    cost = dict(cost or {})
    main = [cost_row(k, cost[k]) for k in _MAIN_COSTS if k in cost]
    rest = sorted((k for k in cost if k not in _MAIN_COSTS), key=_operand_order)
    return CostModel(tuple(main), tuple(cost_row(k, cost[k]) for k in rest))


@dataclass(frozen=True)
# ----------------------------------------------------------------------------- HLO text


class HloKind(enum.Enum):
    OP = "primitive"
    TYPE = "type"
    NAME = "var"
    NUMBER = "literal"
    KEYWORD = "keyword"
    COMMENT = "comment"
    META = "meta"
    TEXT = "text"


@dataclass(frozen=True)
class HloModel:
    lines: tuple[tuple[tuple[HloKind, str], ...], ...]

    def text(self, metadata: bool = True) -> str:
        # a line that is all metadata (a source-table row) goes whole when it is hidden
        return "\n".join(
            "".join(t for k, t in ts if metadata or k is not HloKind.META)
            for ts in self.lines
            if metadata or not ts or any(k is not HloKind.META for k, _ in ts)
        )


_HLO_TOKEN = re.compile(
    r"""(?P<meta>,?\s*metadata=\{[^{}]*\}|\s*loc\((?:[^()]|\([^()]*\))*\))
      |(?P<comment>//.*$|\#loc.*$)
      |(?P<type>tensor<[^>]*>|\b(?:f16|bf16|f32|f64|s8|s16|s32|s64|u8|u32|pred|i1|i32|i64)\[[^\]]*\](?:\{[^}]*\})?)
      |(?P<name>[%@][\w.\-]+)
      |(?P<op>\b(?:stablehlo|func|mhlo|chlo)\.[\w.]+|\b[a-z][\w\-]*(?=\())
      |(?P<keyword>\b(?:ENTRY|HloModule|ROOT|module|func|return|fused_computation)\b)
      |(?P<number>\b\d+(?:\.\d+)?(?:e[+-]?\d+)?\b)""",
    re.VERBOSE,
)


# XLA's source tables at the top of an optimized HLO module (FileNames, FunctionNames,
# FileLocations, StackFrames: what `metadata={... stack_frame_id=N}` points into), each a
# header line, numbered rows, then a blank line. They hold machine paths: metadata too.
_SOURCE_TABLE_HEADERS = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")


def source_table_lines(lines: list[str]) -> set[int]:
    """Indices of the lines (blank line after each included) of XLA's source tables."""
    out: set[int] = set()
    in_table = False
    for i, line in enumerate(lines):
        if line.strip() in _SOURCE_TABLE_HEADERS:
            in_table = True
        if in_table:
            out.add(i)
            if not line.strip():
                in_table = False
    return out


def without_metadata(text: str) -> str:
    """HLO text with `metadata={...}`, `loc(...)` and XLA's source tables left out."""
    return hlo_model(text).text(metadata=False)


def hlo_model(text: str) -> HloModel:
    """StableHLO or HLO text split into kind-tagged pieces; `metadata={...}`, `loc(...)` and
    XLA's source tables are META, which the view hides unless asked."""
    lines = []
    raw = text.rstrip("\n").split("\n")
    tables = source_table_lines(raw)
    for i, line in enumerate(raw):
        if i in tables:
            lines.append(((HloKind.META, line),))
            continue
        pieces: list[tuple[HloKind, str]] = []
        pos = 0
        for m in _HLO_TOKEN.finditer(line):
            if m.start() > pos:
                pieces.append((HloKind.TEXT, line[pos : m.start()]))
            kind = HloKind(
                {
                    "meta": "meta",
                    "comment": "comment",
                    "type": "type",
                    "name": "var",
                    "op": "primitive",
                    "keyword": "keyword",
                    "number": "literal",
                }[m.lastgroup or "text"]
            )
            pieces.append((kind, m.group(0)))
            pos = m.end()
        if pos < len(line):
            pieces.append((HloKind.TEXT, line[pos:]))
        lines.append(tuple(pieces))
    return HloModel(tuple(lines))
