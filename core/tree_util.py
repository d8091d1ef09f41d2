"""Pytrees: nested tuples, lists, dicts, None and namedtuples, and registered node types.

Layer 1 (autodidax part 2, "Pytrees and flattening user functions"). Transformations work on
flat lists of arrays; `tree_flatten` turns a user's nested arguments into leaves and a
`PyTreeDef` that `tree_unflatten` uses to rebuild them. Like `jax.tree_util`, with its key
paths (`tree_flatten_with_path`, `keystr`) and registration helpers (`register_dataclass`,
`register_pytree_node_class`, `register_pytree_with_keys`) and `Partial`.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import threading
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

_Flatten = Callable[[Any], tuple[Iterable[Any], Hashable]]
_Unflatten = Callable[[Hashable, Iterable[Any]], Any]


class _NodeType:
    # a plain class: a frozen dataclass cost ~0.6 ms of `import didax`
    __slots__ = ("name", "to_iterable", "from_iterable", "with_keys")

    def __init__(
        self,
        name: str,
        to_iterable: _Flatten,
        from_iterable: _Unflatten,
        # (children's key entries, aux) for key paths; None: FlattenedIndexKey(i)
        with_keys: Callable[[Any], tuple[Iterable[tuple[Any, Any]], Hashable]] | None = None,
    ) -> None:
        self.name, self.to_iterable, self.from_iterable = name, to_iterable, from_iterable
        self.with_keys = with_keys

    def flatten(self, x: Any) -> tuple[list[Any], Hashable]:
        """(children, aux) from the registered flatten, checked as JAX checks it."""
        return _checked_pair(self.name, "flatten", self.to_iterable(x))

    def keyed_children(self, x: Any) -> list[tuple[Any, Any]]:
        assert self.with_keys is not None, f"{self.name} was registered without keys"
        pairs, _ = _checked_pair(self.name, "flatten_with_keys", self.with_keys(x))
        return [tuple(kc) for kc in pairs]


def _checked_pair(name: str, function: str, out: Any) -> tuple[list[Any], Hashable]:
    # JAX's ValueError, naming the node type: a user's flatten returning anything else
    # would otherwise fail later with "cannot unpack non-iterable int object"
    expected = f"The {function} function of the custom PyTree node {name} should return a "
    if not (isinstance(out, tuple) and len(out) == 2):
        raise ValueError(f"{expected}(children, aux_data) tuple, got {out!r}")
    try:
        children = list(out[0])
    except TypeError:
        raise ValueError(
            f"{expected}(children, aux_data) tuple where 'children' is iterable, got {out!r}"
        ) from None
    return children, out[1]


def _sorted_keys(d: dict) -> list[Any]:
    try:
        return sorted(d)
    except TypeError as e:  # JAX's ValueError, with the keys that do not compare
        raise ValueError(
            "Comparator raised exception while sorting pytree dictionary keys: a dict is "
            f"flattened in sorted key order, and its keys {list(d)!r} do not compare ({e})"
        ) from None


_registry: dict[type, _NodeType] = {}
_registry_lock = threading.Lock()  # registration checks then inserts; lookups need no lock


def register_pytree_node(
    nodetype: type, flatten_func: _Flatten, unflatten_func: _Unflatten
) -> None:
    """Make `nodetype` a pytree node. Like `jax.tree_util.register_pytree_node`:
    `flatten_func(x) -> (children, aux_data)`, `unflatten_func(aux_data, children) -> x`."""
    with _registry_lock:
        if nodetype in _registry:
            raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}.")
        _registry[nodetype] = _NodeType(nodetype.__name__, flatten_func, unflatten_func)


register_pytree_node(tuple, lambda t: (t, None), lambda _, xs: tuple(xs))
register_pytree_node(list, lambda lst: (lst, None), lambda _, xs: list(xs))
register_pytree_node(
    dict,
    lambda d: ([d[k] for k in _sorted_keys(d)], tuple(_sorted_keys(d))),
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

    def __hash__(self) -> int:
        # aux data may be unhashable (a dict): JAX's treedefs hash, and compare it by ==
        try:
            aux = hash(self.aux)
        except TypeError:
            aux = 0
        return hash((self.node, aux, self.children, self.num_leaves))

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        return tree_unflatten(self, leaves)

    def flatten_up_to(self, tree: Any) -> list[Any]:
        return flatten_up_to(self, tree)

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
    children, aux = node.flatten(tree)
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


def builder(treedef: PyTreeDef) -> Callable[[tuple], Any] | None:
    """`tree_unflatten(treedef, ·)` prebuilt as one function of a tuple of leaves, for a
    structure of tuples, lists, dicts and None (no user code runs when it is rebuilt); None
    for any other node. The hot path of a jitted call with several outputs: no per-call walk
    of the treedef, no registry lookups, no leaf-count checks (the tuple has exactly its
    leaves). A tuple of leaves is a slice of the leaves' tuple, and a node whose children are
    leaves and such tuples (a list of (w, b) pairs) is picked by one `operator.itemgetter`:
    one C call, no Python frame per child."""
    return _builder(treedef, 0)


_BUILT_IN = (tuple, list, dict, type(None))


def _builder(treedef: PyTreeDef, start: int) -> Callable[[tuple], Any] | None:
    node = treedef.node
    if node is None:
        return operator.itemgetter(start)
    if node not in _BUILT_IN:
        return None
    stop = start + treedef.num_leaves
    if node is type(None):
        return lambda leaves: None
    if node is tuple and _leaves_only(treedef):  # the pair (w, b): a slice, in one C call
        return operator.itemgetter(slice(start, stop))
    if node is dict and _leaves_only(treedef):
        keys = treedef.aux
        if len(keys) == 2:  # a layer's {"b", "w"}: a dict display, 2x faster than dict(zip())
            k0, k1, i1 = *keys, start + 1
            return lambda leaves: {k0: leaves[start], k1: leaves[i1]}
        return lambda leaves: dict(zip(keys, leaves[start:stop]))
    picks: list[int | slice] = []  # each child as one index or one slice, if it can be
    parts = []
    for child in treedef.children:
        part = _builder(child, start)
        if part is None:
            return None
        parts.append(part)
        if child.node is None:
            picks.append(start)
        elif child.node is tuple and _leaves_only(child):
            picks.append(slice(start, start + child.num_leaves))
        start += child.num_leaves
    if len(picks) == len(parts) > 1 and node is not dict:
        pick = operator.itemgetter(*picks)  # a tuple of the children
        return pick if node is tuple else lambda leaves: list(pick(leaves))
    if node is tuple:
        return lambda leaves: tuple([part(leaves) for part in parts])
    if node is list:
        return lambda leaves: [part(leaves) for part in parts]
    keys = treedef.aux
    return lambda leaves: dict(zip(keys, [part(leaves) for part in parts]))


def _leaves_only(treedef: PyTreeDef) -> bool:
    return all(c.node is None for c in treedef.children)


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
    """Like `jax.tree_util.tree_leaves`: `tree_flatten`'s leaves, without building the
    treedef (`block_until_ready` on a loop's results walks thousands of nodes)."""
    if is_leaf is not None:
        return tree_flatten(tree, is_leaf)[0]
    leaves: list[Any] = []
    _collect(tree, leaves)
    return leaves


def _collect(tree: Any, leaves: list[Any]) -> None:
    t = type(tree)
    if t is list or t is tuple:  # the built-in nodes first, as `_flatten` takes them
        for child in tree:
            # a leaf (no registered type, not a namedtuple) appended here, not in a call
            if type(child) in _registry or isinstance(child, tuple):
                _collect(child, leaves)
            else:
                leaves.append(child)
    elif t is dict:
        for k in _sorted_keys(tree):
            _collect(tree[k], leaves)
    elif tree is not None:
        found = _node_type(tree)
        if found is None:
            leaves.append(tree)
        else:
            for child in found[1].flatten(tree)[0]:
                _collect(child, leaves)


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
    children, aux = found[1].flatten(tree)
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
        children, aux = found[1].flatten(p)
        if found[0] is not t.node or aux != t.aux or len(children) != len(t.children):
            raise ValueError(
                f"{tree_for_error} is not a tree prefix of the arguments: "
                f"got {prefix!r} for arguments of structure {full_treedef}"
            )
        for c, sub in zip(children, t.children, strict=True):
            go(c, sub)

    go(prefix, full_treedef)
    return out


# ----------------------------------------------------------------------------- tree functions


def tree_reduce(
    function: Callable[[Any, Any], Any],
    tree: Any,
    initializer: Any = _SENTINEL,
    is_leaf: Callable[[Any], bool] | None = None,
) -> Any:
    """Like `jax.tree_util.tree_reduce`."""
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _SENTINEL:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """Like `jax.tree_util.tree_all`."""
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(
    outer_treedef: PyTreeDef, inner_treedef: PyTreeDef, pytree_to_transpose: Any
) -> Any:
    """Turn a tree of structure outer-of-inner into inner-of-outer. Like
    `jax.tree_util.tree_transpose`."""
    leaves, treedef = tree_flatten(pytree_to_transpose)
    if treedef.num_leaves != outer_treedef.num_leaves * inner_treedef.num_leaves:
        raise TypeError(
            f"Tree structure mismatch; expected {outer_treedef} of {inner_treedef}, got {treedef}"
        )
    inners = [
        flatten_up_to(inner_treedef, x) for x in flatten_up_to(outer_treedef, pytree_to_transpose)
    ]
    columns = [tree_unflatten(outer_treedef, list(col)) for col in zip(*inners, strict=True)]
    return tree_unflatten(inner_treedef, columns)


# ----------------------------------------------------------------------------- key paths
# A leaf's key path names how to reach it: one key entry per node on the way, of the kind
# the node type gives (sequences by index, dicts by key, namedtuples and dataclasses by
# attribute, other registered nodes by their flattened child's index).


@dataclass(frozen=True)
class SequenceKey:
    """Like `jax.tree_util.SequenceKey`."""

    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"


@dataclass(frozen=True)
class DictKey:
    """Like `jax.tree_util.DictKey`."""

    key: Hashable

    def __str__(self) -> str:
        return f"[{self.key!r}]"


@dataclass(frozen=True)
class GetAttrKey:
    """Like `jax.tree_util.GetAttrKey`."""

    name: str

    def __str__(self) -> str:
        return f".{self.name}"


@dataclass(frozen=True)
class FlattenedIndexKey:
    """Like `jax.tree_util.FlattenedIndexKey`."""

    key: int

    def __str__(self) -> str:
        return f"[<flat index {self.key}>]"


def _simple_key_str(entry: Any) -> str:
    for field in ("key", "idx", "name"):
        if hasattr(entry, field):
            return str(getattr(entry, field))
    return str(entry)


def keystr(keys: tuple[Any, ...], *, simple: bool = False, separator: str = "") -> str:
    """A key path as text (`['a'][0].x`). Like `jax.tree_util.keystr`."""
    return separator.join(map(_simple_key_str if simple else str, keys))


def _keyed_children(tree: Any, t: type, node: _NodeType) -> list[tuple[Any, Any]]:
    if node.with_keys is not None:
        return node.keyed_children(tree)
    if t is tuple or t is list:
        return [(SequenceKey(i), c) for i, c in enumerate(tree)]
    if t is dict:
        return [(DictKey(k), tree[k]) for k in _sorted_keys(tree)]
    if t not in _registry and hasattr(tree, "_fields"):  # namedtuple
        return [(GetAttrKey(f), getattr(tree, f)) for f in tree._fields]
    return [(FlattenedIndexKey(i), c) for i, c in enumerate(node.flatten(tree)[0])]


def treedef_child_keys(treedef: PyTreeDef) -> list[Any]:
    """The key entry of each child of `treedef`'s root, as `tree_flatten_with_path` gives it
    (from the registered flatten, so a node may have fewer children than fields). The root is
    rebuilt over placeholder leaves to ask, as JAX's `equality_errors_pytreedef` does."""
    if treedef.node is None:
        return []
    one_level = PyTreeDef(treedef.node, treedef.aux, (_LEAF,) * len(treedef.children), 0)
    root = tree_unflatten(one_level, [object() for _ in treedef.children])
    found = _node_type(root)
    if found is None:  # not raised by a registered node type: an internal invariant
        raise AssertionError(f"{treedef} rebuilt a leaf")
    return [key for key, _ in _keyed_children(root, *found)]


def _with_path(tree: Any, path: tuple, out: list, is_leaf: Callable[[Any], bool] | None) -> None:
    found = None if (is_leaf is not None and is_leaf(tree)) else _node_type(tree)
    if found is None:
        out.append((path, tree))
        return
    for key, child in _keyed_children(tree, *found):
        _with_path(child, (*path, key), out, is_leaf)


def tree_flatten_with_path(
    tree: Any, is_leaf: Callable[[Any], bool] | None = None
) -> tuple[list[tuple[tuple[Any, ...], Any]], PyTreeDef]:
    """(key path, leaf) pairs and the structure. Like `jax.tree_util.tree_flatten_with_path`."""
    out: list[tuple[tuple[Any, ...], Any]] = []
    _with_path(tree, (), out, is_leaf)
    return out, tree_structure(tree, is_leaf)


def tree_leaves_with_path(
    tree: Any, is_leaf: Callable[[Any], bool] | None = None
) -> list[tuple[tuple[Any, ...], Any]]:
    """Like `jax.tree_util.tree_leaves_with_path`."""
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(
    f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None
) -> Any:
    """`tree_map` whose `f` also gets each leaf's key path first. Like
    `jax.tree_util.tree_map_with_path`."""
    pairs, treedef = tree_flatten_with_path(tree, is_leaf)
    others = [flatten_up_to(treedef, r) for r in rest]
    outs = [f(path, x, *xs) for (path, x), *xs in zip(pairs, *others, strict=True)]
    return tree_unflatten(treedef, outs)


# ----------------------------------------------------------------------------- registration


def register_pytree_with_keys(
    nodetype: type,
    flatten_with_keys: Callable[[Any], tuple[Iterable[tuple[Any, Any]], Hashable]],
    unflatten_func: _Unflatten,
    flatten_func: _Flatten | None = None,
) -> None:
    """Make `nodetype` a pytree node whose children have key entries. Like
    `jax.tree_util.register_pytree_with_keys`."""
    if nodetype in _registry:
        raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}.")

    def flatten(x: Any) -> tuple[list[Any], Hashable]:
        pairs, aux = _checked_pair(nodetype.__name__, "flatten_with_keys", flatten_with_keys(x))
        return [c for _, c in pairs], aux

    node = _NodeType(nodetype.__name__, flatten_func or flatten, unflatten_func, flatten_with_keys)
    _registry[nodetype] = node


def register_pytree_node_class(cls: type) -> type:
    """Class decorator: `cls.tree_flatten()` and `cls.tree_unflatten(aux, children)` make it
    a pytree node. Like `jax.tree_util.register_pytree_node_class`."""
    register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
    return cls


def register_pytree_with_keys_class(cls: type) -> type:
    """Class decorator: `cls.tree_flatten_with_keys()` and `cls.tree_unflatten(aux,
    children)` make it a pytree node with keys. Like
    `jax.tree_util.register_pytree_with_keys_class`."""
    flatten = getattr(cls, "tree_flatten", None)
    register_pytree_with_keys(
        cls,
        operator.methodcaller("tree_flatten_with_keys"),
        cls.tree_unflatten,
        None if flatten is None else operator.methodcaller("tree_flatten"),
    )
    return cls


def _check_dataclass_fields(nodetype: type, named: set[str], drop_fields: Sequence[str]) -> None:
    # JAX's rule: the named fields are exactly the `init=True` fields not in drop_fields
    init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
    if named == init_fields:
        return
    msg = (
        f"register_dataclass({nodetype.__name__}): data_fields and meta_fields must include "
        "all dataclass fields with init=True and only them."
    )
    if missing := init_fields - named:
        msg += f" Missing fields: {sorted(missing)}; add them to drop_fields to leave them out."
    if unexpected := named - init_fields:
        msg += f" Unexpected fields (init=False or dropped): {sorted(unexpected)}."
    raise ValueError(msg)


def register_dataclass(
    nodetype: type,
    data_fields: Sequence[str] | None = None,
    meta_fields: Sequence[str] | None = None,
    drop_fields: Sequence[str] = (),
) -> type:
    """A dataclass as a pytree node: `data_fields` are children, `meta_fields` aux data
    (by default, fields with `metadata=dict(static=True)`). Like
    `jax.tree_util.register_dataclass`; usable as a decorator."""
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError(
                "register_dataclass: data_fields and meta_fields must both be given when "
                f"either is; got data_fields={data_fields} meta_fields={meta_fields}"
            )
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(
                "register_dataclass: data_fields and meta_fields are required when "
                f"{nodetype} is not a dataclass"
            )
        fields = dataclasses.fields(nodetype)  # all of them: JAX checks init/drop below
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
    data_names, meta_names = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        _check_dataclass_fields(nodetype, {*data_names, *meta_names}, drop_fields)
    if overlap := set(data_names) & set(meta_names):
        raise ValueError(
            f"register_dataclass({nodetype.__name__}): data_fields and meta_fields must not "
            f"overlap; both name {sorted(overlap)}"
        )

    def flatten_with_keys(x: Any) -> tuple[list[tuple[Any, Any]], Hashable]:
        pairs = [(GetAttrKey(n), getattr(x, n)) for n in data_names]
        return pairs, tuple(getattr(x, n) for n in meta_names)

    def unflatten(aux: Hashable, children: Iterable[Any]) -> Any:
        kwargs = dict(zip(data_names, children, strict=True))
        kwargs.update(zip(meta_names, aux, strict=True))  # type: ignore[arg-type]
        return nodetype(**kwargs)

    register_pytree_with_keys(nodetype, flatten_with_keys, unflatten)
    return nodetype


class Partial(functools.partial):
    """A `functools.partial` that is a pytree: its arguments are children, its function the
    aux data, so it can go into and out of transformed functions. Like
    `jax.tree_util.Partial`."""

    def __new__(cls, func: Callable[..., Any], *args: Any, **kw: Any) -> Partial:
        if isinstance(func, functools.partial):
            # keep `func`'s own bound arguments out of this node's children (Python would
            # merge them): call it through a plain function
            inner = func

            def func(*a: Any, **k: Any) -> Any:
                return inner(*a, **k)

        return super().__new__(cls, func, *args, **kw)


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, xs: Partial(func, *xs[0], **xs[1]),
)
