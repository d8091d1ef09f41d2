"""What a view is displayed as, for the tests that read outputs (in-process shell, kernel):
the widget mime type and a widget view's stand-in output (widgets.views.display_outputs)."""

from __future__ import annotations

WIDGET = "application/vnd.jupyter.widget-view+json"


def is_standin(bundle: dict) -> bool:
    """Whether a displayed bundle is a widget view's stand-in: static HTML alone, hidden
    unless the widget before it cannot be drawn."""
    return set(bundle) == {"text/html"} and 'class="dx-standin"' in bundle["text/html"]
