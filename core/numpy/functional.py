"""Functions of `jax.numpy` that map a Python function over arrays: `vectorize` (with
NumPy's gufunc `signature=`), `frompyfunc` and its `ufunc` class, `apply_along_axis`,
`apply_over_axes`, `fromfunction` and `piecewise`.

Layer 5, after `array_edit`. Each is built on `vmap` as JAX builds it: `vectorize` squeezes
size-1 loop axes and nests one `vmap` per broadcast axis, `piecewise` is a vectorized
`switch` over the index of the first true condition.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import api, core, lax
from didax.control_flow.cond import switch
from didax.control_flow.scan import scan
from didax.numpy import creation, cumulative, manipulation, promotion, reductions
from didax.numpy.axis_args import canonical_axis

__all__ = [
    "apply_along_axis",
    "apply_over_axes",
    "fromfunction",
    "frompyfunc",
    "piecewise",
    "ufunc",
    "vectorize",
]

_DIMS = r"\((?:\w+(?:,\s*\w+)*)?\)"
_SIGNATURE = re.compile(rf"^{_DIMS}(?:,\s*{_DIMS})*->{_DIMS}(?:,\s*{_DIMS})*$")


def _parse_signature(signature: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    if not _SIGNATURE.match(signature.replace(" ", "")):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    ins, outs = signature.replace(" ", "").split("->")
    parse = lambda s: [  # noqa: E731
        tuple(d for d in group.split(",") if d) for group in re.findall(r"\((.*?)\)", s)
    ]
    return parse(ins), parse(outs)


def _core_sizes(args: Sequence[Any], core_dims: Sequence[tuple[str, ...]]) -> tuple:
    sizes: dict[str, int] = {}
    loop_shapes = []
    for arg, dims in zip(args, core_dims, strict=True):
        shape = np.shape(arg)
        if len(dims) > len(shape):
            raise ValueError(
                f"input with shape {shape} does not have enough dimensions for all core "
                f"dimensions {dims} on vectorized function with signature"
            )
        for dim, size in zip(dims, shape[len(shape) - len(dims) :], strict=True):
            if sizes.setdefault(dim, size) != size:
                raise ValueError(
                    f"inconsistent size for core dimension {dim!r}: {size} vs {sizes[dim]}"
                )
        loop_shapes.append(shape[: len(shape) - len(dims)])
    return np.broadcast_shapes(*loop_shapes), sizes


def vectorize(
    pyfunc: Callable[..., Any], *, excluded: Any = frozenset(), signature: str | None = None
) -> Any:
    """`pyfunc` over the broadcast loop axes of its arguments. Like `jax.numpy.vectorize`."""
    if any(not isinstance(e, (str, int)) for e in excluded):
        raise TypeError(
            "jax.numpy.vectorize can only exclude integer or string arguments, "
            f"but excluded={excluded!r}"
        )
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")

    @functools.wraps(pyfunc)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        fixed = {i: a for i, a in enumerate(args) if i in excluded or a is None}
        fixed_kw = {k: v for k, v in kwargs.items() if k in excluded}
        free = [a for i, a in enumerate(args) if i not in fixed]
        kwargs = {k: v for k, v in kwargs.items() if k not in excluded}

        def func(*xs: Any) -> Any:
            it = iter(xs)
            full = [fixed[i] if i in fixed else next(it) for i in range(len(args))]
            return pyfunc(*full, **fixed_kw, **kwargs)

        if signature is not None:
            in_dims, _ = _parse_signature(signature)
            in_dims = [d for i, d in enumerate(in_dims) if i not in fixed]
        else:
            in_dims = [()] * len(free)
        free = [creation.asarray(a) for a in free]
        loop_shape, _ = _core_sizes(free, in_dims)
        squeezed, rev_shapes = [], []
        for arg, dims in zip(free, in_dims, strict=True):
            shape = np.shape(arg)
            noncore = shape[: len(shape) - len(dims)]
            rev_shapes.append(((1,) * (len(loop_shape) - len(noncore)) + noncore)[::-1])
            ones = tuple(i for i, n in enumerate(noncore) if n == 1)
            squeezed.append(manipulation.squeeze(arg, ones) if ones else arg)
        fn, expand = func, []
        for negdim, sizes in enumerate(zip(*rev_shapes, strict=True)):
            in_axes = tuple(None if n == 1 else 0 for n in sizes)
            if all(a is None for a in in_axes):
                expand.append(len(loop_shape) - 1 - negdim)
            else:
                fn = api.vmap(fn, in_axes)
        out = fn(*squeezed)
        if not expand:
            return out
        if isinstance(out, tuple):
            return tuple(manipulation.expand_dims(o, tuple(expand)) for o in out)
        return manipulation.expand_dims(out, tuple(expand))

    return wrapped


def apply_along_axis(
    func1d: Callable[..., Any], axis: int, arr: Any, *args: Any, **kwargs: Any
) -> Any:
    """`func1d` applied to the 1-d slices of `arr` along `axis`. Like
    `jax.numpy.apply_along_axis`."""
    promotion.check_arraylike("apply_along_axis", arr)
    ndim = np.ndim(arr)
    axis = canonical_axis(axis, ndim)
    func = lambda a: func1d(a, *args, **kwargs)  # noqa: E731
    for i in range(1, ndim - axis):
        func = api.vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):
        func = api.vmap(func, in_axes=0, out_axes=0)
    return func(creation.asarray(arr))


def apply_over_axes(func: Callable[[Any, int], Any], a: Any, axes: Sequence[int]) -> Any:
    """`func(a, axis)` for each axis in turn, keeping the rank. Like
    `jax.numpy.apply_over_axes`."""
    promotion.check_arraylike("apply_over_axes", a)
    a = creation.asarray(a)
    for axis in axes:
        b = func(a, axis)
        if np.ndim(b) == np.ndim(a):
            a = b
        elif np.ndim(b) == np.ndim(a) - 1:
            a = manipulation.expand_dims(b, axis)
        else:
            raise ValueError("function is not returning an array of the correct shape")
    return a


def fromfunction(
    function: Callable[..., Any], shape: Any, *, dtype: Any = float, **kwargs: Any
) -> Any:
    """`function` called on the index grids of `shape`. Like `jax.numpy.fromfunction`."""
    shape = tuple(int(s) for s in np.atleast_1d(shape))
    for i in range(len(shape)):
        in_axes = [0 if i == j else None for j in range(len(shape))]
        function = api.vmap(function, in_axes=tuple(in_axes[::-1]))
    return function(*(creation.arange(s, dtype=dtype) for s in shape), **kwargs)


def piecewise(x: Any, condlist: Any, funclist: list[Any], *args: Any, **kw: Any) -> Any:
    """`funclist[i](x)` where `condlist[i]` is the first true condition. Like
    `jax.numpy.piecewise`."""
    promotion.check_arraylike("piecewise", x)
    x = creation.asarray(x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funclist = funclist[-1:] + funclist[:-1]
    elif nf == nc:
        funclist = [0, *funclist]
    else:
        raise ValueError(
            f"with {nc} condition(s), either {nc} or {nc + 1} functions are expected; got {nf}"
        )
    conds = creation.asarray(condlist, dtype=bool)
    dtype = core.get_aval(x).dtype
    zeros = creation.zeros_like(conds[:1])
    indices = reductions.argmax(
        cumulative.cumsum(manipulation.concatenate([zeros, conds], 0), 0), 0
    )

    def branch(f: Any) -> Callable[[Any], Any]:
        if callable(f):
            return lambda v: lax.convert_element_type(creation.asarray(f(v, *args, **kw)), dtype)
        return lambda v: creation.asarray(f, dtype)

    branches = [branch(f) for f in funclist]
    return vectorize(switch, excluded=(1,))(indices, branches, x)


class ufunc:  # noqa: N801 - NumPy's and JAX's name
    """A Python function as a universal function: called elementwise (`vectorize`), with
    `outer`, and for two-input functions `reduce` and `accumulate` (a `scan` along the
    axis). Like `jax.numpy.ufunc` (without `at` and `reduceat`)."""

    def __init__(
        self,
        func: Callable[..., Any],
        /,
        nin: int,
        nout: int,
        *,
        name: str | None = None,
        nargs: int | None = None,
        identity: Any = None,
    ) -> None:
        self.__name__ = name or getattr(func, "__name__", "ufunc")
        self._func, self.nin, self.nout = func, int(nin), int(nout)
        self.nargs = nargs or self.nin
        self.identity = identity
        self._call = vectorize(func)

    def __repr__(self) -> str:
        return f"<didax.numpy.ufunc '{self.__name__}'>"

    def __call__(self, *args: Any, out: None = None, where: None = None) -> Any:
        if len(args) != self.nin:
            raise TypeError(
                f"{self.__name__}() takes {self.nin} positional argument but {len(args)} were "
                "given."
            )
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        return self._call(*args)

    def outer(self, a: Any, b: Any, /) -> Any:
        if self.nin != 2:
            raise ValueError("outer only supported for binary ufuncs")
        a, b = creation.asarray(a), creation.asarray(b)
        a = manipulation.reshape(a, np.shape(a) + (1,) * np.ndim(b))
        return self(a, b)

    def _scan(self, a: Any, axis: int, start: Any = None) -> tuple[Any, Any]:
        # from `start` over all of `a`, or from its first slice over the others
        if self.nin != 2 or self.nout != 1:
            raise ValueError(f"{self.__name__} only supported for functions with nin=2, nout=1")
        a = manipulation.moveaxis(creation.asarray(a), axis, 0)
        step = lambda c, x: (self._call(c, x),) * 2  # noqa: E731
        if start is None:
            return scan(step, a[0], a[1:])
        return scan(step, creation.full(np.shape(a)[1:], start, core.get_aval(a).dtype), a)

    def reduce(
        self, a: Any, axis: int = 0, dtype: None = None, out: None = None, keepdims: bool = False
    ) -> Any:
        if np.shape(a)[axis] == 0:
            if self.identity is None:
                raise ValueError(
                    f"zero-size array to reduction operation {self.__name__} which has no identity"
                )
            shape = tuple(n for i, n in enumerate(np.shape(a)) if i != axis % np.ndim(a))
            return creation.full(shape, self.identity, core.get_aval(creation.asarray(a)).dtype)
        out_value, _ = self._scan(a, axis, self.identity)  # JAX starts from the identity
        return manipulation.expand_dims(out_value, axis) if keepdims else out_value

    def accumulate(self, a: Any, axis: int = 0, dtype: None = None, out: None = None) -> Any:
        a = creation.asarray(a)
        moved = manipulation.moveaxis(a, axis, 0)
        _, rest = self._scan(a, axis)
        return manipulation.moveaxis(manipulation.concatenate([moved[:1], rest], 0), 0, axis)


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *, identity: Any = None) -> ufunc:
    """`func` as a `ufunc`. Like `jax.numpy.frompyfunc`."""
    return ufunc(func, nin, nout, identity=identity)
