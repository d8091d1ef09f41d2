"""More of `jax`'s top-level API: `eval_shape`, `jacobian`, `typeof`, `device_put`,
`device_get`.

Layer 5, beside `api.py`: thin functions over `jit`, `jacrev`, avals and the backend.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import core
from didax.api import jacrev
from didax.array import Array
from didax.compile.jit import jit
from didax.runtime import sharding
from didax.tree_util import broadcast_prefix, tree_flatten, tree_map, tree_unflatten


def eval_shape(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The shapes and dtypes `fn` returns for these arguments (arrays or
    `ShapeDtypeStruct`s), as a pytree of `ShapeDtypeStruct`s, without computing anything.
    Like `jax.eval_shape`."""
    return jit(fn).eval_shape(*args, **kwargs)


def jacobian(
    fn: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
) -> Callable[..., Any]:
    """The Jacobian of `fn` by reverse mode. Like `jax.jacobian` (which is `jacrev`)."""
    if allow_int:
        raise NotImplementedError("jacobian: allow_int= is not supported")
    return jacrev(fn, argnums, has_aux, holomorphic)


def typeof(x: Any) -> core.ShapedArray:
    """The abstract value of `x`: its shape, dtype and weak type. Like `jax.typeof`."""
    return core.get_aval(x)


def device_put(x: Any, device: Any = None, *, src: Any = None, **options: Any) -> Any:
    """Every array of the pytree `x` as an Array on `device` (default: the first device), or
    split over a mesh by a `NamedSharding` (`device` may be a pytree prefix of `x` of
    them). Like `jax.device_put`."""
    if device is None or _node_type_free(device):
        return tree_map(lambda v: sharding.device_put(v, device), x)
    leaves, treedef = tree_flatten(x)
    targets = broadcast_prefix(device, treedef, "device_put's device")
    return tree_unflatten(treedef, [sharding.device_put(v, t) for v, t in zip(leaves, targets)])


def _node_type_free(device: Any) -> bool:
    return not isinstance(device, (tuple, list, dict))


def device_get(x: Any) -> Any:
    """Every Array of the pytree `x` as a NumPy array on the host; other leaves as they
    are. Like `jax.device_get`."""
    return tree_map(lambda v: np.asarray(v) if isinstance(v, Array) else v, x)
