"""didax.figures draws the course's diagrams and loss curves in the theme's colours: text on a
box and beside it keeps a contrast of at least 4.5:1, and a curve of 3:1, in JupyterLab's
light and dark themes (their colours as the installed themes set them)."""

from __future__ import annotations

import re

import pytest
from didax import figures

# (background --jp-layout-color0, text --jp-content-font-color1 as RGBA), per theme
THEMES = {
    "light": ((255, 255, 255), (0, 0, 0, 0.87)),
    "dark": ((17, 17, 17), (255, 255, 255, 1.0)),
}


def rgb(hex_colour: str) -> tuple[float, ...]:
    return tuple(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))


def over(colour: tuple[float, ...], alpha: float, background: tuple[float, ...]) -> tuple:
    return tuple(alpha * c + (1 - alpha) * b for c, b in zip(colour, background, strict=True))


def luminance(colour: tuple[float, ...]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = map(channel, colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("tone", figures.TONES)
def test_text_on_a_box_reads_in_both_themes(theme: str, tone: str) -> None:
    background, (*fg, alpha) = THEMES[theme]
    text = over(tuple(fg), alpha, background)
    fill = over(rgb(figures.TONES[tone]), figures.TONE_OPACITY, background)
    assert contrast(text, fill) >= 4.5, (theme, tone, contrast(text, fill))
    assert contrast(text, background) >= 4.5


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("colour", figures.CURVE_COLOURS)
def test_a_curve_reads_in_both_themes(theme: str, colour: str) -> None:
    background, _ = THEMES[theme]
    assert contrast(rgb(colour), background) >= 3.0, (theme, colour)


def test_a_diagram_uses_the_theme_colour_and_escapes_its_text() -> None:
    fig = figures.diagram(
        300,
        100,
        figures.box(10, 10, 120, 30, "<script>x</script>", "amber"),
        figures.arrow(130, 25, 160, 25),
        figures.label(10, 90, "forward →"),
        caption="a <test>",
    )
    svg = fig._repr_html_()
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    texts = re.findall(r"<text [^>]*>", svg)
    assert len(texts) == 2 and all('fill="currentColor"' in t for t in texts)
    # no colour of its own but the tints: lines and arrowheads are the page's text colour
    colours = set(re.findall(r'(?:fill|stroke)="(#\w+)"', svg))
    assert colours == {figures.TONES["amber"]}, colours
    assert 'stroke="currentColor"' in svg and "var(--jp-content-font-color1" in svg
    (marker,) = re.findall(r'marker id="(dx-head-\w+)"', svg)
    assert f"url(#{marker})" in svg  # each figure's arrowhead has its own id
    assert repr(fig) == "[figure: a <test>]"
    with pytest.raises(ValueError, match="box tone must be one of"):
        figures.box(0, 0, 1, 1, "x", "#333")


def test_a_loss_curve_has_axes_ticks_and_a_legend() -> None:
    one = figures.loss_curve({"sgd": [0.4, 0.2, 0.1, 0.05]})._repr_html_()
    assert one.count("<polyline") == 1 and ">step</text>" in one and "loss (log scale)" in one
    ticks = re.findall(r'text-anchor="end" fill="currentColor">([\d.e+-]+)</text>', one)
    assert ticks == ["0.0316", "0.1", "0.316", "1"], ticks  # half decades around 0.05 .. 0.4
    steps = re.findall(r'text-anchor="middle" fill="currentColor">(\d+)</text>', one)
    assert steps == ["0", "1", "2", "3"], steps
    two = figures.loss_curve({"lr = 0.02": [0.4, 0.1], "lr = 0.1": [0.4, 5.7, 0.2]})
    svg = two._repr_html_()
    assert svg.count("<polyline") == 2 and "lr = 0.02" in svg and "lr = 0.1" in svg
    assert repr(two) == "[figure: loss curves: lr = 0.02, lr = 0.1]"
    with pytest.raises(ValueError, match="1 to 2 curves"):
        figures.loss_curve({})
