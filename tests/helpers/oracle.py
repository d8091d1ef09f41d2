"""Helpers of the oracle tests: compare a didax result with JAX's, and run JAX cheaply.

`assert_matches` checks that a didax result is a `didax.Array` with JAX's shape, dtype, weak
type and values (float32 within rtol 1e-4 / atol 1e-5, bfloat16 within 1e-2 as JAX's tests).

`JaxOracle` computes JAX's answers for many cases at once: every case of one function goes
into one `jax.jit` program, compiled once with XLA's quick settings. Eager JAX compiles each
operation on its own (about 30 ms each on a 2-core machine), which would make a few thousand
comparisons take minutes. `jit` keeps JAX's values, dtypes and weak types (they are JAX's
semantics, not a property of eager execution); the inner `jit`s of `jnp.where`, `jnp.clip`
... are inlined into the same program either way.

`EagerJax` puts a table of eager JAX calls into such programs: those that trace under `jit`
(the others, where JAX needs concrete values or raises while tracing, stay eager).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import didax
import jax
import ml_dtypes
import numpy as np
from helpers.grouped import of_args_at, traces

# XLA's CPU compiler spends most of its time optimizing kernels; these tests run each once.
_QUICK_COMPILE = {
    "xla_cpu_use_fusion_emitters": False,
    "xla_backend_optimization_level": 0,
    "xla_llvm_disable_expensive_passes": True,
    "xla_cpu_parallel_codegen_split_count": 1,
    "xla_cpu_use_xnnpack": False,
}


@contextmanager
def x64_in_both() -> Iterator[None]:
    """`jax_enable_x64` on in didax and in JAX inside the block, off again after."""
    for lib in (didax, jax):
        lib.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        for lib in (didax, jax):
            lib.config.update("jax_enable_x64", False)


# (rtol, atol) by result dtype: API.md's for float32; JAX's own test tolerances for the rest.
TOLERANCES = {
    np.dtype(np.float32): (1e-4, 1e-5),
    np.dtype(np.complex64): (1e-4, 1e-5),
    np.dtype(np.float64): (1e-12, 1e-12),
    np.dtype(np.complex128): (1e-12, 1e-12),
    np.dtype(np.float16): (1e-3, 1e-3),
    np.dtype(ml_dtypes.bfloat16): (1e-2, 1e-2),
}


def assert_matches(out: Any, expected: Any) -> None:
    """didax's `out` is an Array with JAX's shape, dtype, weak type and values; for several
    results (`lax.sort` of two operands, `lu`), a tuple or list of such, as JAX's."""
    if isinstance(expected, (tuple, list)):
        assert type(out) is type(expected), f"{type(out).__name__} != JAX's {type(expected)}"
        assert len(out) == len(expected), f"{len(out)} results != JAX's {len(expected)}"
        for got, want in zip(out, expected, strict=True):
            assert_matches(got, want)
        return
    if expected.dtype == jax.dtypes.float0:  # the tangent of an integer: a NumPy array
        assert isinstance(out, np.ndarray) and out.dtype == expected.dtype, repr(out)
        assert out.shape == expected.shape, f"shape {out.shape} != JAX's {expected.shape}"
        return
    assert isinstance(out, didax.Array), f"expected a didax.Array, got {type(out).__name__}"
    assert out.shape == expected.shape, f"shape {out.shape} != JAX's {expected.shape}"
    assert out.dtype == expected.dtype, f"dtype {out.dtype} != JAX's {expected.dtype}"
    assert out.weak_type == expected.weak_type, (
        f"weak_type {out.weak_type} != JAX's {expected.weak_type} ({out.dtype})"
    )
    got, want = np.asarray(out), np.asarray(expected)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype)
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        rtol, atol = TOLERANCES[got.dtype]
        wide = np.complex128 if got.dtype.kind == "c" else np.float64  # both parts compared
        np.testing.assert_allclose(
            got.astype(wide), want.astype(wide), rtol=rtol, atol=atol, equal_nan=True
        )


def jax_quick(fn: Callable[..., Any], *args: Any) -> Any:
    """`jax.jit(fn)(*args)`, compiled with XLA's quick options: JAX's side of a test as one
    program (run eagerly, each operation of a JAX `jvp` or `vmap` is a compile of its own)."""
    return jax.jit(fn).lower(*args).compile(compiler_options=_QUICK_COMPILE)(*args)


class JaxOracle:
    """JAX's results for groups of computations, each group compiled as one program.

    `result(group, key, fn, inputs)`: on the first request for `group`, `self.groups[group]`
    (a list of `(key, fn, inputs)`) is evaluated at once; `fn(*inputs)` must be JAX code. If
    the group fails, the members that trace are compiled together (and if that fails, each
    alone), so that one bad member only fails its own test. Returns the output, or raises
    what JAX raised for that member.
    """

    def __init__(self, groups: dict[Hashable, list[tuple[Hashable, Callable, list]]]) -> None:
        self.groups = groups
        self._done: dict[Hashable, dict[Hashable, Any]] = {}
        self._group_of = {key: group for group, ms in groups.items() for key, _, _ in ms}

    @classmethod
    def in_chunks(cls, members: list[tuple[Hashable, Callable, list]], size: int) -> JaxOracle:
        """An oracle whose groups are `size` members each, in order: a member that fails to
        trace under `jit` costs a compile per member of its chunk only."""
        return cls({i // size: members[i : i + size] for i in range(0, len(members), size)})

    def __contains__(self, key: Hashable) -> bool:
        return key in self._group_of

    def get(self, key: Hashable) -> Any:
        """`result` of the group that holds `key`."""
        return self.result(self._group_of[key], key)

    def result(self, group: Hashable, key: Hashable) -> Any:
        if group not in self._done:
            self._done[group] = self._run(self.groups[group])
        out = self._done[group][key]
        if isinstance(out, Exception):
            raise out
        return out

    @staticmethod
    def _compiled(fns: list[Callable], inputs: list[list]) -> list[Any]:
        def program(all_inputs: list[list]) -> list[Any]:
            return [fn(*xs) for fn, xs in zip(fns, all_inputs, strict=True)]

        return jax_quick(program, inputs)

    def _run(self, members: list[tuple[Hashable, Callable, list]]) -> dict[Hashable, Any]:
        keys, fns, inputs = zip(*members, strict=True)
        try:
            outs = self._compiled(list(fns), list(inputs))
        except Exception:  # noqa: BLE001 - a member fails: those that trace together, below
            outs = None
        if outs is not None:
            return dict(zip(keys, outs, strict=True))
        results = {}
        tracing = []
        for key, fn, xs in members:  # a member that fails to trace: its error, no compile
            try:
                jax.jit(fn).trace(*xs)
            except Exception as err:  # noqa: BLE001 - reported to that member's test
                results[key] = err
            else:
                tracing.append((key, fn, xs))
        if len(tracing) < len(members) and tracing:
            keys, fns, inputs = zip(*tracing, strict=True)
            try:
                return results | dict(
                    zip(keys, self._compiled(list(fns), list(inputs)), strict=True)
                )
            except Exception:  # noqa: BLE001 - one fails to compile: each alone, below
                pass
        for key, fn, xs in tracing:
            try:
                results[key] = self._compiled([fn], [xs])[0]
            except Exception as err:  # noqa: BLE001 - reported to that member's test
                results[key] = err
        return results


def _traced_form(fn: Callable, args: Sequence[Any], kwargs: dict) -> tuple[Callable, list] | None:
    """`fn(*args, **kwargs)` as `(function, inputs)` that `jax.jit` traces: the NumPy arrays
    and scalars among `args` as the inputs (the rest held), else every argument held; None
    if neither traces (the call needs concrete values, or raises)."""
    arrays = [i for i, a in enumerate(args) if isinstance(a, (np.ndarray, np.generic))]
    for positions in (arrays, []):
        call = of_args_at(lambda *a: fn(*a, **kwargs), args, positions)
        inputs = [args[i] for i in positions]
        if traces(jax.jit, call, inputs):
            return call, inputs
    return None


Call = tuple[Callable, Sequence, dict]  # (fn, args, kwargs): an eager call


class EagerJax:
    """The outcomes of eager JAX calls `(fn, args, kwargs)` (a table's, made by `calls()` on
    the first request): the calls that trace under `jax.jit` as `JaxOracle` programs of
    `chunk` calls each (eager JAX's values, dtypes and weak types: `jit` does not change
    them); the others (JAX needs concrete values there, or raises while tracing), and those
    whose program fails (XLA's quick options have no complex `clamp`), eagerly, as before.
    `outcome(i)` is the result or the exception JAX raised; `result(i)` the result; where
    `calls()` gives a dict, `i` is a key of it (else a position). Results
    may differ from eager JAX's in the last float bit (XLA's quick options); the tests'
    tolerances are far wider."""

    def __init__(
        self,
        calls: Callable[[], Sequence[Call] | Mapping[Hashable, Call]],
        chunk: int = 40,
    ) -> None:
        self._calls, self._chunk = calls, chunk
        self._table: Sequence[Call] | None = None
        self._position: dict[Hashable, int] | None = None  # a dict table's key -> position
        self._oracle: JaxOracle | None = None

    def outcome(self, key: Hashable) -> Any:
        if self._table is None:
            table = self._calls()
            if isinstance(table, Mapping):
                self._position = {k: i for i, k in enumerate(table)}
                table = list(table.values())
            self._table = table
            members = []
            for i, (fn, args, kwargs) in enumerate(self._table):
                form = _traced_form(fn, args, kwargs)
                if form is not None:
                    members.append((i, *form))
            self._oracle = JaxOracle.in_chunks(members, self._chunk)
        index = key if self._position is None else self._position[key]
        if index in self._oracle:
            try:
                return self._oracle.get(index)
            except Exception:  # noqa: BLE001 - XLA's quick options lack a kernel: eagerly
                pass
        fn, args, kwargs = self._table[index]
        try:
            return fn(*args, **kwargs)
        except Exception as err:  # noqa: BLE001 - compared by the caller
            return err

    def result(self, key: Hashable) -> Any:
        """The call's result; raises what JAX raised."""
        outcome = self.outcome(key)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


def jax_per_key(
    calls: list[tuple[Callable[..., Any], list[Any]]], key_of: Callable[[int], Any]
) -> Callable[[int], list[Any]]:
    """`seed -> [fn(key_of(seed), *params) for fn, params in calls]`, computed by one `jax.jit`
    program compiled once (with the options didax's side compiles with, the session's:
    `helpers.environment`; `_QUICK_COMPILE` would change random bits) and run once per seed.
    The params are the program's arguments, as they are the arguments of JAX's jitted
    samplers in an eager call, so XLA compiles the same arithmetic."""

    def program(key: Any, all_params: list[list[Any]]) -> list[Any]:
        return [fn(key, *params) for (fn, _), params in zip(calls, all_params, strict=True)]

    jitted = jax.jit(program)

    @functools.cache
    def run(seed: int) -> list[Any]:
        return jitted(key_of(seed), [params for _, params in calls])

    return run


def assert_same_leaves(got: Any, want: Any, tol: float = 1e-5) -> None:
    """The leaves of two pytrees (didax's, JAX's) agree one by one: count, shape, dtype, and
    values within `tol` (absolute and relative)."""
    got, want = jax.tree.leaves(got), jax.tree.leaves(want)
    assert len(got) == len(want), f"{len(got)} leaves != JAX's {len(want)}"
    for g, w in zip(got, want, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, atol=tol, rtol=tol)
