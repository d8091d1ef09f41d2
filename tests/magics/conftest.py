"""Fixtures for the magics tests: one in-process IPython shell with `%load_ext didax`, and a
`run` helper that executes a cell and captures its display outputs, stdout and stderr."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

IPython = pytest.importorskip("IPython")

from helpers.kernels import on_jupyter_path, write_kernelspec
from helpers.outputs import is_standin
from IPython.core.displaypub import CapturingDisplayPublisher
from IPython.testing import globalipapp
from IPython.utils.capture import capture_output

# the names the cells use, defined afresh for each test
SETUP = (Path(__file__).parent / "scripts" / "setup_cell.py").read_text()


@dataclass
class Ran:
    result: Any  # the cell's value (what Out[] shows), None if hidden or failed
    error: BaseException | None
    displays: list[dict[str, str]]  # the mimebundle of each display() call
    stdout: str
    stderr: str
    out: dict | None = None  # the mimebundle Out[] showed (None: no Out[])

    @property
    def shown(self) -> list[dict]:
        """The views shown (a widget view's stand-in output after it left out: its tests
        look at `displays`)."""
        return [d for d in self.displays if not is_standin(d)]

    def plain(self, i: int = 0) -> str:
        return self.shown[i]["text/plain"]

    def html(self, i: int = 0) -> str:
        return self.shown[i]["text/html"]


@pytest.fixture(scope="session")
def shell():
    ip = globalipapp.get_ipython()
    tb = ip.InteractiveTB
    if hasattr(tb, "set_theme_name"):  # IPython 9 names themes in lower case
        tb.set_theme_name("nocolor")
    else:
        tb.set_colors("NoColor")
    ip.run_line_magic("load_ext", "didax")
    return ip


@pytest.fixture
def ip(shell):
    """The shell with the extension loaded and SETUP's names defined afresh."""
    if shell.find_line_magic("grad") is None:  # a test unloaded it
        shell.run_line_magic("load_ext", "didax")
    shell.run_cell(SETUP)
    return shell


def _final_displays(outputs: list[dict]) -> list[dict]:
    # what a front end ends up showing: an update (`display(..., display_id=True)` then
    # `handle.update(...)`, as %jit's progress) replaces the output with its display id
    shown: list[dict] = []
    for o in outputs:
        did = (o.get("transient") or {}).get("display_id")
        if o.get("update") and did is not None:
            shown = [o if (p.get("transient") or {}).get("display_id") == did else p for p in shown]
        else:
            shown.append(o)
    return [o["data"] for o in shown]


@pytest.fixture
def run(ip):
    def run_cell(code: str) -> Ran:
        # display() calls go to a capturing publisher; Out[] (the displayhook) to stdout
        publisher, ip.display_pub = ip.display_pub, CapturingDisplayPublisher()
        hook = ip.displayhook
        outs: list[dict] = []
        write = hook.write_format_data

        def record(format_dict: dict, md_dict: Any = None) -> None:
            outs.append(format_dict)
            write(format_dict, md_dict)

        hook.write_format_data = record
        try:
            with capture_output(display=False) as captured:
                res = ip.run_cell(code)
            displays = _final_displays(ip.display_pub.outputs)
        finally:
            ip.display_pub = publisher
            del hook.write_format_data
        return Ran(
            res.result,
            res.error_before_exec or res.error_in_exec,
            displays,
            captured.stdout,
            captured.stderr,
            outs[-1] if outs else None,
        )

    return run_cell


@pytest.fixture(scope="session")
def kernel_name(tmp_path_factory):
    """A kernelspec running this interpreter (the one didax is installed in), whatever
    `python` on the PATH is."""
    root = tmp_path_factory.mktemp("jupyter")
    write_kernelspec(root / "kernels" / "didax-test", "didax test")
    with on_jupyter_path(root):
        yield "didax-test"
