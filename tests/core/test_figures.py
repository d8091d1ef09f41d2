"""didax.figures draws the course's diagrams and loss curves as the views draw theirs: an
inline SVG whose colours are JupyterLab's theme variables with theme.py's palette (text and
ink at least 4.5:1 on both themes' backgrounds and on every box tint, curves in palette
colours), and a copy as an `<img>` (light palette, dark where the page is dark) for where
JupyterLab's sanitizer removes the SVG (a notebook the reader has not run; tests/browser
checks it in Lab)."""

from __future__ import annotations

import base64
import re

import pytest
from didax import figures
from didax.display import theme

THEMES = {"light": 0, "dark": 1}
# JupyterLab's --jp-content-font-color1 (the text colour a trusted figure follows)
LAB_TEXT = {"light": "#000000", "dark": "#ffffff"}


@pytest.mark.parametrize("name", THEMES)
@pytest.mark.parametrize("tone", theme.TINTS)
def test_text_reads_on_every_tint_in_both_themes(name: str, tone: str) -> None:
    which, tint = THEMES[name], theme.TINTS[tone][THEMES[name]]
    for ink in (theme.PALETTE["fg"][which], LAB_TEXT[name]):
        assert theme.contrast(ink, tint) >= 4.5, (name, tone, ink)


@pytest.mark.parametrize("name", THEMES)
def test_ink_and_curves_read_on_both_themes_backgrounds(name: str) -> None:
    which = THEMES[name]
    for background in theme.BACKGROUNDS[name][:2]:  # output area, cell background
        assert theme.contrast(theme.PALETTE["fg"][which], background) >= 4.5, background
        for kind in theme.CURVE_KINDS:
            assert theme.contrast(theme.PALETTE[kind][which], background) >= 4.5, kind


def live_svg(html: str) -> str:
    (svg,) = re.findall(r'<div class="dx-svg-live" style="display:none">(<svg.*?</svg>)', html)
    return svg


def copy_svg(html: str) -> str:
    (data,) = re.findall(
        r'class="dx-svg-copy" alt="[^"]*" src="data:image/svg\+xml;base64,([^"]+)"', html
    )
    return base64.b64decode(data).decode()


def test_a_diagram_is_an_inline_svg_in_theme_colours_with_an_image_copy() -> None:
    fig = figures.diagram(
        300,
        100,
        figures.box(10, 10, 120, 30, "<script>x</script>", "amber"),
        figures.arrow(130, 25, 160, 25),
        figures.label(10, 90, "forward →"),
        caption="a <test>",
    )
    html = fig._repr_html_()
    assert html.startswith("<style>") and '<div class="dx-view dx-figure"' in html
    svg = live_svg(html)
    assert 'class="dx-figure"' in svg and 'aria-label="a &lt;test&gt;"' in svg
    assert "<script>" not in html and "&lt;script&gt;" in svg
    # no literal colour: ink is currentColor (the theme's text colour), tints are classes
    assert re.findall(r'(?:fill|stroke)="#', svg) == []
    assert 'class="dx-tint-amber"' in svg and len(re.findall(r"<text ", svg)) == 2
    (marker,) = re.findall(r'marker id="(dx-head-\w+)"', svg)
    assert f"url(#{marker})" in svg
    # the stylesheet maps each class to a theme variable, set per theme from the palette
    assert ".dx-view svg.dx-figure rect.dx-tint-amber { fill: var(--dx-tint-amber); }" in html
    for which in THEMES.values():
        assert f"--dx-tint-amber: {theme.TINTS['amber'][which]};" in html
    # the copy for untrusted notebooks: alt is the caption, the light palette on white and,
    # where the page is dark (JupyterLab Dark sets color-scheme: dark), the dark palette on
    # Dark's output background
    assert 'alt="a &lt;test&gt;"' in html
    copy = copy_svg(html)
    light, dark = copy.split("@media (prefers-color-scheme: dark)")
    assert (
        f"--dx-tint-amber: {theme.TINTS['amber'][0]};" in light and "background: #ffffff" in light
    )
    assert f"--dx-tint-amber: {theme.TINTS['amber'][1]};" in dark and "background: #111111" in dark
    assert f"--dx-fg: {theme.PALETTE['fg'][1]};" in dark
    assert repr(fig) == "[figure: a <test>]"
    with pytest.raises(ValueError, match="box tone must be one of"):
        figures.box(0, 0, 1, 1, "x", "#333")


def test_a_loss_curve_has_axes_ticks_and_a_legend() -> None:
    one = live_svg(figures.loss_curve({"sgd": [0.4, 0.2, 0.1, 0.05]})._repr_html_())
    assert one.count('class="dx-curve-0"') == 1 and ">step</text>" in one
    assert "loss (log scale)" in one and "rotate(-90)" in one
    ticks = re.findall(r'text-anchor="end">([\d.e+-]+)</text>', one)
    assert ticks == ["0.0316", "0.1", "0.316", "1"], ticks  # half decades around 0.05 .. 0.4
    steps = re.findall(r'text-anchor="middle">(\d+)</text>', one)
    assert steps == ["0", "1", "2", "3"], steps
    two = figures.loss_curve({"lr = 0.02": [0.4, 0.1], "lr = 0.1": [0.4, 5.7, 0.2]})
    svg = live_svg(two._repr_html_())
    assert svg.count('class="dx-curve-1"') == 2 and "lr = 0.02" in svg and "lr = 0.1" in svg
    assert repr(two) == "[figure: loss curves: lr = 0.02, lr = 0.1]"
    with pytest.raises(ValueError, match="1 to 2 curves"):
        figures.loss_curve({})
