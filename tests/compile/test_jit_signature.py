"""`jit`'s options are checked against the jitted function's parameters, which
`api_util.parameters` reads off a plain function's code object (`inspect.signature` cost
~20 us each, 2.5 ms of `import didax`, which jits ~120 functions with static arguments);
other callables still go through `inspect.signature`."""

from __future__ import annotations

import functools
import inspect
import re
from typing import Any

import didax
import pytest
from didax import api_util


def _a(a: Any, b: Any, /, c: Any, d: Any = 1, *args: Any, e: Any, f: Any = 2, **kw: Any) -> None:
    pass


def _b(x: Any, *, y: Any) -> None:
    pass


def _c(**kw: Any) -> None:
    pass


class _Callable:
    def method(self, x: Any, y: Any) -> None:
        pass

    def __call__(self, z: Any) -> None:
        pass


@functools.wraps(_b)
def _wrapped(*args: Any, **kwargs: Any) -> None:
    pass


CALLABLES = [
    _a,
    _b,
    _c,
    lambda: None,
    lambda x, y=1: x,
    _wrapped,
    _Callable().method,
    _Callable(),
    functools.partial(_b, 1),
    print,
]


def _id(fn: Any) -> str:
    # repr without its memory address: pytest-xdist's workers must collect the same ids
    return re.sub(r" at 0x[0-9a-f]+", "", repr(fn))


@pytest.mark.parametrize("fn", CALLABLES, ids=_id)
def test_parameters_are_what_inspect_signature_gives(fn) -> None:
    try:
        expected = [(k, p.kind) for k, p in inspect.signature(fn).parameters.items()]
    except (TypeError, ValueError):
        expected = None
    assert api_util.parameters(fn) == expected


def test_jitting_a_plain_function_inspects_no_signature(monkeypatch) -> None:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("inspect.signature was called")

    def g(x: Any, y: Any) -> Any:
        return x * y

    monkeypatch.setattr(inspect, "signature", refused)
    assert didax.jit(g, static_argnums=1)(2.0, 3) == 6.0
    assert didax.jit(g, static_argnames="y")(2.0, y=3) == 6.0
    assert didax.jit(g)(2.0, 3.0) == 6.0
    with pytest.raises(ValueError, match="only accepts 2 positional arguments"):
        didax.jit(g, static_argnums=2)
    with pytest.raises(AssertionError, match="inspect.signature"):  # (a wrapped one does)
        didax.jit(_wrapped, static_argnames="y")
