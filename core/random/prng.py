"""JAX's counter-based PRNG: keys (raw `PRNGKey` and typed `key`, `KeyArray`), `split`,
`fold_in`, `clone` and `bits`, on the `threefry2x32` primitive. Like `jax.random`'s.

Layer 5 (`didax.random`, first). A key is the pair of uint32 words of a Threefry key. Every
draw hashes counters (`iota_2x32_shape`: each element's flat index) under the key with
`threefry2x32`, as JAX 0.10.2 does with its default `jax_threefry_partitionable=True`; so the
same key gives the same bits as JAX's, eagerly, under `jit` and under `vmap`. Keys, `split`,
`fold_in` and `bits` are integer arithmetic: NumPy computes them exactly.

Keys come in JAX's two kinds. `PRNGKey(seed)` is a raw key: a uint32[2] Array (a batch of
keys is uint32[..., 2]). `key(seed)` is a typed key: JAX gives it the extended dtype
`key<fry>`; didax represents it as a `KeyArray`, a pytree holding the uint32[..., 2] data,
whose shape, dtype and repr read as JAX's (`Array((), dtype=key<fry>) overlaying: ...`).
Being a pytree, a `KeyArray` goes through `jit`, `vmap`, `scan` and friends as its data, so a
jaxpr shows `u32[2]` where JAX shows `key<fry>[]` (tests/oracle/test_random_jaxpr.py lists
the correspondence and the differences left).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import core, dtypes, lax, tree_util
from didax import numpy as jnp
from didax.compile.jit import jit
from didax.numpy.axis_args import shape_tuple
from didax.primitives import bits as _bits

uint32 = np.dtype("uint32")
_UINT = {8: np.dtype("uint8"), 16: np.dtype("uint16"), 32: uint32, 64: np.dtype("uint64")}

# ----------------------------------------------------------------------------- helpers

# ----------------------------------------------------------------------------- helpers


def _named_jit(fn: Callable[..., Any], name: str, static_argnums: tuple[int, ...]) -> Any:
    # JAX's samplers are jitted functions (`_uniform`, `_normal`, ...): their jaxprs show a
    # `jit[name=_uniform]` equation, and an eager call runs the compiled program, so eager
    # draws are XLA's arithmetic (its `log`, its fused multiply-adds) and equal JAX's
    fn.__name__ = fn.__qualname__ = name
    return jit(fn, static_argnums=static_argnums)


def _eager_jit(fn: Callable[..., Any], name: str, static_argnums: tuple[int, ...]) -> Any:
    # JAX's `split`, `fold_in` and `bits` are primitives whose eager calls run compiled: so do
    # these eagerly; while tracing, their equations are staged inline, as JAX's lower
    jitted = _named_jit(fn, name, static_argnums)

    def call(*args: Any) -> Any:
        return jitted(*args) if core.trace_state() is core.EAGER_STATE else fn(*args)

    return call


# ----------------------------------------------------------------------------- typed keys


class KeyDType:
    """The dtype of typed Threefry keys; prints as JAX's `key<fry>`."""

    name = "key<fry>"

    def __repr__(self) -> str:
        return "key<fry>"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KeyDType) or other == "key<fry>"

    def __hash__(self) -> int:
        return hash("key<fry>")


key_fry = KeyDType()


class KeyArray:
    """An array of typed PRNG keys (JAX's `key<fry>` dtype), holding uint32[*shape, 2]."""

    __slots__ = ("_data",)

    def __init__(self, data: Any) -> None:
        self._data = data

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(core.get_aval(self._data).shape[:-1])

    @property
    def dtype(self) -> KeyDType:
        return key_fry

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self) -> Any:
        return (self[i] for i in range(len(self)))

    def __getitem__(self, idx: Any) -> KeyArray:
        idx = idx if isinstance(idx, tuple) else (idx,)
        if any(i is Ellipsis for i in idx):
            raise IndexError("didax KeyArray indexing takes ints and slices, not ...")
        return KeyArray(self._data[(*idx, slice(None))])

    def __eq__(self, other: object) -> Any:
        if not isinstance(other, KeyArray):
            return NotImplemented
        same = jnp.equal(self._data, other._data)
        return lax.bitwise_and(same[..., 0], same[..., 1])

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if isinstance(self._data, core.Tracer):  # the tracer's own text, with the key's type
            aval = core.get_aval(self._data)
            key_type = f"key<fry>[{','.join(map(str, self.shape))}]"
            text = repr(self._data)  # JitTracer(uint32[3,2]) or Traced<u32[3,2]>...
            return text.replace(str(aval), key_type).replace(aval.str_short(), key_type)
        return f"Array({self.shape}, dtype={self.dtype}) overlaying:\n{np.asarray(self._data)}"


tree_util.register_pytree_node(KeyArray, lambda k: ((k._data,), None), lambda _, xs: KeyArray(*xs))


def _key_data_of(name: str, k: Any, allow_batched: bool = False) -> tuple[Any, bool]:
    # (uint32[..., 2] data, typed?)
    if isinstance(k, KeyArray):
        data, typed = k._data, True
    else:
        data, typed = k, False
        aval = core.get_aval(k)
        if aval.dtype != uint32 or not aval.shape or aval.shape[-1] != 2:
            raise TypeError(
                f"{name}: a raw PRNG key must be a uint32 array whose last axis has size 2, "
                f"got {aval.str_short()}"
            )
    if not allow_batched and core.get_aval(data).ndim != 1:
        shape = core.get_aval(data).shape[:-1]
        raise ValueError(
            f"{name} accepts a single key, but was given a key array of shape {shape} != (). "
            "Use jax.vmap for batching."
        )
    return data, typed


def _wrap(data: Any, typed: bool) -> Any:
    return KeyArray(data) if typed else data


# ----------------------------------------------------------------------------- seeding


def _seed(name: str, seed: Any) -> Any:
    if isinstance(seed, KeyArray):
        raise TypeError(f"{name} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed):
        raise TypeError(
            f"{name} accepts a scalar seed, but was given an array of shape "
            f"{np.shape(seed)} != (). Use jax.vmap for batching"
        )
    if isinstance(seed, int) and not -(2**63) <= seed < 2**63:  # JAX converts it to a C long
        raise OverflowError(f"{name}: Python int {seed} too large to convert to an int64 seed")
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        # the high word holds bits 32-63 of the seed when x64 keeps them, as in JAX
        high = (int(seed) >> 32) & 0xFFFFFFFF if dtypes.x64_enabled() else 0
        return jnp.asarray(np.array([high, int(seed) & 0xFFFFFFFF], uint32))
    aval = core.get_aval(seed)
    if not dtypes.is_int(aval.dtype):
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    # the high word is the seed shifted right by 32: zero for 32-bit seeds, as in JAX
    high = lax.convert_element_type(
        _bits.shift_right_logical(seed, np.array(32, aval.dtype)), uint32
    )
    low = lax.convert_element_type(seed, uint32)
    return lax.concatenate([lax.expand_dims(high, (0,)), lax.expand_dims(low, (0,))], 0)


def PRNGKey(seed: Any) -> Any:
    """A raw (uint32[2]) key from an integer seed. Like `jax.random.PRNGKey`."""
    return _seed("PRNGKey", seed)


def key(seed: Any) -> KeyArray:
    """A typed key (dtype `key<fry>`) from an integer seed. Like `jax.random.key`."""
    return KeyArray(_seed("key", seed))


def key_data(keys: Any) -> Any:
    """The uint32[..., 2] data of keys. Like `jax.random.key_data`."""
    data, _ = _key_data_of("key_data", keys, allow_batched=True)
    return data


def wrap_key_data(key_bits_array: Any) -> KeyArray:
    """Typed keys from uint32[..., 2] data. Like `jax.random.wrap_key_data`."""
    data, _ = _key_data_of("wrap_key_data", key_bits_array, allow_batched=True)
    return KeyArray(data)


# ----------------------------------------------------------------------------- split, fold_in


def _hash_counts(data: Any, shape: tuple[int, ...]) -> list[Any]:
    high, low = _bits.iota_2x32_shape(shape)
    return _bits.threefry2x32(data[0], data[1], high, low)


def _split_body(data: Any, shape: tuple[int, ...]) -> Any:
    b1, b2 = _hash_counts(data, shape)
    n = len(shape)
    return lax.concatenate([lax.expand_dims(b1, (n,)), lax.expand_dims(b2, (n,))], n)


_split = _eager_jit(_split_body, "_split", (1,))


def split(key: Any, num: int | Sequence[int] = 2) -> Any:
    """`num` new keys (a shape if a tuple) from one key. Like `jax.random.split`."""
    data, typed = _key_data_of("split", key)
    shape = tuple(int(n) for n in num) if isinstance(num, Sequence) else (int(num),)
    return _wrap(_split(data, shape), typed)


def fold_in(key: Any, data: Any) -> Any:
    """A new key from a key and an integer. Like `jax.random.fold_in`."""
    kdata, typed = _key_data_of("fold_in", key)
    if np.ndim(data):
        raise TypeError(
            "fold_in accepts a scalar, but was given an array of"
            f"shape {np.shape(data)} != (). Use jax.vmap for batching."
        )
    if isinstance(data, int):
        if not 0 <= data < 2**32:  # as JAX's `jnp.asarray(data, dtype="uint32")`
            raise OverflowError(f"Python integer {data} out of bounds for uint32")
        count = jnp.asarray(np.array(data, uint32))
    else:
        count = lax.convert_element_type(data, uint32)
    return _wrap(_fold_in(kdata, count), typed)


def _fold_in_body(kdata: Any, count: Any) -> Any:
    high = _bits.shift_right_logical(count, np.uint32(32))
    b1, b2 = _bits.threefry2x32(kdata[0], kdata[1], high, count)
    return lax.concatenate([lax.expand_dims(b1, (0,)), lax.expand_dims(b2, (0,))], 0)


_fold_in = _eager_jit(_fold_in_body, "_fold_in", ())


# ----------------------------------------------------------------------------- bits, uniform


def _random_bits(data: Any, bit_width: int, shape: tuple[int, ...]) -> Any:
    b1, b2 = _hash_counts(data, shape)
    if bit_width == 64:  # (x64) the two words side by side, as JAX's partitionable bits
        u64 = _UINT[64]
        high = lax.convert_element_type(b1, u64)
        low = lax.convert_element_type(b2, u64)
        return lax.bitwise_or(_bits.shift_left(high, np.array(32, u64)), low)
    out = _bits.bitwise_xor(b1, b2)
    return out if bit_width == 32 else lax.convert_element_type(out, _UINT[bit_width])


def bits(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Uniform random unsigned integers. Like `jax.random.bits` (x64 off: up to uint32)."""
    data, _ = _key_data_of("bits", key)
    dtype = uint32 if dtype is None else dtypes.canonicalize(dtype)
    if dtype.kind != "u":
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
    return _bits_eager(data, dtype.itemsize * 8, shape_tuple(shape))


_bits_eager = _eager_jit(lambda data, w, shape: _random_bits(data, w, shape), "_bits", (1, 2))


def clone(key: Any) -> Any:
    """The same key (keys are immutable values here). Like `jax.random.clone`."""
    return key
