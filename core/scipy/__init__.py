"""`didax.scipy`: the parts of `jax.scipy` tutorials use. Layer 5 package (re-exports)."""

from didax.scipy import linalg, special, stats  # noqa: F401
