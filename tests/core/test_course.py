"""didax.course, the checkers of the build-it-yourself notebook: the worked engine passes
every step, and a wrong answer planted in any step (a wrong value, a wrong shape, an
exception, an endless loop, a stub) gets a message naming that step, within 10 s, with the
notebook's `current_interpreter` put back."""

from __future__ import annotations

import contextlib
import io
import re
import time
from pathlib import Path
from typing import Any

import didax
import didax.numpy as jnp
import nbformat
import pytest
from didax import course, lax

SOLUTION = Path(__file__).parents[2] / "demo_notebooks" / "solutions" / "11_solutions.ipynb"


def engine() -> dict[str, Any]:
    """The worked solution's engine: its code cells run here, checker calls left out."""
    ns: dict[str, Any] = {"__name__": "__notebook__"}
    for cell in nbformat.read(SOLUTION, as_version=4).cells:
        if cell.cell_type == "code":
            source = re.sub(r"^course\.check\(.*$", "", cell.source, flags=re.MULTILINE)
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(source, "<11_solutions cell>", "exec"), ns)  # noqa: S102
    return ns


def test_the_worked_engine_passes_every_step() -> None:
    ns = engine()
    for number, step in enumerate(course.STEPS, start=1):
        assert course.verdict(step, ns).startswith(f"✓ step {number} ({step})")


EVAL_WITH = """
class EvalInterpreter(Interpreter):
    def interpret_op(self, op, args):
        {body}
current_interpreter = EvalInterpreter()
"""
RULES = "{Op.add: np.add, Op.mul: np.multiply, Op.neg: np.negative, Op.sin: np.sin, Op.cos: np.cos}"

# (step checked, code that plants the wrong answer in the engine, what the message must say)
PLANTED = [
    # step 1: eval
    ("eval", "def bind(op, *args):\n    ...", "add(x, 1.5) at x=1.824 returned None"),
    (
        "eval",
        EVAL_WITH.format(
            body=f"return {RULES.replace('Op.sin: np.sin', 'Op.sin: np.cos')}[op](*args)"
        ),
        "sin(x) at x=",
    ),
    ("eval", EVAL_WITH.format(body=f"return np.array([{RULES}[op](*args)])"), "has shape (1,)"),
    ("eval", EVAL_WITH.format(body="raise KeyError(op)"), "raised KeyError: <Op.add: 'add'>"),
    ("eval", EVAL_WITH.format(body="while True: pass"), "did not finish within"),
    (
        "eval",
        EVAL_WITH.format(
            body="while True:\n            try:\n                pass\n"
            "            except Exception:\n                pass"
        ),
        "did not finish within",
    ),
    (
        "eval",
        EVAL_WITH.format(body="raise NotImplementedError"),
        "reached `EvalInterpreter.interpret_op`, which is not written yet",
    ),
    (
        "eval",
        EVAL_WITH.format(body="import math; return getattr(math, op.name)(*args)"),
        "step 1 (eval): add(x, 1.5) at x=1.824 raised AttributeError",
    ),
    # step 2: jvp
    (
        "jvp",
        "class Bad(JVPInterpreter):\n"
        "    def interpret_op(self, op, args):\n"
        "        out = super().interpret_op(op, args)\n"
        "        if op is Op.cos:\n"
        "            with set_interpreter(self.prev):\n"
        "                out.tangent = neg(out.tangent)\n"
        "        return out\n"
        "def jvp(f, x, t, JVP=Bad):\n"
        "    i = JVP(current_interpreter)\n"
        "    with set_interpreter(i):\n"
        "        out = i.lift(f(DualNumber(x, t, i)))\n"
        "    return out.primal, out.tangent\n",
        "the cos rule",
    ),
    (
        "jvp",
        "JVPInterpreter.lift = lambda self, x: x if isinstance(x, DualNumber) "
        "else DualNumber(x, 0.0, self)",
        "perturbation confusion",
    ),
    ("jvp", "def jvp(f, x, t):\n    return f(x), [t]", "has shape (1,), expected ()"),
    ("jvp", "def jvp(f, x, t):\n    return f(x)", "jvp must return a pair (primal, tangent)"),
    (
        "jvp",
        "class Loop(JVPInterpreter):\n"
        "    def interpret_op(self, op, args):\n"
        "        return bind(op, *args)\n"  # binds under itself: recursion
        "def jvp(f, x, t):\n"
        "    i = Loop(current_interpreter)\n"
        "    with set_interpreter(i):\n"
        "        return f(DualNumber(x, t, i)), t\n",
        "recursed without end",
    ),
    ("jvp", "def jvp(f, x, t):\n    while True:\n        pass", "did not finish within"),
    ("jvp", "del DualNumber", "step 2 (jvp): define DualNumber"),
    # step 3: stage
    (
        "stage",
        "class StagingInterpreter(Interpreter):\n"
        "    def __init__(self, prev):\n"
        "        self.prev, self.eqns = prev, []\n"
        "    def interpret_op(self, op, args):\n"
        "        var = Var()\n"
        "        self.eqns.append(Equation(var, op, args))\n"
        "        return var\n",
        "must be evaluated now",
    ),
    (
        "stage",
        "def eval_jaxpr(jaxpr, args):\n    return args[0]",
        "eval_jaxpr(build_jaxpr(add(x, 1.5))",
    ),
    (
        "stage",
        "def eval_jaxpr(jaxpr, args):\n    raise ValueError('no env')",
        "raised ValueError: no env",
    ),
    ("stage", "def build_jaxpr(f, n):\n    return 3.0", "no list `eqns` of Equations"),
    (
        "stage",
        "def eval_jaxpr(jaxpr, args):\n    while True:\n        pass",
        "did not finish within",
    ),
    # step 4: vmap
    (
        "vmap",
        "def vmap(f, xs):\n"
        "    i = BatchInterpreter(current_interpreter)\n"
        "    with set_interpreter(i):\n"
        "        out = f(BatchedArray(xs, i))\n"
        "    return out.val if isinstance(out, BatchedArray) else out\n",
        "must be broadcast along the batch axis",
    ),
    ("vmap", "def vmap(f, xs):\n    return f(xs[0])", "has shape ()"),
    ("vmap", "def vmap(f, xs):\n    return [f(x) for x in xs] + [0.0]", "has shape (6,)"),
    ("vmap", "def vmap(f, xs):\n    raise IndexError('batch')", "raised IndexError: batch"),
    ("vmap", "def vmap(f, xs):\n    while True:\n        pass", "did not finish within"),
    ("vmap", "def vmap(f, xs):\n    return BatchedArray(xs, None)", "not a number"),
    # step 5: linearize
    (
        "linearize",
        "def linearize(f, x):\n    return f(x), build_jaxpr(lambda v: jvp(f, v, 1.0)[1], 1)\n",
        "must be the tangent",
    ),
    (
        "linearize",
        "class NoFold(StagingInterpreter):\n"
        "    def interpret_op(self, op, args):\n"
        "        var = Var()\n"
        "        self.eqns.append(Equation(var, op, args))\n"
        "        return var\n"
        "def linearize(f, x):\n"
        "    s, t = NoFold(current_interpreter), Var()\n"
        "    with set_interpreter(s):\n"
        "        y, t_out = jvp(f, x, t)\n"
        "    return y, Jaxpr([t], s.eqns, t_out)\n",
        "the primal of linearize(add(x, 1.5))",
    ),
    ("linearize", "def linearize(f, x):\n    return f(x)", "must return (primal, linear jaxpr)"),
    ("linearize", "def linearize(f, x):\n    1 / 0", "raised ZeroDivisionError"),
    ("linearize", "def linearize(f, x):\n    while True:\n        pass", "did not finish within"),
    # step 6: grad
    (
        "grad",
        "_transpose = transpose\n"
        "def transpose(lin, ct):\n"
        "    for eqn in lin.eqns:\n"  # keep only the first use of each Var: overwrite
        "        pass\n"
        "    cts = {}\n"
        "    def give(a, c):\n"
        "        if isinstance(a, Var):\n"
        "            cts[a] = c\n"
        "    give(lin.return_val, ct)\n"
        "    for eqn in reversed(lin.eqns):\n"
        "        c = cts.pop(eqn.var, 0.0)\n"
        "        if eqn.op is Op.add:\n"
        "            for a in eqn.args: give(a, c)\n"
        "        elif eqn.op is Op.neg:\n"
        "            give(eqn.args[0], neg(c))\n"
        "        else:\n"
        "            x, y = eqn.args\n"
        "            v, k = (x, y) if isinstance(x, Var) else (y, x)\n"
        "            give(v, mul(c, k))\n"
        "    return [cts.get(p, 0.0) for p in lin.params]\n",
        "add up the cotangents",
    ),
    ("grad", "def grad(f, x):\n    return [1.0]", "has shape (1,)"),
    ("grad", "def transpose(lin, ct):\n    raise TypeError('ct')", "raised TypeError: ct"),
    ("grad", "def transpose(lin, ct):\n    while True:\n        pass", "did not finish within"),
    ("grad", "def grad(f, x):\n    ...", "returned None"),
]


@pytest.mark.parametrize(("step", "plant", "message"), PLANTED)
def test_a_planted_wrong_answer_gets_a_message_naming_its_step(
    step: str, plant: str, message: str
) -> None:
    ns = engine()
    saved = ns["current_interpreter"]
    exec(compile(plant, "<planted>", "exec"), ns)  # noqa: S102 - the test's own code
    if step == "eval":
        saved = ns["current_interpreter"]
    start = time.monotonic()
    said = course.verdict(step, ns)
    assert time.monotonic() - start < 10.0, said
    number = course.STEPS.index(step) + 1
    assert said.startswith(f"✗ not yet — step {number} ({step}): "), said
    assert message in said, said
    assert ns["current_interpreter"] is saved  # the next cell runs under the same interpreter


def test_a_later_check_names_the_first_wrong_step() -> None:
    ns = engine()
    exec(
        "JVPInterpreter.lift = lambda self, x: x if isinstance(x, DualNumber) else DualNumber(x, 0.0, self)",
        ns,
    )  # noqa: S102, E501
    assert course.verdict("grad", ns).startswith("✗ not yet — step 2 (jvp): ")
    assert not course.passes("grad", ns)


def test_an_unknown_step_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="course step must be one of eval, jvp"):
        course.verdict("hessian", {})


def test_run_bounded_runs_a_loop_that_ends_and_stops_one_that_does_not() -> None:
    def newton(a: Any, sign: float) -> Any:
        body = lambda g: (g + sign * a / g) / 2
        return lax.while_loop(lambda g: jnp.abs(g * g - a) >= 1e-4, body, a)

    got = course.run_bounded(lambda a: newton(a, 1.0), 2.0)
    assert float(got) == float(didax.jit(lambda a: newton(a, 1.0))(2.0))
    start = time.monotonic()
    with pytest.raises(
        course.StepLimit,
        match=r"did not finish in 1,000 steps \(at program > while iteration \d+\)",
    ):
        course.run_bounded(lambda a: newton(a, -1.0), 2.0, max_steps=1000)
    assert time.monotonic() - start < 10.0

    def python_loop(a: Any) -> Any:  # never ends while being traced, before any equation
        while True:
            a = a + 1.0

    start = time.monotonic()
    with pytest.raises(course.StepLimit, match=r"did not finish within 5,000,000 steps or 3 s"):
        course.run_bounded(python_loop, 2.0)
    assert time.monotonic() - start < 10.0


def test_error_text_keeps_the_whole_reason_and_drops_where() -> None:
    e = ValueError(
        "could not hash it. The error was:\nTypeError: unhashable\nThe error occurred at x.py:3"
    )
    assert (
        course.error_text(e)
        == "ValueError: could not hash it. The error was:\n  TypeError: unhashable"
    )
