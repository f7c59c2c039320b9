"""DAG extraction: choose one e-node per e-class so that shared subterms are paid once."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import EqsatError
from ..limits.budget import Snapshot
from ..term.expr import Expr
from .cost import CostModel
from .tree import TreeExtractor, build_term

Choice = tuple[str, tuple[int, ...], object]
# Each class's choice carries the set of classes its term uses: time grows with the square of
# the e-graph (a 5,000-node chain took 120 s). Past this many e-nodes, tree-cost extraction
# (linear) chooses; shared subterms are still computed once, the terms being hash-consed.
MAX_DAG_NODES = 3_000


def extract_dag(snapshot: Snapshot, handles: Sequence[str], model: CostModel,
                symbol: Callable[[str], Expr]) -> list[Expr]:
    """Greedy DAG extraction (as in extraction-gym's greedy-dag), then rebuild the terms.

    Each e-class keeps the cheapest e-node by the cost of the set of e-classes its term
    would use, so a subterm shared by several parts of the program is counted once. An
    e-graph past MAX_DAG_NODES is extracted by tree cost instead.
    """
    if sum(len(nodes) for nodes in snapshot.classes.values()) > MAX_DAG_NODES:
        extractor = TreeExtractor(snapshot, model, symbol)
        if any(snapshot.roots[h] not in extractor.best for h in handles):
            raise EqsatError("no finite-cost term in the e-class to extract")
        return [extractor.term(snapshot.roots[h]) for h in handles]
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
