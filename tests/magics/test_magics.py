"""The magics in an in-process IPython shell: returned values, displays (text/plain and HTML
escaping), option parsing, UsageErrors, tracebacks of user errors and recovery."""

from __future__ import annotations

import base64
import os
import re

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax.display import markup
from didax.magics import magics as magics_mod
from didax.magics import report_views, reports, timing
from helpers.outputs import WIDGET, is_standin
from IPython.core.error import UsageError
from IPython.utils.path import compress_user

X = np.array([0.5, 1.0, 2.0], np.float32)
XS = np.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], np.float32)
MAGICS = ("jaxpr", "grad", "vmap", "jit")
# how IPython prints paths of didax's own files in tracebacks
ENGINE_DIRS = [
    p
    for d in (didax.__path__[0], magics_mod.__file__.rsplit(os.sep, 1)[0])
    for p in (d + os.sep, compress_user(d) + os.sep)
]


def _f(x):
    return jnp.sin(x) * 3.0


def _loss(x, y):
    return jnp.sum(jnp.sin(x) * y)


# ----------------------------------------------------------------------------- the extension


def test_load_and_unload_extension(ip):
    for name in MAGICS:
        assert ip.find_line_magic(name) is not None
        assert ip.find_cell_magic(name) is not None
    ip.run_line_magic("unload_ext", "didax")
    for name in MAGICS:
        assert ip.find_line_magic(name) is None
        assert ip.find_cell_magic(name) is None
    assert ip.find_line_magic("timeit") is not None  # only ours went
    ip.run_line_magic("load_ext", "didax")
    assert ip.find_line_magic("grad") is not None


@pytest.mark.parametrize("name", MAGICS)
def test_help_has_usage_and_example(ip, name):
    doc = ip.find_line_magic(name).__doc__
    assert f"%{name} " in doc and f"%%{name}" in doc  # line and cell usage
    assert "Example::" in doc and f"    %{name} " in doc
    text = ip.object_inspect_text(f"%{name}")  # what `%grad?` pages
    assert "Example::" in text


# ----------------------------------------------------------------------------- %jaxpr


def test_jaxpr_returns_closed_jaxpr_and_displays_it(run):
    ran = run("j = %jaxpr f(x)")
    assert ran.error is None
    j = run("j").result
    assert isinstance(j, didax.ClosedJaxpr)
    expected = str(didax.make_jaxpr(_f)(X))
    assert str(j) == expected
    [bundle, standin] = ran.displays  # the widget, then its stand-in
    assert set(bundle) == {"text/plain", "text/html", "application/vnd.jupyter.widget-view+json"}
    assert standin == {"text/html": markup.standin(bundle["text/html"])}
    plain = bundle["text/plain"]
    assert plain.splitlines()[0] == "jaxpr of f(x)"
    assert expected in plain
    assert "inputs     a:f32[3]  <- x" in plain
    assert "constants  none" in plain
    # sin: a label that shows its rules below the program (tests/magics/test_rules.py)
    assert re.search(
        r'<label for="[-\w]+" class="dx-primitive dx-prim[^>]*>sin</label>', bundle["text/html"]
    )


def test_jaxpr_value_is_out(run):
    ran = run("%jaxpr f(x)")
    assert str(ran.result) == str(didax.make_jaxpr(_f)(X))
    assert ran.stdout.startswith("Out[")
    # Out[]'s view is displayed (with its stand-in), once
    assert ran.out is None and [WIDGET in d for d in ran.displays] == [True, False]
    assert is_standin(ran.displays[1])


def test_jaxpr_constants_kwargs_and_starred(run):
    run(
        "c = jnp.array([1.0, 2.0, 3.0])\n"
        "def g(a, b, *, scale):\n    return (a * c + b) * scale\n"
        "pair = (x, 2.0)"
    )
    ran = run("%jaxpr g(*pair, scale=x)")
    assert ran.error is None
    plain = ran.plain()
    assert [a.str_short() for a in ran.result.in_avals] == ["f32[3]", "f32[]", "f32[3]"]
    assert "<- a" in plain and "<- b" in plain and "<- scale" in plain
    assert "= [1. 2. 3.]" in plain  # the closed-over constant and its value


def test_jaxpr_any_expression_as_function_and_arguments(run):
    ran = run("%jaxpr (lambda v: {'s': jnp.sum(v)})(jnp.ones((2, 2)) + x[0])")
    assert ran.error is None
    assert [a.str_short() for a in ran.result.out_avals] == ["f32[]"]
    assert "-> out['s']" in ran.plain()


def test_jaxpr_cell_form_runs_cell_and_uses_last_line(run):
    ran = run("%%jaxpr\ndef h(v):\n    return v * 2.0\nw = x + 1.0\nh(w)")
    assert ran.error is None
    assert run("w").result is not None and callable(run("h").result)
    assert "mul" in str(ran.result) and ran.plain().startswith("jaxpr of h(w)")


def test_trailing_semicolon_hides_out(run):
    ran = run("%jaxpr f(x);")
    assert ran.error is None and ran.result is None and "Out[" not in ran.stdout
    assert len(ran.displays) == 2  # the display (the widget and its stand-in) still shows


# ----------------------------------------------------------------------------- %grad


def test_grad_binds_gradient(run):
    ran = run("g = %grad loss(x, 2.0)")
    assert ran.error is None and ran.result is None  # an assignment shows no Out[]
    g = run("g").result
    np.testing.assert_allclose(np.asarray(g), 2.0 * np.cos(X), rtol=1e-5)
    plain = ran.plain()
    assert plain.splitlines()[0] == "grad of loss(x, 2.0) with respect to x"
    grad_row = next(r for r in plain.splitlines() if r.strip().startswith("∂loss/∂x"))
    assert grad_row.split()[1] == "f32[3]"


def test_grad_two_argnums_value_and_text(run):
    ran = run("%grad --argnums 0,1 loss(x, 2.0)")
    assert ran.error is None
    gx, gy = ran.result
    np.testing.assert_allclose(np.asarray(gx), 2.0 * np.cos(X), rtol=1e-5)
    np.testing.assert_allclose(float(gy), np.sum(np.sin(X)), rtol=1e-5)
    rows = ran.plain().splitlines()
    assert rows[0] == "grad of loss(x, 2.0) with respect to x, y"
    value_row = next(r for r in rows if r.strip().startswith("value"))
    assert value_row.split()[1] == "f32[]"
    assert float(value_row.split()[2]) == pytest.approx(2 * np.sum(np.sin(X)), rel=1e-5)
    assert any(r.strip().startswith("∂loss/∂y") for r in rows)


def _loss_for_check(x, y):  # the shell's `loss` (conftest.SETUP)
    return jnp.sum(jnp.sin(x) * y)


@pytest.mark.parametrize("argnums", ["[0,1]", "(0,1)", '"[0, 1]"'])
def test_grad_argnums_as_a_list_or_tuple(run, argnums):
    # a bracketed list is the spelling of `jax.grad(f, argnums=[0, 1])`: a tuple of gradients
    ran = run(f"%grad --argnums {argnums} loss(x, 2.0)")
    assert ran.error is None
    gx, gy = ran.result
    want_x, want_y = didax.grad(_loss_for_check, argnums=(0, 1))(X, 2.0)
    np.testing.assert_allclose(np.asarray(gx), np.asarray(want_x), rtol=1e-6)
    np.testing.assert_allclose(float(gy), float(want_y), rtol=1e-6)
    assert ran.plain().splitlines()[0] == "grad of loss(x, 2.0) with respect to x, y"


def unmarked(text: str) -> str:
    """Text with the equations' marks (` # tangent of eqn 1`) taken off its lines."""
    return "\n".join(re.sub(r" +# [^#]*$", "", line) for line in text.split("\n"))


def test_grad_jaxpr_shows_four_programs_with_their_marks(run):
    ran = run("%grad --jaxpr loss(x, 2.0)")
    assert ran.error is None
    plain = ran.plain()
    assert str(didax.make_jaxpr(_loss)(X, 2.0)) in unmarked(plain)
    for heading in (
        "forward program: loss(x, 2.0)",
        "jvp program: primals and tangents in, value and tangent out",
        "linearized program: tangents of x",
        "transposed program: output cotangent -> cotangents of x",
    ):
        assert heading in plain
    assert plain.count("{ lambda") == 4
    assert ran.html().count('class="dx-jaxpr"') == 4
    for mark in ("# eqn 0", "# primal of eqn 0", "# tangent of eqn 0", "# transpose of eqn 0"):
        assert mark in plain, mark
        assert mark.replace("# ", "  ") + "</span>" in ran.html(), mark


def test_grad_cell_form_with_keyword_argument(run):
    ran = run("%%grad\nscale = 2.0\nloss(x, y=scale)")
    assert ran.error is None
    np.testing.assert_allclose(np.asarray(ran.result), 2.0 * np.cos(X), rtol=1e-5)


# ----------------------------------------------------------------------------- %vmap


def test_vmap_output_and_programs(run):
    ran = run("ys = %vmap --in-axes 0,None affine(xs, 2.0)")
    assert ran.error is None
    np.testing.assert_allclose(np.asarray(run("ys").result), XS * 2.0 + 1.0)
    plain = ran.plain()
    assert plain.splitlines()[0] == (
        "vmap(affine, in_axes=(0, None), out_axes=0) on affine(xs, 2.0), batch of 2"
    )
    assert "per-example program\n{ lambda ; a:f32[3] b:f32[]." in plain
    assert "batched program\n{ lambda ; a:f32[2,3] b:f32[]." in plain


def test_vmap_out_axes(run):
    ran = run("%vmap --in-axes 0 --out-axes 1 f(xs)")
    assert ran.error is None
    np.testing.assert_allclose(np.asarray(ran.result), (np.sin(XS) * 3.0).T, rtol=1e-6)


def test_vmap_quoted_and_equals_option_values(run):
    a = run("%vmap --in-axes='0, None' affine(xs, 2.0)")
    b = run('%vmap --in-axes "(0, None)" affine(xs, 2.0)')
    assert a.error is None and b.error is None
    np.testing.assert_allclose(np.asarray(a.result), np.asarray(b.result))


# ----------------------------------------------------------------------------- usage errors


@pytest.mark.parametrize(
    "line, message",
    [
        (
            "%grad",
            (
                "%grad: expected a call like f(x); options go before the call, e.g. "
                "%grad --argnums 0,1 f(x, y)"
            ),
        ),
        ("%grad 3 + 4", "%grad: expected a call like f(x), got '3 + 4'"),
        ("%jaxpr f", "%jaxpr: expected a call like f(x), got 'f'"),
        (
            "%grad f(x) --argnums 1",
            (
                "%grad: expected a call like f(x), got 'f(x) --argnums 1' "
                "(not valid Python); options go before the call, e.g. "
                "%grad --argnums 0,1 f(x, y)"
            ),
        ),
        (
            "%grad --foo f(x)",
            ("%grad: unknown option --foo (options: --argnums, --jaxpr); see %grad?"),
        ),
        ("%jit -q f(x)", "%jit: unknown option -q (options: --budget, -n, -o, -r); see %jit?"),
        (
            "%grad --argnums x f(x)",
            (
                "%grad: argument --argnums: expected an argument position or "
                "positions like 0 or 0,1; got 'x'"
            ),
        ),
        ("%grad --argnums", "%grad: option --argnums needs a value; see %grad?"),
        ("%grad --jaxpr=1 f(x)", "%grad: option --jaxpr takes no value"),
        (
            "%grad --argnums 0, 1 loss(x, x)",
            (
                "%grad: the value of --argnums, '0,', ends with a comma: a space cut it in "
                'two. Write the value without spaces, or in quotes: --argnums "0, 1"'
            ),
        ),
        (  # a parenthesis once made the suggested fix garbled: `--in-axes (0,1)`
            "%vmap --in-axes (0, f(x)",
            (
                "%vmap: the value of --in-axes, '(0,', ends with a comma: a space cut it in "
                'two. Write the value without spaces, or in quotes: --in-axes "(0, None)"'
            ),
        ),
        (  # valid Python, but a statement: once reported as "not valid Python"
            "%grad x = 3",
            (
                "%grad expects a call like f(x), got the statement 'x = 3'; to keep the "
                "result, assign the magic: y = %grad f(x)"
            ),
        ),
        (
            "%vmap --in-axes 0,zero f(x)",
            (
                "%vmap: argument --in-axes: expected an axis, None, or a "
                "tuple of them like 0,None; got '0,zero'"
            ),
        ),
        (
            "%vmap --out-axes 1.5 f(x)",
            (
                "%vmap: argument --out-axes: expected an axis, None, or a "
                "tuple of them like 0,None; got '1.5'"
            ),
        ),
        (
            "%grad x(1.0)",
            ("%grad: x is not callable (it is a value of type Array); expected a call like f(x)"),
        ),
        (
            "%grad 3(4)",
            ("%grad: 3 is not callable (it is a value of type int); expected a call like f(x)"),
        ),
        ("%jaxpr f(undefined_name)", "%jaxpr: name 'undefined_name' is not defined"),
        ("%jit -n x f(x)", "%jit: argument -n: expected a whole number; got 'x'"),
        ("%jit -r 0 f(x)", "%jit: -r must be at least 1, got 0"),
        # the transformation rejects the call before or after running f: one line too
        (
            "%grad --argnums 3 loss(x, 1.0)",
            ("%grad: ValueError: argnums 3 is out of range for a call with 2 positional arguments"),
        ),
        (
            "%grad f(x)",
            (
                "%grad: TypeError: Gradient only defined for scalar-output functions. "
                "Output had shape: (3,)."
            ),
        ),
        (
            "%jaxpr f('text')",
            (
                "%jaxpr: TypeError: Argument 'text' of type str passed to "
                "make_jaxpr of f is not a valid didax type: expected arrays, "
                "scalars, or pytrees of them"
            ),
        ),
        (
            "%vmap --in-axes 0,0 affine(xs, jnp.ones(3))",
            ("%vmap: ValueError: vmap got inconsistent sizes"),
        ),
    ],
)
def test_usage_errors_are_one_line(ip, run, line, message):
    ran = run(line)
    assert isinstance(ran.error, UsageError)
    assert str(ran.error).startswith(message)
    assert "\n" not in str(ran.error)
    assert ran.stderr == f"UsageError: {ran.error}\n"  # IPython: no traceback
    assert ran.stdout == "" and ran.displays == []


def test_grad_of_int_argument_is_usage_error(run):
    ran = run("%grad --argnums 1 loss(x, 2)")
    assert isinstance(ran.error, UsageError)
    assert str(ran.error).startswith("%grad: TypeError: grad requires real")


@pytest.mark.parametrize(
    "cell, message",
    [
        ("y = 1\nz = 2", "%%grad: the cell's last line must be a call like f(x), got 'z = 2'"),
        ("y = (1", "%%grad: invalid syntax in the cell, line 1"),
    ],
)
def test_cell_usage_errors(run, cell, message):
    ran = run(f"%%grad\n{cell}")
    assert isinstance(ran.error, UsageError) and str(ran.error).startswith(message)


def test_cell_call_on_the_magic_line_is_usage_error(ip):
    with pytest.raises(UsageError, match="the call goes on the cell's last line"):
        ip.run_cell_magic("grad", "f(x)", "f(x)")


# ----------------------------------------------------------------------------- user errors


USER_ERROR = """
def helper(v):
    return v / not_defined_anywhere

def buggy(v):
    w = jnp.sin(v)
    return helper(w)
"""


@pytest.mark.parametrize("line", ["%jaxpr buggy(x)", "%vmap buggy(xs)", "%grad buggy(1.0)"])
def test_user_error_shows_user_frames_and_engine_recovers(run, line):
    run(USER_ERROR)
    ran = run(line)
    assert type(ran.error) is NameError  # the user's own exception, not a UsageError
    tb = ran.stdout
    assert "in buggy(v)" in tb and "in helper(v)" in tb
    assert "return v / not_defined_anywhere" in tb
    assert "skipping hidden" in tb
    # no engine frame is printed: the user's function is the first frame after IPython's
    frames = [line for line in tb.splitlines() if line.startswith(("File ", "Cell In"))]
    assert not [fr for fr in frames if any(d in fr for d in ENGINE_DIRS)], frames
    state = didax.core.trace_state()
    assert len(state.stack) == 1 and state.dynamic is None
    after = run("%jaxpr f(x)")
    assert after.error is None and str(after.result) == str(didax.make_jaxpr(_f)(X))


def test_concretization_error_in_user_code_is_not_a_usage_error(run):
    run("def branchy(v):\n    if v > 0:\n        return v\n    return -v")
    ran = run("%jaxpr branchy(1.0)")
    assert isinstance(ran.error, didax.ConcretizationTypeError)
    assert "in branchy(v)" in ran.stdout


def test_error_in_cell_body_propagates(run):
    ran = run("%%jaxpr\nraise KeyError('from the cell')\nf(x)")
    assert isinstance(ran.error, KeyError)


# ----------------------------------------------------------------------------- escaping


def test_html_escapes_user_strings(run):
    run(
        "def evil(v):\n    return jnp.sum(v * 2.0)\n"
        "evil.__name__ = '<script>alert(1)</script>'\n"
        "evil.__qualname__ = evil.__name__"
    )
    for line in ("%jaxpr evil(x)", "%grad --jaxpr evil(x)", "%vmap evil(xs)"):
        ran = run(line)
        assert ran.error is None, line
        html = ran.html()
        assert "<script" not in html, line
        plain = ran.plain()
        if "grad" in line:
            assert "∂<script>alert(1)</script>/∂v" in plain
            assert "∂&lt;script&gt;alert(1)&lt;/script&gt;/∂v" in html
    ran = run("%jaxpr (lambda a, b: a < b)(x, 1.0)")  # call text with markup characters
    assert "jaxpr of (lambda a, b: a &lt; b)(x, 1.0)" in ran.html()


def test_split_options_helper():
    parser = magics_mod.DidaxMagics.jit.parser
    assert magics_mod.split_options("-n10 -r 3 -o f(x, '-n')", parser, "%jit") == (
        ["-n=10", "-r=3", "-o"],
        "f(x, '-n')",
    )
    assert magics_mod.argnums_value("0,1") == (0, 1)
    assert magics_mod.argnums_value("2") == 2
    assert magics_mod.axes_value("0,None") == (0, None)
    assert magics_mod.axes_value("{'a': 0, 'b': None}") == {"a": 0, "b": None}


# ----------------------------------------------------------------------------- %jit


def test_jit_result_timings_and_programs(run):
    ran = run("r = %jit -n 2 -r 3 f(x)")
    assert ran.error is None
    np.testing.assert_allclose(np.asarray(run("r").result), np.sin(X) * 3.0, rtol=1e-6)
    plain = ran.plain()
    assert plain.splitlines()[0] == "jit of f(x)"
    for phase in (
        "result",
        "trace",
        "lower",
        "compile",
        "first run",
        "steady state",
        "eager",
        "speed-up",
    ):
        assert any(line.strip().startswith(phase) for line in plain.splitlines()), phase
    assert "per loop (mean ± std. dev. of 3 runs, 2 loops each)" in plain
    assert "(best eager / best compiled)" in plain
    for section in ("\nStableHLO\n", "\noptimized HLO\n", "\ncost analysis\n"):
        assert section in plain
    assert "stablehlo.sine" in plain and "HloModule" in plain
    html = ran.html()
    # the stored HTML is the live view's tabs, each under its title
    assert (
        re.search(r'<div class="dx-heading"[^>]*>StableHLO</div>', html)
        and "tensor&lt;3xf32&gt;" in html
    )
    assert "tensor<3xf32>" not in html


def test_jit_report_object_with_o(run):
    ran = run("%jit -n 1 -r 2 -o loss(x, 2.0)")
    report = ran.result
    t = report.timings
    assert t.steady.loops == 1 and len(t.steady.runs) == 2 and len(t.eager.runs) == 2
    for seconds in (t.trace, t.lower, t.compile, t.first_run, *t.steady.runs, *t.eager.runs):
        assert 0 < seconds < 60
    assert t.speedup == pytest.approx(t.eager.best / t.steady.best)
    np.testing.assert_allclose(np.asarray(report.result), 2 * np.sum(np.sin(X)), rtol=1e-5)
    assert "func.func" in report.stablehlo and "HloModule" in report.hlo
    assert report.cost["flops"] > 0
    # Out[] is the report's view (its text: the timing table), shown once
    assert ran.stdout.startswith("Out[")
    [view] = [d for d in ran.displays if WIDGET in d]
    assert view["text/plain"].startswith("jit of loss(x, 2.0)\n")
    assert repr(report).startswith("<JitReport loss(x, 2.0): compiled")


def test_jit_user_error_and_recovery(run):
    run(USER_ERROR)
    ran = run("%jit -n 1 -r 1 buggy(x)")
    assert type(ran.error) is NameError
    frames = [line for line in ran.stdout.splitlines() if line.startswith(("File ", "Cell In"))]
    assert not [fr for fr in frames if any(d in fr for d in ENGINE_DIRS)], frames
    assert "in helper(v)" in ran.stdout
    state = didax.core.trace_state()
    assert len(state.stack) == 1 and state.dynamic is None
    after = run("%jit -n 1 -r 1 f(x)")
    assert after.error is None


def test_jit_bad_argument_is_usage_error(run):
    ran = run("%jit -n 1 -r 1 f('abc')")
    assert isinstance(ran.error, UsageError) and "\n" not in str(ran.error)
    assert str(ran.error).startswith("%jit: TypeError: Error interpreting argument 'x'")


def test_jit_budget_option(run):
    report = run("%jit --budget 0.5 -o loss(x, 2.0)").result
    t = report.timings
    assert t.budget == 0.5 and t.steady.repeat >= 1 and t.eager.repeat >= 1
    unlimited = run("%jit --budget 0 -n 1 -r 2 -o loss(x, 2.0)").result
    assert unlimited.timings.budget is None and unlimited.timings.steady.repeat == 2
    ran = run("%jit --budget -1 f(x)")
    assert isinstance(ran.error, UsageError) and "seconds >= 0" in str(ran.error)


def _html_values(widget):
    out = [widget.value] if type(widget).__name__ == "HTML" else []
    for child in getattr(widget, "children", ()):
        out += _html_values(child)
    return out


_SVG_COPY = re.compile(r'<img class="dx-svg-copy" alt="" src="data:image/svg\+xml;base64,([^"]*)">')


def _without_svg_copies(html: str) -> str:
    """The HTML without the views' own <img> copies of their drawings (for an untrusted
    notebook), each checked to hold no raw tag of the user's either."""
    for data in _SVG_COPY.findall(html):
        assert "<img" not in base64.b64decode(data).decode()
    return _SVG_COPY.sub("", html)


def test_hostile_function_name_is_text_in_every_view(ip, run):
    ip.run_cell(
        "def evil(x):\n    return jnp.sum(jnp.sin(x) * 3.0)\n"
        "evil.__name__ = '<img src=x onerror=alert(1)>'\n"
        "ev = didax.jit(evil)"
    )
    lines = ("%jaxpr ev(x);", "%grad --jaxpr evil(x)", "%vmap evil(xs)", "%jit -n 1 -r 1 evil(x)")
    for line in lines:
        ran = run(line)
        assert ran.error is None, (line, ran.error)
        assert ran.displays, line
        for bundle in ran.displays:  # the view's, and a widget's stand-in
            assert "<img" not in _without_svg_copies(bundle["text/html"]), line
    ns = ip.user_ns
    views = [
        report_views.jaxpr_view(reports.jaxpr_report(ns["ev"], (ns["x"],))),
        report_views.grad_view(reports.grad_report(ns["evil"], (ns["x"],), programs=True)),
        report_views.vmap_view(reports.vmap_report(ns["evil"], (ns["xs"],))),
        report_views.jit_view(timing.jit_report(ns["ev"], (ns["x"],), number=1, repeat=1)),
    ]
    for v in views:
        values = _html_values(v)
        assert any("&lt;img src=x onerror=alert(1)&gt;" in h for h in values), values
        assert not any("<img" in h for h in values)


def test_reports_render_as_views_and_jit_o_shows_once(ip, run):
    ran = run("%jit -n 1 -r 1 -o loss(x, 2.0)")
    assert isinstance(ran.result, timing.JitReport)
    # Out[]: the progress cleared, the report's view (registered by %load_ext didax) and
    # its stand-in displayed once
    cleared, bundle, standin = ran.displays
    assert cleared == {"text/plain": ""} and is_standin(standin)
    assert set(bundle) == {"text/plain", "text/html", "application/vnd.jupyter.widget-view+json"}
    assert bundle["text/plain"].startswith("jit of loss(x, 2.0)\n")
    assert ran.out is None
    assigned = run("r = %jit -n 1 -r 1 -o loss(x, 2.0)")
    assert assigned.plain().startswith("jit of loss(x, 2.0)\n")  # not shown as Out[]: displayed
    g = run("%grad loss(x, 2.0)")
    assert g.plain().startswith("grad of loss(x, 2.0)")


def test_grad_and_jit_views_carry_the_provenance_joins(ip):
    ns = ip.user_ns
    grad = report_views.grad_view(reports.grad_report(ns["loss"], (ns["x"], 2.0), programs=True))
    [transform] = [c for c in grad.children if type(c).__name__ == "TransformView"]
    linearized = transform.stages[2]
    assert linearized.name.startswith("linearized")
    # sin's equation of f became a new equation (cos's residual times the tangent)
    assert linearized.marks == "derivation"
    assert '<span class="dx-mark dx-new">  tangent of eqn 0</span>' in "".join(
        _html_values(transform)
    )
    jit = report_views.jit_view(timing.jit_report(ns["loss"], (ns["x"], 2.0), number=1, repeat=1))
    [compiled] = [c for c in jit.children if type(c).__name__ == "CompiledView"]
    prims = [r.eqn.primitive for r in compiled.eqn_costs]
    assert prims == [e.primitive.name for e in didax.make_jaxpr(ns["loss"])(ns["x"], 2.0).eqns]
    sin_row = compiled.eqn_costs[prims.index("sin")]
    assert sin_row.landed and sin_row.flops == 3  # it landed in an HLO fusion
