"""Kernels against their input's accuracy: eqsat.compile(optimize="simplify") beside the input's
own kernel (optimize=None) and beside the cheapest form alone (what compile chose before it
measured accuracy), on points compile did not measure.

Cases: each record of ../shared/corpora/fpbench.jsonl (points from its precondition, which
compile is given as its domain; binary32 cases in float32), and random expressions over the
whole op table (tests/verbs/test_fuzz_semantics.py's generator; points from every float). Per case,
mean bits of error of each kernel in the case's dtype; the summary counts kernels more than 2
bits worse than the input's.

    python benchmarks/kernel_accuracy.py [--points 256] [--random 250]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from common import CORPORA, kernel_bits

import eqsat
from eqsat.accuracy.measure import assumed_domain, sample
from eqsat.codegen.numpy import COSTS

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.verbs.test_fuzz_semantics import random_case

HELD_OUT_SEED = 1  # compile measures on seed 0's points
FAST = eqsat.Limits(seconds=0.3, nodes=400)  # the fuzz tests' limits, for the random cases


def _row(label: str, expr: eqsat.Expr, domain: object, dtype: str, points: int,
         limits: eqsat.Limits | None) -> tuple[float, float, float, float] | None:
    """(input's bits, cheapest form's bits, kernel's bits, compile ms), printed."""
    names = sorted(s.name for s in expr.free_symbols())
    if not names:  # a number: no kernel of arguments
        return None
    try:
        measured = sample(expr, assumed_domain(domain, expr, dtype), points, dtype,  # type: ignore[arg-type]
                          seed=HELD_OUT_SEED, variables=names, tries=8)
    except eqsat.EqsatError:
        return None
    start = time.perf_counter()
    kernel = eqsat.compile(expr, names, dtype=dtype, limits=limits, domain=domain)
    elapsed = (time.perf_counter() - start) * 1000
    cheapest = eqsat.simplify(expr, cost="dag", costs=COSTS, limits=limits)
    row = (kernel_bits(expr, names, measured), kernel_bits(cheapest, names, measured),
           kernel_bits(kernel.outputs[0], names, measured), elapsed)
    print(f"{label[:34]:34} {dtype:8} {row[0]:7.2f} {row[1]:9.2f} {row[2]:7.2f} {row[3]:8.0f}  "
          f"{str(kernel.outputs[0])[:60]}")
    return row


def _summary(title: str, rows: list[tuple[float, float, float, float]]) -> None:
    worse_before = sum(cheap > plain + 2 for plain, cheap, _, _ in rows)
    worse_now = sum(kernel > plain + 2 for plain, _, kernel, _ in rows)
    better = sum(kernel < plain - 2 for plain, _, kernel, _ in rows)
    times = sorted(r[3] for r in rows)
    print(f"{title}: {len(rows)} cases; more than 2 bits worse than the input: cheapest form "
          f"{worse_before}, kernel {worse_now}; kernel more than 2 bits better: {better}; "
          f"compile median {times[len(times) // 2]:.0f} ms")


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--points", type=int, default=256)
    options.add_argument("--random", type=int, default=250, help="random cases per dtype")
    args = options.parse_args()
    eqsat.compile("log(1 + x)", ["x"])  # load the engine before timing
    print(f"{'case':34} {'dtype':8} {'input':>7} {'cheapest':>9} {'kernel':>7} {'ms':>8}  kernel")
    records = [json.loads(line) for line in (CORPORA / "fpbench.jsonl").read_text().splitlines()
               if line.strip()]
    fpbench = []
    for record in records:
        dtype = "float32" if record.get("precision") == "binary32" else "float64"
        label = str(record.get("name") or record["source"])
        row = _row(label, eqsat.parse(record["input"]), record.get("pre"), dtype, args.points,
                   None)
        if row is not None:
            fpbench.append(row)
    random_rows = []
    for dtype in ("float64", "float32"):
        for seed in range(args.random):
            expr, _ = random_case(seed)
            row = _row(f"random {seed}", expr, None, dtype, args.points, FAST)
            if row is not None:
                random_rows.append(row)
    print()
    _summary("FPBench", fpbench)
    _summary("random", random_rows)


if __name__ == "__main__":
    main()
