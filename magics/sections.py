"""Each magic's report as parts (didax.display.parts): the sections its text, its HTML and
its view are written from.

Layer 6, no IPython or ipywidgets import. `sections_for(report)` gives the sections of any
report (`text/plain` is `text.sections_text` of them, the static `text/html`
`markup.sections_html`); `stages_of` and `timing_model` give the TransformView's columns (with
the stage diff's marks) and the TimingView's data.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from didax.display import compiled, provenance
from didax.display.compiled import format_time
from didax.display.parts import Row, Section, value_rows
from didax.display.program import mesh_rows, printed_names
from didax.display.text import rows_text, section_text
from didax.magics import reports, timing


def binding_text(b: reports.Binding) -> str:
    return f"{b.var}:{b.type}"


def jaxpr_sections(r: reports.JaxprReport) -> list[Section]:
    width = max((len(binding_text(b)) for b in (*r.inputs, *r.outputs)), default=0)
    inputs = "\n".join(f"{binding_text(b).ljust(width)}  <- {b.label}" for b in r.inputs)
    outputs = "\n".join(f"{binding_text(b).ljust(width)}  -> {b.label}" for b in r.outputs)
    consts = "\n".join(
        f"{c.var}:{c.type} = "
        + np.array2string(np.asarray(c.value), prefix=f"{c.var}:{c.type} = ", threshold=20)
        for c in r.constants
    )
    rows = (
        Row("inputs", inputs or "none"),
        Row("outputs", outputs or "none"),
        Row("constants", consts or "none"),
        *mesh_rows(r.jaxpr),
    )
    return [Section(f"jaxpr of {r.call}", jaxpr=r.jaxpr), Section("", rows=rows)]


def residual_rows(closed: Any) -> tuple[Row, ...]:
    """`a:f32[] = 0.87758255  (for eqn 0)`: the constants (residuals) of a program, with
    their values and the equation of f whose derivative reads each first (the derivation
    of the first equation using it)."""
    names = printed_names(closed)
    first_use: dict[int, Any] = {}
    for eqn in closed.jaxpr.eqns:
        for x in eqn.invars:
            first_use.setdefault(id(x), eqn.derivation)
    rows = []
    for v, c in zip(closed.jaxpr.constvars, map(np.asarray, closed.consts), strict=True):
        d = first_use.get(id(v))
        where = f"  (for eqn {d.source})" if d is not None and d.source is not None else ""
        value = "= " + np.array2string(c, threshold=20)
        rows.append(Row(f"{names.get(id(v), '?')}:{v.aval.str_short()}", value + where))
    return tuple(rows)


def grad_sections(r: reports.GradReport) -> list[Section]:
    grads = (r.gradient,) if isinstance(r.argnums, int) else tuple(r.gradient)
    rows = value_rows("value", r.value)
    for name, g in zip(r.arg_names, grads, strict=True):
        rows += value_rows(f"∂{r.fn_name}/∂{name}", g)
    wrt = ", ".join(r.arg_names)
    out = [Section(f"grad of {r.call} with respect to {wrt}", rows=rows)]
    p = r.programs
    if p is not None:
        # the four programs with their marks: f's equations numbered, the others' saying
        # which of f's each came from (as in the view's columns)
        out.append(Section(f"forward program: {r.call}", jaxpr=p.forward, marks="numbers"))
        if p.jvp is not None:
            out.append(
                Section(
                    "jvp program: primals and tangents in, value and tangent out",
                    jaxpr=p.jvp,
                    marks="derivation",
                )
            )
        out += [
            Section(
                f"linearized program: tangents of {wrt} -> output tangent "
                "(its constants are residuals of the forward pass)",
                jaxpr=p.linearized,
                rows=residual_rows(p.linearized),
                marks="derivation",
            ),
            Section(
                f"transposed program: output cotangent -> cotangents of {wrt}",
                jaxpr=p.transposed,
                marks="derivation",
            ),
        ]
    return out


def rules_sections(r: reports.RulesReport) -> list[Section]:
    """`%rules`: a heading, then each rule's code with a link to where it is."""
    missing = f"no {', '.join(r.missing)} rule" if r.missing else ""
    out = [Section(f"the rules of {r.primitive}", note=missing or None)]
    for rule in r.rules:
        where = (f"{rule.link}:{rule.line}", rule.link) if rule.link else None
        out.append(Section(f"{rule.table} rule: {rule.name}", block=rule.code, link=where))
    return out


def vmap_sections(r: reports.VmapReport) -> list[Section]:
    size = f", batch of {r.axis_size}" if r.axis_size is not None else ""
    title = f"vmap({r.fn_name}, in_axes={r.in_axes!r}, out_axes={r.out_axes!r}) on {r.call}{size}"
    out = [Section(title, rows=value_rows("output", r.output))]
    if r.example_jaxpr is not None:
        out.append(Section("per-example program", jaxpr=r.example_jaxpr, marks="numbers"))
        out.append(Section("batched program", jaxpr=r.jaxpr, marks="derivation"))
    else:  # traced from the function: its equations derive from no program
        out.append(Section("batched program", jaxpr=r.jaxpr))
    return out


def _cost_rows(cost: dict[str, float]) -> tuple[Row, ...]:
    # the headline figures, then XLA's per-operand keys (`bytes accessed0{}`) under one label
    cm = compiled.cost_model(cost)
    if not cm.per_operand:
        return cm.main
    return (*cm.main, Row("per operand", rows_text(cm.per_operand, 0)))


def _phase_rows(t: timing.JitTimings) -> list[Row]:
    rows = []
    if t.startup is not None:
        rows.append(Row("compiler start-up", f"{format_time(t.startup)} (once per process)"))
    if t.trace is not None:
        rows.append(Row("trace", format_time(t.trace)))
    rows += [
        Row("lower" if t.trace is not None else "trace + lower", format_time(t.lower)),
        Row("compile", format_time(t.compile)),
        Row("first run", format_time(t.first_run)),
    ]
    return rows


def _runs_note(t: timing.JitTimings) -> str:
    budget = f"; time budget {t.budget:g} s" if t.budget else ""
    return (
        f"runs made: compiled {t.steady.repeat} x {t.steady.loops:,} calls, "
        f"eager {t.eager.repeat} x {t.eager.loops:,} calls{budget}"
    )


def jit_summary(r: timing.JitReport) -> Section:
    """The result, the phases, the steady state against eager and the notes."""
    t = r.timings
    phases = [
        *_phase_rows(t),
        Row("steady state", str(t.steady)),
        Row("eager", str(t.eager)),
        Row("speed-up", f"{t.speedup:.1f}x (best eager / best compiled)"),
    ]
    notes = [compiled.EAGER_MEANING, _runs_note(t), *t.warnings]
    return Section(
        f"jit of {r.call}", rows=(*value_rows("result", r.result), *phases), note="\n".join(notes)
    )


def partition_section(p: timing.Partitioning) -> Section:
    """How XLA split the program: per input and output, its global type, its spec and the
    block each device holds; the optimized HLO is one device's program."""
    rows = tuple(
        Row(r.label, f"{r.type}  {r.spec}  -> {r.shard} on each device")
        for r in (*p.inputs, *p.outputs)
    )
    inserted = ", ".join(f"{kind} \u00d7{n}" for kind, n in p.collectives)
    rows += (
        Row(
            "collectives",
            f"{inserted} (XLA inserted: devices exchange their blocks)"
            if inserted
            else "none: each device computes on its own block",
        ),
    )
    return Section(
        "partitioned by XLA over mesh " + "; ".join(p.meshes),
        rows=rows,
        note="The optimized HLO is the program each device runs: its shapes are the blocks.",
    )


def jit_sections(r: timing.JitReport) -> list[Section]:
    out = [jit_summary(r)]
    if r.partitioning is not None:
        out.append(partition_section(r.partitioning))
    if r.cost:
        out.append(Section("cost analysis", rows=_cost_rows(r.cost), folded=True))
    out.append(Section("StableHLO", block=r.stablehlo, folded=True))
    out.append(Section("optimized HLO", block=compiled.without_metadata(r.hlo), folded=True))
    return out


REPORT_TYPES = (
    reports.JaxprReport,
    reports.GradReport,
    reports.VmapReport,
    timing.JitReport,
    reports.RulesReport,
)


def sections_for(report: Any) -> list[Section]:
    """The sections of any report."""
    writers = (jaxpr_sections, grad_sections, vmap_sections, jit_sections, rules_sections)
    return dict(zip(REPORT_TYPES, writers, strict=True))[type(report)](report)


# ----------------------------------------------------------------------------- view data


def linked(stages: list[provenance.Stage]) -> list[provenance.Stage]:
    """The first stage's equations marked with their numbers (`eqn 1`), the later stages'
    with where each came from (`tangent of eqn 1`: their derivations in the IR)."""
    if len(stages) < 2:
        return stages
    first, *rest = stages
    return [replace(first, marks="numbers"), *(replace(s, marks="derivation") for s in rest)]


def grad_stages(r: reports.GradReport) -> list[provenance.Stage]:
    """f -> jvp(f) -> linearized -> transposed, linked by the stage diff."""
    p = r.programs
    assert p is not None, "grad_stages needs a report made with programs=True"
    wrt = ", ".join(r.arg_names)
    stages = [provenance.Stage(f"f: {r.call}", p.forward)]
    if p.jvp is not None:
        stages.append(
            provenance.Stage("jvp(f): primals and tangents in, value and tangent out", p.jvp)
        )
    stages += [
        provenance.Stage(
            f"linearized: tangents of {wrt} -> output tangent",
            p.linearized,
            inputs=residual_rows(p.linearized),
            note="constants are residuals of the forward pass",
        ),
        provenance.Stage(
            f"transposed: output cotangent -> cotangents of {wrt}",
            p.transposed,
            inputs=residual_rows(p.transposed),
        ),
    ]
    return linked(stages)


def vmap_stages(r: reports.VmapReport) -> list[provenance.Stage]:
    """per-example -> batched, linked by the stage diff."""
    stages = []
    if r.example_jaxpr is not None:
        stages.append(provenance.Stage("per-example program", r.example_jaxpr))
    stages.append(provenance.Stage("batched program", r.jaxpr))
    return linked(stages)


def timing_model(r: timing.JitReport) -> compiled.TimingModel:
    t = r.timings
    seconds = [s for s in (t.startup, t.trace, t.lower, t.compile, t.first_run) if s is not None]
    phases = [
        compiled.Phase(row.label, s, "once per process" if row.label == "compiler start-up" else "")
        for row, s in zip(_phase_rows(t), seconds, strict=True)
    ]
    return compiled.TimingModel(
        title=f"jit of {r.call}: compiled against eager, per call",
        phases=tuple(phases),
        steady_runs=t.steady.runs,
        eager_runs=t.eager.runs,
        loops=t.steady.loops,
        eager_loops=t.eager.loops,
        speedup=t.speedup,
        warnings=t.warnings,
        budget=t.budget,
        text=section_text(jit_summary(r)),
    )
