"""How long the widgets take to build on a big program: a 2,000-equation jaxpr.

    python benchmarks/bench_widgets.py      # a few seconds on a 2-core machine

Rows (medians of 3): `JaxprView(closed)`, what a cell shows (model, markup, widgets; the
Graph tab is drawn when first opened), and with the mime bundle a cell stores (text/plain, the
text/html with its styles inline; again with the rules a click on a primitive's name shows,
written once per primitive), its static `text/html` fallback, and the Graph tab
(grandalf's layered layout and the SVG) for 2,000 and for 200 equations; then a 20,000-equation
program, once each: its view and stored text/html (the first 2,000 equations and a note saying
what is left out: `program.TEXT_WINDOW`), its Graph tab (drawn a window of 2,000 equations at a
time). The issue's targets: a 2,000-equation jaxpr builds its view in under a second, its Graph
tab in under two; 20,000 equations degrade (shown in part) rather than take seconds. Run it from
any stack depth: the layout's recursion does not grow with the program.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import didax
import didax.numpy as jnp
from didax.magics.report_views import rules_markup
from didax.widgets import views


def program(n: int) -> didax.ClosedJaxpr:
    def f(x):
        for i in range(n):
            x = jnp.sin(x) if i % 2 else x * 1.5
        return x

    return didax.make_jaxpr(f)(jnp.ones(3))


def median(fn: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    big, small, huge = program(2000), program(200), program(20000)
    assert len(big.eqns) == 2000
    rows = [
        ("JaxprView, 2,000 equations", median(lambda: views.JaxprView(big)), "< 1 s"),
        (
            "JaxprView and its mime bundle, 2,000",
            median(lambda: views.JaxprView(big)._repr_mimebundle_()),
            "< 1 s",
        ),
        (
            "JaxprView with its rules (%jaxpr), 2,000",
            median(lambda: views.JaxprView(big, rules=rules_markup)._repr_mimebundle_()),
            "< 1 s",
        ),
        (
            "text/html fallback, 2,000 equations",
            median(lambda: views.JaxprView(big, graph=False).fallback_html()),
            "",
        ),
        ("Graph tab, 200 equations", median(lambda: views.GraphPanel(small).draw()), ""),
        ("Graph tab, 2,000 equations", median(lambda: views.GraphPanel(big).draw(), 1), "< 2 s"),
        ("JaxprView, 20,000 equations", median(lambda: views.JaxprView(huge), 1), "< 1 s"),
        (
            "text/html fallback, 20,000 equations",
            median(lambda: views.JaxprView(huge, graph=False)._repr_mimebundle_(), 1),
            "",
        ),
        ("Graph tab, 20,000 (first window)", median(lambda: views.GraphPanel(huge).draw(), 1), ""),
    ]
    print(f"{'benchmark':<40} {'seconds':>9}  target")
    for name, seconds, target in rows:
        print(f"{name:<40} {seconds:9.3f}  {target}")
    plain = views.JaxprView(big, graph=False)._repr_mimebundle_()["text/html"]
    ruled = views.JaxprView(big, graph=False, rules=rules_markup)._repr_mimebundle_()
    print(
        f"stored text/html, 2,000 equations: {len(plain):,} bytes, with the rules (a click "
        f"on a primitive's name shows them) {len(ruled['text/html']):,}"
    )


if __name__ == "__main__":
    main()
