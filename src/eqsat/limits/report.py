"""RunReport: how a saturation run went, as text, as an HTML table and as a plot of growth."""

from __future__ import annotations

import html
import itertools
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..errors import EqsatError

SHOWN_RULES = 12  # the rules a report lists, most matches first


class StopReason(StrEnum):
    """Why a run stopped (each compares equal to its text, as reports print it)."""

    SATURATED = "saturated"  # no rule changes the e-graph any more
    ITERATIONS = "iterations"  # the limits: what cut the run short
    NODES = "nodes"
    TIME = "time"
    CONTRADICTION = "contradiction"  # two different numbers in one e-class: result unused
    OPTIMAL = "optimal"  # the result is a number or a symbol, which no term undercuts
    NORMAL_FORM = "normal form"  # a rational function of symbols, answered by its normal
    # form (see normal.py) without running the rules

    @property
    def is_limit(self) -> bool:
        """Whether a limit cut the run short (the answer may not be the best the rules reach)."""
        return self in (StopReason.ITERATIONS, StopReason.NODES, StopReason.TIME)


@dataclass
class RunReport:
    """Why a run stopped, how large the e-graph grew, and which rules fired how often."""

    stop_reason: StopReason
    iterations: int = 0
    nodes: int = 0
    seconds: float = 0.0
    rule_matches: dict[str, int] = field(default_factory=dict)
    node_history: list[int] = field(default_factory=list)  # e-nodes after each step
    rounds: int = 0  # fresh e-graphs run, each from the best term of the one before
    round_starts: list[int] = field(default_factory=list)  # where each round's history begins

    def absorb(self, later: RunReport, new_round: bool = True) -> None:
        """Fold in the report of a later round over the same query (or of a later stage of
        the same round: new_round=False)."""
        self.stop_reason = later.stop_reason
        self.iterations += later.iterations
        self.nodes = max(self.nodes, later.nodes)
        self.seconds += later.seconds
        if new_round:
            self.rounds += 1
            self.round_starts.append(len(self.node_history))
        for name, count in later.rule_matches.items():
            self.rule_matches[name] = self.rule_matches.get(name, 0) + count
        self.node_history += later.node_history

    def summary(self) -> str:
        rounds = f" in {self.rounds} round(s)" if self.rounds > 1 else ""
        return (f"stopped: {self.stop_reason} after {self.iterations} iteration(s){rounds}, "
                f"{self.nodes} e-nodes at most, {self.seconds * 1000:.1f} ms")

    def fired(self) -> list[tuple[int, str]]:
        """(matches, rule) of every rule that matched, most first."""
        return sorted(((n, r) for r, n in self.rule_matches.items() if n), reverse=True)

    def __str__(self) -> str:
        fired = self.fired()
        lines = [self.summary()]
        lines += [f"  {count:>7}  {name}" for count, name in fired[:SHOWN_RULES]]
        if len(fired) > SHOWN_RULES:
            lines.append(f"  ... and {len(fired) - SHOWN_RULES} more rules")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<RunReport {self}>"

    def _repr_html_(self) -> str:
        """Jupyter shows the summary and a table of the rules that fired."""
        fired = self.fired()
        rows = "".join(f"<tr><td>{html.escape(name)}</td><td style='text-align:right'>"
                       f"{count}</td></tr>" for count, name in fired[:SHOWN_RULES])
        more = f"<p>... and {len(fired) - SHOWN_RULES} more rules</p>" \
            if len(fired) > SHOWN_RULES else ""
        return (f"<p>{html.escape(self.summary())}</p><table><thead><tr><th>rule</th>"
                f"<th>matches</th></tr></thead><tbody>{rows}</tbody></table>{more}")

    def plot(self, path: str | Path | None = None) -> Any:
        """E-nodes after each iteration (the e-graph's growth): a matplotlib Figure, also
        written to `path` if given (needs matplotlib)."""
        try:
            import matplotlib

            if path is not None:
                matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            from matplotlib.ticker import MaxNLocator
        except ImportError:
            raise EqsatError("plotting needs matplotlib: pip install 'eqsat[plot]'") from None
        if not self.node_history:
            raise EqsatError("this run has no iterations to plot")
        figure, ax = plt.subplots(figsize=(6, 3.5))
        bounds = [*(self.round_starts or [0]), len(self.node_history)]
        for number, (begin, end) in enumerate(itertools.pairwise(bounds), 1):
            if begin < end:  # a round that stopped before its first step draws nothing
                ax.plot(range(begin + 1, end + 1), self.node_history[begin:end], marker="o",
                        label=f"round {number}" if len(bounds) > 2 else None)
        if len(bounds) > 2:
            ax.legend()
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("step (an iteration, or a chunk of them once the e-graph is large)")
        ax.set_ylabel("e-nodes")
        ax.set_title(f"e-graph growth ({self.stop_reason})")
        ax.grid(True, alpha=0.3)
        figure.tight_layout()
        if path is not None:
            figure.savefig(path, dpi=120)
            plt.close(figure)
        return figure
