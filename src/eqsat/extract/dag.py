"""DAG extraction: choose one e-node per e-class so that shared subterms are paid once."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..egraph import Snapshot
from ..errors import EqsatError
from ..expr import Expr
from .cost import CostModel
from .tree import build_term

Choice = tuple[str, tuple[int, ...], object]


def extract_dag(snapshot: Snapshot, handles: Sequence[str], model: CostModel,
                symbol: Callable[[str], Expr]) -> list[Expr]:
    """Greedy DAG extraction (as in extraction-gym's greedy-dag), then rebuild the terms.

    Each e-class keeps the cheapest e-node by the cost of the set of e-classes its term
    would use, so a subterm shared by several parts of the program is counted once.
    """
    best: dict[int, tuple[float, dict[int, float], Choice]] = {}
    changed = True
    while changed:
        changed = False
        for eclass, nodes in snapshot.classes.items():
            for node in nodes:
                children = node[1]
                if any(c not in best for c in children):
                    continue
                used: dict[int, float] = {}
                for child in children:
                    used.update(best[child][1])
                if eclass in used:  # the node would reach its own class: a cycle
                    continue
                used[eclass] = model.node_cost(eclass, node)
                total = sum(used.values())
                if eclass not in best or total < best[eclass][0] - 1e-9:
                    best[eclass] = (total, used, node)
                    changed = True
    return [_rebuild(snapshot.roots[h], best, symbol) for h in handles]


def _rebuild(root: int, best: dict[int, tuple[float, dict[int, float], Choice]],
             symbol: Callable[[str], Expr]) -> Expr:
    if root not in best:
        raise EqsatError("no finite-cost term in the e-class to extract")
    return build_term(root, lambda c: best[c][2], symbol)
