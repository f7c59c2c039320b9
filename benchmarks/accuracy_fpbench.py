"""eqsat.stabilize on the FPBench / Herbie cases: bits of error before and after, and the
experts' rewrites, measured on the same points in one run.

For each record of ../shared/corpora/fpbench.jsonl: mean bits of error of the input and of
stabilize's result (256 points sampled from the precondition, or from every float when
there is none; binary32 cases in float32), the time stabilize took, the bits of the NumPy
kernel of stabilize's result (what compile(optimize="stabilize") emits) on the same points,
and, where the record has exact expert rewrites (`expect`), the most accurate of them there.
Then the scalar cases of ../shared/corpora/pytensor_stability.jsonl that PyTensor rewrites: the mean
bits of the input, of stabilize's result and of PyTensor's own rewrite (its switch(c, a, nan)
taken as a, which it equals where the input is defined), on the same points. Last, the
summary of benchmarks/stability_devset.py (generated problems, not the corpus) unless
--no-devset.

    python benchmarks/accuracy_fpbench.py [--points 256] [--no-devset]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time

import stability_devset
from common import CORPORA, kernel_bits

import eqsat
from eqsat.accuracy.measure import mean_bits


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--points", type=int, default=256)
    options.add_argument("--no-devset", action="store_true")
    args = options.parse_args()
    records = [json.loads(line) for line in (CORPORA / "fpbench.jsonl").read_text().splitlines()
               if line.strip()]
    eqsat.stabilize("log(1 + x)")  # compile the engine before timing
    print(f"{'case':40} {'before':>7} {'after':>7} {'kernel':>7} {'expert':>7} {'ms':>8}  result")
    rows = []
    kernels: list[float] = []  # each kernel's bits over those of the form it prints
    cut = 0  # results the time limit cut short: they could change with the machine's load
    for record in records:
        name = str(record.get("name") or record["source"])[:40]
        dtype = "float32" if record.get("precision") == "binary32" else "float64"
        start = time.perf_counter()
        try:
            result = eqsat.stabilize_report(record["input"], record.get("pre"),
                                            points=args.points, dtype=dtype)
        except eqsat.EqsatError as error:
            print(f"{name:40} {'':>7} {'':>7} {'':>7} {'':>8}  error: {error}")
            continue
        elapsed = (time.perf_counter() - start) * 1000
        expert = None
        for text in record.get("expect") or []:
            try:
                bits = mean_bits(eqsat.parse(text), result.sample)
            except eqsat.EqsatError:
                continue
            expert = bits if expert is None else min(expert, bits)
        names = sorted(result.sample.values)
        kernel = kernel_bits(result.expr, names, result.sample) if names else result.bits_after
        rows.append((name, result.bits_before, result.bits_after, expert, elapsed))
        kernels.append(kernel - result.bits_after)
        cut += result.report.stop_reason == eqsat.StopReason.TIME
        shown = "" if expert is None else f"{expert:7.2f}"
        print(f"{name:40} {result.bits_before:7.2f} {result.bits_after:7.2f} {kernel:7.2f} "
              f"{shown:>7} {elapsed:8.0f}  {result.expr}")
    never_worse = sum(after <= before for _, before, after, _, _ in rows)
    inaccurate = [r for r in rows if r[1] > 4]
    improved = sum(before - after >= 4 for _, before, after, _, _ in inaccurate)
    experts = [r for r in rows if r[3] is not None]
    matched = sum(after <= expert + 0.5 for _, _, after, expert, _ in experts)  # type: ignore
    hamming = [r for r in rows if r[0].startswith("NMSE")]
    print()
    print(f"cases: {len(rows)} of {len(records)} measured")
    print(f"at least as accurate as before: {never_worse} of {len(rows)}")
    print(f"inputs with more than 4 bits of error: {len(inaccurate)}; improved by 4 bits or "
          f"more: {improved} ({100 * improved / max(len(inaccurate), 1):.0f}%, target 95%)")
    print(f"expert rewrite matched or beaten (within 0.5 bit): {matched} of {len(experts)} "
          "(target: all)")
    print(f"Hamming (NMSE) problems: {len(hamming)}, mean bits before "
          f"{statistics.mean(r[1] for r in hamming):.2f}, after "
          f"{statistics.mean(r[2] for r in hamming):.2f} (target <= 1.0)")
    print(f"median time {statistics.median(r[4] for r in rows):.0f} ms, "
          f"max {max(r[4] for r in rows):.0f} ms; cut short by the time limit (an answer "
          f"that could change with the machine's load): {cut} of {len(rows)} (target 0)")
    print(f"stabilized NumPy kernels: more than 0.5 bit worse than the form they print: "
          f"{sum(extra > 0.5 for extra in kernels)} of {len(kernels)}; most "
          f"{max(kernels):+.2f} bits")

    _pytensor(args.points)
    if not args.no_devset:
        print()
        stability_devset.report(stability_devset.problems(8, 0), args.points, verbose=False)


def _pytensor(points: int) -> None:
    """Mean bits over PyTensor's scalar stability cases: input, eqsat, PyTensor's rewrite."""
    records = [json.loads(line) for line in
               (CORPORA / "pytensor_stability.jsonl").read_text().splitlines() if line.strip()]
    cases = [r for r in records if r.get("expect") and r.get("expect_rewrite", True)
             and "sum(" not in r["input"]]
    rows = []
    for record in cases:
        expected = str(record["expect"])
        guarded = re.fullmatch(r"switch\((.*), (.*), nan\)", expected)
        try:
            result = eqsat.stabilize_report(record["input"], record.get("pre"), points=points)
            expert = mean_bits(eqsat.parse(guarded.group(2) if guarded else expected),
                               result.sample)
        except eqsat.EqsatError as error:
            print(f"{record['input'][:40]:40} error: {error}")
            continue
        rows.append((result.bits_before, result.bits_after, expert))
    print()
    print(f"PyTensor stability cases: {len(rows)} of {len(cases)} measured; mean bits before "
          f"{statistics.mean(r[0] for r in rows):.2f}, after "
          f"{statistics.mean(r[1] for r in rows):.2f}, PyTensor's rewrites "
          f"{statistics.mean(r[2] for r in rows):.2f} (target: after at most PyTensor's)")


if __name__ == "__main__":
    main()
