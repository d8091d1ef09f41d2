"""The order in which xdist hands out test scopes (tests/conftest.py's scheduler): kept here,
not in a conftest, so tests/test_scheduling.py imports it by a name no other module has
(`from conftest import ...` finds whichever conftest pytest imported first)."""

from __future__ import annotations

from collections import OrderedDict

# The slow scopes, handed out first: xdist orders scopes by their number of tests, which would
# start these last and leave one worker running them alone at the end. Two kinds alternate:
# scopes that mostly WAIT on processes they start (a JupyterLab and Chromium, kernels, pip,
# peers of `distributed`, interrupted compiles) and scopes that COMPUTE (XLA compiling the
# oracle tables). With all the waiting ones first, both workers waited together for the first
# ~125 s and the 2 cores were 15-50% idle (`vmstat 5` over a run, 2026-11-26); alternated, a
# worker waiting on a kernel leaves its core to the other's compiles. (A worker takes the next
# scope when it is nearly out of work, so the pairs are set by the scopes' lengths, ~ below.)
START_FIRST = (
    "tests/notebooks/test_demo_notebooks.py",  # waits, ~90 s
    "tests/oracle/test_random_distributions_oracle.py",  # computes, ~65 s
    "tests/oracle/test_numpy_oracle.py",  # computes, ~40 s
    "tests/browser",  # waits, ~60 s
    "tests/oracle/test_random_oracle.py",  # computes, ~25 s
    "tests/autodiff/test_reverse_oracle.py",  # computes, ~25 s
    "tests/parallel/test_distributed.py",  # waits, ~20 s
    "tests/compile/test_jit_ops.py",  # computes, ~23 s
    "tests/compile/test_interrupt.py",  # waits, ~10 s
    "tests/properties/test_eager_matches_jit.py",  # computes, ~23 s
    "tests/test_install_layout.py",  # waits, ~10 s
    "tests/corpus/test_corpus.py",  # waits and computes, ~13 s
    "tests/magics/test_kernel.py",  # waits, ~4 s
    "tests/magics/test_notebooks.py",  # waits, ~2 s
)


class SlowFirst(OrderedDict):
    """xdist's queue of scopes (it takes work with `popitem(last=False)`): the scopes of
    `START_FIRST` leave it first, in that order, then the others in xdist's order."""

    def popitem(self, last: bool = True) -> tuple[str, dict[str, bool]]:
        if not last:
            for scope in START_FIRST:
                if scope in self:
                    return scope, self.pop(scope)
        return super().popitem(last)
