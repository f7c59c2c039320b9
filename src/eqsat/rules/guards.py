"""The closed registry of guards a rule may carry: each guard is one object that owns its
e-graph condition, its numeric test, and its test on a snapshot, a term and sampled arrays."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import mpmath

from ..errors import ShapeError
from ..term.expr import Expr
from ..term.shape import shape_of

if TYPE_CHECKING:
    import numpy as np

Term = Any  # an egglog term (see egglog_terms)
Number = Any  # an mpmath.mpf (a sampled value) or a Fraction (a number of a term)
Node = tuple[str, tuple[int, ...], object]  # an e-node of a snapshot


@dataclass(frozen=True)
class GuardKind:
    """One guard, `subject <spelling> [argument]`. The tests answer for a guard's subject
    (and argument) as the rule at hand binds them; the defaults suit a guard that constrains
    how a rule is instantiated rather than the values it is sampled at."""

    spelling: str
    on_variables_only: bool = False  # its subject must be a pattern variable

    @property
    def fact(self) -> str:
        """The sign analysis' relation that proves it ("" where none does)."""
        return ""

    def conditions(self, subject: Term, argument: Term | None, index: int) -> list[Term]:
        """The egglog facts that make a rule's match satisfy it."""
        raise NotImplementedError

    def holds(self, value: Number) -> bool:
        """Whether a sampled value satisfies it (the soundness check's test)."""
        return True

    def on_snapshot(self, nodes: Sequence[Node], facts: set[str],
                    free: Callable[[], bool | None]) -> bool:
        """Whether an e-class (its e-nodes and proven facts) satisfies it; free() says
        whether the class is free of the argument (None: not known)."""
        return False

    def on_term(self, subject: Expr, mentions: Callable[[Expr], bool]) -> bool | None:
        """Whether a term satisfies it, where the term alone decides; None where the e-graph
        must be asked. mentions(e): whether e mentions the symbol differentiated in."""
        return None

    def bounded_on_term(self, subject: Expr) -> bool | None:
        """on_term with what interval analysis proves too (a sign guard's own)."""
        return self.on_term(subject, lambda _: True)

    def on_arrays(self, subject: Expr, argument: Expr | None,
                  value: Callable[[Expr], np.ndarray | None]) -> bool:
        """Whether sampled arrays satisfy it (the tensor soundness check's test)."""
        found = value(subject)
        return found is not None and all(self.holds(mpmath.mpf(float(v))) for v in found.flat)


@dataclass(frozen=True)
class SignGuard(GuardKind):
    """`a > 0`, `a is integer`, ...: proven by a fact of the sign analysis."""

    relation: str = ""
    test: Callable[[Number], bool] = bool
    proven_by: frozenset[str] = frozenset()  # symbol assumptions that prove it

    @property
    def fact(self) -> str:
        return self.relation

    def conditions(self, subject: Term, argument: Term | None, index: int) -> list[Term]:
        from ..encoding import commands as t

        return [t.fact(t.call(self.relation, subject))]

    def holds(self, value: Number) -> bool:
        return bool(self.test(value))

    def on_snapshot(self, nodes: Sequence[Node], facts: set[str],
                    free: Callable[[], bool | None]) -> bool:
        return self.relation in facts

    def on_term(self, subject: Expr, mentions: Callable[[Expr], bool]) -> bool | None:
        if subject.is_number:
            return self.holds(subject.number)
        if subject.is_symbol and self.proven_by & subject.assumptions:
            return True
        return None

    def bounded_on_term(self, subject: Expr) -> bool | None:
        """on_term, and True also where interval analysis or the op table's sign rules
        prove it of a compound term (sqrt(x) >= 0, x^2 + 1 > 0, exp(x) + exp(y) > 0: as the
        e-graph's sign analysis would)."""
        found = self.on_term(subject, lambda _: True)
        if found is None and subject.args and not subject.shape and \
                self.relation in _interval_facts(subject):
            return True
        return found


@dataclass(frozen=True)
class ConstGuard(GuardKind):
    """`n is const`: the variable matches a number."""

    def conditions(self, subject: Term, argument: Term | None, index: int) -> list[Term]:
        from ..encoding import commands as t

        return [t.equal(subject, t.call("Num", t.var(f"gv_const{index}")))]

    def on_snapshot(self, nodes: Sequence[Node], facts: set[str],
                    free: Callable[[], bool | None]) -> bool:
        return any(node[0] == "num" for node in nodes)

    def on_term(self, subject: Expr, mentions: Callable[[Expr], bool]) -> bool | None:
        return True if subject.is_number else None

    def on_arrays(self, subject: Expr, argument: Expr | None,
                  value: Callable[[Expr], np.ndarray | None]) -> bool:
        return subject.is_number


@dataclass(frozen=True)
class DependenceGuard(GuardKind):
    """`a free of x` (free=True) and `a depends on x`: every form of the subject mentions
    the symbol, or none does (the free-variable analysis proves it)."""

    free: bool = True

    def conditions(self, subject: Term, argument: Term | None, index: int) -> list[Term]:
        from ..encoding import commands as t

        assert argument is not None
        name, bit = t.var(f"gv_name{index}"), t.var(f"gv_bit{index}")
        shared = t.call("&", t.call("FreeVars", subject), bit)
        test = t.equal(shared, t.integer(0)) if self.free else \
            t.fact(t.call("!=", shared, t.integer(0)))
        return [t.equal(argument, t.call("Sym", name)), t.equal(bit, t.call("VarBit", name)),
                test]

    def on_snapshot(self, nodes: Sequence[Node], facts: set[str],
                    free: Callable[[], bool | None]) -> bool:
        found = free()
        return found is not None and found == self.free

    def on_term(self, subject: Expr, mentions: Callable[[Expr], bool]) -> bool | None:
        return mentions(subject) != self.free

    def on_arrays(self, subject: Expr, argument: Expr | None,
                  value: Callable[[Expr], np.ndarray | None]) -> bool:
        assert argument is not None
        return (argument not in subject.free_symbols()) == self.free


@dataclass(frozen=True)
class ShapeGuard(GuardKind):
    """`a is scalar` / `is vector` / `is matrix` (rank 0, 1, 2) and `a shaped like b` (rank
    None): tensor queries only, proven by the shape analysis; checked on the shapes of
    sampled arrays, not on values."""

    rank: int | None = None

    def conditions(self, subject: Term, argument: Term | None, index: int) -> list[Term]:
        from ..encoding import commands as t
        from ..encoding.shape_analysis import SHAPE_OF

        if self.rank is None:
            assert argument is not None
            return [t.equal(t.call(SHAPE_OF, subject), t.call(SHAPE_OF, argument))]
        if self.rank == 0:
            return [t.equal(t.call(SHAPE_OF, subject), t.integer(0))]
        shape = t.var(f"gv_shape{index}")
        relation = "VectorShape" if self.rank == 1 else "MatrixShape"
        return [t.equal(shape, t.call(SHAPE_OF, subject)), t.fact(t.call(relation, shape))]

    def on_arrays(self, subject: Expr, argument: Expr | None,
                  value: Callable[[Expr], np.ndarray | None]) -> bool:
        try:
            if self.rank is not None:
                return len(shape_of(subject)) == self.rank
            return argument is not None and shape_of(subject) == shape_of(argument)
        except ShapeError:
            return False


_SIGNED_RANGES = (({"positive", "nonnegative"}, (0.0, math.inf)),
                  ({"negative", "nonpositive"}, (-math.inf, 0.0)))


def _interval_facts(term: Expr) -> set[str]:
    """The sign facts interval analysis and the op table's sign rules prove of a compound
    term, its symbols in the ranges their assumptions give (algebra/intervals.py)."""
    from ..algebra.intervals import proven_facts

    ranges = {symbol.name: limits for symbol in term.free_symbols()
              for names, limits in _SIGNED_RANGES if names & symbol.assumptions}
    return proven_facts(term, ranges).get(term, set())


def _is_integer(value: Number) -> bool:
    return bool(value.denominator == 1 if isinstance(value, Fraction) else
                value == mpmath.floor(value))


_POSITIVE, _NEGATIVE = frozenset({"positive"}), frozenset({"negative"})
GUARDS: dict[str, GuardKind] = {guard.spelling: guard for guard in (
    SignGuard("> 0", relation="Pos", test=lambda v: v > 0, proven_by=_POSITIVE),
    SignGuard(">= 0", relation="NonNeg", test=lambda v: v >= 0,
              proven_by=_POSITIVE | {"nonnegative"}),
    SignGuard("< 0", relation="Neg", test=lambda v: v < 0, proven_by=_NEGATIVE),
    SignGuard("<= 0", relation="NonPos", test=lambda v: v <= 0, proven_by=_NEGATIVE),
    SignGuard("!= 0", relation="NonZero", test=lambda v: v != 0,
              proven_by=_POSITIVE | _NEGATIVE | {"nonzero"}),
    SignGuard("== 0", relation="Zero", test=lambda v: v == 0),
    SignGuard("is integer", relation="IsInt", test=_is_integer,
              proven_by=frozenset({"integer"})),
    ConstGuard("is const", on_variables_only=True),
    DependenceGuard("free of", on_variables_only=True, free=True),
    # structural diff rules use it, so that a constant e-class (which may hold terms built
    # from itself) is left to d-const
    DependenceGuard("depends on", free=False),
    ShapeGuard("is scalar", rank=0),
    ShapeGuard("is vector", rank=1),
    ShapeGuard("is matrix", rank=2),
    ShapeGuard("shaped like", rank=None),
)}
SHAPE_GUARDS = frozenset(name for name, guard in GUARDS.items() if isinstance(guard, ShapeGuard))
DEPENDENCE_GUARDS = frozenset(name for name, guard in GUARDS.items()
                              if isinstance(guard, DependenceGuard))
SIGN_FACTS = tuple(guard.fact for guard in GUARDS.values() if guard.fact)


def describe() -> str:
    """The guards a rule may use, for error messages."""
    return ", ".join(f"'{name}'" for name in GUARDS)
