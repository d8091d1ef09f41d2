"""`helpers.bytecode.share_for_session`: with `PYTHONDONTWRITEBYTECODE` set, the processes a
test session starts compile each module once into one private folder, removed at the end;
without it, nothing changes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers import bytecode

IMPORT = "import lesson_module, sys; print(lesson_module.__cached__)"


def _import_in_a_child(folder: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", IMPORT], cwd=folder, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_with_caching_off_the_session_shares_one_private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    (tmp_path / "lesson_module.py").write_text("VALUE = 3\n")
    restore = bytecode.share_for_session()
    assert restore is not None
    folder = Path(os.environ["PYTHONPYCACHEPREFIX"])
    try:
        assert "PYTHONDONTWRITEBYTECODE" not in os.environ
        cached = Path(_import_in_a_child(tmp_path))
        # the first process wrote the bytecode into the private folder, not beside the source
        assert cached.is_relative_to(folder) and cached.is_file(), cached
        assert not (tmp_path / "__pycache__").exists()
        written = cached.stat().st_mtime_ns
        assert Path(_import_in_a_child(tmp_path)) == cached  # the next one reads it
        assert cached.stat().st_mtime_ns == written
    finally:
        restore()
    assert os.environ["PYTHONDONTWRITEBYTECODE"] == "1"
    assert "PYTHONPYCACHEPREFIX" not in os.environ
    assert not folder.exists()


def test_otherwise_nothing_changes(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    before = dict(os.environ)
    assert bytecode.share_for_session() is None  # Python caches beside the sources
    assert dict(os.environ) == before
    # caching off, with a folder the user chose: left as the user set it
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(tmp_path / "chosen"))
    before = dict(os.environ)
    assert bytecode.share_for_session() is None
    assert dict(os.environ) == before
