"""Properties: `jit(f)(x) == f(x)` over random shapes and values (hypothesis), one
compilation per shape; and the corners of signatures: no arguments, constant outputs,
returned inputs, strided and broadcast NumPy inputs, unbatched arguments under vmap."""

from __future__ import annotations

import didax
import didax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp


def program(x, y):
    z = jnp.tanh(x) * y - jnp.exp(-jnp.abs(x)) / (1.0 + y * y)
    return jnp.sum(z, axis=0), jnp.maximum(z, 0.5).T, (z > 0).astype(jnp.int32) * 3


JITTED = didax.jit(program)
shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)
floats = st.floats(-3, 3, width=32)


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_jit_equals_eager_on_random_inputs(data) -> None:
    shape = data.draw(shapes)
    x = data.draw(hnp.arrays(np.float32, shape, elements=floats))
    y = data.draw(hnp.arrays(np.float32, shape, elements=floats))
    for got, want in zip(JITTED(x, y), program(x, y), strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)
    assert JITTED.compilations == JITTED._cache_size()  # one compilation per signature


def test_no_arguments_and_constant_outputs() -> None:
    out = didax.jit(lambda: (jnp.ones(3), 2.0))()
    np.testing.assert_array_equal(np.asarray(out[0]), np.ones(3, np.float32))
    assert float(out[1]) == 2.0 and out[1].weak_type
    assert didax.jit(lambda x: None)(1.0) is None


def test_returned_inputs_are_arrays_of_their_own() -> None:
    a = didax.device_put(np.arange(3, dtype=np.float32))
    b, c = didax.jit(lambda x: (x, x))(a)
    np.testing.assert_array_equal(np.asarray(b), np.asarray(a))
    np.testing.assert_array_equal(np.asarray(c), np.asarray(a))


def test_strided_and_broadcast_numpy_inputs() -> None:
    f = didax.jit(lambda a: a * 2.0)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for view in (x[:, ::2], x.T, np.broadcast_to(np.float32(3), (2, 3))):
        np.testing.assert_array_equal(np.asarray(f(view)), view * 2)
    t = jnp.arange(6.0).reshape(2, 3).T  # an eager Array over a transposed view
    np.testing.assert_array_equal(np.asarray(f(t)), np.asarray(t) * 2)


def test_vmap_of_jit_with_an_unbatched_argument() -> None:
    f = didax.jit(lambda a, b: a * b + 1.0)
    xs = np.arange(6, dtype=np.float32).reshape(2, 3)
    w = np.array([1.0, -1.0, 2.0], np.float32)
    got = didax.vmap(f, in_axes=(0, None))(xs, w)
    np.testing.assert_array_equal(np.asarray(got), xs * w + 1)
    got = didax.vmap(f, in_axes=(1, None), out_axes=1)(xs.T.copy(), w)
    np.testing.assert_array_equal(np.asarray(got), (xs * w + 1).T)
