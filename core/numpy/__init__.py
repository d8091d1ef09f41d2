"""`didax.numpy`: a NumPy-like API over didax's primitives. Like `jax.numpy`.

Layer 5. Importing it fills `core.operator_table`, which gives `Array` and every `Tracer`
their operators (`x + y`, `x[0]`, `x.sum()`, `x.at[i].set(v)`).
"""

from didax import core
from didax.numpy import indexing as _indexing
from didax.numpy.indexing import take, take_along_axis  # noqa: F401
from didax.numpy.lax_numpy import *  # noqa: F403 - this package is the public face of lax_numpy
from didax.numpy.lax_numpy import OPERATORS, _ScalarType  # noqa: F401

core.operator_table.update(OPERATORS)
from didax.numpy import linalg  # noqa: E402, F401
from didax.numpy.extra import *  # noqa: E402, F403
from didax.numpy.extra import METHODS  # noqa: E402
from didax.numpy.setops import argwhere, flatnonzero, nonzero, unique  # noqa: E402, F401
from didax.numpy.signal import convolve, correlate  # noqa: E402, F401

core.operator_table.update(METHODS)
core.operator_table.update(_indexing.OPERATORS)  # `x[idx]` and `x.at` (numpy/indexing.py)
