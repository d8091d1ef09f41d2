"""Products of several arrays: `einsum` (with its contraction path), `outer` and `kron`. Like
`jax.numpy`'s.

Layer 5, after `sorting`. `einsum` contracts pairwise with `dot_general`, as JAX's does.
"""

from __future__ import annotations

import builtins
import itertools
import math
import string
from typing import Any

import numpy as np
from didax import lax, typed_sharding
from didax.compile.sharding_constraint import reshard
from didax.numpy import (
    creation,
    manipulation,
    promotion,
    ufuncs,
)
from didax.numpy.axis_args import _aval
from didax.runtime.sharding import AxisType, Mesh, NamedSharding, PartitionSpec


def outer(a: Any, b: Any, out: None = None) -> Any:
    """Like `jax.numpy.outer`."""
    a, b = promotion.promote("outer", a, b)
    return ufuncs.multiply(manipulation.ravel(a)[:, None], manipulation.ravel(b)[None, :])


def kron(a: Any, b: Any) -> Any:
    """Like `jax.numpy.kron`."""
    a, b = (creation.asarray(v) for v in promotion.promote("kron", a, b))
    nd = builtins.max(_aval(a).ndim, _aval(b).ndim)
    a = manipulation.reshape(a, (1,) * (nd - _aval(a).ndim) + _aval(a).shape)
    b = manipulation.reshape(b, (1,) * (nd - _aval(b).ndim) + _aval(b).shape)
    a_spread = manipulation.reshape(a, tuple(d for s in _aval(a).shape for d in (s, 1)))
    b_spread = manipulation.reshape(b, tuple(d for s in _aval(b).shape for d in (1, s)))
    prod = ufuncs.multiply(a_spread, b_spread)
    return manipulation.reshape(
        prod, tuple(p * q for p, q in zip(_aval(a).shape, _aval(b).shape, strict=True))
    )


def einsum(
    subscripts: str,
    *operands: Any,
    optimize: Any = "auto",
    precision: Any = None,
    preferred_element_type: Any = None,
    out_sharding: Any = None,
) -> Any:
    """Like `jax.numpy.einsum`, for explicit or implicit subscripts, with `...` broadcasting
    (a size-1 axis against a longer one is squeezed, as JAX does). The steps are JAX's: each
    contraction sums the indices used once, takes the diagonal of repeated ones (a Kronecker
    delta mask), then one `dot_general`; the pairs are contracted in the order of opt_einsum's
    "optimal" path for up to four operands (JAX's default; the jaxprs agree), left to right
    for more. `out_sharding` (a NamedSharding, or a spec over the context mesh) goes where
    JAX's goes: to the one contraction's sums or `dot_general`, before any transpose; with
    several contractions the operands are resharded unsplit and the result to it."""
    arrays = [creation.asarray(x) for x in promotion.promote("einsum", *operands)]
    ins, out = _parse_einsum(subscripts, [_aval(x).shape for x in arrays])
    split = None if out_sharding is None else typed_sharding.resolve(out_sharding)
    if split is not None and len(arrays) > 2:  # (JAX's `auto_axes` around the contractions)
        mesh = split.mesh
        types = tuple(AxisType.Auto if a is AxisType.Explicit else a for a in mesh.axis_types)
        auto = NamedSharding(Mesh(mesh.devices, mesh.axis_names, axis_types=types), PartitionSpec())
        arrays = [reshard(x, auto) for x in arrays]
        result = einsum(subscripts, *arrays, precision=precision)
        return reshard(result, split)
    pending = list(zip(arrays, ins, strict=True))
    for first, second in _einsum_path(ins, out, [_aval(x).shape for x in arrays]):
        # contract a pair (the later one is the lhs), append the result, as opt_einsum's path
        (lhs, lhs_s), (rhs, rhs_s) = pending.pop(second), pending.pop(first)
        later = "".join(s for _, s in pending) + out
        kept = [c for c in dict.fromkeys(lhs_s + rhs_s) if c in later]
        # an intermediate result keeps its indices in input order (opt_einsum's choice)
        result = "".join(kept) if pending else out
        removed = set(lhs_s + rhs_s) - set(kept)
        x, xs = _einsum_two(lhs, lhs_s, rhs, rhs_s, removed, result, precision, split)
        pending.append((_permuted(x, xs, result), result))
    x, xs = pending[0]
    if len(arrays) == 1:
        x, xs = _einsum_one(x, xs, set(xs) - set(out), out, split)
    return _permuted(x, xs, out)


def _einsum_path(ins: list[str], out: str, shapes: list[tuple[int, ...]]) -> list[tuple[int, int]]:
    # The pairs to contract, as positions in the list of operands left (each result goes to
    # its end): opt_einsum's "optimal" search (JAX's default for up to four operands), the
    # first pairing of least cost in its order, cost = the product of the pair's index sizes
    # (twice that when an index is summed away); left to right for more operands
    n = len(ins)
    if n < 3 or n > 4:
        return [(0, 1)] * (n - 1)
    sizes: dict[str, int] = {}
    for subs, shape in zip(ins, shapes, strict=True):
        for c, d in zip(subs, shape, strict=True):
            sizes[c] = d if sizes.get(c, 1) == 1 else sizes[c]
    output = frozenset(out)
    best: list[Any] = [math.inf, ()]

    def search(path: tuple, sets: tuple, remaining: frozenset, flops: int) -> None:
        if len(remaining) == 1:
            best[:] = [flops, path]
            return
        for i, j in itertools.combinations(sorted(remaining), 2):
            either = sets[i] | sets[j]
            keep = output.union(*(sets[r] for r in remaining if r not in (i, j)))
            summed = (sets[i] & sets[j]) - keep
            cost = math.prod(sizes[c] for c in either) * (2 if summed else 1)
            if flops + cost >= best[0]:
                continue
            search(
                path + ((i, j),),
                (*sets, either & keep),
                (remaining - {i, j}) | {len(sets)},
                flops + cost,
            )

    search((), tuple(map(frozenset, ins)), frozenset(range(n)), 0)
    ids, linear = list(range(n)), []
    for step, pair in enumerate(best[1]):  # single-assignment ids -> positions in the list
        first, second = sorted(ids.index(k) for k in pair)
        ids.pop(second)
        ids.pop(first)
        ids.append(n + step)
        linear.append((first, second))
    return linear


def _permuted(x: Any, xs: str, target: str) -> Any:
    return x if xs == target else lax.transpose(x, tuple(xs.index(c) for c in target))


def _parse_einsum(subscripts: str, shapes: list[tuple[int, ...]]) -> tuple[list[str], str]:
    # the subscripts of each operand and of the result, `...` written out as fresh letters
    # (the last ones of a run of unused letters, right-aligned, as opt_einsum's parser)
    subscripts = subscripts.replace(" ", "")
    lhs, arrow, out = subscripts.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(shapes):
        raise ValueError(f"einsum: {len(ins)} subscripts for {len(shapes)} operands")
    ellipsis = ""
    if "." in subscripts:
        used = set(subscripts.replace(".", "").replace(",", "").replace("->", ""))
        width = builtins.max((len(s) for s in shapes), default=0)
        fresh = "".join(c for c in string.ascii_lowercase + string.ascii_uppercase if c not in used)
        fresh = fresh[:width]
        for k, (sub, shape) in enumerate(zip(ins, shapes, strict=True)):
            if "." not in sub:
                continue
            if sub.count(".") != 3 or "..." not in sub:
                raise ValueError("Invalid Ellipses.")
            count = len(shape) - (len(sub) - 3)
            if count < 0:
                raise ValueError("Ellipses lengths do not match.")
            ins[k] = sub.replace("...", fresh[len(fresh) - count :] if count else "")
            if count > len(ellipsis):
                ellipsis = fresh[len(fresh) - count :]
    for subs, shape in zip(ins, shapes, strict=True):
        if len(subs) != len(shape):
            raise ValueError(
                f"einsum: operand with subscripts '{subs}' has {len(shape)} dimensions"
            )
    if arrow:
        out = out.replace("...", ellipsis)
    else:
        joined = "".join(ins)
        once = [c for c in dict.fromkeys(joined) if joined.count(c) == 1 and c not in ellipsis]
        out = ellipsis + "".join(sorted(once))
    return ins, out


def _sum_uniques(x: Any, xs: str, uniques: list[str], split: Any = None) -> tuple[Any, str]:
    if not uniques:
        return x, xs
    x = lax.reduce_sum(x, tuple(xs.index(c) for c in uniques), out_sharding=split)
    return x, "".join(c for c in xs if c not in uniques)


def _sum_repeats(x: Any, xs: str, keep: str, split: Any = None) -> tuple[Any, str]:
    # a repeated index: zeros off the diagonal (a Kronecker delta), then a sum over its axes
    # (all but the last one if the index is kept)
    for c in dict.fromkeys(xs):
        axes = [i for i, d in enumerate(xs) if d == c]
        if len(axes) < 2:
            continue
        eye = _delta(_aval(x).shape, axes)
        x = lax.select_n(eye, lax.full(_aval(x).shape, 0, _aval(x).dtype), x)
        if c in keep:
            x = lax.reduce_sum(x, tuple(axes[:-1]), out_sharding=split)
            xs = "".join(d for i, d in enumerate(xs) if i not in axes[:-1])
        else:
            x = lax.reduce_sum(x, tuple(axes), out_sharding=split)
            xs = xs.replace(c, "")
    return x, xs


def _delta(shape: tuple[int, ...], axes: list[int]) -> Any:
    # True where the indices along `axes` are all equal, as JAX's `lax._delta`
    base = tuple(shape[a] for a in axes)
    iotas = [lax.broadcasted_iota(np.uint32, base, i) for i in range(len(base))]
    eye = None
    for a, b in zip(iotas[:-1], iotas[1:], strict=True):
        same = lax.eq(a, b)
        eye = same if eye is None else lax.bitwise_and(eye, same)
    return lax.broadcast_in_dim(eye, shape, tuple(axes))


def _einsum_one(x: Any, xs: str, removed: set[str], out: str, split: Any) -> tuple[Any, str]:
    uniques = [c for c in sorted(removed) if xs.count(c) == 1]
    x, xs = _sum_uniques(x, xs, uniques, split)
    return _sum_repeats(x, xs, out, split)


def _squeeze_singletons(x: Any, xs: str, other: Any, other_s: str) -> tuple[Any, str]:
    # an axis of size 1 against a longer one in the other operand broadcasts: squeeze it
    shape, other_shape = _aval(x).shape, _aval(other).shape
    drop = [
        i
        for i, c in enumerate(xs)
        if shape[i] == 1 and c in other_s and other_shape[other_s.index(c)] != 1
    ]
    if not drop:
        return x, xs
    return lax.squeeze(x, tuple(drop)), "".join(c for i, c in enumerate(xs) if i not in drop)


def _einsum_two(
    lhs: Any,
    lhs_s: str,
    rhs: Any,
    rhs_s: str,
    removed: set[str],
    result: str,
    precision: Any,
    split: Any,
) -> tuple[Any, str]:
    lhs, lhs_s = _squeeze_singletons(lhs, lhs_s, rhs, rhs_s)
    rhs, rhs_s = _squeeze_singletons(rhs, rhs_s, lhs, lhs_s)
    contracted = sorted(removed)
    lhs, lhs_s = _sum_uniques(
        lhs, lhs_s, [c for c in contracted if lhs_s.count(c) == 1 and c not in rhs_s]
    )
    rhs, rhs_s = _sum_uniques(
        rhs, rhs_s, [c for c in contracted if rhs_s.count(c) == 1 and c not in lhs_s]
    )
    lhs, lhs_s = _sum_repeats(lhs, lhs_s, result + rhs_s)
    rhs, rhs_s = _sum_repeats(rhs, rhs_s, result + lhs_s)
    contracted = [c for c in contracted if c in lhs_s or c in rhs_s]
    batch = "".join(c for c in result if c in lhs_s and c in rhs_s)
    lhs_batch = tuple(lhs_s.index(c) for c in batch)
    rhs_batch = tuple(rhs_s.index(c) for c in batch)
    lhs_cont = tuple(lhs_s.index(c) for c in contracted)
    rhs_cont = tuple(rhs_s.index(c) for c in contracted)
    gone = batch + "".join(contracted)
    lhs_rest = "".join(c for c in lhs_s if c not in gone)
    rhs_rest = "".join(c for c in rhs_s if c not in gone)
    dtype = _aval(lhs).dtype
    if batch + rhs_rest + lhs_rest == result:  # (rhs, lhs) needs no transpose: JAX's first try
        dims = ((rhs_cont, lhs_cont), (rhs_batch, lhs_batch))
        out = lax.dot_general(rhs, lhs, dims, precision, dtype, out_sharding=split)
        return out, result
    dims = ((lhs_cont, rhs_cont), (lhs_batch, rhs_batch))
    names = batch + lhs_rest + rhs_rest
    if split is not None:  # the split asked for the result, in the order of `names`
        spec = (*split.spec, *[None] * (len(result) - len(split.spec)))
        split = NamedSharding(split.mesh, PartitionSpec(*(spec[result.index(c)] for c in names)))
    out = lax.dot_general(lhs, rhs, dims, precision, dtype, out_sharding=split)
    return out, names


__all__ = [
    "einsum",
    "kron",
    "outer",
]
