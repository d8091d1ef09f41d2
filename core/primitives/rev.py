"""`rev`: reverse an array along some dimensions. Like `jax.lax.rev` (`rev_p`).

Layer 2 (`didax.primitives`). Linear: its jvp and transpose are `rev` again. Descending sorts
are a sort (`sorting.py`) between two reversals, as in JAX.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core
from didax.primitives import common

rev_p = core.Primitive("rev")


def rev(operand: Any, dimensions: Sequence[int]) -> Any:
    """Reverse `operand` along `dimensions`. Like `jax.lax.rev`."""
    ndim = core.get_aval(operand).ndim
    dims = tuple(int(d) for d in dimensions)
    if any(not 0 <= d < ndim for d in dims) or len(set(dims)) != len(dims):
        raise ValueError(f"rev: dimensions {dims} are out of range or repeated for rank {ndim}")
    return rev_p.bind(operand, dimensions=dims)


core.impl_rules.register(rev_p, lambda x, *, dimensions: [np.flip(x, dimensions).copy()])
core.abstract_eval_rules.register(rev_p, common.same_aval)
core.jvp_rules.register(rev_p, common.linear_unary_jvp(rev))
core.transpose_rules.register(rev_p, common.linear_unary_transpose(rev))


@core.vmap_rules.register(rev_p)
def _rev_vmap(axis_size, vals, dims, *, dimensions):
    (x,), (d,) = vals, dims
    return [rev(x, tuple(i + (i >= d) for i in dimensions))], [d]


core.lowering_rules.register(
    rev_p, lambda ctx, x, *, dimensions: [ctx.hlo.reverse(x, list(dimensions))]
)
