"""The host-side names of `jax.numpy`: files (`save savez load`), buffers and strings
(`frombuffer fromstring from_dlpack`, and `fromfile fromiter`, which raise as JAX's do), print
options (`printoptions get_printoptions set_printoptions array_repr array_str`),
`einsum_path` and `ComplexWarning`.

Layer 5, after `functional`. NumPy does the work on host values; what comes back is a didax
Array, as JAX's functions return Arrays. `einsum_path` asks opt_einsum, as JAX's does, loaded
on the first call (it costs ~100 ms to import; this is not a cycle-dodging import).
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from didax import dtypes
from didax.numpy import creation

__all__ = [
    "ComplexWarning",
    "array_repr",
    "array_str",
    "einsum_path",
    "from_dlpack",
    "frombuffer",
    "fromfile",
    "fromiter",
    "fromstring",
    "get_printoptions",
    "load",
    "printoptions",
    "save",
    "savez",
    "set_printoptions",
]

ComplexWarning = np.exceptions.ComplexWarning
save, savez = np.save, np.savez
array_repr, array_str = np.array_repr, np.array_str


def printoptions(*args: Any, **kwargs: Any) -> Any:
    """NumPy's print options, for a `with` block. Like `jax.numpy.printoptions`."""
    return np.printoptions(*args, **kwargs)


def get_printoptions() -> dict[str, Any]:
    """Like `jax.numpy.get_printoptions`."""
    return np.get_printoptions()


def set_printoptions(*args: Any, **kwargs: Any) -> None:
    """Like `jax.numpy.set_printoptions`."""
    return np.set_printoptions(*args, **kwargs)


def load(file: Any, *args: Any, **kwargs: Any) -> Any:
    """`np.load`, with bfloat16 data (saved as void16) recovered. Like `jax.numpy.load`."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == "V2":
            out = out.view(dtypes.bfloat16)
        try:
            out = creation.asarray(out)
        except (TypeError, AssertionError):  # a dtype didax does not take
            pass
    return out


def frombuffer(buffer: Any, dtype: Any = float, count: int = -1, offset: int = 0) -> Any:
    """An array read from the bytes of `buffer`. Like `jax.numpy.frombuffer`."""
    return creation.asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string: str, dtype: Any = float, count: int = -1, *, sep: str) -> Any:
    """An array parsed from text. Like `jax.numpy.fromstring`."""
    return creation.asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Any:
    """An array from an object with `__dlpack__` (copied to didax). Like
    `jax.numpy.from_dlpack`."""
    return creation.asarray(np.from_dlpack(x))


def _impure(name: str, source: str) -> NotImplementedError:
    return NotImplementedError(
        f"jnp.{name}() is not implemented because it may be non-pure and thus unsafe for use "
        f"with JIT and other JAX transformations. Consider using jnp.asarray(np.{name}(...)) "
        f"instead, although care should be taken if np.{name} is used within a jax "
        f"transformations because of its potential side-effect of consuming the {source}; "
        "for more information see "
        "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions"
    )


def fromfile(*args: Any, **kwargs: Any) -> Any:
    """Raises NotImplementedError, as `jax.numpy.fromfile` does (reading is a side effect)."""
    raise _impure("fromfile", "file object")


def fromiter(*args: Any, **kwargs: Any) -> Any:
    """Raises NotImplementedError, as `jax.numpy.fromiter` does."""
    raise _impure("fromiter", "iterable object")


def einsum_path(subscripts: str, /, *operands: Any, optimize: Any = "auto") -> tuple[list, Any]:
    """opt_einsum's contraction order for `einsum`. Like `jax.numpy.einsum_path`."""
    if isinstance(optimize, bool):
        # False: contract in operand order, the path JAX's `Unoptimized` optimizer gives
        optimize = "optimal" if optimize else [(0, 1)] * (len(operands) - 1)
    opt_einsum = importlib.import_module("opt_einsum")
    return opt_einsum.contract_path(subscripts, *operands, optimize=optimize)
