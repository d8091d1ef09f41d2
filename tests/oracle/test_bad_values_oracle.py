"""Oracle: values that are not arrays are rejected at once by `jnp.array`/`jnp.asarray`,
with JAX's exception and message; an empty array's repr shows its shape as JAX's does
(issue 14, item 5). `jnp.array(None)` and `jnp.array([1, 2.0, 'a'])` once built object and
string arrays that failed later, under jit.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from didax import array as darray

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


# Shapes of 2**38 elements (1 TiB of float32, more than any test machine's memory): JAX's
# allocator refuses them at once with its JaxRuntimeError; didax refused nothing (a broadcast
# view allocates nothing, and a sum over it ran for minutes). didax refuses an array larger
# than the machine's physical memory (`didax.array.MAX_ARRAY_BYTES`).
HUGE = 2**38
HUGE_CALLS = {
    "ones": lambda m, np_: np_.ones((HUGE,)),
    "broadcast_to": lambda m, np_: np_.broadcast_to(1.0, (HUGE,)),
    "zeros_int8_2d": lambda m, np_: np_.zeros((2**20, 2**18), "int8"),
    "sum_of_ones": lambda m, np_: np_.sum(np_.ones((HUGE,))),
    "jit_ones": lambda m, np_: m.jit(lambda: np_.ones((HUGE,)))(),
}


@pytest.mark.parametrize("name", HUGE_CALLS)
def test_an_array_larger_than_memory_fails_at_once_as_jax(name: str) -> None:
    assert darray.MAX_ARRAY_BYTES is not None and darray.MAX_ARRAY_BYTES < HUGE * 4  # 1 TiB
    want = _error(lambda _: HUGE_CALLS[name](jax, jnp), None)
    got = _error(lambda _: HUGE_CALLS[name](didax, dnp), None)
    assert got[0] is want[0] and issubclass(got[0], RuntimeError), (got, want)
    assert got[1].startswith(want[1].rstrip("."))  # "RESOURCE_EXHAUSTED: Out of memory ..."
    assert "float32[274877906944]" in got[1] or "int8[1048576,262144]" in got[1]


def test_random_bits_larger_than_memory_fail_instead_of_aborting() -> None:
    # jaxlib aborted the process ("Check failed: buffer_.IsConcrete()"): run it in a child
    code = (
        "import didax.random as r\n"
        "try:\n"
        f"    r.normal(r.PRNGKey(0), ({HUGE},))[:3]\n"
        "except RuntimeError as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("JaxRuntimeError RESOURCE_EXHAUSTED: Out of memory allocating")
    assert "float32[274877906944]" in done.stdout


@pytest.mark.parametrize("shape", [(2.5,), ("3",), (None,), 2.5, (np.float32(2.0), 3)])
@pytest.mark.parametrize("make", ["ones", "zeros", "empty", "broadcast_to"])
def test_a_shape_that_is_not_integers_is_jax_type_error(make: str, shape: Any) -> None:
    def call(np_: Any) -> Any:
        return np_.broadcast_to(1.0, shape) if make == "broadcast_to" else getattr(np_, make)(shape)

    got, want = _error(lambda _: call(dnp), None), _error(lambda _: call(jnp), None)
    assert got[0] is want[0] is TypeError
    assert want[1].startswith("Shapes must be 1D sequences of concrete values of integer type")
    assert got[1] == want[1]
