"""Pytrees: flatten/unflatten/map/structure/register_pytree_node on tuples, lists, dicts
(sorted keys), None, namedtuples and custom nodes; leaves and structures compared with
`jax.tree_util` where JAX is installed."""

from __future__ import annotations

import operator
import sys
from collections import namedtuple

import pytest
from didax import tree_util as tu

Point = namedtuple("Point", "x y")


class Box:
    def __init__(self, value, label):
        self.value, self.label = value, label


tu.register_pytree_node(
    Box, lambda b: ((b.value,), b.label), lambda label, children: Box(children[0], label)
)

TREES = [
    1,
    (1,),
    [1, 2],
    {"b": 1, "a": (2, 3)},
    None,
    (None, 1),
    Point(1, [2]),
    {"a": None},
    [(), []],
    ((1,), {}),
    {"z": [1, {"y": 2, "x": (3, None)}], "a": Point(4, 5)},
]


@pytest.mark.parametrize("tree", TREES, ids=repr)
def test_flatten_unflatten_roundtrip(tree) -> None:
    leaves, treedef = tu.tree_flatten(tree)
    assert tu.tree_unflatten(treedef, leaves) == tree
    assert treedef.num_leaves == len(leaves)
    assert tu.tree_leaves(tree) == leaves
    assert tu.tree_structure(tree) == treedef


def test_dict_keys_are_sorted() -> None:
    leaves, treedef = tu.tree_flatten({"b": 1, "a": 2, "c": 3})
    assert leaves == [2, 1, 3]
    out = tu.tree_unflatten(treedef, ["A", "B", "C"])
    assert out == {"a": "A", "b": "B", "c": "C"}


def test_none_is_a_node_without_children() -> None:
    assert tu.tree_leaves([None, 1, (None,)]) == [1]
    assert tu.tree_structure(None).num_leaves == 0
    assert tu.tree_map(lambda x: x + 1, (None, 1)) == (None, 2)


def test_namedtuple_is_rebuilt_with_its_type() -> None:
    out = tu.tree_map(lambda x: x * 10, Point(1, (2, 3)))
    assert type(out) is Point and out == Point(10, (20, 30))
    assert tu.tree_structure(Point(1, 2)) != tu.tree_structure((1, 2))


def test_custom_node() -> None:
    leaves, treedef = tu.tree_flatten([Box((1, 2), "lbl"), 3])
    assert leaves == [1, 2, 3]
    rebuilt = tu.tree_unflatten(treedef, [4, 5, 6])
    assert isinstance(rebuilt[0], Box) and rebuilt[0].value == (4, 5)
    assert rebuilt[0].label == "lbl" and rebuilt[1] == 6
    assert tu.tree_structure(Box(1, "a")) != tu.tree_structure(Box(1, "b"))  # aux data counts


def test_duplicate_registration_raises() -> None:
    with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration"):
        tu.register_pytree_node(Box, lambda b: ((), None), lambda aux, ch: Box(None, None))


def test_unflatten_with_wrong_number_of_leaves() -> None:
    treedef = tu.tree_structure((1, [2, 3]))
    with pytest.raises(ValueError, match="Too few leaves"):
        tu.tree_unflatten(treedef, [1, 2])
    with pytest.raises(ValueError, match="Too many leaves"):
        tu.tree_unflatten(treedef, [1, 2, 3, 4])


def test_tree_map_several_trees() -> None:
    assert tu.tree_map(lambda a, b: a + b, (1, [2]), (10, [20])) == (11, [22])
    # the first tree's leaves may be subtrees of the others
    assert tu.tree_map(lambda a, b: (a, b), (1, 2), ([3], {"x": 4})) == ((1, [3]), (2, {"x": 4}))


@pytest.mark.parametrize("other", [(1, 2, 3), [1, 2], {"a": 1, "b": 2}])
def test_tree_map_structure_mismatch_raises(other) -> None:
    with pytest.raises(ValueError):
        tu.tree_map(lambda a, b: a, (1, 2), other)


def test_is_leaf() -> None:
    assert tu.tree_leaves([1, (2, None)], is_leaf=lambda x: x is None) == [1, 2, None]
    assert tu.tree_leaves([1, (2, 3)], is_leaf=lambda x: isinstance(x, tuple)) == [1, (2, 3)]


def test_structures_are_hashable_and_compare_by_shape() -> None:
    s1, s2 = tu.tree_structure((1, {"a": 2})), tu.tree_structure((5, {"a": 6}))
    assert s1 == s2 and hash(s1) == hash(s2)
    assert tu.tree_structure((1, 2)) != tu.tree_structure([1, 2])
    assert tu.tree_structure({"a": 1}) != tu.tree_structure({"b": 1})


def test_broadcast_prefix() -> None:
    treedef = tu.tree_structure(((1, 2), {"a": 3, "b": (4, 5)}))
    assert tu.broadcast_prefix((0, {"a": None, "b": 1}), treedef) == [0, 0, None, 1, 1]
    assert tu.broadcast_prefix(None, treedef) == [None] * 5
    with pytest.raises(ValueError, match="not a tree prefix"):
        tu.broadcast_prefix((0, 1, 2), treedef, "vmap in_axes")


# ----------------------------------------------------------------------------- vs JAX


@pytest.mark.oracle
@pytest.mark.parametrize("tree", TREES, ids=repr)
def test_matches_jax_tree_util(tree) -> None:
    jtu = pytest.importorskip("jax.tree_util")
    j_leaves, j_def = jtu.tree_flatten(tree)
    d_leaves, d_def = tu.tree_flatten(tree)
    assert d_leaves == j_leaves
    assert repr(d_def) == repr(j_def)
    assert d_def.num_leaves == j_def.num_leaves and d_def.num_nodes == j_def.num_nodes


BUILT_TREES = [
    1,
    (),
    [],
    {},
    None,
    (1, 2),
    [1, (2, 3), {"b": 4, "a": [5, None]}],
    {"x": [(1, 2), (3, 4)], "y": None, "z": ()},
    ((1,), [[2]], {"k": {"j": 3}}),
]


@pytest.mark.parametrize("tree", BUILT_TREES, ids=repr)
def test_builder_rebuilds_what_tree_unflatten_does(tree) -> None:
    leaves, treedef = tu.tree_flatten(tree)
    build = tu.builder(treedef)
    fresh = tuple(f"leaf{i}" for i in range(len(leaves)))
    assert build is not None
    assert build(fresh) == tu.tree_unflatten(treedef, fresh)
    assert type(build(fresh)) is type(tu.tree_unflatten(treedef, fresh))


def test_builder_declines_other_nodes() -> None:
    pair = namedtuple("pair", "a b")
    assert tu.builder(tu.tree_structure([pair(1, 2)])) is None
    assert tu.builder(tu.tree_structure({"p": tu.Partial(abs, 1)})) is None


@pytest.mark.parametrize(
    "tree",
    [*BUILT_TREES, [namedtuple("pair", "a b")(1, (2, None))], tu.Partial(abs, 3)],
    ids=repr,
)
def test_tree_leaves_are_tree_flattens(tree) -> None:
    assert tu.tree_leaves(tree) == tu.tree_flatten(tree)[0]


def test_builder_makes_a_tuple_of_leaves_in_one_c_call() -> None:
    # (w, b) pairs, the commonest output node: `operator.itemgetter` builds the tuple (the
    # Python slice-and-tuple lambda cost 40% more per pair, issue 26)
    pair = tu.builder(tu.tree_structure((1, 2)))
    assert type(pair) is operator.itemgetter and pair(("a", "b")) == ("a", "b")
    assert tu.builder(tu.tree_structure((1,)))(("a",)) == ("a",)
    assert tu.builder(tu.tree_structure(((), 1)))(("a",)) == ((), "a")


def test_builder_picks_a_list_of_pairs_with_one_itemgetter() -> None:
    # a list of (w, b) pairs: one itemgetter of slices of the leaves' tuple picks every pair
    # (a Python frame calling one itemgetter per pair took 40% longer, issue 26); a tuple
    # of leaves and pairs is that itemgetter itself
    build = tu.builder(tu.tree_structure([(1, 2)] * 3))
    frames: list[str] = []
    sys.setprofile(lambda frame, event, arg: event == "call" and frames.append(event))
    try:
        built = build(tuple("abcdef"))
    finally:
        sys.setprofile(None)
    assert built == [("a", "b"), ("c", "d"), ("e", "f")]
    assert len(frames) == 1  # the builder's own (no comprehension, no frame per pair)
    mixed = tu.builder(tu.tree_structure((1, (2, 3), ())))
    assert type(mixed) is operator.itemgetter
    assert mixed(tuple("abc")) == ("a", ("b", "c"), ())


def test_builder_makes_a_two_key_dict_as_a_display() -> None:
    # a layer's {"w", "b"}: a dict display in a closure (dict(zip(...)) took twice as long)
    build = tu.builder(tu.tree_structure([{"w": 1, "b": 2}] * 2))
    assert build(tuple("abcd")) == [{"b": "a", "w": "b"}, {"b": "c", "w": "d"}]
    assert list(build(tuple("abcd"))[0]) == ["b", "w"]  # tree_unflatten's key order
    one = tu.builder(tu.tree_structure({"w": 1, "b": 2}))
    assert "zip" not in one.__code__.co_names
