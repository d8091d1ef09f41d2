"""Pytrees: nested tuples, lists, dicts, None and namedtuples, and registered node types.

Layer 1 (autodidax part 2, "Pytrees and flattening user functions"). Transformations work on
flat lists of arrays; `tree_flatten` turns a user's nested arguments into leaves and a
`PyTreeDef` that `tree_unflatten` uses to rebuild them. Like `jax.tree_util`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Any

_Flatten = Callable[[Any], tuple[Iterable[Any], Hashable]]
_Unflatten = Callable[[Hashable, Iterable[Any]], Any]


@dataclass(frozen=True)
class _NodeType:
    name: str
    to_iterable: _Flatten
    from_iterable: _Unflatten


_registry: dict[type, _NodeType] = {}


def register_pytree_node(
    nodetype: type, flatten_func: _Flatten, unflatten_func: _Unflatten
) -> None:
    """Make `nodetype` a pytree node. Like `jax.tree_util.register_pytree_node`:
    `flatten_func(x) -> (children, aux_data)`, `unflatten_func(aux_data, children) -> x`."""
    if nodetype in _registry:
        raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}.")
    _registry[nodetype] = _NodeType(nodetype.__name__, flatten_func, unflatten_func)


register_pytree_node(tuple, lambda t: (t, None), lambda _, xs: tuple(xs))
register_pytree_node(list, lambda lst: (lst, None), lambda _, xs: list(xs))
register_pytree_node(
    dict,
    lambda d: ([d[k] for k in sorted(d)], tuple(sorted(d))),
    lambda keys, xs: dict(zip(keys, xs, strict=True)),
)
register_pytree_node(type(None), lambda _: ((), None), lambda _, xs: None)


def _node_type(x: Any) -> tuple[type, _NodeType] | None:
    t = type(x)
    node = _registry.get(t)
    if node is not None:
        return t, node
    if isinstance(x, tuple) and hasattr(x, "_fields"):  # namedtuple
        return t, _NodeType(t.__name__, lambda nt: (tuple(nt), None), lambda _, xs, t=t: t(*xs))
    return None


@dataclass(frozen=True)
class PyTreeDef:
    """The structure of a pytree: node type, aux data and child structures (None: a leaf)."""

    node: type | None
    aux: Hashable
    children: tuple[PyTreeDef, ...]
    num_leaves: int

    @property
    def num_nodes(self) -> int:
        return 1 + sum(c.num_nodes for c in self.children)

    def __repr__(self) -> str:
        return f"PyTreeDef({self._show()})"

    def _show(self) -> str:
        if self.node is None:
            return "*"
        kids = [c._show() for c in self.children]
        if self.node is type(None):
            return "None"
        if self.node is tuple:
            return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
        if self.node is list:
            return "[" + ", ".join(kids) + "]"
        if self.node is dict:
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(self.aux, kids)) + "}"
        if self.node not in _registry:  # a namedtuple, spelled as JAX spells it
            return f"CustomNode(namedtuple[{self.node.__name__}], [{', '.join(kids)}])"
        return f"CustomNode({self.node.__name__}[{self.aux}], [{', '.join(kids)}])"


_LEAF = PyTreeDef(None, None, (), 1)


def tree_flatten(
    tree: Any, is_leaf: Callable[[Any], bool] | None = None
) -> tuple[list[Any], PyTreeDef]:
    """Like `jax.tree_util.tree_flatten`."""
    leaves: list[Any] = []
    treedef = _flatten(tree, leaves, is_leaf)
    return leaves, treedef


def _flatten(tree: Any, leaves: list[Any], is_leaf: Callable[[Any], bool] | None) -> PyTreeDef:
    found = None if (is_leaf is not None and is_leaf(tree)) else _node_type(tree)
    if found is None:
        leaves.append(tree)
        return _LEAF
    t, node = found
    children, aux = node.to_iterable(tree)
    subtrees = tuple(_flatten(c, leaves, is_leaf) for c in children)
    return PyTreeDef(t, aux, subtrees, sum(s.num_leaves for s in subtrees))


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Like `jax.tree_util.tree_unflatten`."""
    it = iter(leaves)
    out = _unflatten(treedef, it)
    if next(it, _SENTINEL) is not _SENTINEL:
        raise ValueError("Too many leaves for PyTreeDef")
    return out


_SENTINEL = object()


def _unflatten(treedef: PyTreeDef, it: Any) -> Any:
    if treedef.node is None:
        leaf = next(it, _SENTINEL)
        if leaf is _SENTINEL:
            raise ValueError("Too few leaves for PyTreeDef")
        return leaf
    children = [_unflatten(c, it) for c in treedef.children]
    found = _registry.get(treedef.node)
    if found is None:  # namedtuple
        return treedef.node(*children)
    return found.from_iterable(treedef.aux, children)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(
    f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None
) -> Any:
    """Like `jax.tree_util.tree_map`."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [flatten_up_to(treedef, r) for r in rest]
    return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others, strict=True)])


def flatten_fun(
    fn: Callable[..., Any], in_tree: PyTreeDef
) -> tuple[Callable[..., list[Any]], Callable[[], PyTreeDef]]:
    """`fn` as a function of flat leaves returning flat leaves; the second function returns
    the output tree structure once the first has been called."""
    store: list[PyTreeDef] = []

    def flat_fn(*leaves: Any) -> list[Any]:
        __tracebackhide__ = True  # engine frame: IPython leaves it out of tracebacks
        args = tree_unflatten(in_tree, leaves)
        out = fn(*args)
        out_leaves, out_tree = tree_flatten(out)
        store[:] = [out_tree]
        return out_leaves

    return flat_fn, lambda: store[0]


def flatten_up_to(treedef: PyTreeDef, tree: Any) -> list[Any]:
    """Flatten `tree` to the leaves of `treedef`, a prefix of its structure (vmap's
    `in_axes` are such prefixes). Raises ValueError when the structures disagree."""
    out: list[Any] = []
    _flatten_up_to(treedef, tree, out)
    return out


def _flatten_up_to(treedef: PyTreeDef, tree: Any, out: list[Any]) -> None:
    if treedef.node is None:
        out.append(tree)
        return
    found = _node_type(tree)
    if found is None or found[0] is not treedef.node:
        raise ValueError(f"pytree structure mismatch: expected {treedef}, got {tree!r}")
    children, aux = found[1].to_iterable(tree)
    children = list(children)
    if aux != treedef.aux or len(children) != len(treedef.children):
        raise ValueError(f"pytree structure mismatch: expected {treedef}, got {tree!r}")
    for sub, child in zip(treedef.children, children, strict=True):
        _flatten_up_to(sub, child, out)


def broadcast_prefix(prefix: Any, full_treedef: PyTreeDef, tree_for_error: str = "") -> list[Any]:
    """Expand a prefix tree (e.g. `in_axes`) to one entry per leaf of `full_treedef`.
    A None in the prefix is a leaf that covers a whole subtree."""
    out: list[Any] = []

    def go(p: Any, t: PyTreeDef) -> None:
        if p is None or _node_type(p) is None:
            out.extend([p] * t.num_leaves)
            return
        if t.node is None:
            raise ValueError(
                f"{tree_for_error} is not a tree prefix of the arguments: "
                f"got {prefix!r} for arguments of structure {full_treedef}"
            )
        found = _node_type(p)
        children, aux = found[1].to_iterable(p)
        children = list(children)
        if found[0] is not t.node or aux != t.aux or len(children) != len(t.children):
            raise ValueError(
                f"{tree_for_error} is not a tree prefix of the arguments: "
                f"got {prefix!r} for arguments of structure {full_treedef}"
            )
        for c, sub in zip(children, t.children, strict=True):
            go(c, sub)

    go(prefix, full_treedef)
    return out
