"""A report's parts and their writers: text/plain layout, the timing table and its warning,
HTML escaping."""

from __future__ import annotations

from typing import Any

import numpy as np
from didax.display import markup, parts, text
from didax.display.parts import Row
from didax.magics import sections, timing


def test_value_text_and_rows():
    assert parts.value_text(np.float32(2.5)) == "f32[] 2.5"
    assert parts.value_text(np.array([[1, 2], [3, 4]], np.int32)) == (
        "i32[2,2] [[1 2]\n          [3 4]]"
    )
    rows = parts.value_rows("∂f/∂p", {"w": np.zeros(2, np.float32), "b": 1.0})
    assert rows == (Row("∂f/∂p['b']", "f32[] 1."), Row("∂f/∂p['w']", "f32[2] [0. 0.]"))
    written = text.rows_text([Row("a", "1\n2"), Row("long", "3")])
    assert written == "  a     1\n        2\n  long  3"


def _jit_report(name: str, steady_runs: tuple[float, ...], hlo: str = "HloModule m") -> Any:
    return timing.JitReport(
        call=f"{name}(x)",
        fn_name=name,
        result=np.float32(1.0),
        timings=timing.JitTimings(
            trace=1e-3,
            lower=2e-3,
            compile=3e-2,
            first_run=1e-4,
            steady=timing.TimeitStats(10, len(steady_runs), steady_runs),
            eager=timing.TimeitStats(10, 2, (4e-4, 4.1e-4)),
        ),
        stablehlo="module @jit_f { func.func public @main(%arg0: tensor<3xf32>) }",
        hlo=hlo,
        cost={"flops": 6.0, "bytes accessed": 24.0, "utilization0{}": 1.0},
    )


def test_jit_table_text():
    written = text.sections_text(sections.jit_sections(_jit_report("f", (1e-5, 1.2e-5))))
    lines = written.splitlines()
    assert lines[0] == "jit of f(x)"
    assert lines[1:9] == [
        "  result        f32[] 1.",
        "  trace         1 ms",
        "  lower         2 ms",
        "  compile       30 ms",
        "  first run     100 µs",
        "  steady state  11 µs ± 1 µs per loop (mean ± std. dev. of 2 runs, 10 loops each)",
        "  eager         405 µs ± 5 µs per loop (mean ± std. dev. of 2 runs, 10 loops each)",
        "  speed-up      40.0x (best eager / best compiled)",
    ]
    assert "cost analysis\n  flops           6\n  bytes accessed  24 B\n" in written
    assert "operand 0 utilization  1" in written  # XLA's `utilization0{}`, in words
    assert "utilization0{}" not in written
    assert "slowest run" not in written


def test_jit_text_of_one_run_has_no_spread():
    written = text.sections_text(sections.jit_sections(_jit_report("f", (1e-5,))))
    assert "  steady state  10 µs per loop (1 run, 10 loops; run more for a spread)" in written
    assert "± 0" not in written
    assert "± 0" not in markup.sections_html(sections.jit_sections(_jit_report("f", (1e-5,))))


def test_jit_warning_when_slowest_run_is_over_four_times_the_fastest():
    report_parts = sections.jit_sections(_jit_report("f", (1e-5, 5e-5)))
    assert (
        "steady state: The slowest run took 5.00 times longer than the fastest. This "
        "could mean that an intermediate result is being cached."
    ) in text.sections_text(report_parts)
    assert "The slowest run took 5.00 times" in markup.sections_html(report_parts)


def test_html_escapes_every_user_string():
    evil = "<script>alert(1)</script>"
    report_parts = sections.sections_for(_jit_report(evil, (1e-5,), hlo=evil))
    html = markup.sections_html(report_parts)
    assert "<script" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;(x)" in html
    assert evil in text.sections_text(report_parts)  # text/plain is plain: nothing to escape
