"""The case table's parts: `Arr` (an array argument: shape, dtype, value domain), `OpCase`
(one call of one public function, and the JAX function of the same name), `Table` (a family's
list of cases) and `close_over` (a case as a function of some of its arguments).

Importing this module never imports `jax`: the JAX side is looked up only when asked for.
"""

from __future__ import annotations

import importlib
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np

_MODULES = {
    "numpy": ("didax.numpy", "jax.numpy"),
    "nn": ("didax.nn", "jax.nn"),
    "lax": ("didax.lax", "jax.lax"),
    "linalg": ("didax.lax.linalg", "jax.lax.linalg"),
    "random": ("didax.random", "jax.random"),
    "ad_checkpoint": ("didax.ad_checkpoint", "jax.ad_checkpoint"),
    "scipy.special": ("didax.scipy.special", "jax.scipy.special"),
}
_ROOTS = ("didax", "jax")

# ----------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Arr:
    """An array argument: shape, NumPy dtype name and value domain.

    Domains: "real" (-2..2), "positive" (0.5..2), "unit" (-0.9..0.9), "nonzero"
    (+-0.5..2, or +-1..5 for integers), "special" (finite values mixed with inf and nan),
    "index" (integers 0..2, for `select_n`), "above_one" (1.1..3, for `acosh`), "probability"
    (0.05..0.95, for `betainc`), "spd" (symmetric positive definite matrices,
    well conditioned, for `cholesky`), "complex" (real and imaginary parts -2..2).
    """

    shape: tuple[int, ...] = ()
    dtype: str = "float32"
    domain: str = "real"

    def __repr__(self) -> str:
        return f"{self.dtype}{list(self.shape)}{'' if self.domain == 'real' else ':' + self.domain}"

    @property
    def np_dtype(self) -> np.dtype:
        return np.dtype(ml_dtypes.bfloat16 if self.dtype == "bfloat16" else self.dtype)

    def make(self, rng: np.random.Generator) -> np.ndarray:
        dtype = self.np_dtype
        if dtype == np.bool_:
            return rng.random(self.shape) < 0.5
        if self.domain == "spd":
            b = rng.uniform(-1.0, 1.0, self.shape)
            n = self.shape[-1]
            return (b @ np.swapaxes(b, -1, -2) + n * np.eye(n)).astype(dtype)
        if self.domain == "complex":
            parts = rng.uniform(-2.0, 2.0, (2, *self.shape))
            return (parts[0] + 1j * parts[1]).astype(dtype)
        if self.domain == "index":
            return rng.integers(0, 3, self.shape).astype(dtype)
        if np.issubdtype(dtype, np.integer):
            if self.domain == "positive":
                return rng.integers(1, 6, self.shape).astype(dtype)
            if self.domain == "nonzero":
                sign = np.where(rng.random(self.shape) < 0.5, -1, 1)
                return (sign * rng.integers(1, 6, self.shape)).astype(dtype)
            return rng.integers(-5, 6, self.shape).astype(dtype)
        if self.domain == "positive":
            value = rng.uniform(0.5, 2.0, self.shape)
        elif self.domain == "unit":
            value = rng.uniform(-0.9, 0.9, self.shape)
        elif self.domain == "probability":
            value = rng.uniform(0.05, 0.95, self.shape)
        elif self.domain == "above_one":
            value = rng.uniform(1.1, 3.0, self.shape)
        elif self.domain == "nonzero":
            value = np.where(rng.random(self.shape) < 0.5, -1, 1) * rng.uniform(0.5, 2, self.shape)
        else:
            value = rng.uniform(-2.0, 2.0, self.shape)
        if self.domain == "special":
            flat = value.reshape(-1)
            flat[::3] = np.array([np.inf, -np.inf, np.nan])[np.arange(len(flat[::3])) % 3]
        return np.asarray(value).astype(dtype)


# ----------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class OpCase:
    """One call of one public function on one signature of arguments."""

    module: str  # "numpy", "nn" or "lax"
    name: str
    args: tuple[Any, ...]  # Arr specs and literal arguments, in call order
    kwargs: dict[str, Any] = field(default_factory=dict)
    differentiable: bool = True  # jvp/grad tests run (on the float32 Arr arguments)
    linear: bool = False  # linear in its float Arr arguments (transpose tests)
    # How to call the function: `call(library, fn, *args, **kwargs)`, `library` the `didax` or
    # `jax` module (for its dimension-number classes, `vmap`); e.g. to pass arrays as a list.
    call: Callable[..., Any] | None = None
    raises: type[Exception] | None = None  # JAX raises this for these arguments; so must didax

    @property
    def id(self) -> str:
        parts = [_short(a) for a in self.args] + [
            f"{k}={_short(v)}" for k, v in self.kwargs.items()
        ]
        # a `call` may name what it reaches (`numpy.linalg.svdvals(...)`)
        label = getattr(self.call, "case_label", None)
        name = self.name if label is None else f"{self.name}.{label}"
        return f"{self.module}.{name}({', '.join(parts)})"

    @property
    def seed(self) -> int:
        return zlib.crc32(self.id.encode())

    @property
    def array_positions(self) -> tuple[int, ...]:
        return tuple(i for i, a in enumerate(self.args) if isinstance(a, Arr))

    @property
    def float_positions(self) -> tuple[int, ...]:
        """Positions of float32 array arguments: the ones jvp/grad/vmap tests perturb."""
        return tuple(
            i for i, a in enumerate(self.args) if isinstance(a, Arr) and a.dtype == "float32"
        )

    def make_inputs(self, rng: np.random.Generator) -> list[Any]:
        return [a.make(rng) if isinstance(a, Arr) else a for a in self.args]

    def fn(self, library: str) -> Callable[..., Any]:
        """The case as a function of all its arguments; `library` is "didax" or "jax"."""
        module = importlib.import_module(_MODULES[self.module][library == "jax"])
        root = importlib.import_module(_ROOTS[library == "jax"])
        target = getattr(module, self.name)
        kwargs, call = self.kwargs, self.call

        def apply(*args: Any) -> Any:
            return call(root, target, *args, **kwargs) if call else target(*args, **kwargs)

        return apply

    @property
    def didax_fn(self) -> Callable[..., Any]:
        return self.fn("didax")

    @property
    def jax_fn(self) -> Callable[..., Any]:
        return self.fn("jax")


def _short(v: Any) -> str:
    if isinstance(v, (type, np.dtype)):
        return np.dtype(v).name
    if isinstance(v, np.ndarray):  # on one line: a test id holds it
        return f"np.array({v.tolist()!r}, {v.dtype.name})"
    if isinstance(v, np.generic):
        return f"np.{np.dtype(type(v)).name}({v.item()!r})"
    return repr(v)


def close_over(
    fn: Callable[..., Any], args: list[Any], positions: tuple[int, ...]
) -> tuple[Callable[..., Any], list[Any]]:
    """`fn` as a function of the arguments at `positions` only, the others fixed."""

    def partial(*chosen: Any) -> Any:
        full = list(args)
        for i, x in zip(positions, chosen, strict=True):
            full[i] = x
        return fn(*full)

    return partial, [args[i] for i in positions]


def as_list(library: Any, fn: Callable[..., Any], *xs: Any, **kwargs: Any) -> Any:
    """A `call`: the array arguments passed as one list (`concatenate`, `stack`)."""
    return fn(list(xs), **kwargs)


class Table:
    """One family's cases: `table.add(module, name, *args, **options)` appends an `OpCase`
    (options: `differentiable`, `linear`, `call`, `raises`; other keywords are the call's)."""

    def __init__(self) -> None:
        self.cases: list[OpCase] = []

    def add(
        self,
        module: str,
        name: str,
        *args: Any,
        differentiable: bool = True,
        linear: bool = False,
        call: Any = None,
        raises: Any = None,
        **kwargs: Any,
    ) -> None:
        self.cases.append(OpCase(module, name, args, kwargs, differentiable, linear, call, raises))


# Shorthands of the tables: dtypes and the scalar, vector and matrix shapes
F = "float32"
I = "int32"
B = "bool"
S, V, M = (), (3,), (2, 3)
