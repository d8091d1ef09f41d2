"""`helpers.environment`, what a test session changes in the environment of the processes it
starts: with `PYTHONDONTWRITEBYTECODE` set, one private bytecode cache for the session;
`JAX_DISABLE_MOST_OPTIMIZATIONS=1` unless the user chose a value; each undone at the end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import didax
import pytest
from didax.config import _env_flag as env_flag
from helpers import environment

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
    restore = environment.share_bytecode_cache()
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


def test_with_caching_on_or_a_folder_chosen_nothing_changes(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    before = dict(os.environ)
    assert environment.share_bytecode_cache() is None  # Python caches beside the sources
    assert dict(os.environ) == before
    # caching off, with a folder the user chose: left as the user set it
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(tmp_path / "chosen"))
    before = dict(os.environ)
    assert environment.share_bytecode_cache() is None
    assert dict(os.environ) == before


@pytest.fixture
def session_option():
    """Puts `jax_disable_most_optimizations` back as the session set it, in both libraries."""
    jax = pytest.importorskip("jax")
    before = [lib.config.values["jax_disable_most_optimizations"] for lib in (didax, jax)]
    yield jax
    for lib, value in zip((didax, jax), before, strict=True):
        lib.config.update("jax_disable_most_optimizations", value)


def test_optimizations_go_off_for_the_session_and_back_on(monkeypatch, session_option):
    jax = session_option
    monkeypatch.delenv(environment.OPTIMIZATIONS_OFF, raising=False)
    for lib in (didax, jax):  # as a process that imported both before the session began
        lib.config.update("jax_disable_most_optimizations", False)
    restore = environment.compile_quickly()
    assert restore is not None
    try:
        assert os.environ[environment.OPTIMIZATIONS_OFF] == "1"  # for the processes to come
        for lib in (didax, jax):  # and for the libraries already imported
            assert lib.config.values["jax_disable_most_optimizations"] is True
    finally:
        restore()
    assert environment.OPTIMIZATIONS_OFF not in os.environ
    for lib in (didax, jax):
        assert lib.config.values["jax_disable_most_optimizations"] is False


@pytest.mark.parametrize("chosen", ["0", "1"])
def test_a_value_the_user_chose_is_kept(monkeypatch, session_option, chosen):
    monkeypatch.setenv(environment.OPTIMIZATIONS_OFF, chosen)
    before = dict(os.environ)
    assert environment.compile_quickly() is None
    assert dict(os.environ) == before


def test_this_session_runs_with_the_option_its_environment_says(session_option):
    # the workers were started after the controller set the variable (unless the user had),
    # so it is there, and the libraries read it
    assert environment.OPTIMIZATIONS_OFF in os.environ
    wanted = env_flag(environment.OPTIMIZATIONS_OFF)  # the variable read as both libraries do
    for lib in (didax, session_option):
        assert lib.config.values["jax_disable_most_optimizations"] is wanted
