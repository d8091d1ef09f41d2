"""`%jaxpr`, `%grad`, `%vmap`, `%jit` and their `%%` cell forms: the IPython glue (layer 6).

Each magic splits its line into options and a call (`%grad --argnums 0,1 f(x, y)`), parses
the options with `magic_arguments`, evaluates the call's function and arguments (any
expressions, `*args`, keywords) in the user's namespace, builds a report (`reports.py`),
displays it (`display.py`) and returns its value as `%time` does; it never prints. The cell
form runs the cell and takes its last line, a call, as the call. Mistakes become a one-line
`UsageError`: no call, bad options, undefined names, a non-callable, and errors that the
transformation raises with no user frame on the way (a non-scalar output for `%grad`). Errors
inside the user's function propagate; engine frames carry `__tracebackhide__`.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Callable
from typing import Any

from didax import tree_util, widgets
from didax.magics import report_views, reports, sections, timing
from IPython.core.error import UsageError
from IPython.core.magic import (
    Magics,
    line_cell_magic,
    line_magic,
    magics_class,
    no_var_expand,
)
from IPython.core.magic_arguments import argument, kwds, magic_arguments
from IPython.display import display

try:  # IPython >= 8.11: `%grad f(x);` hides Out[] as `f(x);` does
    from IPython.core.magic import output_can_be_silenced
except ImportError:  # pragma: no cover - older IPython just shows Out[]

    def output_can_be_silenced(fn: Callable[..., Any]) -> Callable[..., Any]:
        return fn


# ----------------------------------------------------------------------------- option values


def argnums_value(text: str) -> int | tuple[int, ...]:
    """`--argnums`: `0` (one gradient) or `0,1` (a tuple of gradients, as `jax.grad`)."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        value = None
    if isinstance(value, list):
        value = tuple(value)
    if _is_int(value) or (isinstance(value, tuple) and value and all(map(_is_int, value))):
        return value
    raise argparse.ArgumentTypeError(
        f"expected an argument position or positions like 0 or 0,1; got {text!r}"
    )


def axes_value(text: str) -> Any:
    """`--in-axes`/`--out-axes`: an int, None, or a tuple/dict of them (`0,None`)."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        value = ...
    if isinstance(value, list):
        value = tuple(value)
    if not _is_axes(value):
        raise argparse.ArgumentTypeError(
            f"expected an axis, None, or a tuple of them like 0,None; got {text!r}"
        )
    return value


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_axes(x: Any) -> bool:
    if x is None or _is_int(x):
        return True
    if isinstance(x, (tuple, list)):
        return all(_is_axes(v) for v in x)
    if isinstance(x, dict):
        return all(_is_axes(v) for v in x.values())
    return False


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number; got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0; got {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds; got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds >= 0; got {text!r}")
    return value


# ----------------------------------------------------------------------------- the call

_TOKEN = re.compile(r"""\s*((?:[^\s"'=]*=)?(?:"[^"]*"|'[^']*')|\S+)""")  # a word, or quoted


def split_options(line: str, parser: argparse.ArgumentParser, magic: str) -> tuple[list[str], str]:
    """Split `--argnums 0,1 --jaxpr f(x, y)` into `["--argnums=0,1", "--jaxpr"]` and the
    call `f(x, y)`. Options come first; each known option takes its value (`-n 10`, `-n10`,
    `--in-axes=0,None`, or quoted); the first word that is not an option starts the call."""
    known = {s: a for a in parser._actions for s in a.option_strings}
    argv: list[str] = []
    pos = 0
    while (m := _TOKEN.match(line, pos)) and m.group(1).startswith("-"):
        token, pos = m.group(1), m.end()
        name, eq, value = token.partition("=")
        if not name.startswith("--") and len(name) > 2:  # -n10
            name, eq, value = token[:2], "=", token[2:]
        action = known.get(name)
        if action is None:
            options = ", ".join(sorted(known)) or "none"
            raise UsageError(f"{magic}: unknown option {name} (options: {options}); see {magic}?")
        if action.nargs == 0:
            if eq:
                raise UsageError(f"{magic}: option {name} takes no value")
            argv.append(name)
            continue
        if not eq:
            m = _TOKEN.match(line, pos)
            if m is None:
                raise UsageError(f"{magic}: option {name} needs a value; see {magic}?")
            value, pos = m.group(1), m.end()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif value.endswith(","):  # `--argnums 0, 1`: the space cut the value in two
            quoted = _QUOTED_EXAMPLES.get(name, '"..."')
            raise UsageError(
                f"{magic}: the value of {name}, {value!r}, ends with a comma: a space cut it "
                f"in two. Write the value without spaces, or in quotes: {name} {quoted}"
            )
        argv.append(f"{name}={value}")
    return argv, line[pos:].strip()


_QUOTED_EXAMPLES = {
    "--argnums": '"0, 1"',
    "--in-axes": '"(0, None)"',
    "--out-axes": '"(0, None)"',
}


def parse_call(source: str, magic: str) -> ast.Call:
    """The `ast.Call` of a magic's call text; UsageError if it is not one call."""
    example = "; options go before the call, e.g. " + _EXAMPLES[magic.lstrip("%")]
    if not source:
        raise UsageError(f"{magic}: expected a call like f(x){example}")
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        if _is_statement(source):  # `%grad x = 3`: Python, but not an expression
            raise UsageError(
                f"{magic} expects a call like f(x), got the statement {source!r}; to keep "
                f"the result, assign the magic: y = {magic} f(x)"
            ) from None
        raise UsageError(
            f"{magic}: expected a call like f(x), got {source!r} (not valid Python){example}"
        ) from None
    if not isinstance(tree.body, ast.Call):
        raise UsageError(f"{magic}: expected a call like f(x), got {source!r}")
    return tree.body


def _is_statement(source: str) -> bool:
    try:
        ast.parse(source, mode="exec")
    except SyntaxError:
        return False
    return True


_EXAMPLES = {
    "jaxpr": "%jaxpr f(x)",
    "grad": "%grad --argnums 0,1 f(x, y)",
    "vmap": "%vmap --in-axes 0,None f(xs, w)",
    "jit": "%jit -n 100 -r 5 f(x)",
}

# Frames of these modules are neither the engine nor the user's (a traceback passing
# through functools or NumPy alone does not make an error the user's).
_NEUTRAL_MODULES = frozenset(sys.stdlib_module_names) | {"numpy", "jaxlib", "ml_dtypes"}


def _raised_in_user_code(exc: BaseException) -> bool:
    tb = exc.__traceback__
    while tb is not None:
        module = tb.tb_frame.f_globals.get("__name__") or ""
        top = module.split(".")[0]
        if top != "didax" and top not in _NEUTRAL_MODULES:
            return True
        tb = tb.tb_next
    return False


def _one_line(exc: BaseException) -> str:
    text = " ".join(part.strip() for part in str(exc).splitlines() if part.strip())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# ----------------------------------------------------------------------------- magics


@magics_class
class DidaxMagics(Magics):
    """didax's magics: `%jaxpr`, `%grad`, `%vmap`, `%jit` and their cell forms."""

    def _call(
        self, method: Any, magic: str, line: str, cell: str | None
    ) -> tuple[argparse.Namespace, Callable[..., Any], tuple, dict, str]:
        __tracebackhide__ = True
        name = f"%%{magic}" if cell is not None else f"%{magic}"
        argv, call_text = split_options(line, method.parser, name)
        try:
            options = method.parser.parse_args(argv)
        except UsageError as e:
            raise UsageError(f"{name}: {e}") from None
        if cell is None:
            source = call_text.rstrip().rstrip(";").rstrip()
            node = parse_call(source, name)
            filename = self.shell.compile.cache(source, self.shell.execution_count)
        else:
            if call_text:
                raise UsageError(
                    f"{name}: the call goes on the cell's last line, not after "
                    f"{name}; got {call_text!r}"
                )
            source = self.shell.transform_cell(cell)
            filename = self.shell.compile.cache(source, self.shell.execution_count, cell)
            node = self._run_cell_body(source, filename, name)
        fn, args, kwargs = self._evaluate(node, filename, name)
        return options, fn, args, kwargs, ast.get_source_segment(source, node) or source

    def _run_cell_body(self, source: str, filename: str, name: str) -> ast.Call:
        __tracebackhide__ = True
        try:
            tree = ast.parse(source, filename)
        except SyntaxError as e:
            raise UsageError(
                f"{name}: invalid syntax in the cell, line {e.lineno}: {(e.text or '').strip()!r}"
            ) from None
        last = tree.body[-1] if tree.body else None
        if not (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)):
            got = ast.get_source_segment(source, last) if last is not None else ""
            raise UsageError(f"{name}: the cell's last line must be a call like f(x), got {got!r}")
        body = ast.Module(body=tree.body[:-1], type_ignores=[])
        exec(self.shell.compile(body, filename, "exec"), self.shell.user_ns)  # noqa: S102
        return last.value

    def _eval(self, node: ast.expr, filename: str, name: str) -> Any:
        __tracebackhide__ = True
        code = self.shell.compile(ast.Expression(body=node), filename, "eval")
        try:
            return eval(code, self.shell.user_ns)
        except NameError as e:  # a typo in the call itself, not in code it runs
            tb = e.__traceback__
            if tb is not None and tb.tb_next is not None and tb.tb_next.tb_next is None:
                raise UsageError(f"{name}: {e}") from None
            raise

    def _evaluate(
        self, call: ast.Call, filename: str, name: str
    ) -> tuple[Callable[..., Any], tuple, dict]:
        __tracebackhide__ = True
        fn = self._eval(call.func, filename, name)
        if not callable(fn):
            what = ast.unparse(call.func)
            raise UsageError(
                f"{name}: {what} is not callable (it is a value of type "
                f"{type(fn).__name__}); expected a call like f(x)"
            )
        args: list[Any] = []
        for a in call.args:
            if isinstance(a, ast.Starred):
                args.extend(self._eval(a.value, filename, name))
            else:
                args.append(self._eval(a, filename, name))
        kwargs: dict[str, Any] = {}
        for k in call.keywords:
            if k.arg is None:
                kwargs.update(self._eval(k.value, filename, name))
            else:
                kwargs[k.arg] = self._eval(k.value, filename, name)
        return fn, tuple(args), kwargs

    def _report(self, name: str, build: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        # An error that the transformation raised with no user frame on the way (bad
        # arguments, a non-scalar output for grad) is a usage mistake: say it in one line.
        __tracebackhide__ = True
        try:
            return build(*args, **kwargs)
        except (TypeError, ValueError, NotImplementedError) as e:
            if _raised_in_user_code(e):
                raise
            raise UsageError(f"{name}: {_one_line(e)}") from None

    def _value_is_shown(self, line: str, cell: str | None, magic: str) -> bool:
        """Whether IPython will show this magic's value as Out[]: the running cell (the
        display hook's `exec_result`) ends with this magic as an expression, without `;`
        (`%jaxpr f(x);` keeps its `;` in the line: IPython then drops the value)."""
        if cell is None and line.rstrip().endswith(";"):
            return False
        hook = getattr(self.shell, "displayhook", None)
        info = getattr(getattr(hook, "exec_result", None), "info", None)
        raw = getattr(info, "raw_cell", None)
        if not raw:
            return False  # not run by run_cell: nothing shows the value
        try:
            source = self.shell.transform_cell(raw)
            if hook.semicolon_at_end_of_expression(source):
                return False
            tree = ast.parse(source)
        except Exception:  # noqa: BLE001 - no way to tell: display it
            return False
        last = tree.body[-1] if tree.body else None
        if not (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)):
            return False
        fn, args = last.value.func, last.value.args
        kind = "run_cell_magic" if cell is not None else "run_line_magic"
        return (
            isinstance(fn, ast.Attribute)
            and fn.attr == kind
            and bool(args)
            and isinstance(args[0], ast.Constant)
            and args[0].value == magic
        )

    def _name(self, magic: str, cell: str | None) -> str:
        return f"%%{magic}" if cell is not None else f"%{magic}"

    def _show_report(
        self,
        method: Any,
        magic: str,
        line: str,
        cell: str | None,
        options_of: Callable[[argparse.Namespace], dict[str, Any]],
    ) -> Any:
        # %grad and %vmap: parse, evaluate the call, build the report from the options,
        # display its view; the caller returns the report's value
        __tracebackhide__ = True
        options, fn, args, kwargs, call = self._call(method, magic, line, cell)
        build = {"grad": reports.grad_report, "vmap": reports.vmap_report}[magic]
        name = self._name(magic, cell)
        report = self._report(name, build, fn, args, kwargs, call=call, **options_of(options))
        display(report_views.view_for(report))
        return report

    # ------------------------------------------------------------------------- %jaxpr

    @magic_arguments()
    @kwds(usage="jaxpr f(x)\n  %%%%jaxpr   (in a cell whose last line is the call)")
    @no_var_expand
    @output_can_be_silenced
    @line_cell_magic
    def jaxpr(self, line: str, cell: str | None = None) -> Any:
        """Trace a call and show its jaxpr: the program, its input and output types and its
        constants. Returns the `ClosedJaxpr` (like `didax.make_jaxpr(f)(x)`).

        Example::

            %jaxpr f(jnp.ones(3))
            %jaxpr jnp.dot(x, w)
            closed = %jaxpr f(x, scale=2.0)
        """
        __tracebackhide__ = True
        name = self._name("jaxpr", cell)
        _, fn, args, kwargs, call = self._call(self.jaxpr, "jaxpr", line, cell)
        report = self._report(name, reports.jaxpr_report, fn, args, kwargs, call=call)
        leaves = tree_util.tree_leaves((args, [kwargs[k] for k in sorted(kwargs)]))
        view = report_views.jaxpr_view(report, leaves)
        if self._value_is_shown(line, cell, "jaxpr"):
            widgets.views.attach_view(report.jaxpr, view)  # Out[] shows it, once
        else:
            display(view)
        return report.jaxpr

    # ------------------------------------------------------------------------- %grad

    @magic_arguments()
    @kwds(
        usage="grad [--argnums 0,1] [--jaxpr] f(x, y)\n"
        "  %%%%grad [--argnums 0,1] [--jaxpr]   (in a cell whose last line is the call)"
    )
    @argument(
        "--argnums",
        type=argnums_value,
        default=0,
        help="which positional arguments to differentiate: 0, or 0,1 for a tuple of "
        "gradients (default 0)",
    )
    @argument(
        "--jaxpr",
        action="store_true",
        help="also show the forward, linearized and transposed programs",
    )
    @no_var_expand
    @output_can_be_silenced
    @line_cell_magic
    def grad(self, line: str, cell: str | None = None) -> Any:
        """Value and gradient of a scalar function at a call's arguments. Returns the
        gradient (like `didax.grad(f, argnums)(x, y)`); keyword arguments are not
        differentiated.

        Example::

            %grad f(3.0)
            %grad --argnums 0,1 loss(w, b, xs)
            g = %grad --jaxpr f(x)
        """
        __tracebackhide__ = True
        options = lambda o: {"argnums": o.argnums, "programs": o.jaxpr}  # noqa: E731
        return self._show_report(self.grad, "grad", line, cell, options).gradient

    # ------------------------------------------------------------------------- %vmap

    @magic_arguments()
    @kwds(
        usage="vmap [--in-axes 0,None] [--out-axes 0] f(xs, w)\n"
        "  %%%%vmap [--in-axes 0,None] [--out-axes 0]   (last line of the cell: a call)"
    )
    @argument(
        "--in-axes",
        type=axes_value,
        default=0,
        help="the axis of each argument to map over, None for an unmapped one: 0, or "
        "0,None, or a dict for a dict argument (default 0)",
    )
    @argument(
        "--out-axes",
        type=axes_value,
        default=0,
        help="where the batch axis goes in the output (default 0)",
    )
    @no_var_expand
    @output_can_be_silenced
    @line_cell_magic
    def vmap(self, line: str, cell: str | None = None) -> Any:
        """Map a function over an axis of its arguments; show the batched output, the
        per-example program and the batched program. Returns the batched output (like
        `didax.vmap(f, in_axes, out_axes)(xs, w)`).

        Example::

            %vmap f(jnp.ones((4, 3)))
            %vmap --in-axes 0,None predict(xs, w)
            ys = %vmap --in-axes 1 --out-axes 1 f(x)
        """
        __tracebackhide__ = True
        options = lambda o: {"in_axes": o.in_axes, "out_axes": o.out_axes}  # noqa: E731
        return self._show_report(self.vmap, "vmap", line, cell, options).output

    # ------------------------------------------------------------------------- %jit

    @magic_arguments()
    @kwds(
        usage="jit [-n N] [-r R] [--budget S] [-o] f(x)\n"
        "  %%%%jit [-n N] [-r R] [--budget S] [-o]   (in a cell whose last line is the call)"
    )
    @argument(
        "-n",
        type=_count,
        default=0,
        help="calls per timing run (default: chosen as %%timeit does, so that a run "
        "takes at least 0.2 s)",
    )
    @argument("-r", type=_count, default=7, help="timing runs; the best counts (default 7)")
    @argument(
        "--budget",
        type=_seconds,
        default=timing.DEFAULT_BUDGET,
        help="seconds the timing runs may take beyond the first calls, compiled and eager "
        f"together (default {timing.DEFAULT_BUDGET:g}; 0: no limit); at least one run each",
    )
    @argument("-o", action="store_true", help="return the JitReport instead of the result")
    @no_var_expand
    @output_can_be_silenced
    @line_cell_magic
    def jit(self, line: str, cell: str | None = None) -> Any:
        """Compile a call with `didax.jit` and time it as %timeit does: trace, lower,
        compile, first run and steady state, against eager evaluation of the same call,
        with the speed-up; StableHLO, optimized HLO and XLA's cost analysis. Every timed
        call blocks until its result is ready. Returns the result (with -o, the report).

        Example::

            %jit f(x)
            %jit -n 100 -r 5 predict(w, xs)
            report = %jit -o f(x)
        """
        __tracebackhide__ = True
        name = self._name("jit", cell)
        options, fn, args, kwargs, call = self._call(self.jit, "jit", line, cell)
        if options.r < 1:
            raise UsageError(f"{name}: -r must be at least 1, got {options.r}")
        progress = widgets.views.Progress(options.r, "compiling")
        # its bundle, so the handle's id is the output's (the view replaces it)
        handle = display(progress._repr_mimebundle_(), raw=True, display_id=True)
        report = self._report(
            name,
            timing.jit_report,
            fn,
            args,
            kwargs,
            number=options.n,
            repeat=options.r,
            budget=options.budget or None,
            call=call,
            progress=lambda what, done, total: progress.update(done, total, what),
        )
        if options.o and self._value_is_shown(line, cell, "jit"):
            # Out[] shows the report's own view: clear the progress, show it once
            if handle is not None:
                handle.update({"text/plain": ""}, raw=True)
            return report
        widgets.views.show(report_views.jit_view(report), handle)
        return report if options.o else report.result

    # ------------------------------------------------------------------------- %rules

    @line_magic
    def rules(self, line: str) -> None:
        """Show didax's own code for a primitive's rules (impl, abstract eval, jvp,
        transpose, batching, lowering), each with a link to its file: %rules sin"""
        name = line.strip()
        if not re.fullmatch(r"[A-Za-z_][\w]*", name):
            raise UsageError("%rules: expected a primitive's name, as jaxprs print it: %rules sin")
        try:
            report = reports.rules_report(name)
        except ValueError as e:
            raise UsageError(f"%rules: {e}") from None
        display(report_views.rules_view(report))


MAGIC_NAMES = ("jaxpr", "grad", "vmap", "jit", "rules")


def _display_report(report: Any) -> None:
    widgets.views.show(report_views.view_for(report))


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics with a running IPython shell, and the views of ClosedJaxprs and
    of reports with its display formatter (as `_ipython_display_` printers: a widget view
    is displayed with its stand-in, `didax.widgets.views.show`)."""
    ipython.register_magics(DidaxMagics)
    widgets.install_display(ipython, report_views.rules_markup)
    formatter = ipython.display_formatter.ipython_display_formatter
    for report_type in sections.REPORT_TYPES:
        formatter.for_type(report_type, _display_report)


def unload_ipython_extension(ipython: Any) -> None:
    """Remove the magics and the views again (`%unload_ext didax`)."""
    manager = ipython.magics_manager
    for kind in ("line", "cell"):
        table = manager.magics[kind]
        for name in MAGIC_NAMES:
            if isinstance(getattr(table.get(name), "__self__", None), DidaxMagics):
                del table[name]
    manager.registry.pop(DidaxMagics.__name__, None)
    widgets.uninstall_display(ipython)
    for report_type in sections.REPORT_TYPES:
        ipython.display_formatter.ipython_display_formatter.pop(report_type, None)
