"""Rich display objects for the magics' reports: the `text/plain` and `text/html` of each.

Layer 6, no IPython import: an object with `_repr_mimebundle_` is all IPython's `display`
needs (the ipywidgets views of the widgets issue will take these objects' place). The
`text/plain` is what a terminal and nbconvert show: the jaxpr, the gradient, the timing
table. This is the only module of `didax.magics` that writes markup; every string that comes
from the user (names, call text, jaxpr tokens, values, compiler output) goes through
`html.escape`, and CSS classes come from the closed set of `pretty.TokenKind`s.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from didax import core, pretty
from didax.jaxpr import jaxpr_lines
from didax.magics import reports
from didax.widgets import markup, provenance, views
from didax.widgets import model as widget_model

Row = tuple[str, str]  # (label, text); the text may span several lines

# ----------------------------------------------------------------------------- text


def value_text(x: Any) -> str:
    """`f32[3] [1. 2. 3.]`: an array's type and values (other leaves: their repr)."""
    if not core.is_arraylike(x):
        return repr(x)
    prefix = reports.type_str(x) + " "
    return prefix + np.array2string(np.asarray(x), prefix=prefix)


def value_rows(label: str, tree: Any) -> list[Row]:
    """One row per leaf of a pytree, labelled with its path (`params['w']`)."""
    return [(label + path, value_text(leaf)) for path, leaf in reports.leaf_paths(tree)]


def rows_text(rows: Sequence[Row], indent: int = 2) -> str:
    width = max((len(label) for label, _ in rows), default=0)
    lines = []
    for label, text in rows:
        first, *rest = text.split("\n")
        lines.append(" " * indent + label.ljust(width) + "  " + first)
        lines += [" " * (indent + width + 2) + line for line in rest]
    return "\n".join(lines)


class Section:
    """One part of a display: a heading with rows, a jaxpr, or a preformatted block. Its
    `text` and `html` render the same data, so the two never disagree."""

    def __init__(
        self,
        heading: str,
        *,
        rows: Sequence[Row] = (),
        jaxpr: Any = None,
        block: str | None = None,
        note: str | None = None,
        folded: bool = False,
    ) -> None:
        self.heading = heading
        self.rows = list(rows)
        self.jaxpr = jaxpr
        self.block = block
        self.note = note
        self.folded = folded  # HTML: inside a closed <details>

    def text(self) -> str:
        parts = [self.heading] if self.heading else []
        if self.jaxpr is not None:
            parts.append(str(self.jaxpr))
        if self.rows:
            parts.append(rows_text(self.rows))
        if self.block is not None:
            parts.append(self.block.rstrip("\n"))
        if self.note:
            parts.append(self.note)
        return "\n".join(parts)

    def html(self) -> str:
        body = []
        if self.jaxpr is not None:
            body.append(jaxpr_html(self.jaxpr))
        if self.rows:
            cells = "".join(
                f"<tr><th>{_esc(label)}</th><td><pre>{_esc(text)}</pre></td></tr>"
                for label, text in self.rows
            )
            body.append(f'<table class="dx-rows">{cells}</table>')
        if self.block is not None:
            body.append(f'<pre class="dx-block">{_esc(self.block)}</pre>')
        if self.note:
            body.append(f'<div class="dx-note">{_esc(self.note)}</div>')
        if self.folded:
            return (
                f'<details class="dx-section"><summary>{_esc(self.heading)}</summary>'
                + "".join(body)
                + "</details>"
            )
        head = f'<div class="dx-heading">{_esc(self.heading)}</div>' if self.heading else ""
        return f'<div class="dx-section">{head}{"".join(body)}</div>'


# ----------------------------------------------------------------------------- html

_STYLE = """<style>
.didax-report { font-family: var(--jp-code-font-family, monospace); font-size: 13px; }
.didax-report .dx-heading { font-weight: bold; margin: 6px 0 2px 0; }
.didax-report details summary { font-weight: bold; cursor: pointer; margin: 6px 0 2px 0; }
.didax-report pre { margin: 0; padding: 0; background: none; white-space: pre; }
.didax-report table.dx-rows { border-collapse: collapse; margin: 0; }
.didax-report table.dx-rows th { text-align: left; vertical-align: top; padding: 1px 12px 1px 0;
  font-weight: normal; color: #666; white-space: nowrap; }
.didax-report table.dx-rows td { text-align: left; padding: 1px 0; }
.didax-report .dx-note { color: #a14f00; margin: 4px 0; }
.didax-report .dx-keyword { color: #8700af; font-weight: bold; }
.didax-report .dx-primitive { color: #0550ae; font-weight: bold; }
.didax-report .dx-type { color: #6e7781; }
.didax-report .dx-literal { color: #b35900; }
.didax-report .dx-param { color: #116329; }
.didax-report .dx-var { color: inherit; }
</style>"""


def _esc(s: str) -> str:
    return html.escape(str(s), quote=True)


def jaxpr_html(jaxpr: Any) -> str:
    """The jaxpr as `<pre>` with one `<span class="dx-KIND">` per token."""
    lines = []
    for indent, tokens in jaxpr_lines(jaxpr):
        spans = "".join(
            _esc(t.text)
            if t.kind is pretty.TokenKind.TEXT
            else f'<span class="dx-{_esc(t.kind.value)}">{_esc(t.text)}</span>'
            for t in tokens
        )
        lines.append(" " * indent + spans)
    return '<pre class="dx-jaxpr">' + "\n".join(lines) + "</pre>"


class ReportDisplay:
    """A report shown by IPython's `display`: `text/plain` and `text/html` of its sections."""

    kind = "report"

    def __init__(self, report: Any) -> None:
        self.report = report

    def sections(self) -> list[Section]:
        raise NotImplementedError

    def text(self) -> str:
        return "\n".join(s.text() for s in self.sections())

    def html(self) -> str:
        body = "".join(s.html() for s in self.sections())
        return f'{_STYLE}<div class="didax-report didax-{self.kind}">{body}</div>'

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": self.text(), "text/html": self.html()}

    def __repr__(self) -> str:
        return self.text()


# ----------------------------------------------------------------------------- the four views


def _binding(b: reports.Binding) -> str:
    return f"{b.var}:{b.type}"


class JaxprDisplay(ReportDisplay):
    kind = "jaxpr"

    def sections(self) -> list[Section]:
        r: reports.JaxprReport = self.report
        width = max((len(_binding(b)) for b in (*r.inputs, *r.outputs)), default=0)
        inputs = "\n".join(f"{_binding(b).ljust(width)}  <- {b.label}" for b in r.inputs)
        outputs = "\n".join(f"{_binding(b).ljust(width)}  -> {b.label}" for b in r.outputs)
        consts = "\n".join(
            f"{c.var}:{c.type} = "
            + np.array2string(np.asarray(c.value), prefix=f"{c.var}:{c.type} = ", threshold=20)
            for c in r.constants
        )
        rows = [
            ("inputs", inputs or "none"),
            ("outputs", outputs or "none"),
            ("constants", consts or "none"),
        ]
        rows += [(m.label, m.text) for m in widget_model.mesh_rows(r.jaxpr)]
        return [Section(f"jaxpr of {r.call}", jaxpr=r.jaxpr), Section("", rows=rows)]


def residual_rows(closed: Any) -> list[Row]:
    """`a:f32[] = 0.87758255`: the constants (residuals) of a program, with their values."""
    names = widget_model.printed_names(closed)
    return [
        (f"{names.get(id(v), '?')}:{v.aval.str_short()}", "= " + _value_only(c))
        for v, c in zip(closed.jaxpr.constvars, closed.consts, strict=True)
    ]


def _value_only(x: Any) -> str:
    return np.array2string(np.asarray(x), threshold=20)


class GradDisplay(ReportDisplay):
    kind = "grad"

    def sections(self) -> list[Section]:
        r: reports.GradReport = self.report
        grads = (r.gradient,) if isinstance(r.argnums, int) else tuple(r.gradient)
        rows = value_rows("value", r.value)
        for name, g in zip(r.arg_names, grads, strict=True):
            rows += value_rows(f"∂{r.fn_name}/∂{name}", g)
        wrt = ", ".join(r.arg_names)
        out = [Section(f"grad of {r.call} with respect to {wrt}", rows=rows)]
        p = r.programs
        if p is not None:
            out += [
                Section(f"forward program: {r.call}", jaxpr=p.forward),
                Section(
                    f"linearized program: tangents of {wrt} -> output tangent "
                    "(its constants are residuals of the forward pass)",
                    jaxpr=p.linearized,
                    rows=residual_rows(p.linearized),
                ),
                Section(
                    f"transposed program: output cotangent -> cotangents of {wrt}",
                    jaxpr=p.transposed,
                ),
            ]
        return out


class VmapDisplay(ReportDisplay):
    kind = "vmap"

    def sections(self) -> list[Section]:
        r: reports.VmapReport = self.report
        size = f", batch of {r.axis_size}" if r.axis_size is not None else ""
        title = (
            f"vmap({r.fn_name}, in_axes={r.in_axes!r}, out_axes={r.out_axes!r}) on {r.call}{size}"
        )
        out = [Section(title, rows=value_rows("output", r.output))]
        if r.example_jaxpr is not None:
            out.append(Section("per-example program", jaxpr=r.example_jaxpr))
        out.append(Section("batched program", jaxpr=r.jaxpr))
        return out


def _cost_rows(cost: dict[str, float]) -> list[Row]:
    # the headline figures, then XLA's per-operand keys (`bytes accessed0{}`) under one label
    cm = widget_model.cost_model(cost)
    rows = [(r.label, r.text) for r in cm.main]
    if cm.per_operand:
        rows.append(("per operand", rows_text([(r.label, r.text) for r in cm.per_operand], 0)))
    return rows


def _phase_rows(t: reports.JitTimings) -> list[Row]:
    rows = []
    if t.startup is not None:
        rows.append(("compiler start-up", f"{reports.format_time(t.startup)} (once per process)"))
    if t.trace is not None:
        rows.append(("trace", reports.format_time(t.trace)))
    rows += [
        ("lower" if t.trace is not None else "trace + lower", reports.format_time(t.lower)),
        ("compile", reports.format_time(t.compile)),
        ("first run", reports.format_time(t.first_run)),
    ]
    return rows


def _runs_note(t: reports.JitTimings) -> str:
    budget = f"; time budget {t.budget:g} s" if t.budget else ""
    return (
        f"runs made: compiled {t.steady.repeat} x {t.steady.loops:,} calls, "
        f"eager {t.eager.repeat} x {t.eager.loops:,} calls{budget}"
    )


class JitDisplay(ReportDisplay):
    kind = "jit"

    def sections(self) -> list[Section]:
        r: reports.JitReport = self.report
        t = r.timings
        phases = _phase_rows(t) + [
            ("steady state", str(t.steady)),
            ("eager", str(t.eager)),
            ("speed-up", f"{t.speedup:.1f}x (best eager / best compiled)"),
        ]
        rows = value_rows("result", r.result) + phases
        notes = [widget_model.EAGER_MEANING, _runs_note(t), *t.warnings]
        out = [Section(f"jit of {r.call}", rows=rows, note="\n".join(notes))]
        if r.partitioning is not None:
            out.append(partition_section(r.partitioning))
        if r.cost:
            out.append(Section("cost analysis", rows=_cost_rows(r.cost), folded=True))
        out.append(Section("StableHLO", block=r.stablehlo, folded=True))
        out.append(Section("optimized HLO", block=_without_metadata(r.hlo), folded=True))
        return out


def partition_section(p: reports.Partitioning) -> Section:
    """How XLA split the program: per input and output, its global type, its spec and the
    block each device holds; the optimized HLO below is one device's program."""
    rows = [
        (f"{r.label}", f"{r.type}  {r.spec}  -> {r.shard} on each device")
        for r in (*p.inputs, *p.outputs)
    ]
    return Section(
        "partitioned by XLA over mesh " + "; ".join(p.meshes),
        rows=rows,
        note="The optimized HLO is the program each device runs: its shapes are the blocks.",
    )


def _without_metadata(hlo: str) -> str:
    return widget_model.without_metadata(hlo)


def display_for(report: Any) -> ReportDisplay:
    """The display object of a report."""
    views = {
        reports.JaxprReport: JaxprDisplay,
        reports.GradReport: GradDisplay,
        reports.VmapReport: VmapDisplay,
        reports.JitReport: JitDisplay,
    }
    return views[type(report)](report)


# ----------------------------------------------------------------------------- widget views


def _rows(rows: Sequence[Row]) -> list[widget_model.Row]:
    return [widget_model.Row(label, text) for label, text in rows]


def _report_view(report_display: ReportDisplay, children: list[Any]) -> views.ReportView:
    return views.ReportView(children, text=report_display.text(), html=report_display.html())


def jaxpr_view(report: reports.JaxprReport, arg_leaves: Sequence[Any] | None = None) -> Any:
    """`%jaxpr`'s view: the JaxprView (inputs and outputs named after the call's arguments
    and output paths, a stepper over `arg_leaves`) and the constants."""
    ins = [widget_model.Row(f"{_binding(b)}", f"<- {b.label}") for b in report.inputs]
    outs = [widget_model.Row(f"{_binding(b)}", f"-> {b.label}") for b in report.outputs]
    view = views.JaxprView(report.jaxpr, inputs=ins, outputs=outs, args=arg_leaves)
    consts = [
        widget_model.Row(f"{c.var}:{c.type}", widget_model.value_text(c.value))
        for c in report.constants
    ]
    head = markup.heading(f"jaxpr of {report.call}")
    tail = (markup.heading("constants") + markup.rows_table(consts)) if consts else ""
    children = [views.html_widget(head), view]
    if tail:
        children.append(views.html_widget(tail))
    return _report_view(JaxprDisplay(report), children)


def _linked(stages: list[widget_model.Stage]) -> list[widget_model.Stage]:
    """The stage diff: each later stage's equations linked to the first stage's equations
    bound at the same source line (unchanged / new); the first stage's equations that the
    second stage dropped are marked dropped."""
    if len(stages) < 2:
        return stages
    base = stages[0]
    out = []
    for k, stage in enumerate(stages[1:], 1):
        diff = provenance.stage_diff(base.jaxpr, stage.jaxpr, stage.name)
        if k == 1:
            base = replace(base, links=widget_model.dropped_links(diff))
        out.append(replace(stage, links=widget_model.links_from_diff(diff, "f")))
    return [base, *out]


def grad_view(report: reports.GradReport) -> Any:
    """`%grad`'s view: value and gradient rows; with the programs, a TransformView of
    f -> jvp(f) -> linearized -> transposed."""
    d = GradDisplay(report)
    first = d.sections()[0]
    children: list[Any] = [
        views.html_widget(markup.heading(first.heading) + markup.rows_table(_rows(first.rows)))
    ]
    p = report.programs
    if p is not None:
        wrt = ", ".join(report.arg_names)
        stages = [widget_model.Stage(f"f: {report.call}", p.forward)]
        if p.jvp is not None:
            stages.append(
                widget_model.Stage("jvp(f): primals and tangents in, value and tangent out", p.jvp)
            )
        stages += [
            widget_model.Stage(
                f"linearized: tangents of {wrt} -> output tangent",
                p.linearized,
                inputs=tuple(_rows(residual_rows(p.linearized))),
                note="constants are residuals of the forward pass",
            ),
            widget_model.Stage(
                f"transposed: output cotangent -> cotangents of {wrt}",
                p.transposed,
                inputs=tuple(_rows(residual_rows(p.transposed))),
            ),
        ]
        children.append(views.TransformView(_linked(stages)))
    return _report_view(d, children)


def vmap_view(report: reports.VmapReport) -> Any:
    """`%vmap`'s view: the output rows and a TransformView per-example -> batched."""
    d = VmapDisplay(report)
    first = d.sections()[0]
    stages = []
    if report.example_jaxpr is not None:
        stages.append(widget_model.Stage("per-example program", report.example_jaxpr))
    stages.append(widget_model.Stage("batched program", report.jaxpr))
    stages = _linked(stages)
    children = [
        views.html_widget(markup.heading(first.heading) + markup.rows_table(_rows(first.rows))),
        views.TransformView(stages),
    ]
    return _report_view(d, children)


def timing_model(report: reports.JitReport) -> widget_model.TimingModel:
    t = report.timings
    phases = [widget_model.Phase(label, None, text) for label, text in _phase_rows(t)]
    seconds = [t.startup, t.trace, t.lower, t.compile, t.first_run]
    phases = [
        widget_model.Phase(p.name, s, "once per process" if p.name == "compiler start-up" else "")
        for p, s in zip(phases, [x for x in seconds if x is not None], strict=True)
    ]
    return widget_model.TimingModel(
        title=f"jit of {report.call}: compiled against eager, per call",
        phases=tuple(phases),
        steady_runs=t.steady.runs,
        eager_runs=t.eager.runs,
        loops=t.steady.loops,
        eager_loops=t.eager.loops,
        speedup=t.speedup,
        warnings=t.warnings,
        budget=t.budget,
        text=JitDisplay(report).sections()[0].text(),
    )


def jit_view(report: reports.JitReport) -> Any:
    """`%jit`'s view: the result, the TimingView and the CompiledView."""
    d = JitDisplay(report)
    result = views.html_widget(markup.rows_table(_rows(value_rows("result", report.result))))
    costs: tuple[widget_model.EqnCost, ...] = ()
    if report.jaxpr is not None:  # each equation with the HLO fusion it landed in
        costs = widget_model.costs_from_table(provenance.cost_table(report.jaxpr, report.hlo))
    compiled = views.CompiledView(report.stablehlo, report.hlo, report.cost, eqn_costs=costs)
    children = [result, views.TimingView(timing_model(report))]
    if report.partitioning is not None:
        section = partition_section(report.partitioning)
        children.append(
            views.html_widget(
                markup.heading(section.heading)
                + markup.rows_table(_rows(section.rows))
                + markup.note(section.note or "")
            )
        )
    return _report_view(d, [*children, compiled])


def view_for(report: Any) -> Any:
    """The widget view of a report (what the magic displays)."""
    if isinstance(report, reports.JaxprReport):
        return jaxpr_view(report)
    if isinstance(report, reports.GradReport):
        return grad_view(report)
    if isinstance(report, reports.VmapReport):
        return vmap_view(report)
    return jit_view(report)
