"""Oracle: `didax.tree` and the `didax.tree_util` additions against `jax.tree` /
`jax.tree_util`: the same leaves, key paths (`keystr` text), transposes and reductions; the
registration helpers (`register_dataclass`, `register_pytree_node_class`,
`register_pytree_with_keys`, `Partial`); treedef equality; and a node whose aux data is
unhashable (a dict) going through `jit`.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import operator
from collections.abc import Callable
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from didax import tree_util as dtu

jax = pytest.importorskip("jax")
jtu = pytest.importorskip("jax.tree_util")
jnp = pytest.importorskip("jax.numpy")

pytestmark = pytest.mark.oracle

Point = collections.namedtuple("Point", "x y")


class Box:  # plain registration: children by flat index, a dict as aux data
    def __init__(self, value: Any, meta: dict) -> None:
        self.value, self.meta = value, meta


def _box_flatten(b: Box) -> tuple:
    return (b.value,), b.meta


def _box_unflatten(meta: dict, xs: Any) -> Box:
    return Box(xs[0], meta)


@dataclasses.dataclass
class Params:  # register_dataclass, fields inferred
    w: Any
    b: Any
    name: str = dataclasses.field(default="p", metadata=dict(static=True))


@dataclasses.dataclass
class Pair:  # register_dataclass with explicit fields
    left: Any
    right: Any
    tag: int


class Stack:  # register_pytree_node_class
    def __init__(self, items: list, depth: int) -> None:
        self.items, self.depth = items, depth

    def tree_flatten(self) -> tuple:
        return tuple(self.items), self.depth

    @classmethod
    def tree_unflatten(cls, depth: int, items: Any) -> Stack:
        return cls(list(items), depth)


class Keyed:  # register_pytree_with_keys
    def __init__(self, a: Any, b: Any) -> None:
        self.a, self.b = a, b


def _keyed_flatten(tu: Any) -> Any:
    return lambda k: (((tu.GetAttrKey("a"), k.a), (tu.DictKey("bee"), k.b)), None)


class KeyedClass:  # register_pytree_with_keys_class
    def __init__(self, u: Any, w: Any) -> None:
        self.u, self.w = u, w

    def tree_flatten_with_keys(self) -> tuple:
        return ((jtu.GetAttrKey("u"), self.u), (jtu.GetAttrKey("w"), self.w)), None

    @classmethod
    def tree_unflatten(cls, aux: None, children: Any) -> KeyedClass:
        return cls(*children)


class DKeyedClass(KeyedClass):  # the same, with didax's key entries
    def tree_flatten_with_keys(self) -> tuple:
        return ((dtu.GetAttrKey("u"), self.u), (dtu.GetAttrKey("w"), self.w)), None


jtu.register_pytree_with_keys_class(KeyedClass)
dtu.register_pytree_with_keys_class(DKeyedClass)

for _tu in (jtu, dtu):
    _tu.register_pytree_node(Box, _box_flatten, _box_unflatten)
    _tu.register_dataclass(Params)
    _tu.register_dataclass(Pair, data_fields=["left", "right"], meta_fields=["tag"])
    _tu.register_pytree_node_class(Stack)
    _tu.register_pytree_with_keys(Keyed, _keyed_flatten(_tu), lambda _, xs: Keyed(*xs))

TREES = {
    "nested": {"a": [1.0, (2.0, 3.0)], "b": None, "c": {"z": 4.0, "y": 5.0}},
    "namedtuple": [Point(1.0, 2.0), Point(3.0, (4.0,))],
    "box": {"box": Box([1.0, 2.0], {"k": 1})},
    "dataclass": Params(w=[1.0, 2.0], b=3.0, name="layer"),
    "explicit_dataclass": Pair(1.0, [2.0, 3.0], tag=7),
    "node_class": Stack([1.0, {"q": 2.0}], depth=2),
    "with_keys": Keyed(1.0, (2.0, 3.0)),
    "leaf": 5.0,
    "empty": [(), {}, None],
}


@pytest.mark.parametrize("name", sorted(TREES))
def test_leaves_paths_and_keystr(name: str) -> None:
    tree = TREES[name]
    assert dtu.tree_leaves(tree) == jtu.tree_leaves(tree)
    d_pairs, _ = dtu.tree_flatten_with_path(tree)
    j_pairs, _ = jtu.tree_flatten_with_path(tree)
    assert [x for _, x in d_pairs] == [x for _, x in j_pairs]
    assert [repr(p) for p, _ in d_pairs] == [repr(p) for p, _ in j_pairs]
    for options in ({}, {"simple": True, "separator": "/"}, {"separator": "."}):
        assert [dtu.keystr(p, **options) for p, _ in d_pairs] == [
            jtu.keystr(p, **options) for p, _ in j_pairs
        ]
    assert [dtu.keystr(p) for p, _ in didax.tree.leaves_with_path(tree)] == [
        jtu.keystr(p) for p, _ in jax.tree.leaves_with_path(tree)
    ]


@pytest.mark.parametrize("name", sorted(TREES))
def test_map_round_trip_and_map_with_path(name: str) -> None:
    tree = TREES[name]
    d = didax.tree.map(lambda x: x * 2, tree)
    j = jax.tree.map(lambda x: x * 2, tree)
    assert didax.tree.leaves(d) == jax.tree.leaves(j)
    assert type(d) is type(j)
    leaves, treedef = didax.tree.flatten(tree)
    rebuilt = didax.tree.unflatten(treedef, leaves)
    assert didax.tree.structure(rebuilt) == treedef
    assert didax.tree.leaves(rebuilt) == leaves
    d = didax.tree.map_with_path(lambda p, x, y: (dtu.keystr(p), x + y), tree, tree)
    j = jax.tree.map_with_path(lambda p, x, y: (jtu.keystr(p), x + y), tree, tree)
    assert didax.tree.leaves(d) == jax.tree.leaves(j)


def test_register_pytree_with_keys_class() -> None:
    d, j = DKeyedClass(1.0, [2.0, 3.0]), KeyedClass(1.0, [2.0, 3.0])
    assert [dtu.keystr(p) for p, _ in dtu.tree_leaves_with_path(d)] == [
        jtu.keystr(p) for p, _ in jtu.tree_leaves_with_path(j)
    ]
    doubled = didax.tree.map(lambda x: x * 2, d)
    assert isinstance(doubled, DKeyedClass) and doubled.w == [4.0, 6.0]


def test_reduce_all_transpose() -> None:
    tree = [1, (2, 3), {"a": 4}]
    assert didax.tree.reduce(operator.add, tree) == jax.tree.reduce(operator.add, tree)
    assert didax.tree.reduce(operator.add, tree, 10) == jax.tree.reduce(operator.add, tree, 10)
    for t in ([1, True, 0], [1, (True, 2.0)], []):
        assert didax.tree.all(t) == jax.tree.all(t)
    outer, inner = [0, 0], (0, {"u": 0, "v": 0})
    value = [(1, {"u": 2, "v": 3}), (4, {"u": 5, "v": 6})]
    got = didax.tree.transpose(didax.tree.structure(outer), didax.tree.structure(inner), value)
    assert got == jax.tree.transpose(jax.tree.structure(outer), jax.tree.structure(inner), value)
    with pytest.raises(TypeError):
        didax.tree.transpose(didax.tree.structure(outer), didax.tree.structure(inner), [1, 2])


def test_is_leaf() -> None:
    tree = {"a": (1, 2), "b": [3, (4, 5)]}
    is_leaf = lambda x: isinstance(x, tuple)  # noqa: E731
    assert didax.tree.leaves(tree, is_leaf=is_leaf) == jax.tree.leaves(tree, is_leaf=is_leaf)
    d = [dtu.keystr(p) for p, _ in dtu.tree_flatten_with_path(tree, is_leaf=is_leaf)[0]]
    j = [jtu.keystr(p) for p, _ in jtu.tree_flatten_with_path(tree, is_leaf=is_leaf)[0]]
    assert d == j


def test_key_entries_read_as_jax() -> None:
    for name, arg in [
        ("DictKey", "a"),
        ("SequenceKey", 0),
        ("GetAttrKey", "x"),
        ("FlattenedIndexKey", 3),
    ]:
        d, j = getattr(dtu, name)(arg), getattr(jtu, name)(arg)
        assert (repr(d), str(d)) == (repr(j), str(j))
        assert d == getattr(dtu, name)(arg) and hash(d) == hash(getattr(dtu, name)(arg))


def test_treedef_equality_and_unhashable_aux() -> None:
    def same(tu: Any, a: Any, b: Any) -> bool:
        return tu.tree_structure(a) == tu.tree_structure(b)

    pairs = [
        (Box(1.0, {"k": 1}), Box(2.0, {"k": 1})),
        (Box(1.0, {"k": 1}), Box(2.0, {"k": 2})),
        (Params(1.0, 2.0, "a"), Params(3.0, 4.0, "a")),
        (Params(1.0, 2.0, "a"), Params(3.0, 4.0, "b")),
        ({"a": 1, "b": 2}, {"b": 3, "a": 4}),
        ((1, 2), [1, 2]),
    ]
    for a, b in pairs:
        assert same(dtu, a, b) == same(jtu, a, b)
    hash(dtu.tree_structure(Box(1.0, {"k": 1})))  # JAX's treedefs hash too


def test_jit_with_unhashable_aux_data() -> None:
    traces = []

    def f(box: Box) -> Box:
        traces.append(1)
        return Box(box.value * 2, box.meta)

    jf = didax.jit(f)
    out = jf(Box(dnp.ones(2), {"scale": 1}))
    assert isinstance(out, Box) and out.meta == {"scale": 1}
    np.testing.assert_array_equal(np.asarray(out.value), [2.0, 2.0])
    jf(Box(dnp.ones(2), {"scale": 1}))
    assert len(traces) == 1  # equal aux data: the cached program
    out = jf(Box(dnp.ones(2), {"scale": 2}))
    assert len(traces) == 2 and out.meta == {"scale": 2}
    want = jax.jit(f)(Box(jnp.ones(2), {"scale": 2}))
    np.testing.assert_array_equal(np.asarray(out.value), np.asarray(want.value))


def test_dataclasses_through_transformations() -> None:
    p = Params(w=dnp.ones(3), b=dnp.float32(2.0), name="lin")

    def loss(p: Params, x: Any) -> Any:
        return (p.w * x + p.b).sum()

    g = didax.jit(didax.grad(loss))(p, dnp.arange(3.0))
    jg = jax.grad(loss)(Params(jnp.ones(3), jnp.float32(2.0), "lin"), jnp.arange(3.0))
    assert isinstance(g, Params) and g.name == "lin"
    np.testing.assert_allclose(np.asarray(g.w), np.asarray(jg.w))
    np.testing.assert_allclose(np.asarray(g.b), np.asarray(jg.b))
    batched = didax.vmap(lambda s: Stack([s.items[0] * 2], s.depth))(Stack([dnp.ones((4, 2))], 1))
    assert batched.depth == 1 and np.asarray(batched.items[0]).shape == (4, 2)


def test_partial_is_a_pytree() -> None:
    def scale(a: Any, x: Any) -> Any:
        return a * x

    for tu, lib in ((dtu, didax), (jtu, jax)):
        p = tu.Partial(scale, 3.0)
        assert tu.tree_leaves(p) == [3.0]
        assert p(2.0) == 6.0
        assert tu.tree_structure(p) == tu.tree_structure(tu.Partial(scale, 1.0))
        doubled = tu.tree_map(lambda v: v * 2, p)
        assert isinstance(doubled, tu.Partial) and doubled(1.0) == 6.0
        out = lib.jit(lambda q, x: q(x))(p, np.float32(2.0))
        assert float(out) == 6.0
        nested = tu.Partial(functools.partial(scale, 2.0))
        assert tu.tree_leaves(nested) == [] and nested(5.0) == 10.0
    # a Partial returned from jit, holding a traced value, as JAX's vjp tutorials do
    made = didax.jit(lambda a: dtu.Partial(scale, a * 2))(np.float32(1.5))
    assert isinstance(made, dtu.Partial) and float(made(np.float32(2.0))) == 6.0


def test_register_dataclass_errors_as_jax() -> None:
    class NotADataclass:
        pass

    with pytest.raises(TypeError):
        jtu.register_dataclass(NotADataclass)
    with pytest.raises(TypeError):
        dtu.register_dataclass(NotADataclass)


def _dataclass_registrations() -> dict[str, Callable[[Any], Any]]:
    # each case makes fresh classes: a registration is global and may happen once per class
    def two(**extra: Any) -> type:
        @dataclasses.dataclass
        class Two:
            x: Any
            y: Any = dataclasses.field(default=0, **extra)

        return Two

    return {
        "init_false_inferred": lambda tu: tu.register_dataclass(two(init=False)),
        "drop_fields_inferred": lambda tu: tu.register_dataclass(two(), drop_fields=["y"]),
        "missing_field": lambda tu: tu.register_dataclass(two(), data_fields=["x"], meta_fields=[]),
        "overlap": lambda tu: tu.register_dataclass(
            two(), data_fields=["x", "y"], meta_fields=["y"]
        ),
        "one_of_two_given": lambda tu: tu.register_dataclass(two(), data_fields=["x", "y"]),
        "drop_fields_explicit": lambda tu: tu.register_dataclass(
            two(), data_fields=["x"], meta_fields=[], drop_fields=["y"]
        ),
        "init_false_explicit": lambda tu: tu.register_dataclass(
            two(init=False), data_fields=["x"], meta_fields=[]
        ),
    }


@pytest.mark.parametrize("case", list(_dataclass_registrations()))
def test_register_dataclass_field_checks_as_jax(case: str) -> None:
    def outcome(tu: Any) -> str:
        try:
            _dataclass_registrations()[case](tu)
        except (TypeError, ValueError) as e:
            return type(e).__name__
        return "ok"

    want = outcome(jtu)
    assert outcome(dtu) == want
    assert want == (
        "ok"
        if case.endswith("explicit")
        else "TypeError"
        if case == "one_of_two_given"
        else "ValueError"
    )


class BadFlatten:  # registered per case with a flatten returning something else
    def __init__(self, v: Any) -> None:
        self.v = v


BAD_FLATTENS: dict[str, Callable[[Any], Any]] = {
    "an_int": lambda b: 5,
    "a_triple": lambda b: ((b.v,), None, 3),
    "a_list_pair": lambda b: [[b.v], None],
    "children_not_iterable": lambda b: (b.v, None),
}


@pytest.mark.parametrize("case", sorted(BAD_FLATTENS))
@pytest.mark.parametrize("where", ["tree_flatten", "tree_flatten_with_path", "jit"])
def test_a_flatten_that_returns_no_pair_is_named_as_jax(case: str, where: str) -> None:
    def outcome(lib: Any, tu: Any) -> tuple[type, str]:
        node = type(f"BadFlatten_{case}", (BadFlatten,), {})
        tu.register_pytree_node(node, BAD_FLATTENS[case], lambda aux, xs: node(*xs))
        run = {
            "tree_flatten": tu.tree_flatten,
            "tree_flatten_with_path": tu.tree_flatten_with_path,
            "jit": lib.jit(lambda x: x),
        }[where]
        with pytest.raises(Exception) as info:
            run([node(1.0)])
        return type(info.value), str(info.value)

    want_type, want = outcome(jax, jtu)
    got_type, got = outcome(didax, dtu)
    assert got_type is want_type is ValueError
    # JAX's words with the node's name: "The to_iterable function for a custom PyTree node
    # should return a (children, aux_data) tuple[ where 'children' is iterable], got ..."
    assert f"custom PyTree node BadFlatten_{case} should return a " in got
    assert got.split("should return a ")[1] == want.split("should return a ")[1]


@pytest.mark.parametrize(
    "tree", [{1: 1.0, "a": 2.0}, {"x": [{None: 1.0, "a": 2.0}]}], ids=["int_str", "nested"]
)
@pytest.mark.parametrize("where", ["tree_flatten", "tree_flatten_with_path", "jit"])
def test_dict_keys_that_do_not_compare_as_jax(tree: dict, where: str) -> None:
    def outcome(lib: Any, tu: Any) -> BaseException:
        run = {
            "tree_flatten": tu.tree_flatten,
            "tree_flatten_with_path": tu.tree_flatten_with_path,
            "jit": lib.jit(lambda x: x),
        }[where]
        with pytest.raises(Exception) as info:
            run(tree)
        return info.value

    want, got = outcome(jax, jtu), outcome(didax, dtu)
    assert type(got) is type(want) is ValueError
    assert str(got).startswith(str(want).rstrip("."))  # JAX's words, then the keys
    assert "do not compare" in str(got) and "'a'" in str(got)
