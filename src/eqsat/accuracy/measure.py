"""Herbie's measure of accuracy: bits of error of a float evaluation against the true value."""

from __future__ import annotations

import ast
import math
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Literal

import mpmath
import numpy as np

from ..errors import EqsatError
from ..limits.budget import Backstop
from ..term.balls import NoBall, decided_value
from ..term.expr import Expr
from ..term.numeric import evaluate
from ..term.reference import digits_needed, reference
from ..term.sampling import (
    DTYPES,
    MODERATE,
    banded_floats,
    extreme_bands,
    float_bits,
    ordinal_array,
)

Domain = Mapping[str, tuple[float, float]] | str | None
Drawn = Literal["floats", "moderate", "extremes"]  # how where_they_differ draws its points
DomainKey = tuple[tuple[str, tuple[float, float]], ...] | str | None  # a Domain, hashable
TRUTH_DIGITS = (30, 120, 480, 1920)  # precisions tried until cancellation leaves enough
MAX_TRIES = 50  # sampling rounds of rejection against a precondition
WIDER = {"float32": np.float64, "float64": np.longdouble}  # (as double where it is one)


@dataclass(frozen=True)
class Sample:
    """Points (one array per variable) and the correctly rounded true value at each."""

    values: dict[str, np.ndarray]
    truth: np.ndarray
    dtype: str

    @property
    def size(self) -> int:
        return len(self.truth)


def joined(samples: Sequence[Sample], most: int) -> Sample:
    """The first `most` points of samples of the same variables and float type, as one."""
    first = samples[0]
    return Sample({n: np.concatenate([s.values[n] for s in samples])[:most]
                   for n in first.values},
                  np.concatenate([s.truth for s in samples])[:most], first.dtype)


def sample_at(expr: Expr, points: Sequence[Mapping[str, float]], dtype: str) -> Sample | None:
    """These points (each a value per variable) where expr's true value is finite, with it;
    None where it is finite at none of them."""
    kept = [(point, truth) for point in points
            if (truth := true_value(expr, point, dtype)) is not None]
    if not kept:
        return None
    float_type = DTYPES[dtype][0]
    return Sample({n: np.array([p[n] for p, _ in kept], dtype=float_type) for n in kept[0][0]},
                  np.array([t for _, t in kept], dtype=float_type), dtype)


def shortest_decimal(low: float, high: float) -> Fraction:
    """The number between low and high (low <= high; an infinite end is taken as the largest
    float) with the fewest significant decimal digits, as Herbie chooses a regime's
    threshold: 0.0094, not 0.009387977236375977."""
    largest = sys.float_info.max
    low, high = max(low, -largest), min(high, largest)
    if low <= 0 <= high:
        return Fraction(0)
    if high < 0:
        return -shortest_decimal(-high, -low)
    bottom, top = Fraction(low), Fraction(high)
    for digits in range(1, 18):
        step = Fraction(10) ** (math.floor(math.log10(high)) - digits + 1)
        candidate = math.ceil(bottom / step) * step
        if candidate <= top:
            return candidate
    return top


def ulp_bits(computed: np.ndarray, truth: np.ndarray, dtype: str = "float64") -> np.ndarray:
    """log2(1 + floats between computed and the true value); the full width where the
    computed value is not finite."""
    width = DTYPES[dtype][3]
    first, second = ordinal_array(computed, dtype), ordinal_array(truth, dtype)
    # of one sign the difference is exact in int64; across 0 it may pass 2^63, and the sum
    # of the magnitudes is taken as a float (it rounds only past 2^53, where the bits do not
    # change)
    across = (first < 0) != (second < 0)
    apart = np.where(across, np.abs(first).astype(np.float64) + np.abs(second),
                     np.abs(np.where(across, 0, first - second)).astype(np.float64))
    bits = np.log2(1 + apart)
    return np.where(np.isfinite(np.asarray(computed, dtype=np.float64)), bits, float(width))


def true_value(expr: Expr, point: Mapping[str, float], dtype: str) -> float | None:
    """The true value rounded to dtype; None where it is undefined or not finite in dtype.
    By arb balls (term/balls.py), raised in precision until both ends of the ball round to
    the same float (None where no precision does); by mpmath for a term with an op that has
    no ball (truth_by_mpmath)."""
    try:
        found: float | None = decided_value(expr, point, lambda ball: _rounding(ball, dtype))
        return found
    except NoBall:
        return truth_by_mpmath(expr, point, dtype)


def _rounding(ball: Any, dtype: str) -> tuple[bool, float | None]:
    """Whether the ball decides the value rounded to dtype (every value in it rounds to the
    same float, or every one is past the largest: not finite), and that value."""
    if not ball.is_finite():
        return False, None
    low, high = (_rounded(_exactly(end), dtype) for end in (ball.lower(), ball.upper()))
    if low is None and high is None:  # both past the largest float: decided if on one side
        return bool(ball > 0 or ball < 0), None
    return low is not None and low == high, high


def _exactly(end: Any) -> mpmath.mpf:
    """An exact arb (a ball's end) as an mpmath number, exactly."""
    man, exp = (int(part) for part in end.man_exp())
    with mpmath.workprec(max(man.bit_length(), 1) + 1):
        return mpmath.ldexp(mpmath.mpf(man), exp)


def truth_by_mpmath(expr: Expr, point: Mapping[str, float], dtype: str) -> float | None:
    """true_value by mpmath's reference (term/reference.py).

    The precision is raised until every node keeps 25 digits beyond what it hides (see
    reference._spreads): exp(x) - 1 at x = 1e-200, or exp(a) at a = 1e-291 under a log, needs
    more than 200 or 291. A spread beyond the highest precision (exp(-1e300) absorbed by 1)
    cannot be resolved and is ignored; a total cancellation is resolved at the highest
    precision (x - x stays 0). A point undefined at two precisions is undefined.
    """
    values = {k: mpmath.mpf(v) for k, v in point.items()}
    undefined = 0
    top = TRUTH_DIGITS[-1]
    digits = TRUTH_DIGITS[0]
    while True:
        spreads: list[float] = []
        exact = reference(expr, values, digits, spreads=spreads)
        if exact is None:
            undefined += 1
            if undefined == 2 or digits == top:
                return None
            digits = next(d for d in TRUTH_DIGITS if d > digits)
            continue
        needed = digits_needed(spreads, 25, top)
        if needed <= digits or digits == top:
            return _rounded(exact, dtype)
        digits = next(d for d in TRUTH_DIGITS if d >= needed)


def _rounded(exact: mpmath.mpf, dtype: str) -> float | None:
    with mpmath.workprec(DTYPES[dtype][2]):
        rounded = float(+exact)
    if dtype == "float32":
        with np.errstate(over="ignore"):  # beyond float32: not finite, said below
            rounded = float(np.float32(rounded))
    return rounded if math.isfinite(rounded) else None


def _precondition(text: str) -> Callable[[dict[str, np.ndarray]], np.ndarray]:
    """A Python-style boolean over the variables (chained comparisons, and, or, not,
    arithmetic, abs, pi), evaluated on arrays. Anything else is refused."""
    value = _evaluator(text)

    def holds(env: dict[str, np.ndarray]) -> np.ndarray:
        return np.asarray(value(env), dtype=bool)

    return holds


def _evaluator(text: str) -> Callable[[dict[str, np.ndarray]], Any]:
    """The value of a precondition's text (or of a constant in it) on arrays."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        raise EqsatError(f"malformed precondition {text!r}: {error.msg}") from None
    operators = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply,
                 ast.Div: np.divide, ast.Pow: np.power, ast.Lt: np.less, ast.LtE: np.less_equal,
                 ast.Gt: np.greater, ast.GtE: np.greater_equal, ast.Eq: np.equal,
                 ast.NotEq: np.not_equal}

    def run(node: ast.AST, env: dict[str, np.ndarray]) -> Any:
        if isinstance(node, ast.Expression):
            return run(node.body, env)
        if isinstance(node, ast.BoolOp):
            parts = [np.asarray(run(v, env), dtype=bool) for v in node.values]
            combine = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
            result = parts[0]
            for part in parts[1:]:
                result = combine(result, part)
            return result
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub, ast.UAdd)):
            inner = run(node.operand, env)
            if isinstance(node.op, ast.Not):
                return np.logical_not(inner)
            return np.negative(inner) if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.BinOp) and type(node.op) in operators:
            return operators[type(node.op)](run(node.left, env), run(node.right, env))
        if isinstance(node, ast.Compare) and all(type(o) in operators for o in node.ops):
            left, result = run(node.left, env), np.asarray(True)
            for op, right_node in zip(node.ops, node.comparators, strict=True):
                right = run(right_node, env)
                result = np.logical_and(result, operators[type(op)](left, right))
                left = right
            return result
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in ("abs", "fabs") and len(node.args) == 1 and not node.keywords:
            return np.abs(run(node.args[0], env))
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if node.id in ("pi", "E"):
                return math.pi if node.id == "pi" else math.e
            raise EqsatError(f"the precondition {text!r} uses {node.id!r}, not a variable")
        raise EqsatError(f"the precondition {text!r} uses {ast.dump(node)[:40]}..., which "
                         "is not a comparison, and/or/not, arithmetic or abs")

    def value(env: dict[str, np.ndarray]) -> Any:
        with np.errstate(all="ignore"):
            return run(tree, env)

    return value


def _bounds(text: str, names: Sequence[str]) -> dict[str, tuple[float, float]]:
    """Per variable, the constant bounds that the precondition's comparisons imply."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return {n: (-math.inf, math.inf) for n in names}
    return {n: (lo, hi) for n, (lo, hi) in _implied(tree.body, names).items()}


def _implied(node: ast.AST, names: Sequence[str]) -> dict[str, list[float]]:
    """The bounds a condition implies: those of all its parts for `and`, the smallest range
    holding each alternative's for `or`, none from a negation or anything else (`not (x <
    0)` says nothing this way, and must not be read as x < 0)."""
    found: dict[str, list[float]] = {n: [-math.inf, math.inf] for n in names}
    if isinstance(node, ast.Compare):
        terms = [node.left, *node.comparators]
        for op, left, right in zip(node.ops, terms, terms[1:], strict=False):
            _bound(found, op, left, right)
    elif isinstance(node, ast.BoolOp):
        parts = [_implied(value, names) for value in node.values]
        for name, bounds in found.items():
            lows, highs = [part[name][0] for part in parts], [part[name][1] for part in parts]
            joined = isinstance(node.op, ast.And)
            bounds[:] = [max(lows), min(highs)] if joined else [min(lows), max(highs)]
    return found


def _constant(node: ast.AST) -> float | None:
    try:
        value = np.asarray(_evaluator(ast.unparse(node))({}), dtype=np.float64)
    except EqsatError:
        return None
    return float(value) if value.shape == () and np.isfinite(value) else None


def _bound(found: dict[str, list[float]], op: ast.cmpop, left: ast.AST, right: ast.AST) -> None:
    for variable, constant, flipped in ((left, right, False), (right, left, True)):
        if not isinstance(variable, ast.Name) or variable.id not in found:
            continue
        value = _constant(constant)
        if value is None:
            continue
        upper = isinstance(op, (ast.Lt, ast.LtE)) != flipped
        if isinstance(op, ast.Eq):
            found[variable.id] = [max(found[variable.id][0], value),
                                  min(found[variable.id][1], value)]
        elif isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
            index = 1 if upper else 0
            pick = min if upper else max
            if isinstance(op, (ast.Lt, ast.Gt)):  # strict: the nearest float beyond it
                value = math.nextafter(value, math.inf if index == 0 else -math.inf)
            found[variable.id][index] = pick(found[variable.id][index], value)


def domain_bounds(domain: Domain, names: Sequence[str]) -> dict[str, tuple[float, float]]:
    """Per variable, the range a domain gives it (from a precondition: the constant bounds
    its comparisons state); unbounded where it says nothing."""
    if isinstance(domain, str):
        _precondition(domain)  # a malformed one is an error here too
        return _bounds(domain, names)
    ranges = {n: (-math.inf, math.inf) for n in names}
    for name, (low, high) in (domain or {}).items():
        if name not in ranges:
            raise EqsatError(f"the domain names {name!r}, which is not a variable of the "
                             f"expression ({', '.join(names) or 'none'})")
        if not low <= high:
            raise EqsatError(f"the range of {name!r} is empty: {low} to {high}")
        ranges[name] = (float(low), float(high))
    return ranges


def narrowed_ranges(ranges: Mapping[str, tuple[float, float]],
                    by: Mapping[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """Each range intersected with the one `by` gives its name."""
    narrowed = dict(ranges)
    for name, (low, high) in by.items():
        old_low, old_high = narrowed.get(name, (-math.inf, math.inf))
        narrowed[name] = (max(low, old_low), min(high, old_high))
    return narrowed


def narrowed(domain: Domain, by: Mapping[str, tuple[float, float]]) -> Domain:
    """The domain where each variable `by` names also lies in its (closed) range."""
    if not by:
        return domain
    if not isinstance(domain, str):
        return narrowed_ranges(domain or {}, by)
    clauses = [f"{name} {relation} {bound!r}" for name, (low, high) in sorted(by.items())
               for relation, bound in ((">=", low), ("<=", high)) if math.isfinite(bound)]
    return " and ".join([f"({domain})", *clauses])


def sign_ranges(expr: Expr, least: float) -> dict[str, tuple[float, float]]:
    """Per symbol with a declared sign, the range it allows; least: the magnitude nearest 0
    a strict sign (positive, negative) lets it take."""
    ranges = {}
    for found in expr.free_symbols():
        held = found.assumptions
        low = least if "positive" in held else 0.0 if "nonnegative" in held else -math.inf
        high = -least if "negative" in held else math.inf
        if (low, high) != (-math.inf, math.inf):
            ranges[found.name] = (low, high)
    return ranges


def assumed_domain(domain: Domain, expr: Expr, dtype: str) -> Domain:
    """The domain, narrowed to where the symbols' declared signs hold: points are drawn
    there, as a form of expr need equal it only there."""
    least = float(np.finfo(DTYPES[dtype][0]).smallest_subnormal)
    return narrowed(domain, sign_ranges(expr, least))


def inside(domain: Domain, values: Mapping[str, np.ndarray]) -> np.ndarray:
    """Whether each point (one array per variable) lies in the domain."""
    count = len(next(iter(values.values()))) if values else 0
    if isinstance(domain, str):
        return np.broadcast_to(_precondition(domain)(dict(values)), (count,)).copy()
    mask = np.ones(count, dtype=bool)
    for name, (low, high) in (domain or {}).items():
        if name in values:
            mask &= (values[name] >= low) & (values[name] <= high)
    return mask


def sample(expr: Expr, domain: Domain = None, points: int = 256, dtype: str = "float64",
           seed: int = 0, variables: Sequence[str] | None = None,
           backstop: Backstop | None = None, tries: int = MAX_TRIES) -> Sample:
    """Points where expr's true value is finite: drawn per variable from the ranges given,
    from the bounds a precondition states (then filtered by it), or from every float bit
    pattern; with the correctly rounded true value at each, in at most `tries` rounds of
    drawing. When the backstop's time has passed it keeps the points it has, if any (and the
    backstop says it cut the work)."""
    if dtype not in DTYPES:
        raise EqsatError(f"unknown dtype {dtype!r}: use 'float64' or 'float32'")
    if points < 1:
        raise EqsatError(f"the number of sampled points must be at least 1, not {points}")
    names = sorted(set(variables or ()) | {s.name for s in expr.free_symbols()})
    holds = _precondition(domain) if isinstance(domain, str) else None
    ranges = domain_bounds(domain, names)
    for name, (low, high) in ranges.items():
        if not low <= high:
            raise EqsatError(f"the domain {domain!r} leaves no value of {name} (from {low:g} "
                             f"to {high:g})")
    rng = random.Random(seed)
    kept: dict[str, list[float]] = {n: [] for n in names}
    truth: list[float] = []
    for _ in range(tries):
        drawn = {n: float_bits(rng, *ranges[n], points, dtype) for n in names}
        mask = holds(drawn) if holds is not None else np.ones(points, dtype=bool)
        mask = np.broadcast_to(mask, (points,))
        for i in np.flatnonzero(mask):
            if backstop is not None and truth and backstop.passed():
                break
            point = {n: float(drawn[n][i]) for n in names}
            value = true_value(expr, point, dtype)
            if value is None:
                continue
            truth.append(value)
            for n in names:
                kept[n].append(point[n])
            if len(truth) == points:
                break
        if len(truth) == points or (backstop is not None and truth and backstop.passed()):
            break
    if not truth:
        raise EqsatError(f"no sampled point has a finite true value of {expr} in the domain "
                         "(or one that 6400 bits decide: a value on the very edge of a "
                         "domain, as sqrt(sin(pi)), is not known)")
    float_type = DTYPES[dtype][0]
    return Sample({n: np.array(v, dtype=float_type) for n, v in kept.items()},
                  np.array(truth, dtype=float_type), dtype)


def where_they_differ(first: Expr, second: Expr, domain: Domain, dtype: str, seed: int,
                      bits: float, draws: int = 4096, most: int = 32,
                      drawn_as: Drawn = "floats") -> Sample | None:
    """Up to `most` of `draws` points of the domain (drawn as sample draws them) where the two
    evaluate in floats more than `bits` apart (or one is finite and the other not), with the
    true value at each: where at least one of them is wrong, found without a true value at
    the other points (a form far off at one point in a hundred where the other is close is
    seldom among 256 points with true values). Those where the first is likely right first:
    where it agrees with itself computed in a wider float type (long double, where the
    machine has one), then where it is finite and the second not. None where there is no such
    point, or none with a true value. drawn_as: "floats", uniformly over the float bit
    patterns; "moderate", as inputs mostly are, each variable's magnitude log-uniform from
    1e-4 to 1e4 where its range allows (over every float, three variables are all that
    moderate at one draw in a million); "extremes", each variable's magnitude at each draw
    moderate, tiny or huge (sampling.extreme_bands: a product of two variables underflows
    where a quotient of one of them by a third overflows at one such draw in a hundred, and
    at one in ten thousand over every float)."""
    names = sorted({s.name for s in (first.free_symbols() | second.free_symbols())})
    if not names:
        return None
    drawn, first_values, steady, held = _first_at_draws(first, tuple(names),
                                                        _hashable(domain), dtype, seed, draws,
                                                        drawn_as)
    return _apart(first, second, drawn, (first_values, steady, held), dtype, bits, most)


def where_they_differ_at(first: Expr, second: Expr, drawn: dict[str, np.ndarray],
                         domain: Domain, dtype: str, bits: float, most: int = 32
                         ) -> Sample | None:
    """where_they_differ among these points (one array per variable of the two)."""
    if not drawn:
        return None
    return _apart(first, second, drawn, (*_steady_values(first, drawn, dtype),
                                         inside(domain, drawn)), dtype, bits, most)


def _apart(first: Expr, second: Expr, drawn: dict[str, np.ndarray],
           at_first: tuple[np.ndarray, np.ndarray, np.ndarray], dtype: str, bits: float,
           most: int) -> Sample | None:
    """where_they_differ's points among those drawn, given the first's values there, where
    they are steady (_steady_values) and where the domain holds."""
    first_values, steady, held = at_first
    count = len(first_values)
    values = [first_values, values_at(second, Sample(drawn, np.zeros(count), dtype))]
    finite = [np.isfinite(v) for v in values]
    apart = (finite[0] != finite[1]) & held
    both = np.flatnonzero(finite[0] & finite[1] & held)
    apart[both] = ulp_bits(values[0][both], values[1][both], dtype) > bits
    # where the first overflows it cannot be the close one, and such points can fill the
    # `most` (sqrt(y^2 + x) - y over every float); so can points where it is only inaccurate
    # (a series' region), and hide those where the second is wrong
    # (where it is steady, those where the other is not finite and the rest in turns: neither
    # fills `most` alone)
    likely = [np.flatnonzero(apart & steady & ~finite[1]),
              np.flatnonzero(apart & steady & finite[1])]
    chosen = np.concatenate([_in_turns(likely),
                             np.flatnonzero(apart & finite[0] & ~steady & ~finite[1]),
                             np.flatnonzero(apart & finite[0] & finite[1] & ~steady),
                             np.flatnonzero(apart & ~finite[0])])[:most]
    names = sorted(drawn)
    return sample_at(first, [{n: float(drawn[n][i]) for n in names} for i in chosen], dtype) \
        if len(chosen) else None


def _in_turns(groups: list[np.ndarray]) -> np.ndarray:
    """The groups' elements, one of each in turn while they last."""
    turns = np.concatenate([np.arange(len(group)) for group in groups])
    return np.concatenate(groups)[np.argsort(turns, kind="stable")]


def _steady_values(expr: Expr, drawn: dict[str, np.ndarray], dtype: str
                   ) -> tuple[np.ndarray, np.ndarray]:
    """expr's float values at the points, and where they agree to a unit in the last place
    with its values in a wider float type."""
    count = len(next(iter(drawn.values())))
    values = values_at(expr, Sample(drawn, np.zeros(count), dtype))
    with np.errstate(all="ignore"):
        wide = np.broadcast_to(np.asarray(
            evaluate(expr, {n: v.astype(WIDER[dtype]) for n, v in drawn.items()}),
            dtype=DTYPES[dtype][0]), (count,))
    steady = np.zeros(count, dtype=bool)
    finite = np.flatnonzero(np.isfinite(values))
    steady[finite] = ulp_bits(values[finite], wide[finite], dtype) <= 1
    return values, steady


@lru_cache(maxsize=16)
def _first_at_draws(first: Expr, names: tuple[str, ...], domain: DomainKey, dtype: str,
                    seed: int, draws: int, drawn_as: Drawn
                    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
    """where_they_differ's draws, the first form's float values at them, where those agree
    with its values in a wider float type, and where the domain holds: the same for every
    form a stabilize compares with its input (a refusal tries dozens). The arrays are
    shared: not to be changed."""
    given: Domain = dict(domain) if isinstance(domain, tuple) else domain
    ranges = domain_bounds(given, names)
    rng = random.Random(seed)
    drawn: dict[str, np.ndarray] = {}
    bands = {"moderate": (MODERATE,), "extremes": extreme_bands(dtype)}.get(drawn_as)
    for name in names:
        drawn[name] = float_bits(rng, *ranges[name], draws, dtype) if bands is None else \
            banded_floats(rng, *ranges[name], draws, dtype, bands)
    values, steady = _steady_values(first, drawn, dtype)
    return drawn, values, steady, inside(given, drawn)


def _hashable(domain: Domain) -> DomainKey:
    """The domain as a cache key (a dict of ranges as sorted pairs)."""
    if isinstance(domain, Mapping):
        return tuple(sorted((name, (bounds[0], bounds[1])) for name, bounds in domain.items()))
    return domain


def values_at(expr: Expr, points: Sample) -> np.ndarray:
    """expr evaluated in the sample's float type, at each point."""
    with np.errstate(all="ignore"):  # (and the cast: a long double past float32's range)
        computed = evaluate(expr, points.values) if points.values else evaluate(expr, {})
        return np.broadcast_to(np.asarray(computed, dtype=DTYPES[points.dtype][0]),
                               points.truth.shape)


def bits_at(expr: Expr, points: Sample) -> np.ndarray:
    """Bits of error of expr evaluated in the sample's float type, at each point."""
    return ulp_bits(values_at(expr, points), points.truth, points.dtype)


def mean_bits(expr: Expr, points: Sample) -> float:
    return float(np.mean(bits_at(expr, points)))
