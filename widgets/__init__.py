"""didax.widgets: ipywidgets views of programs, their transformations and compiled form.

`JaxprView(closed)`, `Stepper(closed, *args)`, `TimingView(model)`, `CompiledView(stablehlo,
hlo, cost)`, `TransformView(stages)`. The data they show and its HTML and text are in
didax.display (plain data, importable without ipywidgets; STYLE.md §9); this package is the
ipywidgets (views.py) and grandalf (layout.py) side.
"""

from didax.display.compiled import TimingModel
from didax.display.parts import Row
from didax.display.provenance import EqnCost, Stage
from didax.widgets.views import (
    CompiledView,
    JaxprView,
    ReportView,
    Stepper,
    TimingView,
    TransformView,
    install_display,
    jaxpr_bundle,
    uninstall_display,
)

__all__ = [
    "CompiledView",
    "EqnCost",
    "JaxprView",
    "ReportView",
    "Row",
    "Stage",
    "Stepper",
    "TimingModel",
    "TimingView",
    "TransformView",
    "install_display",
    "jaxpr_bundle",
    "uninstall_display",
]
