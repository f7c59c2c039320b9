"""Fraction-free Gauss-Jordan elimination of a linear system with polynomial coefficients."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import EqsatError
from .poly import FlintForm, Monomial, Poly

Row = list[Poly]  # coefficients of the unknowns, then the right-hand side


@dataclass
class Reduced:
    """The system after elimination.

    Each pivot row reads pivot * unknown + sum(coefficient * free unknown) = rhs; rows
    with no unknown left read 0 = rhs (consistent only where rhs is 0).
    """

    rows: list[Row]
    pivots: list[tuple[int, int]]  # (row, column) of each pivot, in elimination order
    determinant: Poly  # the last pivot: every pivot row's pivot entry equals it
    free_columns: list[int]
    leftover: list[Poly]  # right-hand sides of rows with no unknown left


def clear_denominators(row: Row) -> Row:
    """Multiply a row by a monomial so that no parameter has a negative exponent (a row of
    an equation that holds where it is defined, so its denominators are nonzero)."""
    lowest: dict[int, int] = {}
    for entry in row:
        for index, exponent in entry.lowest_exponents().items():
            lowest[index] = min(lowest.get(index, 0), exponent)
    shift: Monomial = tuple(sorted((i, -e) for i, e in lowest.items() if e < 0))
    return [entry.times_monomial(shift) for entry in row] if shift else row


def _pivot_key(entry: Any) -> tuple[int, int]:
    """Prefer constant pivots (no condition), then the smallest polynomial."""
    return (0 if entry.is_constant() else 1, len(entry))


def eliminate(rows: list[Row], columns: int, on_time: Callable[[], None]) -> Reduced:
    """Bareiss-style fraction-free Gauss-Jordan: every division is exact, and after the last
    step every pivot equals the last one (for a square system, the determinant). Systems
    with numbers only are eliminated over the rationals instead, with pivots 1. The rows'
    exponents are nonnegative (clear_denominators); the steps run in python-flint. on_time
    is called before each column and each row's step (it raises when the time limit has
    passed)."""
    numbers = [[entry.constant_value() for entry in row] for row in rows]
    if all(value is not None for row in numbers for value in row):
        return _eliminate_numbers(numbers, columns, on_time)  # type: ignore[arg-type]
    form = FlintForm([entry for row in rows for entry in row])
    matrix = [[form.to_flint(entry) for entry in row] for row in rows]
    previous = form.context.constant(1)
    pivots: list[tuple[int, int]] = []
    free_columns: list[int] = []
    top = 0
    for column in range(columns):
        on_time()
        candidates = [r for r in range(top, len(matrix)) if not matrix[r][column].is_zero()]
        if not candidates:
            free_columns.append(column)
            continue
        chosen = min(candidates, key=lambda r: _pivot_key(matrix[r][column]))
        matrix[top], matrix[chosen] = matrix[chosen], matrix[top]
        pivot_row = matrix[top]
        pivot = pivot_row[column]
        for r, row in enumerate(matrix):
            if r == top:
                continue
            on_time()
            factor = row[column]
            try:
                matrix[r] = [(pivot * entry - factor * pivot_entry) / previous
                             for entry, pivot_entry in zip(row, pivot_row, strict=True)]
            except (ZeroDivisionError, ValueError, ArithmeticError):
                raise EqsatError("internal error: a fraction-free elimination step did not "
                                 "divide exactly") from None
        pivots.append((top, column))
        previous = pivot
        top += 1
    # each later step multiplied an earlier pivot row by its pivot over the one before, so
    # every pivot entry now equals the last pivot
    reduced = [[form.to_poly(entry) for entry in row] for row in matrix]
    leftover = [reduced[r][columns] for r in range(top, len(reduced))]
    return Reduced(reduced[:top], pivots, form.to_poly(previous), free_columns, leftover)


def _eliminate_numbers(rows: list[list[Fraction]], columns: int,
                       on_time: Callable[[], None]) -> Reduced:
    """Gauss-Jordan over the rationals, each pivot row scaled to pivot 1."""
    pivots: list[tuple[int, int]] = []
    free_columns: list[int] = []
    top = 0
    for column in range(columns):
        on_time()
        chosen = next((r for r in range(top, len(rows)) if rows[r][column] != 0), None)
        if chosen is None:
            free_columns.append(column)
            continue
        rows[top], rows[chosen] = rows[chosen], rows[top]
        pivot = rows[top][column]
        pivot_row = rows[top] = [entry / pivot for entry in rows[top]]
        for r, row in enumerate(rows):
            factor = row[column]
            if r != top and factor != 0:
                rows[r] = [entry - factor * p for entry, p in zip(row, pivot_row, strict=True)]
        pivots.append((top, column))
        top += 1
    as_polys = [[Poly.constant(entry) for entry in row] for row in rows]
    leftover = [as_polys[r][columns] for r in range(top, len(rows))]
    return Reduced(as_polys[:top], pivots, Poly.constant(1), free_columns, leftover)
