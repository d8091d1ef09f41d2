"""A benchmark run on two versions of didax in one run: this tree and a git commit, in turn.

    python benchmarks/before_after.py main                     # bench_jit.py dispatch
    python benchmarks/before_after.py main bench_autodiff.py   # any script of benchmarks/
    python benchmarks/before_after.py --ratio 1 main bench_eager.py   # didax/NumPy column

The commit's package folders are exported (`git archive`) to a temporary directory as
`didax/...`, which `PYTHONPATH` puts ahead of the installed (this tree's) package. The
script (this tree's copy, so both versions run the same benchmark) then runs once per version
and round, alternating, for ROUNDS rounds: a loaded machine drifts, and alternation shares the
drift. Each script prints didax against JAX in the same process, so the figure to compare is
the didax/JAX ratio of each row (`--ratio 1`: the next ratio column, didax/NumPy in
bench_eager.py; a row of two times and no ratio counts as didax's time over JAX's): printed per round and as the median over rounds.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"core": "didax", "display": "didax/display", "magics": "didax/magics"}
FOLDERS["widgets"] = "didax/widgets"
ROUNDS = 3
# a row: its name, then numbers; the "1.23x" ratios: didax over JAX first (bench_jit.py,
# _util.row), then didax over NumPy (_util.row)
ROW = re.compile(r"^(\S.*?)\s{2,}[\d.]+\s")
RATIOS = re.compile(r"\s([\d.]+)x(?=\s|$)")
# a row of two times and no ratio, didax's then JAX's (bench_autodiff.py's tables): their ratio
PAIR = re.compile(r"^(\S.*?)\s{2,}([\d.]+)\s+([\d.]+)\s*$")


def export(ref: str, into: Path) -> None:
    for folder, target in FOLDERS.items():
        found = subprocess.run(
            ["git", "-C", str(ROOT), "ls-tree", "--name-only", ref, folder],
            capture_output=True,
            check=True,
        ).stdout
        if not found:  # a commit from before the folder existed (display/ came in issue 21)
            continue
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", ref, folder], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
        (into / folder).rename(into / target)


def run(script: str, args: list[str], pythonpath: str | None, column: int) -> dict[str, float]:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    rows = {}
    for line in out.splitlines():
        ratios = RATIOS.findall(line)
        if (m := ROW.match(line)) and len(ratios) > column:
            rows[m.group(1).strip()] = float(ratios[column])
        elif column == 0 and (m := PAIR.match(line)) and float(m.group(3)):
            rows[m.group(1).strip()] = float(m.group(2)) / float(m.group(3))
    return rows


def main(ref: str, script: str = "bench_jit.py", *args: str, column: int = 0) -> None:
    if script == "bench_jit.py" and not args:
        args = ("dispatch",)
    with tempfile.TemporaryDirectory() as tmp:
        export(ref, Path(tmp))
        ratios: dict[str, dict[str, list[float]]] = {}
        for _ in range(ROUNDS):
            for label, path in ((ref, tmp), ("this tree", None)):
                for name, ratio in run(script, list(args), path, column).items():
                    ratios.setdefault(name, {}).setdefault(label, []).append(ratio)
    what = ("didax/JAX", "didax/NumPy")[column] if column < 2 else f"ratio column {column}"
    print(f"{what} ratios, {ROUNDS} rounds alternating; median [each round]")
    print(f"{'':<44} {ref:>24} {'this tree':>24}")
    for name, by in ratios.items():
        cells = [
            f"{statistics.median(by.get(k, [0])):6.2f} {[round(r, 2) for r in by.get(k, [])]!s:>17}"
            for k in (ref, "this tree")
        ]
        print(f"{name:<44} {cells[0]:>24} {cells[1]:>24}")


if __name__ == "__main__":
    argv = sys.argv[1:]
    column = 0
    if argv[:1] == ["--ratio"]:
        column, argv = int(argv[1]), argv[2:]
    main(*argv, column=column)
