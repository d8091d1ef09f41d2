"""Dtypes with x64 off: canonicalization, Python scalars' weak types, and the promotion
lattice (bool, int8, uint8, int32, float16, bfloat16, float32, weak int, weak float),
checked pair by pair and triple by triple against JAX."""

from __future__ import annotations

import itertools

import didax.numpy as dnp
import numpy as np
import pytest
from didax import core, dtypes

bfloat16 = pytest.importorskip("ml_dtypes").bfloat16

# name -> (dtype, weak) as didax sees it
LATTICE = {
    "bool": (np.dtype(bool), False),
    "int8": (np.dtype(np.int8), False),
    "uint8": (np.dtype(np.uint8), False),
    "int16": (np.dtype(np.int16), False),
    "uint32": (np.dtype(np.uint32), False),
    "int32": (np.dtype(np.int32), False),
    "float16": (np.dtype(np.float16), False),
    "bfloat16": (np.dtype(bfloat16), False),
    "float32": (np.dtype(np.float32), False),
    "weak_int": (np.dtype(np.int32), True),
    "weak_float": (np.dtype(np.float32), True),
}


def _jax_spelling(name: str):
    # JAX spells a weak type as the Python scalar type
    return {"weak_int": int, "weak_float": float}.get(name, LATTICE[name][0])


def _value(name: str):
    """A didax operand of this type: a Python scalar for the weak ones."""
    if name == "weak_int":
        return 2
    if name == "weak_float":
        return 2.0
    return np.ones(3, LATTICE[name][0])


def test_canonical_dtypes() -> None:
    assert dtypes.canonicalize(np.float64) == np.float32
    assert dtypes.canonicalize(np.int64) == np.int32
    assert dtypes.canonicalize(np.uint64) == np.uint32
    assert dtypes.canonicalize(np.float16) == np.float16
    assert core.get_aval(np.ones(2)).dtype == np.float32
    assert core.get_aval(np.arange(2)).dtype == np.int32


def test_python_scalars_are_weak() -> None:
    assert core.get_aval(2.0) == core.ShapedArray((), np.float32, weak_type=True)
    assert core.get_aval(2) == core.ShapedArray((), np.int32, weak_type=True)
    assert core.get_aval(True) == core.ShapedArray((), np.bool_, weak_type=False)
    assert not core.get_aval(np.float32(2.0)).weak_type


def test_short_names() -> None:
    names = [
        dtypes.short_name(np.dtype(d))
        for d in (np.float32, np.float16, bfloat16, np.int32, np.int8, np.uint8, np.bool_)
    ]
    assert names == ["f32", "f16", "bf16", "i32", "i8", "u8", "bool"]


def test_weak_float_with_int_array_is_weak_float32() -> None:
    assert dtypes.result_type((np.dtype(np.int32), False), (np.dtype(np.float32), True)) == (
        np.float32,
        True,
    )
    assert dtypes.result_type((np.dtype(np.int8), False), (np.dtype(np.int32), True)) == (
        np.int8,
        False,
    )
    assert dtypes.result_type((np.dtype(np.float16), False), (np.dtype(np.float32), True)) == (
        np.float16,
        False,
    )


@pytest.mark.oracle
@pytest.mark.parametrize("names", list(itertools.product(LATTICE, repeat=2)), ids="-".join)
def test_result_type_pairs_match_jax(names) -> None:
    jax = pytest.importorskip("jax")
    want = jax.dtypes.result_type(*map(_jax_spelling, names), return_weak_type_flag=True)
    got = dtypes.result_type(*(LATTICE[n] for n in names))
    assert (got[0], got[1]) == (np.dtype(want[0]), want[1])


@pytest.mark.oracle
def test_result_type_triples_match_jax() -> None:
    jax = pytest.importorskip("jax")
    for names in itertools.product(LATTICE, repeat=3):
        want = jax.dtypes.result_type(*map(_jax_spelling, names), return_weak_type_flag=True)
        got = dtypes.result_type(*(LATTICE[n] for n in names))
        assert (got[0], got[1]) == (np.dtype(want[0]), want[1]), names


@pytest.mark.oracle
@pytest.mark.parametrize(
    "names", [p for p in itertools.product(LATTICE, repeat=2) if "bool" not in p], ids="-".join
)
def test_eager_add_dtype_and_weak_type_match_jax(names) -> None:
    jax = pytest.importorskip("jax")
    a, b = map(_value, names)
    # the dtype and weak type of eager `jnp.add`, from its trace: nothing compiled (eagerly,
    # a compile each)
    want = jax.eval_shape(jax.numpy.add, a, b)
    got = dnp.add(a, b)
    assert np.dtype(got.dtype) == np.dtype(want.dtype)
    assert got.weak_type == want.weak_type
