"""The check `jax_debug_nans` / `jax_debug_infs` ask for (config.py): after each primitive
that runs eagerly (core.py) and after a jitted call (compile/debugging.py), a float result
holding a nan / an inf raises FloatingPointError naming the primitive or `jit(f)`.

Without them, a nan or an inf is a value like any other, silently, as in JAX. Eager
operations compute with NumPy, which warns (a RuntimeWarning) on a division by zero, the log
of 0, an overflow...: the warnings filter below drops the RuntimeWarnings raised from
didax's own modules (a warning is attributed to the module whose code called NumPy), so a
user's own NumPy code still warns as it always does. (pytest restores the warnings filters
after collecting: where didax is first imported by a test module, its RuntimeWarnings show
in pytest's warnings summary.)

Layer 1, after config.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from didax.config import config

warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"didax(\.|$)")


def check_special(name: str, values: Sequence[Any]) -> None:
    """Under `jax_debug_nans` / `jax_debug_infs`: raise FloatingPointError naming `name` (a
    primitive, or `jit(f)`) when one of the float `values` holds a nan / an inf, as JAX's
    dispatch does after each primitive it runs."""
    for x in values:
        v = np.asarray(x)
        if not np.issubdtype(v.dtype, np.inexact):
            continue
        if config.jax_debug_nans and np.isnan(v).any():
            raise FloatingPointError(f"invalid value (nan) encountered in {name}")
        if config.jax_debug_infs and np.isinf(v).any():
            raise FloatingPointError(f"invalid value (inf) encountered in {name}")
