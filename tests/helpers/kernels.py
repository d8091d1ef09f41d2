"""The Jupyter kernels the tests run notebooks in: a kernelspec that starts this interpreter
(the one didax is installed in), whatever `python` on the PATH is, and a folder of such specs
put on JUPYTER_PATH for a while. Used by the lesson tests (tests/notebooks), the magics'
kernel tests (tests/magics) and JupyterLab's home in the browser tests (tests/browser)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def write_kernelspec(folder: Path, display_name: str, env: dict[str, str] | None = None) -> None:
    """`folder/kernel.json`: a kernel running this interpreter, with `env` added to the
    environment it inherits (jupyter_client merges a spec's `env` into it)."""
    spec: dict = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": display_name,
        "language": "python",
    }
    if env:
        spec["env"] = env
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.json").write_text(json.dumps(spec))


@contextmanager
def on_jupyter_path(root: Path) -> Iterator[None]:
    """Inside the block, `root` is first on JUPYTER_PATH, so the kernels under
    `root/kernels` are found by name; JUPYTER_PATH is put back after."""
    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(root), old]))
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("JUPYTER_PATH", None)
        else:
            os.environ["JUPYTER_PATH"] = old
