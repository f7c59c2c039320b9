"""Tree-cost extraction over a Snapshot, for extractors that choose among one class's nodes."""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable

from ..errors import ShapeError
from ..limits.budget import Snapshot
from ..term.expr import Expr, make, number
from ..term.shape import Shape, shape_of
from .cost import CostModel

Node = tuple[str, tuple[int, ...], object]


class TreeExtractor:
    """The cheapest term (tree cost) of every e-class of a snapshot."""

    def __init__(self, snapshot: Snapshot, model: CostModel,
                 symbol: Callable[[str], Expr]) -> None:
        self.snapshot = snapshot
        self.symbol = symbol
        self.model = model
        self.best: dict[int, tuple[float, Node]] = {}
        self.eclass_of: dict[Node, int] = {
            node: eclass for eclass, nodes in snapshot.classes.items() for node in nodes}
        # a worklist, children before parents: a node is costed once all its children have
        # a term, and again when one of them gets cheaper (costs only fall)
        users: dict[int, list[Node]] = {}
        for node in self.eclass_of:
            for child in set(node[1]):
                users.setdefault(child, []).append(node)
        work = deque(node for node in self.eclass_of if not node[1])
        while work:
            node = work.popleft()
            cost = self.node_cost(node)
            eclass = self.eclass_of[node]
            if cost is None or (eclass in self.best and cost >= self.best[eclass][0] - 1e-9):
                continue
            self.best[eclass] = (cost, node)
            work.extend(users.get(eclass, ()))
        self._terms: dict[int, Expr] = {}

    def node_cost(self, node: Node) -> float | None:
        """The cost of a term rooted at this node; None while a child has no term yet."""
        if any(c not in self.best for c in node[1]):
            return None
        return self.model.node_cost(self.eclass_of[node], node) + \
            sum(self.best[c][0] for c in node[1])

    def term(self, eclass: int) -> Expr:
        """The cheapest term of an e-class (which must have one)."""
        return build_term(eclass, lambda c: self.best[c][1], self.symbol, self._terms)


class CycleError(Exception):
    """A choice of e-nodes whose term would contain itself."""


def build_term(root: int, node_of: Callable[[int], Node], symbol: Callable[[str], Expr],
               done: dict[int, Expr] | None = None,
               within: Callable[[int], Expr] | None = None) -> Expr:
    """The term of the e-node node_of chooses in each e-class, built bottom-up (no
    recursion); `done` caches built classes. A class met again inside its own term is a
    CycleError, or, given `within`, that term of it there (an equal one that does not
    contain it: where(y < 0, p, hypot(x, sqrt(y))) in the class of sqrt(x^2 + y), which the
    hypot joins)."""
    done = {} if done is None else done
    stack: list[tuple[int, bool]] = [(root, False)]
    path: set[int] = set()
    while stack:
        eclass, ready = stack.pop()
        if eclass in done:
            continue
        op, children, value = node_of(eclass)
        if not ready:
            if eclass in path:
                if within is None:
                    raise CycleError(eclass)
                continue  # (its user takes within's term for it)
            path.add(eclass)
            stack.append((eclass, True))
            stack.extend((c, False) for c in children if c not in done)
            continue
        path.discard(eclass)
        if op == "num":
            done[eclass] = number(value)  # type: ignore[arg-type]
        elif op == "sym":
            done[eclass] = symbol(value)  # type: ignore[arg-type]
        else:
            done[eclass] = make(op, *(done[c] if c in done else within(c)  # type: ignore[misc]
                                      for c in children))
    return done[root]


def class_shapes(snapshot: Snapshot, symbol: Callable[[str], Expr]) -> dict[int, Shape]:
    """The shape of every e-class's values (the shape of its cheapest term; a class whose
    terms do not fit together has none)."""
    plain = TreeExtractor(snapshot, CostModel(), symbol)
    shapes: dict[int, Shape] = {}
    for eclass in plain.best:
        with contextlib.suppress(ShapeError, CycleError):
            shapes[eclass] = shape_of(plain.term(eclass))
    return shapes
