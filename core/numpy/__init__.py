"""`didax.numpy`: a NumPy-like API over didax's primitives. Like `jax.numpy`.

Layer 5. Declares no primitives: every function composes lax wrappers, so the jaxpr of a
program written with `didax.numpy` has the equations JAX's has for the same program. One
module per family, each built on the ones before it: `axis_args` (shape and axis arguments),
`promotion` (dtype promotion and broadcasting), `inner_jit`, `creation`, `manipulation`,
`ufuncs` (elementwise), `reductions`, `products`, `methods` (the `Array` operators), then
`indexing`, `extra` and `linalg`.

Importing it fills `core.operator_table`, which gives `Array` and every `Tracer` their
operators (`x + y`, `x[0]`, `x.sum()`, `x.at[i].set(v)`).
"""

from didax import core
from didax.numpy import indexing as _indexing
from didax.numpy.creation import *  # noqa: F403 - this package is the public face of its families
from didax.numpy.creation import _ScalarType  # noqa: F401
from didax.numpy.dtype_functions import *  # noqa: F403
from didax.numpy.indexing import take, take_along_axis  # noqa: F401
from didax.numpy.manipulation import *  # noqa: F403
from didax.numpy.methods import *  # noqa: F403
from didax.numpy.methods import OPERATORS
from didax.numpy.products import *  # noqa: F403
from didax.numpy.promotion import *  # noqa: F403
from didax.numpy.reductions import *  # noqa: F403
from didax.numpy.ufuncs import *  # noqa: F403

core.operator_table.update(OPERATORS)
from didax.numpy import linalg  # noqa: E402, F401
from didax.numpy.calculus import *  # noqa: E402, F403
from didax.numpy.extra import *  # noqa: E402, F403
from didax.numpy.extra import METHODS  # noqa: E402
from didax.numpy.mathfuncs import *  # noqa: E402, F403
from didax.numpy.mathfuncs import METHODS as _MATHFUNCS_METHODS  # noqa: E402
from didax.numpy.rearrange import *  # noqa: E402, F403
from didax.numpy.rearrange import METHODS as _REARRANGE_METHODS  # noqa: E402
from didax.numpy.setops import *  # noqa: E402, F403
from didax.numpy.setops import METHODS as _SETOPS_METHODS  # noqa: E402
from didax.numpy.signal import convolve, correlate  # noqa: E402, F401
from didax.numpy.statistics import *  # noqa: E402, F403
from didax.numpy.statistics import METHODS as _STATISTICS_METHODS  # noqa: E402

core.operator_table.update(METHODS)
core.operator_table.update(_REARRANGE_METHODS)
core.operator_table.update(_SETOPS_METHODS)
core.operator_table.update(_STATISTICS_METHODS)
core.operator_table.update(_MATHFUNCS_METHODS)
core.operator_table.update(_indexing.OPERATORS)  # `x[idx]` and `x.at` (numpy/indexing.py)
