"""Accuracy-aware extraction: a local search over the e-graph's choices of e-node, every
candidate measured on the same sampled points."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..extract.cost import CostModel
from ..extract.tree import CycleError, Node, TreeExtractor, build_term
from ..limits.budget import Backstop, Snapshot
from ..term.expr import Expr
from ..term.walks import postorder
from .measure import Sample, mean_bits

TIE = 0.1  # mean bits of error closer than this are a tie, which the cheaper form wins
MEASURED = 400  # candidates a search measures, at most
MEASURED_NODES = 24_000  # ... and at most this many nodes of them (a candidate's time
MIN_MEASURED = 16  # follows its size: a 400-node sum measures 60), but at least these


def better(candidate: Candidate, best: Candidate, floor: float) -> bool:
    """Fewer bits by more than a tie; or a tie, with the best seen (floor), and cheaper.
    Measured on a sample, 0.01 bit is noise: it must not buy a form twice the size."""
    return candidate.bits < best.bits - TIE or (
        candidate.bits <= floor + TIE and candidate.cost < best.cost)


@dataclass(frozen=True)
class Candidate:
    expr: Expr
    bits: float
    cost: float


def most_accurate(snapshot: Snapshot, root: int, extractor: TreeExtractor, points: Sample,
                  model: CostModel, budget: int = MEASURED, backstop: Backstop | None = None
                  ) -> tuple[Candidate, list[Candidate]]:
    """Start from the cheapest term; try every other e-node of each e-class the current
    term uses (top down), keeping a change when it is better (fewer bits, or a tie and
    cheaper); repeat until no change helps, the budget of measured candidates (fewer for a
    large term: MEASURED_NODES) is spent, or the backstop's time runs out. Returns the best
    and every candidate measured."""
    stop = backstop or Backstop(math.inf)
    choices: dict[int, Node] = {}
    seen: dict[Expr, Candidate] = {}

    def measure(chosen: dict[int, Node]) -> Candidate | None:
        try:
            term = build_term(root, lambda c: _node(c, chosen, extractor), extractor.symbol)
        except CycleError:
            return None
        if term not in seen:
            seen[term] = Candidate(term, mean_bits(term, points), model.tree_cost(term))
        return seen[term]

    best = measure(choices)
    assert best is not None  # the cheapest term has no cycle
    budget = min(budget, max(MIN_MEASURED, MEASURED_NODES // len(postorder(best.expr))))
    floor = best.bits
    improved = True
    while improved and len(seen) < budget and not stop.passed():
        improved = False
        for eclass in _classes(root, choices, extractor):
            current = choices.get(eclass, extractor.best[eclass][1])
            for node in snapshot.classes[eclass]:
                if node == current or extractor.node_cost(node) is None:
                    continue
                trial = {**choices, eclass: node}
                candidate = measure(trial)
                if candidate is None:
                    continue
                if better(candidate, best, floor):
                    best, choices, improved = candidate, trial, True
                    floor = min(floor, candidate.bits)
                    break
                if len(seen) >= budget or stop.passed():
                    break
            if improved or len(seen) >= budget:
                break
    return best, list(seen.values())


def _node(eclass: int, choices: dict[int, Node], extractor: TreeExtractor) -> Node:
    return choices.get(eclass, extractor.best[eclass][1])


def _classes(root: int, choices: dict[int, Node], extractor: TreeExtractor) -> list[int]:
    """The e-classes the current term uses, top down (each once)."""
    order, queue, seen = [], [root], {root}
    while queue:
        eclass = queue.pop(0)
        order.append(eclass)
        for child in _node(eclass, choices, extractor)[1]:
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return order
