"""Walks over a term tree: its distinct subterms children first, a bottom-up rebuild, and
sizes computed once per subterm and kept on it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ..errors import LimitError
from .memos import Kept
from .ops import NOT_VALUES, TENSOR_OPS

if TYPE_CHECKING:
    from .expr import Expr

MAX_DEPTH = 100_000  # nesting that reaches the e-graph
MAX_KEPT_WALK = 512  # distinct subterms of a term whose walk is kept (see postorder)

# the walk of each term walked, without the term itself (a value naming its key would keep it
# alive): a query walks the same terms many times (diff(sin(x), x): 19 walks of 2-5 nodes);
# kept while the term lives, for terms of at most MAX_KEPT_WALK distinct subterms
_walks: Kept[tuple[Expr, ...]] = Kept("walk")


MAX_RECURSIVE_DEPTH = 100  # a shallower term is walked by recursion (faster in CPython)


def postorder(root: Expr, into: Callable[[Expr], bool] | None = None) -> list[Expr]:
    """Distinct subterms, children before parents (by recursion only where the term is
    shallow); with `into`, only the children of nodes it accepts (the others are leaves of
    the walk)."""
    if into is None:
        kept = _walks.get(root)
        if kept is not None:
            return [*kept, root]
    order = _shallow(root, into) if sizes(root)[1] <= MAX_RECURSIVE_DEPTH else \
        _deep(root, into)
    if into is None and len(order) <= MAX_KEPT_WALK:
        _walks[root] = tuple(order[:-1])
    return order


def _shallow(root: Expr, into: Callable[[Expr], bool] | None) -> list[Expr]:
    """postorder by recursion (one frame a level)."""
    order: list[Expr] = []
    seen: set[Expr] = set()

    def visit(node: Expr) -> None:
        seen.add(node)
        if into is None or into(node):
            for arg in node.args:
                if arg not in seen:
                    visit(arg)
        order.append(node)

    visit(root)
    return order


def _deep(root: Expr, into: Callable[[Expr], bool] | None) -> list[Expr]:
    """postorder by a stack of its own, at any depth."""
    order: list[Expr] = []
    seen: set[Expr] = set()
    stack: list[Expr | None] = [root]  # None: the node below it is done (its children are)
    while stack:
        node = stack.pop()
        if node is None:
            order.append(stack.pop())  # type: ignore[arg-type]  # a node follows a None
            continue
        if node in seen:
            continue
        seen.add(node)
        stack += (node, None)
        if into is None or into(node):
            args = node.args
            for index in range(len(args) - 1, -1, -1):
                if args[index] not in seen:
                    stack.append(args[index])
    return order


def rebuild(root: Expr, build: Callable[[Expr, list[Expr]], Expr]) -> Expr:
    """Bottom-up rewrite: build(node, new_args) for every distinct subterm."""
    done: dict[Expr, Expr] = {}
    for node in postorder(root):
        done[node] = build(node, [done[a] for a in node.args])
    return done[root]


def summands(node: Expr) -> list[tuple[Expr, int]]:
    """The terms of nested sums, differences and negations, left to right, each with its
    sign (+1 or -1): x - (y - z) is x, y, z with 1, -1, 1."""
    found: list[tuple[Expr, int]] = []
    stack = [(node, 1)]
    while stack:
        part, sign = stack.pop()
        if part.op in ("add", "sub"):
            stack += [(part.args[1], -sign if part.op == "sub" else sign), (part.args[0], sign)]
        elif part.op == "neg":
            stack.append((part.args[0], -sign))
        else:
            found.append((part, sign))
    return found


def multiplicands(node: Expr) -> list[Expr]:
    """The factors of nested products, left to right."""
    found, stack = [], [node]
    while stack:
        part = stack.pop()
        if part.op == "mul":
            stack += [part.args[1], part.args[0]]
        else:
            found.append(part)
    return found


Sizes = tuple[int, int, bool, bool]


def sizes(root: Expr) -> Sizes:
    """(nodes as a tree, depth, whether a tensor op or shaped symbol is in it, whether oo or
    an order term is): computed once per subterm and kept on it (a 100,000-deep input was
    walked 15 times per simplify)."""
    known: Sizes | None = root._sizes
    if known is not None:
        return known
    if all(a._sizes is not None for a in root.args):  # built bottom-up, as parse does
        _set_sizes(root)
        assert root._sizes is not None
        return root._sizes
    stack: list[tuple[Expr, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if node._sizes is not None:
            continue
        if not expanded:
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if a._sizes is None)
            continue
        _set_sizes(node)
    assert root._sizes is not None
    return root._sizes


def _set_sizes(node: Expr) -> None:
    """A node's sizes from its arguments' (all known)."""
    parts = [a._sizes for a in node.args if a._sizes is not None]
    tensor = (node.is_symbol and bool(node.shape)) or node.op in TENSOR_OPS or \
        any(p[2] for p in parts)
    not_value = node.op in NOT_VALUES or any(p[3] for p in parts)
    object.__setattr__(node, "_sizes", (1 + sum(p[0] for p in parts),
                                        1 + max((p[1] for p in parts), default=0), tensor,
                                        not_value))


def has_non_values(root: Expr) -> bool:
    """Whether oo or an order term O(...) is in it (see ops.NOT_VALUES)."""
    return sizes(root)[3]


def tree_size(root: Expr) -> int:
    """Nodes of the expression as a tree (shared subterms counted at every use)."""
    return sizes(root)[0]


def symbol_names(roots: Iterable[Expr]) -> dict[Expr, frozenset[str]]:
    """The names of the symbols in every distinct subterm of the roots (one pass)."""
    found: dict[Expr, frozenset[str]] = {}
    for root in roots:
        for node in postorder(root):
            if node not in found:
                found[node] = frozenset((node.name,)) if node.is_symbol else \
                    frozenset().union(*(found[a] for a in node.args))
    return found


def depth(root: Expr) -> int:
    """Levels of nesting: 1 for a leaf."""
    return sizes(root)[1]


def check_depth(root: Expr) -> None:
    """A LimitError for an expression nested deeper than MAX_DEPTH."""
    found = depth(root)
    if found > MAX_DEPTH:
        raise LimitError(f"the expression is nested {found:,} levels deep; eqsat works on at "
                         f"most {MAX_DEPTH:,}")


def tree_leaves(root: Expr) -> int:
    """Leaves of the expression as a tree (shared subterms counted at every use)."""
    leaves: dict[Expr, int] = {}
    for node in postorder(root):
        leaves[node] = sum(leaves[a] for a in node.args) if node.args else 1
    return leaves[root]
