"""Checkers for the build-it-yourself notebook (demo_notebooks/11_build_your_own_jax.ipynb).

The learner writes a tiny engine in autodidax2's design (seed 001): five operations
(`add mul neg sin cos`) that `bind` to the interpreter chosen by context, and interpreters for
evaluation, forward mode, staging, batching, then `linearize` and `transpose` for `grad`.
`verdict(step, namespace)` runs that engine, read from the notebook's namespace, against
didax on inputs the learner does not see, step by step up to `step`, and returns one line:
"✓ ..." or "✗ not yet — step N (name): what is wrong. Likely cause: ...".

A checker must be safe to get wrong: every exception of the learner's code is caught and
named, each call runs under a step and time budget (a `sys.settrace` counter: no signals, so
it works off the main thread and in any kernel), and the namespace's `current_interpreter`
is put back, so that the next cell runs under the interpreter it expects.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

import didax
import didax.numpy as jnp
import numpy as np
from didax import core, test_util
from didax.interpreters.stepping import Pause, step_closed

STEPS = ("eval", "jvp", "stage", "vmap", "linearize", "grad")
OPS = ("add", "mul", "neg", "sin", "cos")
# what each step needs from the notebook, beyond the steps before it
NEEDS = {
    "eval": ("bind", "EvalInterpreter", *OPS),
    "jvp": ("jvp", "DualNumber", "JVPInterpreter"),
    "stage": ("build_jaxpr", "eval_jaxpr", "Var", "StagingInterpreter"),
    "vmap": ("vmap", "BatchInterpreter"),
    "linearize": ("linearize",),
    "grad": ("transpose", "grad"),
}
MAX_STEPS = 5_000_000  # bytecode steps one checked call may run
MAX_SECONDS = 3.0  # and seconds
DIDAX = SimpleNamespace(add=jnp.add, mul=jnp.multiply, neg=jnp.negative, sin=jnp.sin, cos=jnp.cos)
# (name, function of an ops namespace `o` and x): the hidden programs, simplest first; the
# one-op programs name the operation whose rule is wrong
PROGRAMS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("add(x, 1.5)", lambda o, x: o.add(x, 1.5)),
    ("mul(x, 2.5)", lambda o, x: o.mul(x, 2.5)),
    ("neg(x)", lambda o, x: o.neg(x)),
    ("sin(x)", lambda o, x: o.sin(x)),
    ("cos(x)", lambda o, x: o.cos(x)),
    ("mul(x, x)", lambda o, x: o.mul(x, x)),
    ("add(mul(sin(x), x), cos(x))", lambda o, x: o.add(o.mul(o.sin(x), x), o.cos(x))),
    ("neg(sin(cos(mul(x, x))))", lambda o, x: o.neg(o.sin(o.cos(o.mul(x, x))))),
]
CONSTANT = ("sin(2.0), which ignores x", lambda o, x: o.sin(2.0))
HINTS = {
    ("eval", "add"): "EvalInterpreter's add: np.add(x, y)",
    ("eval", "mul"): "EvalInterpreter's mul: np.multiply(x, y)",
    ("eval", "neg"): "EvalInterpreter's neg: np.negative(x)",
    ("eval", "sin"): "EvalInterpreter's sin: np.sin(x)",
    ("eval", "cos"): "EvalInterpreter's cos: np.cos(x)",
    ("jvp", "add"): "the add rule: the tangent of x + y is dx + dy",
    ("jvp", "mul"): "the mul rule: the tangent of x·y is x·dy + dx·y (both terms)",
    ("jvp", "neg"): "the neg rule: the tangent of -x is -dx",
    ("jvp", "sin"): "the sin rule: the tangent of sin x is cos(x)·dx",
    ("jvp", "cos"): "the cos rule: the tangent of cos x is -sin(x)·dx (mind the sign)",
    ("grad", "add"): "transposing add: its cotangent goes, unchanged, to each Var argument",
    ("grad", "mul"): "transposing mul by a constant c: the cotangent times c goes to the Var",
    ("grad", "neg"): "transposing neg: the Var gets -ct",
}
RECURSION = (
    "a rule binds under its own interpreter again: bind inside a rule must run under the "
    "interpreter below, `with set_interpreter(self.prev):`"
)


class OutOfSteps(BaseException):
    """The learner's code ran past the checker's budget of steps or seconds. Not an
    `Exception`, so that a learner's `except Exception:` inside a loop cannot swallow it."""


class NotYet(Exception):
    """What the learner must change, in one message."""


def _bounded(
    fn: Callable[..., Any], *args: Any, max_steps: int = MAX_STEPS, seconds: float = MAX_SECONDS
) -> Any:
    """`fn(*args)` under a budget of bytecode steps and seconds, counted by a trace function
    that raises `OutOfSteps` once past it (on every step after that). Opcodes, not lines: a one-line
    `while True: pass` never starts a new line."""
    steps, deadline = [0], time.monotonic() + seconds

    def trace(frame: Any, event: str, arg: Any) -> Any:
        if event == "call":
            frame.f_trace_opcodes = True
        steps[0] += 1
        if steps[0] > max_steps or (steps[0] % 1000 == 0 and time.monotonic() > deadline):
            raise OutOfSteps(f"{max_steps:,} steps or {seconds:g} s")
        return trace

    old = sys.gettrace()
    sys.settrace(trace)
    try:
        return fn(*args)
    finally:
        sys.settrace(old)


def _num(x: Any) -> Any:
    return np.asarray(x, dtype=np.float64)


def _fmt(x: Any) -> str:
    return np.array2string(np.asarray(x, dtype=np.float64), precision=4, separator=", ")


def _same(got: Any, want: Any) -> bool:
    try:
        g = _num(got)
    except (TypeError, ValueError):
        return False
    return g.shape == np.shape(want) and bool(np.allclose(g, _num(want), rtol=1e-4, atol=1e-5))


def _expect(what: str, got: Any, want: Any, cause: str) -> None:
    if got is None:
        raise NotYet(f"{what} returned None. Likely cause: a body still `...`, or no `return`")
    try:
        shape = _num(got).shape
    except (TypeError, ValueError):
        raise NotYet(
            f"{what} returned {type(got).__name__} {got!r:.60}, not a number. Likely cause: "
            "a value of your engine's own type (a DualNumber, a Var, a BatchedArray) escaped "
            "unwrapped"
        ) from None
    if shape != np.shape(want):
        raise NotYet(f"{what} has shape {shape}, expected {np.shape(want)}. Likely cause: {cause}")
    if not _same(got, want):
        raise NotYet(f"{what} is {_fmt(got)}, expected {_fmt(want)}. Likely cause: {cause}")


def _call(what: str, fn: Callable[..., Any], *args: Any, seconds: float = MAX_SECONDS) -> Any:
    """Run a piece of the learner's engine; any way it fails becomes a `NotYet`."""
    try:
        return _bounded(
            fn, *args, max_steps=int(MAX_STEPS * seconds / MAX_SECONDS), seconds=seconds
        )
    except NotYet:
        raise
    except OutOfSteps as e:
        raise NotYet(
            f"{what} did not finish within {e}. Likely cause: an endless loop, or a rule "
            "that binds under its own interpreter again"
        ) from None
    except NotImplementedError as e:
        raise NotYet(f"{what} reached {_where(e)}, which is not written yet") from None
    except RecursionError:
        raise NotYet(f"{what} recursed without end. Likely cause: {RECURSION}") from None
    except Exception as e:  # noqa: BLE001 - a checker names whatever the learner's code raised
        raise NotYet(f"{what} raised {type(e).__name__}: {e}") from None


def _where(e: BaseException) -> str:
    """The function an exception was raised in (`JVPInterpreter.lift`)."""
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return f"`{tb.tb_frame.f_code.co_qualname}`" if tb is not None else "a stub"


def _op_of(name: str) -> str | None:
    """The operation a one-op program tests, or None for a composite."""
    return name.split("(")[0] if name.count("(") == 1 else None


def _cause(step: str, name: str, default: str) -> str:
    return HINTS.get((step, _op_of(name) or ""), default)


def _on(prog: Callable[[Any, Any], Any], ops: Any) -> Callable[[Any], Any]:
    """The program as a function of x alone, on the learner's operations or didax's."""
    return lambda v: prog(ops, v)


def _inputs(seed: int, shape: tuple[int, ...] = ()) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-2.0, 2.0, shape).round(3)


# --------------------------------------------------------------------------- the steps


def _check_eval(e: SimpleNamespace) -> str:
    for i, (name, prog) in enumerate(PROGRAMS):
        x = float(_inputs(10 + i))
        want = prog(DIDAX, x)
        got = _call(f"{name} at x={x}", prog, e, x)
        _expect(f"{name} at x={x}", got, want, _cause("eval", name, "one of the rules above"))
    xs = _inputs(1, (4,))
    got = _call(f"sin(x) at an array x={_fmt(xs)}", e.sin, xs)
    _expect("sin of an array", got, np.sin(xs), "use NumPy's np.sin, not math.sin, so arrays work")
    return "✓ step 1 (eval): your five operations bind to the evaluating interpreter"


def _jvp_of(e: SimpleNamespace, prog: Callable, x: Any, t: Any) -> Any:
    return e.jvp(_on(prog, e), x, t)


def _pair(what: str, out: Any) -> tuple[Any, Any]:
    if not isinstance(out, tuple) or len(out) != 2:
        raise NotYet(f"{what} returned {out!r:.60}; jvp must return a pair (primal, tangent)")
    return out


def _check_jvp(e: SimpleNamespace) -> str:
    for i, (name, prog) in enumerate([*PROGRAMS, CONSTANT]):
        x, t = float(_inputs(20 + i)), 1.0
        want_y, want_t = didax.jvp(_on(prog, DIDAX), (x,), (t,))
        what = f"jvp({name}) at x={x}"
        y, dy = _pair(what, _call(what, _jvp_of, e, prog, x, t))
        _expect(f"the primal of {what}", y, want_y, "a rule's primal output")
        cause = _cause("jvp", name, "one of the rules above, applied in a composite")
        if name == CONSTANT[0]:
            cause = "an output that is not a DualNumber of this jvp must be lifted (tangent 0)"
        _expect(f"the tangent of {what}", dy, want_t, cause)

    # perturbation confusion: d/dx [x · d/dy (x + y)] at 1 is 1, not 2
    def nested(x: float) -> Any:
        inner = lambda x_: e.jvp(lambda y: e.add(x_, y), 1.0, 1.0)[1]
        return e.jvp(lambda x_: e.mul(x_, inner(x_)), x, 1.0)[1]

    what = "d/dx [x · d/dy (x + y)] at x=1"
    _expect(
        what,
        _call(what, nested, 1.0),
        1.0,
        "perturbation confusion: the inner jvp took the outer DualNumber's tangent as its "
        "own. lift must compare the interpreter (`x.interpreter is self`), not only the type",
    )
    return "✓ step 2 (jvp): dual numbers, tagged by their interpreter: no perturbation confusion"


def _ops_of(e: SimpleNamespace, jaxpr: Any) -> list[str]:
    try:
        return [getattr(eqn.op, "name", str(eqn.op)) for eqn in jaxpr.eqns]
    except (AttributeError, TypeError) as err:
        raise NotYet(f"build_jaxpr's result has no list `eqns` of Equations: {err}") from None


def _check_stage(e: SimpleNamespace) -> str:
    for i, (name, prog) in enumerate(PROGRAMS):
        x = float(_inputs(30 + i))
        what = f"build_jaxpr({name})"
        jaxpr = _call(what, e.build_jaxpr, _on(prog, e), 1)
        if jaxpr is None:
            raise NotYet(f"{what} returned None. Likely cause: a body still `...`")
        theirs = didax.make_jaxpr(_on(prog, DIDAX))(x).jaxpr
        want = [eqn.primitive.name for eqn in theirs.eqns]
        got = _call(what, _ops_of, e, jaxpr)
        if got != want:
            raise NotYet(
                f"{what} has the equations {got}, didax's jaxpr has {want}. Likely cause: "
                "StagingInterpreter must append one Equation per operation with a Var argument"
            )
        value = _call(f"eval_jaxpr({what}, [{x}])", e.eval_jaxpr, jaxpr, [x])
        _expect(
            f"eval_jaxpr({what}, [{x}])",
            value,
            prog(DIDAX, x),
            "eval_jaxpr must bind each equation's op on the values read from its environment",
        )
    jaxpr = _call("build_jaxpr(mul(x, sin(2.0)))", e.build_jaxpr, lambda v: e.mul(v, e.sin(2.0)), 1)
    got = _call("build_jaxpr(mul(x, sin(2.0)))", _ops_of, e, jaxpr)
    if got != ["mul"]:
        raise NotYet(
            f"build_jaxpr(mul(x, sin(2.0))) has the equations {got}, expected ['mul']. Likely "
            "cause: an operation whose arguments are all known (no Var) must be evaluated now, "
            "under the interpreter below, not staged"
        )
    return "✓ step 3 (stage): your jaxprs have didax's equations and evaluate back to f"


def _check_vmap(e: SimpleNamespace) -> str:
    for i, (name, prog) in enumerate([*PROGRAMS, CONSTANT]):
        xs = _inputs(40 + i, (5,))
        what = f"vmap({name}) over x={_fmt(xs)}"
        got = _call(what, e.vmap, _on(prog, e), xs)
        cause = "the batched value must be passed on to the interpreter below"
        if name == CONSTANT[0]:
            cause = "an output that is not batched must be broadcast along the batch axis"
        _expect(what, got, didax.vmap(_on(prog, DIDAX))(xs), cause)
    xs = _inputs(49, (3, 4))
    what = "vmap(sin(x) · x) over 3 rows of 4"
    got = _call(what, e.vmap, lambda v: e.mul(e.sin(v), v), xs)
    _expect(what, got, np.sin(xs) * xs, "the batch axis is axis 0 of the batched value")
    _, prog = PROGRAMS[6]
    xs = _inputs(48, (5,))
    what = f"vmap of jvp({PROGRAMS[6][0]})"
    got = _call(what, e.vmap, lambda v: _jvp_of(e, prog, v, 1.0)[1], xs)
    want = didax.vmap(lambda v: didax.jvp(lambda u: prog(DIDAX, u), (v,), (1.0,))[1])(xs)
    _expect(what, got, want, "jvp's rules must bind under the interpreter below (here vmap's)")
    return "✓ step 4 (vmap): batches like didax.vmap, and composes with your jvp"


def _check_linearize(e: SimpleNamespace) -> str:
    for i, (name, prog) in enumerate(PROGRAMS):
        x, t = float(_inputs(50 + i)), float(_inputs(60 + i))
        what = f"linearize({name}) at x={x}"
        out = _call(what, e.linearize, _on(prog, e), x)
        if not isinstance(out, tuple) or len(out) != 2:
            raise NotYet(f"{what} returned {out!r:.60}; it must return (primal, linear jaxpr)")
        y, lin = out
        want_y, want_t = didax.jvp(_on(prog, DIDAX), (x,), (t,))
        _expect(f"the primal of {what}", y, want_y, "the primal must be computed, not staged")
        for eqn in _call(what, lambda j: list(j.eqns), lin):
            op, args = getattr(eqn.op, "name", str(eqn.op)), list(eqn.args)
            staged = sum(isinstance(a, e.Var) for a in args)
            if op in ("sin", "cos") or (op == "mul" and staged != 1):
                raise NotYet(
                    f"the linear jaxpr of {what} has `{op}` of {staged} Vars: not linear in "
                    "the tangent. Likely cause: primal work leaked in; the staging "
                    "interpreter must evaluate an operation whose arguments are all known"
                )
        got = _call(f"the linear jaxpr of {what}", e.eval_jaxpr, lin, [t])
        cause = "the linear jaxpr's input must be the tangent: a Var passed to jvp as `t`"
        _expect(f"the linear jaxpr of {what} applied to {t}", got, want_t, cause)
    return "✓ step 5 (linearize): jvp + staging leaves a linear program of the tangent"


def _check_grad(e: SimpleNamespace) -> str:
    for i, (name, prog) in enumerate([*PROGRAMS, CONSTANT]):
        x = float(_inputs(70 + i))
        what = f"grad({name}) at x={x}"
        got = _call(what, e.grad, _on(prog, e), x)
        cause = _cause("grad", name, "one of the transpose rules above, in a composite")
        if name == "mul(x, x)":
            cause = "x is used twice: add up the cotangents a Var receives, don't overwrite"
        if name == CONSTANT[0]:
            cause = "a Var that receives no cotangent has cotangent 0"
        _expect(what, got, didax.grad(_on(prog, DIDAX))(x), cause)
    _, prog = PROGRAMS[6]
    xs = _inputs(79, (5,))
    what = f"vmap of grad({PROGRAMS[6][0]})"
    got = _call(what, e.vmap, lambda v: e.grad(lambda u: prog(e, u), v), xs)
    want = didax.vmap(didax.grad(lambda u: prog(DIDAX, u)))(xs)
    _expect(what, got, want, "transpose must bind its ops, so that they batch under vmap")
    return "✓ step 6 (grad): linearize + transpose = grad, and per-example grads under vmap"


CHECKS = {
    "eval": _check_eval,
    "jvp": _check_jvp,
    "stage": _check_stage,
    "vmap": _check_vmap,
    "linearize": _check_linearize,
    "grad": _check_grad,
}


def verdict(step: str, namespace: Mapping[str, Any]) -> str:
    """Check the learner's engine in `namespace` (a notebook's `globals()`) for every step
    up to `step`, in order; the line that says so, or names the first wrong step."""
    if step not in CHECKS:
        raise ValueError(f"course step must be one of {', '.join(STEPS)}; got {step!r}")
    saved = namespace.get("current_interpreter")
    done = ""
    try:
        for number, name in enumerate(STEPS[: STEPS.index(step) + 1], start=1):
            missing = [n for n in NEEDS[name] if n not in namespace]
            if missing:
                return f"✗ not yet — step {number} ({name}): define {', '.join(missing)}"
            engine = SimpleNamespace(
                **{n: namespace[n] for s in STEPS for n in NEEDS[s] if n in namespace}
            )
            try:
                done = CHECKS[name](engine)
            except NotYet as e:
                return f"✗ not yet — step {number} ({name}): {e}"
            except Exception as e:  # noqa: BLE001 - a checker never raises at the learner
                return f"✗ not yet — step {number} ({name}): {type(e).__name__}: {e}"
    finally:
        if isinstance(namespace, dict) and "current_interpreter" in namespace:
            namespace["current_interpreter"] = saved  # what a half-done rule left behind
    return done


def check(step: str, namespace: Mapping[str, Any]) -> None:
    """Print `verdict(step, namespace)`: the notebook's checker cell."""
    print(verdict(step, namespace))


def passes(step: str, namespace: Mapping[str, Any]) -> bool:
    """Whether the engine passes every step up to `step` (the student notebook runs a cell
    that shows the engine at work only once it does)."""
    return verdict(step, namespace).startswith("✓")


class StepLimit(Exception):
    """`run_bounded` stopped a program that ran past its budget of equations."""


def call_bounded(fn: Callable[..., Any], *args: Any, seconds: float = MAX_SECONDS) -> Any:
    """`fn(*args)` for at most `seconds` (and a budget of bytecode steps in proportion): the
    safe way for a checker to run a learner's plain Python function. Raises `StepLimit`
    past it."""
    try:
        return _bounded(
            fn, *args, max_steps=int(MAX_STEPS * seconds / MAX_SECONDS), seconds=seconds
        )
    except OutOfSteps as e:
        raise StepLimit(f"did not finish within {e}") from None


def run_bounded(fn: Callable[..., Any], *args: Any, max_steps: int = 10_000) -> Any:
    """`fn(*args)` evaluated one equation at a time, stepping into loop bodies, for at most
    `max_steps` equations: the safe way for a checker to run a learner's `while_loop`, which
    under `jit` runs inside XLA, where nothing can stop it. Raises `StepLimit` naming the
    loop iteration it had reached, or, for a Python loop that never ends while `fn` is
    traced, the budget of `call_bounded`."""
    closed = call_bounded(didax.make_jaxpr(fn), *args)
    stepping = step_closed(closed, didax.tree_util.tree_leaves(args), "program")
    where, count = "program", 0
    while True:
        try:
            event = next(stepping)
        except StopIteration as done:
            outs = done.value
            return outs[0] if len(outs) == 1 else outs
        if isinstance(event, Pause):
            where, count = event.where, count + 1
            if count > max_steps:
                raise StepLimit(f"did not finish in {max_steps:,} steps (at {where})")


def error_text(e: BaseException, max_lines: int = 6) -> str:
    """An exception as a checker shows it: its type and message, without the lines that say
    where it happened in the engine, and never cut at its first line (a didax message often
    goes on after "The error was:")."""
    lines = [line for line in str(e).splitlines() if line.strip() and "occurred at" not in line]
    more = ["..."] if len(lines) > max_lines else []
    return f"{type(e).__name__}: " + "\n  ".join(lines[:max_lines] + more)


# --------------------------------------------------------------------------- the final project

# demo_notebooks/20_final_project.ipynb: softplus as the learner's own primitive, with every
# rule it needs, in an MLP that trains. (step, what the notebook must define)
PROJECT = {
    "rules": ("softplus_p",),
    "composes": ("softplus",),
    "model": ("init", "predict", "loss"),
    "train": ("train",),
}
PROJECT_RULES = ("impl", "abstract_eval", "jvp", "vmap", "lowering")
TRAIN_SECONDS = 6.0  # a few hundred jitted steps take about 1 s


def _softplus64(x: Any) -> np.ndarray:
    return np.logaddexp(0.0, _num(x))


def _project_rules(ns: Mapping[str, Any]) -> str:
    prim = ns["softplus_p"]
    if not isinstance(prim, core.Primitive):
        raise NotYet(f"softplus_p is a {type(prim).__name__}, not a core.Primitive")
    tables = {name: getattr(core, f"{name}_rules") for name in PROJECT_RULES}
    missing = [name for name, table in tables.items() if prim not in table]
    if missing:
        raise NotYet(f"no {', '.join(missing)} rule registered for softplus_p yet")
    xs = _inputs(90, (2, 3)).astype(np.float32)
    what = "check_rules(softplus_p, x)"
    try:
        checks = _bounded(test_util.check_rules, prim, xs)
    except AssertionError as e:
        raise NotYet(str(e).splitlines()[0] + " " + " ".join(str(e).splitlines()[1:3])) from None
    except OutOfSteps as e:
        raise NotYet(f"{what} did not finish within {e}") from None
    except Exception as e:  # noqa: BLE001 - a checker names whatever the learner's code raised
        raise NotYet(f"{what}: {error_text(e)}") from None
    ran = [c.rule for c in checks]
    _expect("softplus_p.bind(x)", _call("softplus_p.bind(x)", prim.bind, xs),
            _softplus64(xs), "the impl rule computes log(1 + exp(x))")  # fmt: skip
    return f"✓ rules: impl, {', '.join(ran)} agree (check_rules)"


def _project_composes(ns: Mapping[str, Any]) -> str:
    softplus = ns["softplus"]
    xs = _inputs(91, (4, 3)).astype(np.float32)
    sigmoid = 1 / (1 + np.exp(-_num(xs)))
    cases = [
        ("softplus(x)", lambda v: softplus(v), _softplus64(xs)),
        ("jit(softplus)(x)", didax.jit(softplus), _softplus64(xs)),
        ("grad(sum(softplus))(x)", didax.grad(lambda v: jnp.sum(softplus(v))), sigmoid),
        (
            "jit(vmap(grad(softplus)))(x) over rows",
            didax.jit(didax.vmap(didax.grad(lambda v: jnp.sum(softplus(v))))),
            sigmoid,
        ),
        (
            "grad(grad(softplus))(0.5)",
            lambda v: didax.grad(didax.grad(lambda u: softplus(u)))(0.5),
            np.float64(np.exp(-0.5) / (1 + np.exp(-0.5)) ** 2),
        ),
    ]
    for what, fn, want in cases:
        cause = "the jvp rule must use didax ops (jnp.exp, lax.logistic), so it traces"
        if "grad(grad" in what:
            cause = "the jvp rule's tangent must itself be differentiable: bind didax ops"
        _expect(what, _call(what, fn, xs), want, cause)
    return "✓ composes: softplus under jit, grad, vmap and grad of grad"


def _project_model(ns: Mapping[str, Any]) -> str:
    params = _call("init(random.PRNGKey(0), [1, 16, 1])", ns["init"], didax.random.PRNGKey(0),
                   [1, 16, 1])  # fmt: skip
    x = np.linspace(-2, 2, 8, dtype=np.float32).reshape(8, 1)
    out = _call("predict(params, x)", ns["predict"], params, x)
    if np.shape(out) != (8, 1):
        raise NotYet(
            f"predict(params, x) for x: f32[8,1] has shape {np.shape(out)}, expected (8, 1): "
            "one output per example"
        )
    jaxpr = _call("make_jaxpr(loss)", lambda: didax.make_jaxpr(ns["loss"])(params, x, x))
    used = {eqn.primitive.name for eqn in jaxpr.jaxpr.eqns}
    if ns["softplus_p"].name not in str(jaxpr):
        raise NotYet(
            f"the loss's jaxpr has {', '.join(sorted(used))}, no {ns['softplus_p'].name}. "
            "Likely cause: predict uses jnp.tanh (or another activation), not your softplus"
        )
    value = _call("loss(params, x, y)", ns["loss"], params, x, x)
    if np.shape(value) != ():
        raise NotYet(f"loss(params, x, y) has shape {np.shape(value)}; grad needs a scalar")
    return "✓ model: predict and loss run, and the loss's jaxpr uses your primitive"


def _project_train(ns: Mapping[str, Any]) -> str:
    what = "train(random.PRNGKey(0))"
    out = _call(what, ns["train"], didax.random.PRNGKey(0), seconds=TRAIN_SECONDS)
    if not isinstance(out, tuple) or len(out) != 2:
        raise NotYet(f"{what} returned {out!r:.60}; it must return (params, losses)")
    losses = [float(v) for v in out[1]]
    if len(losses) < 2:
        raise NotYet(f"{what} returned {len(losses)} loss values; return one per step")
    if not np.all(np.isfinite(losses)):
        first = next(i for i, v in enumerate(losses) if not np.isfinite(v))
        raise NotYet(f"the loss is {losses[first]} at step {first}. Likely cause: a learning "
                     "rate too large, or softplus overflowing (use logaddexp)")  # fmt: skip
    if not losses[-1] < losses[0] / 4:
        raise NotYet(
            f"the loss went from {losses[0]:.4g} to {losses[-1]:.4g} in {len(losses)} steps, "
            "not below a quarter of where it started. Likely cause: a learning rate too small, "
            "too few steps, or an update that steps uphill (p + lr * g)"
        )
    return f"✓ train: loss {losses[0]:.3f} -> {losses[-1]:.3f} in {len(losses)} steps"


PROJECT_CHECKS = {
    "rules": _project_rules,
    "composes": _project_composes,
    "model": _project_model,
    "train": _project_train,
}


def project_verdict(step: str, namespace: Mapping[str, Any]) -> str:
    """Check the final project in `namespace` up to `step` (rules, composes, model, train):
    the line that says so, or names the first step not done yet."""
    if step not in PROJECT_CHECKS:
        raise ValueError(f"project step must be one of {', '.join(PROJECT)}; got {step!r}")
    done = ""
    for name in list(PROJECT)[: list(PROJECT).index(step) + 1]:
        missing = [n for n in PROJECT[name] if n not in namespace]
        if missing:
            return f"✗ not yet — {name}: define {', '.join(missing)}"
        try:
            done = PROJECT_CHECKS[name](namespace)
        except NotYet as e:
            return f"✗ not yet — {name}: {e}"
        except Exception as e:  # noqa: BLE001 - a checker never raises at the learner
            return f"✗ not yet — {name}: {error_text(e)}"
    return done


def check_project(step: str, namespace: Mapping[str, Any]) -> None:
    """Print `project_verdict(step, namespace)`: the final project's checker cell."""
    print(project_verdict(step, namespace))
