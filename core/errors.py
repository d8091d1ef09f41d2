"""`didax.errors`: the engine's exception types, where `jax.errors` has them.

Layer 5 (re-exports only). The hierarchy is JAX's: `JAXTypeError(TypeError)` above
`ConcretizationTypeError` (and its `TracerBoolConversionError`), `TracerIntegerConversionError`,
`TracerArrayConversionError` and `UnexpectedTracerError`; `JaxprTypeError` is a TypeError.
"""

from didax.core import (
    ConcretizationTypeError,
    JAXTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
)
from didax.jaxpr import JaxprTypeError

__all__ = [
    "ConcretizationTypeError",
    "JAXTypeError",
    "JaxprTypeError",
    "TracerArrayConversionError",
    "TracerBoolConversionError",
    "TracerIntegerConversionError",
    "UnexpectedTracerError",
]
