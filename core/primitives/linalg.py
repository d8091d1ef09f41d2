"""Linear-algebra primitives: `cholesky`, `triangular_solve`, `lu`. Like `jax.lax.linalg`.

Layer 2. Every operand may carry leading batch dimensions (`f32[5,3,3]` is five 3x3
matrices); the rules act on the last two axes. `didax.numpy.linalg` builds `inv`, `solve`,
`det` and `slogdet` on `lu` and `triangular_solve`, and `cholesky` on `cholesky`.

Lowering: `cholesky` is `stablehlo.cholesky` (XLA expands it for the CPU). StableHLO has no
LU, so `lu` calls LAPACK's `getrf` as JAX does on CPU, and `triangular_solve` LAPACK's
`trsm` (rather than `stablehlo.triangular_solve`: XLA's expansion turns a singular matrix's
infs into NaNs, LAPACK gives JAX's infs): jaxlib ships the LAPACK handlers as XLA FFI custom
calls (`lapack_sgetrf_ffi`), which `client.lapack_target` registers on first use. Their
matrices are column-major (the custom call's layouts say so) and getrf's pivots 1-based. The
row permutation that the pivots encode is computed after the call, one swap per pivot, as
vectorized selects (unrolled: a matrix's size is static, and the loop is short for the
matrices a course uses; JAX writes a `while` loop). Eager impls are NumPy: partial-pivoting
elimination for `lu`, substitution in LAPACK's order for `triangular_solve`,
`np.linalg.cholesky`.

The jvps are the textbook ones: for A = L L^T, dL = L phi(L^-1 dA L^-T) with phi the lower
triangle with its diagonal halved; for X = A^-1 B, dX = A^-1 (dB - dA X); for P A = L U,
dL = L tril(L^-1 P dA U^-1, -1) and dU = triu(L^-1 P dA U^-1) U.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray, UndefinedPrimal, Zero
from didax.primitives import concatenation, creation, rules, shape
from didax.primitives.comparison import eq, ge, select_n
from didax.primitives.convert import convert_element_type
from didax.primitives.dot import dot_general
from didax.primitives.elementwise import add, div, neg, partials_jvp, sub
from didax.runtime import client

# ----------------------------------------------------------------------------- helpers
# Batched matrix helpers over the last two axes, built from lax primitives (the jvp rules use
# them).


def _tri_mask(aval: ShapedArray, k: int) -> Any:
    # True where j <= i + k, one matrix's mask broadcast over the batch (as JAX's `_tri`)
    rows_cols = aval.shape[-2:]
    rows = add(creation.broadcasted_iota(dtypes.int32, rows_cols, 0), np.int32(k))
    mask = ge(rows, creation.broadcasted_iota(dtypes.int32, rows_cols, 1))
    if aval.ndim == 2:
        return mask
    return shape.broadcast_in_dim(mask, aval.shape, (aval.ndim - 2, aval.ndim - 1))


def tril(x: Any, k: int = 0) -> Any:
    """The lower triangle of each matrix (entries with j <= i + k), zeros elsewhere."""
    aval = core.get_aval(x)
    return select_n(_tri_mask(aval, k), creation.full(aval.shape, 0, aval.dtype), x)


def triu(x: Any, k: int = 0) -> Any:
    """The upper triangle of each matrix (entries with j >= i + k), zeros elsewhere."""
    aval = core.get_aval(x)
    return select_n(_tri_mask(aval, k - 1), x, creation.full(aval.shape, 0, aval.dtype))


def eye(shp: tuple[int, ...], dtype: np.dtype) -> Any:
    """Identity matrices (ones where row == column) of shape `shp`."""
    rows = creation.broadcasted_iota(dtypes.int32, shp, len(shp) - 2)
    cols = creation.broadcasted_iota(dtypes.int32, shp, len(shp) - 1)
    return convert_element_type(eq(rows, cols), dtype)


def eye_like(x: Any) -> Any:
    """Identity matrices of `x`'s shape and dtype."""
    aval = core.get_aval(x)
    return eye(aval.shape, aval.dtype)


def matrix_transpose(x: Any) -> Any:
    """Each matrix transposed (the last two axes swapped)."""
    n = core.get_aval(x).ndim
    return shape.transpose(x, (*range(n - 2), n - 1, n - 2))


def matmul(x: Any, y: Any) -> Any:
    """Batched matrix product over the last two axes (equal batch dimensions)."""
    n = core.get_aval(x).ndim
    batch = tuple(range(n - 2))
    return dot_general(x, y, (((n - 1,), (n - 2,)), (batch, batch)))


def permute_rows(permutation: Any, x: Any) -> Any:
    """`x[..., permutation, :]`, as a product with the one-hot permutation matrix."""
    aval = core.get_aval(x)
    m = aval.shape[-2]
    perm_aval = core.get_aval(permutation)
    grid = (*perm_aval.shape, m)
    cols = creation.broadcasted_iota(dtypes.int32, grid, len(grid) - 1)
    wide = shape.broadcast_in_dim(permutation, grid, tuple(range(perm_aval.ndim)))
    return matmul(convert_element_type(eq(wide, cols), aval.dtype), x)


def _check_float(name: str, aval: ShapedArray) -> None:
    if not dtypes.is_float(aval.dtype):
        raise TypeError(f"{name}: expected a floating-point operand, got {aval.str_short()}")


def _check_matrix(name: str, aval: ShapedArray, square: bool = True) -> None:
    if aval.ndim < 2 or (square and aval.shape[-1] != aval.shape[-2]):
        what = "square matrices" if square else "matrices"
        raise ValueError(f"{name}: expected {what} (..., m, n), got {aval.str_short()}")


def _batched(fn: Any, *arrays: np.ndarray) -> np.ndarray:
    # fn on each matrix (the last two axes), stacked back to the batch shape
    batch = arrays[0].shape[:-2]
    flat = [a.reshape(-1, *a.shape[-2:]) for a in arrays]
    outs = [fn(*mats) for mats in zip(*flat, strict=True)]
    return np.stack(outs).reshape(*batch, *outs[0].shape) if outs else np.empty(batch + (0, 0))


def _front(vals: Any, dims: Any, axis_size: int) -> list[Any]:
    return [shape.move_axis(x, d, 0, axis_size) for x, d in zip(vals, dims, strict=True)]


# ----------------------------------------------------------------------------- cholesky

cholesky_p = core.Primitive("cholesky")


def cholesky(x: Any, symmetrize_input: bool = True) -> Any:
    """The lower Cholesky factor L of each symmetric positive-definite matrix (A = L L^T);
    NaNs where A is not positive definite. Like `jax.lax.linalg.cholesky`."""
    if symmetrize_input:
        x = div(add(x, matrix_transpose(x)), 2.0)
    return tril(cholesky_p.bind(x))


def _cholesky_one(a: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.cholesky(a)
    except np.linalg.LinAlgError:  # not positive definite: NaNs, as XLA's factorization
        return np.full_like(a, np.nan)


def _cholesky_impl(x):
    x = np.asarray(x)
    return [_batched(_cholesky_one, x).astype(x.dtype)]


core.impl_rules.register(cholesky_p, rules.validated_impl(cholesky_p, _cholesky_impl))


@core.abstract_eval_rules.register(cholesky_p)
def _cholesky_abstract_eval(x):
    _check_matrix("cholesky", x)
    _check_float("cholesky", x)
    return [ShapedArray(x.shape, x.dtype)]


def _phi(x: Any) -> Any:  # the lower triangle, its diagonal halved
    return div(tril(x), add(eye_like(x), 1.0))


@core.jvp_rules.register(cholesky_p)
def _cholesky_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    L = tril(cholesky_p.bind(x))
    # as JAX's rule: dA is taken as given, assumed symmetric (the factorization itself reads
    # A's lower triangle only; `cholesky` symmetrizes its input, and so its tangent)
    # dL = L phi(L^-1 dA L^-T)
    tmp = triangular_solve(L, x_dot, left_side=False, transpose_a=True, lower=True)
    inner = triangular_solve(L, tmp, left_side=True, lower=True)
    return [L], [matmul(L, _phi(inner))]


# no transpose rule: cholesky is not linear


@core.vmap_rules.register(cholesky_p)
def _cholesky_vmap(axis_size, vals, dims):
    (x,) = _front(vals, dims, axis_size)
    return [cholesky_p.bind(x)], [0]


@core.lowering_rules.register(cholesky_p)
def _cholesky_lowering(ctx, x):
    return [ctx.hlo.cholesky(x, lower=ctx.ir.BoolAttr.get(True))]


# ----------------------------------------------------------------------------- triangular_solve

triangular_solve_p = core.Primitive("triangular_solve")


def triangular_solve(
    a: Any,
    b: Any,
    left_side: bool = False,
    lower: bool = False,
    transpose_a: bool = False,
    conjugate_a: bool = False,
    unit_diagonal: bool = False,
) -> Any:
    """X with op(A) X = B (`left_side`) or X op(A) = B, for triangular A: only A's `lower` (or
    upper) triangle is read, and its diagonal taken as ones if `unit_diagonal`; op(A) is A^T
    if `transpose_a`. Like `jax.lax.linalg.triangular_solve`."""
    return triangular_solve_p.bind(
        a,
        b,
        left_side=bool(left_side),
        lower=bool(lower),
        transpose_a=bool(transpose_a),
        conjugate_a=bool(conjugate_a),
        unit_diagonal=bool(unit_diagonal),
    )


def _effective_a(a: np.ndarray, lower: bool, transpose_a: bool, conjugate_a: bool, unit: bool):
    a = np.tril(a) if lower else np.triu(a)
    if unit:  # ones written over the diagonal, which is not read (it may hold NaN)
        a = a.copy()
        np.fill_diagonal(a, 1)
    a = np.conj(a) if conjugate_a else a
    return a.T if transpose_a else a


def _substitute(t: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    # T X = B for triangular T, one row of X at a time (forward if lower, else backward),
    # in LAPACK trsm's order: a singular T gives its infs and NaNs
    x = b.astype(t.dtype, copy=True)
    n = t.shape[0]
    for k in range(n) if lower else reversed(range(n)):
        x[k] = x[k] / t[k, k]
        rest = slice(k + 1, n) if lower else slice(0, k)
        x[rest] -= np.outer(t[rest, k], x[k])
    return x


def _triangular_solve_impl(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    a, b = np.asarray(a), np.asarray(b)

    def solve(a1: np.ndarray, b1: np.ndarray) -> np.ndarray:
        op_a = _effective_a(a1, lower, transpose_a, conjugate_a, unit_diagonal)
        with np.errstate(all="ignore"):
            if left_side:
                return _substitute(op_a, b1, lower != transpose_a)
            # X A = B  <=>  A^T X^T = B^T
            return _substitute(op_a.T, b1.T, lower == transpose_a).T

    return [_batched(solve, a, b).astype(b.dtype)]


core.impl_rules.register(
    triangular_solve_p, rules.validated_impl(triangular_solve_p, _triangular_solve_impl)
)


@core.abstract_eval_rules.register(triangular_solve_p)
def _triangular_solve_abstract_eval(a, b, *, left_side, **params):
    _check_matrix("triangular_solve", a)
    _check_matrix("triangular_solve", b, square=False)
    _check_float("triangular_solve", a)
    side = b.shape[-2] if left_side else b.shape[-1]
    if a.dtype != b.dtype or a.shape[:-2] != b.shape[:-2] or a.shape[-1] != side:
        raise TypeError(
            f"triangular_solve: incompatible operands {a.str_short()} and {b.str_short()} "
            f"(left_side={left_side})"
        )
    return [ShapedArray(b.shape, b.dtype)]


def _solve_like(a: Any, b: Any, params: dict, **changes: Any) -> Any:
    return triangular_solve_p.bind(a, b, **{**params, **changes})


# op(A) X = B  =>  dX = op(A)^-1 (dB - op(dA) X)   (X A: dX = (dB - X op(dA)) op(A)^-1)
def _triangular_solve_a_partial(a_dot, a, b, x, **params):
    k = 1 if params["unit_diagonal"] else 0
    da = tril(a_dot, -k) if params["lower"] else triu(a_dot, k)
    da = matrix_transpose(da) if params["transpose_a"] else da
    prod = matmul(da, x) if params["left_side"] else matmul(x, da)
    return _solve_like(a, neg(prod), params)


def _triangular_solve_b_partial(b_dot, a, b, x, **params):
    return _solve_like(a, b_dot, params)


core.jvp_rules.register(
    triangular_solve_p,
    partials_jvp(triangular_solve_p, _triangular_solve_a_partial, _triangular_solve_b_partial),
)


@core.transpose_rules.register(triangular_solve_p)
def _triangular_solve_transpose(cts, a, b, **params):
    # linear in b: X = op(A)^-1 B, so ct_B = op(A)^-T ct_X
    (ct,) = cts
    if isinstance(a, UndefinedPrimal):
        raise ValueError("triangular_solve: cannot transpose with respect to the matrix a")
    return [None, _solve_like(a, ct, params, transpose_a=not params["transpose_a"])]


@core.vmap_rules.register(triangular_solve_p)
def _triangular_solve_vmap(axis_size, vals, dims, **params):
    a, b = _front(vals, dims, axis_size)
    return [triangular_solve_p.bind(a, b, **params)], [0]


@core.lowering_rules.register(triangular_solve_p)
def _triangular_solve_lowering(
    ctx, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal
):
    # LAPACK's trsm, as JAX on CPU (its infs and NaNs for a singular matrix are JAX's too)
    ir = ctx.ir
    a_aval, b_aval = ctx.avals_in
    u8 = ir.IntegerType.get_unsigned(8)
    char = lambda c: ir.IntegerAttr.get(u8, ord(c))  # noqa: E731
    config = {
        "side": char("L" if left_side else "R"),
        "uplo": char("L" if lower else "U"),
        "trans_x": char(("C" if conjugate_a else "T") if transpose_a else "N"),
        "diag": char("U" if unit_diagonal else "N"),
    }
    call = lapack_call(ctx, "trsm", [a, b], [ctx.avals_out[0]], config, {0: 1})
    return [call.results[0]]


# ----------------------------------------------------------------------------- lu

lu_p = core.Primitive("lu", multiple_results=True)


def lu(x: Any) -> tuple[Any, Any, Any]:
    """LU decomposition with partial pivoting: `(lu, pivots, permutation)` with
    `x[..., permutation, :] == L @ U`, L unit lower triangular (below `lu`'s diagonal), U upper
    triangular (on and above it); `pivots[i]` is the row swapped with row i at step i. Like
    `jax.lax.linalg.lu`."""
    out, pivots, permutation = lu_p.bind(x)
    return out, pivots, permutation


def _lu_one(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = a.copy()
    m, n = a.shape
    pivots = np.zeros(min(m, n), np.int32)
    perm = np.arange(m, dtype=np.int32)
    for i in range(min(m, n)):
        # the largest entry of the column (stable), as LAPACK's i?amax picks it, which XLA's
        # CPU kernel calls: a NaN is never larger, but wins from the top; a zero or NaN pivot
        # leaves the column unscaled (`inv([[nan, 1], [0, 1]])` keeps its second row)
        col = np.abs(a[i:, i])
        p = i if np.isnan(col[0]) else i + int(np.argmax(np.where(np.isnan(col), -1, col)))
        pivots[i] = p
        a[[i, p]] = a[[p, i]]
        perm[[i, p]] = perm[[p, i]]
        if a[i, i] != 0 and not np.isnan(a[i, i]):
            a[i + 1 :, i] /= a[i, i]
        a[i + 1 :, i + 1 :] -= np.outer(a[i + 1 :, i], a[i, i + 1 :])
    return a, pivots, perm


def _lu_impl(x):
    x = np.asarray(x)
    batch, (m, n) = x.shape[:-2], x.shape[-2:]
    flat = x.reshape(-1, m, n)
    parts = [_lu_one(a) for a in flat]
    outs = [np.empty((len(flat), m, n), x.dtype), np.empty((len(flat), min(m, n)), np.int32)]
    outs.append(np.empty((len(flat), m), np.int32))
    for i, part in enumerate(parts):
        for out, value in zip(outs, part, strict=True):
            out[i] = value
    return [o.reshape(*batch, *o.shape[1:]) for o in outs]


core.impl_rules.register(lu_p, rules.validated_impl(lu_p, _lu_impl))


@core.abstract_eval_rules.register(lu_p)
def _lu_abstract_eval(x):
    _check_matrix("lu", x, square=False)
    _check_float("lu", x)
    batch, (m, n) = x.shape[:-2], x.shape[-2:]
    return [
        ShapedArray(x.shape, x.dtype),
        ShapedArray((*batch, min(m, n)), dtypes.int32),
        ShapedArray((*batch, m), dtypes.int32),
    ]


def _pad_matrix(x: Any, rows: int, cols: int) -> Any:  # zeros after the last row and column
    nd = core.get_aval(x).ndim
    config = [(0, 0, 0)] * (nd - 2) + [(0, rows, 0), (0, cols, 0)]
    return concatenation.pad(x, creation.full((), 0, core.get_aval(x).dtype), config)


def _corner(x: Any, rows: int, cols: int) -> Any:  # the top-left rows x cols block
    s = core.get_aval(x).shape
    return concatenation.slice(x, (0,) * len(s), (*s[:-2], rows, cols))


@core.jvp_rules.register(lu_p)
def _lu_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    out, pivots, permutation = lu_p.bind(x)
    m, n = core.get_aval(x).shape[-2:]
    k = min(m, n)
    # L: m x m, unit lower; U: n x n, upper, completed by an identity block where n > k
    aval = core.get_aval(x)
    batch, dtype = aval.shape[:-2], aval.dtype
    L = add(_pad_matrix(tril(_corner(out, m, k), -1), 0, m - k), eye((*batch, m, m), dtype))
    U = _pad_matrix(triu(_corner(out, k, n)), n - k, 0)
    if n > k:  # ones on the diagonal below U's k rows
        ones = sub(
            eye((*batch, n, n), dtype), _pad_matrix(eye((*batch, k, k), dtype), n - k, n - k)
        )
        U = add(U, ones)
    la = triangular_solve(L, permute_rows(permutation, x_dot), left_side=True, lower=True,
                          unit_diagonal=True)  # fmt: skip
    lau = triangular_solve(U, la, left_side=False, lower=False)  # L^-1 P dA U^-1
    out_dot = add(matmul(L, tril(lau, -1)), matmul(triu(lau), U))
    return [out, pivots, permutation], [out_dot, Zero.like(pivots), Zero.like(permutation)]


# no transpose rule: lu is not linear


@core.vmap_rules.register(lu_p)
def _lu_vmap(axis_size, vals, dims):
    (x,) = _front(vals, dims, axis_size)
    return list(lu_p.bind(x)), [0, 0, 0]


def _column_major(ndim: int) -> list[int]:  # XLA layout: minor-to-major dimension order
    return [ndim - 2, ndim - 1, *range(ndim - 3, -1, -1)]


def _row_major(ndim: int) -> list[int]:
    return list(range(ndim - 1, -1, -1))


def lapack_call(
    ctx, routine: str, operands, avals_out, config: dict, aliases: dict, avals_in=None
) -> Any:
    """A call of jaxlib's LAPACK FFI handler `routine` on matrices in column-major layout;
    `aliases` maps an output to the operand whose buffer it reuses; `avals_in` are the
    operands' types when they are not the equation's."""
    ir, hlo = ctx.ir, ctx.hlo
    index = ir.IndexType.get()
    avals_in = list(ctx.avals_in if avals_in is None else avals_in)
    ndim = max(a.ndim for a in avals_in)

    def layouts(avals: list[ShapedArray]) -> Any:
        orders = [_column_major(a.ndim) if a.ndim == ndim else _row_major(a.ndim) for a in avals]
        return ir.ArrayAttr.get(
            [ir.DenseIntElementsAttr.get(np.array(o, np.int64), type=index) for o in orders]
        )

    return hlo.CustomCallOp(
        [ctx.tensor_type(a) for a in avals_out],
        list(operands),
        call_target_name=client.lapack_target(routine, avals_in[0].dtype),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),  # typed FFI
        backend_config=ir.DictAttr.get(config),
        operand_layouts=layouts(avals_in),
        result_layouts=layouts(list(avals_out)),
        output_operand_aliases=ir.ArrayAttr.get(
            [
                hlo.OutputOperandAlias.get([out] if len(avals_out) > 1 else [], operand, [])
                for out, operand in aliases.items()
            ]
        ),
    )


@core.lowering_rules.register(lu_p)
def _lu_lowering(ctx, x):
    hlo = ctx.hlo
    (x_aval,) = ctx.avals_in
    out_aval, piv_aval, perm_aval = ctx.avals_out
    info_aval = ShapedArray(x_aval.shape[:-2], dtypes.int32)
    call = lapack_call(ctx, "getrf", [x], [out_aval, piv_aval, info_aval], {}, {0: 0})
    lu_out, pivots, info = call.results
    pivots = hlo.subtract(pivots, rules.broadcast_constant(ctx, 1, piv_aval))  # 0-based
    # info < 0: LAPACK rejected an argument; NaNs then, as JAX (info > 0, singular, is fine)
    ok = rules.compare(ctx, info, rules.broadcast_constant(ctx, 0, info_aval), "GE", dtypes.int32)
    ok = hlo.broadcast_in_dim(
        ctx.tensor_type(out_aval.update(dtype=dtypes.bool_)), ok, list(range(info_aval.ndim))
    )
    lu_out = hlo.select(ok, lu_out, rules.broadcast_constant(ctx, np.nan, out_aval))
    return [lu_out, pivots, _pivots_to_permutation(ctx, pivots, piv_aval, perm_aval)]


def _pivots_to_permutation(ctx, pivots, piv_aval: ShapedArray, perm_aval: ShapedArray) -> Any:
    # start from 0..m-1 and apply the swaps (i, pivots[i]) in order; each swap is selects
    # over a one-hot mask, so every matrix of a batch follows its own pivots
    hlo = ctx.hlo
    nb = perm_aval.ndim - 1
    perm_type = ctx.tensor_type(perm_aval)
    iota = hlo.iota(perm_type, ctx.ir.IntegerAttr.get(ctx.ir.IntegerType.get_signless(64), nb))
    perm = iota
    for i in range(piv_aval.shape[-1]):
        p = _column(ctx, pivots, piv_aval, i, perm_aval)  # pivots[..., i], broadcast along m
        at_p = rules.compare(ctx, iota, p, "EQ", dtypes.int32)
        at_i = rules.compare(
            ctx, iota, rules.broadcast_constant(ctx, i, perm_aval), "EQ", dtypes.int32
        )
        value_i = _column(ctx, perm, perm_aval, i, perm_aval)
        value_p = _pick(ctx, perm, at_p, perm_aval)
        perm = hlo.select(at_i, value_p, hlo.select(at_p, value_i, perm))
    return perm


def _column(ctx, x, aval: ShapedArray, i: int, out_aval: ShapedArray) -> Any:
    # x[..., i] broadcast along the last axis of out_aval
    hlo = ctx.hlo
    nb = aval.ndim - 1
    start, limit = [0] * nb + [i], [*aval.shape[:-1], i + 1]
    col = hlo.slice(x, start, limit, [1] * aval.ndim)
    return hlo.broadcast_in_dim(ctx.tensor_type(out_aval), col, list(range(aval.ndim)))


def _pick(ctx, x, mask, aval: ShapedArray) -> Any:
    # the one entry of x's last axis where mask is true, broadcast along that axis
    hlo = ctx.hlo
    zeros = rules.broadcast_constant(ctx, 0, aval)
    masked = hlo.select(mask, x, zeros)
    summed_aval = aval.update(shape=aval.shape[:-1])
    reduce = hlo.ReduceOp(
        [ctx.tensor_type(summed_aval)], [masked], [ctx.constant(0, aval.dtype)], [aval.ndim - 1]
    )
    scalar = ctx.tensor_type(ShapedArray((), aval.dtype))
    body = reduce.regions[0].blocks.append(scalar, scalar)
    with ctx.ir.InsertionPoint(body):
        hlo.return_([hlo.add(*body.arguments)])
    return hlo.broadcast_in_dim(
        ctx.tensor_type(aval), reduce.results[0], list(range(aval.ndim - 1))
    )
