"""`didax.random`: JAX's counter-based PRNG on the `threefry2x32` primitive. Like `jax.random`.

Layer 5. A key is the pair of uint32 words of a Threefry key. Every draw hashes counters
(`iota_2x32_shape`: each element's flat index) under the key with `threefry2x32`, then turns
the bits into the distribution with bit operations, as JAX 0.10.2 does with its default
`jax_threefry_partitionable=True`; so the same key gives the same bits as JAX's, eagerly,
under `jit` and under `vmap`. The samplers are jitted functions with JAX's names (`_uniform`,
`_normal`, `_randint`, ...): jaxprs show JAX's `jit[name=_uniform]` equations, and an eager
call runs the compiled program, as JAX's does, so float draws are XLA's arithmetic (its
`log`, its fused multiply-adds) and equal JAX's bit for bit. Keys, `split`, `fold_in` and
`bits` are integer arithmetic: NumPy computes them exactly.

Keys come in JAX's two kinds. `PRNGKey(seed)` is a raw key: a uint32[2] Array (a batch of
keys is uint32[..., 2]). `key(seed)` is a typed key: JAX gives it the extended dtype
`key<fry>`; didax represents it as a `KeyArray`, a pytree holding the uint32[..., 2] data,
whose shape, dtype and repr read as JAX's (`Array((), dtype=key<fry>) overlaying: ...`).
Being a pytree, a `KeyArray` goes through `jit`, `vmap`, `scan` and friends as its data, so a
jaxpr shows `u32[2]` where JAX shows `key<fry>[]`, and writes out what JAX's key-typed
primitives stand for (`random_bits` is `iota_2x32_shape`, `threefry2x32`, `xor`;
tests/oracle/test_random_jaxpr.py lists the correspondence and the differences left).
Under `jax_enable_x64`, 64-bit draws (float64, int64, uint64 `bits`) take both hash words
side by side, as JAX's. Not here: `poisson`, `laplace` and JAX's other samplers,
`gumbel(mode="high")`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import ml_dtypes
import numpy as np
from didax import core, dtypes, lax, nn, tree_util
from didax import numpy as jnp
from didax.api import vmap as didax_vmap
from didax.compile.jit import jit
from didax.control_flow.scan import scan as control_flow_scan
from didax.numpy.axis_args import shape_tuple
from didax.primitives import bits as _bits
from didax.primitives import sorting as _sort
from didax.primitives import special as _special

uint32 = np.dtype("uint32")
_UINT = {8: np.dtype("uint8"), 16: np.dtype("uint16"), 32: uint32, 64: np.dtype("uint64")}

__all__ = [
    "KeyArray",
    "PRNGKey",
    "bernoulli",
    "beta",
    "bits",
    "categorical",
    "choice",
    "clone",
    "dirichlet",
    "exponential",
    "fold_in",
    "gamma",
    "gumbel",
    "key",
    "key_data",
    "loggamma",
    "normal",
    "permutation",
    "randint",
    "split",
    "truncated_normal",
    "uniform",
    "wrap_key_data",
]

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


def _float_dtype(name: str, dtype: Any) -> np.dtype:
    dtype = dtypes.default_float() if dtype is None else dtypes.canonicalize(dtype)
    if not dtypes.is_float(dtype):
        raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {dtype}")
    return dtype


def _broadcast_to_rank(x: Any, rank: int) -> Any:
    ndim = core.get_aval(x).ndim
    return (
        x
        if ndim == rank
        else lax.broadcast_in_dim(
            x, (1,) * (rank - ndim) + core.get_aval(x).shape, tuple(range(rank - ndim, rank))
        )
    )


def _uniform_body(data: Any, minval: Any, maxval: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    minval = lax.convert_element_type(minval, dtype)
    maxval = lax.convert_element_type(maxval, dtype)
    minval = _broadcast_to_rank(minval, len(shape))
    maxval = _broadcast_to_rank(maxval, len(shape))
    finfo = ml_dtypes.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = 8 if nmant < 8 else nbits
    uint = _UINT[nbits]
    r = _random_bits(data, rng_bits, shape)
    if rng_bits != nbits:
        r = lax.convert_element_type(r, uint)
    # random mantissa bits under the exponent of 1.0 give a float in [1, 2); minus one
    float_bits = _bits.shift_right_logical(r, np.array(rng_bits - nmant, uint))
    float_bits = lax.bitwise_or(float_bits, np.array(1.0, dtype).view(uint))
    floats = lax.sub(_bits.bitcast_convert_type(float_bits, dtype), np.array(1.0, dtype))
    return lax.max(minval, lax.add(lax.mul(floats, lax.sub(maxval, minval)), minval))


_uniform = _named_jit(_uniform_body, "_uniform", (3, 4))


def uniform(
    key: Any, shape: Sequence[int] = (), dtype: Any = None, minval: Any = 0.0, maxval: Any = 1.0
) -> Any:
    """Uniform floats in [minval, maxval). Like `jax.random.uniform`."""
    data, _ = _key_data_of("uniform", key)
    return _uniform(data, minval, maxval, shape_tuple(shape), _float_dtype("uniform", dtype))


# ----------------------------------------------------------------------------- distributions


def _normal_real_body(data: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = _uniform(data, lo, np.array(1.0, dtype), shape, dtype)
    return lax.mul(np.array(np.sqrt(2), dtype), _special.erf_inv(u))


_normal_real = _named_jit(_normal_real_body, "_normal_real", (1, 2))
_normal = _named_jit(lambda data, shape, dtype: _normal_real(data, shape, dtype), "_normal", (1, 2))


def normal(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Standard normal floats. Like `jax.random.normal` (real dtypes)."""
    data, _ = _key_data_of("normal", key)
    return _normal(data, shape_tuple(shape), _float_dtype("normal", dtype))


def _truncated_normal_body(
    data: Any, lower: Any, upper: Any, shape: tuple[int, ...] | None, dtype: Any
) -> Any:
    if shape is None:
        shape = np.broadcast_shapes(np.shape(lower), np.shape(upper))
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a = _special.erf(lax.div(lower, sqrt2))
    b = _special.erf(lax.div(upper, sqrt2))
    out = lax.mul(sqrt2, _special.erf_inv(_uniform(data, a, b, tuple(shape), dtype)))
    # clamp into the open interval (lower, upper): rounding may reach its ends
    low = _special.nextafter(lax.stop_gradient(lower), np.array(np.inf, dtype))
    high = _special.nextafter(lax.stop_gradient(upper), np.array(-np.inf, dtype))
    return jnp.clip(out, low, high)


_truncated_normal = _named_jit(_truncated_normal_body, "_truncated_normal", (3, 4))


def truncated_normal(
    key: Any, lower: Any, upper: Any, shape: Sequence[int] | None = None, dtype: Any = None
) -> Any:
    """Normal floats truncated to (lower, upper). Like `jax.random.truncated_normal`."""
    data, _ = _key_data_of("truncated_normal", key)
    dtype = _float_dtype("truncated_normal", dtype)
    shape = None if shape is None else shape_tuple(shape)
    return _truncated_normal(data, lower, upper, shape, dtype)


def _bernoulli_body(data: Any, p: Any, shape: tuple[int, ...] | None) -> Any:
    dtype = core.get_aval(p).dtype
    shape = core.get_aval(p).shape if shape is None else shape
    return lax.lt(_uniform(data, 0.0, 1.0, shape, dtype), p)


_bernoulli = _named_jit(_bernoulli_body, "_bernoulli", (2,))


def bernoulli(key: Any, p: Any = 0.5, shape: Sequence[int] | None = None) -> Any:
    """Random booleans, true with probability `p`. Like `jax.random.bernoulli`."""
    data, _ = _key_data_of("bernoulli", key)
    dtype = core.get_aval(p).dtype
    if not dtypes.is_float(dtype):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
    p = lax.convert_element_type(p, dtype)
    return _bernoulli(data, p, None if shape is None else shape_tuple(shape))


def _exponential_body(data: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    u = _uniform(data, 0.0, 1.0, shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))  # -log(1 - u): log's argument in (0, 1]


_exponential = _named_jit(_exponential_body, "_exponential", (1, 2))


def exponential(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Standard exponential floats. Like `jax.random.exponential`."""
    data, _ = _key_data_of("exponential", key)
    return _exponential(data, shape_tuple(shape), _float_dtype("exponential", dtype))


def _gumbel_body(data: Any, shape: tuple[int, ...], dtype: Any, mode: str) -> Any:
    u = _uniform(data, ml_dtypes.finfo(dtype).tiny, 1.0, shape, dtype)
    return lax.neg(lax.log(lax.neg(lax.log(u))))


_gumbel = _named_jit(_gumbel_body, "_gumbel", (1, 2, 3))


def gumbel(key: Any, shape: Sequence[int] = (), dtype: Any = None, mode: str | None = None) -> Any:
    """Standard Gumbel floats. Like `jax.random.gumbel` (mode "low", JAX's default)."""
    data, _ = _key_data_of("gumbel", key)
    dtype = _float_dtype("gumbel", dtype)
    if mode not in (None, "low"):
        raise NotImplementedError(f"didax's gumbel has mode='low' only, got {mode!r}")
    return _gumbel(data, shape_tuple(shape), dtype, "low")


def categorical(
    key: Any,
    logits: Any,
    axis: int = -1,
    shape: Sequence[int] | None = None,
    replace: bool = True,
    mode: str | None = None,
) -> Any:
    """Indices drawn from categorical distributions: Gumbel-max with replacement, Gumbel
    top-k without. Like `jax.random.categorical` (mode "low", JAX's default)."""
    data, _ = _key_data_of("categorical", key)
    if mode not in (None, "low"):
        raise NotImplementedError(f"didax's categorical has mode='low' only, got {mode!r}")
    logits = jnp.asarray(logits)
    dtype = core.get_aval(logits).dtype
    lshape = core.get_aval(logits).shape
    ndim = len(lshape)
    batch_shape = tuple(np.delete(lshape, axis))
    shape = batch_shape if shape is None else shape_tuple(shape)
    prefix = shape[: len(shape) - len(batch_shape)]
    if not replace:
        return _categorical_no_replace(data, logits, axis % ndim, shape, prefix)
    if axis >= 0:
        axis -= ndim
    logits_shape = list(shape[len(shape) - len(batch_shape) :])
    logits_shape.insert(axis % ndim, lshape[axis])
    g = _gumbel(data, (*prefix, *logits_shape), dtype, "low")
    expanded = lax.expand_dims(logits, tuple(range(len(prefix)))) if prefix else logits
    return jnp.argmax(jnp.add(g, expanded), axis=axis)


def _categorical_no_replace(
    data: Any, logits: Any, axis: int, shape: tuple[int, ...], prefix: tuple[int, ...]
) -> Any:
    aval = core.get_aval(logits)
    perturbed = lax.add(logits, _gumbel(data, aval.shape, aval.dtype, "low"))
    k = math.prod(prefix)
    if k > aval.shape[axis]:
        raise ValueError(
            f"Number of samples without replacement ({k}) cannot exceed number of "
            f"categories ({aval.shape[axis]})."
        )
    # top-k along the last axis: a stable sort of the negated values, ties to the lower index
    perm = tuple(i for i in range(aval.ndim) if i != axis) + (axis,)
    moved = perturbed if perm == tuple(range(aval.ndim)) else lax.transpose(perturbed, perm)
    mshape = core.get_aval(moved).shape
    iota = lax.broadcasted_iota(dtypes.int32, mshape, len(mshape) - 1)
    _, order = _sort.sort_key_val(lax.neg(moved), iota, len(mshape) - 1)
    start, limit = [0] * len(mshape), list(mshape)
    limit[-1] = k
    indices = lax.slice(order, start, limit)
    nd = len(mshape)
    return lax.reshape(indices, shape, (nd - 1, *range(nd - 1)))


def _randint_span(minval: Any, maxval: Any, dtype: np.dtype) -> tuple[Any, Any]:
    info = np.iinfo(dtype)
    minval, maxval = jnp.asarray(minval), jnp.asarray(maxval)
    if not dtypes.is_int(core.get_aval(minval).dtype):
        minval = minval.astype(dtypes.int32)
    if not dtypes.is_int(core.get_aval(maxval).dtype):
        maxval = maxval.astype(dtypes.int32)
    return minval, maxval, info


def _clip_to(x: Any, dtype: np.dtype) -> Any:
    # convert integers, clipping to dtype's range instead of wrapping
    src = core.get_aval(x).dtype
    lo = max(int(np.iinfo(dtype).min), int(np.iinfo(src).min))
    hi = min(int(np.iinfo(dtype).max), int(np.iinfo(src).max))
    if not core.get_aval(x).weak_type:  # bounds of x's type: weak for a weak x, as JAX's
        lo, hi = np.array(lo, src), np.array(hi, src)
    return jnp.clip(x, lo, hi).astype(dtype)


def _randint_body(data: Any, minval: Any, maxval: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    # 2 x n random bits per value (n = 32, or 64 for int64), reduced modulo the span
    minval, maxval, info = _randint_span(minval, maxval, dtype)
    too_big = lax.gt(
        maxval, _clip_to(jnp.asarray(np.array(info.max, dtype)), core.get_aval(maxval).dtype)
    )
    minval, maxval = _clip_to(minval, dtype), _clip_to(maxval, dtype)
    minval, maxval = _broadcast_to_rank(minval, len(shape)), _broadcast_to_rank(maxval, len(shape))
    keys = split(data)
    k1, k2 = keys[0], keys[1]
    nbits = info.bits  # 32, or 64 under x64
    unsigned = _UINT[nbits]
    higher, lower = _random_bits(k1, nbits, shape), _random_bits(k2, nbits, shape)
    span = lax.convert_element_type(lax.sub(maxval, minval), unsigned)
    one = np.array(1, unsigned)
    # select_n(pred, on_false, on_true), as JAX's `lax.select`
    span = lax.select_n(
        lax.le(maxval, minval), span, lax.full(core.get_aval(span).shape, 1, unsigned)
    )
    span = lax.select_n(lax.bitwise_and(too_big, lax.gt(maxval, minval)), span, lax.add(span, one))
    multiplier = lax.rem(np.array(2 ** (nbits // 2), unsigned), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher, span), multiplier), lax.rem(lower, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


_randint = _named_jit(_randint_body, "_randint", (3, 4))


def randint(key: Any, shape: Sequence[int], minval: Any, maxval: Any, dtype: Any = int) -> Any:
    """Uniform integers in [minval, maxval). Like `jax.random.randint` (int64 under x64)."""
    data, _ = _key_data_of("randint", key)
    shape = shape_tuple(shape)
    dtype = dtypes.canonicalize(dtype)
    if not dtypes.is_int(dtype):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    out_dtype = dtype
    info = np.iinfo(dtype)
    if info.bits < 32:  # sampled in 32 bits, as JAX does
        minval = jnp.clip(jnp.asarray(minval).astype(dtypes.int32), int(info.min), int(info.max))
        maxval = jnp.clip(
            jnp.asarray(maxval).astype(dtypes.int32), int(info.min), int(info.max) + 1
        )
        dtype = dtypes.int32
    out = _randint(data, minval, maxval, shape, dtype)
    return out if out_dtype == dtype else out.astype(out_dtype)


# ----------------------------------------------------------------------------- shuffles


def _shuffle_body(data: Any, x: Any, axis: int) -> Any:
    # Sort by fresh random 32-bit keys, enough rounds to make key collisions unlikely (JAX's
    # count)
    x_shape = core.get_aval(x).shape
    size = math.prod(x_shape)
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        keys = split(data)
        data, subkey = keys[0], keys[1]
        sort_keys = _random_bits(subkey, 32, x_shape)
        _, x = _sort.sort_key_val(sort_keys, x, axis)
    return x


_shuffle = _named_jit(_shuffle_body, "_shuffle", (2,))


def permutation(key: Any, x: Any, axis: int = 0, independent: bool = False) -> Any:
    """A shuffled `arange(x)` or a shuffle of `x` along `axis`. Like `jax.random.permutation`."""
    data, _ = _key_data_of("permutation", key)
    if not np.ndim(x):
        if not dtypes.is_int(core.get_aval(x).dtype):
            raise TypeError("x must be an integer or at least 1-dimensional")
        n = int(core.concrete_or_error(x, "argument x of jax.random.permutation()"))
        return _shuffle(data, jnp.arange(n), 0)
    x = jnp.asarray(x)
    ndim = core.get_aval(x).ndim
    axis = axis + ndim if axis < 0 else axis
    if independent or ndim == 1:
        return _shuffle(data, x, axis)
    ind = _shuffle(data, jnp.arange(core.get_aval(x).shape[axis]), 0)  # rows move whole
    return jnp.take(x, ind, axis, unique_indices=True)


def choice(
    key: Any,
    a: Any,
    shape: Sequence[int] = (),
    replace: bool = True,
    p: Any = None,
    axis: int = 0,
) -> Any:
    """A random sample of `a` (or `arange(a)`), uniform or with probabilities `p`. Like
    `jax.random.choice`."""
    data, _ = _key_data_of("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    arr = jnp.asarray(a)
    aval = core.get_aval(arr)
    if aval.ndim == 0:
        n_inputs = int(core.concrete_or_error(a, "The error occurred in jax.random.choice()"))
    else:
        axis = axis + aval.ndim if axis < 0 else axis
        n_inputs = aval.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return jnp.zeros(tuple(shape), dtype=aval.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(
            f"Cannot take a larger sample (size {n_draws}) than "
            f"population (size {n_inputs}) when 'replace=False'"
        )
    if p is None and replace:
        ind = randint(data, shape, 0, n_inputs)
        result = ind if aval.ndim == 0 else jnp.take(arr, ind, axis)
    elif p is None:
        perm = permutation(data, n_inputs if aval.ndim == 0 else arr, axis)
        index = (slice(None),) * axis + (slice(0, n_draws),)
        result = perm[index]
    else:
        ind = _choice_p_indices(data, jnp.asarray(p), n_inputs, n_draws, tuple(shape), replace)
        result = ind if aval.ndim == 0 else jnp.take(arr, ind, axis)
    out_shape = (
        tuple(shape)
        if aval.ndim == 0
        else aval.shape[:axis] + tuple(shape) + aval.shape[axis + 1 :]
    )
    return jnp.reshape(result, out_shape)


def _choice_p_indices(
    data: Any, p: Any, n_inputs: int, n_draws: int, shape: tuple[int, ...], replace: bool
) -> Any:
    p_aval = core.get_aval(p)
    if not dtypes.is_float(p_aval.dtype):
        p = lax.convert_element_type(p, dtypes.float32)
        p_aval = core.get_aval(p)
    if p_aval.shape != (n_inputs,):
        raise ValueError(
            "p must be None or a 1D vector with the same size as a.shape[axis]. "
            f"p has shape {p_aval.shape} and a.shape[axis] is {n_inputs}."
        )
    if replace:
        # inverse CDF: the first index whose running total reaches r
        _, p_cuml = control_flow_scan(
            lambda c, v: (lax.add(c, v), lax.add(c, v)), np.array(0, p_aval.dtype), p
        )
        total = p_cuml[n_inputs - 1]
        u = _uniform(data, 0.0, 1.0, shape, p_aval.dtype)
        r = lax.mul(total, lax.sub(np.array(1, p_aval.dtype), u))
        r = lax.broadcast_in_dim(r, (*shape, n_inputs), tuple(range(len(shape))))
        below = lax.lt(lax.broadcast_in_dim(p_cuml, (*shape, n_inputs), (len(shape),)), r)
        return jnp.sum(lax.convert_element_type(below, dtypes.int32), axis=-1)
    # Gumbel top-k: the n_draws largest of gumbel + log p (ties: the lower index first)
    g = lax.add(_gumbel(data, (n_inputs,), p_aval.dtype, "low"), lax.log(p))
    _, order = _sort.sort_key_val(lax.neg(g), lax.iota(dtypes.int32, n_inputs))
    return lax.slice(order, (0,), (n_draws,))


# ----------------------------------------------------------------------------- gamma, dirichlet


def _gamma_one(data: Any, alpha: Any, log_space: bool) -> Any:
    # Marsaglia & Tsang, "A simple method for generating gamma variables" (2000), drawn as
    # JAX draws it (same key splits, same loops), so the samples are JAX's
    dtype = core.get_aval(alpha).dtype

    def const(v: float) -> Any:
        return np.array(v, dtype)

    zero, one, minus_one = const(0), const(1), const(-1)
    # alpha < 1 is boosted to alpha + 1: Gamma(alpha) ~ Gamma(alpha + 1) * U^(1 / alpha)
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select_n(boost_mask, lax.add(alpha, one), alpha)
    d = lax.sub(alpha, const(1.0 / 3.0))
    c = lax.div(const(1.0 / 3.0), lax.sqrt(d))

    def cond_fn(state: tuple) -> Any:
        _, x, v, u = state
        squeeze = lax.ge(u, lax.sub(one, lax.mul(const(0.0331), lax.mul(x, x))))
        log_test = lax.ge(
            lax.log(u),
            lax.add(lax.mul(x, const(0.5)), lax.mul(d, lax.add(lax.sub(one, v), lax.log(v)))),
        )
        return lax.bitwise_and(squeeze, log_test)

    def next_xv(state: tuple) -> tuple:
        keys = split(state[0])
        x = _normal(keys[1], (), dtype)
        return keys[0], x, lax.add(one, lax.mul(x, c))

    def body_fn(state: tuple) -> tuple:
        keys = split(state[0], 3)
        _, x, v = lax.while_loop(lambda s: lax.le(s[2], zero), next_xv, (keys[1], zero, minus_one))
        u = _uniform(keys[2], 0.0, 1.0, (), dtype)
        return keys[0], lax.mul(x, x), lax.mul(lax.mul(v, v), v), u

    keys = split(data)
    _, _, v, _ = lax.while_loop(cond_fn, body_fn, (keys[0], zero, one, const(2)))
    subkey = keys[1]
    if log_space:
        log_samples = lax.neg(_exponential(subkey, (), dtype))
        skip = lax.bitwise_or(boost_mask, lax.eq(log_samples, zero))
        log_boost = lax.select_n(skip, lax.mul(log_samples, lax.div(one, alpha_orig)), zero)
        return lax.add(lax.add(lax.log(d), lax.log(v)), log_boost)
    samples = lax.sub(one, _uniform(subkey, 0.0, 1.0, (), dtype))
    boost = lax.select_n(boost_mask, lax.pow(samples, lax.div(one, alpha_orig)), one)
    return lax.mul(lax.mul(d, v), boost)


def _gamma_body(
    data: Any, a: Any, shape: tuple[int, ...] | None, dtype: Any, log_space: bool
) -> Any:
    shape = core.get_aval(a).shape if shape is None else shape
    a = lax.convert_element_type(a, dtype)
    if core.get_aval(a).shape != shape:
        a = jnp.broadcast_to(a, shape)
    # one key per sample, split from the key as JAX's `random_gamma` does
    keys = jnp.reshape(split(data, math.prod(shape)), (-1, 2))
    alphas = jnp.reshape(a, (-1,))
    samples = didax_vmap(lambda k, al: _gamma_one(k, al, log_space))(keys, alphas)
    return jnp.reshape(samples, shape)


_gamma = _named_jit(_gamma_body, "_gamma", (2, 3, 4))


def gamma(key: Any, a: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Gamma(a) floats. Like `jax.random.gamma`."""
    data, _ = _key_data_of("gamma", key)
    dtype = _float_dtype("gamma", dtype)
    return _gamma(data, a, None if shape is None else shape_tuple(shape), dtype, False)


def loggamma(key: Any, a: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """The log of Gamma(a) floats, computed in log space. Like `jax.random.loggamma`."""
    data, _ = _key_data_of("loggamma", key)
    dtype = _float_dtype("loggamma", dtype)
    return _gamma(data, a, None if shape is None else shape_tuple(shape), dtype, True)


def _dirichlet_body(data: Any, alpha: Any, shape: tuple[int, ...] | None, dtype: Any) -> Any:
    alpha_shape = core.get_aval(alpha).shape
    if not alpha_shape:
        raise ValueError(
            f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {len(alpha_shape)}"
        )
    shape = alpha_shape[:-1] if shape is None else shape
    alpha = lax.convert_element_type(alpha, dtype)
    # in log space: small alphas would underflow
    log_samples = _gamma(data, alpha, (*shape, alpha_shape[-1]), dtype, True)
    return nn.softmax(log_samples, -1)


_dirichlet = _named_jit(_dirichlet_body, "_dirichlet", (2, 3))


def dirichlet(key: Any, alpha: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Dirichlet(alpha) vectors along the last axis. Like `jax.random.dirichlet`."""
    data, _ = _key_data_of("dirichlet", key)
    dtype = _float_dtype("dirichlet", dtype)
    return _dirichlet(data, alpha, None if shape is None else shape_tuple(shape), dtype)


def clone(key: Any) -> Any:
    """The same key (keys are immutable values here). Like `jax.random.clone`."""
    return key


def _beta_body(data: Any, a: Any, b: Any, shape: tuple[int, ...] | None, dtype: Any) -> Any:
    if shape is None:
        shape = np.broadcast_shapes(core.get_aval(a).shape, core.get_aval(b).shape)
    a = lax.convert_element_type(a, dtype)
    b = lax.convert_element_type(b, dtype)
    keys = split(data)
    a, b = jnp.broadcast_to(a, shape), jnp.broadcast_to(b, shape)
    log_gamma_a = _gamma(keys[0], a, shape, dtype, True)
    log_gamma_b = _gamma(keys[1], b, shape, dtype, True)
    # gamma_a / (gamma_a + gamma_b), scaled by the larger so nothing underflows
    log_max = lax.max(log_gamma_a, log_gamma_b)
    gamma_a_scaled = jnp.exp(jnp.subtract(log_gamma_a, log_max))
    gamma_b_scaled = jnp.exp(jnp.subtract(log_gamma_b, log_max))
    return jnp.divide(gamma_a_scaled, jnp.add(gamma_a_scaled, gamma_b_scaled))


_beta = _named_jit(_beta_body, "_beta", (3, 4))


def beta(key: Any, a: Any, b: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Beta(a, b) floats. Like `jax.random.beta`."""
    data, _ = _key_data_of("beta", key)
    dtype = _float_dtype("beta", dtype)
    return _beta(data, a, b, None if shape is None else shape_tuple(shape), dtype)
