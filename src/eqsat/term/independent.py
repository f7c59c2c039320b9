"""Independent parts of a sum or a product: its operands grouped so that no two groups share
a symbol (each group an equal problem of its own, which together with the others is the
whole)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable

from .expr import Expr, chained, signed_sum
from .walks import multiplicands, summands

# more that ties two operands into one part: keys for an operand in a context ("add" or
# "mul"), shared by operands that belong together though they share no symbol
Linked = Callable[[str, Expr], Iterable[Hashable]]


def independent_parts(term: Expr, linked: Linked = lambda context, operand: ()
                      ) -> tuple[str, list[Expr]] | None:
    """("add", parts) for a sum, ("mul", parts) for a product, whose operands fall into two or
    more groups that share no symbol and no key of `linked` (see _groups): each part the
    group's operands in the order written, the parts in the order of their first operands,
    so that adding (multiplying) the parts gives the term up to the order of its operands.
    None for anything else."""
    if term.op in ("add", "sub", "neg"):
        signed = summands(term)
        groups = _groups("add", [part for part, _ in signed], linked)
        if groups is None:
            return None
        return "add", [signed_sum([signed[i] for i in group]) for group in groups]
    if term.op == "mul":
        factors = multiplicands(term)
        groups = _groups("mul", factors, linked)
        if groups is None:
            return None
        return "mul", [chained("mul", [factors[i] for i in group]) for group in groups]
    return None


def _groups(context: str, operands: list[Expr], linked: Linked) -> list[list[int]] | None:
    """The operands' positions in groups tied by shared symbols and keys (union-find), in the
    order of their first operands; the operands with no symbol go with the first that has
    one (a constant can take part in any rule: 2*sin(x)*cos(x) is sin(2*x)); None where there
    is one group."""
    parent: dict[Hashable, Hashable] = {}

    def root(key: Hashable) -> Hashable:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    constants = object()  # (the key of the operands with no symbol)
    keys: list[list[Hashable]] = []
    for operand in operands:
        names: list[Hashable] = [*sorted(s.name for s in operand.free_symbols())]
        keys.append([*(names or [constants]), *linked(context, operand)])
    first = next((found for found in keys if found[0] is not constants), None)
    if first is None:
        return None
    first.append(constants)
    for found in keys:
        for key in found:
            parent.setdefault(key, key)
        for key in found[1:]:
            parent[root(key)] = root(found[0])
    groups: dict[Hashable, list[int]] = {}
    for position, found in enumerate(keys):
        groups.setdefault(root(found[0]), []).append(position)
    return list(groups.values()) if len(groups) > 1 else None

