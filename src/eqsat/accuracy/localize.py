"""Herbie's localization: where in a term the bits are lost. An operation's local error is
its float result on its operands' true values against its own true value: 1 - cos(x) at a
tiny x loses every bit there, however exact cos(x) is, and the rest of the term is then
searched with the rest of the budget."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..term.expr import Expr
from ..term.numeric import applied, numpy_function
from ..term.ops import COMPARISONS, OPS
from ..term.sampling import DTYPES
from ..term.walks import postorder
from .measure import Sample, true_value, ulp_bits, values_at

LOCAL_POINTS = 64  # points of the sample the local errors are measured at (the first ones),
LOCAL_TRUTHS = 4096  # ... fewer where its subterms' true values would be more than this
MIN_POINTS = 8


def local_errors(expr: Expr, points: Sample, most: int = LOCAL_POINTS
                 ) -> list[tuple[float, Expr]]:
    """Each operation of the term (a distinct subterm with operands) with the mean bits it
    loses by itself at the sample's first `most` points, or as many as LOCAL_TRUTHS true
    values allow (at least MIN_POINTS), of those where it and its operands have a finite
    true value; the worst first, ties in the order of the term."""
    nodes = postorder(expr)
    count = min(points.size, most, max(MIN_POINTS, LOCAL_TRUTHS // len(nodes)))
    at = [{name: float(values[i]) for name, values in points.values.items()}
          for i in range(count)]
    float_type = DTYPES[points.dtype][0]
    truth: dict[Expr, np.ndarray] = {}
    found: list[tuple[float, int, Expr]] = []
    for position, node in enumerate(nodes):
        truth[node] = np.array([_truth(node, point, points.dtype) for point in at],
                               dtype=float_type)
        if not node.args:
            continue
        with np.errstate(all="ignore"):
            computed = numpy_function(node.op)(*(truth[a] for a in node.args))
            computed = np.broadcast_to(np.asarray(computed, dtype=float_type), (count,))
        # no true value in floats where it overflows: there, the float one from its
        # operands', if infinite (an operation over one is then found losing every bit)
        truth[node] = np.where(np.isnan(truth[node]) & np.isinf(computed), computed,
                               truth[node])
        known = np.isfinite(truth[node])
        for a in node.args:
            known &= ~np.isnan(truth[a])
        if np.any(known):
            bits = ulp_bits(computed[known], truth[node][known], points.dtype)
            found.append((float(np.mean(bits)), position, node))
    found.sort(key=lambda f: (-f[0], f[1]))
    return [(bits, node) for bits, _, node in found]


def _truth(node: Expr, point: dict[str, float], dtype: str) -> float:
    """The node's true value at the point, NaN where it has none."""
    if node.is_symbol:
        return point[node.name]
    value = true_value(node, {s.name: point[s.name] for s in node.free_symbols()}, dtype)
    return np.nan if value is None else value


UNDERFLOWING = frozenset({"mul", "div", "pow", "exp"})  # ops whose float result can be 0 alone


def overflows(expr: Expr, points: Sample) -> bool:
    """Whether an operation of the term over- or underflows at a point of the sample: its
    float value is infinite where its operands are finite, or (a product, quotient, power or
    exponential) 0 where they are finite and nonzero."""
    with np.errstate(all="ignore"):
        for node, value, operands in float_values(expr, points):
            if not operands:
                continue
            finite = np.logical_and.reduce([np.isfinite(v) for v in operands])
            if np.any(np.isinf(value) & finite):
                return True
            nonzero = np.logical_and.reduce([v != 0 for v in operands])
            if node.op in UNDERFLOWING and np.any((value == 0) & finite & nonzero):
                return True
    return False


def float_values(expr: Expr, points: Sample) -> Iterator[tuple[Expr, np.ndarray,
                                                               list[np.ndarray]]]:
    """Each subterm, innermost first (each once), with its float value at the sample's points
    as the term computes it, from its operands' values, and those; a comparison (1 where
    true, 0 where false) is computed for a `where` above it, not given; a statement (diff)
    ends the walk. Iterate under np.errstate: a generator's own would outlast an early
    return from the loop."""
    values: dict[Expr, np.ndarray] = {}
    for node in postorder(expr):
        if not node.args:  # a symbol, a number, a constant
            values[node] = values_at(node, points)
            yield node, values[node], []
            continue
        if not OPS[node.op].is_value and node.op not in COMPARISONS:  # (a statement: diff)
            return
        operands = [values[a] for a in node.args]
        values[node] = np.broadcast_to(np.asarray(applied(node.op, operands),
                                                  dtype=DTYPES[points.dtype][0]),
                                       points.truth.shape)
        if OPS[node.op].is_value:
            yield node, values[node], operands
