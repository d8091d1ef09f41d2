"""`didax.extend`: the names a user needs to extend didax with their own primitives and
interpreters. Like `jax.extend`. Layer 5 package; this `__init__` only re-exports."""

from didax.extend import core  # noqa: F401
