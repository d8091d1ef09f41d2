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
- `jax_platforms`: the platforms the client may be made for, by priority ("cpu", "cuda";
  runtime/plugins.py); its start value comes from `JAX_PLATFORMS`, as JAX reads it; None or
  "": the CPU. Locked when the client starts, as `jax_num_cpu_devices`.
- `didax_malloc_trim_threshold` (didax's own): bytes of freed memory glibc's malloc keeps in
  an arena instead of giving it back to the system, fixed when the client starts
  (runtime/host_memory.py): 64 MiB by default, so that a jitted call whose results take
  tens of MB reuses their memory instead of faulting it in again; 0 leaves glibc's
  thresholds alone. Its start value comes from `DIDAX_MALLOC_TRIM_THRESHOLD`. Locked when
  the client starts, as `jax_num_cpu_devices`.
- `didax_jaxlib_tracebacks` (didax's own): whether jaxlib keeps recording the Python stack
  of every device array and program it makes. didax reads none of them, so by default its
  client turns the recording off when it starts (runtime/client.py): it cost 0.4 us of a
  4.2 us cached jitted call, 2.2 us of 7.1 with 40 more frames on the stack
  (`python benchmarks/bench_jit.py tracebacks --cpu`). JAX reads them (the source locations of its jaxprs, HLO
  metadata and some errors, a JAX Array's `traceback`), and jaxlib's switch is the
  process's: in a process that has imported `jax` when didax's client starts, the switch is
  left on; JAX imported later finds it off, and its source locations are then missing. On
  (or `DIDAX_JAXLIB_TRACEBACKS=1`), the switch is left as it is. Locked when the client
  starts, as `jax_num_cpu_devices`.
- `jax_use_shardy_partitioner`: on by default, as in JAX 0.10.2: partitioned programs carry
  Shardy's `sdy.sharding` attributes over an `sdy.mesh` and shard_map bodies are
  `sdy.manual_computation`s; off, GSPMD's `mhlo.sharding` and custom calls.
- `jax_debug_nans` / `jax_debug_infs`: every eagerly evaluated primitive checks its float
  results and raises FloatingPointError naming itself (core.py); a jitted call that returns
  one re-runs its function op by op to find the primitive (compile/jit.py).
- `jax_disable_jit`: `jit(f)(x)` calls `f(x)`; `cond`, `scan`, `while_loop` of concrete
  values run as Python.
- `jax_explain_cache_misses` / `jax_log_compiles`: jit logs why it traces again, and what
  it compiles, as WARNING records of the `didax` logger (`log_warning`).
- `jax_default_matmul_precision`: the precision a `dot_general` without one gets.
- `jax_default_device`: where un-committed values go (eager results, `device_put(x)`,
  jitted calls of un-committed arguments): None (the first device), a device, or a platform
  name ("cpu"). A trace option: a jitted function compiles again for another device.
- `jax_transfer_guard_host_to_device`, `..._device_to_device`, `..._device_to_host`: what a
  transfer in that direction does (runtime/transfer_guard.py): None or "allow", "log",
  "disallow" (implicit transfers), "log_explicit", "disallow_explicit" (all of them);
  `jax_transfer_guard` sets the three at once, as JAX's.
- `jax_disable_most_optimizations`: XLA compiles with little optimizing work (LLVM at its
  lowest optimization level, its expensive passes off), for programs that run once or twice,
  where optimizing costs more than it saves (runtime/executable.py). Its start value comes
  from `JAX_DISABLE_MOST_OPTIMIZATIONS`, as JAX reads it. Read at each compile and not part
  of jit's cache keys, as in JAX: programs compiled before an update keep their options.
- `jax_numpy_rank_promotion`: what `didax.numpy` does when it broadcasts operands of
  different ranks (`f32[2,3] + f32[3]`): "allow" (the default), "warn" or "raise"
  (numpy/promotion.py).

The top-level context managers (`didax.debug_nans(True)`, `didax.disable_jit()`, ...) set
an option for a `with` block and restore it after. Unlike JAX's, the value is the process's,
not the thread's: no persistent setting lives in a ContextVar (STYLE.md section 4).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def _env_flag(name: str) -> bool:
    value = os.environ.get(name, "").strip().lower()
    if value in ("", "0", "false", "no", "off", "n", "f"):
        return False
    if value in ("1", "true", "yes", "on", "y", "t"):
        return True
    raise ValueError(f"invalid truth value {value!r} for environment {name!r}")


def _env_bytes(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"invalid byte count {value!r} for environment {name!r}") from None


_DEFAULTS: dict[str, Any] = {
    "jax_enable_x64": _env_flag("JAX_ENABLE_X64"),
    "jax_num_cpu_devices": -1,
    "jax_platforms": os.environ.get("JAX_PLATFORMS") or None,
    "didax_malloc_trim_threshold": _env_bytes("DIDAX_MALLOC_TRIM_THRESHOLD", 64 << 20),
    "didax_jaxlib_tracebacks": _env_flag("DIDAX_JAXLIB_TRACEBACKS"),
    "jax_use_shardy_partitioner": True,
    "jax_debug_nans": False,
    "jax_debug_infs": False,
    "jax_disable_jit": False,
    "jax_explain_cache_misses": False,
    "jax_log_compiles": False,
    "jax_default_matmul_precision": None,
    "jax_numpy_rank_promotion": "allow",
    "jax_default_device": None,
    "jax_transfer_guard": None,
    "jax_transfer_guard_host_to_device": None,
    "jax_transfer_guard_device_to_device": None,
    "jax_transfer_guard_device_to_host": None,
    "jax_disable_most_optimizations": _env_flag("JAX_DISABLE_MOST_OPTIMIZATIONS"),
}
# the options a trace reads (its jaxpr changes with them, or its program's device): jit's
# cache keys hold their values
TRACE_CONTEXT = (
    "jax_enable_x64",
    "jax_default_matmul_precision",
    "jax_numpy_rank_promotion",
    "jax_default_device",
)
TRANSFER_GUARD_LEVELS = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")
# the directions a transfer guard watches; `jax_transfer_guard` sets them all
TRANSFER_DIRECTIONS = (
    "jax_transfer_guard_host_to_device",
    "jax_transfer_guard_device_to_device",
    "jax_transfer_guard_device_to_host",
)
_BOOLEANS = (
    "jax_enable_x64",
    "jax_use_shardy_partitioner",
    "jax_debug_nans",
    "jax_debug_infs",
    "jax_disable_jit",
    "jax_explain_cache_misses",
    "jax_log_compiles",
    "jax_disable_most_optimizations",
    "didax_jaxlib_tracebacks",
)
# the values JAX 0.10.2 accepts for `jax_default_matmul_precision` (besides None)
MATMUL_PRECISIONS = (
    "default",
    "high",
    "highest",
    "bfloat16",
    "tensorfloat32",
    "float32",
    "ANY_F8_ANY_F8_F32",
    "ANY_F8_ANY_F8_F32_FAST_ACCUM",
    "ANY_F8_ANY_F8_ANY",
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM",
    "F16_F16_F16",
    "F16_F16_F32",
    "BF16_BF16_BF16",
    "BF16_BF16_F32",
    "BF16_BF16_F32_X3",
    "BF16_BF16_F32_X6",
    "BF16_BF16_F32_X9",
    "TF32_TF32_F32",
    "TF32_TF32_F32_X3",
    "F32_F32_F32",
    "F64_F64_F64",
)


class HotFlags:
    """The flags the hottest paths read on every call (fast_path.py's eager closures, the jit
    call and core.eval_primitive), kept in step by `Config.update`. A plain slotted object: Config's `__getattr__`
    keeps Python (3.11) from specializing reads of Config's own attributes, which then cost
    ~15 ns each; these cost ~1 ns."""

    __slots__ = ("eager_hooks", "jit_hooks", "trace_context", "check_special", "guard_host")

    def __init__(self) -> None:
        self.eager_hooks = False
        self.jit_hooks = False
        self.trace_context: tuple = ()
        # read by every eager primitive on the general path (core.eval_primitive)
        self.check_special = False
        self.guard_host: str | None = None  # Config.guard_host_to_device


class Config:
    """Read options as attributes (`config.jax_enable_x64`), set them with `update`."""

    def __init__(self) -> None:
        self._values = dict(_DEFAULTS)
        self._locked: set[str] = set()  # read once by the backend, which has started
        # Plain attributes, read on hot paths, kept in step by `update`: `jax_enable_x64`
        # (dtypes.py), whether results are checked for nan/inf (every eager primitive), and
        # whether a jitted call needs more than running its program (jit's fast path).
        self.enable_x64: bool = self._values["jax_enable_x64"]
        self.check_special = False
        self.jit_hooks = False
        # whether eager operations need more than NumPy's value (results checked for nan/inf
        # or placed on a default device, host operands guarded): fast_path.py's eager
        # closures then decline
        self.eager_hooks = False
        # where un-committed values go (None: the first device), and whether a transfer
        # guard watches host-to-device or device-to-device transfers (its level, None when
        # "allow"): read where values are placed and transferred
        self.default_device: Any = None
        self.guard_host_to_device: str | None = None
        self.guard_device_to_device: str | None = None
        # the options a trace depends on, leading jit's cache keys (as JAX's trace context):
        # a change of one traces again
        self.trace_context: tuple = self._trace_context()
        self.hot = HotFlags()
        self.hot.trace_context = self.trace_context

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
        self._values[name] = value = _checked(name, value)
        values = self._values
        if name == "jax_transfer_guard":  # sets every direction, as JAX's
            values.update(dict.fromkeys(TRANSFER_DIRECTIONS, value))
        self.enable_x64 = values["jax_enable_x64"]
        self.check_special = values["jax_debug_nans"] or values["jax_debug_infs"]
        self.jit_hooks = self.check_special or values["jax_disable_jit"]
        self.default_device = values["jax_default_device"]
        self.guard_host_to_device = _guarded(values["jax_transfer_guard_host_to_device"])
        self.eager_hooks = (
            self.check_special
            or self.default_device is not None
            or self.guard_host_to_device is not None
        )
        self.guard_device_to_device = _guarded(values["jax_transfer_guard_device_to_device"])
        self.trace_context = self._trace_context()
        hot = self.hot
        hot.eager_hooks, hot.jit_hooks = self.eager_hooks, self.jit_hooks
        hot.trace_context = self.trace_context
        hot.check_special, hot.guard_host = self.check_special, self.guard_host_to_device

    def _trace_context(self) -> tuple:
        return tuple(self._values[name] for name in TRACE_CONTEXT)

    def parse_flags_with_absl(self) -> None:
        """Accepted and ignored: didax reads no command-line flags. Like JAX's (which
        needs absl installed)."""

    def config_with_absl(self) -> None:
        """Accepted and ignored, as `parse_flags_with_absl`."""


RANK_PROMOTIONS = ("allow", "warn", "raise")


def _guarded(level: str | None) -> str | None:
    return None if level in (None, "allow") else level


def _checked(name: str, value: Any) -> Any:
    if name in _BOOLEANS:
        return bool(value)
    if name == "jax_transfer_guard" or name in TRANSFER_DIRECTIONS:
        if value is not None and value not in TRANSFER_GUARD_LEVELS:
            raise ValueError(
                f"new enum value must be None or in {list(TRANSFER_GUARD_LEVELS)}, got {value} "
                f"of type {type(value)}."
            )
        return value
    if name == "jax_default_device":
        # a device (anything with a platform and an id: jaxlib's devices), a platform name
        # (checked when a value is placed, as JAX does), or None
        if value is not None and not isinstance(value, str) and not hasattr(value, "platform"):
            raise ValueError(
                "didax.default_device must be passed either a Device object (e.g. "
                "`didax.devices('cpu')[0]`) or a platform name string like 'cpu' or 'gpu', "
                f"got: {value!r}"
            )
        return value
    if name == "jax_numpy_rank_promotion":
        if value not in RANK_PROMOTIONS:
            raise ValueError(
                f"new enum value must be in {list(RANK_PROMOTIONS)}, got {value} of type "
                f"{type(value)}."
            )
        return value
    if name == "jax_platforms":
        if value is not None and not isinstance(value, str):
            raise TypeError(f"jax_platforms must be a str or None, got {value!r}")
        return value
    if name == "jax_default_matmul_precision":
        if value is not None and value not in MATMUL_PRECISIONS:
            raise ValueError(
                f"new enum value must be None or in {list(MATMUL_PRECISIONS)}, got {value} "
                f"of type {type(value)}."
            )
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if name == "didax_malloc_trim_threshold" and not 0 <= value < 2**31:
        raise ValueError(f"{name} must be a byte count in [0, 2**31), got {value}")
    return value


config = Config()


@contextmanager
def _set(name: str, value: Any) -> Iterator[None]:
    old = config.read(name)
    config.update(name, value)
    try:
        yield
    finally:
        config.update(name, old)


_REQUIRED = object()  # a State whose context manager needs the new value


class State:
    """A configuration option as JAX exposes it at top level: `didax.debug_nans.value`
    reads it, and `with didax.debug_nans(True):` sets it for the block (a decorator too).
    Like JAX's `config.State`."""

    def __init__(self, name: str, default_arg: Any = True) -> None:
        self.name = name
        self._default_arg = default_arg

    @property
    def value(self) -> Any:
        return config.read(self.name)

    def __call__(self, new_val: Any = None) -> Any:
        if new_val is None and self._default_arg is _REQUIRED:
            raise TypeError(
                f"Context manager for {self.name.removeprefix('jax_')} config option requires "
                "an argument representing the new value for the config option."
            )
        return _set(self.name, self._default_arg if new_val is None else new_val)

    def __bool__(self) -> bool:
        raise TypeError(
            f"bool() not supported for instances of type '{type(self).__name__}' "
            f"(did you mean to use '{type(self).__name__}.value' instead?)"
        )

    def __repr__(self) -> str:
        return f"State({self.name}={self.value!r})"


debug_nans = State("jax_debug_nans")
debug_infs = State("jax_debug_infs")
log_compiles = State("jax_log_compiles")
explain_cache_misses = State("jax_explain_cache_misses")
enable_x64 = State("jax_enable_x64")
default_matmul_precision = State("jax_default_matmul_precision", None)
numpy_rank_promotion = State("jax_numpy_rank_promotion", _REQUIRED)
default_device = State("jax_default_device", _REQUIRED)
transfer_guard_host_to_device = State("jax_transfer_guard_host_to_device", _REQUIRED)
transfer_guard_device_to_device = State("jax_transfer_guard_device_to_device", _REQUIRED)
transfer_guard_device_to_host = State("jax_transfer_guard_device_to_host", _REQUIRED)


@contextmanager
def transfer_guard(new_val: str) -> Iterator[None]:
    """Within the `with`, transfers in every direction are guarded at level `new_val`
    ("allow", "log", "disallow", "log_explicit", "disallow_explicit"). Like
    `jax.transfer_guard`."""
    names = ("jax_transfer_guard", *TRANSFER_DIRECTIONS)  # each restored after, in order
    old = [config.read(name) for name in names]
    config.update("jax_transfer_guard", new_val)
    try:
        yield
    finally:
        for name, value in zip(names, old, strict=True):
            config.update(name, value)


def disable_jit(disable: bool = True) -> Any:
    """Within the `with`, `jit` calls its function as Python and control flow of concrete
    values runs as Python loops. Like `jax.disable_jit`."""
    return _set("jax_disable_jit", disable)


def log_warning(message: str) -> None:
    """A WARNING record of the `didax` logger: what `jax_log_compiles`,
    `jax_explain_cache_misses` and a transfer guard at a "log" level write. `logging` is
    loaded by the first record, not by `import didax` (~3 ms of its ~150 ms)."""
    import logging  # deferred for `import didax`'s time, not to dodge a cycle

    logging.getLogger("didax").warning(message)
