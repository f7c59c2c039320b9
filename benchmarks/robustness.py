"""Resource bombs under limits: for each, the time taken against the time limit, why the run
stopped, the e-nodes at most against the node limit, and the peak memory of a fresh worker;
then large inputs through every entry point, the whole call timed against its limit (which
leaves out the one-time setup of the process, compiling a verb's rules on its first use: it
is shown; a command's process reports its own setup with --report).

    python benchmarks/robustness.py [--limits 1 2 5] [--skip-bombs]

Each case runs in its own process (so peak memory is its own), after the engine is built.
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import eqsat
from eqsat.limits.budget import setup_seconds

BOMBS = [
    ("10^10^10", "10^10^10"),
    ("9^9^9^9", "9^9^9^9"),
    ("a 64th power of a ratio", "(123456789/987654321)^64 * x"),
    ("(x + 1)^1000", "(x + 1)^1000"),
    ("(x+1)^30 (x-1)^30 - (x^2-1)^30", "(x + 1)^30*(x - 1)^30 - (x^2 - 1)^30"),
    ("sum of 500 terms", " + ".join(f"{i}*x^{i % 7}*y" for i in range(500))),
    ("60 exp of 60 log", "exp(" * 60 + "log(" * 60 + "x" + ")" * 120),
    ("3000 nested minus signs", "-" * 3000 + "x"),
    ("40 squares times exponentials", " + ".join(f"(x + {i})^2*exp(y - {i})"
                                                  for i in range(40))),
]


def _warm_up() -> None:
    """Build the engine and its simplify e-graph, and import the verbs' modules (eqsat loads
    a verb's module when it is first named): their cost is once per process."""
    eqsat.simplify("exp(x)*exp(y) + 0")  # (sin(x) + 0 no longer reaches an e-graph)
    for verb in ("diff", "solve", "stabilize", "stabilize_report", "compile", "explain",
                 "error_bits"):
        getattr(eqsat, verb)


def _chain(levels: int) -> eqsat.Expr:
    e = eqsat.parse("x")
    for _ in range(levels):
        e = eqsat.sin(e)
    return e


def _long_compile() -> eqsat.Expr:
    names = [eqsat.parse(f"y{i}") for i in range(20)]
    e = eqsat.parse("x")
    for i in range(2_500):
        e = eqsat.sin(e) + names[i % 20] if i % 2 else e * names[i % 20]
    return e


def _exponentials(count: int) -> str:
    return " + ".join(f"(exp({i}*x) - 1)" for i in range(1, count + 1))


_COMMAND_SETUP = [0.0]  # the setup the last command's process reported (its --report line)


def _command(text: str, limits: eqsat.Limits, verb: str = "simplify") -> None:
    """The whole `eqsat VERB --timeout --report` process, start to end, the text in a file
    (stabilize takes it on the command line)."""
    with tempfile.TemporaryDirectory() as folder:
        given = Path(folder) / "input.txt"
        given.write_text(text)
        argument = f"@{given}" if verb == "simplify" else text
        done = subprocess.run([sys.executable, "-m", "eqsat.cli", verb, argument,
                               "--timeout", f"{limits.seconds:g}", "--report"],
                              capture_output=True, text=True)
    reported = re.search(r"^setup: ([0-9.]+) s", done.stderr, re.MULTILINE)
    _COMMAND_SETUP[0] = float(reported[1]) if reported else 0.0
    if done.returncode:
        raise eqsat.EqsatError(done.stderr.strip()[:200])


def _symbolic_system(n: int) -> list[str]:
    return [" + ".join(f"a{i}{j}*x{j}" for j in range(n)) + f" = b{i}" for i in range(n)]


def _integer_system(n: int) -> list[str]:
    rows = [[(7 * i + 3 * j * j + 1) % 19 - 9 for j in range(n)] for i in range(n)]
    return [" + ".join(f"{k}*x{j}" for j, k in enumerate(row)) + f" = {i % 5}"
            for i, row in enumerate(rows)]


# (label, limit in seconds, the input, the call): inputs the issue tracker measured
# overrunning; the input is built before the clock starts (the limit covers the call)
Call = Callable[[Any, eqsat.Limits], object]
ENTRY_POINTS: list[tuple[str, float, Callable[[], Any], Call]] = [
    ("simplify: a 95 KB sum", 2.0, lambda: " + ".join(f"x{i}" for i in range(12_000)),
     lambda e, lim: eqsat.simplify(e, limits=lim)),
    ("simplify: sin nested 99,990 deep", 2.0, lambda: _chain(99_990),
     lambda e, lim: eqsat.simplify(e, limits=lim)),
    ("simplify: x^x^...^x, 33,001 deep", 2.0, lambda: "x^" * 33_000 + "x",
     lambda e, lim: eqsat.simplify(e, limits=lim)),
    ("simplify: 99,990 minus signs", 2.0, lambda: "-" * 99_990 + "x",
     lambda e, lim: eqsat.simplify(e, limits=lim)),
    ("simplify: x+x+...+x, 60 KB", 2.0, lambda: "x+" * 30_000 + "x",
     lambda e, lim: eqsat.simplify(e, limits=lim)),
    ("command: 99,990 minus signs", 2.0, lambda: "-" * 99_990 + "x", _command),
    ("command: a 95 KB sum", 2.0, lambda: " + ".join(f"x{i}" for i in range(12_000)),
     _command),
    ("simplify: hypot(sqrt(2)*sqrt(-3), ...)", 1.0,
     lambda: "hypot(sqrt(2)*sqrt(-3), tan(z) - tan(0)*cos(0))",
     lambda e, lim: eqsat.simplify(e, limits=lim)),
    ("diff: x^2, order 400", 2.0, lambda: "x^2",
     lambda e, lim: eqsat.diff(e, "x", 400, limits=lim)),
    ("diff: sin(x)*exp(x), order 22", 5.0, lambda: "sin(x)*exp(x)",
     lambda e, lim: eqsat.diff(e, "x", 22, limits=lim)),
    ("solve: symbolic 6x6 system", 5.0, lambda: _symbolic_system(6),
     lambda e, lim: eqsat.solve(e, [f"x{j}" for j in range(6)], limits=lim)),
    ("solve: dense integer 60x60", 2.0, lambda: _integer_system(60),
     lambda e, lim: eqsat.solve(e, [f"x{j}" for j in range(60)], limits=lim)),
    ("compile: 5,000 nodes", 2.0, _long_compile, lambda e, lim: eqsat.compile(e, limits=lim)),
    ("stabilize: sin(exp(x))", 1.0, lambda: "sin(exp(x))",
     lambda e, lim: eqsat.stabilize(e, limits=lim)),
    ("stabilize: 39 (exp(i*x) - 1) terms", 2.0, lambda: _exponentials(39),
     lambda e, lim: eqsat.stabilize(e, limits=lim)),
    ("command: stabilize 39 exp terms", 2.0, lambda: _exponentials(39),
     lambda e, lim: _command(e, lim, "stabilize")),
    ("error_bits: x+x+...+x, 20,000 terms", 5.0, lambda: "+".join(["x"] * 20_000),
     lambda e, lim: eqsat.error_bits(e, limits=lim)),
    ("explain: a 3,000-term sum", 2.0, lambda: "+".join(["x"] * 3_000),
     lambda e, lim: eqsat.explain(e, limits=lim)),
    ("explain: exp(x) to exp(x) + 0*sin(y)^100", 2.0,
     lambda: ("exp(x)", "exp(x) + 0*sin(y)^100"),
     lambda e, lim: eqsat.explain(*e, limits=lim)),
    ("diff: atan(x)*sqrt(x), order 10", 2.0, lambda: "atan(x)*sqrt(x)",
     lambda e, lim: eqsat.diff_report(e, "x", 10, limits=lim)),
    ("stabilize: eight powers of six bases", 2.0, lambda: "2^x*a^y*2^z*b^w*c^v*a^u*s*b^t",
     lambda e, lim: eqsat.stabilize_report(e, limits=lim)),
    ("compile: x*y + ... + x*y, 2,000 terms", 2.0, lambda: " + ".join(["x*y"] * 2_000),
     lambda e, lim: eqsat.compile(e, limits=lim)),
    ("compile: x*y + ... + x*y, 10,000 terms", 2.0, lambda: " + ".join(["x*y"] * 10_000),
     lambda e, lim: eqsat.compile(e, limits=lim)),
    ("compile: 100 outputs", 2.0, lambda: [f"exp(x*{i}) - 1 + y/{i + 1}" for i in range(100)],
     lambda e, lim: eqsat.compile(e, limits=lim)),
    ("solve: symbolic 5x5 system", 2.0, lambda: _symbolic_system(5),
     lambda e, lim: eqsat.solve(e, [f"x{j}" for j in range(5)], limits=lim)),
    ("error_bits: 100,000 points", 2.0, lambda: "sqrt(x + 1) - sqrt(x)",
     lambda e, lim: eqsat.error_bits(e, points=100_000, limits=lim)),
]


def _entry(index: int, queue: Any) -> None:
    _warm_up()
    _label, seconds, build, call = ENTRY_POINTS[index]
    given = build()
    setup_before = setup_seconds()
    start = time.perf_counter()
    try:
        call(given, eqsat.Limits(seconds=seconds))
        outcome = "answer"
    except eqsat.EqsatError as error:
        outcome = type(error).__name__
    setup = setup_seconds() - setup_before + _COMMAND_SETUP[0]
    queue.put((time.perf_counter() - start, setup, outcome,
               resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def _in_worker(target: Callable[..., None], *args: object) -> Any:
    context = multiprocessing.get_context("spawn")  # egglog's threads do not survive fork
    queue: Any = context.Queue()
    worker = context.Process(target=target, args=(*args, queue))
    worker.start()
    found = queue.get(timeout=600)
    worker.join()
    return found


def _entry_points() -> None:
    print(f"\n{'entry point':40} {'limit s':>7} {'took s':>7} {'setup s':>7} {'ratio':>6} "
          f"{'outcome':>13} {'MiB peak':>9}")
    worst = 0.0
    for index, (label, seconds, _, _) in enumerate(ENTRY_POINTS):
        elapsed, setup, outcome, peak = _in_worker(_entry, index)
        ratio = (elapsed - setup) / seconds  # the limit leaves the one-time setup out
        worst = max(worst, ratio)
        print(f"{label:40} {seconds:7.1f} {elapsed:7.2f} {setup:7.2f} {ratio:6.2f} "
              f"{outcome:>13} {peak:9.0f}")
    print(f"\nlargest time / limit: {worst:.2f}")


def _one(text: str, seconds: float, queue: Any) -> None:
    _warm_up()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    result = eqsat.simplify_report(text, limits=eqsat.Limits(seconds=seconds))
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    report = result.report
    queue.put((elapsed, report.stop_reason, max(report.node_history or [report.nodes]),
               before / 1024, peak / 1024))


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--limits", type=float, nargs="+", default=[1.0, 2.0, 5.0])
    options.add_argument("--skip-bombs", action="store_true", help="only the entry points")
    args = options.parse_args()
    if not args.skip_bombs:
        _bombs(args.limits)
    _entry_points()


def _bombs(limits: list[float]) -> None:
    print(f"{'bomb':32} {'limit s':>7} {'took s':>7} {'ratio':>6} {'stopped':>10} "
          f"{'e-nodes':>8} {'MiB before':>10} {'MiB peak':>9}")
    worst = 0.0
    for label, text in BOMBS:
        for seconds in limits:
            elapsed, reason, nodes, before, peak = _in_worker(_one, text, seconds)
            worst = max(worst, elapsed / seconds)
            print(f"{label:32} {seconds:7.1f} {elapsed:7.2f} {elapsed / seconds:6.2f} "
                  f"{reason:>10} {nodes:8d} {before:10.0f} {peak:9.0f}")
    print(f"\nlargest time / limit: {worst:.2f}")


if __name__ == "__main__":
    main()
