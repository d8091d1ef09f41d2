"""didax.widgets: ipywidgets views of programs, their transformations and compiled form.

`JaxprView(closed)`, `Stepper(closed, *args)`, `TimingView(model)`, `CompiledView(stablehlo,
hlo, cost)`, `TransformView(stages)`; data in `model`, markup in `markup` (STYLE.md §9).
"""

from didax.widgets.model import EqnCost, EqnLink, Row, Stage, TimingModel
from didax.widgets.views import (
    CompiledView,
    JaxprView,
    ReportView,
    Stepper,
    TimingView,
    TransformView,
    jaxpr_bundle,
)

__all__ = [
    "CompiledView",
    "EqnCost",
    "EqnLink",
    "JaxprView",
    "ReportView",
    "Row",
    "Stage",
    "Stepper",
    "TimingModel",
    "TimingView",
    "TransformView",
    "jaxpr_bundle",
]
