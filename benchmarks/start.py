"""A first answer from a cold start: `eqsat simplify "x*y/x"` against a SymPy one-liner,
alternating in one run (wall time of each process, median of the runs).

    python benchmarks/start.py [--runs 7]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time

EQSAT = [shutil.which("eqsat") or "eqsat", "simplify", "x*y/x"]
SYMPY = [sys.executable, "-c", "import sympy; print(sympy.simplify('x*y/x'))"]


def seconds(command: list[str]) -> float:
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "y", done.stdout
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    eqsat_times, sympy_times = [], []
    for _ in range(runs):
        eqsat_times.append(seconds(EQSAT))
        sympy_times.append(seconds(SYMPY))
    eqsat_median, sympy_median = statistics.median(eqsat_times), statistics.median(sympy_times)
    print(f"eqsat simplify 'x*y/x':  median {eqsat_median * 1000:.0f} ms over {runs} runs")
    print(f"sympy one-liner:         median {sympy_median * 1000:.0f} ms over {runs} runs")
    print(f"ratio eqsat/SymPy: {eqsat_median / sympy_median:.2f}")


if __name__ == "__main__":
    main()
