"""didax.display: what the views show, as plain data, and its text and HTML writers.

Layer 6 (STYLE.md §9: models -> parts -> one writer each). Models: `program` (a jaxpr's printed
tokens, folds, sources), `graph` (its dataflow graph), `compiled` (timings, cost, compiler
text), `provenance` (stage diff, per-equation cost), `stepper` (the Stepper's state over the
stepping interpreter). Parts: `parts` (rows, sections, value text). Writers: `text` (plain
text), `markup` (the one module that writes HTML); didax.widgets makes the widgets. Nothing
here imports IPython, ipywidgets or grandalf (a test checks `sys.modules`).
"""
