"""`didax.debug`: printing from inside transformed code. Like `jax.debug`.

Layer 5 (re-exports only): `didax.debug.print(fmt, *args, **kwargs)` binds the
`debug_print` primitive of `primitives/debugging.py`.
"""

from didax.primitives.debugging import debug_print as print  # noqa: A004 - JAX's name

__all__ = ["print"]
