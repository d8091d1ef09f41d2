"""Models of the two provenance views (issue 12, ★ items 4 and 5): plain data, no ipywidgets.

Layer 6 (STYLE §9's model step). Both read what the engine records about each equation: its
user source (`eqn.source_info`, see didax/source_info.py) and, once compiled, the op names
XLA keeps in the optimized HLO's metadata (`jit(f)/sin#3`: the `#` indices are the
equation's index path, see didax/interpreters/lowering.py).

- `stage_diff(base, stage)`: each equation of a later stage of a transformation (jvp(f),
  linearized, transposed, batched) linked to the equations of `base` (f) bound at the same
  source position, marked unchanged (same primitive and params as one of them) or new
  (derived from them: `cos` and `mul` from `sin`); the equations of `base` with no
  unchanged counterpart are dropped.
- `cost_table(closed, hlo_text)`: the jaxpr's equations with the HLO instructions they became,
  the fusion each landed in and its kind (kLoop / kInput / kOutput), and flops, transcendental
  operations and bytes estimated from the equation's avals.

- `Stage`, `EqnLink`: a TransformView's column and the stage diff's mark of one equation
  (`links_from_diff`, `dropped_links`).

Equations are addressed by index path: `(i,)` for equation i of the program, `(i, j)` for
equation j of a jaxpr in equation i's params (a jit's, a cond branch's, a loop body's).
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import didax
from didax.display.parts import Row
from didax.jaxpr import ClosedJaxpr, Jaxpr, jaxprs_in_params, param_text

Path = tuple[int, ...]

# ----------------------------------------------------------------------------- equations


@dataclass(frozen=True)
class EqnRef:
    """One equation of a program: where it is, what it applies, where the user bound it."""

    path: Path
    primitive: str
    params: str  # its non-jaxpr params as text, `axes=(0,) out_sharding=None`
    source: Any  # didax.source_info.SourceInfo | None
    in_avals: tuple[Any, ...]
    out_avals: tuple[Any, ...]

    @property
    def location(self) -> str:
        """`file:line:column (function)`, as `pretty_print(source_info=True)` prints it."""
        return "" if self.source is None else self.source.summary()

    @property
    def source_text(self) -> str:
        """The text of the user's source line ('' when unknown)."""
        return "" if self.source is None else self.source.text

    @property
    def types(self) -> str:
        return " ".join(a.str_short() for a in self.out_avals)


def _open(program: Any) -> Jaxpr:
    return program.jaxpr if isinstance(program, ClosedJaxpr) else program


def _params_text(params: dict) -> str:
    return " ".join(
        f"{k}={param_text(v)}"
        for k, v in sorted(params.items())
        if not list(jaxprs_in_params({k: v}))
    )


def equations(program: Any, path: Path = ()) -> list[EqnRef]:
    """Every equation of `program` (a ClosedJaxpr or Jaxpr), nested ones after the equation
    holding them, each with its index path."""
    jaxpr = _open(program)
    out: list[EqnRef] = []
    for i, eqn in enumerate(jaxpr.eqns):
        here = (*path, i)
        out.append(
            EqnRef(
                here,
                eqn.primitive.name,
                _params_text(eqn.params),
                eqn.source_info,
                tuple(x.aval for x in eqn.invars),
                tuple(v.aval for v in eqn.outvars),
            )
        )
        for inner in jaxprs_in_params(eqn.params):
            out.extend(equations(inner, here))
    return out


# ----------------------------------------------------------------------------- stage diff


class Status(enum.Enum):
    UNCHANGED = "unchanged"  # the same primitive and params as an equation of f from its line
    NEW = "new"  # made by the transformation (derived from f's equations at its line, if any)
    DROPPED = "dropped"  # an equation of f with no unchanged counterpart in the stage


@dataclass(frozen=True)
class StageLink:
    """An equation of a later stage and the equations of f bound at the same source."""

    eqn: EqnRef
    origins: tuple[Path, ...]
    status: Status


@dataclass(frozen=True)
class StageDiff:
    """A later stage of a transformation compared with the program it came from."""

    name: str
    base: tuple[EqnRef, ...]
    links: tuple[StageLink, ...]
    dropped: tuple[Path, ...]  # paths in `base`

    def derived_from(self, origin: Path) -> tuple[StageLink, ...]:
        """The stage's equations that came from the equation of f at `origin`."""
        return tuple(link for link in self.links if origin in link.origins)

    def status_of(self, origin: Path) -> Status:
        """DROPPED when the equation of f at `origin` has no unchanged counterpart."""
        return Status.DROPPED if origin in self.dropped else Status.UNCHANGED

    def text(self) -> str:
        """One line per equation of the stage: status, primitive, origins, location."""
        base = {e.path: e for e in self.base}
        rows = [f"{self.name}:"]
        for link in self.links:
            came = ", ".join(f"{base[p].primitive}@{'.'.join(map(str, p))}" for p in link.origins)
            rows.append(
                f"  {link.status.value:9} {link.eqn.primitive:20} <- {came or '-':24} "
                f"{link.eqn.location}"
            )
        for p in self.dropped:
            rows.append(f"  {'dropped':9} {base[p].primitive:20}    {base[p].location}")
        return "\n".join(rows)


def _key(source: Any) -> Any:
    # the calling instruction (code object and offset): `sin(x) * 3.0` on one line is two
    # positions, the call and the product, though both start at the same column
    return source


def stage_diff(base: Any, stage: Any, name: str = "stage") -> StageDiff:
    """Link each equation of `stage` to the equations of `base` with the same user source
    position, and mark it unchanged or new; base's equations with no unchanged counterpart
    are dropped. Both are ClosedJaxprs (or Jaxprs)."""
    base_eqns = equations(base)
    by_source: dict[Any, list[EqnRef]] = {}
    for e in base_eqns:
        if e.source is not None:
            by_source.setdefault(_key(e.source), []).append(e)
    links = []
    kept: set[Path] = set()
    for e in equations(stage):
        origins = by_source.get(_key(e.source), []) if e.source is not None else []
        same = [o for o in origins if (o.primitive, o.params) == (e.primitive, e.params)]
        kept.update(o.path for o in same[:1])
        status = Status.UNCHANGED if same else Status.NEW
        links.append(StageLink(e, tuple(o.path for o in origins), status))
    dropped = tuple(e.path for e in base_eqns if e.path not in kept)
    return StageDiff(name, tuple(base_eqns), tuple(links), dropped)


def stage_diffs(base: Any, stages: Sequence[tuple[str, Any]]) -> tuple[StageDiff, ...]:
    """`stage_diff` of each named stage against `base`, e.g. for `%grad --jaxpr`:
    `stage_diffs(forward, [("linearized", lin), ("transposed", tr)])`."""
    return tuple(stage_diff(base, program, name) for name, program in stages)


# ----------------------------------------------------------------------------- stages


@dataclass(frozen=True)
class EqnLink:
    """The stage diff's status of one equation of a later stage (filled by provenance):
    `status` is "unchanged", "new" or "dropped"; `source_stage`/`source_eqn` name the
    equation of the first stage it came from (top-level indices)."""

    eqn: int
    status: str
    source_stage: str | None = None
    source_eqn: int | None = None


@dataclass(frozen=True)
class Stage:
    """One column of a TransformView: a named program, its inputs and outputs as rows, and
    optionally the stage diff links of its equations."""

    name: str
    jaxpr: Any  # ClosedJaxpr
    inputs: tuple[Row, ...] = ()
    outputs: tuple[Row, ...] = ()
    links: tuple[EqnLink, ...] = ()
    note: str = ""


def links_from_diff(diff: Any, base_name: str = "f") -> tuple[EqnLink, ...]:
    """A stage's EqnLinks from a stage diff (`.links`: each with `.eqn.path`, `.status`,
    `.origins`): one per top-level equation of the stage."""
    out = []
    for link in diff.links:
        path = tuple(link.eqn.path)
        if len(path) != 1:
            continue
        status = link.status.value
        origins = [tuple(o) for o in link.origins]
        source = origins[0][0] if origins else None
        out.append(EqnLink(path[0], str(status), base_name if origins else None, source))
    return tuple(out)


def dropped_links(diff: Any) -> tuple[EqnLink, ...]:
    """EqnLinks marking the base program's top-level equations that a stage dropped."""
    return tuple(EqnLink(p[0], "dropped") for p in diff.dropped if len(p) == 1)


# ----------------------------------------------------------------------------- HLO


@dataclass(frozen=True)
class HloInstruction:
    """One instruction of an optimized HLO module, as its text shows it."""

    name: str
    opcode: str
    computation: str
    op_name: str  # from metadata ('' when none)
    kind: str = ""  # a fusion's kind: kLoop, kInput, kOutput, ...
    calls: str = ""  # the computation a fusion (or call) runs

    @property
    def path(self) -> Path | None:
        return op_name_path(self.op_name)


_COMPUTATION = re.compile(r"^(?:ENTRY )?%([\w.\-]+) .*\{\s*$")
_INSTRUCTION = re.compile(r"^\s+(?:ROOT )?%([\w.\-]+) = .*? ([a-z][a-z0-9\-]*)\(")
_OP_NAME = re.compile(r'op_name="((?:[^"\\]|\\.)*)"')
_KIND = re.compile(r"\bkind=(k\w+)")
_CALLS = re.compile(r"\bcalls=%([\w.\-]+)")
_TO_APPLY = re.compile(r"\bto_apply=%([\w.\-]+)")


def parse_hlo(text: str) -> list[HloInstruction]:
    """The instructions of an optimized HLO module's text (`Compiled.as_text()`)."""
    out: list[HloInstruction] = []
    computation = ""
    for line in text.splitlines():
        header = _COMPUTATION.match(line)
        if header:
            computation = header.group(1)
            continue
        m = _INSTRUCTION.match(line)
        if not m:
            continue
        op_name, kind, calls = _OP_NAME.search(line), _KIND.search(line), _CALLS.search(line)
        out.append(
            HloInstruction(
                m.group(1),
                m.group(2),
                computation,
                op_name.group(1) if op_name else "",
                kind.group(1) if kind else "",
                calls.group(1) if calls else "",
            )
        )
    return out


def op_name_path(op_name: str) -> Path | None:
    """The equation index path of an op name didax wrote (`jit(f)/jit(g)#2/cos#0` ->
    (2, 0)); None for names without one (XLA's own, parameters)."""
    path = []
    for segment in op_name.split("/"):
        _, sep, index = segment.rpartition("#")
        if sep and index.isdigit():
            path.append(int(index))
    return tuple(path) or None


# ----------------------------------------------------------------------------- costs

# data movement: no arithmetic
_NO_FLOPS = {
    "broadcast_in_dim", "reshape", "squeeze", "expand_dims", "transpose", "convert_element_type",
    "slice", "dynamic_slice", "dynamic_update_slice", "concatenate", "pad", "rev", "iota",
    "copy", "copy_p", "gather", "stack", "select_n", "device_put", "bitcast_convert_type",
}  # fmt: skip
_TRANSCENDENTAL = {
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh",
    "acosh", "atanh", "exp", "exp2", "expm1", "log", "log1p", "logistic", "pow", "sqrt",
    "rsqrt", "cbrt", "erf", "erfc", "erf_inv", "lgamma", "digamma",
}  # fmt: skip


def _size(aval: Any) -> int:
    return math.prod(aval.shape)


def _nbytes(aval: Any) -> int:
    return _size(aval) * aval.dtype.itemsize


def estimate_flops(eqn: EqnRef, params: dict) -> tuple[int, int]:
    """(flops, transcendentals) of one equation, from its avals: a dot is 2 flops per
    multiply-add, a reduction one per input element, an elementwise op one per output
    element, data movement none; an equation holding jaxprs counts none itself (its
    equations have their own rows)."""
    if list(jaxprs_in_params(params)):
        return 0, 0
    out = sum(map(_size, eqn.out_avals))
    if eqn.primitive == "dot_general":
        (lhs_contract, _), _ = params["dimension_numbers"]
        k = math.prod(eqn.in_avals[0].shape[d] for d in lhs_contract)
        return 2 * out * k, 0
    if eqn.primitive.startswith(("reduce_", "argmax", "argmin", "cum")):
        return sum(map(_size, eqn.in_avals)), 0
    if eqn.primitive in _NO_FLOPS:
        return 0, 0
    return out, out if eqn.primitive in _TRANSCENDENTAL else 0


@dataclass(frozen=True)
class EqnCost:
    """A row of the per-equation cost table."""

    eqn: EqnRef
    flops: int
    transcendentals: int
    bytes: int  # operands and results, from the avals (an upper bound: fusion keeps
    # intermediates in registers)
    instructions: tuple[str, ...]  # the HLO instructions carrying this equation's op name
    landed: tuple[str, ...]  # the fusion (or unfused instruction) each of them is in
    kinds: tuple[str, ...]  # the fusions' kinds (kLoop, kInput, kOutput, ...); '' unfused


@dataclass(frozen=True)
class CostTable:
    """The equations of a program joined with the HLO XLA compiled it to."""

    rows: tuple[EqnCost, ...]
    fusions: tuple[tuple[str, str, tuple[Path, ...]], ...]  # (name, kind, equations in it)

    def text(self) -> str:
        lines = [f"{'eqn':8} {'primitive':22} {'types':16} {'flops':>8} {'bytes':>8}  landed in"]
        for r in self.rows:
            where = ", ".join(
                f"{n} ({k})" if k else n for n, k in dict(zip(r.landed, r.kinds)).items()
            )
            lines.append(
                f"{'.'.join(map(str, r.eqn.path)):8} {r.eqn.primitive:22} {r.eqn.types:16} "
                f"{r.flops:>8} {r.bytes:>8}  {where or '-'}"
            )
        for name, kind, paths in self.fusions:
            eqns = ", ".join(".".join(map(str, p)) for p in paths)
            lines.append(f"{name} ({kind}) fuses {len(paths)} equations: {eqns}")
        return "\n".join(lines)


def _params_by_path(program: Any, path: Path = ()) -> dict[Path, dict]:
    jaxpr = _open(program)
    out: dict[Path, dict] = {}
    for i, eqn in enumerate(jaxpr.eqns):
        out[(*path, i)] = eqn.params
        for inner in jaxprs_in_params(eqn.params):
            out.update(_params_by_path(inner, (*path, i)))
    return out


def cost_table(program: Any, hlo_text: str) -> CostTable:
    """Join `program`'s equations (the ClosedJaxpr `jit` lowered) with the optimized HLO
    text of its compiled form, through the op names in the HLO's metadata."""
    instructions = parse_hlo(hlo_text)
    # a reduction's combiner (`to_apply=`) is part of the reduction, not an op of its own
    combiners = set(_TO_APPLY.findall(hlo_text))
    instructions = [i for i in instructions if i.computation not in combiners]
    fusion_of = {i.calls: i for i in instructions if i.opcode == "fusion" and i.calls}
    by_path: dict[Path, list[HloInstruction]] = {}
    for ins in instructions:
        if ins.path is not None and ins.opcode not in ("fusion", "parameter"):
            by_path.setdefault(ins.path, []).append(ins)
    params = _params_by_path(program)
    rows = []
    members: dict[str, list[Path]] = {}
    for eqn in equations(program):
        flops, trans = estimate_flops(eqn, params[eqn.path])
        nbytes = sum(map(_nbytes, eqn.in_avals)) + sum(map(_nbytes, eqn.out_avals))
        found = by_path.get(eqn.path, [])
        landed, kinds = [], []
        for ins in found:
            fusion = fusion_of.get(ins.computation)
            landed.append(fusion.name if fusion else ins.name)
            kinds.append(fusion.kind if fusion else "")
            if fusion and eqn.path not in members.setdefault(fusion.name, []):
                members[fusion.name].append(eqn.path)
        rows.append(
            EqnCost(
                eqn,
                flops,
                trans,
                nbytes,
                tuple(i.name for i in found),
                tuple(landed),
                tuple(kinds),
            )
        )
    kind_of = {f.name: f.kind for f in fusion_of.values()}
    fusions = tuple((name, kind_of[name], tuple(paths)) for name, paths in members.items())
    return CostTable(tuple(rows), fusions)


def compiled_cost_table(fn: Any, *args: Any) -> CostTable:
    """`cost_table` of `didax.jit(fn)` compiled for `args`."""
    closed = didax.make_jaxpr(fn)(*args)
    hlo = didax.jit(fn).lower(*args).compile().as_text()
    return cost_table(closed, hlo)
