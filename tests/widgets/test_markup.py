"""didax.display.markup: every user string is escaped (hostile names, reprs, compiler text),
tokens are coloured by kind, variables are clickable labels, folds are <details>, hover
titles carry source lines and parameter help, and the palette keeps 4.5:1 contrast."""

from __future__ import annotations

import html
import re
from dataclasses import replace

import didax
import didax.numpy as jnp
import pytest
from didax.display import compiled, graph, parts, program, provenance
from didax.display import markup as mk
from didax.widgets import layout

X = jnp.array([0.5, 1.0, 2.0])
EVIL = "<img src=x onerror=alert(1)>"


def evil_fn(x):
    return jnp.sin(x) * 3.0


evil_fn.__name__ = EVIL


def no_raw_tags(markup: str) -> None:
    assert "<img" not in markup and "<script" not in markup
    assert "onerror=alert" not in markup.replace("onerror=alert(1)&gt;", "")


def test_hostile_function_name_is_escaped_in_the_jaxpr_markup():
    closed = didax.make_jaxpr(lambda x: didax.jit(evil_fn)(x))(X)
    assert EVIL in str(closed)  # the name is in the jaxpr's text...
    model = program.jaxpr_model(closed, inputs=[parts.Row(EVIL, EVIL)])
    out = mk.jaxpr_html(model)
    no_raw_tags(out)
    assert html.escape(EVIL, quote=True) in out  # ...and shows as that text


def test_hostile_strings_everywhere_are_escaped():
    closed = didax.make_jaxpr(lambda x: didax.jit(evil_fn)(x))(X)
    g = graph.graph_model(closed)
    no_raw_tags(mk.graph_svg(g, layout.layout_graph(g)))
    no_raw_tags(mk.hlo_code(compiled.hlo_model(f"HloModule {EVIL}\n  %x = f32[] constant({EVIL})")))
    no_raw_tags(mk.cost_html(compiled.cost_model({EVIL: 1.0, "flops": 2.0})))
    timing = compiled.TimingModel(
        EVIL, (compiled.Phase(EVIL, 1e-3, EVIL),), (1e-3,), (2e-3,), 1, 1, 2.0, (EVIL,)
    )
    no_raw_tags(mk.timing_html(timing))
    ref = provenance.EqnRef((0,), EVIL, EVIL, None, (), ())
    no_raw_tags(mk.eqn_cost_html([provenance.EqnCost(ref, 1, 0, 2, (EVIL,), (EVIL,), (EVIL,))]))
    model = program.jaxpr_model(closed)
    no_raw_tags(mk.stepper_html(model, "u1", 1, EVIL, [(EVIL, EVIL, EVIL)], EVIL))
    marked = replace(model, eqns=tuple(replace(e, mark=EVIL, status=EVIL) for e in model.eqns))
    no_raw_tags(mk.jaxpr_code(marked))


def test_tokens_are_coloured_by_kind_and_text_survives():
    closed = didax.make_jaxpr(lambda x: jnp.sin(x) * 3.0)(X)
    out = mk.jaxpr_code(program.jaxpr_model(closed), "u7")
    assert '<span class="dx-primitive"' in out and ">sin</span>" in out
    assert '<span class="dx-literal">3.0:f32[]</span>' in out
    text = html.unescape(re.sub(r"<style>.*?</style>|<[^>]+>", "", out, flags=re.DOTALL))
    assert text.replace("\n", "") == str(closed).replace("\n", "")


def test_variables_are_labels_of_one_radio_group_with_highlight_rules():
    model = program.jaxpr_model(didax.make_jaxpr(lambda x: jnp.sin(x) * 3.0)(X))
    out = mk.jaxpr_code(model, "u9")
    b = model.var_names.index("b")
    assert f'<label for="u9-v{b}" class="dx-var dx-v{b} dx-bind">b</label>' in out
    assert f'<label for="u9-v{b}" class="dx-var dx-v{b}">b</label>' in out
    assert out.count('type="radio"') == len(model.var_names)
    assert f"#u9-v{b}:checked ~ .dx-code .dx-v{b}" in out


def test_multiline_equations_fold_as_details():
    def f(x):
        return didax.lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x)

    model = program.jaxpr_model(didax.make_jaxpr(f)(X))
    out = mk.jaxpr_code(model, "u3")
    assert out.count("<details") == out.count("</details>") == len(model.folds) > 0
    closed_fold = mk.jaxpr_code(model, "u3", folded=[model.folds[0].start])
    assert closed_fold.count(" open>") == len(model.folds) - 1


def test_hover_titles_for_parameters_and_source_lines():
    from test_model import simple, with_source  # noqa: PLC0415 - a sibling test module

    def f(x):
        return jnp.sum(x, axis=0)

    out = mk.jaxpr_code(program.jaxpr_model(didax.make_jaxpr(f)(X)), "u4")
    assert 'title="how the output is laid out across devices' in out  # out_sharding
    closed = with_source(didax.make_jaxpr(simple)(X))
    out = mk.jaxpr_code(program.jaxpr_model(closed), "u5")
    assert 'title="model.py:10 in simple\n    line 0 &lt;b&gt;"' in out


@pytest.mark.parametrize("kind", sorted(mk.PALETTE))
def test_palette_contrast_on_light_and_dark(kind):
    light, dark = mk.PALETTE[kind]
    for bg in mk.BACKGROUNDS["light"]:
        assert mk.contrast(light, bg) >= 4.5, (kind, light, bg)
    for bg in mk.BACKGROUNDS["dark"]:
        assert mk.contrast(dark, bg) >= 4.5, (kind, dark, bg)


def test_css_uses_theme_variables_and_scrolls_long_lines():
    assert "--jp-content-font-color1" in mk.CSS and "--jp-code-font-family" in mk.CSS
    assert 'body[data-jp-theme-light="false"]' in mk.CSS
    assert re.search(r"\.dx-code \{ white-space: pre; overflow-x: auto;", mk.CSS)


def test_hlo_metadata_hidden_unless_asked_and_search():
    hm = compiled.hlo_model('%a = f32[] sine(%p), metadata={op_name="x"}\n%b = f32[] cosine(%a)')
    assert "metadata" not in mk.hlo_code(hm)
    assert "metadata" in mk.hlo_code(hm, metadata=True)
    found = mk.hlo_code(hm, query="COSINE")
    assert "1 of 2 lines" in found and "sine(" not in found.replace("cosine(", "")


def test_graph_edges_keep_three_to_one_contrast_in_both_themes():
    # edges and arrow heads are drawn in the palette's type colour, not JupyterLab's border
    # colour (1.9:1 on Light): the issue asks for >= 3:1
    assert "path.dx-edge { fill: none; stroke: var(--dx-type); }" in mk.CSS
    assert "svg.dx-graph { color: var(--dx-type); }" in mk.CSS
    light, dark = mk.PALETTE["type"]
    for bg in mk.BACKGROUNDS["light"]:
        assert mk.contrast(light, bg) >= 3.0, bg
    for bg in mk.BACKGROUNDS["dark"]:
        assert mk.contrast(dark, bg) >= 3.0, bg
