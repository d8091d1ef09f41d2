"""What `%jaxpr`, `%grad` and `%vmap` compute, as plain data: `jaxpr_report`, `grad_report`
and `vmap_report` return frozen dataclasses (values, jaxprs), like IPython's `TimeitResult`;
`%jit`'s report is in `timing.py`.

Layer 6: uses didax's public API (plus `didax.core` for avals and `didax.jaxpr` for variable
names) and imports nothing from IPython or ipywidgets, so the reports can be built and tested
anywhere; `sections.py` turns a report into parts, `magics.py` is the IPython glue, which
registers each report's view with IPython's display formatter.
"""

from __future__ import annotations

import functools
import inspect
import os
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import didax
import didax.numpy as jnp
import numpy as np
from didax import api_util, core, tree_util
from didax.display.parts import leaf_paths
from didax.jaxpr import Literal, Var, eval_jaxpr, jaxprs_in_params, literal_text, var_name_in

# ----------------------------------------------------------------------------- helpers


@dataclass(frozen=True)
class Binding:
    """One input or output of a jaxpr: its variable, type and where it comes from."""

    var: str  # name in the printed jaxpr ("a"), or a literal output's value ("1.0")
    type: str  # "f32[3]"
    label: str  # the Python argument it comes from ("x", "params['w']"), or "out[0]"


@dataclass(frozen=True)
class Constant:
    """A constvar of a closed jaxpr (an array the function closed over) and its value."""

    var: str
    type: str
    value: Any


def fn_name(fn: Callable[..., Any]) -> str:
    """A function's name for display (`partial` objects and callables without one included)."""
    if isinstance(fn, functools.partial):
        return fn_name(fn.func)
    name = getattr(fn, "__name__", None)
    return name if isinstance(name, str) else type(fn).__name__


def positional(fn: Callable[..., Any], args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """Move keyword arguments that `fn` can take by position into `args` (`f(x=1)` is
    `f(1)`); keyword-only ones stay keywords."""
    if not kwargs:
        return args, kwargs
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):  # no signature, or the call does not fit it: let fn say
        return args, kwargs
    return tuple(bound.args), dict(bound.kwargs)


def input_labels(fn: Callable[..., Any], args: Sequence[Any], kwargs: dict) -> list[str]:
    # in the order make_jaxpr flattens them: positional leaves, then keyword leaves by key
    labels = []
    for name, arg in zip(api_util.arg_names(fn, len(args)), args, strict=True):
        labels += [name + path for path, _ in leaf_paths(arg)]
    for key in sorted(kwargs):
        labels += [key + path for path, _ in leaf_paths(kwargs[key])]
    return labels


def _bindings(
    closed: didax.ClosedJaxpr, atoms: Sequence[Any], labels: Sequence[str]
) -> tuple[Binding, ...]:
    out = []
    for atom, label in zip(atoms, labels, strict=True):
        if isinstance(atom, Literal):  # a Literal output (a function returning a constant)
            out.append(Binding(literal_text(atom.val), atom.aval.str_short(), label))
        else:
            out.append(Binding(var_name_in(closed.jaxpr, atom), atom.aval.str_short(), label))
    return tuple(out)


def _out_labels(out_tree: tree_util.PyTreeDef) -> list[str]:
    fake = tree_util.tree_unflatten(out_tree, range(out_tree.num_leaves))
    return ["out" + path for path, _ in leaf_paths(fake)]


# ----------------------------------------------------------------------------- %jaxpr


@dataclass(frozen=True, eq=False)
class JaxprReport:
    """`%jaxpr`: the program of a call, its input and output types, and its constants."""

    call: str
    fn_name: str
    jaxpr: didax.ClosedJaxpr
    inputs: tuple[Binding, ...]
    outputs: tuple[Binding, ...]
    constants: tuple[Constant, ...]

    @property
    def text(self) -> str:
        return str(self.jaxpr)


def jaxpr_report(
    fn: Callable[..., Any], args: Sequence[Any], kwargs: dict | None = None, *, call: str = ""
) -> JaxprReport:
    """Trace `fn(*args, **kwargs)` with `didax.make_jaxpr` and describe the jaxpr."""
    __tracebackhide__ = True
    kwargs = dict(kwargs or {})
    out_trees: list[tree_util.PyTreeDef] = []

    @functools.wraps(fn)
    def record_tree(*a: Any, **k: Any) -> Any:
        __tracebackhide__ = True
        out = fn(*a, **k)
        out_trees.append(tree_util.tree_structure(out))
        return out

    closed = didax.make_jaxpr(record_tree)(*args, **kwargs)
    jaxpr = closed.jaxpr
    return JaxprReport(
        call=call or f"{fn_name(fn)}(...)",
        fn_name=fn_name(fn),
        jaxpr=closed,
        inputs=_bindings(closed, jaxpr.invars, input_labels(fn, args, kwargs)),
        outputs=_bindings(closed, jaxpr.outvars, _out_labels(out_trees[-1])),
        constants=tuple(
            Constant(var_name_in(jaxpr, v), v.aval.str_short(), c)
            for v, c in zip(jaxpr.constvars, closed.consts, strict=True)
        ),
    )


# ----------------------------------------------------------------------------- %grad


@dataclass(frozen=True, eq=False)
class GradPrograms:
    """The three programs of reverse mode: the function, its linearization at the primal
    point (tangents in, tangent out; residuals are constants) and the transpose of that
    (cotangent in, cotangents out)."""

    forward: didax.ClosedJaxpr
    linearized: didax.ClosedJaxpr
    transposed: didax.ClosedJaxpr
    jvp: didax.ClosedJaxpr | None = None  # jvp(f): primals and tangents in, both out
    leaves: tuple[Any, ...] = ()  # the call's arguments as `forward`'s inputs (flat)


@dataclass(frozen=True, eq=False)
class GradReport:
    """`%grad`: the value of a call and its gradient with respect to `argnums`."""

    call: str
    fn_name: str
    argnums: int | tuple[int, ...]
    arg_names: tuple[str, ...]  # the differentiated parameters, in argnums order
    value: Any
    gradient: Any  # one pytree per argnum when argnums is a tuple, like jax.grad
    programs: GradPrograms | None = None


def normalize_argnums(argnums: int | Sequence[int], nargs: int) -> tuple[int, ...]:
    """`argnums` as a tuple of non-negative positions; ValueError when one is out of range."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums:
        raise ValueError("argnums must name at least one argument")
    out = []
    for i in nums:
        if not -nargs <= i < nargs:
            raise ValueError(
                f"argnums {i} is out of range for a call with {nargs} positional "
                f"argument{'s' if nargs != 1 else ''}"
            )
        out.append(i % nargs)
    return tuple(out)


def grad_report(
    fn: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict | None = None,
    *,
    argnums: int | Sequence[int] = 0,
    programs: bool = False,
    call: str = "",
) -> GradReport:
    """Value and gradient of `fn(*args, **kwargs)` with `didax.value_and_grad`; with
    `programs`, also the forward, linearized and transposed jaxprs. Keyword arguments are
    not differentiated."""
    __tracebackhide__ = True
    args = tuple(args)
    nums = normalize_argnums(argnums, len(args))
    argnums = nums[0] if isinstance(argnums, int) else nums
    fn_k = functools.partial(fn, **kwargs) if kwargs else fn
    value, gradient = didax.value_and_grad(fn_k, argnums=argnums)(*args)
    names = api_util.arg_names(fn, len(args))
    report_programs = None
    if programs:
        report_programs = _grad_programs(fn, args, kwargs or {}, nums, value)
    return GradReport(
        call=call or f"{fn_name(fn)}(...)",
        fn_name=fn_name(fn),
        argnums=argnums,
        arg_names=tuple(names[i] for i in nums),
        value=value,
        gradient=gradient,
        programs=report_programs,
    )


def _zeros_like_tangent(x: Any) -> Any:
    # a strongly typed array: tangents and cotangents of weakly typed scalars are not weak
    aval = core.get_aval(x)
    return jnp.zeros(aval.shape, aval.dtype)


def _grad_programs(
    fn: Callable[..., Any],
    args: tuple,
    kwargs: dict,
    nums: tuple[int, ...],
    value: Any,
) -> GradPrograms:
    __tracebackhide__ = True
    primals = [args[i] for i in nums]
    tangents = tree_util.tree_map(_zeros_like_tangent, primals)
    forward = didax.make_jaxpr(fn)(*args, **kwargs)
    # the other programs transform f's program (not fn again), so each of their equations
    # records the equation of f it comes from (its derivation: `tangent of eqn 1`)
    run_forward = from_program(forward, tree_util.tree_structure(value))

    def of_diff_args(*diff: Any) -> Any:  # f's program as a function of the differentiated args
        __tracebackhide__ = True
        full = list(args)
        for i, x in zip(nums, diff, strict=True):
            full[i] = x
        return run_forward(tuple(full), kwargs)

    _, f_jvp = didax.linearize(of_diff_args, *primals)
    linearized = didax.make_jaxpr(f_jvp)(*tangents)
    linearized = residuals_as_constants(linearized, _literal_texts(forward))
    _, f_vjp = didax.vjp(of_diff_args, *primals)
    transposed = didax.make_jaxpr(f_vjp)(tree_util.tree_map(_zeros_like_tangent, value))
    transposed = residuals_as_constants(transposed, _literal_texts(forward))

    def jvp_of_f(primals: Any, tangents: Any) -> Any:
        __tracebackhide__ = True
        return didax.jvp(of_diff_args, primals, tangents)

    jvp = didax.make_jaxpr(jvp_of_f)(tuple(primals), tuple(tangents))
    leaves = tuple(tree_util.tree_leaves((args, kwargs)))  # make_jaxpr's inputs, in order
    if len(leaves) != len(forward.jaxpr.invars):
        leaves = ()  # (an argument make_jaxpr does not trace: no values on the graph)
    return GradPrograms(forward, linearized, transposed, jvp, leaves)


def from_program(closed: didax.ClosedJaxpr, out_tree: Any) -> Callable[..., Any]:
    """A function evaluating `closed` (a program staged from a call's arguments, flattened
    as make_jaxpr flattens them) and returning its outputs as `out_tree`: what transforming
    a program rather than the Python function looks like."""

    def run(*args: Any) -> Any:
        __tracebackhide__ = True
        outs = eval_jaxpr(closed.jaxpr, closed.consts, *tree_util.tree_leaves(args))
        return tree_util.tree_unflatten(out_tree, outs)

    return run


def _literal_texts(closed: didax.ClosedJaxpr) -> set[str]:
    # the literals the user's program itself holds (3.0 in `x * 3.0`), at any depth
    out: set[str] = set()

    def walk(j: Any) -> None:
        for e in j.eqns:
            out.update(literal_text(a.val) for a in e.invars if isinstance(a, Literal))
            for inner in jaxprs_in_params(e.params):
                walk(inner)

    walk(closed.jaxpr)
    return out


def residuals_as_constants(closed: didax.ClosedJaxpr, keep: set[str]) -> didax.ClosedJaxpr:
    """The linearized (or transposed) program with its scalar residuals, which tracing
    inlines as literals (`mul a 0.8775825500488281`), turned into named constants with
    their values, as array residuals are; literals of the user's own program stay."""
    j = closed.jaxpr
    new_vars: dict[int, Any] = {}
    consts: list[Any] = []
    eqns = []
    for e in j.eqns:
        ins = []
        for a in e.invars:
            if isinstance(a, Literal) and literal_text(a.val) not in keep:
                if id(a) not in new_vars:
                    new_vars[id(a)] = Var(a.aval)
                    consts.append(a.val)
                ins.append(new_vars[id(a)])
            else:
                ins.append(a)
        eqns.append(e._replace(invars=ins))
    if not new_vars:
        return closed
    jaxpr = didax.Jaxpr([*j.constvars, *new_vars.values()], list(j.invars), list(j.outvars), eqns)
    return didax.ClosedJaxpr(jaxpr, [*closed.consts, *consts])


# ----------------------------------------------------------------------------- %vmap


@dataclass(frozen=True, eq=False)
class VmapReport:
    """`%vmap`: the batched call's output, the batched program and, where the axes allow
    slicing out one example, the per-example program it came from."""

    call: str
    fn_name: str
    in_axes: Any
    out_axes: Any
    axis_size: int | None  # None where the axes could not be read per argument
    output: Any
    jaxpr: didax.ClosedJaxpr  # the batched program
    example_jaxpr: didax.ClosedJaxpr | None  # the program for one element of the batch


def _axes_per_leaf(prefix: Any, tree: Any) -> list[Any] | None:
    # broadcast an in_axes prefix over a pytree; None when it does not fit (vmap reports that)
    if prefix is None or isinstance(prefix, int):
        return [prefix] * len(tree_util.tree_leaves(tree))
    if isinstance(prefix, (tuple, list)) and isinstance(tree, (tuple, list)):
        if len(prefix) != len(tree):
            return None
        parts = [_axes_per_leaf(p, t) for p, t in zip(prefix, tree, strict=True)]
    elif isinstance(prefix, dict) and isinstance(tree, dict):
        if sorted(prefix) != sorted(tree):
            return None
        parts = [_axes_per_leaf(prefix[k], tree[k]) for k in sorted(tree)]
    else:
        return None
    if any(p is None for p in parts):
        return None
    return [d for p in parts for d in p]


def _take_example(x: Any, axis: int | None) -> Any:
    if axis is None:
        return x
    return jnp.asarray(x)[(slice(None),) * (axis % np.ndim(x)) + (0,)]


def vmap_report(
    fn: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict | None = None,
    *,
    in_axes: Any = 0,
    out_axes: Any = 0,
    call: str = "",
) -> VmapReport:
    """Run `didax.vmap(fn, in_axes, out_axes)(*args, **kwargs)` and stage its program."""
    __tracebackhide__ = True
    args, kwargs = tuple(args), dict(kwargs or {})
    batched = didax.vmap(fn, in_axes=in_axes, out_axes=out_axes)
    output = batched(*args, **kwargs)
    jaxpr = didax.make_jaxpr(batched)(*args, **kwargs)
    prefix = in_axes if not isinstance(in_axes, (tuple, list)) else tuple(in_axes)
    dims = _axes_per_leaf(prefix if isinstance(prefix, tuple) else (prefix,) * len(args), args)
    leaves, treedef = tree_util.tree_flatten(args)
    example_jaxpr, axis_size = None, None
    if dims is not None and not kwargs:
        sizes = [np.shape(x)[d] for x, d in zip(leaves, dims, strict=True) if d is not None]
        axis_size = sizes[0] if sizes else None
        examples = [_take_example(x, d) for x, d in zip(leaves, dims, strict=True)]
        example_jaxpr = didax.make_jaxpr(fn)(*tree_util.tree_unflatten(treedef, examples))
        # the batched program as vmap of the per-example one, so each of its equations
        # records the one it was batched from (`batched eqn 2 (axes (0,) → (1,))`)
        run = from_program(example_jaxpr, tree_util.tree_structure(output))
        batched_program = didax.vmap(run, in_axes=in_axes, out_axes=out_axes)
        jaxpr = didax.make_jaxpr(batched_program)(*args)
    return VmapReport(
        call=call or f"{fn_name(fn)}(...)",
        fn_name=fn_name(fn),
        in_axes=in_axes,
        out_axes=out_axes,
        axis_size=axis_size,
        output=output,
        jaxpr=jaxpr,
        example_jaxpr=example_jaxpr,
    )


# ----------------------------------------------------------------------------- %rules

RULE_TABLES = (
    ("impl", core.impl_rules),
    ("abstract eval", core.abstract_eval_rules),
    ("jvp", core.jvp_rules),
    ("transpose", core.transpose_rules),
    ("batching (vmap)", core.vmap_rules),
    ("lowering", core.lowering_rules),
)


@dataclass(frozen=True)
class RuleSource:
    """One rule of a primitive: its table, its function and where its code is."""

    table: str
    name: str  # the function's qualified name ('' when the table has no rule)
    file: str  # absolute path
    line: int
    code: str  # its source, and the source of the functions it was made from
    link: str  # the file relative to the working directory (a notebook's folder), for links


@dataclass(frozen=True, eq=False)
class RulesReport:
    """`%rules`: didax's own code for each of a primitive's rules."""

    primitive: str
    rules: tuple[RuleSource, ...]
    missing: tuple[str, ...]  # the tables with no rule for it


def find_primitive(name: str) -> core.Primitive:
    """The primitive named `name` (as jaxprs print it) among those with rules."""
    seen = {p.name: p for _, table in RULE_TABLES for p in table.primitives()}
    if name not in seen:
        close = sorted(n for n in seen if name in n or n in name)[:5]
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"no primitive named {name!r}{hint}")
    return seen[name]


def _rule_code(fn: Callable[..., Any], lines: list[str]) -> str:
    # a rule made by a factory (`partials_jvp(sin_p, lambda t, x, out: ...)`) shows the
    # factory's code (`lines`, its source) and the functions it closed over (the math: the
    # lambda's line)
    parts = [textwrap.dedent("".join(lines))]
    closed = [cell.cell_contents for cell in getattr(fn, "__closure__", None) or ()]
    # a factory given several functions (`partials_jvp(prim, *partials)`) holds them in a tuple
    closed = [f for c in closed for f in (c if isinstance(c, tuple | list) else (c,))]
    for inner in closed:
        if isinstance(inner, np.ufunc):  # NumPy's own function: named, not shown
            parts.append(f"# made with: numpy.{inner.__name__}")
        elif inspect.isfunction(inner) and inner is not fn:
            try:
                parts.append(f"# made with:\n{textwrap.dedent(inspect.getsource(inner))}")
            except (OSError, TypeError):
                continue
    return "\n".join(parts).rstrip("\n")


SOURCE_LINK = "didax_source"  # a link to the package folder beside the notebooks
_PACKAGE = os.path.dirname(os.path.realpath(didax.__file__))


def source_link(file: str, cwd: str | None = None) -> str:
    """`file`'s path relative to `cwd` (a notebook's folder), for a link to it. A file of
    didax goes through the nearest `didax_source` link to the package in `cwd` or a folder
    above it (demo_notebooks/ has one): the server's root (`jupyter lab demo_notebooks/`) may
    hold the notebook but not the package, and a link outside the root does not open."""
    cwd = os.path.abspath(cwd or os.getcwd())
    real = os.path.realpath(file)
    if real.startswith(_PACKAGE + os.sep):
        folder = cwd
        while True:
            via = os.path.join(folder, SOURCE_LINK)
            if os.path.realpath(via) == _PACKAGE:
                inside = os.path.relpath(real, _PACKAGE)
                return os.path.relpath(os.path.join(via, inside), cwd).replace(os.sep, "/")
            if os.path.dirname(folder) == folder:
                break
            folder = os.path.dirname(folder)
    return os.path.relpath(file, cwd).replace(os.sep, "/")


def rules_report(name: str) -> RulesReport:
    """didax's code for the impl, abstract eval, jvp, transpose, batching and lowering rules
    of the primitive `name` (`sin`, `dot_general`); ValueError for an unknown name."""
    return primitive_rules(find_primitive(name))


def primitive_rules(prim: core.Primitive) -> RulesReport:
    """didax's code for each rule of `prim` (an equation's primitive, as the IR holds it: a
    primitive of the user's own shows its own rules, or none)."""
    found, missing = [], []
    for label, table in RULE_TABLES:
        rule = table._rules.get(prim)
        if rule is None:
            missing.append(label)
            continue
        name = getattr(rule, "__qualname__", repr(rule))
        try:
            file = inspect.getsourcefile(rule) or ""
            lines, line = inspect.getsourcelines(rule)  # once: tokenizing is the cost
            code = _rule_code(rule, lines)
        except (OSError, TypeError):  # a builtin, a partial, a rule typed at a prompt
            found.append(RuleSource(label, name, "", 0, f"# no source for {rule!r}", ""))
            continue
        found.append(RuleSource(label, name, file, line, code, source_link(file)))
    return RulesReport(prim.name, tuple(found), tuple(missing))
