"""Models of the provenance views: plain data, no ipywidgets.

Layer 6 (STYLE §9's model step). They read what the engine records about each equation:
its user source (`eqn.source_info`, see didax/source_info.py), where a transformation took it
from (`eqn.derivation`: `tangent of eqn 1`, the marks of a `Stage`) and, once compiled, the
op names XLA keeps in the optimized HLO's metadata (`jit(f)/sin#3`: the `#` indices are the
equation's index path, see didax/interpreters/lowering.py).

- `Stage`: a TransformView's column (f, jvp(f), linearized, transposed; or per-example,
  batched), its equations marked with their numbers or their derivations.
- `cost_table(closed, hlo_text)`: the jaxpr's equations with the HLO instructions they became,
  the fusion each landed in and its kind (kLoop / kInput / kOutput), and flops, transcendental
  operations and bytes estimated from the equation's avals.

Equations are addressed by index path: `(i,)` for equation i of the program, `(i, j)` for
equation j of a jaxpr in equation i's params (a jit's, a cond branch's, a loop body's).
"""

from __future__ import annotations

import math
import re
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


# ----------------------------------------------------------------------------- stages


@dataclass(frozen=True)
class Stage:
    """One column of a TransformView: a named program, its inputs and outputs as rows, and
    the marks its equations carry (`program.MARKS`): "numbers" for the program a
    transformation started from (`eqn 1`), "derivation" for the programs it made (`tangent
    of eqn 1`, read from each equation's derivation in the IR)."""

    name: str
    jaxpr: Any  # ClosedJaxpr
    inputs: tuple[Row, ...] = ()
    outputs: tuple[Row, ...] = ()
    marks: str = ""
    note: str = ""


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
