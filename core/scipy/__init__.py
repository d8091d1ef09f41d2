"""`didax.scipy`: the parts of `jax.scipy` tutorials use. Layer 5 package (re-exports)."""

from didax.scipy import special  # noqa: F401
