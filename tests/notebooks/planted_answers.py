"""Wrong answers the exercise checkers are tried on (tests/notebooks/test_exercise_checkers.py):
planted in a notebook replayed in this process (`PLANTED_ANSWERS`, `PROJECT_PLANTS`) or run
after a notebook's own cells in its kernel (`BUILD_PLANTS`, `MANY_PLANTS`: `APPENDED`)."""

from __future__ import annotations

from lesson_runs import (
    BUILD_SOLVED,
    MANY,
)

# --------------------------------------------------------------------------- wrong answers

# (notebook, checker, a wrong answer as code that defines `answer`, what the message must
# say): every exercise's checker is safe to get wrong. An endless loop, an exception, a
# wrong value or shape gets a message naming the exercise's step within 10 s, and the
# namespace still works afterwards (the checker runs again on the worked answer).
PLANTED_ANSWERS = [
    (
        "03_forward_mode.ipynb",
        "check",
        "p = new_unary('softplus_np', lambda x: np.log1p(np.exp(x)))\n"
        "core.jvp_rules.register(p)(lambda primals, tangents: (\n"
        "    [p.bind(primals[0])], [tangents[0] / (1.0 + np.exp(-primals[0]))]))\n"
        "run_check = lambda: check(p, np.array([-2.0, 0.0, 3.0]))",
        "✗ not yet — check_rules(softplus_np), the jvp rule on tracers (as under jit): "
        "TracerArrayConversionError",
    ),
    (
        "03_forward_mode.ipynb",
        "check",
        "p = new_unary('cube_raises', lambda x: x ** 3)\n"
        "core.jvp_rules.register(p)(lambda primals, tangents: {}['no rule'])\n"
        "run_check = lambda: check(p, np.array([0.5, 2.0]))",
        "✗ not yet — check_rules(cube_raises): the jvp rule failed for input 0",
    ),
    (
        "04_reverse_mode.ipynb",
        "check_unknowns",
        "def answer(jaxpr, unknown_inputs):\n    while True:\n        pass",
        "✗ not yet — unknown_equations on the jvp of sum(sin(x) * x) did not finish within",
    ),
    (
        "04_reverse_mode.ipynb",
        "check_unknowns",
        "answer = lambda jaxpr, unknown_inputs: [True]",
        "✗ not yet — the jvp of sum(sin(x) * x) has 9 equations, you marked 1",
    ),
    (
        "04_reverse_mode.ipynb",
        "check_unknowns",
        "answer = lambda jaxpr, unknown_inputs: [unknown_inputs[5] for e in jaxpr.eqns]",
        "✗ not yet — unknown_equations on the jvp of sum(sin(x) * x): IndexError",
    ),
    (
        "07_control_flow.ipynb",
        "check_sqrt",
        "def answer(a):\n"
        "    return lax.while_loop(lambda g: jnp.abs(g * g - a) >= 1e-4,\n"
        "                          lambda g: (g - a / g) / 2, a)",
        "✗ not yet — newton_sqrt(2.0) did not finish in 1,000 steps",
    ),
    (
        "07_control_flow.ipynb",
        "check_sqrt",
        "def answer(a):\n    return a / 0 if a is None else [][0]",
        "✗ not yet — newton_sqrt(2.0): IndexError: list index out of range",
    ),
    ("07_control_flow.ipynb", "check_sqrt", "answer = lambda a: a", "newton_sqrt(2.0) = 2.0"),
    (
        "07_control_flow.ipynb",
        "check_sqrt",
        "answer = lambda a: jnp.stack([a, a])",
        "✗ not yet — newton_sqrt(2.0): TypeError",
    ),
    (
        "07_control_flow.ipynb",
        "check_clip",
        "answer = lambda x: x if x > 0.1 else 0.0 * x",
        "✗ not yet — clip_small under jit: TracerBoolConversionError",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_power",
        "answer = didax.jit(lambda x, n: x ** n if n > 1 else x)",
        "✗ not yet — power_jit(x, 5): TracerBoolConversionError",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_power",
        "answer = didax.jit(power, static_argnums=0)",
        "The error was:\n  TypeError: unhashable type",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_one_trace",
        "def answer(x, n):\n"
        "    return lax.while_loop(lambda c: c[0] >= 0, lambda c: (c[0] + 1, c[1] * x),\n"
        "                          (0, jnp.ones_like(x)))[1]",
        "✗ not yet — power_loop(2, 2) did not finish in 1,000 steps",
    ),
    (
        "08_your_own_primitive_and_interpreter.ipynb",
        "check_inverse_exercise",
        "def answer(out, x, *, jaxpr, **params):\n    return [[out]]",
        "✗ not yet — step 1: inverse(jit(f))(f(0.5)): ",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_update",
        "answer = lambda params, grads: didax.tree.map(lambda p, g: p - 3.0 * g, params, grads)",
        "though each step starts downhill: the learning rate is too large",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_update",
        "answer = lambda params, grads: didax.tree.map(lambda p, g: p + 0.01 * g, params, grads)",
        "the update steps along the gradient, uphill",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_update",
        "answer = lambda params, grads: params[0]",
        "✗ not yet — the update changed the structure of the parameters",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_per_example",
        "answer = didax.vmap(didax.grad(loss), in_axes=(0, 0, 0))",
        "✗ not yet — my_per_example(params, xs, ys): ValueError",
    ),
]


# every rule-checking exercise (03, 04, 05) and every checker of 06-09: a rule or a function
# that never returns (each checker runs the learner's code under course.call_bounded, or
# traces it so before stepping it with course.run_bounded), an exception, a wrong shape
def _rule(table: str, name: str, make: str, body: str, args: str) -> str:
    """Plant code: a primitive `name` (made by the notebook's `make`) whose `table` rule runs
    `body`, checked by the notebook's `check` on `args`."""
    signature = {"jvp": "primals, tangents", "transpose": "cts, x, w", "vmap": "n, vals, dims"}
    return (
        f"p = {make.format(name=name)}\n@core.{table}_rules.register(p)\n"
        f"def rule({signature[table]}):\n    {body}\nrun_check = lambda: check(p, {args})"
    )


LOOP = "while True:\n        pass"
CUBE = "new_unary('{name}', lambda x: x ** 3)"
SCALE = "new_primitive('{name}', np.multiply, lambda x, w: x)"
SUM_LAST = "new_primitive('{name}', lambda x: np.sum(x, axis=-1), lambda s: s[:-1])"
TWO = "np.array([0.5, 2.0])"
PLANTED_ANSWERS += [
    (
        "03_forward_mode.ipynb",
        "check",
        _rule("jvp", "cube_loop", CUBE, LOOP, TWO),
        "✗ not yet — check_rules(cube_loop) did not finish within",
    ),
    (
        "03_forward_mode.ipynb",
        "check",
        _rule("jvp", "cube_shape", CUBE, "return [p.bind(primals[0])], [jnp.ones(5)]", TWO),
        "✗ not yet — check_rules(cube_shape): the jvp rule's tangent of output 0 is f32[5]",
    ),
    (
        "03_forward_mode.ipynb",
        "check_energy",
        "core.jvp_rules.register(cube_p, lambda p, t: {}['no rule'], replace=True)\n"
        "run_check = check_energy",
        "✗ not yet — check_grads(energy): KeyError: 'no rule'\n"
        "  Likely cause: cube's jvp rule (exercise 1)",
    ),
    (
        "03_forward_mode.ipynb",
        "check_energy",
        f"def loop(p, t):\n    {LOOP}\n"
        "core.jvp_rules.register(cube_p, loop, replace=True)\nrun_check = check_energy",
        "✗ not yet — check_grads(energy) did not finish within",
    ),
    (
        "04_reverse_mode.ipynb",
        "check",
        _rule("transpose", "scale_loop", SCALE, LOOP, f"{TWO}, {TWO}"),
        "✗ not yet — check_rules(scale_loop) did not finish within",
    ),
    (
        "04_reverse_mode.ipynb",
        "check",
        _rule("transpose", "scale_raises", SCALE, "return {}['no rule']", f"{TWO}, {TWO}"),
        "✗ not yet — check_rules(scale_raises): the transpose rule failed for linear inputs",
    ),
    (
        "04_reverse_mode.ipynb",
        "check",
        _rule("transpose", "scale_shape", SCALE, "return [jnp.ones(5), None]", f"{TWO}, {TWO}"),
        "the cotangent of input 0 has shape (5,), the input has shape (2,)",
    ),
    (
        "05_vmap.ipynb",
        "check",
        _rule("vmap", "sum_loop", SUM_LAST, LOOP, "np.ones((2, 3))"),
        "✗ not yet — check_rules(sum_loop) did not finish within",
    ),
    (
        "05_vmap.ipynb",
        "check",
        _rule("vmap", "sum_raises", SUM_LAST, "return {}['no rule']", "np.ones((2, 3))"),
        "✗ not yet — check_rules(sum_raises): the vmap rule failed for in_axes (0,)",
    ),
    (
        "05_vmap.ipynb",
        "check",
        _rule("vmap", "sum_shape", SUM_LAST, "return [jnp.ones(7)], [0]", "np.ones((2, 3))"),
        "✗ not yet — check_rules(sum_shape): the vmap rule is wrong for in_axes (0,)",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_power",
        f"def answer(x, n):\n    {LOOP}",
        "✗ not yet — power_jit(x, 5) did not finish within",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_one_trace",
        f"def answer(x, n):\n    {LOOP}",  # a Python loop: it never ends while traced
        "✗ not yet — power_loop(2, 2) did not finish within",
    ),
    (
        "07_control_flow.ipynb",
        "check_clip",
        f"def answer(x):\n    {LOOP}",
        "✗ not yet — clip_small under jit did not finish within",
    ),
    (
        "07_control_flow.ipynb",
        "check_sqrt",
        f"def answer(a):\n    {LOOP}",
        "✗ not yet — newton_sqrt(2.0) did not finish within",
    ),
    (
        "08_your_own_primitive_and_interpreter.ipynb",
        "check_inverse_exercise",
        f"def answer(out, x, *, jaxpr, **params):\n    {LOOP}",
        "✗ not yet — step 1: inverse(jit(f))(f(0.5)): StepLimit: did not finish within",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_per_example",
        f"def answer(params, xs, ys):\n    {LOOP}",
        "✗ not yet — my_per_example(params, xs, ys): StepLimit: did not finish within",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_per_example",
        "answer = lambda params, xs, ys: didax.tree.map(lambda g: 2 * g, "
        "didax.vmap(didax.grad(loss), in_axes=(None, 0, 0))(params, xs, ys))",
        "✗ not yet — leaf 0: values differ from a loop of grads by up to",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_update",
        f"def answer(params, grads):\n    {LOOP}",
        "✗ not yet — update(params, grads): StepLimit: did not finish within",
    ),
]


# the kinds the lists above leave out, so that every checker meets a wrong value, a wrong
# shape, an exception and an endless loop (12-16's own lists come after the test)
PLANTED_ANSWERS += [
    (
        "03_forward_mode.ipynb",
        "check",
        _rule("jvp", "cube_value", CUBE, "return [p.bind(primals[0])], [2.0 * tangents[0]]", TWO),
        "✗ not yet — check_rules(cube_value): the jvp rule is wrong for input 0.",
    ),
    (
        "03_forward_mode.ipynb",
        "check_energy",
        "core.jvp_rules.register(cube_p, lambda p, t: ([cube(p[0])], [2.0 * p[0] * t[0]]), "
        "replace=True)\nrun_check = check_energy",
        "✗ not yet — check_grads:\n  Not equal to tolerance",
    ),
    (
        "03_forward_mode.ipynb",
        "check_energy",
        "core.jvp_rules.register(cube_p, lambda p, t: ([cube(p[0])], [jnp.ones(5)]), "
        "replace=True)\nrun_check = check_energy",
        "✗ not yet — check_grads(energy): TypeError: mul got incompatible shapes",
    ),
    (
        "04_reverse_mode.ipynb",
        "check",
        _rule("transpose", "scale_value", SCALE, "return [cts[0], None]", f"{TWO}, {TWO}"),
        "✗ not yet — check_rules(scale_value): the transpose rule is wrong for linear inputs",
    ),
    (
        "04_reverse_mode.ipynb",
        "check_unknowns",
        "answer = lambda jaxpr, unknown_inputs: [False] * len(jaxpr.eqns)",
        "✗ not yet — the jvp of sum(sin(x) * x), equation 2 (mul): you say known",
    ),
    (
        "05_vmap.ipynb",
        "check",
        _rule(
            "vmap",
            "sum_value",
            SUM_LAST,
            "return [jnp.sum(to_front(vals[0], dims[0], n), axis=1)], [0]",
            "np.ones((2, 3)) * np.arange(3.0)",
        ),
        "✗ not yet — check_rules(sum_value): the vmap rule is wrong for in_axes (0,)",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_power",
        "answer = lambda x, n: jnp.ones(3)",
        "✗ not yet — power_jit(x, 5): ValueError: operands could not be broadcast together",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_power",
        "answer = lambda x, n: x",
        "✗ not yet — power_jit(x, 5): AssertionError: power_jit([1, 2], 5) = [1. 2.]",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_one_trace",
        "answer = lambda x, n: 1 / 0",
        "✗ not yet — power_loop(2, 2): ZeroDivisionError",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_one_trace",
        "answer = lambda x, n: jnp.ones(3)",
        "✗ not yet — power_loop(2, 2): AssertionError: power_loop(2, 2) = [1. 1. 1.]",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_one_trace",
        "answer = lambda x, n: x",
        "✗ not yet — power_loop(2, 2): AssertionError: power_loop(2, 2) = [2.], expected 4.0",
    ),
    (
        "07_control_flow.ipynb",
        "check_clip",
        "answer = lambda x: jnp.stack([x, x])",
        "✗ not yet — clip_small under jit: TypeError",
    ),
    (
        "07_control_flow.ipynb",
        "check_clip",
        "answer = lambda x: x",
        "✗ not yet — clip_small under jit: AssertionError: expected [0.0, -0.5, 2.0], got",
    ),
    (
        "08_your_own_primitive_and_interpreter.ipynb",
        "check_inverse_exercise",
        "def answer(out, x, *, jaxpr, **params):\n    return {}['no rule']",
        "✗ not yet — step 1: inverse(jit(f))(f(0.5)): KeyError: 'no rule'",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_per_example",
        "answer = lambda params, xs, ys: didax.grad(loss)(params, xs, ys)",
        "✗ not yet — leaf 0: expected one gradient per example, shape (4, 1, 32), got (1, 32)",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_update",
        "answer = lambda params, grads: 1 / 0",
        "✗ not yet — update(params, grads): ZeroDivisionError: division by zero",
    ),
]


# the new lessons' checkers (12, 14, 15): a wrong value, an exception, an endless loop
PLANTED_ANSWERS += [
    (
        "12_custom_derivatives.ipynb",
        "check_safe_norm",
        "answer = lambda x: jnp.sqrt(jnp.sum(x * x))",
        "✗ not yet — grad at x = 0 is [nan nan nan]: not finite",
    ),
    (
        "12_custom_derivatives.ipynb",
        "check_safe_norm",
        "answer = lambda x: jnp.sum(x)",
        "✗ not yet — grad at x = 0 is [1. 1. 1.], expected zeros",
    ),
    (
        "12_custom_derivatives.ipynb",
        "check_safe_norm",
        "def answer(x):\n    while True:\n        pass",
        "✗ not yet — grad(safe_norm)(zeros) did not finish within",
    ),
    (
        "14_pytrees.ipynb",
        "check_linear",
        "class Linear(Linear):\n    pass",
        "✗ not yet — tree.leaves(layer) has 1 leaf: Linear is not registered yet",
    ),
    (
        "14_pytrees.ipynb",
        "check_linear",
        "class Linear(Linear):\n    pass\n"
        "tree_util.register_pytree_node(Linear, lambda m: ((m.b, m.w), None), "
        "lambda aux, c: Linear(*c))",
        "✗ not yet — grad's w and b are swapped or wrong",
    ),
    (
        "15_finding_nans.ipynb",
        "check_safe",
        "answer = lambda x: jnp.where(x > 0, jnp.sqrt(x), 0.0)",
        "equation 5: mul(0.0, inf) is NaN",
    ),
    (
        "15_finding_nans.ipynb",
        "check_safe",
        "answer = lambda x: x.nope",
        "✗ not yet — safe_sqrt_relu: AttributeError",
    ),
    (
        "15_finding_nans.ipynb",
        "check_safe",
        "def answer(x):\n    while True:\n        pass",
        "✗ not yet — vmap(safe_sqrt_relu) did not finish within",
    ),
]


# 12, 14 and 15: the kinds their lists above leave out
PLANTED_ANSWERS += [
    (
        "12_custom_derivatives.ipynb",
        "check_safe_norm",
        "answer = lambda x: x",
        "✗ not yet — safe_norm: TypeError: Gradient only defined for scalar-output functions.",
    ),
    (
        "12_custom_derivatives.ipynb",
        "check_safe_norm",
        "answer = lambda x: 1 / 0",
        "✗ not yet — safe_norm: ZeroDivisionError",
    ),
    (
        "14_pytrees.ipynb",
        "check_linear",
        "class Linear(Linear):\n    pass\n"
        "tree_util.register_pytree_node(Linear, lambda m: 1 / 0, lambda aux, c: Linear(*c))",
        "✗ not yet — ZeroDivisionError: division by zero",
    ),
    (
        "14_pytrees.ipynb",
        "check_linear",
        "class Linear(Linear):\n    pass\n"
        "def flatten(m):\n    while True:\n        pass\n"
        "tree_util.register_pytree_node(Linear, flatten, lambda aux, c: Linear(*c))",
        "✗ not yet — tree.leaves(layer) did not finish within",
    ),
    (
        "15_finding_nans.ipynb",
        "check_safe",
        "answer = lambda x: jnp.stack([x, x])",
        "✗ not yet — safe_sqrt_relu: ValueError: operands could not be broadcast together",
    ),
]


# lesson 16's policy: saves the wrong values, answers no bool, raises, never returns
PLANTED_ANSWERS += [
    (
        "16_checkpointing.ipynb",
        "check_policy",
        "answer = lambda prim, *avals, **params: False",
        "✗ not yet — it keeps the arguments only; dots_saveable keeps 4 outputs of dot_general",
    ),
    (
        "16_checkpointing.ipynb",
        "check_policy",
        "answer = lambda prim, *avals, **params: True",
        "✗ not yet — it keeps 4 outputs of cos, 3 outputs of sin; dots_saveable keeps 4 outputs",
    ),
    (
        "16_checkpointing.ipynb",
        "check_policy",
        "answer = lambda prim, *avals, **params: None",
        "✗ not yet — save_dots, asked about dot_general: TypeError: a policy answers True or "
        "False; it answered None",
    ),
    (
        "16_checkpointing.ipynb",
        "check_policy",
        "answer = lambda prim, *avals, **params: params['nope']",
        "✗ not yet — save_dots, asked about dot_general: KeyError",
    ),
    (
        "16_checkpointing.ipynb",
        "check_policy",
        "def answer(prim, *avals, **params):\n    while True:\n        pass",
        "✗ not yet — the policy did not finish within",
    ),
]


# (code planted after the worked engine of notebook 11, the step checked, what it must say):
# a wrong value, a wrong shape, an exception and an endless loop, in a real kernel
BUILD_PLANTS = [
    (
        "class Neg(EvalInterpreter):\n"
        "    def interpret_op(self, op, args):\n"
        "        return args[0] if op is Op.neg else super().interpret_op(op, args)\n"
        "current_interpreter = Neg()",
        "eval",
        "✗ not yet — step 1 (eval): neg(x) at x=",
    ),
    (
        "def vmap(f, xs):\n    return f(xs[0])",
        "vmap",
        "✗ not yet — step 4 (vmap): vmap(add(x, 1.5))",
    ),
    ("def linearize(f, x):\n    return 1 / 0", "linearize", "raised ZeroDivisionError"),
    ("def transpose(lin, ct):\n    while True:\n        pass", "grad", "did not finish within"),
]


# notebook 10's checker, in a kernel (the notebook asks for 4 CPU devices before anything
# runs, which a test process that already started didax cannot give): an endless loop, a
# collective over an axis name pmap does not bind, a wrong shape, a wrong value
MANY_PLANTS = [
    (
        "def answer(row):\n    while True:\n        pass",
        "✗ not yet — pmap(global_max) did not finish within",
    ),
    (
        "answer = lambda row: lax.pmax(jnp.max(row), 'j')",
        "✗ not yet — pmap(global_max): NameError: Found an unbound axis name: j.",
    ),
    ("answer = lambda row: row", "✗ not yet — expected one value per device, shape (4,), got"),
    ("answer = lambda row: jnp.max(row)", "✗ not yet — the devices hold"),
]
APPENDED = {
    BUILD_SOLVED: [
        *(
            f"_keep = dict(globals())\n{plant}\ncourse.check({step!r}, globals())\n"
            "globals().update(_keep)"
            for plant, step, _ in BUILD_PLANTS
        ),
        "print(type(current_interpreter).__name__, add(1.0, 2.0))",
    ],
    MANY: [
        *(f"{plant}\ncheck_global_max(answer)" for plant, _ in MANY_PLANTS),
        "check_global_max(lambda row: lax.pmax(jnp.max(row), 'i'))",
    ],
}

# (step checked, a wrong answer planted into the worked project, what the message says)
PROJECT_PLANTS = [
    ("rules", "softplus_p = core.Primitive('softplus_bare')", "✗ not yet — rules: no impl, "),
    (
        "rules",
        "core.jvp_rules.register(softplus_p, lambda p, t: ([softplus(p[0])], [t[0]]), "
        "replace=True)",
        "✗ not yet — rules: check_rules(softplus): the jvp rule is wrong for input 0.",
    ),
    (
        "rules",
        "core.vmap_rules.register(softplus_p, lambda n, v, d: ([softplus(v[0])], [5]), "
        "replace=True)",
        "✗ not yet — rules: check_rules(softplus): the vmap rule",
    ),
    (
        "composes",
        "core.jvp_rules.register(softplus_p, lambda p, t: ([softplus(p[0])], "
        "[t[0] / (1 + np.exp(-np.asarray(p[0])))]), replace=True)",
        "✗ not yet — ",
    ),
    (
        "model",
        "def predict(params, x):\n    for w, b in params[:-1]:\n        x = jnp.tanh(x @ w + b)\n"
        "    w, b = params[-1]\n    return x @ w + b",
        "no softplus. Likely cause: predict uses jnp.tanh",
    ),
    ("model", "predict = lambda params, x: x[:, 0]", "has shape (8,), expected (8, 1)"),
    ("train", "train = lambda key: (None, [1.0, 0.9])", "not below a quarter"),
    ("train", "train = lambda key: (None, [1.0, float('nan')])", "the loss is nan at step 1"),
    ("train", "train = lambda key: 1 / 0", "ZeroDivisionError"),
    ("train", "def train(key):\n    while True:\n        pass", "did not finish within"),
]
