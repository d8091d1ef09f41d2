"""`didax.config`: JAX's configuration object, with the options didax has. Like `jax.config`.

Layer 1 (no imports from didax). Only `jax_enable_x64` is known, and only its default (False)
is supported: didax computes in 32 bits (float64 inputs become float32, Python floats are
weak float32). Setting it to True raises NotImplementedError rather than silently keeping
32-bit types.
"""

from __future__ import annotations

from typing import Any

_DEFAULTS = {"jax_enable_x64": False}


class Config:
    """Read options as attributes (`config.jax_enable_x64`), set them with `update`."""

    def __init__(self) -> None:
        self._values = dict(_DEFAULTS)

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

    def update(self, name: str, value: Any) -> None:
        """Set option `name`. Like `jax.config.update`."""
        if name not in self._values:
            raise AttributeError(f"Unrecognized config option: {name}")
        if name == "jax_enable_x64" and bool(value):
            raise NotImplementedError(
                "config.update('jax_enable_x64', True): didax computes in 32 bits only "
                "(float32/int32 defaults, float64 inputs taken as float32)"
            )
        self._values[name] = bool(value)


config = Config()
