"""The course's figures (didax.figures) in a real JupyterLab, in its Dark theme (marker
`browser`): a stored course notebook, opened as a learner opens it (not run, so not trusted:
Lab sanitizes its HTML outputs), shows its diagram: the inline SVG is removed, and its image
copy (drawn by didax.figures on the light palette) survives the sanitizer, shows and loads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from labpage import TOKEN, cell_output

pytestmark = pytest.mark.browser

REVERSE = Path(__file__).parents[2] / "demo_notebooks" / "04_reverse_mode.ipynb"

_SEEN = """img => ({
  loaded: img.complete && img.naturalWidth > 0,
  size: [img.naturalWidth, img.naturalHeight],
  alt: img.alt,
  dark: document.body.dataset.jpThemeLight === 'false',
})"""


def test_a_stored_diagram_shows_in_the_dark_theme(lab, page):
    base, nbdir = lab
    shutil.copy(REVERSE, nbdir / REVERSE.name)
    settings = nbdir.parent / "jhome" / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True, exist_ok=True)
    theme = settings / "themes.jupyterlab-settings"
    theme.write_text(json.dumps({"theme": "JupyterLab Dark"}))
    cells = [c for c in json.loads(REVERSE.read_text())["cells"] if c["cell_type"] == "code"]
    index = next(i for i, c in enumerate(cells) if "diagram(" in "".join(c["source"]))
    try:
        page.goto(f"{base}/lab/workspaces/figures/tree/{REVERSE.name}?token={TOKEN}")
        img = cell_output(page, index).locator("img").first
        img.wait_for(state="visible", timeout=90_000)
        page.wait_for_function(
            "() => document.body.dataset.jpThemeLight === 'false'", timeout=30_000
        )
        page.wait_for_function("img => img.complete", arg=img.element_handle(), timeout=10_000)
        seen = page.evaluate(_SEEN, img.element_handle())
        img.screenshot(path=str(Path("test-artifacts") / "figure-dark-theme.png"))
    finally:
        theme.unlink()
    assert seen["dark"] and seen["loaded"], seen
    assert seen["size"] == [620, 150], seen
    assert seen["alt"].startswith("reverse mode: a forward sweep keeps residuals"), seen
