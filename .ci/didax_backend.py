"""The build backend: setuptools' own, with one addition to the editable wheel so that
`import didax` finds the package even from a folder that holds a clone named `didax/`.

Why. `didax` lives in `core/` (the layout is fixed by API.md), so setuptools cannot make an
editable install with a plain path entry; it installs a meta-path finder and APPENDS it to
`sys.meta_path`, after the interpreter's PathFinder (setuptools issue #3557). Run Python from
a folder containing the clone, and the clone folder `didax/` (no `__init__.py`) on
`sys.path[0]` is a namespace-package portion; PathFinder finds no regular `didax` anywhere on
`sys.path`, returns the namespace package, and setuptools' finder is never asked: `import
didax` gives the clone folder, and `import didax.numpy` fails with a circular import of
`didax.core`.

The mechanism. A namespace portion only wins when no entry of `sys.path` holds a regular
package of that name: PathFinder keeps scanning and takes the first regular one. So the
editable wheel gets a `.pth` that registers a path hook and appends a placeholder entry to
`sys.path` (at the place of the site-packages directory being processed, as any `.pth` path
would be); the hook's finder answers only for the top-level `didax`, with a regular package
spec for `core/__init__.py`. That entry is an ordinary `sys.path` entry, so the order of
`sys.path` is kept: a regular `didax` installed in an earlier site directory still wins, and a
venv's editable install wins over one in the base interpreter. Submodules (`didax.numpy`,
`didax.magics`, ...) are found as before, through `didax.__path__` and setuptools' finder.

A non-editable `pip install .` needs nothing: site-packages then holds a regular `didax`.
tests/test_install_layout.py checks both from a folder containing a copy of the repo.
"""

from __future__ import annotations

import base64
import hashlib
import tomllib
import zipfile
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - every hook not redefined below

_MODULE = "__didax_editable_path"

_HOOK = '''"""didax editable install: a sys.path entry whose path hook finds the regular package
`didax` (in {core}), so a folder named `didax` on sys.path (e.g. a clone, seen from the
folder containing it) cannot shadow it as a namespace package. Made by .ci/didax_backend.py."""

import sys
from importlib.util import spec_from_file_location

ENTRY = {entry!r}
INIT = {init!r}


class _Finder:
    """PathEntryFinder for ENTRY: the top-level package `didax` only."""

    def find_spec(self, fullname, target=None):
        if fullname != "didax":
            return None
        return spec_from_file_location("didax", INIT, submodule_search_locations=[{core!r}])

    def invalidate_caches(self):
        pass


def _hook(path):
    if path == ENTRY:
        return _Finder()
    raise ImportError(path)


def install():
    if _hook not in sys.path_hooks:
        sys.path_hooks.insert(0, _hook)
    if ENTRY not in sys.path:
        sys.path.append(ENTRY)
'''


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _package_dir() -> Path:
    """The absolute folder of the package `didax`, from pyproject.toml's package-dir."""
    config = tomllib.loads(Path("pyproject.toml").read_text())
    return Path(config["tool"]["setuptools"]["package-dir"]["didax"]).resolve()


def _add_files(wheel: Path, files: dict[str, bytes]) -> None:
    """Rewrite `wheel` with `files` added at its top level and listed in its RECORD."""
    with zipfile.ZipFile(wheel) as old:
        entries = [(info, old.read(info)) for info in old.infolist()]
    record = next(
        info.filename for info, _ in entries if info.filename.endswith(".dist-info/RECORD")
    )
    tmp = wheel.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as new:
        for name, data in files.items():
            new.writestr(name, data)
        for info, data in entries:
            if info.filename == record:
                lines = [_record_line(n, d) for n, d in files.items()]
                data = "\n".join(lines).encode() + b"\n" + data
            new.writestr(info, data)
    tmp.replace(wheel)


def build_editable(
    wheel_directory: str,
    config_settings: dict | None = None,
    metadata_directory: str | None = None,
) -> str:
    name = _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
    core = _package_dir()
    source = _HOOK.format(
        core=str(core),
        init=str(core / "__init__.py"),
        entry=f"__didax_editable__.{core}",
    )
    _add_files(
        Path(wheel_directory) / name,
        {
            f"{_MODULE}.py": source.encode(),
            f"{_MODULE}.pth": f"import {_MODULE}; {_MODULE}.install()\n".encode(),
        },
    )
    return name
