"""Products: `dot` and `matmul`, as `dot_general` equations.

Layer 5, after `reductions`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, lax
from didax.numpy.promotion import promote
from didax.numpy.ufuncs import multiply


def _dot(
    a: Any,
    b: Any,
    dims: Any,
    precision: Any = None,
    preferred: Any = None,
    out_sharding: Any = None,
) -> Any:
    # jax.numpy asks for the result dtype explicitly (`preferred_element_type=float32`)
    preferred = core.get_aval(a).dtype if preferred is None else preferred
    return lax.dot_general(
        a, b, dims, precision=precision, preferred_element_type=preferred, out_sharding=out_sharding
    )


def dot(
    a: Any,
    b: Any,
    *,
    precision: Any = None,
    preferred_element_type: Any = None,
    out_sharding: Any = None,
) -> Any:
    """Like `jax.numpy.dot`."""
    a, b = promote("dot", a, b)
    na, nb = core.get_aval(a).ndim, core.get_aval(b).ndim
    if na == 0 or nb == 0:
        return multiply(a, b)
    contract_b = 0 if nb == 1 else nb - 2
    dims = (((na - 1,), (contract_b,)), ((), ()))
    return _dot(a, b, dims, precision, preferred_element_type, out_sharding)


def matmul(
    a: Any,
    b: Any,
    *,
    precision: Any = None,
    preferred_element_type: Any = None,
    out_sharding: Any = None,
) -> Any:
    """Like `jax.numpy.matmul` (`out_sharding`: the split of the `dot_general`'s result, as
    JAX's, before the batch axes of `matrix @ batch` move to the front)."""
    p = (precision, preferred_element_type, out_sharding)
    a, b = promote("matmul", a, b)
    sa, sb = core.get_aval(a).shape, core.get_aval(b).shape
    if not sa or not sb:
        raise ValueError(
            f"matmul: inputs must have at least one dimension, got shapes {sa} and {sb}"
        )
    if len(sa) <= 2 and len(sb) <= 2:
        if sa[-1] != sb[0 if len(sb) == 1 else -2]:
            raise TypeError(
                f"dot_general requires contracting dimensions to have the same "
                f"shape, got {sa} and {sb}."
            )
        return dot(
            a,
            b,
            precision=precision,
            preferred_element_type=preferred_element_type,
            out_sharding=out_sharding,
        )
    # batched: broadcast the leading (batch) dimensions
    a_batch, b_batch = sa[:-2] if len(sa) > 1 else (), sb[:-2] if len(sb) > 1 else ()
    batch = np.broadcast_shapes(a_batch, b_batch)
    nbat = len(batch)
    if len(sa) >= 2 and a_batch != batch and a_batch:
        a = lax.broadcast_in_dim(a, (*batch, *sa[-2:]), tuple(range(nbat - len(a_batch), nbat + 2)))
    if len(sb) >= 2 and b_batch != batch and b_batch:
        b = lax.broadcast_in_dim(b, (*batch, *sb[-2:]), tuple(range(nbat - len(b_batch), nbat + 2)))
    sa, sb = core.get_aval(a).shape, core.get_aval(b).shape
    if len(sa) == 1:
        return _dot(a, b, (((0,), (len(sb) - 2,)), ((), ())), *p)
    if len(sb) == 1:
        return _dot(a, b, (((len(sa) - 1,), (0,)), ((), ())), *p)
    if len(sa) - 2 == 0:  # matrix @ batch: contract, then move the batch axes to the front
        out = _dot(a, b, (((1,), (len(sb) - 2,)), ((), ())), *p)
        nb_ = len(sb) - 2
        return lax.transpose(out, (*range(1, nb_ + 1), 0, nb_ + 1))
    if len(sb) - 2 == 0:
        return _dot(a, b, (((len(sa) - 1,), (0,)), ((), ())), *p)
    bdims = tuple(range(nbat))
    return _dot(a, b, (((len(sa) - 1,), (len(sb) - 2,)), (bdims, bdims)), *p)


__all__ = [
    "dot",
    "matmul",
]
