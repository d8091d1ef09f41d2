"""Checks that derivatives and rules are right, for tests and for learners' exercises.

Layer 5 (it calls the public transformations). Two entry points:

- `check_grads(f, args, order)`: like `jax.test_util.check_grads`. Forward mode is compared
  with central differences, reverse mode with forward mode through the dot-product identity
  <ct, J t> == <J^T ct, t>, recursively up to `order`. Raises AssertionError.
- `check_rules(prim, *args, **params)`: didax's own. Checks each rule a user registered for a
  primitive against what the rule must agree with, one rule and one input at a time, so that
  the message says which rule is wrong, for which input, expected against got:
      abstract_eval  vs the impl's output type      jvp        vs finite differences
      transpose      vs <ct, f(t)> == <f^T ct, t>    vmap       vs a loop over the batch
      lowering       vs the impl (under `jit`)
  Returns the list of checks that ran (printable); raises AssertionError at the first wrong
  rule.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from didax import api, core, dtypes
from didax.compile.jit import jit
from didax.tree_util import tree_flatten, tree_map

EPS = 1e-4  # step of the central differences, as JAX's

# Gradient tolerances by dtype, JAX's `default_gradient_tolerance`; other dtypes (integers)
# compare exactly, as in JAX.
_GRAD_TOL = {
    np.dtype(np.float16): 1e-2,
    np.dtype(np.float32): 2e-3,
    np.dtype(np.float64): 1e-5,
    np.dtype(np.complex64): 1e-3,
    np.dtype(np.complex128): 1e-5,
}
if dtypes.bfloat16 is not None:
    _GRAD_TOL[np.dtype(dtypes.bfloat16)] = 1e-1


# --------------------------------------------------------------------------- check_grads


def _tol(dtype: np.dtype, given: float | None) -> float:
    # as JAX's `tolerance`: looked up by the canonical dtype (a Python float's float64 is
    # float32 without x64, so its default is float32's 2e-3)
    return given if given is not None else _GRAD_TOL.get(dtypes.canonicalize(dtype), 0.0)


def _assert_close(got: Any, want: Any, atol: float | None, rtol: float | None, what: str) -> None:
    got_leaves, got_tree = tree_flatten(got)
    want_leaves, want_tree = tree_flatten(want)
    if got_tree != want_tree:
        raise AssertionError(f"{what}: tree structures differ: {got_tree} vs {want_tree}")
    for g, w in zip(got_leaves, want_leaves, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        dtype = np.promote_types(g.dtype, w.dtype)
        # JAX's `check_close`: the looser of the two dtypes' tolerances, times the size
        a = max(_tol(g.dtype, atol), _tol(w.dtype, atol)) * g.size
        r = max(_tol(g.dtype, rtol), _tol(w.dtype, rtol)) * w.size
        np.testing.assert_allclose(g.astype(dtype), w.astype(dtype), atol=a, rtol=r, err_msg=what)


def _inner(xs: Any, ys: Any) -> np.ndarray:
    # Re sum(conj(x) y), as JAX's inner product: summed in double precision, returned in the
    # operands' dtype so that it is compared at their tolerance (as JAX's keeps the dtype)
    pairs = list(zip(tree_flatten(xs)[0], tree_flatten(ys)[0], strict=True))
    dtype = np.result_type(*(np.asarray(v).dtype for pair in pairs for v in pair))
    total = sum(
        np.real(np.sum(np.conj(np.asarray(x, np.complex128)) * np.asarray(y, np.complex128)))
        for x, y in pairs
    )
    return np.asarray(total, dtype)


def _random_like(rng: np.random.Generator, tree: Any) -> Any:
    def draw(x: Any) -> Any:
        x = np.asarray(x)
        if np.iscomplexobj(x):  # both parts random, as JAX's rand_like
            parts = rng.standard_normal((2, *x.shape))
            return (parts[0] + 1j * parts[1]).astype(x.dtype)
        return rng.standard_normal(x.shape).astype(x.dtype)

    return tree_map(draw, tree)


def _conj(tree: Any) -> Any:
    return tree_map(lambda x: np.conj(x) if np.iscomplexobj(x) else x, tree)


def _numerical_jvp(f: Callable, primals: Sequence, tangents: Sequence, eps: float) -> Any:
    def shifted(sign: float) -> Any:
        return f(
            *(
                tree_map(lambda p, t: p + sign * eps * t, x, t)
                for x, t in zip(primals, tangents, strict=True)
            )
        )

    plus, minus = shifted(1.0), shifted(-1.0)
    return tree_map(lambda a, b: (np.asarray(a) - np.asarray(b)) / (2 * eps), plus, minus)


def check_jvp(
    f: Callable, f_jvp: Callable, args: Sequence, atol=None, rtol=None, eps=EPS, err_msg=""
):
    """Compare `f_jvp(primals, tangents)` with central differences of `f`."""
    rng = np.random.default_rng(0)
    tangents = _random_like(rng, tuple(args))
    v_out, t_out = f_jvp(args, tangents)
    _assert_close(v_out, f(*args), atol, rtol, f"{err_msg or 'JVP'} primal output")
    t_num = _numerical_jvp(f, args, tangents, eps)
    # finite differences lose precision: compare at the looser of the two tolerances
    _assert_close(t_out, t_num, atol, rtol, f"{err_msg or 'JVP'} tangent vs finite differences")


def check_vjp(
    f: Callable, f_vjp: Callable, args: Sequence, atol=None, rtol=None, eps=EPS, err_msg=""
):
    """Check <ct, J t> (by finite differences) == <J^T ct, t> (by `f_vjp`), with JAX's
    convention for complex values: Re<a, b> = Re sum(conj(a) b), and the pullback taken of
    conj(ct), then conjugated."""
    rng = np.random.default_rng(1)
    v_out, pullback = f_vjp(*args)
    _assert_close(v_out, f(*args), atol, rtol, f"{err_msg or 'VJP'} primal output")
    tangents = _random_like(rng, tuple(args))
    cts = _random_like(rng, v_out)
    ct_in = _conj(pullback(_conj(cts)))
    lhs = _inner(cts, _numerical_jvp(f, args, tangents, eps))
    rhs = _inner(ct_in, tangents)
    _assert_close(rhs, lhs, atol, rtol, f"{err_msg or 'VJP'}: <ct, J t> != <J^T ct, t>")


def check_grads(
    f: Callable,
    args: Sequence,
    order: int,
    modes: Sequence[str] = ("fwd", "rev"),
    atol: float | None = None,
    rtol: float | None = None,
    eps: float | None = None,
) -> None:
    """Check `f`'s derivatives up to `order` against finite differences. Like
    `jax.test_util.check_grads`: forward mode ("fwd"; "lin" through `linearize`) against
    central differences, reverse mode ("rev") against them through the dot-product
    identity; as JAX, `modes` is searched with `in` (other values check nothing). Raises
    AssertionError on a mismatch."""
    eps = eps or EPS

    def check(f: Callable, args: tuple, order: int, msg: str) -> None:
        if "fwd" in modes:
            fwd_msg = f"JVP of {msg}" if msg else "JVP"
            check_jvp(f, lambda p, t: api.jvp(f, p, t), args, atol, rtol, eps, fwd_msg)
            if order > 1:
                check(lambda p, t: api.jvp(f, p, t), (args, args), order - 1, fwd_msg)
        if "rev" in modes:
            rev_msg = f"VJP of {msg}" if msg else "VJP"
            check_vjp(f, lambda *a: api.vjp(f, *a), args, atol, rtol, eps, rev_msg)
            if order > 1:

                def f_vjp(*a: Any) -> Any:
                    out, pullback = api.vjp(f, *a)
                    return pullback(out)

                check(f_vjp, args, order - 1, rev_msg)
        if "lin" in modes:
            lin_msg = f"LIN of {msg}" if msg else "LIN"
            check_jvp(f, functools.partial(_jvp_from_lin, f), args, atol, rtol, eps, lin_msg)
            if order > 1:
                check(functools.partial(_jvp_from_lin, f), (args, args), order - 1, lin_msg)

    check(f, tuple(args), order, "")


def _jvp_from_lin(f: Callable, primals: Sequence, tangents: Sequence) -> tuple[Any, Any]:
    out, f_lin = api.linearize(f, *primals)
    return out, f_lin(*tangents)


# --------------------------------------------------------------------------- check_rules


@dataclass(frozen=True)
class RuleCheck:
    """One check that `check_rules` ran and passed."""

    rule: str  # "abstract_eval", "jvp", "transpose", "vmap" or "lowering"
    case: str  # e.g. "input 1", "linear in (0, 2)", "in_axes (0, None)"

    def __str__(self) -> str:
        return f"ok  {self.rule:<13} {self.case}"


class RuleChecks(list):
    """The checks `check_rules` ran; prints one line each."""

    def __str__(self) -> str:
        return "\n".join(map(str, self))

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(str(self))


def _fmt(x: Any) -> str:
    return np.array2string(np.asarray(x), precision=5, threshold=20, separator=", ")


def _wide(x: Any) -> np.ndarray:
    # double precision, complex kept complex (a complex output of `complex` or `conj`)
    x = np.asarray(x)
    return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)


def _mismatch(prim: core.Primitive, rule: str, case: str, what: str, want: Any, got: Any) -> str:
    want, got = _wide(want), _wide(got)
    lines = [
        f"check_rules({prim.name}): the {rule} rule is wrong for {case}.",
        f"  {what}",
        f"  expected: {_fmt(want)}",
        f"  got:      {_fmt(got)}",
    ]
    if want.shape == got.shape and want.size:
        diff = np.abs(want - got)
        at = ""
        if diff.ndim:
            where = np.unravel_index(int(np.nanargmax(diff)), diff.shape)
            at = f" at index {tuple(int(i) for i in where)}"
        lines.append(f"  largest difference {float(np.nanmax(diff)):.3g}{at}")
    return "\n".join(lines)


def _close(want: Any, got: Any, tol: float) -> bool:
    want, got = _wide(want), _wide(got)
    return want.shape == got.shape and np.allclose(got, want, atol=tol, rtol=tol, equal_nan=True)


def _bind(prim: core.Primitive, params: dict) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        return prim.bind(*args, **params)

    return call


def _as_list(prim: core.Primitive, out: Any) -> list[Any]:
    return list(out) if prim.multiple_results else [out]


def _impl64(prim: core.Primitive, params: dict, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    # Finite differences want float64; the impl rule is NumPy, so it usually takes it.
    out = core.impl_rules[prim](*[np.asarray(a, np.float64) for a in args], **params)
    return [_wide(o) for o in out]


def check_rules(
    prim: core.Primitive,
    *args: Any,
    eps: float = 1e-6,
    tol: float = 1e-3,
    batch_size: int = 3,
    seed: int = 0,
    **params: Any,
) -> RuleChecks:
    """Check a primitive's rules at the example operands `args` (and `params`).

    Each registered rule is checked against what it must agree with (see the module
    docstring); a missing rule is not checked. Inputs and tangents are drawn at random around
    the example operands, with `seed`. Raises AssertionError naming the rule, the input and
    the expected and received values at the first wrong rule; returns the checks that ran.
    """
    rng = np.random.default_rng(seed)
    args = [np.asarray(a, np.float32) for a in args]
    f = _bind(prim, params)
    checks = RuleChecks()

    out = _as_list(prim, f(*args))
    if prim in core.abstract_eval_rules:
        avals = core.abstract_eval_rules[prim](*[core.get_aval(a) for a in args], **params)
        for i, (aval, o) in enumerate(zip(avals, out, strict=True)):
            o = np.asarray(o)
            if tuple(aval.shape) != o.shape or np.dtype(aval.dtype) != o.dtype:
                raise AssertionError(
                    f"check_rules({prim.name}): the abstract_eval rule is wrong for output {i}.\n"
                    f"  the impl rule returns {core.get_aval(o).str_short()}, "
                    f"the abstract_eval rule says {aval.str_short()}"
                )
        checks.append(RuleCheck("abstract_eval", f"{len(avals)} output(s)"))

    if prim in core.jvp_rules:
        _check_jvp_rule(prim, f, params, args, rng, eps, tol)
        checks.append(RuleCheck("jvp", f"each of {len(args)} input(s) vs finite differences"))

    if prim in core.transpose_rules:
        subsets = _check_transpose_rule(prim, f, params, args, rng, tol)
        checks.append(RuleCheck("transpose", f"linear in {', '.join(map(str, subsets))}"))

    if prim in core.vmap_rules:
        n = _check_vmap_rule(prim, f, params, args, rng, tol, batch_size)
        checks.append(RuleCheck("vmap", f"{n} in_axes patterns vs a loop"))

    if prim in core.lowering_rules:
        got = _as_list(prim, jit(f)(*args))
        for i, (w, g) in enumerate(zip(out, got, strict=True)):
            if not _close(w, g, tol):
                raise AssertionError(
                    _mismatch(prim, "lowering", f"output {i}", "jit(f) against the impl rule", w, g)
                )
        checks.append(RuleCheck("lowering", "jit against the impl rule"))
    return checks


def _describe(x: Any) -> str:
    """A value as a learner's message names it: `f32[3]` for an array, else its type."""
    if isinstance(x, list | tuple):
        inner = ", ".join(_describe(v) for v in x)
        return f"[{inner}]" if isinstance(x, list) else f"({inner}{',' if len(x) == 1 else ''})"
    if isinstance(x, core.UndefinedPrimal):
        return f"UndefinedPrimal({x.aval.str_short()})"
    if x is core.NOT_MAPPED:
        return "NOT_MAPPED"
    if isinstance(x, int):
        return str(x)
    try:
        return core.get_aval(x).str_short()
    except TypeError:
        return type(x).__name__


def _check_rule_structure(prim, rule: str, returned: Any, outs: list[Any]) -> None:
    # What a jvp or vmap rule returns, read before any transformation runs it, so that a
    # rule of the wrong shape gets a message about the rule, not the engine's error
    head = f"check_rules({prim.name}): the {rule} rule"
    second = "[output tangents]" if rule == "jvp" else "[output batch dims]"
    if not (isinstance(returned, list | tuple) and len(returned) == 2) or not all(
        isinstance(r, list | tuple) for r in returned
    ):
        raise AssertionError(
            f"{head} must return two lists, [outputs] and {second}; "
            f"it returned {_describe(returned)}"
        )
    for what, got in zip(("outputs", second[1:-1]), returned, strict=True):
        if len(got) != len(outs):
            raise AssertionError(
                f"{head} returned {len(got)} {what} ({_describe(got)}); "
                f"'{prim.name}' has {len(outs)} output(s)"
            )
    if rule == "jvp":
        for k, (o, t) in enumerate(zip(outs, returned[1], strict=True)):
            if isinstance(t, core.Zero):
                continue
            want, got = _describe(o), _describe(t)
            if want != got:
                raise AssertionError(
                    f"{head}'s tangent of output {k} is {got}, but the output is {want}: "
                    "a tangent has its output's shape and dtype"
                )
    else:
        for k, (o, d) in enumerate(zip(returned[0], returned[1], strict=True)):
            ndim = np.ndim(o)
            if d is not core.NOT_MAPPED and not (isinstance(d, int) and -ndim <= d < ndim):
                raise AssertionError(
                    f"{head} says output {k} has its batch axis at {d}, but that output is "
                    f"{_describe(o)}, with {ndim} axes: which of its axes holds the "
                    f"examples? (the example's own output is {_describe(outs[k])})"
                )


def _check_jvp_rule(prim, f, params, args, rng, eps, tol) -> None:
    # The rule called once on arrays (every tangent given): the shape of what it returns
    outs = _as_list(prim, f(*args))
    tangents = [np.ones_like(x) for x in args]  # (rng untouched: the draws below stay put)
    try:
        returned = core.jvp_rules[prim](list(args), tangents, **params)
    except Exception:  # reported below, where jvp runs the rule, with its context
        pass
    else:
        _check_rule_structure(prim, "jvp", returned, outs)
    # One input at a time, the others closed over: their tangents reach the rule as symbolic
    # zeros (`core.Zero`), as they do under `grad` of a function of one argument, and the
    # message can say which input's derivative is wrong.
    for i, x in enumerate(args):
        t = rng.standard_normal(x.shape).astype(np.float32)

        def f_i(x_i, i=i):
            return f(*args[:i], x_i, *args[i + 1 :])

        try:
            _, got = api.jvp(f_i, (x,), (t,))
        except Exception as e:
            raise AssertionError(
                f"check_rules({prim.name}): the jvp rule failed for input {i} "
                f"(the other inputs' tangents are symbolic zeros, core.Zero): "
                f"{type(e).__name__}: {e}"
            ) from e
        x64 = np.asarray(x, np.float64)  # in float64, or a step of 1e-6 is lost in rounding
        shifted = [[*args[:i], x64 + s * eps * t, *args[i + 1 :]] for s in (1.0, -1.0)]
        plus, minus = (_impl64(prim, params, a) for a in shifted)
        for k, (p, m, g) in enumerate(zip(plus, minus, _as_list(prim, got), strict=True)):
            want = (p - m) / (2 * eps)
            if not _close(want, g, tol):
                what = f"tangent t = {_fmt(t)} on input {i}, zero on the others" + (
                    f"; output {k}" if len(plus) > 1 else ""
                )
                raise AssertionError(_mismatch(prim, "jvp", f"input {i}", what, want, g))


def _linear_subsets(f, args, rng, tol) -> list[tuple[int, ...]]:
    # the sets of inputs in which f is linear (the others held at their example values)
    found = []
    for r in range(1, len(args) + 1):
        for subset in itertools.combinations(range(len(args)), r):

            def g(ts, subset=subset):
                full = list(args)
                for j, t in zip(subset, ts, strict=True):
                    full[j] = t
                return [_wide(o) for o in _as_list_any(f(*full))]

            t1 = [rng.standard_normal(args[j].shape).astype(np.float32) for j in subset]
            t2 = [rng.standard_normal(args[j].shape).astype(np.float32) for j in subset]
            add = g([a + b for a, b in zip(t1, t2, strict=True)])
            sep = [a + b for a, b in zip(g(t1), g(t2), strict=True)]
            twice = g([2 * a for a in t1])
            scaled = [2 * a for a in g(t1)]
            if all(_close(a, b, tol) for a, b in zip(add + twice, sep + scaled, strict=True)):
                found.append(subset)
    return found


def _as_list_any(out: Any) -> list[Any]:
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _check_transpose_rule(prim, f, params, args, rng, tol) -> list[tuple[int, ...]]:
    subsets = _linear_subsets(f, args, rng, tol)
    if not subsets:
        raise AssertionError(
            f"check_rules({prim.name}): a transpose rule is registered, but the primitive is "
            "not linear in any set of its inputs at these operands (f(a + b) != f(a) + f(b)), "
            "so there is nothing for it to transpose"
        )
    rule = core.transpose_rules[prim]
    for subset in subsets:
        ts = {j: rng.standard_normal(args[j].shape).astype(np.float32) for j in subset}
        full = [ts.get(j, a) for j, a in enumerate(args)]
        outs = _as_list(prim, f(*full))
        cts = [_random_like(rng, np.asarray(o)) for o in outs]
        operands = [
            core.UndefinedPrimal(core.get_aval(a)) if j in ts else a for j, a in enumerate(args)
        ]
        try:  # JAX's convention for complex outputs: transpose conj(ct), then conjugate
            ct_ins = _conj(rule(_conj(cts), *operands, **params))
        except Exception as e:
            called = ", ".join(_describe(o) for o in [cts, *operands])
            raise AssertionError(
                f"check_rules({prim.name}): the transpose rule failed for linear inputs "
                f"{subset}, called with ({called}): {type(e).__name__}: {e}"
            ) from e
        lhs = sum(
            float(np.real(np.sum(np.conj(_wide(o)) * _wide(c))))
            for c, o in zip(cts, outs, strict=True)
        )
        rhs = 0.0
        for j in subset:
            ct_j = ct_ins[j]
            if ct_j is None or isinstance(ct_j, core.Zero):
                ct_j = np.zeros_like(args[j])
            if np.shape(ct_j) != args[j].shape:
                raise AssertionError(
                    f"check_rules({prim.name}): the transpose rule is wrong for linear inputs "
                    f"{subset}: the cotangent of input {j} has shape {np.shape(ct_j)}, "
                    f"the input has shape {args[j].shape}"
                )
            rhs += float(np.real(np.sum(_wide(ct_j) * ts[j])))
        if not _close(lhs, rhs, tol * max(1.0, abs(lhs))):
            raise AssertionError(
                _mismatch(
                    prim,
                    "transpose",
                    f"linear inputs {subset}",
                    "the dot-product identity <ct, f(t)> == <f^T(ct), t>: expected <ct, f(t)>, "
                    "got <f^T(ct), t>",
                    lhs,
                    rhs,
                )
            )
    return subsets


def _check_vmap_rule(prim, f, params, args, rng, tol, batch_size) -> int:
    n = 0
    for pattern in itertools.product((None, 0, -1), repeat=len(args)):
        if all(d is None for d in pattern):
            continue
        batched = []
        for a, d in zip(args, pattern, strict=True):
            if d is None:
                batched.append(a)
                continue
            stack = np.stack(
                [a + rng.standard_normal(a.shape).astype(np.float32) for _ in range(batch_size)]
            )
            batched.append(np.moveaxis(stack, 0, d if d >= 0 else stack.ndim - 1))
        in_axes = tuple(
            d if d is None or d >= 0 else batched[j].ndim - 1 for j, d in enumerate(pattern)
        )
        dims = [core.NOT_MAPPED if d is None else d for d in in_axes]
        example = [
            a if d is None else np.take(a, 0, axis=d) for a, d in zip(batched, in_axes, strict=True)
        ]
        try:
            returned = core.vmap_rules[prim](batch_size, list(batched), dims, **params)
        except Exception:  # reported below, where vmap runs the rule, with its context
            pass
        else:
            _check_rule_structure(prim, "vmap", returned, _as_list(prim, f(*example)))
        try:
            got = _as_list(prim, api.vmap(f, in_axes=in_axes)(*batched))
        except Exception as e:
            called = f"{batch_size}, {_describe(list(batched))}, {_describe(dims)}"
            raise AssertionError(
                f"check_rules({prim.name}): the vmap rule failed for in_axes {in_axes}, "
                f"called with ({called}): {type(e).__name__}: {e}"
            ) from e
        for b in range(batch_size):
            example = [
                a if d is None else np.take(a, b, axis=d)
                for a, d in zip(batched, in_axes, strict=True)
            ]
            want = _as_list(prim, f(*example))
            for k, (w, g) in enumerate(zip(want, got, strict=True)):
                if not _close(w, np.asarray(g)[b], tol):
                    raise AssertionError(
                        _mismatch(
                            prim,
                            "vmap",
                            f"in_axes {in_axes}",
                            f"example {b} of the batch (output {k}), against calling the "
                            "primitive on that example alone",
                            w,
                            np.asarray(g)[b],
                        )
                    )
        n += 1
    return n
