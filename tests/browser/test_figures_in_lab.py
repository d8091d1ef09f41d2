"""The course's figures (didax.figures) in a real JupyterLab, in its Dark theme (marker
`browser`): a stored course notebook, opened as a learner opens it (not run, so not trusted:
Lab sanitizes its HTML outputs), shows its diagram: the inline SVG is removed, and its image
copy survives the sanitizer, shows, loads and is drawn on the dark palette (the image's
prefers-color-scheme is the page's color-scheme, which JupyterLab Dark sets to dark)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from didax.display import theme as theme_module
from labpage import cell_output, open_notebook, set_theme

pytestmark = pytest.mark.browser

REVERSE = Path(__file__).parents[2] / "demo_notebooks" / "04_reverse_mode.ipynb"

_SEEN = """img => {
  const canvas = document.createElement('canvas');
  canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);  // the image as the page draws it (its color-scheme applied)
  return {
    loaded: img.complete && img.naturalWidth > 0,
    size: [img.naturalWidth, img.naturalHeight],
    alt: img.alt,
    dark: document.body.dataset.jpThemeLight === 'false',
    corner: Array.from(ctx.getImageData(1, 1, 1, 1).data).slice(0, 3),
    page: getComputedStyle(img.closest('.jp-OutputArea-output')).backgroundColor,
  };
}"""


def test_a_stored_diagram_shows_in_the_dark_theme(lab, lab_page):
    page, nbdir = lab_page, lab[1]
    shutil.copy(REVERSE, nbdir / REVERSE.name)
    cells = [c for c in json.loads(REVERSE.read_text())["cells"] if c["cell_type"] == "code"]
    index = next(i for i, c in enumerate(cells) if "diagram(" in "".join(c["source"]))
    try:
        set_theme(page, "JupyterLab Dark")  # a learner's saved setting, before opening it
        open_notebook(page, REVERSE.name)
        img = cell_output(page, index).locator("img").first
        img.wait_for(state="visible", timeout=90_000)
        page.wait_for_function(
            "() => document.body.dataset.jpThemeLight === 'false'", timeout=30_000
        )
        page.wait_for_function("img => img.complete", arg=img.element_handle(), timeout=10_000)
        seen = page.evaluate(_SEEN, img.element_handle())
        img.screenshot(path=str(Path("test-artifacts") / "figure-dark-theme.png"))
    finally:  # the theme is a saved setting: the tests after expect Light
        set_theme(page, "JupyterLab Light")
    assert seen["dark"] and seen["loaded"], seen
    assert seen["size"] == [620, 150], seen
    assert seen["alt"].startswith("reverse mode: a forward sweep keeps residuals"), seen
    # the copy follows the theme: Dark's output background, not a white card (issue 23)
    corner = "#" + "".join(f"{v:02x}" for v in seen["corner"])
    assert corner == theme_module.OUTPUT_BACKGROUNDS[1], seen
