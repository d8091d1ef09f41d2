"""didax.widgets.views: each view's bundle is a widget with text/plain (its model's text) and
text/html fallbacks; the buttons and boxes act through the kernel side (clicked here)."""

from __future__ import annotations

import re
from html import unescape
from types import SimpleNamespace

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import widgets
from didax.display import compiled, markup, provenance
from didax.magics import report_views, reports, timing
from didax.widgets import views
from IPython.core.formatters import DisplayFormatter

X = jnp.array([0.5, 1.0, 2.0])
WIDGET = "application/vnd.jupyter.widget-view+json"


def f(x):
    return didax.lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x) * 3.0


@pytest.fixture
def shell(monkeypatch):
    """A display formatter with didax's printers, whose displays are recorded in `.shown`."""
    ip = SimpleNamespace(display_formatter=DisplayFormatter(), shown=[])  # what install uses
    monkeypatch.setattr(views, "display", lambda bundle, raw: ip.shown.append(bundle))
    widgets.install_display(ip)
    yield ip
    widgets.uninstall_display(ip)


def test_closed_jaxpr_renders_as_a_jaxpr_view(shell):
    closed = didax.make_jaxpr(f)(X)
    # displayed as its view's outputs (the widget, then its stand-in), not as Out[]'s bundle
    assert shell.display_formatter.format(closed) == ({}, {})
    bundle, standin = shell.shown
    assert set(bundle) == {"text/plain", "text/html", WIDGET}
    assert bundle["text/plain"] == str(closed)
    assert "dx-primitive" in bundle["text/html"]
    assert standin == {"text/html": markup.standin(bundle["text/html"])}
    # the view is registered from above, with IPython's formatter: the IR has no display code
    assert not hasattr(closed, "_repr_mimebundle_")
    assert not hasattr(closed, "_ipython_display_")
    widgets.uninstall_display(shell)
    assert set(shell.display_formatter.format(closed)[0]) == {"text/plain"}


def test_attached_view_is_shown_once(shell):
    closed = didax.make_jaxpr(f)(X)
    report = views.ReportView([], text="report text")
    views.attach_view(closed, report)
    shell.display_formatter.format(closed)
    shell.display_formatter.format(closed)
    # the report (no widget in it: no stand-in), then the jaxpr's own view and its stand-in
    assert [b.get("text/plain") for b in shell.shown] == ["report text", str(closed), None]


def _text(html: str) -> str:
    """What a browser shows of HTML: no styles, no tags, entities decoded, spaces collapsed."""
    html = re.sub(r"<style>.*?</style>", "", html, flags=re.DOTALL)
    return " ".join(unescape(re.sub(r"<[^>]*>", "", html)).split())


def _program_lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def test_widget_views_carry_their_program_as_html_and_in_a_standin():
    """Each widget view's bundle holds the widget and a text/html with the program's text
    (escaped), and its stand-in output the same HTML: what JupyterLab shows when the widget's
    model is gone (tests/browser/test_widget_copies_in_lab.py)."""

    def evil(x):
        return jnp.sin(x) * 3.0

    evil.__name__ = "<b>evil</b>"
    g = didax.jit(evil)
    closed = didax.make_jaxpr(lambda x: g(x))(X)  # prints `name=<b>evil</b>`
    jaxpr_report = reports.jaxpr_report(g, (X,))
    jit_report = timing.jit_report(g, (X,), number=1, repeat=1)
    stablehlo = [line.split(" loc(")[0] for line in jit_report.stablehlo.splitlines()]
    cases = [  # (the displayed view, the program text it must show)
        (views.jaxpr_view(closed), str(closed)),  # a displayed ClosedJaxpr
        (report_views.jaxpr_view(jaxpr_report), str(jaxpr_report.jaxpr)),  # %jaxpr
        (report_views.jit_view(jit_report), "\n".join(s for s in stablehlo if "stablehlo." in s)),
    ]
    for view, program in cases:
        bundle, standin = views.display_outputs(view)
        assert set(bundle) == {"text/plain", "text/html", WIDGET}
        assert standin == {"text/html": markup.standin(bundle["text/html"])}
        shown = _text(bundle["text/html"])
        missing = [line for line in _program_lines(program) if line not in shown]
        assert not missing, missing
        assert "<b>evil</b>" not in bundle["text/html"] and "tensor<" not in bundle["text/html"]
    assert "&lt;b&gt;evil&lt;/b&gt;" in views.display_outputs(cases[0][0])[0]["text/html"]


def test_jaxpr_view_folds_draws_its_graph_and_steps():
    closed = didax.make_jaxpr(f)(X)
    v = widgets.JaxprView(closed, args=(X,))
    assert v.text() == str(closed) and repr(v) == str(closed)
    assert v.code.value.count(" open>") == len(v.jaxpr_model.folds) > 0
    v.fold_all(True)
    assert " open>" not in v.code.value
    assert v.graph_panel.graph is None  # drawn when the Graph tab is first shown
    v.tabs.selected_index = 1
    assert "<svg" in v.graph_panel.drawing.value and "dx-node-eqn" in v.graph_panel.drawing.value
    v.graph_panel.zoom.value = 2.0
    assert 'class="dx-graph" width=' in v.graph_panel.drawing.value
    stepper = v.open_stepper()
    assert v.stepper_box.children == (stepper,)


def test_stepper_buttons_step_back_run_and_reset():
    closed = didax.make_jaxpr(f)(X)
    s = widgets.Stepper(closed, X)
    b = s.buttons
    assert b["previous"].disabled and "step 0" in s.status()
    b["next"].click()
    assert s.state.steps == 1 and "dx-current" in s.body.value
    b["next"].click()
    b["previous"].click()
    assert s.state.steps == 1
    b["run"].click()
    assert s.state.done and b["next"].disabled
    np.testing.assert_allclose(np.asarray(s.state.outputs[0]), np.asarray(f(X)), rtol=1e-6)
    assert "output 0" in s.text()
    b["reset"].click()
    assert s.state.steps == 0 and not s.state.done
    assert WIDGET in s._repr_mimebundle_()


def test_compiled_view_searches_and_shows_metadata_on_request():
    lowered = didax.jit(f).lower(X)
    compiled = lowered.compile()
    v = widgets.CompiledView(lowered.as_text(), compiled.as_text(), compiled.cost_analysis())
    assert "stablehlo" in v.code_views[0].value
    v.search.value = "sine"
    assert "lines contain" in v.code_views[0].value
    bundle = v._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html", WIDGET}
    assert bundle["text/plain"].startswith("StableHLO\n")
    with_meta = widgets.CompiledView("x", 'a, metadata={op_name="f"}')
    assert "metadata" not in with_meta.code_views[1].value
    with_meta.metadata.value = True
    assert "metadata" in with_meta.code_views[1].value


def test_compiled_view_per_equation_cost_slot():
    rows = provenance.compiled_cost_table(lambda x: jnp.sin(x) * 2.0, X).rows
    v = widgets.CompiledView("x", "y", None, eqn_costs=rows)
    html = v.tabs.children[3].value
    assert ">sin<" in html and "fusion" in html and "test_views.py:" in html


def test_transform_view_columns_and_marks():
    closed = didax.make_jaxpr(f)(X)
    lin = didax.make_jaxpr(jnp.cos)(X)
    stages = [widgets.Stage("f", closed, marks="numbers"), widgets.Stage("linearized", lin)]
    v = widgets.TransformView(stages, title="grad of f(x)")
    assert v.text().startswith("grad of f(x)\nf\n")
    assert v.text().endswith(f"linearized\n{lin}")  # no marks asked for: none shown
    assert "# eqn 3/branch 1/eqn 0" in v.text()  # f's equations numbered, nested ones too
    html = v.fallback_html()
    assert '<span class="dx-mark dx-unchanged">  eqn 3/branch 1/eqn 0</span>' in html


def test_timing_view_text_and_bars():
    t = compiled.TimingModel(
        "jit of f(x)",
        (compiled.Phase("compile", 0.03),),
        (1e-5, 2e-5),
        (4e-4,),
        10,
        10,
        40.0,
        budget=4.0,
        text="jit of f(x)\n  speed-up 40.0x",
    )
    v = widgets.TimingView(t)
    assert v._repr_mimebundle_()["text/plain"] == t.text
    html = v.fallback_html()
    assert html.count("dx-bar-compiled") >= 3 and "speed-up 40.0x" in html
    assert "one Python call per operation" in html
    assert "15 µs ± 5 µs per call (min 10 µs, max 20 µs, 2 runs)" in html
    assert "compiled: 2 runs of 10 calls; eager: 1 run of 10 calls (time budget 4 s)" in html


def _html_of(widget) -> str:
    if hasattr(widget, "children"):
        return "".join(_html_of(c) for c in widget.children)
    return getattr(widget, "value", "") if isinstance(getattr(widget, "value", ""), str) else ""


def test_each_view_has_a_try_it_line_naming_its_interactions():
    closed = didax.make_jaxpr(f)(X)
    jv = widgets.JaxprView(closed, args=(X,))
    live = _html_of(jv)
    assert "try it: click a variable to light up its binding and uses" in live
    assert "fold all / unfold all" in live and "step through" in live
    # the stored HTML names only what works without a kernel
    stored = jv.fallback_html()
    assert "try it: click a variable" in stored and "fold all" not in stored
    cv = widgets.CompiledView("x", "y", None)
    assert "try it: find searches both compiler texts" in _html_of(cv)
    tv = widgets.TransformView([widgets.Stage("f", closed)])
    assert "the marks name the equation" in _html_of(tv) and "try it" in tv.fallback_html()
    assert "try it: next / previous" in _html_of(widgets.Stepper(closed, X))


def test_a_view_needing_no_kernel_is_shown_as_its_html_alone():
    # reopened without its model (no kernel, widget state not saved) JupyterLab would show
    # "Error displaying widget: model not found" for the widget, never the text/html beside it
    closed = didax.make_jaxpr(f)(X)
    transform = widgets.TransformView([widgets.Stage("f", closed, marks="numbers")])
    assert set(transform._repr_mimebundle_()) == {"text/plain", "text/html"}
    report = views.ReportView([views.html_widget("x"), transform], text="t")
    assert set(report._repr_mimebundle_()) == {"text/plain", "text/html"}
    # a view with buttons, tabs or text boxes needs the kernel: the widget, and both fallbacks
    assert set(widgets.JaxprView(closed)._repr_mimebundle_()) == {"text/plain", "text/html", WIDGET}
    live = views.ReportView([transform, widgets.JaxprView(closed)], text="t")
    assert set(live._repr_mimebundle_()) == {"text/plain", "text/html", WIDGET}
