"""Which PJRT client didax makes: the `jax_platforms` option, and the plugins other devices
would come from (NVIDIA GPUs: CUDA). On paper: no GPU on the machines this is tested on.

Layer 1, the runtime floor, before client.py (which makes its client through
`make_client`). `jax_platforms` (or the `JAX_PLATFORMS` environment variable, as JAX reads
it) lists platforms by priority, "cpu,cuda"; unset or "", the CPU. didax makes one client,
for the first listed platform: "cpu" is jaxlib's own client; any other is a PJRT plugin, a
shared library with PJRT's C API, found as JAX 0.10.2 finds it: CUDA's is
`xla_cuda_plugin.so` inside the Python package `jax_plugins.xla_cuda12`, which the pip
packages `jax-cuda12-plugin` and `jax-cuda12-pjrt` install (their version must be
jaxlib's). Its client is made as JAX makes a plugin's: `load_pjrt_plugin_dynamically`,
`initialize_pjrt_plugin`, then `make_c_api_client` with `generate_pjrt_gpu_plugin_options()`.
A platform that cannot be loaded raises RuntimeError naming what to install, worded as JAX's
"Unable to initialize backend" errors; `check_backend` gives JAX's "Unknown backend" errors
for `devices("gpu")` on a CPU client. tests/core/test_plugins.py checks these with fake
plugin names and a fake jaxlib; nothing here has driven a GPU.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

# the jaxlib didax is tested with (client.py checks the installed one); a plugin's version must
# be the same
JAXLIB_VERSION = "0.10.2"


class Plugin:
    """Where a platform's PJRT plugin lives: the Python package (`module`) holding its
    shared library (`library`), and the pip packages that install them. (A plain class: a
    frozen dataclass cost ~0.5 ms of `import didax`.)"""

    __slots__ = ("platform", "module", "library", "packages")

    def __init__(self, platform: str, module: str, library: str, packages: tuple[str, ...]):
        self.platform, self.module, self.library, self.packages = (
            platform,
            module,
            library,
            packages,
        )


PLUGINS: dict[str, Plugin] = {
    "cuda": Plugin(
        "cuda",
        "jax_plugins.xla_cuda12",
        "xla_cuda_plugin.so",
        ("jax-cuda12-plugin", "jax-cuda12-pjrt"),
    ),
}
ALIASES = {"gpu": "cuda"}  # JAX's: "gpu" names the GPU platform present (didax knows CUDA's)
_ADVICE = "(set JAX_PLATFORMS='' to automatically choose an available backend)"


def requested(value: str | None, plugins: dict[str, Plugin] = PLUGINS) -> list[str]:
    """The platforms `jax_platforms` lists, in order, "gpu" read as "cuda" ('' or None:
    the CPU).

    Raises:
      RuntimeError: a platform didax does not know (JAX's message).
    """
    names = [ALIASES.get(p.strip(), p.strip()) for p in (value or "cpu").split(",")]
    known = ["cpu", *plugins]
    for name in names:
        if name not in known:
            raise RuntimeError(
                f"Unable to initialize backend '{name}': Backend '{name}' is not in the list "
                f"of known backends: {known}. {_ADVICE}"
            )
    return names


def library_path(plugin: Plugin) -> str:
    """The path of `plugin`'s shared library.

    Raises:
      RuntimeError: its package, or the library in it, is not installed (naming the pip
        packages to install).
    """
    install = " ".join(f"{p}=={JAXLIB_VERSION}" for p in plugin.packages)
    try:
        spec = importlib.util.find_spec(plugin.module)
    except ModuleNotFoundError:  # (its parent package is missing too)
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            f"Unable to initialize backend '{plugin.platform}': its PJRT plugin, the Python "
            f"package {plugin.module}, is not installed; install it with `pip install "
            f"{install}` {_ADVICE}"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / plugin.library
    if not path.exists():
        raise RuntimeError(
            f"Unable to initialize backend '{plugin.platform}': {plugin.module} has no "
            f"{plugin.library} (the PJRT library, from {plugin.packages[-1]}); install it "
            f"with `pip install {install}` {_ADVICE}"
        )
    return str(path)


def make_client(
    xc: Any,
    platforms: Sequence[str],
    make_cpu: Callable[[], Any],
    distributed_client: Any = None,
    plugins: dict[str, Plugin] = PLUGINS,
) -> Any:
    """The client of the first of `platforms`: `make_cpu()` for "cpu", else its plugin's,
    loaded through jaxlib's `xla_client` (`xc`) as JAX loads one.

    Raises:
      RuntimeError: the plugin is not installed, or jaxlib fails to load or start it.
    """
    platform = platforms[0]
    if platform == "cpu":
        return make_cpu()
    plugin = plugins[platform]
    path = library_path(plugin)
    try:
        if not xc.pjrt_plugin_loaded(platform):
            xc.load_pjrt_plugin_dynamically(platform, path)
        if not xc.pjrt_plugin_initialized(platform):
            xc.initialize_pjrt_plugin(platform)
        options = xc.generate_pjrt_gpu_plugin_options() if platform == "cuda" else None
        return xc.make_c_api_client(platform, options, distributed_client)
    except Exception as e:  # jaxlib's own errors (no GPU, a driver missing): JAX's wording
        raise RuntimeError(f"Unable to initialize backend '{platform}': {e} {_ADVICE}") from e


def check_backend(backend: Any, platform: str) -> None:
    """JAX's errors for `devices(backend)` naming a platform other than the client's
    (`platform`): didax has one client.

    Raises:
      RuntimeError: as JAX's "Unknown backend" errors.
    """
    if backend is None or ALIASES.get(backend, backend) == platform:
        return
    if backend in ALIASES:  # a name for a kind of device
        raise RuntimeError(
            f"Unknown backend: '{backend}' requested, but no platforms that are instances of "
            f"{backend} are present. Platforms present are: {platform}"
        )
    raise RuntimeError(f"Unknown backend {backend}. Available backends are ['{platform}']")
