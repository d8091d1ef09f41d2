"""The errors of tracing: a tracer used after its transformation returned, or where Python
needs a concrete value. Their hierarchy and messages are JAX's (`jax.errors`).

Layer 1, before core (whose tracers raise them; `core.ConcretizationTypeError` etc. stay
importable from there, and `didax.errors` re-exports them).
"""

from __future__ import annotations

_ERRORS_PAGE = "https://docs.jax.dev/en/latest/errors.html"


class JAXTypeError(TypeError):
    """A TypeError of the engine's own; its message ends with the page that explains it, as
    `jax.errors.JAXTypeError`'s does (the class hierarchy below is JAX's)."""

    def __init__(self, message: str) -> None:
        name = type(self).__name__
        super().__init__(f"{message}\nSee {_ERRORS_PAGE}#jax.errors.{name}")


class UnexpectedTracerError(JAXTypeError):
    """A tracer was used after the transformation that made it had returned."""


class ConcretizationTypeError(JAXTypeError):
    """A traced value was used where Python needs a concrete one (`if x > 0:` under jit)."""


class TracerBoolConversionError(ConcretizationTypeError):
    """`bool()` (an `if`, `while`, `and`, `or`) of a traced value with no concrete value."""


class TracerIntegerConversionError(JAXTypeError):
    """`__index__` (`range(x)`, `[...][x]`) of a traced value with no concrete value."""


class TracerArrayConversionError(JAXTypeError):
    """`np.asarray(x)` / `x.__array__()` of a traced value: never allowed, concrete or not,
    since NumPy's result would drop the tracer (and with it derivatives or the batch)."""
