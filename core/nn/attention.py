"""`dot_product_attention`: `softmax(Q K^T * scale + bias, masked) V`. Like
`jax.nn.dot_product_attention` with `implementation=None` or `"xla"` (JAX's other one, cuDNN,
needs a GPU).

Layer 5, in `didax.nn`. Shapes follow JAX: query `[B, T, N, H]`, key and value `[B, S, K, H]`
(or the same without `B`), with N a multiple of K: each key/value head serves a group of
N // K query heads (grouped-query attention). Logits are computed in at least float32 and the
softmax in float32, as in JAX; masked logits get a large negative finite value, not -inf.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, lax
from didax import numpy as jnp
from didax.numpy.stable import logsumexp, softmax


def _ensure_4d(t: Any) -> Any:
    t = jnp.asarray(t)
    ndim = core.get_aval(t).ndim
    return jnp.expand_dims(t, tuple(range(4 - ndim))) if ndim < 4 else t


def _check(t: Any, shape: list[int], dtype: Any, name: str) -> None:
    if t is None:
        return
    aval = core.get_aval(t)
    if aval.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {aval.ndim}")
    if dtype is not None and aval.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {aval.dtype}")
    if any(want not in (-1, got) for want, got in zip(shape, aval.shape, strict=True)):
        raise ValueError(f"{name} shape should be {tuple(shape)}: but got {aval.shape}")


def _to_groups(t: Any, num_kv_heads: int, group: int) -> Any:
    # a [B, N, T, S] bias or mask as [B, K, G, T, S]; one head broadcasts over all of them
    if t is None:
        return None
    b, n, tq, s = core.get_aval(t).shape
    if n == 1:
        return jnp.broadcast_to(t[:, :, None], (b, 1, group, tq, s))
    return jnp.reshape(t, (b, num_kv_heads, group, tq, s))


def _mask(
    logits: Any,
    mask: Any,
    is_causal: bool,
    q_seqlen: Any,
    kv_seqlen: Any,
    window: tuple[int, int] | None,
) -> Any:
    # logits: [B, K, G, T, S]; positions that no mask allows get a large negative value
    shape = core.get_aval(logits).shape
    t, s = shape[-2:]
    allowed = jnp.ones(shape, bool)
    if mask is not None:
        allowed = allowed & mask
    q_pos, k_pos = jnp.arange(t)[:, None], jnp.arange(s)[None, :]
    if is_causal:
        allowed = allowed & (q_pos >= k_pos)
    if window is not None:
        left, right = window
        allowed = allowed & (q_pos <= k_pos + left) & (q_pos >= k_pos - right)
    if q_seqlen is not None:
        allowed = allowed & (jnp.arange(t)[None, :, None] < q_seqlen[:, None, None])[:, None, None]
    if kv_seqlen is not None:
        allowed = allowed & (jnp.arange(s)[None, None, :] < kv_seqlen[:, None, None])[:, None, None]
    dtype = core.get_aval(logits).dtype
    # -0.7 * max, kept finite in float32 (where the softmax runs), as JAX's
    large_negative = -0.7 * min(float(jnp.finfo(dtype).max), float(np.finfo(np.float32).max))
    return jnp.where(allowed, logits, jnp.asarray(large_negative, dtype))


def dot_product_attention(
    query: Any,
    key: Any,
    value: Any,
    bias: Any = None,
    mask: Any = None,
    *,
    scale: float | None = None,
    is_causal: bool = False,
    query_seq_lengths: Any = None,
    key_value_seq_lengths: Any = None,
    local_window_size: int | tuple[int, int] | None = None,
    implementation: str | None = None,
    return_residual: bool = False,
) -> Any:
    """Scaled dot-product attention. Like `jax.nn.dot_product_attention` (XLA implementation).

    Raises:
      ValueError: mismatched shapes or dtypes, N not a multiple of K, or an implementation
        other than None or "xla" ("cudnn" needs a GPU didax does not drive).
    """
    output_shape = core.get_aval(jnp.asarray(query)).shape
    q, k, v = _ensure_4d(query), _ensure_4d(key), _ensure_4d(value)
    bias = None if bias is None else _ensure_4d(bias)
    mask = None if mask is None else _ensure_4d(mask)
    q_len = None if query_seq_lengths is None else jnp.asarray(query_seq_lengths)
    kv_len = None if key_value_seq_lengths is None else jnp.asarray(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    b, s, num_kv, h = core.get_aval(k).shape
    k_dtype = core.get_aval(k).dtype
    _check(v, [b, s, num_kv, h], k_dtype, "value")
    _check(q, [b, -1, -1, h], k_dtype, "query")
    _check(mask, [-1] * 4, np.dtype(bool), "mask")
    _check(bias, [-1] * 4, None, "bias")
    _check(q_len, [b], np.dtype("int32"), "query_seq_lengths")
    _check(kv_len, [b], np.dtype("int32"), "key_value_seq_lengths")
    _, t, n, _ = core.get_aval(q).shape
    if n % num_kv != 0:
        raise ValueError(
            "The number of query heads must be a multiple of key/value heads, but got "
            f"{n} vs {num_kv}"
        )
    if implementation not in (None, "xla"):
        raise ValueError(f"Unsupported implementation option: {implementation}")
    scale = 1.0 / np.sqrt(h) if scale is None else scale
    group = n // num_kv

    grouped_q = jnp.reshape(q, (b, t, num_kv, group, h))
    logits_dtype = jnp.promote_types(core.get_aval(q).dtype, np.float32)
    logits = jnp.einsum("BTKGH,BSKH->BKGTS", grouped_q, k, preferred_element_type=logits_dtype)
    logits = logits * jnp.array(scale, dtype=logits_dtype)
    if bias is not None:
        logits = (logits + _to_groups(bias, num_kv, group)).astype(logits_dtype)
    logits = _mask(
        logits, _to_groups(mask, num_kv, group), is_causal, q_len, kv_len, local_window_size
    ).astype(np.float32)
    probs = softmax(logits, axis=-1).astype(k_dtype)
    encoded = jnp.einsum("BKGTS,BSKH->BTKGH", probs, v)
    if q_len is not None:  # padded query positions give zeros
        encoded = encoded * (jnp.arange(t)[None, :] < q_len[:, None])[:, :, None, None, None]
    out = jnp.reshape(encoded, output_shape)
    if not return_residual:
        return out
    lse = logsumexp(logits, axis=-1).astype(k_dtype)  # [B, K, G, T]
    residual = lax.stop_gradient(jnp.transpose(lse, (0, 3, 1, 2)))
    return out, jnp.reshape(residual, output_shape[:-1])
