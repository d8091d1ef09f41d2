"""didax.figures draws the course's diagrams and loss curves as self-contained cards: ink on
paper and on each box tint at least 4.5:1 in contrast, curves at least 3:1, so that they read
in JupyterLab's light and dark themes alike; and as an `<img>` whose SVG is a data URI, which
JupyterLab's sanitizer keeps in a notebook the reader has not run (tests/browser checks it)."""

from __future__ import annotations

import base64
import re

import pytest
from didax import figures


def rgb(hex_colour: str) -> tuple[int, ...]:
    return tuple(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))


def luminance(colour: tuple[int, ...]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = map(channel, colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(rgb(a)), luminance(rgb(b))), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("background", [figures.PAPER, *figures.TONES.values()])
def test_ink_reads_on_the_paper_and_on_every_tint(background: str) -> None:
    assert contrast(figures.INK, background) >= 4.5, background


@pytest.mark.parametrize("colour", figures.CURVE_COLOURS)
def test_a_curve_reads_on_the_paper(colour: str) -> None:
    assert contrast(colour, figures.PAPER) >= 3.0, colour


def svg_of(fig: figures.Figure) -> str:
    (data,) = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', fig._repr_html_())
    return base64.b64decode(data).decode()


def test_a_diagram_is_a_card_in_an_image_and_escapes_its_text() -> None:
    fig = figures.diagram(
        300,
        100,
        figures.box(10, 10, 120, 30, "<script>x</script>", "amber"),
        figures.arrow(130, 25, 160, 25),
        figures.label(10, 90, "forward →"),
        caption="a <test>",
    )
    html = fig._repr_html_()
    assert html.startswith("<img ") and 'alt="a &lt;test&gt;"' in html
    svg = svg_of(fig)
    assert svg == fig.svg() and "<script>" not in svg and "&lt;script&gt;" in svg
    assert f'fill="{figures.PAPER}"' in svg  # its own background
    texts = re.findall(r"<text [^>]*>", svg)
    assert len(texts) == 2 and all(f'fill="{figures.INK}"' in t for t in texts)
    colours = set(re.findall(r'(?:fill|stroke)="(#\w+)"', svg))
    assert colours == {figures.INK, figures.PAPER, figures.EDGE, figures.TONES["amber"]}
    (marker,) = re.findall(r'marker id="(dx-head-\w+)"', svg)
    assert f"url(#{marker})" in svg
    assert repr(fig) == "[figure: a <test>]"
    with pytest.raises(ValueError, match="box tone must be one of"):
        figures.box(0, 0, 1, 1, "x", "#333")


def test_a_loss_curve_has_axes_ticks_and_a_legend() -> None:
    one = svg_of(figures.loss_curve({"sgd": [0.4, 0.2, 0.1, 0.05]}))
    assert one.count("<polyline") == 1 and ">step</text>" in one and "loss (log scale)" in one
    ticks = re.findall(r'text-anchor="end" fill="#\w+">([\d.e+-]+)</text>', one)
    assert ticks == ["0.0316", "0.1", "0.316", "1"], ticks  # half decades around 0.05 .. 0.4
    steps = re.findall(r'text-anchor="middle" fill="#\w+">(\d+)</text>', one)
    assert steps == ["0", "1", "2", "3"], steps
    two = figures.loss_curve({"lr = 0.02": [0.4, 0.1], "lr = 0.1": [0.4, 5.7, 0.2]})
    svg = svg_of(two)
    assert svg.count("<polyline") == 2 and "lr = 0.02" in svg and "lr = 0.1" in svg
    assert repr(two) == "[figure: loss curves: lr = 0.02, lr = 0.1]"
    with pytest.raises(ValueError, match="1 to 2 curves"):
        figures.loss_curve({})
