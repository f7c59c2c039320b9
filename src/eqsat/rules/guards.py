"""The closed registry of guards a rule may carry, with their numeric meaning."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import mpmath


@dataclass(frozen=True)
class GuardKind:
    """One guard: its spelling, the e-graph fact that proves it, and its numeric test."""

    spelling: str
    fact: str  # the analysis relation that proves it, or "" for the structural ones
    holds: Callable[[mpmath.mpf], bool]
    on_variables_only: bool = False


GUARDS: dict[str, GuardKind] = {
    "> 0": GuardKind("> 0", "Pos", lambda v: v > 0),
    ">= 0": GuardKind(">= 0", "NonNeg", lambda v: v >= 0),
    "< 0": GuardKind("< 0", "Neg", lambda v: v < 0),
    "<= 0": GuardKind("<= 0", "NonPos", lambda v: v <= 0),
    "!= 0": GuardKind("!= 0", "NonZero", lambda v: v != 0),
    "== 0": GuardKind("== 0", "Zero", lambda v: v == 0),
    "is integer": GuardKind("is integer", "IsInt", lambda v: v == mpmath.floor(v)),
    "is const": GuardKind("is const", "", lambda v: True, on_variables_only=True),
    "free of": GuardKind("free of", "", lambda v: True, on_variables_only=True),
    # every form of the subject mentions the symbol: structural diff rules use it, so that
    # a constant e-class (which may hold terms built from itself) is left to d-const
    "depends on": GuardKind("depends on", "", lambda v: True),
    # shapes (tensor queries only): checked on the shapes of sampled arrays, not on values
    "is scalar": GuardKind("is scalar", "", lambda v: True),
    "is vector": GuardKind("is vector", "", lambda v: True),
    "is matrix": GuardKind("is matrix", "", lambda v: True),
    "shaped like": GuardKind("shaped like", "", lambda v: True),
}
SHAPE_GUARDS = {"is scalar": 0, "is vector": 1, "is matrix": 2, "shaped like": None}

SIGN_FACTS = tuple(kind.fact for kind in GUARDS.values() if kind.fact)


def describe() -> str:
    """The guards a rule may use, for error messages."""
    return ", ".join(f"'{name}'" for name in GUARDS)
