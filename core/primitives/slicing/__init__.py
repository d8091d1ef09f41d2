"""Indexing primitives, one module each: `gather` (and the dimension numbers and mode gather
and scatter share), `scatter` (scatter, scatter-add, -sub, -mul, -min, -max) and
`dynamic_slice` (dynamic_slice, dynamic_update_slice and their `*_in_dim` helpers).

Layer 2. This `__init__` only re-exports the three modules' public names, so
`didax.primitives.slicing.gather` and `lax.slicing.gather_p` read as before the split.
`didax.numpy`'s indexing (`x[idx]`, `x.at[...]`) is built from these.
"""

from didax.primitives.shape import rev, rev_p  # noqa: F401 - in shape.py; `lax.slicing.rev_p` as before
from didax.primitives.slicing.dynamic_slice import (  # noqa: F401 - re-exported
    dynamic_index_in_dim,
    dynamic_slice,
    dynamic_slice_in_dim,
    dynamic_slice_p,
    dynamic_update_index_in_dim,
    dynamic_update_slice,
    dynamic_update_slice_in_dim,
    dynamic_update_slice_p,
)
from didax.primitives.slicing.gather import (  # noqa: F401 - re-exported
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    gather,
    gather_p,
    index_take,
)
from didax.primitives.slicing.scatter import (  # noqa: F401 - re-exported
    scatter,
    scatter_add,
    scatter_add_p,
    scatter_apply,
    scatter_max,
    scatter_max_p,
    scatter_min,
    scatter_min_p,
    scatter_mul,
    scatter_mul_p,
    scatter_p,
    scatter_sub,
    scatter_sub_p,
)
