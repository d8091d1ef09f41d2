"""`didax.tree`: the short names of `didax.tree_util`. Like `jax.tree`.

Layer 5; only re-exports under JAX's names (`tree.map` is `tree_util.tree_map`, ...).
"""

from __future__ import annotations

from didax.tree_util import tree_all as all  # noqa: A004 - JAX's name
from didax.tree_util import tree_flatten as flatten
from didax.tree_util import tree_flatten_with_path as flatten_with_path
from didax.tree_util import tree_leaves as leaves
from didax.tree_util import tree_leaves_with_path as leaves_with_path
from didax.tree_util import tree_map as map  # noqa: A004 - JAX's name
from didax.tree_util import tree_map_with_path as map_with_path
from didax.tree_util import tree_reduce as reduce
from didax.tree_util import tree_structure as structure
from didax.tree_util import tree_transpose as transpose
from didax.tree_util import tree_unflatten as unflatten

__all__ = [
    "all",
    "flatten",
    "flatten_with_path",
    "leaves",
    "leaves_with_path",
    "map",
    "map_with_path",
    "reduce",
    "structure",
    "transpose",
    "unflatten",
]
