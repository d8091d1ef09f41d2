"""The course's first notebook, demo_notebooks/01_tour.ipynb, in a real JupyterLab seen by
Debian Chromium (marker `browser`): opened as a learner opens it (its stored outputs cleared,
so nothing on the page is left over from the stored run), Run All, and every magic's output
is a live didax view (the views' own DOM: not the widget's text/plain fallback, not "Error
displaying widget"), headed by the line its stored text/plain starts with. The only error on
the page is the UsageError that the notebook's "mistakes" cell shows on purpose.

It saves a screenshot of the `%grad --jaxpr` view (three programs side by side, the stage
diff marked) as test-artifacts/course-tour-grad.png; docs/images/tour_grad.png in the README
is a copy of one.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from labpage import cell_output, error_outputs, normalized, open_and_run_all

pytestmark = pytest.mark.browser

TOUR = Path(__file__).parents[2] / "demo_notebooks" / "01_tour.ipynb"
WIDGET = "application/vnd.jupyter.widget-view+json"
SCREENSHOT = "course-tour-grad.png"


def _stored_views(nb) -> dict[int, str]:
    """{index among code cells: first line of the view's text/plain} for every stored view."""
    views = {}
    code = [c for c in nb.cells if c.cell_type == "code"]
    for i, cell in enumerate(code):
        for out in cell.outputs:
            if out.output_type in ("display_data", "execute_result") and WIDGET in out.data:
                views[i] = out.data["text/plain"].splitlines()[0]
    return views


def test_tour_notebook_renders_its_views(lab, page, request):
    import nbformat  # after the fixtures: they say (skip, or error under CI) if it is missing

    base, nbdir = lab
    nb = nbformat.read(TOUR, as_version=4)
    views = _stored_views(nb)
    assert len(views) == 6, views  # %jaxpr, %%jaxpr, %grad, %grad --jaxpr, %vmap, %jit
    code = [c for c in nb.cells if c.cell_type == "code"]
    (mistake,) = [i for i, c in enumerate(code) if "raises-exception" in c.metadata.get("tags", [])]
    assert mistake == len(code) - 1, "Run All stops at the cell that raises: keep it last"
    for cell in code:
        cell.outputs, cell.execution_count = [], None
    nb.metadata.pop("widgets", None)  # no stored widget state: every view comes from the kernel
    nbformat.write(nb, nbdir / TOUR.name)

    page.set_viewport_size({"width": 1400, "height": 1000})  # room for the programs
    open_and_run_all(page, base, TOUR.name)
    page.keyboard.press("Control+b")  # hide the file browser: room for the view

    # the one error shown is the mistake the notebook makes on purpose, in one line
    errors = error_outputs(page)
    assert len(errors) == 1 and errors[0].startswith("UsageError: %grad: TypeError: Gradient"), (
        errors
    )
    assert page.get_by_text("Error displaying widget").count() == 0
    for i, title in views.items():
        out = cell_output(page, i)
        view = out.locator(".widget-html .dx-view").first
        view.wait_for(state="visible")
        assert normalized(title) in normalized(out.inner_text()), (i, title)
        # the view did not fall back to its text/plain, which starts with the same title
        assert out.locator(".jp-RenderedText").filter(has_text=title).count() == 0, (i, title)
    assert page.locator(".jp-OutputArea-output").get_by_text("VBox(children=").count() == 0

    # %grad --jaxpr: the programs side by side, each later stage's equations marked with the
    # equation of f they come from, unchanged or new (cos is new: sin's derivative)
    grad = next(i for i, t in views.items() if t.startswith("grad of f(2.0)"))
    out = cell_output(page, grad)
    text = normalized(out.inner_text())
    for stage in ("f: f(2.0)", "jvp(f):", "linearized:", "transposed:"):
        assert stage in text, stage
    assert "d:f32[] = cos a new ← f eqn 0" in text
    assert out.locator(".dx-mark.dx-new").count() >= 1
    artifacts = Path(request.config.rootpath) / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    out.locator(".jp-OutputArea-output").first.screenshot(path=str(artifacts / SCREENSHOT))
