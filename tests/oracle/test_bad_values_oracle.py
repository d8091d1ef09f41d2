"""Oracle: values that are not arrays are rejected at once by `jnp.array`/`jnp.asarray`,
with JAX's exception and message; an empty array's repr shows its shape as JAX's does
(issue 14, item 5). `jnp.array(None)` and `jnp.array([1, 2.0, 'a'])` once built object and
string arrays that failed later, under jit.
"""

from __future__ import annotations

from typing import Any

import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

pytestmark = pytest.mark.oracle

BAD_VALUES = {
    "None": None,
    "[None]": [None],
    "[1, None]": [1, None],
    "[1, 2.0, 'a']": [1, 2.0, "a"],
    "'abc'": "abc",
    "b'ab'": b"ab",
    "{'a': 1}": {"a": 1},
    "[[1, 'x'], [2, 3]]": [[1, "x"], [2, 3]],
}


def _error(fn: Any, value: Any) -> tuple[type, str]:
    with pytest.raises(Exception) as info:  # noqa: PT011 - the type is compared below
        fn(value)
    return type(info.value), str(info.value)


@pytest.mark.parametrize("make", ["array", "asarray"])
@pytest.mark.parametrize("name", BAD_VALUES)
def test_bad_values_raise_jax_error(name: str, make: str) -> None:
    value = BAD_VALUES[name]
    got = _error(getattr(dnp, make), value)
    want = _error(getattr(jnp, make), value)
    assert got == want


def test_string_numpy_array_is_a_type_error_as_in_jax() -> None:
    with pytest.raises(TypeError):
        jnp.array(np.array(["a"]))
    with pytest.raises(TypeError, match="not a valid JAX array type"):
        dnp.array(np.array(["a"]))


@pytest.mark.parametrize(
    "shape,dtype", [((0,), "float32"), ((0, 3), "float32"), ((2, 0), "int32"), ((1, 0, 2), "bool")]
)
def test_empty_array_repr_shows_the_shape(shape: tuple, dtype: str) -> None:
    assert repr(dnp.zeros(shape, dtype)) == repr(jnp.zeros(shape, dtype))


def test_numeric_values_still_convert() -> None:
    for value in ([1, 2.0], [[1, 2], [3, 4]], [np.float32(1), dnp.ones(())], np.ones(2), 3):
        got, want = dnp.array(value), jnp.array(value)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
