"""The stored `text/html` of a view survives JupyterLab's sanitizer (an untrusted notebook):
colours, hidden radios, tables without zebra rows come from `style` attributes with literal
values, not from `<style>` or `var()`, which the sanitizer drops (display/theme.py says why)."""

from __future__ import annotations

import re

import didax
import didax.numpy as jnp
import pytest
from didax.display import theme
from didax.magics import reports
from didax.magics.report_views import grad_view, rules_markup
from didax.widgets import JaxprView

X = jnp.array([0.5, 1.0, 2.0])


def f(x):
    return jnp.sum(jnp.sin(x) * x)


_LITERAL = re.compile(
    r"^(#[0-9a-f]+|[a-z-]+|[0-9.]+(px|em|%)?( [0-9.]+(px|em|%)?)*|1px solid #[0-9a-f]+)$"
)


def sanitized(markup: str) -> str:
    """What JupyterLab's sanitizer leaves of markup, as far as styles go: no `<style>` blocks,
    and in `style` attributes only the declarations with literal values."""
    markup = re.sub(r"<style>.*?</style>", "", markup, flags=re.DOTALL)

    def keep(m: re.Match[str]) -> str:
        decls = [d for d in m.group(1).split(";") if d and "var(" not in d]
        return f' style="{";".join(decls)}"'

    return re.sub(r' style="([^"]*)"', keep, markup)


def styles_of(markup: str, cls: str) -> list[dict[str, str]]:
    """The effective declarations (last one wins) of each element with class `cls`."""
    out = []
    for m in re.finditer(r"<[a-z]+\s[^>]*>", markup):
        tag = m.group(0)
        classes = re.search(r'class="([^"]*)"', tag)
        if not classes or cls not in classes.group(1).split():
            continue
        style = re.search(r'style="([^"]*)"', tag)
        decls = [d.split(":", 1) for d in (style.group(1).split(";") if style else []) if d]
        out.append({k.strip(): v.strip() for k, v in decls})
    return out


@pytest.mark.parametrize("kind", sorted(theme.STORED))
def test_stored_colours_keep_contrast_on_light_and_dark_output(kind):
    for bg in theme.OUTPUT_BACKGROUNDS:
        assert theme.contrast(theme.STORED[kind], bg) >= 4.3, (kind, bg)


def test_stored_jaxpr_view_keeps_colours_and_layout_once_sanitized():
    view = JaxprView(didax.make_jaxpr(f)(X))
    stored = sanitized(view._repr_mimebundle_()["text/html"])
    assert "<style>" not in stored
    prims = styles_of(stored, "dx-primitive")
    assert prims and all(s.get("color") == theme.STORED["primitive"] for s in prims)
    assert all(s.get("font-weight") == "bold" for s in prims)
    types = styles_of(stored, "dx-type")
    assert types and all(s.get("color") == theme.STORED["type"] for s in types)
    radios = styles_of(stored, "dx-pick")
    assert radios and all(s.get("display") == "none" for s in radios)
    code = styles_of(stored, "dx-code")
    assert code and all(s.get("white-space") == "pre" for s in code)
    rows = re.findall(r"<tr[^>]*>", stored)
    assert rows and all("background-color:transparent" in r for r in rows)
    for m in re.finditer(r' style="([^"]*)"', stored):  # what is left is literal
        for d in filter(None, m.group(1).split(";")):
            assert _LITERAL.match(d.split(":", 1)[1].strip()), d


def test_stored_marks_keep_their_colours_once_sanitized():
    report = reports.grad_report(f, (X,), argnums=(0,), programs=True)
    stored = sanitized(grad_view(report)._repr_mimebundle_()["text/html"])
    new = styles_of(stored, "dx-new")
    assert new and all(s.get("color") == theme.STORED["new"] for s in new)
    marks = styles_of(stored, "dx-mark")
    assert marks and all(s.get("font-style") == "italic" for s in marks)


def test_trusted_stored_view_takes_the_theme_colour_last():
    # trusted, the <style> stays and the var() declaration comes after the literal: it wins
    html = JaxprView(didax.make_jaxpr(f)(X))._repr_mimebundle_()["text/html"]
    assert "<style>" in html
    assert f"color:{theme.STORED['primitive']};color:var(--dx-primitive)" in html


def test_stored_drawings_have_an_img_copy_for_where_svg_is_removed():
    import base64

    report = reports.grad_report(f, (X,), argnums=(0,), programs=True)
    html = grad_view(report)._repr_mimebundle_()["text/html"]
    wrapped = re.findall(
        r'<div class="dx-svg-live" style="display:none">(<svg.*?</svg>)</div>'
        r'<img class="dx-svg-copy" alt="" src="data:image/svg\+xml;base64,'
        r'([^"]+)">',
        html,
        flags=re.DOTALL,
    )
    assert wrapped  # f's graph
    for svg, data in wrapped:
        assert base64.b64decode(data).decode() == theme.standalone_svg(svg, themed=True)
    # trusted: the stylesheet shows the drawing over its inline display:none, hides the copy
    assert ".dx-view .dx-svg-live { display: contents !important; }" in theme.CSS
    assert ".dx-view img.dx-svg-copy { display: none; }" in theme.CSS


def test_stored_rules_of_primitives_are_folds_once_sanitized():
    # untrusted, no stylesheet shows a primitive's rules on a click: each is a <details> to
    # open by hand, none hidden by a style; the blocks' close buttons (radios) are hidden
    view = JaxprView(didax.make_jaxpr(f)(X), rules=rules_markup)
    stored = sanitized(view._repr_mimebundle_()["text/html"])
    folds = re.findall(r"<details class=\"dx-rules-of[^>]*>\s*<summary[^>]*>([^<]*)<", stored)
    assert folds == ["the rules of sin", "the rules of mul", "the rules of reduce_sum"]
    assert all("display" not in s for s in styles_of(stored, "dx-rules-of"))
    closes = styles_of(stored, "dx-close")
    assert len(closes) == 3 and all(s.get("display") == "none" for s in closes)
    # trusted, the stylesheet shows the close button over its inline display:none
    assert ".dx-view .dx-close { display: inline !important;" in theme.CSS
