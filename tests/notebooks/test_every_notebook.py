"""Every notebook: it is tested, stored executed, with its widget state and no machine paths;
it runs in a kernel, and its stored outputs are what that run prints."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest
from float_text import outputs_match
from lesson_runs import (  # nbformat through it: it skips without Jupyter
    COVERED_ELSEWHERE,
    DEMOS,
    JAXLIB_LOG,
    NOTEBOOKS,
    RAISES,
    code_cells,
    nbformat,
    shown,
)

pytestmark = pytest.mark.notebooks


# --------------------------------------------------------------------------- every notebook


def test_every_demo_notebook_is_tested() -> None:
    assert NOTEBOOKS, "no demo notebooks found"
    for name, test in COVERED_ELSEWHERE.items():
        assert (DEMOS / name).exists() and (DEMOS.parent / test).exists(), (name, test)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stored_notebook_is_executed(name: str) -> None:
    nb = nbformat.read(DEMOS / name, as_version=4)
    nbformat.validate(nb)
    cells = code_cells(nb)
    assert [c.execution_count for c in cells] == list(range(1, len(cells) + 1)), (
        "stored notebook is not executed top to bottom"
    )
    for cell in cells:
        for kind, text in shown(cell):
            assert not JAXLIB_LOG.search(text), (cell.source, text)
            assert (kind == "error") == (RAISES in cell.metadata.get("tags", [])), cell.source


@pytest.mark.parametrize("name", [*NOTEBOOKS, *COVERED_ELSEWHERE])
def test_stored_views_carry_their_widget_state(name: str) -> None:
    """Every stored view has its widgets' state in the notebook's metadata, so that nbconvert
    and other static renderers draw the view, not an empty box."""
    nb = nbformat.read(DEMOS / name, as_version=4)
    view = "application/vnd.jupyter.widget-view+json"
    ids = [
        out.data[view]["model_id"]
        for cell in code_cells(nb)
        for out in cell.outputs
        if view in out.get("data", {})
    ]
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    missing = [i for i in ids if i not in state.get("state", {})]
    assert not missing, f"{name}: {len(missing)} of {len(ids)} views without stored state"


# what a reader must not meet in a stored output: this machine's paths, didax's internal
# reprs, tracebacks through didax's own files
NOT_FOR_READERS = re.compile(
    r"/work/|/home/|/root/|/tmp/|site-packages|\bVar\(|\bLiteral\(|object at 0x|core/\w+\.py"
)
# ... except inside the listings of didax's own code a click on a primitive's name shows (the
# rules of `while`, say, build `Var(...)`s): the engine is the textbook (in the widget state's
# JSON text the quotes are escaped)
SOURCE_LISTING = re.compile(
    r'class=\\?"dx-link\\?"[^>]*>[^<]*</a><div class=\\?"dx-code\\?"[^>]*>.*?</div>', re.S
)


@pytest.mark.parametrize("name", [*NOTEBOOKS, *COVERED_ELSEWHERE])
def test_stored_outputs_hide_machine_paths_and_internal_reprs(name: str) -> None:
    nb = nbformat.read(DEMOS / name, as_version=4)
    # the widgets' stored state: what a front end with the widget manager shows (and hovers)
    state = SOURCE_LISTING.sub("", json.dumps(nb.metadata.get("widgets", {}), ensure_ascii=False))
    found = NOT_FOR_READERS.search(state)
    assert not found, (name, "widget state", state[max(0, found.start() - 200) :][:300])
    for cell in code_cells(nb):
        for out in cell.outputs:
            texts = [out.get("text", ""), *out.get("traceback", [])]
            texts += [v for v in out.get("data", {}).values() if isinstance(v, str)]
            for text in map(SOURCE_LISTING.sub, [""] * len(texts), texts):
                found = NOT_FOR_READERS.search(text)
                assert not found, (name, cell.source, text[max(0, found.start() - 80) :][:200])


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs(name: str, run: Any) -> None:
    nb = run(name)
    for cell in code_cells(nb):
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if RAISES in cell.metadata.get("tags", []):
            assert errors, f"cell tagged {RAISES} did not raise:\n{cell.source}"
            continue
        assert not errors, (cell.source, [f"{o.ename}: {o.evalue}" for o in errors])
        stderr = [o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stderr"]
        assert not stderr, (cell.source, stderr)


# a cell tagged `timing` prints times: its stored outputs are compared with every number (and
# its unit) hidden, so that the words still must match
TIMING = "timing"
_NUMBER = re.compile(r"\d[\d.,]*(?:e[-+]?\d+)?\s*(?:ms|µs|ns|s\b|x\b)?")


# Within `%jit`'s time budget a slow (loaded) machine makes fewer eager runs, down to one, which
# has no spread to print: both forms of the line read as one. And `%timeit`'s warning that the
# slowest run took over 4x the fastest comes and goes with the machine's load: left out.
_ONE_RUN = re.compile(r"# per loop \(#run, #loops?; run more for a spread\)")
_RUNS = "# ± # per loop (mean ± std. dev. of #runs, #loops each)"
_SLOW_RUN = re.compile(
    r"^[^\n]*The slowest run took #times longer than the fastest\.[^\n]*\n", re.M
)


# With the numbers hidden, so is the layout around them: NumPy pads an array's columns and
# wraps its rows by the width of its widest float, which a last digit changes from one CPU to
# another (`-0.13840477` here, `-0.1384048` there: a row wraps after another column). Whitespace
# goes, and so does a comma after a number (`_NUMBER` takes it with the number unless padding
# came between). The words, brackets and signs still must match.
_LAYOUT = re.compile(r"\s+|(?<=#),")


def timings_hidden(seen: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [
        (kind, _LAYOUT.sub("", _SLOW_RUN.sub("", _ONE_RUN.sub(_RUNS, _NUMBER.sub("#", text)))))
        for kind, text in seen
    ]


def test_timings_hidden_keeps_words_and_signs_but_not_the_layout() -> None:
    # lesson 06's `%jit` result as stored, and as another CPU printed it (seen in CI): a last
    # digit less (`-0.1384048`) narrows the columns, so NumPy puts four on a line, not three
    here = np.full((7, 7), -0.13840477, np.float32)
    here[0, 2] = 0.5166987  # padded to the widest column: `0.5166987 ,`
    there = np.full((7, 7), -0.1384048, np.float32)
    there[0, 2] = 0.5166989
    with np.printoptions(threshold=10, edgeitems=3):
        texts = [repr(here), repr(there), str(here), str(there), repr(-there)]

    def hidden(text: str) -> list[tuple[str, str]]:
        return timings_hidden([("execute_result", text)])

    assert hidden(texts[0]) == hidden(texts[1])
    assert hidden(texts[2]) == hidden(texts[3])
    assert hidden(texts[0]) != hidden(texts[4])  # signs still count
    assert hidden(texts[0]) != hidden(texts[1].replace("array", "Array"))  # and words
    assert hidden("compiled 3 x 3 calls, eager 1 x 3 calls") == hidden(
        "compiled 3 x 3 calls, eager 3 x 3 calls"
    )


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stored_outputs_are_current(name: str, run: Any) -> None:
    stored = code_cells(nbformat.read(DEMOS / name, as_version=4))
    fresh = code_cells(run(name))
    assert [c.source for c in stored] == [c.source for c in fresh]
    for old, new in zip(stored, fresh, strict=True):
        if TIMING in old.metadata.get("tags", []):  # times differ from run to run
            assert timings_hidden(shown(old)) == timings_hidden(shown(new)), old.source
            continue
        # floats within float_text's tolerance: machines differ in the last digits
        assert outputs_match(shown(old), shown(new)), (
            f"stored outputs of {name} are stale; refresh them with "
            f"`PYTHONPATH=tests python tests/notebooks/lesson_runs.py {name}`\n{old.source}"
        )
