"""The engines side by side: eqsat, SymPy, SymEngine, Symbolica and Alkahest, each in a worker
process of its own, on the same cases, timed by the same rule.

Timing rule: the operation on input each engine has already parsed, the engine warm (one
untimed call first), its caches cleared before every timed call (eqsat.clear_cache, SymPy's
cache) so that a repeat measures work and not a cache hit; the best of 3 calls (of 1 where a
call takes more than a second). Size is SymPy's count_ops of each result's text, so every
engine is measured the same way. An engine that is not installed is left out (the `bench`
extra installs them all); a case an engine cannot take shows `-`, one past the time limit
`timeout`.

What each engine's "simplify" is: eqsat.simplify, sympy.simplify, SymEngine's expand (it
has no simplify), Symbolica's cancel (rational simplification; it has no simplify), and
alkahest.simplify. "diff" is each engine's derivative followed by that simplification
(SymPy's bare diff is a column of its own).
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import queue
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sympy

ENGINES = ["eqsat", "SymPy", "SymEngine", "Symbolica", "Alkahest"]
SLOW_CALL = 1.0  # seconds: past this, a case is timed once


@dataclass(frozen=True)
class Case:
    """One query: a verb ("simplify" or "diff"), its input text (^ for powers), and for
    diff the variables to differentiate in, in order."""

    label: str
    verb: str
    text: str
    variables: tuple[str, ...] = ()


@dataclass
class Outcome:
    """One engine on one case: the best time, the size of its result, and eqsat's report."""

    seconds: float | None = None  # None: it could not take the case
    size: int | None = None
    note: str = ""  # why it could not, or eqsat's stop reason
    nodes: int = 0  # eqsat: the most e-nodes of its runs (0: no e-graph)
    top_rules: list[str] = field(default_factory=list)  # eqsat: its most-matched rules


def _size(text: str) -> int | None:
    try:
        return int(sympy.count_ops(sympy.sympify(text.replace("^", "**"))))
    except (sympy.SympifyError, TypeError, SyntaxError, ValueError):
        return None


class _Adapter:
    """An engine's parse, verbs, cache clearing and printing, all on its own objects."""

    def parse(self, text: str) -> Any:
        raise NotImplementedError

    def run(self, case: Case, parsed: Any) -> Any:
        raise NotImplementedError

    def clear(self) -> None:
        """Empty the engine's caches (before each timed call)."""

    def text(self, result: Any) -> str:
        return str(result)

    def outcome(self, result: Any, seconds: float) -> Outcome:
        return Outcome(seconds, _size(self.text(result)))


class _Eqsat(_Adapter):
    def __init__(self) -> None:
        import eqsat

        self.eqsat = eqsat

    def parse(self, text: str) -> Any:
        return self.eqsat.parse(text)

    def run(self, case: Case, parsed: Any) -> Any:
        if case.verb == "simplify":
            return self.eqsat.simplify_report(parsed)
        return self.eqsat.diff_report(parsed, list(case.variables))

    def clear(self) -> None:
        self.eqsat.clear_cache()

    def outcome(self, result: Any, seconds: float) -> Outcome:
        report = result.report
        top = sorted(report.rule_matches.items(), key=lambda item: -item[1])[:3]
        return Outcome(seconds, int(sympy.count_ops(self.eqsat.to_sympy(result.expr))),
                       report.stop_reason.value, report.nodes, [name for name, _ in top])


class _Sympy(_Adapter):
    def __init__(self, bare: bool = False) -> None:
        from sympy.core.cache import clear_cache

        self.bare, self._clear = bare, clear_cache

    def parse(self, text: str) -> Any:
        return sympy.sympify(text.replace("^", "**"))

    def run(self, case: Case, parsed: Any) -> Any:
        if case.verb == "simplify":
            return sympy.simplify(parsed)
        found = sympy.diff(parsed, *(sympy.Symbol(v) for v in case.variables))
        return found if self.bare else sympy.simplify(found)

    def clear(self) -> None:
        self._clear()


class _SymEngine(_Adapter):
    def __init__(self) -> None:
        import symengine

        self.se = symengine

    def parse(self, text: str) -> Any:
        return self.se.sympify(text.replace("^", "**"))

    def run(self, case: Case, parsed: Any) -> Any:
        if case.verb == "diff":
            parsed = self.se.diff(parsed, *(self.se.Symbol(v) for v in case.variables))
        return self.se.expand(parsed)


class _Symbolica(_Adapter):
    def __init__(self) -> None:
        with contextlib.redirect_stdout(io.StringIO()):  # its licence banner
            from symbolica import Expression, S
        self.expression, self.symbol = Expression, S

    def parse(self, text: str) -> Any:
        return self.expression.parse(text)

    def run(self, case: Case, parsed: Any) -> Any:
        for variable in case.variables:
            parsed = parsed.derivative(self.symbol(variable))
        return parsed.cancel()


class _Alkahest(_Adapter):
    def __init__(self) -> None:
        import alkahest

        self.ak, self.pool = alkahest, alkahest.ExprPool()

    def parse(self, text: str) -> Any:
        return self.ak.parse(text, self.pool)

    def run(self, case: Case, parsed: Any) -> Any:
        for variable in case.variables:
            parsed = self.ak.diff(parsed, self.pool.symbol(variable)).value
        return self.ak.simplify(parsed).value


ADAPTERS: dict[str, Callable[[], _Adapter]] = {
    "eqsat": _Eqsat, "SymPy": _Sympy, "SymPy bare diff": lambda: _Sympy(bare=True),
    "SymEngine": _SymEngine, "Symbolica": _Symbolica, "Alkahest": _Alkahest,
}


def _timed(adapter: _Adapter, case: Case) -> Outcome:
    try:
        parsed = adapter.parse(case.text)
        adapter.run(case, parsed)  # warm
    except Exception as error:  # the engine cannot take this case
        return Outcome(note=type(error).__name__)
    best, result = float("inf"), None
    for _ in range(3):
        adapter.clear()
        start = time.perf_counter()
        result = adapter.run(case, parsed)
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        if elapsed > SLOW_CALL:
            break
    return adapter.outcome(result, best)


def _serve(engine: str, cases: Any, results: Any) -> None:
    try:
        adapter = ADAPTERS[engine]()
    except ImportError:
        results.put(None)
        return
    results.put("ready")
    while (item := cases.get()) is not None:
        results.put(_timed(adapter, item))


class Worker:
    """One engine in a process of its own, taking cases one at a time."""

    def __init__(self, engine: str) -> None:
        context = multiprocessing.get_context("spawn")
        self.engine, self._context = engine, context
        self.available = self._start()

    def _start(self) -> bool:
        self._cases, self._results = self._context.Queue(), self._context.Queue()
        self._process = self._context.Process(target=_serve,
                                              args=(self.engine, self._cases, self._results))
        self._process.start()
        return self._results.get() == "ready"

    def run(self, case: Case, timeout: float) -> Outcome:
        self._cases.put(case)
        try:
            found: Outcome = self._results.get(timeout=timeout * 4 + 10)  # warm-up + 3 calls
            return found
        except queue.Empty:
            self._process.kill()
            self._process.join()
            self._start()
            return Outcome(note="timeout")

    def close(self) -> None:
        if self._process.is_alive():
            self._cases.put(None)
            self._process.join(30)


def side_by_side(cases: list[Case], timeout: float, engines: list[str]) -> None:
    """Run every case in every engine installed; print a row per case, then the medians."""
    workers = [Worker(name) for name in engines]
    for worker in workers:
        if not worker.available:
            print(f"# {worker.engine}: not installed (pip install -e '.[bench]')")
    workers = [w for w in workers if w.available]
    names = [w.engine for w in workers]
    header = "".join(f" {n[:14]:>14}" for n in names)
    print(f"{'case':40}{header}  eqsat e-nodes, stop, top rules")
    table: list[list[Outcome]] = []
    for case in cases:
        row = [worker.run(case, timeout) for worker in workers]
        table.append(row)
        cells = "".join(f" {_cell(o):>14}" for o in row)
        ours = row[0]
        print(f"{case.label[:40]:40}{cells}  {ours.nodes} {ours.note} {','.join(ours.top_rules)}")
    for worker in workers:
        worker.close()
    _summary(names, table)


def _cell(outcome: Outcome) -> str:
    if outcome.seconds is None:
        return outcome.note[:14] or "-"
    size = "?" if outcome.size is None else str(outcome.size)
    return f"{outcome.seconds * 1000:.3f} ms {size:>3}"


def _summary(names: list[str], table: list[list[Outcome]]) -> None:
    print()
    print(f"cases: {len(table)}; cells: best time of 3, then the result's size (count_ops)")
    for column, name in enumerate(names):
        taken = [row[column] for row in table if row[column].seconds is not None]
        if not taken:
            continue
        median = statistics.median(o.seconds or 0.0 for o in taken) * 1000
        sized = [(row[0].size, row[column].size) for row in table
                 if row[column].size is not None and row[0].size is not None]
        no_larger = sum(ours <= theirs for ours, theirs in sized if ours is not None)
        print(f"{name:16} median {median:9.3f} ms over {len(taken):3} cases taken; eqsat's "
              f"result no larger on {no_larger} of {len(sized)}")
    ours = [row[0] for row in table if row[0].seconds is not None]
    nodes = [o.nodes for o in ours]
    if nodes:
        print(f"eqsat e-nodes per case: median {statistics.median(nodes):g}, most {max(nodes)}; "
              f"{nodes.count(0)} of {len(nodes)} cases needed no e-graph")
    ac = {"add-comm", "mul-comm", "add-assoc", "mul-assoc", "add-assoc-rev", "mul-assoc-rev"}
    led = sum(bool(ac & set(o.top_rules)) for o in ours)
    print(f"eqsat cases with an associativity or commutativity rule among the top 3 matched: "
          f"{led} of {len(ours)}")
