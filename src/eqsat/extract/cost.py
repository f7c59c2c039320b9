"""Cost models: per-op costs from the op table, tree cost and DAG cost of a term."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..limits.budget import NUMBER_COST, SYMBOL_COST
from ..term.expr import Expr
from ..term.memos import Kept
from ..term.ops import OPS
from ..term.shape import SHAPE_ARGUMENTS, Shape, shape_of
from ..term.walks import postorder

Node = tuple[str, tuple[int, ...], object]
# each term's tree cost by the op table's costs, kept while it lives: a query measures the same
# terms in every stage (diff(sin(x), x) measured sin(x) and cos(x) three times each)
_table_costs: Kept[float] = Kept("tree cost")


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

    def term_cost(self, node: Expr) -> float:
        """The cost of one node of a term (its op's, here)."""
        return self.op_cost(node.op)

    def node_cost(self, eclass: int, node: Node) -> float:
        """The cost of one e-node of a snapshot (its op's, here)."""
        return self.op_cost(node[0])

    def tree_cost(self, expr: Expr) -> float:
        """Every occurrence of a shared subterm counted."""
        return self.remembering_tree_cost()(expr)

    def remembering_tree_cost(self) -> Callable[[Expr], float]:
        """tree_cost that keeps every subterm's cost it has computed: many calls on terms
        nested in one another (the normal forms measure each part, then the whole) take
        time linear in their distinct subterms, not quadratic. By the op table's costs, they
        are kept on the terms (_table_costs)."""
        memo: Kept[float] | dict[Expr, float] = _table_costs if type(self) is CostModel and \
            not self.overrides else {}

        def cost(expr: Expr) -> float:
            known = memo.get(expr)
            if known is not None:
                return known
            parts = [memo.get(a) for a in expr.args]
            if None in parts:  # only the parts not measured yet (the normal forms measure
                for node in postorder(expr, lambda n: n not in memo):  # forms sharing parts)
                    if node not in memo:
                        memo[node] = self.term_cost(node) + sum(memo[a] for a in node.args)
                return memo[expr]
            found: float = self.term_cost(expr) + sum(parts)  # type: ignore[arg-type]
            memo[expr] = found
            return found

        return cost

    def dag_cost(self, *exprs: Expr) -> float:
        """Each distinct subterm counted once, across all outputs."""
        seen: set[Expr] = set()
        for expr in exprs:
            seen.update(postorder(expr))
        return sum(self.term_cost(node) for node in seen)


REPRESENTATIVE_SIZE = 100  # a named dimension's size, for costs, unless told
# per element, a power costs more than exp (powf against expf): else E^x would win over
# exp(x) once costs scale with elements and the constant E does not
TENSOR_OP_COSTS = {"pow": 21}
MATMUL_COST = 0.2  # per multiply-add, against an elementwise add's 1 per element


@dataclass(frozen=True)
class TensorCost(CostModel):
    """Costs that grow with the work: elements computed, multiply-adds of a matrix product
    (so extraction picks the cheap order of a matrix chain). Named dimensions count as
    `sizes` says, or REPRESENTATIVE_SIZE. Snapshot classes get their shapes from
    `class_shapes`, filled by whoever extracts."""

    sizes: Mapping[str, int] = field(default_factory=dict)
    class_shapes: dict[int, Shape] = field(default_factory=dict)

    def op_cost(self, op: str) -> float:
        if op not in self.overrides and op in TENSOR_OP_COSTS:
            return TENSOR_OP_COSTS[op]
        return super().op_cost(op)

    def elements(self, shape: Shape) -> int:
        return math.prod(d if isinstance(d, int) else self.sizes.get(d, REPRESENTATIVE_SIZE)
                         for d in shape)

    def cost(self, op: str, args: list[Shape], shape: Shape) -> float:
        base = self.op_cost(op)
        if op in ("sym", "num") or not args:
            return base
        if op in ("matmul", "dot"):
            inner = args[0][-1]
            return MATMUL_COST * self.elements((*shape, inner)) + self.elements(shape)
        work = max(self.elements(s) for s in [*args[:1], shape]) if op in SHAPE_ARGUMENTS \
            else self.elements(shape)
        return base / 10 * work

    def term_cost(self, node: Expr) -> float:
        return self.cost(node.op, [shape_of(a) for a in node.args], shape_of(node))

    def node_cost(self, eclass: int, node: Node) -> float:
        op, children, _ = node
        if eclass not in self.class_shapes or any(c not in self.class_shapes
                                                  for c in children):
            return math.inf
        return self.cost(op, [self.class_shapes[c] for c in children],
                         self.class_shapes[eclass])
