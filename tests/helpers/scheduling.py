"""The order in which xdist hands out test scopes (tests/conftest.py's scheduler): kept here,
not in a conftest, so tests/test_scheduling.py imports it by a name no other module has
(`from conftest import ...` finds whichever conftest pytest imported first)."""

from __future__ import annotations

from collections import OrderedDict

# Folders whose modules go to one worker together: tests/browser shares one JupyterLab and
# one Chromium, tests/notebooks one run of each lesson's notebooks (package-scoped fixtures).
ONE_SCOPE = ("tests/browser", "tests/notebooks")

# Scopes whose tests start processes (a JupyterLab and Chromium, kernels, pip, a notebook run,
# peers of `distributed`, interrupted compiles): a few tests of seconds each. xdist orders
# scopes by their number of tests, which would start these last and leave one worker running
# them alone at the end; they start first instead, the longest first.
START_FIRST = (
    "tests/browser",
    "tests/notebooks",
    "tests/test_install_layout.py",
    "tests/parallel/test_distributed.py",
    "tests/compile/test_interrupt.py",
    "tests/magics/test_kernel.py",
    "tests/corpus/test_corpus.py",
    "tests/magics/test_notebooks.py",
)


def scope_of(nodeid: str) -> str:
    """The scope a test belongs to: its module, or the folder of `ONE_SCOPE` it is in."""
    module = nodeid.split("::", 1)[0]
    for folder in ONE_SCOPE:
        if module.startswith(f"{folder}/"):
            return folder
    return module


class SlowFirst(OrderedDict):
    """xdist's queue of scopes (it takes work with `popitem(last=False)`): the scopes of
    `START_FIRST` leave it first, in that order, then the others in xdist's order."""

    def popitem(self, last: bool = True) -> tuple[str, dict[str, bool]]:
        if not last:
            for scope in START_FIRST:
                if scope in self:
                    return scope, self.pop(scope)
        return super().popitem(last)
