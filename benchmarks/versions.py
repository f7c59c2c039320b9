"""This checkout's eqsat against an older commit's, in one process, case by case.

On a noisy machine two runs of the same code in separate processes can differ by more than a
change does. Here the commit's src/eqsat and rules/ are unpacked into a temporary folder and
imported as `eqsat_base` beside `eqsat`; each case of diff_vs_sympy.py or
simplify_vs_sympy.py runs on both in turn, memos cleared, best of --repeats. Prints both
medians, the median of the per-case ratios, each case whose answer differs, and each case
whose time moved by more than a millisecond.

    python benchmarks/versions.py REV [diff|simplify] [--repeats 5]
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Any

import diff_vs_sympy
import simplify_vs_sympy

import eqsat

ROOT = Path(__file__).resolve().parents[1]


def unpacked(revision: str, folder: Path) -> ModuleType:
    """The commit's eqsat, imported as eqsat_base from folder (its rules beside it)."""
    archive = subprocess.run(["git", "archive", revision, "src/eqsat", "rules"], cwd=ROOT,
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "src" / "eqsat").rename(folder / "src" / "eqsat_base")
    sys.path.insert(0, str(folder / "src"))
    return import_module("eqsat_base")


def query(library: Any, verb: str, text: str, variables: tuple[str, ...]) -> Any:
    """A call of the verb on the parsed case, for this library."""
    parsed = library.parse(text)
    if verb == "diff":
        return lambda: library.diff_report(parsed, list(variables))
    return lambda: library.simplify_report(parsed)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("revision")
    options.add_argument("verb", nargs="?", choices=["diff", "simplify"], default="diff")
    options.add_argument("--repeats", type=int, default=5)
    args = options.parse_args()
    cases = (diff_vs_sympy if args.verb == "diff" else simplify_vs_sympy).cases([])
    with tempfile.TemporaryDirectory() as folder:
        base = unpacked(args.revision, Path(folder))
        rows = []
        for case in cases:
            runs = [query(library, args.verb, case.text, case.variables)
                    for library in (base, eqsat)]
            try:
                answers = [str(run().expr) for run in runs]
            except eqsat.EqsatError:
                continue
            best = [float("inf")] * 2
            for _ in range(args.repeats):
                for k, (library, run) in enumerate(zip((base, eqsat), runs, strict=True)):
                    library.clear_cache()
                    start = time.perf_counter()
                    run()
                    best[k] = min(best[k], (time.perf_counter() - start) * 1000)
            rows.append((case.label, *best, *answers))
    print(f"{args.verb}, {len(rows)} cases, {args.revision} against this checkout: medians "
          f"{statistics.median(r[1] for r in rows):.3f} and "
          f"{statistics.median(r[2] for r in rows):.3f} ms; median per-case ratio "
          f"{statistics.median(r[2] / r[1] for r in rows):.3f}")
    for label, before, after, old, new in rows:
        if old != new:
            print(f"  answer {label[:60]}: {old} -> {new}")
        if abs(after - before) > 1:
            print(f"  {before:9.3f} -> {after:9.3f} ms  {label[:60]}")


if __name__ == "__main__":
    main()
