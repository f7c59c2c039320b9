"""Equation solving: polynomial elimination, the [solve] rules, and checked solutions."""

from .solution import Case, Discarded, Solution
from .solver import solve

__all__ = ["Case", "Discarded", "Solution", "solve"]
