"""Run the corpus of tutorial-shaped notebooks (`notebooks/*.py`, cells split at `# %%`)
under `jax` and under `didax`, cell by cell, and compare what each cell prints.

A notebook's text imports `jax`; for didax its import lines are rewritten (`import jax` ->
`import didax as jax`, `from jax import lax` -> `from didax import lax`). A cell that raises
prints `!! <ExceptionType>` and the notebook goes on, as in Jupyter with "run all" ignoring
errors. Output is normalised only where the two libraries must differ: the word `didax` is
read as `jax`.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from float_text import texts_match  # tests/ is on the path

NOTEBOOKS = Path(__file__).with_name("notebooks")
_IMPORT = re.compile(r"^(\s*)(import|from)\s+jax\b(.*)$")


def cells(path: Path) -> list[str]:
    parts = re.split(r"^# %%.*$", path.read_text(), flags=re.M)
    return [p.strip("\n") for p in parts[1:] if p.strip()]


def to_didax(source: str) -> str:
    """Rewrite the cell's import lines to import didax under JAX's names."""
    out = []
    for line in source.splitlines():
        m = _IMPORT.match(line)
        if m:
            indent, kind, rest = m.groups()
            if kind == "import" and not rest.strip():
                line = f"{indent}import didax as jax"
            else:
                line = f"{indent}{kind} didax{rest}"
        out.append(line)
    return "\n".join(out)


def normalise(text: str) -> str:
    return text.replace("didax", "jax")


def run_notebook(path: Path, library: str) -> list[str]:
    """Each cell's printed output under `library` ("jax" or "didax")."""
    namespace: dict = {"__name__": f"corpus_{path.stem}"}
    outputs = []
    for source in cells(path):
        code = to_didax(source) if library == "didax" else source
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            try:
                exec(compile(code, f"<{path.stem}>", "exec"), namespace)  # noqa: S102
            except Exception as e:  # noqa: BLE001 - a failing cell is an output like any
                print(f"!! {type(e).__name__}")
            if library == "jax":  # jax.debug.print may run after the cell returns
                sys.modules["jax"].effects_barrier()
        outputs.append(normalise(buffer.getvalue()))
    return outputs


@dataclass(frozen=True)
class Result:
    notebook: str
    cell: int
    source: str
    jax: str
    didax: str

    @property
    def same(self) -> bool:
        # floats within float_text's tolerance: NumPy's eager kernels and XLA's (and two
        # CPUs) differ in the last digit
        return texts_match(self.jax, self.didax)


def run_corpus() -> list[Result]:
    results = []
    for path in sorted(NOTEBOOKS.glob("*.py")):
        want = run_notebook(path, "jax")
        got = run_notebook(path, "didax")
        sources = cells(path)
        results += [
            Result(path.stem, i, s, w, g)
            for i, (s, w, g) in enumerate(zip(sources, want, got, strict=True))
        ]
    return results


if __name__ == "__main__":  # `PYTHONPATH=tests python -m corpus.corpus`: the figure and differences
    results = run_corpus()
    for r in results:
        if not r.same:
            print(
                f"--- {r.notebook}[{r.cell}]\n{r.source[:200]}\n  jax:   {r.jax!r:.300}\n"
                f"  didax: {r.didax!r:.300}"
            )
    same = sum(r.same for r in results)
    print(f"{same}/{len(results)} cells match ({same / len(results):.3f})")
