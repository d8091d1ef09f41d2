"""Helpers every initial-style control-flow primitive shares (cond, scan, while_loop):
tracing a branch or body to a jaxpr and hoisting its consts, jaxpr surgery on the staged
sub-jaxprs, and the checks that name what differs between two pytrees of avals.

Layer 4, first module: no primitives here. The control-flow modules import these; `cond`'s
rules are in cond.py.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from didax import array, core, dtypes, tree_util, vma
from didax.core import ShapedArray
from didax.interpreters import staging
from didax.jaxpr import ClosedJaxpr, Jaxpr, Literal, Var, dce_jaxpr, eval_jaxpr
from didax.primitives import ad_helpers
from didax.primitives.convert import convert_element_type
from didax.tree_util import PyTreeDef, flatten_fun


def hoist_consts(closed: ClosedJaxpr, refs: bool = False) -> tuple[ClosedJaxpr, list[Any]]:
    """The jaxpr with its constvars turned into leading invars, and the consts' values. With
    `refs`, consts may be refs (a loop, cond or checkpoint threads them: ref_carries.py)."""
    j = closed.jaxpr
    for v in j.constvars:
        if core.is_ref(v) and not refs:  # (JAX threads it through the branch or function)
            raise NotImplementedError(
                f"a ref of type {v.aval} is used inside a function of a higher-order "
                "primitive that didax does not thread refs through; read it (`ref[...]`) "
                "outside, pass the value in, and write the result back outside"
            )
    return ClosedJaxpr(Jaxpr([], [*j.constvars, *j.invars], j.outvars, j.eqns)), list(closed.consts)


def trace_to_subjaxpr(
    fn: Callable[..., Any],
    in_tree: PyTreeDef,
    in_avals: Sequence[ShapedArray],
    refs: bool = False,
) -> tuple[ClosedJaxpr, list[Any], PyTreeDef]:
    """Stage a user's function (a pytree function) at `in_avals` for a control-flow primitive:
    the jaxpr takes the closed-over values (consts) first, then the flat arguments (refs among
    the consts only with `refs`, see `hoist_consts`)."""
    flat_fn, out_tree = flatten_fun(fn, in_tree)
    closed, consts = hoist_consts(staging.trace_to_jaxpr(flat_fn, list(in_avals)), refs)
    return closed, consts, out_tree()


def trace_jaxpr_fn(
    fn: Callable[..., Sequence[Any]], in_avals: Sequence[ShapedArray]
) -> tuple[ClosedJaxpr, list[Any]]:
    """Stage a flat function written by a rule; its consts become leading invars."""
    return hoist_consts(staging.trace_to_jaxpr(fn, list(in_avals)))


def jaxpr_as_fun(closed: ClosedJaxpr) -> Callable[..., list[Any]]:
    return lambda *args: eval_jaxpr(closed.jaxpr, closed.consts, *args)


def join_consts(
    jaxprs: Sequence[ClosedJaxpr], consts: Sequence[Sequence[Any]]
) -> tuple[list[ClosedJaxpr], list[Any]]:
    """Give every jaxpr the consts of all of them (the same value once), as cond's branches
    need one signature. Jaxpr i's leading `len(consts[i])` invars are its own consts."""
    unique: list[Any] = []
    for cs in consts:
        for c in cs:
            if not any(c is u for u in unique):
                unique.append(c)
    out = []
    for closed, cs in zip(jaxprs, consts, strict=True):
        j = closed.jaxpr
        own = dict(zip(map(id, cs), j.invars[: len(cs)], strict=True))
        constvars = [own[id(u)] if id(u) in own else Var(core.get_aval(u)) for u in unique]
        out.append(ClosedJaxpr(Jaxpr([], [*constvars, *j.invars[len(cs) :]], j.outvars, j.eqns)))
    return out, unique


def forwarding(jaxpr: Jaxpr) -> list[int | None]:
    """For each output, the index of the input it returns unchanged, or None."""
    index = {v: i for i, v in enumerate(jaxpr.invars)}
    return [None if isinstance(v, Literal) else index.get(v) for v in jaxpr.outvars]


def prune_outputs(closed: ClosedJaxpr, keep: Sequence[bool]) -> ClosedJaxpr:
    j = closed.jaxpr
    outvars = [v for v, k in zip(j.outvars, keep, strict=True) if k]
    return ClosedJaxpr(Jaxpr(j.constvars, j.invars, outvars, j.eqns), closed.consts)


def with_invars(closed: ClosedJaxpr, invars: Sequence[Var]) -> ClosedJaxpr:
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr(j.constvars, list(invars), j.outvars, j.eqns), closed.consts)


def with_outvars(closed: ClosedJaxpr, outvars: Sequence[Any]) -> ClosedJaxpr:
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr(j.constvars, j.invars, list(outvars), j.eqns), closed.consts)


def split(xs: Sequence[Any], sizes: Sequence[int]) -> list[list[Any]]:
    """`xs` cut into consecutive pieces of the given sizes, then the rest."""
    out, start = [], 0
    for n in sizes:
        out.append(list(xs[start : start + n]))
        start += n
    out.append(list(xs[start:]))
    return out


def as_array(x: Any) -> Any:
    """A forwarded operand as an array (Python scalars become weak Arrays), as JAX returns."""
    return array.asarray(x) if dtypes.is_python_scalar(x) else x


def long_str(aval: ShapedArray) -> str:
    """`float32[3]`: JAX's error messages spell dtypes out, unlike jaxprs (`f32[3]`)."""
    return str(aval.strip_weak_type())


def mismatch_extra(a: ShapedArray, b: ShapedArray) -> str:
    reasons = vma.mismatch_reasons(a, b)
    if len(reasons) > 2:
        return ", so " + ", ".join(reasons[:-1]) + ", and " + reasons[-1]
    return ", so " + ", and ".join(reasons) if reasons else ""


def fun_sourceinfo(fn: Callable[..., Any]) -> str:
    fn = inspect.unwrap(fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return str(fn)
    return f"{fn.__name__} at {code.co_filename}:{code.co_firstlineno}"


def child_keys(tree: PyTreeDef) -> list[str]:
    """The key of each child of a node as JAX's `keystr` writes it: `[0]`, `['a']`, `.x`,
    `[<flat index 0>]` (a node registered without keys)."""
    return [str(k) for k in tree_util.treedef_child_keys(tree)]


def leaf_path_names(tree: PyTreeDef) -> list[str]:
    """Each leaf's key path (`[1]['a']`; empty for a leaf at the root)."""
    if tree.node is None:
        return [""]
    return [
        k + p
        for k, sub in zip(child_keys(tree), tree.children, strict=True)
        for p in leaf_path_names(sub)
    ]


def _with_children(t: PyTreeDef) -> str:
    n = len(t.children)
    return f"{t.node} with {n} child{'ren' if n > 1 else ''}"


def _children_differ(t1: PyTreeDef, t2: PyTreeDef) -> str:
    # JAX names the keys only one side has, for keys that carry a `.key` (dicts, flat indices)
    keys1, keys2 = tree_util.treedef_child_keys(t1), tree_util.treedef_child_keys(t2)
    odd = [k for k in keys1 if k not in keys2] + [k for k in keys2 if k not in keys1]
    diff = " ".join(repr(k.key) for k in odd) if all(hasattr(k, "key") for k in odd) else ""
    why = "the numbers of children do not match"
    return why + (f", with the symmetric difference of key sets: {{{diff}}}" if diff else "")


def tree_differences(
    t1: PyTreeDef, t2: PyTreeDef, path: str = ""
) -> list[tuple[str, str, str, str]]:
    """Where two tree structures differ: (path, first thing, second thing, explanation)."""
    if t1.node is None and t2.node is None:
        return []
    if t1.node is not t2.node:

        def thing(t: PyTreeDef) -> str:
            return "pytree leaf" if t.node is None else str(t.node)

        return [(path, thing(t1), thing(t2), "their Python types differ")]
    if t1.node in (tuple, list) and len(t1.children) != len(t2.children):
        name = t1.node.__name__
        return [
            (
                path,
                f"{name} of length {len(t1.children)}",
                f"{name} of length {len(t2.children)}",
                "the lengths do not match",
            )
        ]
    if len(t1.children) != len(t2.children):
        return [(path, _with_children(t1), _with_children(t2), _children_differ(t1, t2))]
    if t1.aux != t2.aux:
        return [
            (
                path,
                f"{t1.node} with pytree metadata {t1.aux}",
                f"{t2.node} with pytree metadata {t2.aux}",
                "the pytree node metadata does not match",
            )
        ]
    keys = child_keys(t1)
    return [
        d
        for k, a, b in zip(keys, t1.children, t2.children, strict=True)
        for d in tree_differences(a, b, path + k)
    ]


def bullets(diffs: Sequence[str], capitalize: bool = True) -> str:
    if len(diffs) == 1:
        return (diffs[0][0].upper() + diffs[0][1:] if capitalize else diffs[0]) + ".\n"
    return "".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"


def pcast_hint(casts: list[str]) -> str:
    """JAX's advice on types that differ in their varying mesh axes (check_vma): apply
    `pcast`, as each of `casts` says; empty when there are none."""
    if not casts:
        return ""
    advice = (
        f"This might be fixed by {casts[0]}.\n"
        if len(casts) == 1
        else "This might be fixed by:\n" + bullets(casts)
    )
    return advice + (
        "See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more "
        "information.\n\n"
    )


def check_leaves(leaves: Sequence[Any], what: str) -> None:
    for x in leaves:
        if not core.is_arraylike(x):
            raise TypeError(
                f"Value {x!r} of type {type(x).__name__} passed to {what} is not a "
                "valid didax type: expected arrays, scalars, or pytrees of them"
            )


def promote_weak_init(
    init: Sequence[Any], in_avals: Sequence[ShapedArray], out_avals: Sequence[ShapedArray]
) -> tuple[list[Any], bool]:
    """A weakly typed initial carry whose loop output has another type takes the joined
    dtype (`while_loop(c, lambda x: x + 0.5, 0)` carries a float32), as JAX does."""
    new, changed = [], False
    for x, a, b in zip(init, in_avals, out_avals, strict=True):
        if a.weak_type and not core.types_match(a, b):
            dtype, _ = dtypes.result_type((a.dtype, True), (b.dtype, b.weak_type))
            x, changed = convert_element_type(x, dtype), True
        new.append(x)
    return new, changed


def check_carry_type(
    name: str,
    body_fun: Callable[..., Any],
    in_tree: PyTreeDef,
    out_tree: PyTreeDef,
    in_avals: Sequence[ShapedArray],
    out_avals: Sequence[ShapedArray],
) -> None:
    """A loop body must return a carry of the structure and types it takes (JAX's check)."""
    try:
        carry_name = next(iter(inspect.signature(body_fun).parameters), None)
    except (TypeError, ValueError):
        carry_name = None

    def component(path: str) -> str:
        if carry_name:
            return (
                f"the input carry component {carry_name}{path}"
                if path
                else f"the input carry {carry_name}"
            )
        return f"the input carry at path {path}" if path else "the input carry"

    if in_tree != out_tree:
        diffs = [
            f"{component(p)} is a {a} but the corresponding component of the carry "
            f"output is a {b}, so {why}"
            for p, a, b, why in tree_differences(in_tree, out_tree)
        ]
        differences = (
            bullets(diffs)
            if diffs
            else (
                f"the input tree structure is:\n{in_tree}\nthe output tree structure is:\n"
                f"{out_tree}\n"
            )
        )
        raise TypeError(
            f"{name} function carry input and carry output must have the same "
            f"pytree structure, but they differ:\n\n{differences}\nRevise the "
            "function so that the carry output has the same pytree structure as "
            "the carry input."
        )
    diffs = [
        f"{component(p)} has type {long_str(a)} but the corresponding output carry "
        f"component has type {long_str(b)}{mismatch_extra(a, b)}"
        for p, a, b in zip(leaf_path_names(in_tree), in_avals, out_avals, strict=True)
        if not vma.same_type(a, b)
    ]
    # in a check_vma shard_map's body, as JAX: cast the initial carry to vary
    casts = [
        vma.pcast_advice(
            b.vma - a.vma, f", to the initial carry value corresponding to {component(p)}"
        )
        for p, a, b in zip(leaf_path_names(in_tree), in_avals, out_avals, strict=True)
        if not vma.same_type(a, b) and b.vma - a.vma
    ]
    hint = pcast_hint(casts)
    if diffs:
        raise TypeError(
            f"{name} function carry input and carry output must have equal types, "
            f"but they differ:\n\n{bullets(diffs)}\n{hint}Revise the function so that "
            "all output types match the corresponding input types."
        )


def instantiate_zeros(tangents: Sequence[Any]) -> list[Any]:
    return [ad_helpers.instantiate(t) for t in tangents]


def dce_closed(closed: ClosedJaxpr, used_outputs: Sequence[bool]) -> ClosedJaxpr:
    """`closed` without the outputs not in `used_outputs` and the equations only they need;
    it keeps every input."""
    jaxpr, _ = dce_jaxpr(closed.jaxpr, used_outputs, instantiate=True)
    const_of = dict(zip(closed.jaxpr.constvars, closed.consts, strict=True))
    return ClosedJaxpr(jaxpr, [const_of[v] for v in jaxpr.constvars])
