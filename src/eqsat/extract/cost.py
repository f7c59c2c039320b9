"""Cost models: per-op costs from the op table, tree cost and DAG cost of a term."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..egraph import NUMBER_COST, SYMBOL_COST
from ..expr import Expr, postorder
from ..ops import OPS


@dataclass(frozen=True)
class CostModel:
    """Op costs (the table's by default) with per-target overrides."""

    overrides: Mapping[str, float] = field(default_factory=dict)

    def op_cost(self, op: str) -> float:
        if op in self.overrides:
            return self.overrides[op]
        if op == "sym":
            return SYMBOL_COST
        if op == "num":
            return NUMBER_COST
        return OPS[op].cost

    def tree_cost(self, expr: Expr) -> float:
        """Every occurrence of a shared subterm counted."""
        costs: dict[Expr, float] = {}
        for node in postorder(expr):
            costs[node] = self.op_cost(node.op) + sum(costs[a] for a in node.args)
        return costs[expr]

    def dag_cost(self, *exprs: Expr) -> float:
        """Each distinct subterm counted once, across all outputs."""
        seen: set[Expr] = set()
        for expr in exprs:
            seen.update(postorder(expr))
        return sum(self.op_cost(node.op) for node in seen)
