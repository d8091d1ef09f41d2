"""`jit`'s options as JAX 0.10.2 has them: static_argnums in every form (int, sequence,
negative, the `functools.partial(jit, ...)` and `@jit(...)` decorators), static_argnames (by
keyword or position), donation accepted, `.trace`/`.lower`/`.eval_shape`, the same errors, and
the trace counts JAX has (a method with a static `self`, equal statics sharing an entry)."""

from __future__ import annotations

import functools

import didax
import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
pytestmark = pytest.mark.oracle


def both(make):
    """Run `make(jit, np_module)` for didax and JAX; return the two results as NumPy."""
    return [
        jax.tree_util.tree_map(np.asarray, make(lib, m)) for lib, m in ((didax, dnp), (jax, jnp))
    ]


def assert_same(make):
    got, want = both(make)
    jax.tree_util.tree_map(np.testing.assert_array_equal, got, want)


@pytest.mark.parametrize("nums", [1, (1,), [1], -1, (0, 1), (-2, -1)])
def test_static_argnums_forms(nums):
    def f(lib, m):
        def g(x, n):
            return m.ones(3) * x * n

        jitted = lib.jit(g, static_argnums=nums)
        return jitted(2.0, 3)

    assert_same(f)


def test_partial_decorator_and_bare_decorator():
    def f(lib, m):
        @functools.partial(lib.jit, static_argnums=(1,))
        def g(x, n):
            return m.arange(n) * x

        @lib.jit(static_argnames="n")
        def h(x, n=2):
            return x**n

        return g(2.0, 4), h(m.ones(2) * 3), h(m.ones(2) * 3, n=3), h(m.ones(2) * 3, 4)

    assert_same(f)


def test_static_argnames_compile_per_value():
    traces = {"didax": 0, "jax": 0}

    def f(lib, m):
        name = lib.__name__

        @functools.partial(lib.jit, static_argnames=("axis",))
        def g(x, axis):
            traces[name] += 1
            return m.sum(x, axis=axis)

        x = m.ones((2, 3))
        return g(x, axis=0), g(x, axis=1), g(x, axis=0), g(x, 1)

    assert_same(f)
    assert traces["didax"] == traces["jax"]


def test_donate_accepted():
    def f(lib, m):
        g = lib.jit(lambda x, y: x + y, donate_argnums=0, donate_argnames="y")
        return g(m.ones(3), y=m.ones(3))

    assert_same(f)


@pytest.mark.parametrize(
    "options",
    [
        {"static_argnums": 2},
        {"static_argnums": -3},
        {"static_argnames": "z"},
        {"donate_argnums": 5},
        {"static_argnames": "x", "donate_argnames": "x"},
    ],
)
def test_option_errors_as_jax(options):
    def g(x, y):
        return x

    with pytest.raises(Exception) as want:
        jax.jit(g, **options)
    with pytest.raises(type(want.value)) as got:
        didax.jit(g, **options)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("name", ["gpu", "cuda", "foo", "CPU"])
@pytest.mark.parametrize("use", ["call", "lower", "eval_shape", "inside_make_jaxpr"])
def test_a_backend_that_is_not_present_raises_when_used_as_jax(name, use):
    def run(lib):
        f = lib.jit(lambda a: a + 1.0, backend=name)  # defining it is fine, as in JAX
        go = {
            "call": lambda: f(1.0),
            "lower": lambda: f.lower(1.0),
            "eval_shape": lambda: f.eval_shape(1.0),
            "inside_make_jaxpr": lambda: lib.make_jaxpr(lambda a: f(a) * 2)(1.0),
        }[use]
        with pytest.raises(Exception) as info:
            go()
        return type(info.value), str(info.value)

    got, want = run(didax), run(jax)
    assert got == want and want[0] is RuntimeError


def test_backend_cpu_runs():
    assert_same(lambda lib, m: lib.jit(lambda a: a + 1.0, backend="cpu")(m.ones(2)))


def test_unhashable_static_error_type():
    g = lambda x, n: x  # noqa: E731
    with pytest.raises(Exception) as want:
        jax.jit(g, static_argnums=1)(1.0, [1])
    with pytest.raises(type(want.value)):
        didax.jit(g, static_argnums=1)(1.0, [1])


def test_trace_lower_eval_shape():
    def g(x, y):
        return {"s": (x * y).sum(), "p": x * 2}

    args = (np.ones((2, 3), np.float32), 2.0)
    got = didax.jit(g).trace(*args)
    want = jax.jit(g).trace(*args)
    assert str(got.jaxpr) == str(want.jaxpr)
    assert repr(got.out_info) == repr(want.out_info)
    assert repr(didax.jit(g).eval_shape(*args)) == repr(jax.jit(g).eval_shape(*args))
    assert "stablehlo.multiply" in got.lower().as_text()
    spec = didax.ShapeDtypeStruct((2, 3), np.float32)
    assert repr(didax.jit(g).eval_shape(spec, 1.0)) == repr(
        jax.jit(g).eval_shape(jax.ShapeDtypeStruct((2, 3), np.float32), 1.0)
    )


def test_method_with_static_self_cache():
    counts = {}

    def run(lib, m):
        name = lib.__name__
        counts[name] = 0

        class Scale:
            def __init__(self, k):
                self.k = k

            def __hash__(self):
                return hash(self.k)

            def __eq__(self, other):
                return isinstance(other, Scale) and other.k == self.k

            @functools.partial(lib.jit, static_argnums=0)
            def apply(self, x):
                counts[name] += 1
                return x * self.k

        a, b = Scale(2.0), Scale(2.0)
        outs = [a.apply(m.ones(2)), b.apply(m.ones(2))]  # equal statics: one trace
        a.k = 3.0  # mutated: JAX 0.10.2 finds the entry by equality (a stale result)
        outs += [a.apply(m.ones(2)), Scale(3.0).apply(m.ones(2))]
        outs.append(Scale(5.0).apply(m.ones(2)))  # a new value: traced again
        return outs

    assert_same(run)
    assert counts["didax"] == counts["jax"] == 2


def test_array_devices_and_sharding():
    x, y = dnp.ones(3), jnp.ones(3)
    assert repr(x.devices()) == repr(y.devices())
    assert repr(x.sharding) == repr(y.sharding)
    assert repr(didax.jit(lambda v: v * 2)(x).sharding) == repr(y.sharding)
