"""Equation solving: polynomial elimination, the [solve] rules, and checked solutions."""

from .solution import Case, Discarded, Solution, SolutionKind
from .solver import solve

__all__ = ["Case", "Discarded", "Solution", "SolutionKind", "solve"]
