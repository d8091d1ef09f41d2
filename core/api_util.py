"""The index and name options of the API (`argnums`, `static_argnums`/`static_argnames`,
`donate_argnums`/`donate_argnames`), validated and resolved as JAX's `api_util` does it: one
place, used by `jit`, `make_jaxpr`, `grad` and the Jacobians.

Layer 1 (pure Python, after tree_util). Out-of-range or negative indices once wrapped around
(`static_argnums=3` on two arguments made `y` static) or were ignored; now they raise JAX's
ValueError / TypeError, at definition where the signature decides and at the call where the
number of arguments does.

`resolve_argnums` completes `jit`'s options: given numbers, the names of those
positional-or-keyword parameters are inferred, and the other way round, so `f(x, n=3)` and
`f(x, 3)` are both static for `static_argnames="n"` (JAX's `api_util.resolve_argnums`).
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable, Iterable, Sequence
from types import FunctionType
from typing import Any

from didax.tree_util import keystr, tree_flatten_with_path


def ensure_index_tuple(x: Any, name: str) -> tuple[int, ...]:
    """`x` (an int or a sequence of ints) as a tuple of ints; TypeError otherwise."""
    try:
        return (operator.index(x),)
    except TypeError:
        pass
    try:
        return tuple(map(operator.index, x))
    except TypeError:
        raise TypeError(f"{name} must be an int or a sequence of ints, got {x!r}") from None


def arg_names(fn: Callable[..., Any], n: int) -> list[str]:
    """The names of the first `n` positional parameters of `fn`, `args[i]` where there is
    none (no signature, `*args`, fewer parameters)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(n):
        p = params[i] if i < len(params) else None
        positional = p is not None and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        names.append(p.name if positional else f"args[{i}]")
    return names


def leaf_names(
    fn: Callable[..., Any], args: tuple, kwargs: dict, static: Iterable[int] = ()
) -> list[str]:
    """The name of each leaf of `(args, kwargs)` in flattening order, as JAX's debug info
    writes it: `x`, `params['w']`, `args[2][0]`; the positional arguments in `static` left out."""
    names = []
    for i, name in enumerate(arg_names(fn, len(args))):
        if i not in static:
            names += [name + keystr(p) for p, _ in tree_flatten_with_path(args[i])[0]]
    for k in sorted(kwargs):
        names += [k + keystr(p) for p, _ in tree_flatten_with_path(kwargs[k])[0]]
    return names


def validate_argnums(fn: Callable[..., Any], argnums: tuple[int, ...], name: str) -> None:
    """At definition: every index must name a positional parameter of `fn` (any positive
    index is fine when `fn` takes `*args`). Like JAX's check in `jit`."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: checked at the call
        return
    n = 0
    for p in params:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            n += 1
        elif p.kind is p.VAR_POSITIONAL:
            return
    if argnums and (-min(argnums) > n or max(argnums) >= n):
        raise ValueError(
            f"Jitted function has {name}={argnums}, but only accepts {n} positional arguments."
        )


def ensure_inbounds(argnums: Sequence[int], nargs: int, *, allow_invalid: bool) -> tuple:
    """At the call: indices resolved against `nargs` arguments (negative ones from the end).
    With `allow_invalid`, indices past the end are dropped (static_argnums of `f(*args)`)."""
    out = []
    for i in argnums:
        if i >= nargs and allow_invalid:
            continue
        if not -nargs <= i < nargs:
            raise ValueError(
                "Positional argument indices, e.g. for `static_argnums`, must have value "
                "greater than or equal to -len(args) and less than len(args), but got value "
                f"{i} for len(args) == {nargs}."
            )
        out.append(i % nargs)
    return tuple(out)


# ----------------------------------------------------------------------------- jit's options

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_KEYWORD = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


class ArgSpec:
    """Resolved options of one jitted function. (A plain class: a frozen dataclass cost
    ~0.4 ms of `import didax`.)"""

    __slots__ = ("static_argnums", "static_argnames", "donate_argnums", "donate_argnames")

    def __init__(
        self,
        static_argnums: tuple[int, ...] = (),
        static_argnames: tuple[str, ...] = (),
        donate_argnums: tuple[int, ...] = (),
        donate_argnames: tuple[str, ...] = (),
    ) -> None:
        self.static_argnums, self.static_argnames = static_argnums, static_argnames
        self.donate_argnums, self.donate_argnames = donate_argnums, donate_argnames

    def static_positions(self, nargs: int) -> set[int]:
        """Indices of the static positional arguments of a call with `nargs` of them."""
        # as JAX: numbers past the end are dropped (a `*args` function called with fewer
        # arguments), a negative one out of range is an error
        return set(ensure_inbounds(self.static_argnums, nargs, allow_invalid=True))


def str_tuple(x: Any, what: str) -> tuple[str, ...]:
    if isinstance(x, str):
        return (x,)
    out = tuple(x)
    if not all(isinstance(s, str) for s in out):
        raise TypeError(f"{what} must be a str or a sequence of strs, got {x!r}")
    return out


def resolve_argnums(
    fn: Callable[..., Any],
    static_argnums: int | Iterable[int] | None,
    static_argnames: str | Iterable[str] | None,
    donate_argnums: int | Iterable[int] | None = None,
    donate_argnames: str | Iterable[str] | None = None,
) -> ArgSpec:
    """Complete and validate the options against `fn`'s signature (none is checked when
    `fn` has no signature, as in JAX)."""
    if static_argnums is static_argnames is donate_argnums is donate_argnames is None:
        return _NO_OPTIONS  # nothing to complete or check
    params = parameters(fn)
    s_nums, s_names = _infer(params, static_argnums, static_argnames, "static")
    d_nums, d_names = _infer(params, donate_argnums, donate_argnames, "donate")
    if params is not None:
        _validate_nums(params, s_nums, "static_argnums")
        _validate_names(params, s_names, "static_argnames")
        _validate_nums(params, d_nums, "donate_argnums")
        _validate_names(params, d_names, "donate_argnames")
    if both := set(s_names) & set(d_names):
        raise ValueError(
            f"static_argnames and donate_argnames cannot intersect. Argument names "
            f"{both} appear in both static_argnames and donate_argnames"
        )
    return ArgSpec(s_nums, s_names, d_nums, d_names)


_NO_OPTIONS = ArgSpec()
Parameters = list[tuple[str, inspect._ParameterKind]]  # (name, kind) of each, in order


def parameters(fn: Callable[..., Any]) -> Parameters | None:
    """The name and kind of each of `fn`'s parameters, as `inspect.signature` gives them;
    None for a callable without a signature. A plain function's are read off its code object:
    `inspect.signature` costs ~20 us, which `import didax` paid for each of the ~120
    functions it jits with static arguments (2.5 ms)."""
    if (
        type(fn) is not FunctionType
        or "__wrapped__" in fn.__dict__
        or "__signature__" in fn.__dict__
    ):
        try:
            return [(k, p.kind) for k, p in inspect.signature(fn).parameters.items()]
        except (TypeError, ValueError):
            return None
    code = fn.__code__
    n, k, names, P = code.co_argcount, code.co_kwonlyargcount, code.co_varnames, inspect.Parameter
    out = [(names[i], _POSITIONAL[i >= code.co_posonlyargcount]) for i in range(n)]
    rest = n + k
    if code.co_flags & inspect.CO_VARARGS:
        out.append((names[rest], P.VAR_POSITIONAL))
        rest += 1
    out += [(name, P.KEYWORD_ONLY) for name in names[n : n + k]]
    if code.co_flags & inspect.CO_VARKEYWORDS:
        out.append((names[rest], P.VAR_KEYWORD))
    return out


def _infer(
    params: Parameters | None, nums: Any, names: Any, kind: str
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    if nums is None and names is None:
        return (), ()
    nums = None if nums is None else ensure_index_tuple(nums, f"{kind}_argnums")
    names = None if names is None else str_tuple(names, f"{kind}_argnames")
    if params is None or (nums is not None and names is not None):
        return nums or (), names or ()
    if nums is None:
        nums = tuple(i for i, (k, p) in enumerate(params) if p is _POSITIONAL[1] and k in names)
    else:
        names = tuple(k for i, (k, p) in enumerate(params) if p is _POSITIONAL[1] and i in nums)
    return nums, names


def _validate_nums(params: Parameters, nums: tuple[int, ...], what: str) -> None:
    n = 0
    for _, p in params:
        if p is inspect.Parameter.VAR_POSITIONAL:
            return  # any number of positional arguments
        n += p in _POSITIONAL
    if nums and (-min(nums) > n or max(nums) >= n):
        raise ValueError(
            f"Jitted function has {what}={nums}, but only accepts {n} positional arguments."
        )


def _validate_names(params: Parameters, names: tuple[str, ...], what: str) -> None:
    positional_only = {k for k, p in params if p is inspect.Parameter.POSITIONAL_ONLY}
    if bad := positional_only & set(names):
        raise ValueError(
            f"Jitted function has invalid argnames {bad} in {what}. These are positional-only"
        )
    if any(p is inspect.Parameter.VAR_KEYWORD for _, p in params):
        return
    if bad := set(names) - {k for k, p in params if p in _KEYWORD}:
        raise ValueError(
            f"Jitted function has invalid argnames {bad} in {what}. "
            "Function does not take these args."
        )
