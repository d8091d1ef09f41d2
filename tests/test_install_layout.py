"""`import didax` finds the package when Python runs from a folder that CONTAINS a clone named
`didax/` (a course folder with a notebook saved beside the clone): the clone folder must not
be taken as a namespace package `didax` (issue 14, item 6). Checked for the install running
these tests, and for an editable and a non-editable `pip install` into fresh venvs (marker
`install`: pip builds the wheels, fetching setuptools for the isolated build; it runs in CI).
The mechanism is described in .ci/didax_backend.py."""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import didax
import pytest

REPO = Path(__file__).resolve().parents[1]
PROBE = (
    "import didax, didax.numpy as jnp, didax.magics, didax.widgets\n"
    "assert float(didax.grad(jnp.sin)(0.0)) == 1.0\n"
    "print(didax.__file__)\n"
)
_SKIP = shutil.ignore_patterns(
    ".git", ".venv", "build", "*.egg-info", "test-artifacts", "__pycache__", ".*_cache"
)


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a copy of the repository named `didax/`, and a script beside it."""
    folder = tmp_path_factory.mktemp("course")
    shutil.copytree(REPO, folder / "didax", ignore=_SKIP, symlinks=True)
    (folder / "lesson.py").write_text(PROBE)
    return folder


def _imported_from(python: str | Path, course: Path) -> list[Path]:
    """The `didax.__file__` that `python` imports from `course`, by `-c` (sys.path[0] is the
    working folder) and by a script saved there (sys.path[0] is the script's folder)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    found = []
    for args in (["-c", PROBE], ["lesson.py"]):
        run = subprocess.run(
            [str(python), *args], cwd=course, env=env, capture_output=True, text=True, timeout=120
        )
        assert run.returncode == 0, run.stderr[-3000:]
        found.append(Path(run.stdout.strip().splitlines()[-1]).resolve())
    return found


def _running_site_dirs() -> list[str]:
    """The site-packages folders the running interpreter imports from: a venv's own, the
    system Python's, and any a `.pth` added (a venv layered on another), where didax's
    dependencies are installed."""
    names = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib"), *site.getsitepackages()}
    if site.ENABLE_USER_SITE:
        names.add(site.getusersitepackages())
    return [
        p
        for p in sys.path
        if (p in names or Path(p).name in ("site-packages", "dist-packages")) and Path(p).is_dir()
    ]


def _fresh_venv(root: Path, *pip_args: str) -> Path:
    """A new venv that sees the dependencies of the RUNNING environment, not of the base
    interpreter (`--system-site-packages` from inside a venv would give the base's, which
    passes only where the system Python happens to hold every dependency). A `.pth` names the
    running site folders as plain paths: their own `.pth` files (the running didax's editable
    finder) are not processed, and they come after the venv's own site-packages, where the
    didax under test is installed."""
    # without its own pip (seeding one costs ~3 s of CPU): the running pip installs into it
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "_running_env.pth").write_text("\n".join(_running_site_dirs()) + "\n")
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    run = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps"]
        + list(pip_args),
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    return python


def test_the_installed_didax_is_imported_beside_a_clone(course: Path) -> None:
    here = Path(didax.__file__).resolve()
    assert _imported_from(sys.executable, course) == [here, here]


@pytest.mark.install
@pytest.mark.timeout(600)
def test_editable_install_is_imported_beside_a_clone(course: Path, tmp_path: Path) -> None:
    python = _fresh_venv(tmp_path / "venv", "-e", str(course / "didax"))
    source = (course / "didax" / "core" / "__init__.py").resolve()
    assert _imported_from(python, course) == [source, source]


@pytest.mark.install
@pytest.mark.timeout(600)
def test_non_editable_install_is_imported_beside_a_clone(course: Path, tmp_path: Path) -> None:
    python = _fresh_venv(tmp_path / "venv", str(course / "didax"))
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    installed = (Path(site) / "didax" / "__init__.py").resolve()
    assert _imported_from(python, course) == [installed, installed]


def test_every_package_folder_is_listed_for_the_wheel() -> None:
    # setuptools installs only the packages pyproject.toml names: a subpackage missing there
    # (`didax.primitives.slicing`) works from the clone and breaks a non-editable install
    listed = set(
        tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    folders = {
        "core": "didax",
        "display": "didax.display",
        "magics": "didax.magics",
        "widgets": "didax.widgets",
    }
    found = {
        ".".join([pkg, *init.parent.relative_to(REPO / base).parts])
        for base, pkg in folders.items()
        for init in (REPO / base).rglob("__init__.py")
    }
    assert found - listed == set(), f"add to pyproject.toml's packages: {sorted(found - listed)}"
