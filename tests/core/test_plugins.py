"""The plugin-loading path (core/runtime/plugins.py), on paper: no GPU here, so each step is
checked with fake plugin names, a fake plugin package and a fake jaxlib; `devices("gpu")`
against JAX 0.10.2's "Unknown backend" errors; `JAX_PLATFORMS=cuda` in a fresh process
without the CUDA plugin raises an error naming the packages to install."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import didax
import pytest
from didax.runtime import plugins
from didax.runtime.plugins import Plugin

FAKE = Plugin("fakegpu", "didax_fake_pjrt_plugin", "fake_plugin.so", ("fake-gpu", "fake-gpu-pjrt"))
TABLE = {"fakegpu": FAKE}


def _error(fn) -> str:
    with pytest.raises(RuntimeError) as info:
        fn()
    return str(info.value)


def test_requested_platforms():
    assert plugins.requested(None) == plugins.requested("") == ["cpu"]
    assert plugins.requested("cpu,cuda") == ["cpu", "cuda"]
    assert plugins.requested("gpu") == ["cuda"]  # JAX's alias
    msg = _error(lambda: plugins.requested("foo"))
    assert msg.startswith("Unable to initialize backend 'foo': Backend 'foo' is not in the list")
    assert "['cpu', 'cuda']" in msg


def test_missing_plugin_names_its_packages():
    msg = _error(lambda: plugins.make_client(None, ["fakegpu"], lambda: None, plugins=TABLE))
    assert msg.startswith("Unable to initialize backend 'fakegpu'")
    assert "didax_fake_pjrt_plugin" in msg
    assert "pip install fake-gpu==0.10.2 fake-gpu-pjrt==0.10.2" in msg


def _fake_package(tmp_path, monkeypatch, library: bool):
    package = tmp_path / "didax_fake_pjrt_plugin"
    package.mkdir()
    (package / "__init__.py").write_text("")
    if library:
        (package / "fake_plugin.so").write_bytes(b"not a shared library")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    return package


def test_missing_library_names_the_pjrt_package(tmp_path, monkeypatch):
    _fake_package(tmp_path, monkeypatch, library=False)
    msg = _error(lambda: plugins.library_path(FAKE))
    assert "has no fake_plugin.so" in msg and "from fake-gpu-pjrt" in msg


class _FakeXlaClient:  # jaxlib's xla_client, recording what the loader asks of it
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def pjrt_plugin_loaded(self, name):
        return False

    def pjrt_plugin_initialized(self, name):
        return False

    def load_pjrt_plugin_dynamically(self, name, path):
        self.calls.append(("load", name, path))

    def initialize_pjrt_plugin(self, name):
        self.calls.append(("initialize", name))

    def make_c_api_client(self, name, options, distributed_client):
        self.calls.append(("client", name, options, distributed_client))
        return "a client"


def test_plugin_client_made_as_jax_makes_one(tmp_path, monkeypatch):
    package = _fake_package(tmp_path, monkeypatch, library=True)
    xc = _FakeXlaClient()
    client = plugins.make_client(xc, ["fakegpu", "cpu"], lambda: "cpu client", "dist", TABLE)
    assert client == "a client"
    path = str(package / "fake_plugin.so")
    assert xc.calls == [
        ("load", "fakegpu", path),
        ("initialize", "fakegpu"),
        ("client", "fakegpu", None, "dist"),
    ]
    assert plugins.make_client(xc, ["cpu", "fakegpu"], lambda: "cpu client", None, TABLE) == (
        "cpu client"
    )


def test_jaxlib_failure_is_an_initialization_error(tmp_path, monkeypatch):
    # jaxlib's real loader on a file that is no shared library: its error, in JAX's words
    _fake_package(tmp_path, monkeypatch, library=True)
    xc = importlib.import_module("jaxlib.xla_client")
    msg = _error(lambda: plugins.make_client(xc, ["fakegpu"], lambda: None, None, TABLE))
    assert msg.startswith("Unable to initialize backend 'fakegpu': ")
    assert msg.endswith("(set JAX_PLATFORMS='' to automatically choose an available backend)")


def test_cuda_not_installed_here():
    if importlib.util.find_spec("jax_plugins") is not None:
        pytest.skip("a jax_plugins package is installed")
    msg = _error(lambda: plugins.library_path(plugins.PLUGINS["cuda"]))
    assert "jax_plugins.xla_cuda12" in msg
    assert "pip install jax-cuda12-plugin==0.10.2 jax-cuda12-pjrt==0.10.2" in msg


@pytest.mark.oracle
@pytest.mark.parametrize("backend", ["gpu", "cuda", "rocm"])
def test_unknown_backend_as_jax(backend):
    jax = pytest.importorskip("jax")
    with pytest.raises(RuntimeError) as theirs:
        jax.devices(backend)
    with pytest.raises(RuntimeError) as ours:
        didax.devices(backend)
    assert str(ours.value) == str(theirs.value)
    assert didax.devices("cpu") == didax.devices()
    assert didax.local_device_count("cpu") == jax.local_device_count("cpu")


def test_jax_platforms_cuda_without_plugin():
    # a fresh process: the platform is read when the client starts
    env = {**os.environ, "JAX_PLATFORMS": "cuda"}
    script = (
        "import didax\n"
        "print(didax.config.jax_platforms)\n"
        "try:\n"
        "    didax.devices()\n"
        "except RuntimeError as e:\n"
        "    print('RuntimeError', e)\n"
    )
    if importlib.util.find_spec("jax_plugins") is not None:
        pytest.skip("a jax_plugins package is installed")
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    lines = out.stdout.splitlines()
    assert lines[0] == "cuda", out.stderr[-2000:]
    assert lines[1].startswith("RuntimeError Unable to initialize backend 'cuda'")
    assert "jax-cuda12-plugin==0.10.2" in lines[1]
