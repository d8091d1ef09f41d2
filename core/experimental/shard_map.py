"""`didax.experimental.shard_map.shard_map`: JAX's deprecated spelling of `didax.shard_map`.

Layer 5 (re-exports). Like `jax.experimental.shard_map`, whose `check_rep` is now
`check_vma`; JAX warns when the name is looked up, didax when it is called.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from didax.parallel import shard_map as shard_map_module


def shard_map(
    f: Callable[..., Any], mesh: Any, in_specs: Any, out_specs: Any, check_rep: bool = True
) -> Callable[..., Any]:
    """Please use `didax.shard_map`. Like `jax.experimental.shard_map.shard_map`."""
    warnings.warn(
        "jax.experimental.shard_map is deprecated in v0.8.0. Used jax.shard_map instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    return shard_map_module.shard_map(
        f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_rep
    )
