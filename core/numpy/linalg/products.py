"""`didax.numpy.linalg.products`: the array-API products and views of `jax.numpy.linalg`
(`matmul`, `vecdot`, `tensordot`, `outer`, `cross`, `diagonal`, `trace`,
`matrix_transpose`), `matrix_power`, `multi_dot`, `tensorinv`, `tensorsolve`. Like
`jax.numpy.linalg`'s.

Layer 5, after `solves`: most are the `didax.numpy` functions with the linear-algebra
conventions (the last two axes are the matrix); `matrix_power` squares and multiplies by
the exponent's bits, `multi_dot` is one `einsum` (whose pairwise order is opt_einsum's, as
JAX's), `tensorinv` and `tensorsolve` reshape to a matrix `inv` and `solve`.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

from didax import lax
from didax.numpy import (
    calculus,
    creation,
    diagonals,
    inner_jit,
    manipulation,
    products,
    promotion,
    rearrange,
    tensor_products,
    ufuncs,
)
from didax.numpy.axis_args import _aval
from didax.numpy.linalg import solves

__all__ = [
    "cross",
    "diagonal",
    "matmul",
    "matrix_power",
    "matrix_transpose",
    "multi_dot",
    "outer",
    "tensordot",
    "tensorinv",
    "tensorsolve",
    "trace",
    "vecdot",
]


def _arrays(name: str, *xs: Any) -> list[Any]:
    promotion.check_arraylike(name, *xs)
    return [creation.asarray(x) for x in xs]


def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """The cross product of 3-vectors along `axis`. Like `jax.numpy.linalg.cross`."""
    x1, x2 = _arrays("jnp.linalg.outer", x1, x2)
    n1, n2 = _aval(x1).shape[axis], _aval(x2).shape[axis]
    if n1 != 3 or n2 != 3:
        raise ValueError(
            "Both input arrays must be (arrays of) 3-dimensional vectors, but they have "
            f"x1.shape[axis]={n1} and x2.shape[axis]={n2}"
        )
    return calculus.cross(x1, x2, axis=axis)


def outer(x1: Any, x2: Any, /) -> Any:
    """The outer product of two vectors. Like `jax.numpy.linalg.outer`."""
    x1, x2 = _arrays("jnp.linalg.outer", x1, x2)
    if _aval(x1).ndim != 1 or _aval(x2).ndim != 1:
        raise ValueError(
            "Input arrays must be one-dimensional, but they are "
            f"x1.ndim={_aval(x1).ndim} x2.ndim={_aval(x2).ndim}"
        )
    return ufuncs.multiply(lax.expand_dims(x1, (1,)), lax.expand_dims(x2, (0,)))


def matrix_transpose(x: Any, /) -> Any:
    """Each matrix transposed. Like `jax.numpy.linalg.matrix_transpose`."""
    (x,) = _arrays("jnp.linalg.matrix_transpose", x)
    ndim = _aval(x).ndim
    if ndim < 2:
        raise ValueError(f"matrix_transpose requires at least 2 dimensions; got {ndim=}")
    return rearrange.matrix_transpose(x)


def vecdot(
    x1: Any,
    x2: Any,
    /,
    *,
    axis: int = -1,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """Like `jax.numpy.linalg.vecdot`."""
    x1, x2 = _arrays("jnp.linalg.vecdot", x1, x2)
    return calculus.vecdot(
        x1, x2, axis=axis, precision=precision, preferred_element_type=preferred_element_type
    )


def matmul(
    x1: Any, x2: Any, /, *, precision: Any = None, preferred_element_type: Any = None
) -> Any:
    """Like `jax.numpy.linalg.matmul`."""
    x1, x2 = _arrays("jnp.linalg.matmul", x1, x2)
    return products.matmul(
        x1, x2, precision=precision, preferred_element_type=preferred_element_type
    )


def tensordot(
    x1: Any,
    x2: Any,
    /,
    *,
    axes: Any = 2,
    precision: Any = None,
    preferred_element_type: Any = None,
    out_sharding: Any = None,
) -> Any:
    """Like `jax.numpy.linalg.tensordot`."""
    x1, x2 = _arrays("jnp.linalg.tensordot", x1, x2)
    return calculus.tensordot(
        x1, x2, axes, precision=precision, preferred_element_type=preferred_element_type
    )


def diagonal(x: Any, /, *, offset: int = 0) -> Any:
    """The diagonals of the matrices (the last two axes). Like `jax.numpy.linalg.diagonal`."""
    (x,) = _arrays("jnp.linalg.diagonal", x)
    return diagonals.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
    """The traces of the matrices (the last two axes). Like `jax.numpy.linalg.trace`."""
    (x,) = _arrays("jnp.linalg.trace", x)
    return diagonals.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def _matrix_power(a: Any, n: int) -> Any:
    shape = _aval(a).shape
    if n == 0:
        eye = creation.eye(shape[-2], dtype=_aval(a).dtype)
        return lax.broadcast_in_dim(eye, shape, (len(shape) - 2, len(shape) - 1))
    if n < 0:
        a, n = solves.inv(a), -n
    mm = products.matmul
    if n <= 3:  # JAX's explicit small powers
        return a if n == 1 else mm(a, a) if n == 2 else mm(mm(a, a), a)
    z = result = None
    while n > 0:  # square-and-multiply over the exponent's bits
        z = a if z is None else mm(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else mm(result, z)
    return result


_matrix_power_inner = inner_jit.inner_jit(_matrix_power, "matrix_power", static_argnums=(1,))


def matrix_power(a: Any, n: int) -> Any:
    """The integer power of each square matrix. Like `jax.numpy.linalg.matrix_power`."""
    (a,) = _arrays("jnp.linalg.matrix_power", a)
    shape = _aval(a).shape
    if len(shape) < 2:
        raise TypeError(
            f"{len(shape)}-dimensional array given. Array must be at least two-dimensional"
        )
    if shape[-2] != shape[-1]:
        raise TypeError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as err:
        raise TypeError(f"exponent must be an integer, got {n}") from err
    return _matrix_power_inner(a, n)


def multi_dot(arrays: Sequence[Any], *, precision: Any = None) -> Any:
    """The product of a chain of matrices (vectors at the ends), as one `einsum`. Like
    `jax.numpy.linalg.multi_dot`."""
    arrs = _arrays("jnp.linalg.multi_dot", *arrays)
    shapes = [_aval(a).shape for a in arrs]
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrs)}")
    if not (
        len(shapes[0]) in (1, 2)
        and len(shapes[-1]) in (1, 2)
        and all(len(s) == 2 for s in shapes[1:-1])
    ):
        raise ValueError(
            "multi_dot: input arrays must all be two-dimensional, except for the first and "
            f"last array which may be 1 or 2 dimensional. Got array shapes {shapes}"
        )
    if any(a[-1] != b[0] for a, b in zip(shapes[:-1], shapes[1:], strict=True)):
        raise ValueError(
            "multi_dot: last dimension of each array must match first dimension of following "
            f"array. Got array shapes {shapes}"
        )
    letters = [chr(ord("a") + i) + chr(ord("a") + i + 1) for i in range(len(arrs))]
    if len(shapes[0]) == 1:
        letters[0] = letters[0][1:]
    if len(shapes[-1]) == 1:
        letters[-1] = letters[-1][:1]
    ins = ",".join(letters)
    out = "".join(c for c in dict.fromkeys("".join(letters)) if "".join(letters).count(c) == 1)
    return tensor_products.einsum(f"{ins}->{out}", *arrs, precision=precision)


def tensorinv(a: Any, ind: int = 2) -> Any:
    """The inverse of a tensor seen as a matrix (the first `ind` axes are its rows). Like
    `jax.numpy.linalg.tensorinv`."""
    (a,) = _arrays("tensorinv", a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer; got ind={ind}")
    shape = _aval(a).shape
    contracting, batch = shape[:ind], shape[ind:]
    flat = (math.prod(contracting), math.prod(batch))
    if flat[0] != flat[1]:
        raise ValueError(
            "tensorinv is only possible when the product of the first `ind` dimensions "
            f"equals that of the remaining dimensions. got arr.shape={shape} with ind={ind}."
        )
    inverse = solves.inv(manipulation.reshape(a, flat))
    return manipulation.reshape(inverse, (*batch, *contracting))


def tensorsolve(a: Any, b: Any, axes: tuple[int, ...] | None = None) -> Any:
    """x with tensordot(a, x, x.ndim) == b. Like `jax.numpy.linalg.tensorsolve`."""
    a, b = _arrays("tensorsolve", a, b)
    if axes is not None:
        nd = _aval(a).ndim
        a = manipulation.moveaxis(a, axes, len(axes) * (nd - 1,))
    a_shape, b_shape = _aval(a).shape, _aval(b).shape
    out_shape = a_shape[len(b_shape) :]
    if a_shape[: len(b_shape)] != b_shape:
        raise ValueError(
            "After moving axes to end, leading shape of a must match shape of b. got "
            f"a.shape={a_shape}, b.shape={b_shape}"
        )
    size = math.prod(b_shape)
    if size != math.prod(out_shape):
        raise ValueError(
            "Input arrays must have prod(a.shape[:b.ndim]) == prod(a.shape[b.ndim:]); got "
            f"a.shape={a_shape}, b.ndim={len(b_shape)}."
        )
    a = manipulation.reshape(a, (size, math.prod(out_shape)))
    return manipulation.reshape(solves.solve(a, manipulation.ravel(b)), out_shape)
