"""Each magic's view: its report's sections (sections.py) assembled as didax.widgets views.

Layer 6: imports ipywidgets through didax.widgets, and writes no markup itself (markup comes
from didax.display.markup). A `ReportView` carries the report's text (`text.sections_text`)
as its `text/plain` and the static rendering of its views as its `text/html`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from didax.display import markup, provenance
from didax.display.parts import Row, Section, value_rows, value_text
from didax.display.text import sections_text
from didax.magics import reports, sections, timing
from didax.widgets import views


def _report_view(parts: list[Section], children: list[Any]) -> views.ReportView:
    # text/plain: the report's sections; text/html: the static rendering of the children
    return views.ReportView(children, text=sections_text(parts))


def _rows_widget(section: Section) -> Any:
    body = markup.heading(section.heading) if section.heading else ""
    body += markup.rows_table(section.rows) + (markup.note(section.note) if section.note else "")
    return views.html_widget(body)


def jaxpr_view(report: reports.JaxprReport, arg_leaves: Sequence[Any] | None = None) -> Any:
    """`%jaxpr`'s view: the JaxprView (inputs and outputs named after the call's arguments
    and output paths, a stepper over `arg_leaves`) and the constants."""
    ins = [Row(sections.binding_text(b), f"<- {b.label}") for b in report.inputs]
    outs = [Row(sections.binding_text(b), f"-> {b.label}") for b in report.outputs]
    view = views.JaxprView(
        report.jaxpr, inputs=ins, outputs=outs, args=arg_leaves, rules=rules_markup
    )
    consts = tuple(
        Row(f"{c.var}:{c.type}", value_text(c.value, threshold=20)) for c in report.constants
    )
    children = [views.html_widget(markup.heading(f"jaxpr of {report.call}")), view]
    if consts:
        children.append(_rows_widget(Section("constants", rows=consts)))
    return _report_view(sections.jaxpr_sections(report), children)


def grad_view(report: reports.GradReport) -> Any:
    """`%grad`'s view: value and gradient rows; with the programs, a TransformView of
    f -> jvp(f) -> linearized -> transposed."""
    parts = sections.grad_sections(report)
    children: list[Any] = [_rows_widget(parts[0])]
    if report.programs is not None:
        children.append(views.TransformView(sections.grad_stages(report), rules=rules_markup))
        p = report.programs  # f's graph: each node's value and the cotangent it received
        heading = "graph of f: each node's value and \u2207 the cotangent that reached it"
        children.append(views.static_graph(p.forward, p.leaves or None, heading))
    return _report_view(parts, children)


def vmap_view(report: reports.VmapReport) -> Any:
    """`%vmap`'s view: the output rows and a TransformView per-example -> batched."""
    parts = sections.vmap_sections(report)
    stages = views.TransformView(sections.vmap_stages(report), rules=rules_markup)
    children = [_rows_widget(parts[0]), stages]
    return _report_view(parts, children)


def jit_view(report: timing.JitReport) -> Any:
    """`%jit`'s view: the result, the TimingView, the partitioning and the CompiledView."""
    result = _rows_widget(Section("", rows=value_rows("result", report.result)))
    costs: tuple[provenance.EqnCost, ...] = ()
    if report.jaxpr is not None:  # each equation with the HLO fusion it landed in
        costs = provenance.cost_table(report.jaxpr, report.hlo).rows
    compiled = views.CompiledView(report.stablehlo, report.hlo, report.cost, eqn_costs=costs)
    children = [result, views.TimingView(sections.timing_model(report))]
    if report.partitioning is not None:
        children.append(_rows_widget(sections.partition_section(report.partitioning)))
    return _report_view(sections.jit_sections(report), [*children, compiled])


def rules_markup(prim: Any) -> str:
    """What `%rules` shows of a primitive (an equation's), as markup inside a view: a jaxpr
    view shows it when the primitive's name is clicked."""
    return "".join(map(markup.section_html, sections.rules_sections(reports.primitive_rules(prim))))


def rules_view(report: reports.RulesReport) -> Any:
    """`%rules`' view: each rule's code with a link to its file."""
    parts = sections.rules_sections(report)
    html = markup.sections_html(parts, "rules") + views.try_line(views.TRY_RULES)
    return _report_view(parts, [views.html_widget_raw(html)])


def view_for(report: Any) -> Any:
    """The widget view of a report (what the magic displays, and IPython's display of a
    report value)."""
    views_of = (jaxpr_view, grad_view, vmap_view, jit_view, rules_view)  # REPORT_TYPES order
    return dict(zip(sections.REPORT_TYPES, views_of, strict=True))[type(report)](report)
