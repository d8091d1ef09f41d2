"""`%rules sin`: didax's own code for a primitive's rules, each with a link to its file
(the engine is the textbook)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import core, lax
from didax.display import program, theme
from didax.jaxpr import ClosedJaxpr, Jaxpr
from didax.magics import report_views, reports
from didax.widgets import views
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


def _blocks(html):
    """The rules blocks of a view's markup: {primitive: (number, block markup)}, and the
    primitive each label shows the block of: [(primitive, number)]."""
    blocks = {
        m.group(2): (int(m.group(1)), m.group(0))
        for m in re.finditer(
            r'<details class="dx-rules-of dx-rp(\d+)"[^>]*><summary[^>]*>the rules of ([^<]*)'
            r"</summary>.*?</details>",
            html,
            flags=re.DOTALL,
        )
    }
    labels = re.findall(r'<label for="dx\w+-p(\d+)" class="dx-primitive[^>]*>([^<]*)</label>', html)
    return blocks, [(name, int(k)) for k, name in labels]


def g(x):
    for _ in range(5):
        x = jnp.sin(x) * 2.0
    return lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x)


def test_a_jaxpr_view_shows_a_primitives_rules_on_a_click_on_its_name():
    report = reports.jaxpr_report(g, (jnp.ones(3),), call="g(x)")
    view = report_views.jaxpr_view(report)
    (jv,) = [w for w in _walk(view) if isinstance(w, views.JaxprView)]
    live = jv.code.value
    blocks, labels = _blocks(live)
    names = list(program.primitives_in(report.jaxpr))
    assert {"sin", "cos", "cond", "mul"} <= set(names)  # nested primitives included
    assert list(blocks) == names  # each primitive's rules once, in printed order
    assert [n for n, _ in labels].count("sin") == 6  # every sin is a label (cond's too) ...
    assert {blocks[name][0] for name, _ in labels if name == "sin"} == {blocks["sin"][0]}
    assert all(blocks[name][0] == k for name, k in labels)  # ... of its own rules block
    k, sin = blocks["sin"]
    assert "mul(t, cos(x))" in sin and "jvp rule: partials_jvp.&lt;locals&gt;.rule" in sin
    assert sin.count("the rules of sin") == 2  # the summary, then %rules' own heading
    uid = re.search(r'<div id="(\w+)" class="dx-jaxpr">', live).group(1)
    # the click checks the primitive's radio; the view's CSS shows the block of that radio
    assert f'<input type="radio" class="dx-pick" name="{uid}-p" id="{uid}-p{k}">' in live
    assert f"#{uid}-p{k}:checked ~ * .dx-rp{k} {{ display: block; }}" in live
    assert blocks["sin"][1] in live and f'<label for="{uid}-pnone"' in sin  # and a close
    # the stored copy (text/html, no kernel) has the same blocks and labels
    stored = view._repr_mimebundle_()["text/html"]
    stored_blocks, stored_labels = _blocks(stored)
    assert list(stored_blocks) == names and stored_labels == labels
    assert "mul(t, cos(x))" in stored_blocks["sin"][1]
    assert f"#{uid}-p{k}:checked ~ * .dx-rp{k}" in stored
    assert "click a primitive&#x27;s name to read didax&#x27;s code for its rules" in stored


def test_the_stepper_of_a_jaxpr_view_shows_a_primitives_rules_on_a_click_on_its_name():
    x = jnp.ones(3)
    view = report_views.jaxpr_view(reports.jaxpr_report(g, (x,), call="g(x)"), [x])
    (jv,) = [w for w in _walk(view) if isinstance(w, views.JaxprView)]
    stepper = jv.open_stepper()  # the "step through" button
    names = list(program.primitives_in(jv.closed))
    for _ in range(3):  # the rules stay clickable as the stepper steps
        live = stepper.body.value
        blocks, labels = _blocks(live)
        assert list(blocks) == names, names  # each primitive's rules once, in printed order
        assert [n for n, _ in labels].count("sin") == 6  # the cond branch's sin too
        assert all(blocks[name][0] == k for name, k in labels)  # each of its own block
        assert "mul(t, cos(x))" in blocks["sin"][1] and "dx-current" in live
        stepper.buttons["next"].click()
    uid = re.search(r'<div id="(\w+)" class="dx-jaxpr">', live).group(1)
    k = blocks["sin"][0]
    assert f"#{uid}-p{k}:checked ~ * .dx-rp{k} {{ display: block; }}" in live
    stored = stepper._repr_mimebundle_()["text/html"]  # and its stored copy
    assert list(_blocks(stored)[0]) == names
    assert "click a primitive&#x27;s name to read didax&#x27;s code for its rules" in stored


def test_views_made_by_hand_show_the_rules_while_the_extension_is_loaded(ip):
    # as notebooks 02 and 07 make a Stepper: `Stepper(closed, x)`, no `rules=`
    x = jnp.ones(3)
    closed = didax.make_jaxpr(g)(x)
    names = list(program.primitives_in(closed))
    for made in (lambda: views.Stepper(closed, x), lambda: views.JaxprView(closed)):
        assert list(_blocks(made()._repr_mimebundle_()["text/html"])[0]) == names
    ip.run_line_magic("unload_ext", "didax")
    try:
        plain = views.Stepper(closed, x)  # without the extension: no rules
        assert _blocks(plain.body.value) == ({}, [])
        assert "read didax&#x27;s code" not in plain.fallback_html()
    finally:
        ip.run_line_magic("load_ext", "didax")
    assert list(_blocks(views.Stepper(closed, x).body.value)[0]) == names


def test_grad_and_vmap_programs_share_one_rules_block_per_primitive():
    def loss(x):
        return jnp.sum(jnp.sin(x) * x)

    for view in (
        report_views.grad_view(reports.grad_report(loss, (jnp.ones(3),), programs=True)),
        report_views.vmap_view(reports.vmap_report(loss, (jnp.ones((2, 3)),), in_axes=(0,))),
    ):
        (tv,) = [w for w in _walk(view) if isinstance(w, views.TransformView)]
        stored = view._repr_mimebundle_()["text/html"]
        blocks, labels = _blocks(stored)
        names = {e.primitive for m in tv.models for e in m.eqns}
        assert sorted(blocks) == sorted(names)  # once each, over all the columns
        assert all(blocks[name][0] == k for name, k in labels)
        uids = set(re.findall(r'<label for="(\w+)-p\d+" class="dx-primitive', stored))
        assert len(uids) == 1  # every column's names check the one set of radios
        assert "mul(t, cos(x))" in blocks["sin"][1]
        assert tv.row.value in stored or theme.inline_styles(tv.row.value) in stored


def test_a_rule_without_source_is_named_not_fatal(monkeypatch):
    # a view shows the rules of every primitive it prints: a user's rule that inspect cannot
    # read (a partial, a builtin) is named, not an error that breaks %jaxpr
    prim = core.Primitive("my_op")
    monkeypatch.setitem(core.impl_rules._rules, prim, functools.partial(np.add, 1.0))
    (rule,) = reports.primitive_rules(prim).rules
    assert rule.table == "impl" and rule.code.startswith("# no source for functools.partial(")
    assert rule.link == ""
    html = report_views.rules_markup(prim)
    assert "no source for functools.partial(" in html and "dx-link" not in html


def test_a_primitives_rules_in_a_view_are_escaped():
    closed = didax.make_jaxpr(jnp.sin)(jnp.ones(3))
    evil = core.Primitive("<script>alert(1)</script>")  # a user's primitive, with no rules
    eqns = [e._replace(primitive=evil) for e in closed.jaxpr.eqns]
    j = closed.jaxpr
    html = views.JaxprView(
        ClosedJaxpr(Jaxpr(j.constvars, j.invars, j.outvars, eqns), closed.consts),
        rules=report_views.rules_markup,
    ).code.value
    assert "<script" not in html
    blocks, labels = _blocks(html)
    assert list(blocks) == ["&lt;script&gt;alert(1)&lt;/script&gt;"]
    assert "no impl, abstract eval, jvp, transpose, batching (vmap), lowering rule" in html


def test_rules_are_written_once_per_primitive_however_long_the_program():
    def long(x):
        for i in range(2000):
            x = jnp.sin(x) if i % 2 else x * 1.5
        return x

    closed = didax.make_jaxpr(long)(jnp.ones(3))
    plain = views.JaxprView(closed, graph=False)._repr_mimebundle_()["text/html"]
    clickable = views.JaxprView(closed, graph=False, rules=report_views.rules_markup)
    html = clickable._repr_mimebundle_()["text/html"]
    blocks, labels = _blocks(html)
    assert list(blocks) == ["mul", "sin"] and len(labels) == 2000
    rules = sum(len(markup) for _, markup in blocks.values())
    # beyond the two blocks, each equation's name costs a label's few dozen bytes
    assert (len(html) - len(plain) - rules) / 2000 < 80, (len(html), len(plain), rules)


def test_magics_and_displayed_jaxprs_carry_the_rules(run):
    for cell in ("%jaxpr f(x)", "didax.make_jaxpr(f)(x)"):
        ran = run(cell)
        assert ran.error is None, ran.error
        blocks, labels = _blocks(ran.html())
        assert "sin" in blocks and ("sin", blocks["sin"][0]) in labels, cell
        assert "mul(t, cos(x))" in blocks["sin"][1]


def _walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk(child)
