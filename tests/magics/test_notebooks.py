"""The demo notebook demo_notebooks/01_tour.ipynb runs top to bottom in a real kernel
(marker `notebooks`). To refresh its stored outputs after a change:
`PYTHONPATH=tests python tests/notebooks/lesson_runs.py 01_tour.ipynb`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers.outputs import WIDGET, is_standin

pytestmark = pytest.mark.notebooks

try:
    import nbformat
    from nbclient import NotebookClient
except ImportError as e:  # pragma: no cover - depends on the environment
    if os.environ.get("CI"):
        raise ImportError(f"notebook tests need nbclient and nbformat: {e}") from e
    pytest.skip(f"notebook tests need nbclient and nbformat: {e}", allow_module_level=True)

TOUR = Path(__file__).parents[2] / "demo_notebooks" / "01_tour.ipynb"
MAGICS = ("%jaxpr", "%%jaxpr", "%grad", "%vmap", "%jit")


def test_magics_tour_runs(kernel_name):
    stored = nbformat.read(TOUR, as_version=4)
    assert all(
        c.outputs
        for c in stored.cells
        if c.cell_type == "code" and c.source.lstrip().startswith(MAGICS)
    ), "stored notebook is not executed"
    nb = nbformat.read(TOUR, as_version=4)
    NotebookClient(
        nb,
        kernel_name=kernel_name,
        timeout=120,
        startup_timeout=60,
        resources={"metadata": {"path": str(TOUR.parent)}},
    ).execute()
    magic_cells = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, (cell.source, errors)
        stderr = "".join(
            o.text
            for o in cell.outputs
            if o.output_type == "stream" and o.name == "stderr" and "pjrt_client" not in o.text
        )
        if "raises-exception" in cell.metadata.get("tags", []):
            assert stderr.startswith("UsageError: %grad: ") and stderr.count("\n") == 1
            continue
        assert stderr == "", (cell.source, stderr)
        if any(
            line.lstrip().startswith(MAGICS) or "= %" in line for line in cell.source.splitlines()
        ):
            magic_cells += 1
            # one view per magic, displayed (%jaxpr as the last line too): a widget if it
            # needs the kernel, followed by its stand-in, else its HTML alone
            shown = [
                o
                for o in cell.outputs
                if o.output_type in ("display_data", "execute_result") and "text/html" in o["data"]
            ]
            needs_kernel = any(m in cell.source for m in ("%jaxpr", "%jit"))
            standins = [False, True] if needs_kernel else [False]
            assert [is_standin(o["data"]) for o in shown] == standins, cell.source
            extra = {WIDGET} if needs_kernel else set()
            assert set(shown[0]["data"]) == {"text/plain", "text/html"} | extra, cell.source
    assert magic_cells == 6
