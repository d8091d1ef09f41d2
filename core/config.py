"""`didax.config`: JAX's configuration object, with the options didax has. Like `jax.config`.

Layer 1 (no imports from didax). Options:
- `jax_enable_x64`: only its default (False) is supported: didax computes in 32 bits (float64
  inputs become float32, Python floats are weak float32). Setting it to True raises
  NotImplementedError rather than silently keeping 32-bit types.
- `jax_num_cpu_devices`: how many CPU devices the client makes (-1: the default, one or
  `XLA_FLAGS=--xla_force_host_platform_device_count=N`). The backend reads it once, when it
  starts the client, and then locks it: a later update raises RuntimeError, as in JAX.
"""

from __future__ import annotations

from typing import Any

_DEFAULTS: dict[str, Any] = {"jax_enable_x64": False, "jax_num_cpu_devices": -1}


class Config:
    """Read options as attributes (`config.jax_enable_x64`), set them with `update`."""

    def __init__(self) -> None:
        self._values = dict(_DEFAULTS)
        self._locked: set[str] = set()  # read once by the backend, which has started

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
                "before any didax operation is executed on a device. You should initialize "
                "this config immediately after `import didax`."
            )
        if name == "jax_enable_x64":
            if bool(value):
                raise NotImplementedError(
                    "config.update('jax_enable_x64', True): didax computes in 32 bits only "
                    "(float32/int32 defaults, float64 inputs taken as float32)"
                )
            self._values[name] = False
            return
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, got {value!r}")
        self._values[name] = value


config = Config()
