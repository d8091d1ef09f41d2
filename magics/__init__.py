"""didax's IPython extension: `%load_ext didax` registers `%jaxpr`, `%grad`, `%vmap`, `%jit`.

Layer 6. This package's `__init__` imports nothing, so the reports (`reports.py`, `timing.py`:
plain data) import without IPython or ipywidgets; `didax.load_ipython_extension`
(core/__init__.py) imports `magics.py`, the IPython glue, only when IPython loads the
extension. `reports`/`timing` compute, `sections` turns a report into parts, `report_views`
assembles the widgets, `magics` is the glue.
"""
