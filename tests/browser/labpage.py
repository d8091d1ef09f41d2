"""Helpers for the browser tests: write a notebook, open it in JupyterLab and run all cells,
and read what the page shows (a cell's output area, error outputs, normalized text)."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

TOKEN = "didax-browser-test"
KERNEL_DISPLAY = "Python 3 (ipykernel)"

# --------------------------------------------------------------------------- notebooks

_ALL_RAN = """() => {
  const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')];
  if (prompts.length === 0 || prompts.some(p => p.innerText.includes('*'))) return false;
  if (prompts.every(p => /\\[\\d+\\]/.test(p.innerText))) return true;
  // Run All stops at a cell that raised: done once that error is shown
  return document.querySelector('.jp-Notebook .jp-OutputArea-output.jp-mod-error, ' +
    '.jp-Notebook [data-mime-type="application/vnd.jupyter.stderr"]') !== null;
}"""


def write_notebook(path: Path, sources: list[str]) -> None:
    """A notebook of code cells, with a kernelspec (without one JupyterLab opens a blocking
    "Select Kernel" dialog)."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": KERNEL_DISPLAY,
        "language": "python",
    }
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    nbformat.write(nb, path)


def load_lab(page: Any, base: str) -> None:
    """Load JupyterLab into `page` once, in an empty workspace of its own (the default one is
    saved server-side), and wait until it is restored: the tests open their notebooks in it
    with `open_notebook` rather than loading and parsing JupyterLab's JavaScript again."""
    page.goto(f"{base}/lab/workspaces/didax-tests?token={TOKEN}")
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.commands.hasCommand('docmanager:open')",
        timeout=90_000,
        polling=100,
    )
    page.evaluate("() => window.jupyterapp.restored.then(() => true)")


_CLOSE_ALL = """async () => {
  const shell = window.jupyterapp.shell;
  for (const w of [...shell.widgets('main')]) {
    // a notebook that ran is dirty: closing it would ask whether to save
    if (w.context && w.context.model) w.context.model.dirty = false;
    w.close();
  }
  document.querySelectorAll('.jp-Dialog').forEach(d => d.remove());
  return true;
}"""
_NONE_OPEN = "() => [...window.jupyterapp.shell.widgets('main')].every(w => !w.context)"


def close_all(page: Any) -> None:
    """Close every open document of the loaded JupyterLab without saving (their kernels keep
    running, as after a page load: `shutdown_kernels` ends them)."""
    page.evaluate(_CLOSE_ALL)
    page.wait_for_function(_NONE_OPEN, polling=100)


def open_notebook(page: Any, name: str) -> None:
    """Open `name` (a path in the server's root) alone in the loaded JupyterLab, as a page
    load of a workspace holding only it would: every other document closed first."""
    from playwright.sync_api import expect

    close_all(page)
    page.evaluate(
        "async p => { await window.jupyterapp.commands.execute('docmanager:open', {path: p});"
        " return true; }",
        name,
    )
    tab = page.get_by_role("tab", name=name)
    expect(tab).to_have_attribute("aria-selected", "true", timeout=90_000)


def open_and_run_all(page: Any, name: str, timeout_ms: int = 180_000) -> None:
    """Open `name` alone in the loaded JupyterLab, wait for the kernel, Run All (the menu's
    clicks), wait until every cell ran."""
    from playwright.sync_api import expect

    open_notebook(page, name)
    # the status bar's "Python 3 (ipykernel) | Idle": the notebook's indicator says idle
    # while the kernel is still initializing
    idle = page.get_by_role("contentinfo").get_by_role("button", name=re.compile(r"\| Idle$"))
    expect(idle).to_be_visible(timeout=90_000)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    page.wait_for_function(_ALL_RAN, timeout=timeout_ms, polling=100)


# --------------------------------------------------------------------------- the server


def _api(base: str, path: str, method: str = "GET") -> Any:
    req = urllib.request.Request(
        f"{base}{path}", method=method, headers={"Authorization": f"token {TOKEN}"}
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        body = r.read()
    return json.loads(body) if body else None


def shutdown_kernels(base: str) -> None:
    """Shut down every kernel of the server at `base`."""
    for k in _api(base, "/api/kernels"):
        _api(base, f"/api/kernels/{k['id']}", "DELETE")


def save(page: Any, path: Path) -> None:
    """Save the open notebook `path` as its user does (Ctrl+S: no widget state); return once
    the server wrote the file (it replaces it whole) and the tab no longer shows unsaved
    changes. Polled with page.wait_for_timeout: the route guard runs while it waits."""
    from playwright.sync_api import expect

    before = path.stat().st_mtime_ns
    page.keyboard.press("Control+s")
    for _ in range(300):
        if path.stat().st_mtime_ns != before:
            break
        page.wait_for_timeout(50)
    else:
        raise AssertionError(f"{path.name} was not saved within 15 s")
    tab = page.get_by_role("tab", name=path.name)
    expect(tab).not_to_have_class(re.compile(r"\bjp-mod-dirty\b"))


def save_and_reopen(page: Any, base: str, path: Path) -> None:
    """Save the open notebook `path` as its user does (Ctrl+S: no widget state), close it,
    shut its kernel down and open it again (a new kernel, a new widget manager without the
    old models): what a reader of the stored notebook sees."""
    save(page, path)
    close_all(page)
    shutdown_kernels(base)
    open_notebook(page, path.name)


# --------------------------------------------------------------------------- reading outputs

# glog lines jaxlib's C++ code writes to fd 2, which ipykernel forwards to the notebook, e.g.
# "I1122 08:57:51.036259   22512 pjrt_client.cc:579] PjRt-IFRT device count: ..."
JAXLIB_LOG = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [\w.]+:\d+\] .*$", re.MULTILINE)


def cell_output(page: Any, index: int) -> Any:
    """Locator of the output area of code cell `index` (0-based)."""
    return page.locator(".jp-Notebook .jp-CodeCell").nth(index).locator(".jp-OutputArea")


def error_outputs(page: Any) -> list[str]:
    """Texts of every error / stderr output on the page (tracebacks, UsageErrors, warnings),
    jaxlib's C++ log lines left out."""
    shown = page.locator(
        ".jp-Notebook .jp-OutputArea-output.jp-mod-error, "
        '.jp-Notebook [data-mime-type="application/vnd.jupyter.stderr"]'
    ).all_inner_texts()
    texts = (JAXLIB_LOG.sub("", t).strip() for t in shown)
    return [t for t in texts if t]


def normalized(text: str) -> str:
    """Whitespace runs collapsed to one space, so a check holds for a `<pre>` block and for a
    widget that lays tokens out in spans or table rows."""
    return " ".join(text.split())


def hex_colour(rgb: str) -> str:
    """A computed CSS colour (`rgb(17, 17, 17)`) as `#111111`."""
    r, g, b = (int(float(v)) for v in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    return f"#{r:02x}{g:02x}{b:02x}"


def set_theme(page: Any, name: str) -> None:
    """Switch JupyterLab to the theme `name` (a saved setting: switch back when done)."""
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.commands.hasCommand('apputils:change-theme')"
    )
    page.evaluate(
        "name => window.jupyterapp.commands.execute('apputils:change-theme', {theme: name})", name
    )
    light = "true" if name == "JupyterLab Light" else "false"
    page.wait_for_selector(f"body[data-jp-theme-light='{light}']", state="attached")
