"""Accuracy-aware extraction: a local search over the e-graph's choices of e-node, every
candidate measured on the same sampled points."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..extract.cost import CostModel
from ..extract.tree import CycleError, Node, TreeExtractor, build_term
from ..limits.budget import Backstop, Snapshot
from ..term.expr import Expr
from ..term.numeric import applied, rounded
from ..term.ops import OPS
from ..term.walks import postorder
from .localize import overflows
from .measure import Sample, mean_bits

TIE = 0.1  # mean bits of error closer than this are a tie, which the cheaper form wins
MEASURED = 400  # candidates a search measures, at most
MEASURED_NODES = 24_000  # ... and at most this many nodes of them (a candidate's time
MIN_MEASURED = 16  # follows its size: a 400-node sum measures 60), but at least these
IN_RANGE_PASSES = 8  # valuations of each e-node in in_range_choices, on average, at most,
IN_RANGE_VALUATIONS = 20_000  # ... and this many in all (about half a second)
IN_RANGE_STEPS = 200_000  # classes walked in all to keep a choice from making a cycle; past
# them a choice is not changed (a chain 2,000 deep walked its depth at each valuation)
DEEP_PROBES = 16  # candidates a search's deep passes measure, at most
DEEP_ABOVE = 1.0  # a deep pass runs where the best is more bits than this off (under it,
# nearly every change ties: its probes would go to gains under a bit)


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
    """Start from the cheapest term; try every other e-node of each e-class the current term uses
    (top down), keeping a change when it is better (fewer bits, or a tie and cheaper), until no
    change helps; then, where the best is still more than DEEP_ABOVE bits off, a deep pass:
    where a change is no worse but brings in e-classes the term did not use, try it again with
    each other e-node of one of those, at any depth below it, nearest first (1 - y^x as
    -(y^x - 1) gains nothing until y^x - 1 is expm1(x*log(y))), DEEP_PROBES of them at most;
    after a deep change, single changes again. It stops where a deep pass finds nothing, the
    budget of measured candidates (fewer for a large term: MEASURED_NODES) is spent, or the
    backstop's time runs out. Returns the best and every candidate measured but the deep pass's
    probes (as many again as the single changes, near the best on average, they would crowd out
    of regimes' MAX_GIVEN forms those that win on one side)."""
    stop = backstop or Backstop(math.inf)
    choices: dict[int, Node] = {}
    seen: dict[Expr, Candidate] = {}
    probes: set[Expr] = set()  # measured by a deep pass only, and not kept

    def measure(chosen: dict[int, Node]) -> Candidate | None:
        try:
            term = build_term(root, lambda c: _node(c, chosen, extractor), extractor.symbol,
                              within=extractor.term)
        except CycleError:
            return None
        if term not in seen:
            seen[term] = Candidate(term, mean_bits(term, points), model.tree_cost(term))
        return seen[term]

    def below(trial: dict[int, Node], than: Candidate,
              floor: float) -> tuple[Candidate, dict[int, Node]] | None:
        """The trial with one e-class that it brings in (at any depth below the changed
        node) chosen otherwise, where that is better than `than`."""
        if len(probes) >= DEEP_PROBES:  # (spent: no walks of the term either)
            return None
        used = set(_classes(root, choices, extractor))
        for child in _classes(root, trial, extractor):  # top down: nearest the change first
            if child in used:
                continue
            default = _node(child, trial, extractor)
            for other in snapshot.classes[child]:
                if len(probes) >= DEEP_PROBES:
                    return None
                if other == default or extractor.node_cost(other) is None:
                    continue
                deeper = {**trial, child: other}
                known = len(seen)
                candidate = measure(deeper)
                if candidate is None:
                    continue
                if better(candidate, than, floor):
                    return candidate, deeper
                if len(seen) > known:  # new: a probe
                    probes.add(candidate.expr)
                if len(seen) >= budget or stop.passed():
                    return None
        return None

    best = measure(choices)
    assert best is not None  # the cheapest term has no cycle
    if overflows(best.expr, points):
        safe = in_range_choices(snapshot, root, extractor, points)
        if (start := measure(safe)) is not None and better(start, best, best.bits):
            best, choices = start, safe
    budget = min(budget, max(MIN_MEASURED, MEASURED_NODES // len(postorder(best.expr))))
    floor = best.bits
    deep = False  # whether no-worse changes are tried with a choice below them too
    while len(seen) < budget and not stop.passed():
        improved = False
        for eclass in _classes(root, choices, extractor):
            current = choices.get(eclass, extractor.best[eclass][1])
            for node in snapshot.classes[eclass]:
                if node == current or extractor.node_cost(node) is None:
                    continue
                trial = {**choices, eclass: node}
                candidate = measure(trial)  # (a deep pass finds it in `seen`)
                if candidate is None:
                    continue
                found = (candidate, trial) if better(candidate, best, floor) else None
                if found is None and deep and candidate.bits <= best.bits + TIE:
                    found = below(trial, best, floor)
                if found is not None:
                    best, choices = found
                    improved, floor = True, min(floor, best.bits)
                    break
                if len(seen) >= budget or stop.passed():
                    break
            if improved or len(seen) >= budget:
                break
        if not improved and (deep or best.bits <= DEEP_ABOVE):
            break
        deep = not improved  # single changes first; a deep pass only where they find none
    return best, [c for c in seen.values() if c.expr not in probes]


def in_range_choices(snapshot: Snapshot, root: int, extractor: TreeExtractor,
                     points: Sample) -> dict[int, Node]:
    """For each e-class below the root, the e-node whose float value (its operands the
    values of the e-nodes chosen below it) is finite and nonzero at the most points of the
    sample, the cheaper among ties: where one way to compute a class over- or underflows and
    another does not (log(y^3) and 3*log(y) at y = 1e-150), the one that does not, however
    deep. An e-node is valued again when a choice below it changes (IN_RANGE_PASSES,
    IN_RANGE_VALUATIONS and IN_RANGE_STEPS bound the work); no choice makes a cycle."""
    reachable = _reachable(root, snapshot)
    users: dict[int, list[tuple[int, Node]]] = {}
    for eclass in reachable:
        for member in snapshot.classes[eclass]:
            for child in set(member[1]):
                users.setdefault(child, []).append((eclass, member))
    work: deque[tuple[int, Node]] = deque(
        (eclass, node) for eclass in reachable for node in snapshot.classes[eclass]
        if not node[1])
    allowance = min(IN_RANGE_VALUATIONS,
                    IN_RANGE_PASSES * sum(len(snapshot.classes[c]) for c in reachable))
    values: dict[int, np.ndarray] = {}
    ranks: dict[int, tuple[int, float]] = {}  # (points not in range, cost) of each choice
    choices: dict[int, Node] = {}
    steps = [IN_RANGE_STEPS]
    while work and allowance > 0:
        eclass, node = work.popleft()
        cost = extractor.node_cost(node)
        if cost is None or any(child not in values for child in node[1]):
            continue
        allowance -= 1
        value = _float_value(node, [values[c] for c in node[1]], extractor, points)
        if value is None:
            continue
        rank = (points.size - int(np.count_nonzero(np.isfinite(value) & (value != 0))), cost)
        if choices.get(eclass) == node:  # valued again, as a choice below it changed
            if np.array_equal(value, values[eclass], equal_nan=True):
                continue
        elif (eclass in ranks and rank >= ranks[eclass]) or \
                _reaches(node[1], eclass, choices, extractor, steps):
            continue
        values[eclass], ranks[eclass], choices[eclass] = value, rank, node
        work.extend(users.get(eclass, ()))
    return choices


def _reaches(children: tuple[int, ...], eclass: int, choices: dict[int, Node],
             extractor: TreeExtractor, steps: list[int]) -> bool:
    """Whether the term chosen below these children contains the e-class; True once the
    steps left (steps[0], spent here) run out, so that no choice is made unchecked."""
    stack, seen = list(children), set(children)
    while stack:
        current = stack.pop()
        steps[0] -= 1
        if current == eclass or steps[0] < 0:
            return True
        for child in _node(current, choices, extractor)[1]:
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return False


def _reachable(root: int, snapshot: Snapshot) -> list[int]:
    """The e-classes below the root (through any of their e-nodes), each once."""
    order, stack, seen = [], [root], {root}
    while stack:
        eclass = stack.pop()
        order.append(eclass)
        for node in snapshot.classes[eclass]:
            for child in node[1]:
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
    return order


def _float_value(node: Node, operands: list[np.ndarray], extractor: TreeExtractor,
                 points: Sample) -> np.ndarray | None:
    """An e-node's float value at each of the sample's points, its operands' values given;
    None for an op whose result is not a value."""
    op, _, value = node
    found: Any
    if op == "sym":
        found = points.values.get(extractor.symbol(value).name)  # type: ignore[arg-type]
    elif op == "num":
        found = rounded(value)  # type: ignore[arg-type]
    elif OPS[op].is_value:
        with np.errstate(all="ignore"):
            found = applied(op, operands)
    else:
        found = None
    if found is None:
        return None
    return np.broadcast_to(np.asarray(found, dtype=points.truth.dtype), points.truth.shape)


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
