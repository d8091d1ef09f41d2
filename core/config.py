"""`didax.config`: JAX's configuration object, with the options didax has. Like `jax.config`.

Layer 1 (no imports from didax). Options:
- `jax_enable_x64`: off by default (didax computes in 32 bits: float64 inputs become
  float32, Python floats are weak float32); on, 64-bit dtypes stay and are the defaults
  (`dtypes.py` reads it at every use). Its start value comes from the `JAX_ENABLE_X64`
  environment variable, read once at import as JAX reads it ("1", "true", "yes", "on").
- `jax_num_cpu_devices`: how many CPU devices the client makes (-1: the default, one or
  `XLA_FLAGS=--xla_force_host_platform_device_count=N`). It is locked by the first array
  made (eager or not) or when the backend starts the client, whichever comes first: a
  later update raises RuntimeError, as in JAX, whose first array starts its backend.
- `jax_use_shardy_partitioner`: on by default, as in JAX 0.10.2: partitioned programs carry
  Shardy's `sdy.sharding` attributes over an `sdy.mesh` and shard_map bodies are
  `sdy.manual_computation`s; off, GSPMD's `mhlo.sharding` and custom calls.
"""

from __future__ import annotations

import os
from typing import Any


def _env_flag(name: str) -> bool:
    value = os.environ.get(name, "").strip().lower()
    if value in ("", "0", "false", "no", "off", "n", "f"):
        return False
    if value in ("1", "true", "yes", "on", "y", "t"):
        return True
    raise ValueError(f"invalid truth value {value!r} for environment {name!r}")


_DEFAULTS: dict[str, Any] = {
    "jax_enable_x64": _env_flag("JAX_ENABLE_X64"),
    "jax_num_cpu_devices": -1,
    "jax_use_shardy_partitioner": True,
}


class Config:
    """Read options as attributes (`config.jax_enable_x64`), set them with `update`."""

    def __init__(self) -> None:
        self._values = dict(_DEFAULTS)
        self._locked: set[str] = set()  # read once by the backend, which has started
        # `jax_enable_x64` again as a plain attribute: dtypes.py reads it on hot paths
        self.enable_x64: bool = self._values["jax_enable_x64"]

    def __getattr__(self, name: str) -> Any:
        values = self.__dict__.get("_values", {})
        if name in values:
            return values[name]
        raise AttributeError(f"Unrecognized config option: {name}")

    @property
    def values(self) -> dict[str, Any]:
        return dict(self._values)

    def read(self, name: str) -> Any:
        return getattr(self, name)

    def lock(self, name: str) -> Any:
        """Read `name` for good: later updates raise RuntimeError (the backend calls this
        for the options it reads when it starts the client)."""
        self._locked.add(name)
        return self._values[name]

    def update(self, name: str, value: Any) -> None:
        """Set option `name`. Like `jax.config.update`."""
        if name not in self._values:
            raise AttributeError(f"Unrecognized config option: {name}")
        if name in self._locked:
            raise RuntimeError(
                f"{name} config should be updated before backends are initialized i.e. "
                "before any didax operation is executed. You should initialize "
                "this config immediately after `import didax`."
            )
        if name == "jax_enable_x64":
            self._values[name] = self.enable_x64 = bool(value)
            return
        if name == "jax_use_shardy_partitioner":
            self._values[name] = bool(value)
            return
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, got {value!r}")
        self._values[name] = value


config = Config()
