"""The views: ipywidgets assembled from the models and their markup (didax.display).

Every view's `_repr_mimebundle_` carries the widget, a `text/plain` that is its model's text
(the jaxpr, the timing table; never a widget repr) and a static `text/html` fallback, so a
stored notebook reads on GitHub, in nbconvert and in a terminal; a view with a widget is
displayed with a stand-in output after it (`show`), which JupyterLab shows when it cannot draw
the widget. Interaction that needs the kernel (stepping, searching compiler text, zooming the
graph, folding everything) goes through ipywidgets' Buttons and Text boxes; clicking a
variable, folding one jaxpr and clicking a primitive's name to read its rules need no kernel
(markup.py says how).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as w
from didax.display import compiled, program, provenance
from didax.display import graph as graphs
from didax.display import markup as mk
from didax.display.parts import Row
from didax.display.stepper import StepperState
from didax.display.text import rows_text
from didax.jaxpr import ClosedJaxpr
from didax.widgets.layout import layout_graph
from IPython.display import display

# ----------------------------------------------------------------------------- base


WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


class _Fallbacks:
    """Adds `text/plain` and `text/html` to an ipywidget's mime bundle, leaves the widget
    out of it when the view needs no kernel (`needs_kernel`), and displays a widget view with
    a stand-in output after it (`display_outputs`).

    Why: JupyterLab renders the richest mime type it can, and the widget's (rank -10, before
    text/html) whenever the notebook is trusted; reopened without the widget's model (a new
    kernel, or none; the widget state not saved: JupyterLab saves it only with the
    `saveState` setting of @jupyter-widgets/jupyterlab-manager, off by default) its renderer
    writes "Error displaying widget: model not found" (or "Loading widget..."), never the
    text/html beside it (tests/browser/test_widget_copies_in_lab.py shows it). A view whose
    interactions all work without a kernel (clicking a variable, folding: pure HTML and CSS)
    is therefore shown as its HTML alone, live and stored alike. A view that needs the kernel
    (buttons, text boxes, tabs drawn on demand) keeps its widget, and a second output, its
    stand-in, carries the same text/html: hidden, unless the widget before it is not drawn
    (theme.STANDIN_CSS). Where the bundle's own text/html is shown (an untrusted notebook,
    nbconvert), the stand-in stays hidden by its inline `display:none`. The copy is the view
    as displayed: a stepper stepped later is stored as it was then."""

    def text(self) -> str:
        raise NotImplementedError

    def fallback_html(self) -> str:
        raise NotImplementedError

    def needs_kernel(self) -> bool:
        return True  # buttons, text boxes, tabs drawn on demand

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        # the stored text/html with inline styles: an untrusted notebook's HTML loses <style>
        own = {"text/plain": self.text(), "text/html": mk.inline_styles(self.fallback_html())}
        if not self.needs_kernel():
            return own
        bundle = w.DOMWidget._repr_mimebundle_(self, **kwargs) or {}  # type: ignore[arg-type]
        return {**bundle, **own}

    def _ipython_display_(self) -> None:
        show(self)

    def __repr__(self) -> str:
        return self.text()


def display_outputs(view: Any) -> list[dict[str, Any]]:
    """The outputs a view is displayed as: its mime bundle and, if that holds a widget, the
    widget's stand-in (`{"text/html": ...}`: the same static HTML, shown where the widget
    cannot be drawn; `_Fallbacks` says why)."""
    bundle = view._repr_mimebundle_()
    if WIDGET_MIME not in bundle:
        return [bundle]
    return [bundle, {"text/html": mk.standin(bundle["text/html"])}]


def show(view: Any, handle: Any = None) -> None:
    """Display a view as its outputs (`display_outputs`); given a display `handle` (an
    output shown before, as %jit's progress), the view replaces that output."""
    first, *rest = display_outputs(view)
    if handle is not None:
        handle.update(first, raw=True)
    else:
        display(first, raw=True)
    for bundle in rest:
        display(bundle, raw=True)


# The markup of a primitive's rules for a JaxprView or Stepper made without `rules=` (as a
# notebook makes `Stepper(closed, x)`): the one `%load_ext didax` installs (`install_display`),
# None without the extension. Set only by install_display/uninstall_display.
_installed_rules: Callable[[Any], str] | None = None


def _rules_by_name(closed: Any, rules: Callable[[Any], str] | None) -> dict[str, str]:
    # the markup of each primitive's rules, shown below the program on a click on its name
    prims = program.primitives_in(closed).items() if rules is not None else ()
    return {name: rules(prim) for name, prim in prims}


def _html(body: str, kind: str = "") -> w.HTML:
    return w.HTML(mk.view(body, kind))


# The "try it" line under each view: (interaction, whether it works without a kernel, so in
# the stored `text/html` too).
TRY_JAXPR = (
    ("click a variable to light up its binding and uses", True),
    ("click \u25be to fold an equation or a nested jaxpr", True),
    ("hover an equation for its source line, a parameter for its meaning", True),
    ("fold all / unfold all", False),
    (
        "the Graph tab draws the dataflow graph (zoom it; given the call, each node's value "
        "and cotangent)",
        False,
    ),
)
TRY_STEP = (("step through: evaluate it one equation at a time", False),)
TRY_PRIMITIVE = (("click a primitive's name to read didax's code for its rules", True),)
TRY_STEPPER = (
    ("next / previous / run to end / reset; each value appears as it is defined", False),
    ("click a variable to light up its binding and uses", True),
)
TRY_TIMING = (("hover a bar for its time", True),)
TRY_COMPILED = (
    ("find searches both compiler texts", False),
    ("show metadata brings back source locations", False),
    ("the cost tab explains XLA's per-operand keys", False),
)
TRY_TRANSFORM = (
    ("click a variable to light up its binding and uses", True),
    ("the marks name the equation of the first program each line comes from", True),
)


TRY_RULES = (("open a rule's file from its link", True),)


def try_line(interactions: Sequence[tuple[str, bool]], *, stored: bool = False) -> str:
    """The markup of a view's "try it" line; `stored`: only what works without a kernel."""
    return mk.try_it([what for what, static in interactions if static or not stored])


# ----------------------------------------------------------------------------- JaxprView


class GraphPanel(w.VBox):
    """The Graph tab: the dataflow graph laid out by grandalf, drawn on first show, with a
    zoom slider; the drawing scrolls in both directions. A program longer than
    `graphs.WINDOW` equations is drawn a window at a time (earlier / later buttons)."""

    def __init__(self, closed: Any, args: Sequence[Any] | None = None) -> None:
        self.closed = closed
        self.args = args  # a concrete call's: each node shows its value (and cotangent)
        self.start = 0
        self.graph: graphs.GraphModel | None = None
        self.placed: graphs.Placed | None = None
        self.zoom = w.FloatSlider(
            value=1.0, min=0.2, max=2.0, step=0.1, description="zoom", continuous_update=False
        )
        self.drawing = w.HTML()
        self.zoom.observe(lambda _: self.draw(), names="value")
        export = w.Button(description="export SVG", icon="download", layout=w.Layout(width="auto"))
        self.export = w.HTML()  # the download link, made when asked
        export.on_click(lambda _: self.offer_svg())
        tools: list[w.Widget] = [self.zoom, export, self.export]
        nested = graphs.expandable(closed)
        self.expand = w.SelectMultiple(
            options=[(label, i) for i, label in nested],
            description="expand",
            rows=min(4, max(len(nested), 1)),
        )
        self.expand.observe(lambda _: self.redraw(), names="value")
        if nested:  # open a nested jaxpr in place (select again to close it)
            tools.append(self.expand)
        top = closed.jaxpr if isinstance(closed, ClosedJaxpr) else closed
        if len(top.eqns) > graphs.WINDOW:
            earlier = w.Button(description="earlier", icon="arrow-up")
            later = w.Button(description="later", icon="arrow-down")
            earlier.on_click(lambda _: self.move(-graphs.WINDOW))
            later.on_click(lambda _: self.move(graphs.WINDOW))
            tools += [earlier, later]
        super().__init__([w.HBox(tools), self.drawing])

    def redraw(self) -> None:
        self.graph = None
        self.export.value = ""  # an offered file of the old drawing goes
        self.draw()

    def move(self, by: int) -> None:
        top = self.closed.jaxpr if isinstance(self.closed, ClosedJaxpr) else self.closed
        start = max(0, min(self.start + by, len(top.eqns) - 1))
        if start != self.start:
            self.start, self.graph = start, None
            self.export.value = ""
            self.draw()

    def svg_file(self) -> str:
        """The graph as drawn now (window, expanded bodies), as a standalone SVG file."""
        if self.graph is None:
            self.draw()
        assert self.graph is not None and self.placed is not None
        return mk.graph_svg_file(self.graph, self.placed)

    def offer_svg(self) -> None:
        self.export.value = mk.view(
            mk.download_link(self.svg_file(), "graph.svg", "image/svg+xml", "save graph.svg")
        )

    def draw(self) -> None:
        if self.graph is None:
            self.graph = graphs.graph_model(
                self.closed, self.start, args=self.args, expanded=self.expand.value
            )
            self.placed = layout_graph(self.graph)
        assert self.placed is not None
        svg = mk.graph_svg(self.graph, self.placed, self.zoom.value)
        note = mk.note(self.graph.note()) if self.graph.note() else ""
        self.drawing.value = mk.view(f'{note}<div class="dx-scroll">{svg}</div>', "graph")


class JaxprView(_Fallbacks, w.VBox):
    """A jaxpr: its text highlighted by token kind (click a variable to highlight its
    binding and uses; fold multi-line equations and nested jaxprs; hover an equation for its
    source line and a parameter for what it means; given `rules`, the markup of a primitive's
    rules, click a primitive's name to read them below the program), its inputs and outputs,
    a Graph tab and, given the arguments, a Stepper."""

    def __init__(
        self,
        closed: Any,
        *,
        inputs: Sequence[Row] | None = None,
        outputs: Sequence[Row] | None = None,
        args: Sequence[Any] | None = None,
        graph: bool = True,
        rules: Callable[[Any], str] | None = None,
    ) -> None:
        self.closed = closed
        self.jaxpr_model = program.jaxpr_model(closed, inputs, outputs)
        rules = rules or _installed_rules
        self.rules_of = rules  # the stepper's program shows them too
        self.rules = _rules_by_name(closed, rules)
        self.uid = mk.new_uid()
        self.folded: set[int] = set()
        self.code = w.HTML()
        self.render()
        fold = w.Button(description="fold all", layout=w.Layout(width="auto"))
        unfold = w.Button(description="unfold all", layout=w.Layout(width="auto"))
        fold.on_click(lambda _: self.fold_all(True))
        unfold.on_click(lambda _: self.fold_all(False))
        tools: list[w.Widget] = [fold, unfold] if self.jaxpr_model.folds else []
        self.args = tuple(args) if args is not None else None
        self.stepper_box = w.VBox()
        if self.args is not None:
            step = w.Button(description="step through", icon="step-forward")
            step.on_click(lambda _: self.open_stepper())
            tools.append(step)
        self.tries = TRY_JAXPR + (TRY_PRIMITIVE if self.rules else ())
        tries = self.tries + (TRY_STEP if self.args is not None else ())
        text_tab = w.VBox([w.HBox(tools), self.code, w.HTML(try_line(tries)), self.stepper_box])
        children: list[w.Widget] = [text_tab]
        self.graph_panel: GraphPanel | None = None
        if graph:
            self.graph_panel = GraphPanel(closed, self.args)
            tabs = w.Tab([text_tab, self.graph_panel])
            tabs.set_title(0, "Text")
            tabs.set_title(1, "Graph")
            tabs.observe(self._on_tab, names="selected_index")
            self.tabs = tabs
            children = [tabs]
        super().__init__(children)

    def _on_tab(self, change: dict) -> None:
        if change["new"] == 1 and self.graph_panel is not None and self.graph_panel.graph is None:
            self.graph_panel.draw()

    def graph_svg(self) -> str:
        """The Graph tab's drawing as a standalone SVG file's text (drawn if not yet)."""
        panel = self.graph_panel or GraphPanel(self.closed, self.args)
        return panel.svg_file()

    def render(self) -> None:
        code = mk.jaxpr_code(self.jaxpr_model, self.uid, folded=self.folded, rules=self.rules)
        self.code.value = mk.view(code + mk.io_tables(self.jaxpr_model), "jaxpr")

    def fold_all(self, fold: bool) -> None:
        self.folded = {f.start for f in self.jaxpr_model.folds} if fold else set()
        self.render()

    def open_stepper(self) -> Stepper:
        assert self.args is not None
        stepper = Stepper(self.closed, *self.args, rules=self.rules_of)
        self.stepper_box.children = [stepper]
        return stepper

    def text(self) -> str:
        return "\n".join(filter(None, [self.jaxpr_model.text(), self.jaxpr_model.note()]))

    def fallback_html(self) -> str:
        # the Text tab as it shows now (the Graph tab is drawn when opened)
        return self.code.value + try_line(self.tries, stored=True)


# ----------------------------------------------------------------------------- Stepper


class Stepper(_Fallbacks, w.VBox):
    """Evaluates a closed jaxpr one equation at a time through the kernel: next, previous,
    run to the end, reset. The next equation is highlighted; each variable's type and value
    appear as it is defined; `jit`, `cond`'s taken branch, `while` and `scan` iterations are entered
    (the values table says where: `program > while iteration 2`). `rules`: as JaxprView's, a
    click on a primitive's name in the program shows its rules below it."""

    def __init__(self, closed: Any, *args: Any, rules: Callable[[Any], str] | None = None) -> None:
        rules = rules or _installed_rules
        self.state = StepperState(closed, tuple(args))
        self.jaxpr_model = program.jaxpr_model(closed)
        self.rules = _rules_by_name(closed, rules)
        self.tries = TRY_STEPPER + (TRY_PRIMITIVE if self.rules else ())
        self.lines = program.eqn_lines(closed)
        self.uid = mk.new_uid()
        self.buttons = {
            "reset": w.Button(description="reset", icon="fast-backward"),
            "previous": w.Button(description="previous", icon="step-backward"),
            "next": w.Button(description="next", icon="step-forward"),
            "run": w.Button(description="run to end", icon="fast-forward"),
        }
        actions = {
            "reset": self.state.reset,
            "previous": self.state.back,
            "next": self.state.step,
            "run": self.state.run,
        }
        for name, button in self.buttons.items():
            button.on_click(lambda _, act=actions[name]: self._do(act))
        self.body = w.HTML()
        super().__init__(
            [w.HBox(list(self.buttons.values())), self.body, w.HTML(try_line(self.tries))]
        )
        self.render()

    def _do(self, action: Any) -> None:
        action()
        self.render()

    def status(self) -> str:
        s = self.state
        if s.done:
            return f"done after {s.steps} steps"
        cur = s.current()
        assert cur is not None, "a stepper that is not done has a next step"
        where, eqn = cur
        what = eqn.primitive.name if eqn is not None else "return"
        return f"step {s.steps}: next is {what} in {where}"

    def current_line(self) -> int | None:
        cur = self.state.current()
        if cur is None or cur[1] is None:
            return None
        return self.lines.get(id(cur[1]))

    def render(self) -> None:
        s = self.state
        self.body.value = mk.view(
            mk.stepper_html(
                self.jaxpr_model,
                self.uid,
                self.current_line(),
                s.where,
                s.log,
                self.status(),
                rules=self.rules,
            ),
            "stepper",
        )
        self.buttons["next"].disabled = self.buttons["run"].disabled = s.done
        self.buttons["previous"].disabled = s.steps == 0

    def text(self) -> str:
        lines = [self.status()] + [f"  {v} = {x}   ({w_})" for w_, v, x in self.state.log]
        return "\n".join(lines)

    def fallback_html(self) -> str:
        return self.body.value + try_line(self.tries, stored=True)


# ----------------------------------------------------------------------------- Timing


class TimingView(_Fallbacks, w.VBox):
    """`%jit`'s timings: compiled against eager as bars, the phases, every run, the speed-up
    and what eager means, and %timeit's warning."""

    def __init__(self, timing: compiled.TimingModel) -> None:
        self.timing = timing
        super().__init__([_html(mk.timing_html(timing), "timing"), w.HTML(try_line(TRY_TIMING))])

    def text(self) -> str:
        return self.timing.text

    def needs_kernel(self) -> bool:
        return False  # hover titles only

    def fallback_html(self) -> str:
        return mk.view(mk.timing_html(self.timing), "timing") + try_line(TRY_TIMING, stored=True)


class Progress(_Fallbacks, w.HBox):
    """Progress of a long timing: `compiled: 3 of 7 runs`."""

    def __init__(self, total: int = 1, what: str = "timing") -> None:
        self.bar = w.IntProgress(value=0, min=0, max=max(total, 1))
        self.label = w.Label(what)
        super().__init__([self.bar, self.label])

    def text(self) -> str:
        return self.label.value

    def fallback_html(self) -> str:
        return mk.view(mk.note(self.label.value))

    def update(self, done: int, total: int, what: str) -> None:
        self.bar.max = max(total, 1)
        self.bar.value = min(done, self.bar.max)
        self.label.value = f"{what}: {done} of {total} runs"


# ----------------------------------------------------------------------------- Compiled


class CompiledView(_Fallbacks, w.VBox):
    """StableHLO and optimized HLO (highlighted, searchable, long lines scroll, metadata
    hidden unless asked), XLA's cost analysis as a table (per-operand keys under a fold) and
    the per-equation cost table (`eqn_costs`: `provenance.EqnCost` rows of a cost table)."""

    def __init__(
        self,
        stablehlo: str,
        hlo: str,
        cost: dict[str, Any] | None = None,
        *,
        eqn_costs: Sequence[provenance.EqnCost] = (),
        text: str | None = None,
    ) -> None:
        self.stablehlo = compiled.hlo_model(stablehlo)
        self.hlo = compiled.hlo_model(hlo)
        self.cost = compiled.cost_model(cost)
        self.eqn_costs = tuple(eqn_costs)
        self._text = text
        self.search = w.Text(placeholder="search", description="find", continuous_update=False)
        self.metadata = w.Checkbox(value=False, description="show metadata")
        self.code_views = [w.HTML(), w.HTML()]
        self.search.observe(lambda _: self.render(), names="value")
        self.metadata.observe(lambda _: self.render(), names="value")
        tabs = w.Tab(
            [
                self.code_views[0],
                self.code_views[1],
                _html(mk.cost_html(self.cost), "cost"),
                _html(mk.eqn_cost_html(self.eqn_costs), "eqn-cost"),
            ]
        )
        for i, title in enumerate(["StableHLO", "optimized HLO", "cost", "per equation"]):
            tabs.set_title(i, title)
        self.tabs = tabs
        self.render()
        # the search box and the metadata switch act on both compiler texts
        super().__init__(
            [w.HBox([self.search, self.metadata]), tabs, w.HTML(try_line(TRY_COMPILED))]
        )

    def render(self) -> None:
        for view, model in zip(self.code_views, (self.stablehlo, self.hlo), strict=True):
            view.value = mk.view(
                mk.hlo_code(model, metadata=self.metadata.value, query=self.search.value), "hlo"
            )

    def text(self) -> str:
        if self._text is not None:
            return self._text
        cost = rows_text([*self.cost.main, *self.cost.per_operand])
        return "\n".join(
            ["StableHLO", self.stablehlo.text(), "optimized HLO", self.hlo.text(), "cost", cost]
        )

    def fallback_html(self) -> str:
        # every tab's content under its title, as the tabs show it now
        return "".join(
            mk.view(mk.heading(self.tabs.get_title(i)), "compiled") + tab.value
            for i, tab in enumerate(self.tabs.children)
        ) + try_line(TRY_COMPILED, stored=True)


# ----------------------------------------------------------------------------- Transform


class TransformView(_Fallbacks, w.VBox):
    """Programs side by side, one column per stage (f, jvp(f), linearized, transposed; or
    per-example, batched), each with its inputs and outputs and its equations' marks
    (`Stage.marks`): the first program's equation numbers, and where each equation of the
    later ones came from (`tangent of eqn 1`, from the IR's derivations); `text/plain`
    carries the marks too. Given `rules` (as JaxprView's), a click on a primitive's name in
    any column shows its rules below the columns (each primitive's once)."""

    def __init__(
        self,
        stages: Sequence[provenance.Stage],
        *,
        title: str = "",
        text: str | None = None,
        rules: Callable[[Any], str] | None = None,
    ):
        self.stages = tuple(stages)
        self.title = title
        self._text = text
        self.models = [
            program.jaxpr_model(s.jaxpr, s.inputs, s.outputs, s.marks) for s in self.stages
        ]
        prims: dict[str, Any] = {}
        for stage in self.stages if rules is not None else ():
            prims = {**program.primitives_in(stage.jaxpr), **prims}  # the first of a name
        self.rules = {name: rules(prim) for name, prim in prims.items()} if rules else {}
        self.tries = TRY_TRANSFORM + (TRY_PRIMITIVE if self.rules else ())
        # one piece of markup, so that the columns' names and the rules below them share
        # their radios; each column as wide as its program (a column too wide for the output
        # scrolls on its own), and columns that do not fit side by side wrap to the next row
        uid = mk.new_uid()
        ruled = mk.ruled_primitives(self.models, self.rules)
        above, below = mk.rules_parts(uid, ruled, self.rules) if ruled else ("", "")
        cols = "".join(
            '<div style="display:inline-block;vertical-align:top;margin:0 24px 12px 0;'
            f'max-width:100%;overflow:auto">{self._column(stage, model, (uid, ruled))}</div>'
            for stage, model in zip(self.stages, self.models, strict=True)
        )
        self.row = _html(f"{above}<div>{cols}</div>{below}", "stage")
        children: list[w.Widget] = [self.row, w.HTML(try_line(self.tries))]
        if title:
            children.insert(0, _html(mk.heading(title)))
        super().__init__(children)

    def needs_kernel(self) -> bool:
        return False  # clicking a variable, a primitive's name: CSS

    def _column(self, stage: provenance.Stage, model: program.JaxprModel, picks: mk.Picks) -> str:
        return (
            mk.heading(stage.name)
            + (mk.note(stage.note) if stage.note else "")
            + mk.jaxpr_code(model, picks=picks)
            + mk.io_tables(model)
        )

    def text(self) -> str:
        if self._text is not None:
            return self._text
        parts = [self.title] if self.title else []
        for stage, model in zip(self.stages, self.models, strict=True):
            parts += [stage.name, model.marked_text()]
        return "\n".join(parts)

    def fallback_html(self) -> str:
        title = mk.view(mk.heading(self.title)) if self.title else ""
        return title + self.row.value + try_line(self.tries, stored=True)


# ----------------------------------------------------------------------------- reports


class ReportView(_Fallbacks, w.VBox):
    """A magic's report: a heading, views and rows, with the report's text as `text/plain`
    and, as `text/html`, the static rendering of the views it shows (`static_html`)."""

    def __init__(self, children: Sequence[w.Widget], *, text: str) -> None:
        self._text = text
        super().__init__(list(children))

    def text(self) -> str:
        return self._text

    def fallback_html(self) -> str:
        return static_html(self)

    def needs_kernel(self) -> bool:
        return any(map(needs_kernel, self.children))


def needs_kernel(widget: w.Widget) -> bool:
    """Whether a widget does anything through the kernel: a view says; static HTML does not;
    a box if one of its children does; any other widget (a button, a slider) does."""
    if isinstance(widget, _Fallbacks):
        return widget.needs_kernel()
    if isinstance(widget, w.HTML):
        return False
    if isinstance(widget, w.Box):
        return any(map(needs_kernel, widget.children))
    return True


def static_html(widget: w.Widget) -> str:
    """What a live view shows, as static HTML (a stored notebook's `text/html`): a view's
    own static rendering, an HTML widget's markup, a box's children in order."""
    if isinstance(widget, _Fallbacks) and not isinstance(widget, ReportView):
        return widget.fallback_html()
    if isinstance(widget, w.HTML):
        return widget.value
    if isinstance(widget, w.Box):
        return "".join(static_html(c) for c in widget.children)
    return ""


GRAPH_INLINE = 300  # equations a report draws its graph for, statically, in its own HTML


def static_graph(closed: Any, args: Sequence[Any] | None, heading: str) -> w.HTML:
    """A program's dataflow graph drawn once, as static HTML (no kernel needed, so stored
    notebooks show it): with `args`, each node's value and cotangent. Folded under
    `heading`; a program over GRAPH_INLINE equations gets a note instead."""
    top = closed.jaxpr if isinstance(closed, ClosedJaxpr) else closed
    if len(top.eqns) > GRAPH_INLINE:
        body = mk.note(f"{len(top.eqns):,} equations: open the Graph tab of %jaxpr to draw it")
    else:
        graph = graphs.graph_model(closed, args=args)
        body = '<div class="dx-scroll">' + mk.graph_svg(graph, layout_graph(graph)) + "</div>"
    summary = f"<summary>{mk.esc(heading)}</summary>"
    return _html(f'<details class="dx-section dx-graph-static">{summary}{body}</details>', "graph")


def html_widget(body: str, kind: str = "") -> w.HTML:
    """Static markup (already escaped by markup.py) as a widget."""
    return _html(body, kind)


def html_widget_raw(markup: str) -> w.HTML:
    """Whole views' markup (markup.py's, with their style) as a widget."""
    return w.HTML(markup)


# ----------------------------------------------------------------------------- ClosedJaxpr

# The view a magic attached to the ClosedJaxpr it returns, shown by the next display of that
# jaxpr (Out[]): keyed weakly by the jaxpr, popped when shown, so it holds at most the views
# of jaxprs still alive and not yet displayed. It cannot live on ClosedJaxpr (layer 1).
_attached: weakref.WeakKeyDictionary[ClosedJaxpr, w.Widget] = weakref.WeakKeyDictionary()


def attach_view(closed: Any, view: w.Widget) -> None:
    """Show `view` the next time `closed` is displayed (a magic whose value is shown as
    Out[] attaches its report, so the jaxpr is shown once, with its labels)."""
    _attached[closed] = view


def jaxpr_view(closed: ClosedJaxpr, rules: Callable[[Any], str] | None = None) -> w.Widget:
    """The view of a ClosedJaxpr: the one a magic attached to it (shown once), else its
    JaxprView (`rules`: as JaxprView's)."""
    view = _attached.pop(closed, None)
    return JaxprView(closed, rules=rules) if view is None else view


def jaxpr_bundle(closed: ClosedJaxpr, **kwargs: Any) -> dict[str, Any]:
    """The mime bundle of a ClosedJaxpr's view (`jaxpr_view`)."""
    return jaxpr_view(closed)._repr_mimebundle_(**kwargs)


def install_display(ipython: Any, rules: Callable[[Any], str] | None = None) -> None:
    """Show every ClosedJaxpr as its JaxprView in `ipython` (`rules`: the markup of a
    primitive's rules, which a click on its name shows): its display formatter's
    `_ipython_display_` printer for the type, so the view is displayed with its stand-in
    (`show`; like an ipywidgets 7 widget, as display_data without an Out[] prompt, though
    the value is Out[n] and `_` as ever). The IR itself knows nothing of views. `%load_ext
    didax` calls this."""

    global _installed_rules
    _installed_rules = rules  # views made by hand show them too (`Stepper(closed, x)`)

    def show_jaxpr(closed: ClosedJaxpr) -> None:
        show(jaxpr_view(closed, rules))

    ipython.display_formatter.ipython_display_formatter.for_type(ClosedJaxpr, show_jaxpr)


def uninstall_display(ipython: Any) -> None:
    """Undo `install_display` (`%unload_ext didax`)."""
    global _installed_rules
    _installed_rules = None
    ipython.display_formatter.ipython_display_formatter.pop(ClosedJaxpr, None)
