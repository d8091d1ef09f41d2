"""`%rules sin`: didax's own code for a primitive's rules, each with a link to its file
(the engine is the textbook)."""

from __future__ import annotations

from pathlib import Path

import pytest
from didax.magics import reports
from IPython.core.error import UsageError


def test_rules_report_shows_each_rule_and_the_math_it_was_made_with():
    r = reports.rules_report("sin")
    tables = [rule.table for rule in r.rules]
    assert tables == ["impl", "abstract eval", "jvp", "batching (vmap)", "lowering"]
    assert r.missing == ("transpose",)  # sin is not linear
    jvp = r.rules[2]
    # sin's jvp is made by the elementwise factory `partials_jvp` from the derivative's lambda
    assert jvp.file.endswith("elementwise/arithmetic.py") and "def rule(" in jvp.code
    assert "mul(t, cos(x))" in jvp.code  # the derivative, from the line that registered it
    assert "# made with: numpy.sin" in r.rules[0].code
    assert jvp.link.endswith("primitives/elementwise/arithmetic.py")


def test_rules_magic_displays_the_code_with_links(run):
    ran = run("%rules sin")
    assert ran.error is None and ran.result is None
    plain = ran.plain()
    assert plain.startswith("the rules of sin\nno transpose rule\nimpl rule:")
    assert "jvp rule: partials_jvp.<locals>.rule\n" in plain and "mul(t, cos(x))" in plain
    html = ran.html()
    assert '<a class="dx-link" href="' in html and "elementwise/arithmetic.py:" in html
    assert "mul(t, cos(x))" in html


def test_rules_of_a_linear_primitive_include_its_transpose():
    r = reports.rules_report("add")
    assert "transpose" in [rule.table for rule in r.rules] and not r.missing


def test_rules_of_an_unknown_primitive(run):
    with pytest.raises(ValueError, match="no primitive named 'sine'; did you mean"):
        reports.rules_report("sine")
    ran = run("%rules sine")
    assert isinstance(ran.error, UsageError) and "no primitive named 'sine'" in str(ran.error)
    ran = run("%rules")
    assert isinstance(ran.error, UsageError) and "%rules sin" in str(ran.error)


def test_rule_links_go_through_didax_source_under_the_notebook_server_root():
    # `jupyter lab demo_notebooks/`: ../core/... is outside the server's root and does not open;
    # demo_notebooks/didax_source links to the package, so the link goes through it
    demos = Path(__file__).parents[2] / "demo_notebooks"
    file = reports.rules_report("sin").rules[2].file
    link = reports.source_link(file, str(demos))
    assert link == "didax_source/primitives/elementwise/arithmetic.py"
    assert (demos / link).resolve() == Path(file).resolve()
    # a notebook in a folder below (solutions/): the link above it, still inside the root
    sub = reports.source_link(file, str(demos / "solutions"))
    assert sub == "../didax_source/primitives/elementwise/arithmetic.py"


def test_rule_links_without_didax_source_are_relative_paths(tmp_path):
    file = reports.rules_report("sin").rules[2].file
    link = reports.source_link(file, str(tmp_path))
    assert (tmp_path / link).resolve() == Path(file).resolve()


def test_jaxpr_view_picks_a_primitive_and_shows_its_rules():
    import didax.numpy as jnp
    from didax import lax
    from didax.magics import report_views
    from didax.widgets import views

    def g(x):
        return lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x * 2.0)

    report = reports.jaxpr_report(g, (jnp.ones(3),), call="g(x)")
    view = report_views.jaxpr_view(report)
    (picker,) = [w for w in _walk(view) if isinstance(w, views.Picker)]
    names = [value for _, value in picker.pick.options]
    assert {"sin", "cos", "cond", "mul"} <= set(names)  # nested primitives included
    assert picker.shown.value == ""
    picker.pick.value = "sin"
    assert "the rules of sin" in picker.shown.value and "mul(t, cos(x))" in picker.shown.value
    picker.pick.value = ""
    assert picker.shown.value == ""


def _walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk(child)
