"""The cell the magics tests' shell runs first (tests/magics/conftest.py): the names their
cells use."""

import didax  # noqa: F401 - a name the cells use
import didax.numpy as jnp
import numpy as np  # noqa: F401 - a name the cells use


def f(x):
    return jnp.sin(x) * 3.0


def loss(x, y):
    return jnp.sum(jnp.sin(x) * y)


def affine(x, w):
    return x * w + 1.0


x = jnp.array([0.5, 1.0, 2.0])
xs = jnp.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
