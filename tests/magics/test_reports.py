"""The reports behind the magics, built without IPython: values, jaxprs, bindings, timings."""

from __future__ import annotations

import subprocess
import sys

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import api_util
from didax.display import compiled, parts
from didax.magics import reports, timing


def f(x):
    return jnp.sin(x) * 3.0


def loss(x, y):
    return jnp.sum(jnp.sin(x) * y)


X = np.array([0.5, 1.0, 2.0], np.float32)


def test_import_didax_does_not_import_ipython():
    code = (
        "import sys, didax, didax.numpy as jnp\n"
        "didax.make_jaxpr(jnp.sin)(1.0)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('IPython', 'ipykernel', 'ipywidgets', 'didax.magics'))\n"
        "bad += [m for m in sys.modules if m.startswith('didax.magics')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_reports_and_models_load_no_front_end():
    # magics.py is the IPython glue, didax.widgets the ipywidgets/grandalf side: the reports,
    # their parts and the display models import (and build a report) without any of them
    code = (
        "import sys, didax.numpy as jnp\n"
        "from didax.magics import reports, sections, timing\n"
        "from didax.display import compiled, graph, markup, program, provenance, stepper, text\n"
        "r = reports.grad_report(jnp.sin, (1.0,), programs=True)\n"
        "text.sections_text(sections.grad_sections(r)), markup.sections_html(sections.grad_sections(r))\n"
        "stepper.StepperState(r.programs.forward, (1.0,)).run()\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('IPython', 'ipywidgets', 'grandalf', 'ipykernel'))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_jaxpr_report_bindings_and_text():
    report = reports.jaxpr_report(f, (X,), call="f(X)")
    assert report.text == str(didax.make_jaxpr(f)(X))
    assert report.jaxpr.in_avals[0].str_short() == "f32[3]"
    [inp] = report.inputs
    assert (inp.label, inp.type) == ("x", "f32[3]")
    assert inp.var == report.text.split("; ")[1].split(":")[0]  # the name the printout uses
    [out] = report.outputs
    assert out.type == "f32[3]" and out.label == "out"
    assert report.constants == ()


def test_jaxpr_report_pytrees_kwargs_and_constants():
    c = jnp.array([1.0, 2.0, 3.0])

    def g(params, *, scale):
        return {"y": params["w"] * c + params["b"], "s": scale * 2.0}

    params = {"w": X, "b": np.float32(1.0)}
    report = reports.jaxpr_report(g, (params,), {"scale": 3.0})
    assert [b.label for b in report.inputs] == ["params['b']", "params['w']", "scale"]
    assert [b.type for b in report.inputs] == ["f32[]", "f32[3]", "f32[]"]
    assert [b.label for b in report.outputs] == ["out['s']", "out['y']"]
    [const] = report.constants
    assert const.type == "f32[3]"
    np.testing.assert_array_equal(np.asarray(const.value), [1.0, 2.0, 3.0])


def test_literal_output_binding():
    report = reports.jaxpr_report(lambda x: 2.0, (X,))
    [out] = report.outputs
    assert (out.var, out.type) == ("2.0", "f32[]")


def test_grad_report_values():
    report = reports.grad_report(loss, (X, 2.0), argnums=(0, 1))
    np.testing.assert_allclose(report.value, np.sum(np.sin(X) * 2.0), rtol=1e-6)
    gx, gy = report.gradient
    np.testing.assert_allclose(gx, np.cos(X) * 2.0, rtol=1e-5)
    np.testing.assert_allclose(gy, np.sum(np.sin(X)), rtol=1e-5)
    assert report.arg_names == ("x", "y") and report.argnums == (0, 1)
    assert report.programs is None


def test_grad_report_int_argnums_and_programs():
    report = reports.grad_report(loss, (X, 2.0), argnums=-1, programs=True)
    assert report.argnums == 1 and report.arg_names == ("y",)
    np.testing.assert_allclose(report.gradient, np.sum(np.sin(X)), rtol=1e-5)
    p = report.programs
    assert str(p.forward) == str(didax.make_jaxpr(loss)(X, 2.0))
    assert [a.str_short() for a in p.linearized.in_avals] == ["f32[]"]  # tangent of y
    assert [a.str_short() for a in p.transposed.in_avals] == ["f32[]"]  # cotangent of out
    assert [a.str_short() for a in p.transposed.out_avals] == ["f32[]"]
    # the linearized program is linear in its tangent: evaluate it at t=1 -> d loss / d y
    out = didax.eval_jaxpr(p.linearized.jaxpr, p.linearized.consts, np.float32(1.0))
    np.testing.assert_allclose(out[0], np.sum(np.sin(X)), rtol=1e-5)


def test_grad_report_argnums_out_of_range():
    with pytest.raises(ValueError, match="argnums 2 is out of range for a call with 2"):
        reports.grad_report(loss, (X, 2.0), argnums=2)


def test_vmap_report():
    xs = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    w = np.float32(3.0)
    report = reports.vmap_report(lambda x, w: x * w + 1.0, (xs, w), in_axes=(0, None))
    np.testing.assert_allclose(report.output, xs * 3.0 + 1.0)
    assert report.axis_size == 2
    assert [a.str_short() for a in report.jaxpr.in_avals] == ["f32[2,3]", "f32[]"]
    assert [a.str_short() for a in report.example_jaxpr.in_avals] == ["f32[3]", "f32[]"]


def test_vmap_report_axis_one_and_out_axes():
    xs = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    report = reports.vmap_report(f, (xs,), in_axes=1, out_axes=1)
    assert report.axis_size == 3
    np.testing.assert_allclose(report.output, np.sin(xs) * 3.0, rtol=1e-6)
    assert [a.str_short() for a in report.example_jaxpr.in_avals] == ["f32[2]"]


# ----------------------------------------------------------------------------- timing


def test_format_time_like_timeit():
    assert compiled.format_time(1.5) == "1.5 s"
    assert compiled.format_time(0.00123) == "1.23 ms"
    assert compiled.format_time(12.3e-6) == "12.3 µs"
    assert compiled.format_time(5e-9) == "5 ns"
    assert compiled.format_time(90.0) == "1min 30 s"


def test_timeit_stats_warning_over_four_times():
    stats = timing.TimeitStats(loops=10, repeat=3, runs=(1e-3, 1.1e-3, 5e-3))
    assert stats.best == 1e-3 and stats.worst == 5e-3
    assert stats.warning == (
        "The slowest run took 5.00 times longer than the fastest. This "
        "could mean that an intermediate result is being cached."
    )
    assert timing.TimeitStats(10, 3, (1e-3, 1.1e-3, 3.9e-3)).warning is None
    assert timing.TimeitStats(10, 2, (1e-8, 9e-7)).warning is None  # worst under 1 µs
    assert str(stats).endswith("per loop (mean ± std. dev. of 3 runs, 10 loops each)")


class FakeClock:
    """Each call of the timed function takes `cost` seconds of fake time."""

    def __init__(self, cost: float) -> None:
        self.now, self.cost, self.calls = 0.0, cost, 0

    def __call__(self) -> float:
        return self.now

    def work(self) -> None:
        self.calls += 1
        self.now += self.cost


def test_timeit_autorange_picks_power_of_ten_reaching_point_two_seconds():
    clock = FakeClock(cost=3e-4)  # 1000 loops take 0.3 s: the first power of ten >= 0.2 s
    stats = timing.timeit_stats(clock.work, number=0, repeat=4, timer=clock)
    assert stats.loops == 1000 and stats.repeat == 4 and len(stats.runs) == 4
    np.testing.assert_allclose(stats.runs, [3e-4] * 4)
    assert clock.calls == 1 + 10 + 100 + 1000 + 4 * 1000


def test_timeit_explicit_number_and_blocking():
    blocked = []

    class Result:
        def block_until_ready(self):
            blocked.append(True)
            return self

    clock = FakeClock(cost=1e-3)

    def call():
        clock.work()
        return {"a": Result(), "b": [Result()]}

    stats = timing.timeit_stats(call, number=5, repeat=2, timer=clock)
    assert (stats.loops, stats.repeat) == (5, 2) and clock.calls == 10
    assert len(blocked) == 20  # every leaf of every result


def test_timeit_rejects_bad_counts():
    with pytest.raises(ValueError, match="repeat >= 1"):
        timing.timeit_stats(lambda: None, number=1, repeat=0)


def test_leaf_paths_and_arg_names():
    tree = ({"b": 1, "a": [2, 3]}, None, 4)
    assert parts.leaf_paths(tree) == [
        ("[0]['a'][0]", 2),
        ("[0]['a'][1]", 3),
        ("[0]['b']", 1),
        ("[2]", 4),
    ]
    assert api_util.arg_names(lambda a, b, *rest: 0, 4) == ["a", "b", "args[2]", "args[3]"]
    assert reports.fn_name(jnp.sin) == "sin"


def test_format_time_rounds_before_choosing_the_unit():
    assert compiled.format_time(0.99999e-6) == "1 µs"
    assert compiled.format_time(0.9999999) == "1 s"
    assert compiled.format_time(0.0) == "0 ns"


def test_positional_moves_keywords_that_can_be_positional():
    def g(a, b, *, c):
        return a

    assert reports.positional(g, (1,), {"b": 2, "c": 3}) == ((1, 2), {"c": 3})
    assert reports.positional(g, (1,), {}) == ((1,), {})
    assert reports.positional(g, (1,), {"zz": 2}) == ((1,), {"zz": 2})  # g will complain


def test_jit_report_keyword_argument_is_an_input_not_a_constant():
    report = timing.jit_report(loss, (X,), {"y": 2.0}, number=1, repeat=1)
    assert "%arg1: tensor<f32>" in report.stablehlo  # y is a parameter of the program
    np.testing.assert_allclose(np.asarray(report.result), 2 * np.sum(np.sin(X)), rtol=1e-5)


def test_timeit_budget_makes_one_run_of_one_call_for_a_slow_function():
    clock = FakeClock(cost=14.0)  # 14 s per call: one call is the whole budget
    done = []
    stats = timing.timeit_stats(
        clock.work, 0, 7, clock, budget=2.0, progress=lambda d, t: done.append((d, t))
    )
    assert (stats.loops, stats.repeat, stats.runs) == (1, 1, (14.0,))
    assert clock.calls == 1
    assert done[-1] == (1, 1)


def test_timeit_budget_reuses_a_first_call_and_caps_the_runs():
    clock = FakeClock(cost=0.3)
    stats = timing.timeit_stats(clock.work, 0, 7, clock, budget=1.0, first=0.3)
    # the given first call is the probe and the first run; 1.0 s holds three 0.3 s runs
    assert (stats.loops, stats.repeat) == (1, 3) and clock.calls == 2
    clock = FakeClock(cost=3e-4)  # fast: the loop count as without a budget, fewer runs
    stats = timing.timeit_stats(clock.work, 0, 7, clock, budget=0.7)
    assert stats.loops == 1000 and stats.repeat == 2
    assert clock.calls == 1 + 10 + 100 + 1000 + 1000


def test_jit_report_stays_within_its_budget_for_a_slow_function():
    class SlowClock:  # every timed stretch, compiled or eager, takes 14 fake seconds
        now = 0.0

        def __call__(self) -> float:
            self.now += 7.0
            return self.now

    report = timing.jit_report(loss, (X, 2.0), budget=4.0, timer=SlowClock())
    t = report.timings
    assert (t.steady.repeat, t.steady.loops, t.eager.repeat, t.eager.loops) == (1, 1, 1, 1)
    assert t.budget == 4.0
    np.testing.assert_allclose([*t.steady.runs, *t.eager.runs], [7.0, 7.0])


def test_jit_report_separates_compiler_startup_from_lowering(monkeypatch):
    monkeypatch.setattr(timing, "_compiler_started", [False])
    first = timing.jit_report(loss, (X, 2.0), number=1, repeat=1)
    assert first.timings.startup is not None and first.timings.startup > 0
    second = timing.jit_report(loss, (X, 3.0), number=1, repeat=1)
    assert second.timings.startup is None


def test_jit_report_splits_its_budget_between_compiled_and_eager_runs():
    # Every timed stretch costs 0.25 fake seconds, and an eager call 0.75 more (compiled
    # calls never run the Python body). A budget of 4 s gives each side 2 s: seven 0.25 s
    # compiled runs (the repeat cap) and two 1 s eager runs. Giving each side the whole
    # budget (four eager runs), or the eager side all of it, would show here.
    class StepClock:
        now = 0.0

        def __call__(self) -> float:
            self.now += 0.25
            return self.now

    clock = StepClock()

    def work(x):
        clock.now += 0.75
        return jnp.sum(jnp.sin(x))

    t = timing.jit_report(work, (X,), budget=4.0, timer=clock).timings
    assert (t.steady.loops, t.steady.repeat) == (1, 7)
    assert (t.eager.loops, t.eager.repeat) == (1, 2)
    np.testing.assert_allclose(t.eager.runs, [1.0, 1.0])
    assert sum(t.steady.runs) <= 2.0 and sum(t.eager.runs) <= 2.0
    # an eager call of 2.5 s is more than half the budget: one run of it, the first call
    clock.now = 0.0
    work_slow = lambda x: (setattr(clock, "now", clock.now + 2.25), jnp.sum(x))[1]  # noqa: E731
    t = timing.jit_report(work_slow, (X,), budget=4.0, timer=clock).timings
    assert t.eager.repeat == 1 and t.steady.repeat == 7
