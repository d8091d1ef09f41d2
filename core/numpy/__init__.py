"""`didax.numpy`: a NumPy-like API over didax's primitives. Like `jax.numpy`.

Layer 5. Declares no primitives: every function composes lax wrappers, so the jaxpr of a
program written with `didax.numpy` has the equations JAX's has for the same program. One
module per family, each built on the ones before it: `axis_args` (shape and axis arguments),
`promotion` (dtype promotion and broadcasting), `inner_jit`, `creation`, `manipulation`,
`ufuncs` (elementwise), `reductions`, `products`, `methods` (the `Array` operators), then
`indexing`, `index_take`, `index_update`, `predicates`, `complex_parts`, `cumulative`,
`sorting`, `tensor_products` (einsum), `linalg`, then the rest of `jax.numpy` by family.

Importing it fills `core.operator_table`, which gives `Array` and every `Tracer` their
operators (`x + y`, `x[0]`, `x.sum()`, `x.at[i].set(v)`).
"""

from didax import core
from didax.numpy import index_update as _index_update
from didax.numpy.creation import *  # noqa: F403 - this package is the public face of its families
from didax.numpy.creation import _ScalarType  # noqa: F401
from didax.numpy.dtype_functions import *  # noqa: F403
from didax.numpy.index_take import take, take_along_axis  # noqa: F401
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
from didax.numpy.complex_parts import *  # noqa: E402, F403
from didax.numpy.complex_parts import METHODS as _COMPLEX_METHODS  # noqa: E402
from didax.numpy.constructors import *  # noqa: E402, F403
from didax.numpy.constructors import METHODS as _CONSTRUCTOR_METHODS  # noqa: E402
from didax.numpy.cumulative import *  # noqa: E402, F403
from didax.numpy.cumulative import METHODS as _CUMULATIVE_METHODS  # noqa: E402
from didax.numpy.diagonals import *  # noqa: E402, F403
from didax.numpy.diagonals import METHODS as _DIAGONAL_METHODS  # noqa: E402
from didax.numpy.index_grids import *  # noqa: E402, F403
from didax.numpy.mathfuncs import *  # noqa: E402, F403
from didax.numpy.mathfuncs import METHODS as _MATHFUNC_METHODS  # noqa: E402
from didax.numpy.predicates import *  # noqa: E402, F403
from didax.numpy.predicates import METHODS as _PREDICATE_METHODS  # noqa: E402
from didax.numpy.rearrange import *  # noqa: E402, F403
from didax.numpy.rearrange import METHODS as _REARRANGE_METHODS  # noqa: E402
from didax.numpy.setops import *  # noqa: E402, F403
from didax.numpy.setops import METHODS as _SETOPS_METHODS  # noqa: E402
from didax.numpy.signal import convolve, correlate  # noqa: E402, F401
from didax.numpy.sorting import *  # noqa: E402, F403
from didax.numpy.sorting import METHODS as _SORTING_METHODS  # noqa: E402
from didax.numpy.statistics import *  # noqa: E402, F403
from didax.numpy.statistics import METHODS as _STATISTICS_METHODS  # noqa: E402
from didax.numpy.tensor_products import *  # noqa: E402, F403

for _methods in (
    _COMPLEX_METHODS,
    _CONSTRUCTOR_METHODS,
    _CUMULATIVE_METHODS,
    _DIAGONAL_METHODS,
    _MATHFUNC_METHODS,
    _PREDICATE_METHODS,
    _REARRANGE_METHODS,
    _SETOPS_METHODS,
    _SORTING_METHODS,
    _STATISTICS_METHODS,
):
    core.operator_table.update(_methods)
core.operator_table.update(_index_update.OPERATORS)  # `x[idx]`, `x.at`, `x.take`
from didax.numpy.array_edit import *  # noqa: E402, F403
from didax.numpy.differences import *  # noqa: E402, F403
from didax.numpy.float_parts import *  # noqa: E402, F403
from didax.numpy.functional import *  # noqa: E402, F403
from didax.numpy.host_io import *  # noqa: E402, F403
from didax.numpy.integer_math import *  # noqa: E402, F403
