"""Regimes: one expression of where(...) branches, each branch the form with the fewest bits
of error on its own range of one variable, of one subexpression of several variables that
the input depends on them only through (as Herbie's regimes do), or of the ratio of two. The
forms are equal to the input, or truncated series of it (series.py) that agree with it to
rounding near the point they expand at: there the measured error decides where each branch
ends."""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from ..limits.budget import Backstop
from ..term.expr import Expr, make, number, symbol
from ..term.sampling import float_at, float_ordinals
from ..term.walks import postorder, symbol_names
from .localize import float_values
from .measure import Domain, Sample, bits_at, sample_at, shortest_decimal, values_at
from .series import Approximation, guarded, holds_on_region

MAX_BRANCHES = 4
MAX_FORMS = 8  # distinct forms considered: the most accurate, and those that win somewhere
MAX_GIVEN = 128  # forms measured (the first given)
REFINE_STEPS = 30  # bisections of a threshold between two sampled values
_LARGEST = sys.float_info.max  # where a sampled value overflowed, a threshold stays below it
SHORTENING = 1 / 32  # a refined threshold may move this much to be a short decimal
GAIN_PER_BRANCH = 0.5  # mean bits of error each branch past the first must save
FAR_BITS, CLOSE_BITS = 20, 8  # a form this far off where the original is this close is wrong
WIDEST = 64  # the most bits of error a point can have
MIN_POINTS = 8  # points a branch must hold (fewer would fit the sample, not the function)
OTHER_FORM_BITS = 1e-3  # added to each other form's error at a point: ties go to the original
MAX_SPLIT_TERMS = 6  # subexpressions of several variables a split may be on, besides each one
# ... and the ratios of each two variables, of inputs of at most this many (up to 6 gained as
# many FPBench inputs as it lost: more splits fit the sample, and take the tries)
MOST_RATIO_VARIABLES = 4


@dataclass(frozen=True)
class Regimes:
    """Branches on one variable or subexpression (`on`): forms[k] below thresholds[k], the
    last one above them all."""

    on: Expr
    thresholds: tuple[float, ...]
    forms: tuple[Expr, ...]
    bits: float  # mean bits of error on the sample it was chosen on
    past_overflow: bool = False  # the original but where its operations overflowed

    def expr(self) -> Expr:
        """The branches as where(...)s: each below its threshold, or up to it where that is
        the largest float (past it a value overflowed; at it, it did not)."""
        result = self.forms[-1]
        for threshold, form in zip(reversed(self.thresholds), reversed(self.forms[:-1]),
                                   strict=True):
            bound = number(Fraction(repr(threshold)))  # its shortest decimal, exactly
            below = "le" if threshold == _LARGEST else "lt"
            result = make("where", make(below, self.on, bound), form, result)
        return result

    def branch_at(self, values: np.ndarray) -> np.ndarray:
        """The branch that each value of the split term takes, as expr() writes them."""
        limits = [math.inf if t == _LARGEST else t for t in self.thresholds]
        return np.searchsorted(np.array(limits), values, side="right")

    def without(self, points: Sample, fallback: Expr) -> Regimes | None:
        """The split kept off these points (where its forms are wrong): the first branch
        ending below them and the last starting above them (a branch for |x*y| above 1e160
        wrong at 1e200 keeps above 1e200), the others given the fallback, a form nowhere wrong,
        as is the range a branch gives up (a branch can be wrong where another variable is
        extreme, which its split term does not show: 2*y*(x/(x - y)) where x/(x - y)
        underflows). None where one form is left, or the split term is NaN at a point."""
        with np.errstate(all="ignore"):
            values = values_at(self.on, points)
        if np.any(np.isnan(values)):
            return None
        at = self.branch_at(values)
        last = len(self.forms) - 1
        ends = [*self.thresholds, math.inf]
        pieces: list[tuple[Expr, float]] = []  # (form, the value its range ends below)
        for k, form in enumerate(self.forms):
            held = values[at == k]
            if not held.size:
                pieces.append((form, ends[k]))
            elif k == 0 and (low := float(np.min(held))) > -math.inf:
                end = float(shortest_decimal(low - abs(low) * SHORTENING, low))
                pieces += [(form, end), (fallback, ends[k])]
            elif k == last and (high := float(np.max(held))) < _LARGEST:
                above = float(np.nextafter(high, math.inf))
                end = float(shortest_decimal(above, above + abs(above) * SHORTENING))
                pieces += [(fallback, end), (form, ends[k])]
            else:
                pieces.append((fallback, ends[k]))
        kept: list[tuple[Expr, float]] = []
        for form, end in pieces:
            if kept and end <= kept[-1][1]:  # (an empty range)
                continue
            if kept and form == kept[-1][0]:
                kept[-1] = (form, end)
            else:
                kept.append((form, end))
        if len(kept) < 2:
            return None
        return replace(self, thresholds=tuple(end for _, end in kept[:-1]),
                       forms=tuple(form for form, _ in kept))

    @property
    def branches(self) -> int:
        """Branches past the first: one per threshold and per guarded series."""
        return len(self.thresholds) + sum(_branches(form) for form in self.forms)


def best_regimes(forms: Sequence[Expr], points: Sample,
                 approximations: Sequence[Approximation] = (), original: Expr | None = None,
                 domain: Domain = None, seed: int = 0, backstop: Backstop | None = None
                 ) -> Regimes | None:
    """The first of ranked_regimes, or None where there are none."""
    return next(iter(ranked_regimes(forms, points, approximations, original, domain, seed,
                                    backstop)), None)


def ranked_regimes(forms: Sequence[Expr], points: Sample,
                   approximations: Sequence[Approximation] = (), original: Expr | None = None,
                   domain: Domain = None, seed: int = 0, backstop: Backstop | None = None
                   ) -> list[Regimes]:
    """For each variable, each of the original's split_terms and ratios, and the magnitude of
    each that takes both signs (|x*y|: where x*y over- or underflows, x*(y/z) may not), the
    split of its range among the forms (the first MAX_GIVEN) with the fewest mean bits of error
    on the sample, counting GAIN_PER_BRANCH per extra branch; those that beat the most accurate
    exact form by that, the fewest bits first (a caller that refuses one for what it does off
    the sample takes the next). A form far off where the original is close counts as worse than
    any other there (_penalized); where forms tie, the original keeps the points
    (OTHER_FORM_BITS), and a threshold between the original's branch and another's sits near the
    other's first point. And for each operation of the original that overflows at some points,
    the original but there (_overflow_splits), if it beats the first form given. Approximations
    of the original (series) that win somewhere take part guarded: inside the radius where they
    were measured to agree with it, the most accurate form outside, if they hold on the whole
    region that radius selects in the domain (series.holds_on_region)."""
    if points.size < 2 * MIN_POINTS or not points.values:
        return []
    series = {a.expr: a for a in approximations}
    given = list(dict.fromkeys(forms))[:MAX_GIVEN]
    if original is not None and original not in given:
        given.append(original)  # (ties go to it: see OTHER_FORM_BITS)
    with np.errstate(all="ignore"):
        reference = bits_at(original, points) if original is not None else \
            np.full(points.size, np.inf)
        measured = [(float(np.mean(b)), f, b) for f in [*given, *series]
                    if np.all(np.isfinite(b := _penalized(bits_at(f, points), reference)))]
    exact = [m for m in measured if m[1] not in series]
    if not exact:
        return []
    baseline, fallback, _ = min(exact, key=lambda m: m[0])  # the best exact form
    useful = _useful(measured)
    chosen = [entry for entry in useful if entry[1] not in series]
    if all(form != original for _, form, _ in chosen):  # (ties go to it: see OTHER_FORM_BITS)
        chosen += [entry for entry in exact if entry[1] == original]
    guards: dict[Expr, Approximation] = {}  # each guarded series, of its approximation
    if original is not None:
        families = {(series[e[1]].variable, series[e[1]].at) for e in useful if e[1] in series}
        for family in sorted(families, key=str):
            kept = _best_guarded([a for a in approximations if (a.variable, a.at) == family],
                                 original, fallback, points, domain, seed,
                                 backstop or Backstop(math.inf))
            if kept is not None:
                guards[kept[1]] = kept[3]
                chosen.append(kept[:3])
    chosen.sort(key=lambda m: m[0])
    found = [Regimes(guards[form].variable, (), (form,), mean)  # a guarded series alone
             for mean, form, _ in chosen
             if form in guards and mean <= baseline - GAIN_PER_BRANCH * _branches(form)]
    if original is not None:  # (against the first form given: the others may be wrong)
        first = next((mean for mean, form, _ in exact if form == given[0]), baseline)
        found += [r for r in _overflow_splits(original, exact, points, reference)
                  if r.bits <= first - GAIN_PER_BRANCH]
    if len(chosen) < 2:
        return sorted(found, key=lambda r: r.bits)
    errors = np.array([b if form == original else b + OTHER_FORM_BITS for _, form, b in chosen])
    symbols = {s.name: s for _, form, _ in chosen for s in form.free_symbols()}
    splits = [(symbols.get(name, symbol(name)), values)  # (a variable with its assumptions)
              for name, values in sorted(points.values.items())]
    if original is not None:
        splits += _term_values([*split_terms(original), *ratios(original)], points)
    splits += [(make("abs", on), np.abs(values)) for on, values in splits
               if np.any(values < 0) and np.any(values > 0)]
    for on, values in splits:
        order = np.argsort(values, kind="stable")
        split = _split(errors[:, order], values[order])
        if split is None:
            continue
        cuts, picks, total = split
        bits = total / points.size
        branches = len(picks) - 1 + sum(_branches(chosen[k][1]) for k in picks)
        if len(picks) < 2 or bits > baseline - GAIN_PER_BRANCH * branches:
            continue
        ordered = values[order]
        originals = [chosen[k][1] == original for k in picks]  # (its branches)
        thresholds = tuple(_between(float(ordered[c - 1]), float(ordered[c]), on.is_symbol,
                                    originals[n], originals[n + 1])
                           for n, c in enumerate(cuts))
        found.append(Regimes(on, thresholds, tuple(chosen[k][1] for k in picks), bits))
    return sorted(found, key=lambda r: r.bits)  # (stable: a variable before a term)


def split_terms(original: Expr) -> list[Expr]:
    """Subexpressions of several variables that a split may be on (Herbie's critical
    subexpressions): those whose variables appear nowhere else in the original, so that it
    depends on them only through the subexpression (sqrt((x*y)^2 + 1) - x*y on x*y); at most
    MAX_SPLIT_TERMS, the smallest first. A function of one argument is left out: its argument is
    one too, and orders the points as it does where it is monotonic (log(x + y), x + y)."""
    found: list[Expr] = []
    names = symbol_names([original])  # of every subterm, in one pass
    for node in postorder(original):
        if len(found) == MAX_SPLIT_TERMS:
            break
        if node is original or len(names[node]) < 2 or node.op == "where" or \
                len(node.args) == 1:
            continue
        if not names[node] & {s.name for s in original.subs({node: number(0)}).free_symbols()}:
            found.append(node)
    return found


def ratios(original: Expr) -> list[Expr]:
    """The ratio of each two variables of the original (of at most MOST_RATIO_VARIABLES):
    where which form is right depends on how large one is beside the other, not on either
    (x*y*z/(x - z) as y*z*(x/(x - z)) where z is small beside x, x*y*(z/(x - z)) elsewhere;
    the complex quotient's forms by hypot(c, d) on d/c)."""
    variables = sorted(original.free_symbols(), key=lambda s: s.name)
    if len(variables) > MOST_RATIO_VARIABLES:
        return []
    return [make("div", v, u) for u, v in itertools.combinations(variables, 2)]


def overflowing_terms(original: Expr, points: Sample) -> list[Expr]:
    """Operations of the original on several variables that overflow (+-inf where their
    operands are finite) at some of the points and not at others, at most MAX_SPLIT_TERMS,
    the innermost first: a split on one gives another form the points where the original's
    operation overflowed, whatever else its variables do (x + y*(z - x)/t on y*(z - x), which
    split_terms leaves out: x occurs outside it)."""
    found: list[Expr] = []
    names = symbol_names([original])
    with np.errstate(all="ignore"):
        for node, value, operands in float_values(original, points):
            if len(found) == MAX_SPLIT_TERMS:
                break
            if node is original or len(names[node]) < 2:
                continue
            finite = np.logical_and.reduce([np.isfinite(v) for v in operands])
            overflowed = np.isinf(value) & finite
            if np.any(overflowed) and not np.all(overflowed | ~finite):
                found.append(node)
    return found


def _overflow_splits(original: Expr, measured: list[tuple[float, Expr, np.ndarray]],
                     points: Sample, reference: np.ndarray) -> list[Regimes]:
    """The original where its operations that overflow at some of the points
    (overflowing_terms) are finite and, where one is not, the measured form (mean bits, form,
    bits at each point) with the fewest bits there: for the first of them, the first two, and
    so on (a determinant's products each overflow somewhere). Their variables occur elsewhere
    too, so their values say where the original is wrong (there an operation is infinite) and
    nothing else (the complex quotient's b*c - a*d is finite at a = 7e277, d = 1.6e-91, where
    a split that took a/hypot(c, d) beyond 3e180 at a sample's points overflowed)."""
    found = []
    terms: list[Expr] = []
    beyond = np.zeros(points.size, dtype=bool)
    with np.errstate(all="ignore"):
        for term in overflowing_terms(original, points):
            terms.append(term)
            beyond |= ~(np.abs(values_at(term, points)) <= _LARGEST)  # (as the where will)
            _, other, _ = min(measured, key=lambda m: float(np.sum(m[2][beyond])))
            if other == original:
                continue
            inner = original
            for before in terms[:-1]:
                inner = Regimes(make("abs", before), (_LARGEST,), (inner, other), 0.0).expr()
            split = Regimes(make("abs", term), (_LARGEST,), (inner, other), 0.0, True)
            bits = float(np.mean(_penalized(bits_at(split.expr(), points), reference)))
            found.append(replace(split, bits=bits))
    return found


def wrong_where(bits: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Where a form with these bits of error is wrong: far off (FAR_BITS) at a point where the
    one it would replace, with the reference bits, is close (CLOSE_BITS)."""
    return (bits > FAR_BITS) & (reference < CLOSE_BITS)


def _penalized(bits: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """A form's bits at each point, those where it is wrong beside the original's (the
    reference bits) counted as more than every point's worst together: no split keeps a form
    where it is wrong (a form refused for one such point can still win the branches
    without it)."""
    return np.where(wrong_where(bits, reference), WIDEST * (len(bits) + 1), bits)


def _term_values(terms: Sequence[Expr], points: Sample) -> list[tuple[Expr, np.ndarray]]:
    """Each term's value at the sample's points, as a branch computes it (in the sample's
    float type), +-inf where it overflows (there x*(y/z) may not, where x*y does: the split
    that Herbie makes); terms that are NaN at a point are left out (no threshold puts it on
    either side)."""
    return [(term, values) for term in terms
            if not np.any(np.isnan(values := values_at(term, points)))]


def _best_guarded(family: list[Approximation], original: Expr, fallback: Expr,
                  points: Sample, domain: Domain, seed: int, backstop: Backstop
                  ) -> tuple[float, Expr, np.ndarray, Approximation] | None:
    """Every truncation of one series (a variable, a point) guarded, and the most accurate
    on the sample that holds on its whole region; of those as accurate, the one that reaches
    farthest (on the sample, a radius of 1e-7 and one of 1e-2 may look alike: few floats lie
    between them)."""
    members = []
    for approximation in family:
        made = guarded(approximation, original, fallback, points, backstop)
        if made is None:
            continue
        with np.errstate(all="ignore"):
            at_points = bits_at(made.expr, points)
        mean = float(np.mean(at_points))
        members.append(((round(mean, 1), -made.reach), made, approximation, mean, at_points))
    for _, made, approximation, mean, at_points in sorted(members, key=lambda m: m[0]):
        if holds_on_region(made, approximation, original, fallback, points, domain, seed,
                           backstop):
            return mean, made.expr, at_points, approximation
    return None


def _branches(form: Expr) -> int:
    """The where(...) branches in a form (a guarded series has one)."""
    return sum(node.op == "where" for node in postorder(form))


def _useful(measured: list[tuple[float, Expr, np.ndarray]]
            ) -> list[tuple[float, Expr, np.ndarray]]:
    """The most accurate form on average, and up to MAX_FORMS - 1 others that are the most
    accurate at MIN_POINTS points or more (a series, accurate near one point and nowhere else,
    counts by the points it wins), most winning first."""
    if not measured:
        return []
    ranked = sorted(measured, key=lambda m: m[0])
    winners = np.argmin(np.array([b for _, _, b in ranked]), axis=0)  # ties: the earlier
    wins = np.bincount(winners, minlength=len(ranked))
    others = sorted((k for k in range(1, len(ranked)) if wins[k] >= MIN_POINTS),
                    key=lambda k: -wins[k])
    return [ranked[0], *(ranked[k] for k in others[:MAX_FORMS - 1])]


def _split(errors: np.ndarray, values: np.ndarray
           ) -> tuple[list[int], list[int], float] | None:
    """Dynamic programming over the sorted points: for 1 to MAX_BRANCHES segments of at least
    MIN_POINTS points (cut only where the value changes), each given the form with the least
    total error on it, the cheapest once each extra segment pays GAIN_PER_BRANCH per point.
    Returns the cut positions, the form of each segment and the total error."""
    forms, n = errors.shape
    cumulative = np.concatenate([np.zeros((forms, 1)), np.cumsum(errors, axis=1)], axis=1)
    allowed = np.zeros(n + 1, dtype=bool)
    allowed[0] = allowed[n] = True
    allowed[1:n] = values[1:] != values[:-1]
    # every segment [start, end) at once: its least error over the forms, and which form
    spans = cumulative[:, None, :] - cumulative[:, :, None]  # forms x start x end
    form = np.argmin(spans, axis=0)
    least = np.take_along_axis(spans, form[None], axis=0)[0]
    index = np.arange(n + 1)
    fits = (index[:, None] <= index[None, :] - MIN_POINTS) & allowed[:, None] & allowed[None, :]
    least = np.where(fits, least, np.inf)
    cost = np.full((MAX_BRANCHES + 1, n + 1), np.inf)
    cost[0, 0] = 0.0
    start_of = np.zeros((MAX_BRANCHES + 1, n + 1), dtype=int)
    for segments in range(1, MAX_BRANCHES + 1):
        totals = cost[segments - 1][:, None] + least  # start x end
        start_of[segments] = np.argmin(totals, axis=0)  # (the first of equal ones)
        cost[segments] = totals[start_of[segments], index]
    penalties = [cost[s, n] + GAIN_PER_BRANCH * n * (s - 1) for s in range(1, MAX_BRANCHES + 1)]
    segments = int(np.argmin(penalties)) + 1
    if not np.isfinite(cost[segments, n]):
        return None
    cuts, picks, end = [], [], n
    for s in range(segments, 0, -1):
        start = int(start_of[s, end])
        picks.append(int(form[start, end]))
        if start:
            cuts.append(start)
        end = start
    return cuts[::-1], picks[::-1], float(cost[segments, n])


def _between(low: float, high: float, refined: bool = True, left_kept: bool = False,
             right_kept: bool = False) -> float:
    """A threshold between two sampled values: their midpoint, or the geometric one where
    both have one sign and far apart magnitudes (so that 1e-9 and 1e3 split near 1e-3);
    where refine will not move it (a split on a subexpression), the shortest decimal
    between them (0 between -0.03 and 0.001), or near the other side where the original's
    branch is on one side (kept): the other form takes no more than the sample shows it
    must; beside a value that overflowed, the largest float (the other form takes only the
    values past it)."""
    if math.isinf(high) or math.isinf(low):
        return _LARGEST if math.isinf(high) else -_LARGEST
    if not refined:
        if left_kept != right_kept:  # (a short decimal within 1/32 of the other side)
            window = (max(low, high - abs(high) * SHORTENING), high) if left_kept else \
                (low, min(high, low + abs(low) * SHORTENING))
            if (found := float(shortest_decimal(*window))) > low:
                return found
        if (found := float(shortest_decimal(low, high))) > low:
            return found  # (the branch below takes the points under it)
    if (low > 0 and high / low > 16) or (high < 0 and low / high > 16):
        product = low * high
        root = np.sqrt(product) if math.isfinite(product) else \
            np.sqrt(abs(low)) * np.sqrt(abs(high))
        return float(np.sign(low) * root)
    middle = (low + high) / 2
    return middle if math.isfinite(middle) else low / 2 + high / 2


def refine(regimes: Regimes, original: Expr, points: Sample,
           passed: Callable[[], bool] = lambda: False) -> Regimes:
    """Each threshold moved, by bisection over the floats between the sampled values on
    either side of it, to where the form on its right starts to be at least as accurate as
    the one on its left (as Herbie's regimes search the boundary). The other variables keep
    the values of those two sampled points; the forms are compared on their total error
    there. A split on a subexpression keeps its thresholds (as Herbie's does where it cannot
    search: no one variable moves it). Bisection stops where `passed` (a time limit's
    backstop) is true: each step keeps a threshold between the two sampled values."""
    if not regimes.on.is_symbol or regimes.on.name not in points.values:
        return regimes
    name = regimes.on.name
    values = points.values[name]
    moved = []
    for k, threshold in enumerate(regimes.thresholds):
        below, above = np.flatnonzero(values < threshold), np.flatnonzero(values >= threshold)
        if not below.size or not above.size:
            moved.append(threshold)
            continue
        rows = [int(below[np.argmax(values[below])]), int(above[np.argmin(values[above])])]
        low, high = float_ordinals(values[rows], points.dtype)
        left, right = regimes.forms[k], regimes.forms[k + 1]
        for _ in range(REFINE_STEPS):
            if high - low <= 1 or passed():
                break
            middle = (low + high) // 2
            if _left_wins(left, right, original, points, rows, name,
                          float_at(middle, points.dtype)):
                low = middle
            else:
                high = middle
        edge = float_at(high, points.dtype)
        # the shortest decimal near it, between the sampled values: x < 0.0094
        window = (max(float(values[rows[0]]), edge - abs(edge) * SHORTENING),
                  min(float(values[rows[1]]), edge + abs(edge) * SHORTENING))
        moved.append(float(shortest_decimal(*window)) if window[0] <= window[1] else edge)
    return replace(regimes, thresholds=tuple(moved))


def _left_wins(left: Expr, right: Expr, original: Expr, points: Sample, rows: list[int],
               name: str, value: float) -> bool:
    """Whether the left form's error is at most the right one's at value, the other
    variables as at the rows (where the original is defined: if nowhere, either will do)."""
    near = sample_at(original, [{**{n: float(v[row]) for n, v in points.values.items()},
                                 name: value} for row in rows], points.dtype)
    if near is None:
        return True
    return float(np.sum(bits_at(left, near))) <= float(np.sum(bits_at(right, near)))


def edges(expr: Expr) -> dict[Expr, list[float]]:
    """Where the branches of an expression change, along each variable or subexpression it
    branches on (its where(...) on comparisons of it with numbers: x < t, |x| < r, t < x*y),
    in order."""
    found: dict[Expr, set[float]] = {}
    for node in postorder(expr):
        if node.op != "where" or node.args[0].op not in ("lt", "le"):
            continue
        left, right = node.args[0].args
        for side, other in ((left, right), (right, left)):
            if other.is_number:
                value = float(other.number)
            elif other.op == "neg" and other.args[0].is_number:
                value = -float(other.args[0].number)
            else:
                continue
            if side.op == "abs" and side.args[0].is_symbol:
                found.setdefault(side.args[0], set()).update((value, -value))
            elif side.args or side.is_symbol:
                found.setdefault(side, set()).add(value)
    return {on: sorted(values) for on, values in found.items()}
