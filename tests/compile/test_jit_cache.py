"""`jit`'s executable cache: one compilation per signature (argument types, static
arguments, pytree structure); a new shape, dtype or weak type compiles again, a new value
never does; the cache is bounded. Also pytrees in and out, keyword and static arguments, and
results that stay on the device until read."""

from __future__ import annotations

import functools
import gc
import weakref
from collections import namedtuple
from typing import Any

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax.compile import jit as jit_module


def _counted():
    calls = []

    def f(x, y=None):
        calls.append(1)  # counts traces
        return jnp.sin(x) * 2.0 if y is None else jnp.sin(x) * y

    return f, calls


def test_same_types_compile_once_new_values_never_recompile() -> None:
    f, traces = _counted()
    jf = didax.jit(f)
    for value in (1.0, 2.0, -3.5):
        x = np.full(3, value, np.float32)
        np.testing.assert_allclose(np.asarray(jf(x)), np.sin(x) * 2.0, rtol=1e-6)
    assert jf.compilations == 1 and len(traces) == 1 and jf._cache_size() == 1


def test_new_shape_dtype_or_weak_type_recompiles() -> None:
    f, traces = _counted()
    jf = didax.jit(f)
    jf(np.ones(3, np.float32))
    jf(np.ones(4, np.float32))  # new shape
    assert jf.compilations == 2
    jf(np.ones(4, np.float16))  # new dtype
    assert jf.compilations == 3
    jf(2.0)  # a weak float32 scalar
    jf(np.float32(2.0))  # a strong one: another signature
    assert jf.compilations == 5
    jf(3.0)
    jf(np.ones(3, np.float32))
    assert jf.compilations == 5 and len(traces) == 5


def test_arrays_numpy_and_float64_of_one_type_share_an_executable() -> None:
    jf = didax.jit(lambda x: x + 1.0)
    jf(np.ones(3, np.float32))
    jf(jnp.ones(3))
    jf(didax.device_put(np.ones(3, np.float32)))
    out = jf(np.ones(3))  # float64 input is taken as float32 (x64 off)
    assert out.dtype == np.float32
    assert jf.compilations == 1


def test_device_array_results_feed_back_without_recompiling() -> None:
    jf = didax.jit(lambda x: x * 2.0)
    x = jnp.ones(3)
    for _ in range(4):
        x = jf(x)
    np.testing.assert_array_equal(np.asarray(x), np.full(3, 16.0, np.float32))
    assert jf.compilations == 1


def test_static_argnums_key_the_cache_by_value() -> None:
    def f(x, n):
        return x**n  # `n` must be concrete for integer_pow

    jf = didax.jit(f, static_argnums=1)
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(jf(x, 2)), x**2)
    np.testing.assert_array_equal(np.asarray(jf(x, 3)), x**3)
    jf(x, 2)
    jf(x + 1, 3)
    assert jf.compilations == 2
    assert "integer_pow[y=3]" in str(didax.make_jaxpr(jf, static_argnums=1)(x, 3))


def test_negative_static_argnums() -> None:
    jf = didax.jit(lambda x, shape: jnp.broadcast_to(x, shape), static_argnums=-1)
    assert jf(1.0, (2, 3)).shape == (2, 3)
    assert jf(1.0, (4,)).shape == (4,)
    assert jf.compilations == 2


def test_unhashable_static_argument_is_a_clear_error() -> None:
    jf = didax.jit(lambda x, opts: x * len(opts), static_argnums=(1,))
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        jf(1.0, [1, 2])


@pytest.mark.oracle
def test_unhashable_static_argument_error_type_matches_jax() -> None:
    jax = pytest.importorskip("jax")
    with pytest.raises(ValueError):
        jax.jit(lambda x, opts: x, static_argnums=(1,))(1.0, [1, 2])


def test_pytrees_in_and_out() -> None:
    Pair = namedtuple("Pair", "a b")

    def f(params, x):
        return {"y": params["w"] * x + params["b"], "both": Pair(x, -x)}, [x.sum()]

    jf = didax.jit(f)
    params = {"w": np.float32(2.0), "b": np.ones(3, np.float32)}
    x = np.arange(3, dtype=np.float32)
    out, (total,) = jf(params, x)
    assert set(out) == {"y", "both"} and isinstance(out["both"], Pair)
    np.testing.assert_array_equal(np.asarray(out["y"]), 2 * x + 1)
    np.testing.assert_array_equal(np.asarray(out["both"].b), -x)
    assert float(total) == 3.0
    jf(params, x + 1)
    assert jf.compilations == 1
    jf({"w": np.float32(2.0), "b": np.ones(3, np.float32), "c": 1.0}, x)  # new structure
    assert jf.compilations == 2


def test_keyword_arguments_are_dynamic() -> None:
    f, _ = _counted()
    jf = didax.jit(f)
    x = np.ones(2, np.float32)
    np.testing.assert_allclose(np.asarray(jf(x, y=np.float32(3.0))), np.sin(x) * 3, rtol=1e-6)
    jf(x, y=np.float32(4.0))
    assert jf.compilations == 1


def test_cache_is_bounded_least_recently_used_first() -> None:
    jf = didax.jit(lambda x: x + 1)
    for n in range(jit_module.CACHE_SIZE + 5):
        jf(np.zeros(n + 1, np.int32))
    assert jf._cache_size() == jit_module.CACHE_SIZE
    before = jf.compilations
    jf(np.zeros(jit_module.CACHE_SIZE + 5, np.int32))  # recent: still cached
    assert jf.compilations == before
    jf(np.zeros(1, np.int32))  # the oldest was dropped: compiles again
    assert jf.compilations == before + 1


def test_results_stay_on_device_until_read() -> None:
    out = didax.jit(lambda x: jnp.exp(x))(np.zeros(4, np.float32))
    assert out._buffer is not None and out._value is None  # not copied to the host yet
    assert out.block_until_ready() is out
    np.testing.assert_array_equal(np.asarray(out), np.ones(4, np.float32))
    assert out._value is not None  # read once, then kept


def test_weak_types_follow_the_jaxpr() -> None:
    jf = didax.jit(lambda x: x * 2)
    assert jf(3.0).weak_type and jf(3.0).dtype == np.float32
    assert not jf(np.float32(3.0)).weak_type
    assert jf(3).dtype == np.int32 and jf(3).weak_type


def test_jit_of_a_method_binds_self() -> None:
    class Scale:
        def __init__(self, k):
            self.k = k

        @functools.partial(didax.jit, static_argnums=0)  # `self` is hashable: static
        def __call__(self, x):
            return x * self.k

    np.testing.assert_array_equal(np.asarray(Scale(3)(np.ones(2, np.float32))), [3.0, 3.0])


def test_jitted_function_keeps_the_wrapped_name_and_doc() -> None:
    def my_function(x):
        """Doubles."""
        return 2 * x

    jf = didax.jit(my_function)
    assert (
        jf.__name__ == "my_function" and jf.__doc__ == "Doubles." and jf.__wrapped__ is my_function
    )


# ----------------------------------------------------------------------------- shared caches


def _shared_cache_traces(lib: Any, numpy: Any) -> dict[str, int]:
    """Trace counts of JAX's cache-sharing cases: jit objects of one function and options
    share their cache; other options, other functions and fresh bound methods do not."""
    traces = [0]

    def f(x):
        traces[0] += 1
        return x + 1

    class Model:
        def __init__(self, scale: float) -> None:
            self.scale = scale

        def apply(self, x):
            traces[0] += 1
            return x * self.scale

    counts = {}

    def count(name: str, call: Any) -> None:
        traces[0] = 0
        call()
        counts[name] = traces[0]

    x = numpy.ones(3)
    count("two jit(f)", lambda: (lib.jit(f)(x), lib.jit(f)(x)))
    count("jit(f) again, later", lambda: lib.jit(f)(x))
    count("equal options spelled alike", lambda: lib.jit(f, static_argnums=())(x))
    count("donation is an option", lambda: lib.jit(f, donate_argnums=0)(numpy.ones(3)))
    count("inline is an option", lambda: lib.jit(f, inline=True)(x))
    count("a new dtype", lambda: lib.jit(f)(numpy.ones(3, numpy.int32)))
    m = Model(2.0)
    count("jit(m.apply) twice", lambda: (lib.jit(m.apply)(x), lib.jit(m.apply)(x)))
    method = functools.partial(lib.jit, static_argnums=0)(Model.apply)
    count("static self, same object", lambda: (method(m, x), method(m, x)))
    count("jit of the method again", lambda: lib.jit(Model.apply, static_argnums=0)(m, x))
    count("static self, new object", lambda: method(Model(2.0), x))
    return counts


@pytest.mark.oracle
def test_jit_objects_of_one_function_share_its_cache_as_in_jax() -> None:
    jax = pytest.importorskip("jax")
    import jax.numpy as jax_numpy

    ours = _shared_cache_traces(didax, jnp)
    assert ours == _shared_cache_traces(jax, jax_numpy)
    assert ours["two jit(f)"] == 1 and ours["jit(f) again, later"] == 0


def test_shared_cache_counts_compilations_once() -> None:
    def g(x):
        return x * 3.0

    first, second = didax.jit(g), didax.jit(g)
    first(np.ones(2, np.float32))
    second(np.ones(2, np.float32))
    assert first.compilations == second.compilations == 1
    assert didax.jit(lambda x: x)._cache is not didax.jit(lambda x: x)._cache
    assert didax.jit(g, in_shardings=None)._cache is first._cache
    assert didax.jit(g, keep_unused=True)._cache is not first._cache  # an ignored option


def test_a_function_cache_dies_with_its_function() -> None:
    def h(x):
        return x - 1.0

    didax.jit(h)(1.0)
    ref = weakref.ref(h)
    del h
    gc.collect()
    assert ref() is None
