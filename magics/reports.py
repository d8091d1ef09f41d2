"""What each magic computes, as plain data: `jaxpr_report`, `grad_report`, `vmap_report` and
`jit_report` return frozen dataclasses (values, jaxprs, timings), like IPython's `TimeitResult`.

Layer 6: uses didax's public API (plus `didax.core` for avals and `didax.jaxpr` for variable
names) and imports nothing from IPython, so the reports can be built and tested anywhere;
`magics.py` is the IPython glue and `display.py` turns a report into text and HTML. `%jit`
times calls the way `%timeit` does: an automatic loop count (the smallest power of ten that
takes at least 0.2 s), best of `repeat` runs, the garbage collector off while timing, and
every call blocks until its result is ready.
"""

from __future__ import annotations

import functools
import gc
import importlib
import inspect
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import didax
import didax.numpy as jnp
import numpy as np
from didax import core, tree_util
from didax.jaxpr import literal_text, var_name_in
from didax.sharding import NamedSharding
from didax.widgets import model as widget_model

# ----------------------------------------------------------------------------- helpers


class _RichDisplay:
    """A report's rich display: its didax.widgets view, with text/plain and text/html
    fallbacks (display.py builds it). Imported when IPython asks, as ClosedJaxpr's view is,
    so that this module stays free of IPython and ipywidgets."""

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        display = importlib.import_module("didax.magics.display")
        return display.view_for(self)._repr_mimebundle_(include=include, exclude=exclude)


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
    name = getattr(fn, "__name__", None)
    if isinstance(name, str):
        return name
    inner = getattr(fn, "func", None)  # functools.partial
    if inner is not None:
        return fn_name(inner)
    return type(fn).__name__


def arg_names(fn: Callable[..., Any], n: int) -> list[str]:
    """The names of the first `n` positional parameters of `fn` (`args[i]` where unknown)."""
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


def leaf_paths(tree: Any) -> list[tuple[str, Any]]:
    """Each leaf of a pytree with its path: `""`, `"[0]"`, `"['w']"`, `"[1]['b']"`."""
    leaves, treedef = tree_util.tree_flatten(tree)
    paths: list[str] = []

    def walk(node: tree_util.PyTreeDef, prefix: str) -> None:
        if node.node is None:
            paths.append(prefix)
            return
        keys = node.aux if node.node is dict else range(len(node.children))
        for key, child in zip(keys, node.children, strict=True):
            walk(child, f"{prefix}[{key!r}]")

    walk(treedef, "")
    return list(zip(paths, leaves, strict=True))


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


def type_str(x: Any) -> str:
    """`f32[3]`: the type of an array-like value, as jaxprs print it."""
    return core.get_aval(x).str_short()


def block_until_ready(tree: Any) -> Any:
    """Wait for every array of a pytree (a compiled call's result may still be computing)."""
    for leaf in tree_util.tree_leaves(tree):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
    return tree


def _input_labels(fn: Callable[..., Any], args: Sequence[Any], kwargs: dict) -> list[str]:
    # in the order make_jaxpr flattens them: positional leaves, then keyword leaves by key
    labels = []
    for name, arg in zip(arg_names(fn, len(args)), args, strict=True):
        labels += [name + path for path, _ in leaf_paths(arg)]
    for key in sorted(kwargs):
        labels += [key + path for path, _ in leaf_paths(kwargs[key])]
    return labels


def _bindings(
    closed: didax.ClosedJaxpr, atoms: Sequence[Any], labels: Sequence[str]
) -> tuple[Binding, ...]:
    out = []
    for atom, label in zip(atoms, labels, strict=True):
        if hasattr(atom, "val"):  # a Literal output (a function returning a constant)
            out.append(Binding(literal_text(atom.val), atom.aval.str_short(), label))
        else:
            out.append(Binding(var_name_in(closed.jaxpr, atom), atom.aval.str_short(), label))
    return tuple(out)


def _out_labels(out_tree: tree_util.PyTreeDef) -> list[str]:
    fake = tree_util.tree_unflatten(out_tree, range(out_tree.num_leaves))
    return ["out" + path for path, _ in leaf_paths(fake)]


# ----------------------------------------------------------------------------- %jaxpr


@dataclass(frozen=True, eq=False)
class JaxprReport(_RichDisplay):
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
        inputs=_bindings(closed, jaxpr.invars, _input_labels(fn, args, kwargs)),
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


@dataclass(frozen=True, eq=False)
class GradReport(_RichDisplay):
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
    names = arg_names(fn, len(args))
    report_programs = None
    if programs:
        report_programs = _grad_programs(fn, fn_k, args, kwargs or {}, nums, value)
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
    fn_k: Callable[..., Any],
    args: tuple,
    kwargs: dict,
    nums: tuple[int, ...],
    value: Any,
) -> GradPrograms:
    __tracebackhide__ = True

    def of_diff_args(*diff: Any) -> Any:  # fn as a function of the differentiated arguments
        __tracebackhide__ = True
        full = list(args)
        for i, x in zip(nums, diff, strict=True):
            full[i] = x
        return fn_k(*full)

    primals = [args[i] for i in nums]
    tangents = tree_util.tree_map(_zeros_like_tangent, primals)
    forward = didax.make_jaxpr(fn)(*args, **kwargs)
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
    return GradPrograms(forward, linearized, transposed, jvp)


def _literal_texts(closed: didax.ClosedJaxpr) -> set[str]:
    # the literals the user's program itself holds (3.0 in `x * 3.0`), at any depth
    out: set[str] = set()

    def walk(j: Any) -> None:
        for e in j.eqns:
            out.update(literal_text(a.val) for a in e.invars if hasattr(a, "val"))
            for v in e.params.values():
                for x in v if isinstance(v, tuple) else (v,):
                    if hasattr(getattr(x, "jaxpr", x), "eqns"):
                        walk(getattr(x, "jaxpr", x))

    walk(closed.jaxpr)
    return out


def residuals_as_constants(closed: didax.ClosedJaxpr, keep: set[str]) -> didax.ClosedJaxpr:
    """The linearized (or transposed) program with its scalar residuals, which tracing
    inlines as literals (`mul a 0.8775825500488281`), turned into named constants with
    their values, as array residuals are; literals of the user's own program stay."""
    j = closed.jaxpr
    var_type = type(j.invars[0]) if j.invars else None
    if var_type is None:
        return closed
    new_vars: dict[int, Any] = {}
    consts: list[Any] = []
    eqns = []
    for e in j.eqns:
        ins = []
        for a in e.invars:
            if hasattr(a, "val") and literal_text(a.val) not in keep:
                if id(a) not in new_vars:
                    new_vars[id(a)] = var_type(a.aval)
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
class VmapReport(_RichDisplay):
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


# ----------------------------------------------------------------------------- %jit


def format_time(seconds: float, precision: int = 3) -> str:
    """`1.23 ms`: a duration as IPython's `%timeit` writes it."""
    if seconds >= 60.0:
        minutes, secs = divmod(seconds, 60.0)
        return f"{int(minutes)}min {secs:.{precision}g} s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        text = f"{seconds / scale:.{precision}g}"  # rounded first: 0.9999 µs is "1 µs"
        if float(text) >= 1 or unit == "ns":
            return f"{text} {unit}"
    raise AssertionError("unreachable: the loop ends at ns")


@dataclass(frozen=True)
class TimeitStats:
    """Repeated timings of one call, as `%timeit` takes them: `runs` holds the time per
    loop (seconds) of each of `repeat` runs of `loops` calls."""

    loops: int
    repeat: int
    runs: tuple[float, ...]

    @property
    def best(self) -> float:
        return min(self.runs)

    @property
    def worst(self) -> float:
        return max(self.runs)

    @property
    def mean(self) -> float:
        return math.fsum(self.runs) / len(self.runs)

    @property
    def stdev(self) -> float:
        mean = self.mean
        return (math.fsum((t - mean) ** 2 for t in self.runs) / len(self.runs)) ** 0.5

    @property
    def warning(self) -> str | None:
        """IPython's `%timeit` warning when the slowest run is over 4x the fastest."""
        if self.worst > 4 * self.best and self.best > 0 and self.worst > 1e-6:
            return (
                f"The slowest run took {self.worst / self.best:0.2f} times longer than the "
                "fastest. This could mean that an intermediate result is being cached."
            )
        return None

    def __str__(self) -> str:
        runs, loops = self.repeat, self.loops
        return (
            f"{format_time(self.mean)} ± {format_time(self.stdev)} per loop (mean ± std. "
            f"dev. of {runs} run{'s' if runs != 1 else ''}, {loops:,} "
            f"loop{'s' if loops != 1 else ''} each)"
        )


Progress = Callable[[int, int], None]  # (runs done, runs planned)


def timeit_stats(
    call: Callable[[], Any],
    number: int = 0,
    repeat: int = 7,
    timer: Callable[[], float] = time.perf_counter,
    *,
    budget: float | None = None,
    first: float | None = None,
    progress: Progress | None = None,
) -> TimeitStats:
    """Time `call()` (blocking on its result) as `%timeit` does; `number=0` picks the loop
    count: the smallest power of ten whose loop takes at least 0.2 s. With a `budget`
    (seconds), the runs stop short of `repeat` so that the timing stays within it, and the
    loop search stops at one call when that call alone would exceed the budget; there is
    always at least one run. `first`: the time of one call already made (it then counts as
    the first run when a run is a single call)."""
    __tracebackhide__ = True
    if number < 0 or repeat < 1:
        raise ValueError(f"need number >= 0 and repeat >= 1, got {number} and {repeat}")

    def run(n: int) -> float:
        __tracebackhide__ = True
        gc_was_enabled = gc.isenabled()
        gc.disable()  # as timeit does: a collection in one run would skew it
        try:
            start = timer()
            for _ in range(n):
                block_until_ready(call())
            return timer() - start
        finally:
            if gc_was_enabled:
                gc.enable()

    runs: list[float] = []
    if number == 0:
        for index in range(10):
            number = 10**index
            t = first if (number == 1 and first is not None) else run(number)
            if t >= 0.2 or (budget is not None and t * 10 > budget):
                if budget is not None:
                    runs.append(t)  # within a budget, the last probe is the first run
                break
    elif number == 1 and first is not None:
        runs.append(first)
    planned = repeat
    if budget is not None:
        if not runs:
            runs.append(run(number))  # a run of `number` calls, kept as the first run
        if runs[0] > 0:
            planned = min(repeat, max(1, int(budget // runs[0])))
    while len(runs) < planned:
        if progress is not None:
            progress(len(runs), planned)
        runs.append(run(number))
    if progress is not None:
        progress(len(runs), planned)
    return TimeitStats(number, len(runs), tuple(r / number for r in runs))


@dataclass(frozen=True)
class JitTimings:
    """Where the time of a compiled call goes (seconds), against eager evaluation.
    `trace` is None when tracing and lowering could not be timed apart."""

    trace: float | None
    lower: float
    compile: float
    first_run: float
    steady: TimeitStats  # calls of the jitted function once compiled
    eager: TimeitStats  # the same call without jit
    startup: float | None = None  # the compiler's one-time start-up in this process
    budget: float | None = None  # the time budget the runs were chosen for (None: none)

    @property
    def speedup(self) -> float:
        """Best eager time over best compiled time."""
        return self.eager.best / self.steady.best if self.steady.best > 0 else math.inf

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(
            f"{what}: {stats.warning}"
            for what, stats in (("steady state", self.steady), ("eager", self.eager))
            if stats.warning
        )


@dataclass(frozen=True)
class ShardRow:
    """One input or output of a partitioned program: its global type, how its dimensions
    split over the mesh, and the block each device holds."""

    label: str  # `x`, `out['w']`
    type: str  # f32[8,2]
    spec: str  # P('b',), or P() for a value every device holds whole
    shard: str  # f32[2,2]: each device's block


@dataclass(frozen=True)
class Partitioning:
    """How XLA's SPMD partitioner laid a jitted program out over several devices."""

    meshes: tuple[str, ...]  # `b=4 (4 devices)`
    inputs: tuple[ShardRow, ...]
    outputs: tuple[ShardRow, ...]


def _shard_rows(labels: Sequence[str], values: Any, shardings: Any) -> tuple[ShardRow, ...]:
    rows = []
    leaves = tree_util.tree_leaves(values)
    for label, x, s in zip(labels, leaves, tree_util.tree_leaves(shardings), strict=True):
        aval = core.get_aval(x)
        shard = aval.update(shape=s.shard_shape(aval.shape)).str_short()
        spec = repr(s.spec) + (" (replicated)" if s.is_fully_replicated else "")
        rows.append(ShardRow(label, aval.str_short(), spec, shard))
    return tuple(rows)


def partitioning(
    compiled: Any, labels: Sequence[str], args: Sequence[Any], result: Any
) -> Partitioning | None:
    """The layout of a compiled program over its mesh (None when it runs on one device):
    each argument's and output's split and per-device block, from the program's own
    `input_shardings`/`output_shardings` (those given to jit, the arguments', or XLA's)."""
    in_shardings, _ = compiled.input_shardings
    out_shardings = compiled.output_shardings
    named = [
        s
        for s in (*tree_util.tree_leaves(in_shardings), *tree_util.tree_leaves(out_shardings))
        if isinstance(s, NamedSharding)
    ]
    if not named:
        return None
    meshes = tuple(dict.fromkeys(widget_model.mesh_text(s.mesh) for s in named))
    out_labels = [label for label, _ in leaf_paths(out_shardings)]
    return Partitioning(
        meshes,
        _shard_rows(labels, args, in_shardings),
        _shard_rows(["out" + label for label in out_labels], result, out_shardings),
    )


@dataclass(frozen=True, eq=False, repr=False)
class JitReport(_RichDisplay):
    """`%jit`: the compiled call's result, its timings, StableHLO, optimized HLO and cost."""

    call: str
    fn_name: str
    result: Any
    timings: JitTimings
    stablehlo: str
    hlo: str
    cost: dict[str, float] | None
    jaxpr: didax.ClosedJaxpr | None = None  # the program jit lowered (for the cost join)
    partitioning: Partitioning | None = None  # over several devices: how XLA split it

    def __repr__(self) -> str:  # short, like IPython's <TimeitResult : ...>
        t = self.timings
        return (
            f"<JitReport {self.call}: compiled {format_time(t.steady.best)}, eager "
            f"{format_time(t.eager.best)} (best of {t.steady.repeat}), speed-up "
            f"{t.speedup:.1f}x>"
        )


def _timed(timer: Callable[[], float], fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    __tracebackhide__ = True
    start = timer()
    out = block_until_ready(fn(*args))
    return out, timer() - start


DEFAULT_BUDGET = 4.0  # seconds of timing runs beyond the first calls (`%jit --budget`)
_compiler_started = [False]


def compiler_startup(timer: Callable[[], float] = time.perf_counter) -> float | None:
    """The one-time start-up of the compiler in this process (loading jaxlib, the first
    MLIR context and PJRT client), measured by compiling a one-operation program; None once
    it has been paid, so a program's own lowering is not charged for it."""
    if _compiler_started[0]:
        return None
    start = timer()
    didax.jit(jnp.negative).lower(np.zeros((), np.float32)).compile()
    _compiler_started[0] = True
    return timer() - start


JitProgress = Callable[[str, int, int], None]  # (what, runs done, runs planned)


def jit_report(
    fn: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict | None = None,
    *,
    number: int = 0,
    repeat: int = 7,
    budget: float | None = DEFAULT_BUDGET,
    call: str = "",
    timer: Callable[[], float] = time.perf_counter,
    progress: JitProgress | None = None,
) -> JitReport:
    """Compile `fn` with `didax.jit` ahead of time, phase by phase (the compiler's start-up
    in a fresh process, trace, lower, compile, first run of the compiled executable), then
    time calls of the jitted function and eager calls as `%timeit` does, within `budget`
    seconds (half each; None: no limit) and never fewer than one run of each. Keyword
    arguments that could be passed by position are; the keyword-only ones are closed over
    (compiled in as constants)."""
    __tracebackhide__ = True
    args, kwargs = positional(fn, tuple(args), dict(kwargs or {}))
    fn_k = functools.partial(fn, **kwargs) if kwargs else fn
    jitted = didax.jit(fn_k)
    t_startup = compiler_startup(timer)
    lowered, t_lower = _timed(timer, jitted.lower, *args)
    phases = getattr(lowered, "timings", {})  # didax times trace and lower apart
    t_trace, t_lower = phases.get("trace"), phases.get("lower", t_lower)
    compiled, t_compile = _timed(timer, lowered.compile)
    result, t_first = _timed(timer, compiled, *args)
    # one call of each first: it warms jit's fast dispatch path, and it is the first probe
    # of the loop count (or the only run, when one call is most of the budget)
    _, s_first = _timed(timer, jitted, *args)
    _, e_first = _timed(timer, fn_k, *args)
    half = budget / 2 if budget else None

    def reporter(what: str) -> Progress | None:
        return None if progress is None else (lambda done, total: progress(what, done, total))

    steady = timeit_stats(
        functools.partial(jitted, *args),
        number,
        repeat,
        timer,
        budget=half,
        first=s_first,
        progress=reporter("compiled"),
    )
    eager = timeit_stats(
        functools.partial(fn_k, *args),
        number,
        repeat,
        timer,
        budget=half,
        first=e_first,
        progress=reporter("eager"),
    )
    cost = compiled.cost_analysis()
    return JitReport(
        call=call or f"{fn_name(fn)}(...)",
        fn_name=fn_name(fn),
        result=result,
        timings=JitTimings(
            t_trace, t_lower, t_compile, t_first, steady, eager, t_startup, budget or None
        ),
        stablehlo=lowered.as_text(),
        hlo=compiled.as_text(),
        cost=dict(cost) if cost else None,
        jaxpr=didax.make_jaxpr(fn_k)(*args),
        partitioning=partitioning(compiled, _input_labels(fn, args, {}), args, result),
    )
