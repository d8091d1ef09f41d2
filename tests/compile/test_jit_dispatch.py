"""`jit`'s fast path (`fast_path.py`) against its general path and against JAX:
the same values, dtypes, weak types, errors and trace counts, for every kind of argument the
fast path takes (Arrays, NumPy arrays and scalars, Python scalars, tuples, lists, dicts, None,
keyword arguments), and the general path for everything it does not (tracers, namedtuples,
static arguments, effects)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import namedtuple
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from didax import fast_path
from didax.runtime import client
from didax.tree_util import tree_leaves


def _counting(jf: Any) -> list[int]:
    """Count the calls of `jf` that take the general path."""
    general = []
    slow = jf._call

    def counted(args: tuple, kwargs: dict) -> Any:
        general.append(1)
        return slow(args, kwargs)

    jf._call = counted  # an instance attribute: `__call__` looks `_call` up on the instance
    return general


def _same(a: Any, b: Any) -> None:
    la, lb = tree_leaves(a), tree_leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb, strict=True):
        assert (x.shape, x.dtype, x.weak_type) == (y.shape, y.dtype, y.weak_type)
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def _body(x: Any, y: Any = None) -> Any:
    leaves = tree_leaves(x) + tree_leaves(y)
    total = leaves[0] * 2
    for leaf in leaves[1:]:
        total = total + leaf
    return {"sum": total, "first": leaves[0], "pair": (total, -total)}


# (name, args builder, kwargs builder): each builder makes fresh values on every call, so the
# second call finds the signature in the fast table, not the same objects
CASES = [
    ("device array", lambda: (didax.device_put(np.arange(3, dtype=np.float32)),), dict),
    ("eager array", lambda: (dnp.arange(3.0),), dict),
    ("jit output", lambda: (didax.jit(lambda: dnp.ones(3))(),), dict),
    ("numpy f32", lambda: (np.arange(3, dtype=np.float32),), dict),
    ("numpy f64 -> f32", lambda: (np.arange(3.0),), dict),
    ("numpy int64 -> int32", lambda: (np.arange(3),), dict),
    ("numpy bool", lambda: (np.array([True, False]),), dict),
    ("python float (weak)", lambda: (1.5,), dict),
    ("python int (weak)", lambda: (3,), dict),
    ("python bool", lambda: (True,), dict),
    ("numpy float32 scalar", lambda: (np.float32(2.5),), dict),
    ("numpy float64 scalar", lambda: (np.float64(2.5),), dict),
    ("numpy int64 scalar", lambda: (np.int64(7),), dict),
    ("tuple", lambda: ((dnp.ones(2), 2.0),), dict),
    ("list", lambda: ([np.ones(2, np.float32), dnp.ones(2)],), dict),
    ("dict", lambda: ({"b": dnp.ones(2), "a": np.float32(3)},), dict),
    ("nested with None", lambda: ({"a": [dnp.ones(2), None], "b": (1.0,)},), dict),
    ("two device arrays", lambda: (didax.device_put(np.ones(2, np.float32)),) * 2, dict),
    ("array then numpy", lambda: (dnp.ones(2), np.ones(2, np.float32)), dict),
    ("keyword", lambda: (dnp.ones(2),), lambda: {"y": dnp.full(2, 3.0)}),
    ("keyword pytree", lambda: (1.0,), lambda: {"y": {"u": np.ones(2, np.float32), "v": 2}}),
]


@pytest.mark.parametrize("name, make_args, make_kwargs", CASES, ids=[c[0] for c in CASES])
def test_fast_path_gives_what_the_general_path_gives(name, make_args, make_kwargs) -> None:
    jf = didax.jit(lambda *args, **kwargs: _body(*args, **kwargs))  # its own cache
    general = _counting(jf)
    first = jf(*make_args(), **make_kwargs())  # general path: traces, compiles, remembers
    second = jf(*make_args(), **make_kwargs())  # fast path
    assert len(general) == 1, f"{name}: the second call did not take the fast path"
    forced = jf._call(make_args(), make_kwargs())  # general path again, same entry
    _same(first, second)
    _same(second, forced)
    assert jf.compilations == 1


@pytest.mark.oracle
@pytest.mark.parametrize("name, make_args, make_kwargs", CASES, ids=[c[0] for c in CASES])
def test_fast_path_matches_jax(name, make_args, make_kwargs) -> None:
    jax = pytest.importorskip("jax")
    jf, jj = didax.jit(_body), jax.jit(_body)
    jf(*make_args(), **make_kwargs())
    ours = jf(*make_args(), **make_kwargs())

    def to_jax(x: Any) -> Any:
        return jax.device_put(np.asarray(x)) if isinstance(x, didax.Array) else x

    args = jax.tree_util.tree_map(to_jax, make_args(), is_leaf=lambda x: x is None)
    kwargs = jax.tree_util.tree_map(to_jax, make_kwargs())
    theirs = jj(*args, **kwargs)
    la, lb = tree_leaves(ours), jax.tree_util.tree_leaves(theirs)
    for x, y in zip(la, lb, strict=True):
        assert (x.shape, x.dtype, x.weak_type) == (y.shape, y.dtype, y.weak_type), name
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def _trace_counts(lib: Any, numpy: Any, calls: list) -> list[int]:
    traces = []

    def f(x, y=0):
        traces.append(1)
        return tree_leaves(x)[0] + y

    jf = lib.jit(f)
    counts = []
    for make in calls:
        args, kwargs = make(lib, numpy)
        jf(*args, **kwargs)
        counts.append(len(traces))
    return counts


# A sequence of calls, each (lib, numpy) -> (args, kwargs): new types retrace, new values don't.
RETRACE_CALLS = [
    lambda lib, np_: ((1.0,), {}),
    lambda lib, np_: ((2.0,), {}),  # a new value: no retrace
    lambda lib, np_: ((np.float32(2.0),), {}),  # strong float32: retrace
    lambda lib, np_: ((np_.float32(3.0),), {}),  # an Array of the same type: no retrace
    lambda lib, np_: ((np.ones(3, np.float32),), {}),
    lambda lib, np_: ((np.ones(3),), {}),  # float64 -> float32: the same signature
    lambda lib, np_: ((lib.device_put(np.ones(3, np.float32)),), {}),
    lambda lib, np_: ((np.ones(3, np.int32),), {}),  # new dtype: retrace
    lambda lib, np_: ((np.ones(4, np.int32),), {}),  # new shape: retrace
    lambda lib, np_: ((True,), {}),
    lambda lib, np_: ((1,), {}),
    lambda lib, np_: ((1,), {"y": 2}),  # a keyword argument: a new structure
    lambda lib, np_: ((1,), {"y": 3}),
    lambda lib, np_: ((1, 2), {}),  # the same value positionally: another structure
    lambda lib, np_: (({"a": 1.0},), {}),
    lambda lib, np_: (({"a": 2.0},), {}),
    lambda lib, np_: (({"a": 1.0, "b": 1.0},), {}),
    lambda lib, np_: (({"b": 1.0, "a": 1.0},), {}),  # insertion order does not matter
    lambda lib, np_: (((1.0,),), {}),
    lambda lib, np_: (([1.0],), {}),  # list vs tuple: retrace
    lambda lib, np_: (([1.0, None],), {}),
]


@pytest.mark.oracle
def test_trace_counts_match_jax() -> None:
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    assert _trace_counts(didax, dnp, RETRACE_CALLS) == _trace_counts(jax, jnp, RETRACE_CALLS)


def test_fast_path_errors_match_the_general_path() -> None:
    jf = didax.jit(lambda x: x + 1)
    jf(1)
    jf(2)  # fast
    errors = []
    for call in (lambda: jf(2**40), lambda: jf._call((2**40,), {})):
        with pytest.raises(OverflowError) as info:
            call()
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_tracers_and_unusual_arguments_take_the_general_path() -> None:
    jf = didax.jit(lambda x: x * x)
    x = dnp.arange(3.0)
    jf(x)
    general = _counting(jf)
    # under transformations: a tracer argument, or concrete arguments inside a trace
    np.testing.assert_allclose(didax.grad(lambda s: jf(s))(3.0), 6.0)
    np.testing.assert_allclose(didax.vmap(jf)(dnp.ones((2, 3))), np.ones((2, 3)))
    assert "mul" in str(didax.make_jaxpr(lambda: jf(x))())
    Point = namedtuple("Point", "x y")
    jp = didax.jit(lambda p: p.x + p.y)
    general_p = _counting(jp)
    for _ in range(3):
        assert float(jp(Point(1.0, 2.0))) == 3.0
    assert len(general) == 3 and len(general_p) == 3


def test_static_arguments_key_the_fast_table_by_value() -> None:
    # The fast key of a function with static arguments is its other arguments' key, then
    # the static values, which the lookup hashes and compares as the general path's key
    # does: a new value traces again, a known one takes the fast path.
    js = didax.jit(lambda x, n, scale=1.0: x * n * scale, static_argnums=1)
    x = didax.device_put(np.ones(2, np.float32))
    js(x, 2), js(x, 3)  # compiled, remembered
    general = _counting(js)
    np.testing.assert_array_equal(np.asarray(js(x, 2)), np.full(2, 2.0))
    np.testing.assert_array_equal(np.asarray(js(x, 3, scale=2.0)), np.full(2, 6.0))
    assert len(general) == 1  # (a keyword argument: another signature)
    js(x, 3, scale=2.0)
    assert len(general) == 1 and js.compilations == 3
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        js(x, [2])  # the general path raises
    kw = didax.jit(lambda x, n: x * n, static_argnames="n")
    kw(x, n=4), kw(x, 4)
    general = _counting(kw)
    np.testing.assert_array_equal(np.asarray(kw(x, n=4)), np.full(2, 4.0))
    np.testing.assert_array_equal(np.asarray(kw(x, 4)), np.full(2, 4.0))
    assert not general
    star = didax.jit(lambda *a: a[0] * len(a), static_argnums=-1)
    star(x, 2), star(x, 2)
    with pytest.raises(ValueError):  # -1 out of range of no arguments: the general path
        star()


def test_a_program_with_a_print_takes_the_fast_path(capsys) -> None:
    # A program with a print is compiled (a host callback), so it takes the fast path too,
    # and each call prints.
    printing = didax.jit(lambda x: didax.debug.print("x={}", x) or x)
    printing(1.0)
    printing(2.0)
    assert printing._fast
    assert capsys.readouterr().out == "x=1.0\nx=2.0\n"


@pytest.mark.parametrize("n_args", [1, 2])
def test_the_x64_flag_keys_the_fast_path(n_args: int) -> None:
    # The same Arrays trace to another program under x64 (`astype(int)` is int64 there), so
    # flipping the flag between two calls must not find the first call's program.
    jf = didax.jit(lambda *xs: sum(xs).astype(int))
    args = (didax.device_put(np.ones(2, np.float32)),) * n_args
    general = _counting(jf)
    assert jf(*args).dtype == np.int32
    try:
        didax.config.update("jax_enable_x64", True)
        assert jf(*args).dtype == np.int64
        assert jf(*args).dtype == np.int64
    finally:
        didax.config.update("jax_enable_x64", False)
    assert jf(*args).dtype == np.int32
    assert len(general) == 2  # one trace under each flag; the repeats are fast-path hits


def test_signature_keys_arrays_by_type_and_only_on_the_default_device() -> None:
    jf = didax.jit(lambda x: x + 1.0)
    x = didax.device_put(np.ones(3, np.float32))
    jf(x)
    (key,) = jf._fast
    eager = dnp.asarray(np.zeros(3, np.float32))  # no buffer yet: put on the device once
    leaves: list = []
    assert fast_path.signature((eager,), {}, jf._home, leaves, []) == key
    assert leaves == [eager._buffer] and eager._buffer is not None
    # an Array whose buffer is not on the default device (or is sharded) gives no key
    assert fast_path.signature((x,), {}, object(), [], []) is None


def test_an_array_on_another_device_takes_the_general_path() -> None:
    code = """
import json
import didax, numpy as np
jf = didax.jit(lambda x: x + 1.0)
here = didax.device_put(np.ones(3, np.float32))
there = didax.device_put(np.ones(3, np.float32), didax.devices()[1])
jf(here)
general = []
slow = jf._call
jf._call = lambda args, kwargs: general.append(1) or slow(args, kwargs)
outs = [np.asarray(jf(there)).tolist() for _ in range(2)] + [np.asarray(jf(here)).tolist()]
print(json.dumps({"outs": outs, "general": len(general)}))
"""
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result == {"outs": [[2.0, 2.0, 2.0]] * 3, "general": 2}


def test_a_result_passed_back_keys_by_identity() -> None:
    # `x = step(x)`: the result's aval is the very object in the fast table's key, so the
    # lookup never calls ShapedArray.__eq__ (interned avals, `array.interned`).
    step = didax.jit(lambda x: x * 0.5)
    x = didax.device_put(np.ones(4, np.float32))
    y = step(step(x))
    ((_, aval),) = step._fast
    assert y._aval is aval and y._aval == x._aval


def test_a_pytree_result_is_built_without_the_general_unflatten(monkeypatch) -> None:
    # Several outputs in a tree: the fast path wraps them and builds the tree with a
    # prebuilt function (`tree_util.builder`), never `tree_unflatten`; a result passed back
    # (`params = step(params)`) keys by identity, as a single result does.
    step = didax.jit(lambda p, s: ([(w * 0.5, b + s) for w, b in p], {"n": s * 2}))
    params = [(didax.device_put(np.ones((2, 3), np.float32)), dnp.zeros(3))] * 2
    out = step(params, 1.0)  # the general path: traces, compiles, remembers

    def refused(*args: Any) -> Any:
        raise AssertionError("the fast path called tree_unflatten")

    monkeypatch.setattr("didax.compile.stages.tree_unflatten", refused)
    general = _counting(step)
    again = step(out[0], 1.0)
    assert not general
    assert type(again) is tuple and type(again[0]) is list and type(again[0][0]) is tuple
    assert list(again[1]) == ["n"]
    np.testing.assert_array_equal(np.asarray(again[0][1][0]), np.full((2, 3), 0.25))
    np.testing.assert_array_equal(np.asarray(again[0][1][1]), np.full(3, 2.0))
    ((key, _),) = [(k, v) for k, v in step._fast.items()]
    leaf_avals = [x._aval for x in tree_leaves(again[0])]
    assert all(any(a is k for k in key) for a in leaf_avals)


def test_block_until_ready_waits_once_for_a_whole_tree(monkeypatch) -> None:
    # JAX's `block_until_ready` waits for all of a pytree's arrays in one call into jaxlib
    # (`batched_block_until_ready`); so does didax's, not one wait per leaf.
    f = didax.jit(lambda x: (x + 1, [x * 2, {"a": x - 1}]))
    outs = [f(dnp.ones(3)) for _ in range(4)]
    waits: list[int] = []
    real = client.wait
    monkeypatch.setattr(client, "wait", lambda buffers: (waits.append(len(buffers)), real(buffers)))
    assert didax.block_until_ready(outs) is outs
    assert waits == [12]
    assert didax.block_until_ready((1.0, None)) == (1.0, None)  # no arrays: no wait
    assert waits == [12]


def _aligned(n: int) -> np.ndarray:
    """A float32 NumPy array of n elements whose data starts on a 64-byte boundary (what
    XLA's CPU client needs to read host memory in place)."""
    raw = np.zeros(n + 16, np.float32)
    start = (-raw.ctypes.data % 64) // 4
    return raw[start : start + n]


def test_a_numpy_argument_is_lent_to_the_call_not_copied(monkeypatch) -> None:
    # As JAX's jit puts NumPy arguments (`allow_zero_copy`): the call's device buffer is
    # the NumPy array's own memory (a 1 MB argument is not copied on every call).
    f = didax.jit(lambda a: a * 2.0)
    x = _aligned(1 << 18)
    x[:] = 1.5
    lent: list[tuple[Any, np.ndarray]] = []
    rt = client.runtime()
    real = rt.put

    def spy(aval: Any, sharding: Any, values: list, *args: Any, **kwargs: Any) -> Any:
        buffer = real(aval, sharding, values, *args, **kwargs)
        lent.append((buffer, values[0]))
        return buffer

    # jaxlib's batched_device_put, one call per value (the fast table's launch binds it)
    monkeypatch.setattr(rt, "put", spy)
    f(x)  # the general path: compiles, remembers
    lent.clear()
    out = f(x).block_until_ready()
    ((buffer, value),) = lent
    assert value is x
    assert buffer.unsafe_buffer_pointer() == x.ctypes.data
    x[:] = 0.0  # the result is the program's own buffer, not the argument's memory
    np.testing.assert_array_equal(np.asarray(out), np.full(1 << 18, 3.0, np.float32))


def test_a_numpy_argument_takes_one_jaxlib_put_and_no_wrapper(monkeypatch) -> None:
    # The fast path puts a NumPy argument with one call of jaxlib's `batched_device_put`
    # (a quarter of the put was `client.put`'s own checks), and only for host values.
    f = didax.jit(lambda a, b: a * b)
    x, y = np.arange(3, dtype=np.float32), didax.device_put(np.ones(3, np.float32))
    rt = client.runtime()
    real, puts = rt.put, []
    # (the fast table's launch binds jaxlib's put when the general path remembers the call)
    monkeypatch.setattr(rt, "put", lambda *a, **k: puts.append(a[2]) or real(*a, **k))
    f(x, y)  # the general path: compiles, remembers
    puts.clear()

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the fast path went through client.put")

    monkeypatch.setattr(client, "put", refused)
    general = _counting(f)
    np.testing.assert_array_equal(np.asarray(f(x, y)), x)
    assert not general and len(puts) == 1 and puts[0][0] is x


def test_a_dict_argument_keys_by_one_interned_marker() -> None:
    # The structure of a dict argument is one object per key set (sorted once, then found
    # by the keys in their order): two calls with fresh dicts put the very same marker in
    # their keys; a tuple adds its length, a list its length inverted (`~n`): one int, no
    # tuple built per call.
    x = didax.device_put(np.ones(2, np.float32))
    home = x._buffer._sharding
    keys = []
    for _ in range(2):
        params = [{"w": x, "b": x}, {"w": x, "b": x}]
        keys.append(fast_path.signature((params, (x,)), {"scale": x}, home, [], []))
    a, b = keys
    markers = [(i, k) for i, k in enumerate(a) if type(k) is tuple and k[:1] == (dict,)]
    assert [k for _, k in markers] == [(dict, "b", "w")] * 2 + [(dict, "scale")]
    assert all(b[i] is k for i, k in markers)
    assert a == b and a[1] == ~2 and a[8] == 1
    keyed = [fast_path.signature((t,), {}, home, [], []) for t in ([], (), [x], (x,), [[x]])]
    assert len(set(keyed)) == len(keyed)  # a list and a tuple never key alike


def test_an_array_put_on_the_device_keys_by_identity() -> None:
    # An eager Array (put on the device by its first call) and a `device_put` one take the
    # interned aval, so later calls find their key without ShapedArray.__eq__.
    f = didax.jit(lambda a, b: a * b)
    eager, placed = dnp.arange(3.0), didax.device_put(np.ones(3, np.float32))
    f(eager, placed)
    ((key, _),) = f._fast.items()
    assert eager._aval is key[1] and placed._aval is key[2]
    fresh = dnp.arange(3.0) + 1.0
    f(fresh, placed)
    assert fresh._aval is key[1]


def test_block_until_ready_walks_built_in_containers_itself(monkeypatch) -> None:
    # Lists, tuples and dicts of a loop's results are walked without `tree_leaves` (which
    # sorts every dict's keys: 269 -> 131 us for 128 results of 6 leaves, JAX 155 us).
    f = didax.jit(lambda x: [{"w": x * 2, "b": x + 1}, (x, None)])
    outs = [f(dnp.ones(3)) for _ in range(3)]

    def refused(*args: Any) -> Any:
        raise AssertionError("block_until_ready called tree_leaves")

    monkeypatch.setattr("didax.compile.jit.tree_leaves", refused)
    waits: list[int] = []
    real = client.wait
    monkeypatch.setattr(client, "wait", lambda buffers: (waits.append(len(buffers)), real(buffers)))
    assert didax.block_until_ready(outs) is outs
    assert waits == [9]


def test_one_numpy_argument_is_keyed_in_the_call_itself(monkeypatch) -> None:
    # as one Array argument is: `signature`'s key for it, built without the general walk
    f = didax.jit(lambda a: a * 2.0)
    x = np.arange(3, dtype=np.float32)
    f(x)

    def refused(*args: Any) -> Any:
        raise AssertionError("the call walked its arguments with signature()")

    monkeypatch.setattr(fast_path, "_key", refused)  # (the walk `signature` makes)
    general = _counting(f)
    np.testing.assert_array_equal(np.asarray(f(x + 1)), (x + 1) * 2)
    assert not general
    with pytest.raises(AssertionError, match="signature"):
        f(np.arange(3, dtype=np.int32))  # another type: the walk, then the general path


def _frames(fn: Any) -> list[str]:
    """The Python functions `fn()` runs, in call order (C functions left out)."""
    names: list[str] = []
    sys.setprofile(lambda frame, event, arg: event == "call" and names.append(frame.f_code.co_name))
    try:
        fn()
    finally:
        sys.setprofile(None)
    return names[1:]  # (fn itself)


def test_a_numpy_argument_is_put_by_the_launch_the_fast_table_holds() -> None:
    # The fast table's launch for a signature with host values puts them itself, with
    # jaxlib's put and its arguments bound when the entry was made (`fast_path.putting`):
    # no lookup of the runtime, the config or the entry's avals on the call.
    f = didax.jit(lambda a: a * 2.0)
    x = np.arange(3, dtype=np.float32)
    f(x)
    assert _frames(lambda: f(x)) == ["jit_call", "launch_one", "launch"]
    g = didax.jit(lambda a, b, c: a * b + c)  # host values elsewhere than first
    y = didax.device_put(np.ones(3, np.float32))
    g(y, x, 2.0), g(y, x, 2.0)  # compiled, then the last hit
    assert _frames(lambda: g(y, x, 2.0)) == ["jit_call", "_key", "_add_all", "_add", "_add"] + [
        "launch_putting",
        "launch",
    ]
    np.testing.assert_array_equal(np.asarray(g(y, x, 2.0)), x + 2.0)
    np.testing.assert_array_equal(np.asarray(f(np.arange(3.0))), np.arange(3.0) * 2)  # (f64)


def test_positional_static_arguments_are_keyed_in_the_call_itself() -> None:
    # Arrays and static values by position: the key built in `jit_call` from the split worked
    # out once for this many arguments (no `_split`, no walk of the others), compared with the
    # last hit's before it is hashed (a loop calls with one signature), then the launch
    js = didax.jit(lambda x, n, y: x * n + y, static_argnums=1)
    x = didax.device_put(np.arange(3, dtype=np.float32))
    js(x, 2, x), js(x, 3, x)  # compiled, remembered
    general = _counting(js)
    assert _frames(lambda: js(x, 2, x)) == ["jit_call", "__hash__", "__hash__", "launch"]
    assert _frames(lambda: js(x, 2, x)) == ["jit_call", "launch"]  # the last hit's key
    np.testing.assert_array_equal(np.asarray(js(x, 3, x)), np.arange(3) * 4.0)
    np.testing.assert_array_equal(np.asarray(js(x, 2, x)), np.arange(3) * 3.0)
    assert not general and js.compilations == 2
    # what the lane does not take goes to the general path: a NumPy argument (the entry of
    # its aval, f32[3]), a keyword and a new static value (each traced and compiled), an
    # unhashable static value (it raises)
    np.testing.assert_array_equal(np.asarray(js(np.ones(3, np.float32), 2, x)), np.arange(3) + 2.0)
    np.testing.assert_array_equal(np.asarray(js(x, 2, y=x)), np.arange(3) * 3.0)
    np.testing.assert_array_equal(np.asarray(js(x, 5, x)), np.arange(3) * 6.0)
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        js(x, [2], x)
    assert len(general) == 4 and js.compilations == 4


def test_arguments_in_one_run_are_taken_by_a_slice() -> None:
    # `_split` works out, once per number of arguments, where the static values and the
    # others stand: a slice where they are one run (taking `args[1:3]` costs a fifth of
    # taking its items one by one), else their positions; both give the same values
    assert fast_path.positions([1, 2]) == slice(1, 3)
    assert fast_path.positions((0,)) == slice(0, 1)
    assert fast_path.positions([0, 2]) == (0, 2)
    assert fast_path.positions([]) == ()
    args = ("a", "b", "c", "d")
    for at in ([1, 2], [0, 2, 3], [3], []):
        assert fast_path.pick(args, fast_path.positions(at)) == tuple(args[i] for i in at)
    x = didax.device_put(np.arange(3, dtype=np.float32))
    cases = [  # (the function, static_argnums, the arguments, the statics, the others)
        (lambda x, n, m: x * n - m, (1, 2), (x, 2, 1), slice(1, 3), slice(0, 1)),
        (lambda n, x, y: x * n + y, 0, (3, x, x), slice(0, 1), slice(1, 3)),
        (lambda x, n, y, m: x * n + y * m, (1, 3), (x, 2, x, 4), (1, 3), (0, 2)),
    ]
    for fn, static_argnums, call, statics, others in cases:
        js = didax.jit(fn, static_argnums=static_argnums)
        expected = np.asarray(fn(*call))  # eager
        np.testing.assert_allclose(np.asarray(js(*call)), expected, rtol=1e-6)  # compiled
        assert js._positions[len(call)][1:] == (statics, others)
        general = _counting(js)
        np.testing.assert_allclose(np.asarray(js(*call)), expected, rtol=1e-6)  # the fast path
        assert not general and js.compilations == 1


def test_a_pytree_call_compares_its_key_with_the_last_hit_before_hashing(monkeypatch) -> None:
    # A loop calls with one signature: its key (a list) is compared with the last hit's,
    # identical avals and all, and no aval is hashed (ShapedArray.__hash__ is Python's).
    step = didax.jit(lambda p: [(w * 0.5, b + w) for w, b in p])
    x = didax.device_put(np.ones(3, np.float32))
    params = step([(x, x)] * 3)
    params = step(params)  # the fast table, then the last hit
    hashed: list[int] = []
    real = didax.core.ShapedArray.__hash__
    monkeypatch.setattr(didax.core.ShapedArray, "__hash__", lambda a: hashed.append(1) or real(a))
    general = _counting(step)
    for _ in range(3):
        params = step(params)
    assert not general and not hashed
    np.testing.assert_array_equal(
        np.asarray(params[2][1]), np.full(3, 1 + sum(0.5**k for k in range(5)))
    )
    other = [(didax.device_put(np.ones(2, np.float32)),) * 2]  # another signature: traced,
    step(other), step(other), step(params)  # then found in the table, then the first again
    assert len(general) == 1 and hashed


def test_the_last_hit_is_forgotten_with_its_entry(monkeypatch) -> None:
    # An entry dropped from the LRU cache takes its fast keys, and the last hit if it was
    # one of them, with it: its next call takes the general path again.
    monkeypatch.setattr("didax.compile.jit.CACHE_SIZE", 1)
    f = didax.jit(lambda p: [p[0] + 1.0, p[1]])
    a = [dnp.ones(2), dnp.ones(2)]
    b = [dnp.ones(3), dnp.ones(3)]
    f(a), f(a)  # compiled, then the last hit
    general = _counting(f)
    f(b)  # compiled: drops a's entry
    f(a)
    assert len(general) == 2 and f.compilations == 3
    didax.clear_caches()
    f(a)
    assert len(general) == 3 and f.compilations == 4
