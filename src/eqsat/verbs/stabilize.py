"""stabilize and error_bits: the most accurate equal form, found in the e-graph and measured."""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..accuracy import series
from ..accuracy.at_infinity import divided_through
from ..accuracy.constants import rounded_constants
from ..accuracy.edges import edge_points
from ..accuracy.localize import local_errors, overflows
from ..accuracy.measure import (
    Domain,
    Drawn,
    Sample,
    assumed_domain,
    bits_at,
    domain_bounds,
    joined,
    mean_bits,
    narrowed_ranges,
    sample,
    sample_at,
    sign_ranges,
    values_at,
    where_they_differ,
    where_they_differ_at,
)
from ..accuracy.regimes import (
    FAR_BITS,
    GAIN_PER_BRANCH,
    Regimes,
    edges,
    ranked_regimes,
    refine,
    wrong_where,
)
from ..accuracy.search import Candidate, better, most_accurate
from ..accuracy.within import branch_points
from ..algebra.conjugates import conjugates
from ..algebra.exponentials import log_sums, near_one, powers_into_exponential, spread
from ..algebra.intervals import proven_facts
from ..algebra.logarithms import log_products
from ..algebra.normal import check_defined_somewhere, normalise
from ..egraph.per_thread import engine
from ..errors import EqsatError, LimitError
from ..extract import CostModel, TreeExtractor, display_order
from ..limits.budget import Backstop, Budget, Limits
from ..limits.report import RunReport, StopReason
from ..limits.rounds import Round, in_rounds
from ..rules.direct import DirectRules, regroupings
from ..rules.matching import MAX_SETTLED_NODES
from ..term import arguments
from ..term.expr import Expr, chained, make, number, tidy
from ..term.inputs import ExprInput, to_expr
from ..term.parse import reading_by
from ..term.printing import abbreviated
from ..term.sampling import float_ordinals, zero_points
from ..term.shape import is_tensor
from ..term.walks import postorder, rebuild, tree_size
from .derivatives import expand_derivatives
from .simplify import SECONDS_PER_INPUT_NODE, simplify

RULESETS = ("simplify", "stability")
ROUNDS = 3  # fresh e-graphs, each from the most accurate form of the one before
LOCATIONS = 3  # operations stabilized alone after them, the worst first (see _localized)
LOCAL_BITS = 1.0  # ... of those that lose more than this many bits by themselves
LITTLE_GAIN_BITS = 4.0  # a best that gains less on the input is localized from it too
MAX_SEEDS = 64  # rewrites modulo associativity and commutativity put in a round's e-graph
REGIMES_TRIED = 6  # splits tried, the most accurate first, until one is nowhere wrong


@dataclass(frozen=True)
class Stabilized:
    """The most accurate form found, with the mean bits of error before and after on the
    same sampled points, and the rules that fired."""

    expr: Expr
    original: Expr  # the input, its diff(...) expanded
    bits_before: float
    bits_after: float
    report: RunReport
    candidates: int  # distinct forms measured
    sample: Sample

    @property
    def rules_fired(self) -> dict[str, int]:
        return {name: n for name, n in self.report.rule_matches.items() if n}

    @property
    def regimes(self) -> dict[str, list[float]]:
        """For each variable or subexpression the result branches on (by its text), where
        its branches change."""
        return dict(sorted((str(on), at) for on, at in edges(self.expr).items()))

    def regime_lines(self) -> list[str]:
        """One line per variable or subexpression the result branches on: where its branches
        change."""
        return [f"regimes in {name}: branches change at {', '.join(f'{v:.3g}' for v in at)}"
                for name, at in self.regimes.items()]

    def __str__(self) -> str:
        lines = [f"{self.expr}", f"  bits of error ({self.sample.dtype}, {self.sample.size} "
                 f"points): {self.bits_before:.2f} -> {self.bits_after:.2f}"]
        lines += [f"  {line}" for line in self.regime_lines()]
        return "\n".join(lines)


def error_bits(expr: ExprInput, domain: Domain = None, points: int = 256,
               dtype: str = "float64", seed: int = 0, *, limits: Limits | None = None) -> float:
    """Mean bits of error of expr in floating point (Herbie's measure): log2(1 + floats
    between the computed and the correctly rounded true value), over sampled points where
    the true value is finite. domain: {"x": (low, high)}, a precondition such as
    "0 < x < 1 and y > 2", or None for every float bit pattern. A LimitError when the true
    values of all the points take longer than the limits' seconds."""
    limits = Limits.of(limits)
    stop = Backstop(time.perf_counter() + limits.seconds)
    with reading_by(stop.deadline, limits.stated_seconds, limits.characters):
        start = to_expr(expr)
    if is_tensor(start):
        raise EqsatError(f"error_bits measures scalar expressions; {start} has tensors")
    wanted = arguments.count(points, "points")
    points_ = sample(start, arguments.domain(domain), wanted, dtype, seed, backstop=stop)
    if stop.cut:
        raise LimitError(f"the time limit of {limits.stated_seconds:g} s ran out after the true "
                         f"values of {points_.size} of {wanted} points; raise it, or ask for "
                         "fewer")
    return mean_bits(start, points_)


def stabilize_report(expr: ExprInput, domain: Domain = None, *, points: int = 256,
                     dtype: str = "float64", rules: Iterable[str | Path] = (),
                     limits: Limits | None = None,
                     assume: Mapping[str, str | Iterable[str]] | None = None,
                     seed: int = 0) -> Stabilized:
    """Saturate with the [simplify] and [stability] rules, then search the e-graph for the
    form with the fewest bits of error on sampled points (ties go to the cheaper). Never
    less accurate than the input on those points (it is the first candidate), and at none
    of them far off where the input was close (see _wrong_somewhere). Runs in
    rounds, each from the best form so far, while a round improves and stops on a limit
    (the time limit covers all rounds).

    A domain's signs become assumptions (0 < x < 1: x is positive), as Herbie assumes its
    precondition: the result equals the input there, and may differ outside it."""
    limits = Limits.of(limits)
    budget = Budget.start(limits)  # covers sampling, rounds and search
    # work is bounded by counts (points, candidates, terms, steps); the time only backs them
    stop = Backstop(budget.deadline)
    domain = arguments.domain(domain)
    points = arguments.count(points, "points")
    with reading_by(budget.deadline, limits.stated_seconds, limits.characters):
        given = to_expr(expr)
    check_defined_somewhere(given, "stabilize")
    if is_tensor(given):
        raise EqsatError("stabilize_report measures the error of scalar expressions; for "
                         "tensors, stabilize picks the stable forms by the rules")
    names = sorted(s.name for s in given.free_symbols())
    ranges = domain_bounds(domain, names)
    start = to_expr(given, _with_domain(assume, ranges))
    start, total = expand_derivatives(start, rules)  # the input, measurable: no diff(...)
    ranges = narrowed_ranges(ranges, sign_ranges(start, 0.0))  # bounds for the intervals
    domain = assumed_domain(domain, start, dtype)  # where the assumptions hold, too
    # true values at raised precision can be slow (huge powers): at most half the time
    points_ = sample(start, domain, points, dtype, seed, backstop=stop.within(limits.seconds / 2))
    model = CostModel()
    search = _Search(tuple(rules), _rulesets(start, points_), model, ranges, stop)
    before = mean_bits(start, points_)
    tried = 1  # candidates measured
    forms: dict[Expr, float] = {start: before}  # every form measured, and its mean bits

    def one_round(best: Candidate, limits: Limits) -> Round[Candidate]:
        """A fresh e-graph from the most accurate form so far."""
        nonlocal tried
        if len(postorder(best.expr)) * SECONDS_PER_INPUT_NODE > limits.seconds:
            stop.cut = True  # (adding and extracting the term alone would pass the limit)
            return Round(best, done=True, stop=StopReason.TIME)
        found, measured, report = search.round(best.expr, limits, points_)
        if report.stop_reason == StopReason.TIME:  # a later round's reason must not hide it
            stop.cut = True
        tried += len(measured)
        forms.update((c.expr, c.bits) for c in measured)
        if not better(found, best, min(best.bits, before)):
            return Round(best, report, done=True)
        ended = (StopReason.SATURATED, StopReason.TIME, StopReason.CONTRADICTION)
        return Round(found, report, done=report.stop_reason in ended)

    best = in_rounds(Candidate(start, before, model.tree_cost(start)), one_round, budget,
                     ROUNDS, total)
    # the normal forms of the rational parts of the input and of the best, where the rules did
    # not reach them (and of the input with the variables the domain holds at one value as
    # that value), the two with their constant subterms correctly rounded where floats are
    # more than an ulp off (constants.py), and the input with each seed in place (seeded):
    # measured, and the rounds again from the best of them if it beats what they found
    cost = model.remembering_tree_cost()
    made = [*normalise(start, cost).forms, *normalise(best.expr, cost).forms,
            rounded_constants(start, dtype), rounded_constants(best.expr, dtype),
            *search.seeded(start)]
    if (pinned := _pinned(start, ranges)) is not start:
        made += normalise(pinned, cost).forms
    normal = [Candidate(f, mean_bits(f, points_), model.tree_cost(f))
              for f in dict.fromkeys(made) if f not in forms]
    tried += len(normal)
    forms.update((c.expr, c.bits) for c in normal)
    leading = min(normal, key=lambda c: (c.bits, c.cost), default=None)
    if leading is not None and better(leading, best, min(best.bits, before)):
        again = in_rounds(leading, one_round, budget, ROUNDS, total)
        best = again if better(again, leading, min(leading.bits, before)) else leading
    # the operations that still lose bits by themselves, each searched alone; in the input
    # too, where the best gains little on it and still loses bits (a form a little better
    # than the input can have spread the operation that loses them over several:
    # (y^(x^2) - 1)/x^2)
    searched_input = best.expr is start
    best, localized = search.localized(best, budget.left(), points_, min(best.bits, before))
    if not searched_input and before - best.bits < LITTLE_GAIN_BITS and best.bits > LOCAL_BITS:
        again, more = search.localized(Candidate(start, before, model.tree_cost(start)),
                                       budget.left(), points_, before)
        localized = [*localized, *more]
        if better(again, best, min(best.bits, before)):
            best = again
    best, split = search.case_split(best, budget.left(), points_, min(best.bits, before))
    localized = [*localized, *split]
    tried += len(localized)
    forms.update((c.expr, c.bits) for c in localized)
    # and for the regimes, ahead of the others, the input as a rational function of a variable
    # divided through by its denominator's leading power (at_infinity.py): undefined where
    # the variable is 0 (worse on average over every float), finite past where the
    # polynomials overflow
    divided = [d for v in sorted(start.free_symbols(), key=lambda s: s.name)
               if (d := divided_through(start, v)) is not None and d not in forms]
    forms.update((d, mean_bits(d, points_)) for d in divided)
    tried += len(divided)
    if best.bits > before:  # a tie within noise, but never less accurate than the input
        best = Candidate(start, before, model.tree_cost(start))
    wrong = _WrongPoints(start, domain, seed, [points_], stop)
    if wrong.refuse(best.expr):  # the most accurate that nowhere is
        best = next(Candidate(f, bits, model.tree_cost(f)) for f, bits in
                    sorted(forms.items(), key=lambda item: (item[1], model.tree_cost(item[0])))
                    if bits <= before and not wrong.refuse(f))
    best = _with_regimes(best, forms, start, domain, points_, seed, stop, wrong, divided)
    # as shown (a normal form's, a local search's, a regime's), where that is as accurate and
    # nowhere wrong: its products grouped from the left, 2*x*y overflows where 2*(x*y) does not;
    # else with its identity elements left out alone (n*(0 + a), log(b*1))
    tidied = _shown(best.expr)
    for shown in dict.fromkeys([display_order(tidied), tidied]):
        if shown != best.expr and (shown_bits := mean_bits(shown, points_)) <= best.bits and \
                not wrong.refuse(shown):
            best = Candidate(shown, shown_bits, model.tree_cost(shown))
            break
    if stop.cut:  # the backstop, not the work budgets, ended some stage: it may say more
        total.stop_reason = StopReason.TIME
    return Stabilized(best.expr, start, before, best.bits, total, tried, points_)


def _rulesets(start: Expr, points: Sample) -> tuple[str, ...]:
    """The rulesets the search runs: [exponents] too where an operation of the input over-
    or underflows at a sampled point (localize.overflows), as its rules combine the
    exponents of products and quotients of powers and exponentials (their e-graphs are
    larger: elsewhere they only cost time)."""
    return (*RULESETS, "exponents") if overflows(start, points) else RULESETS


@dataclass(frozen=True)
class _Search:
    """What each e-graph of a stabilize searches with: the rules and rulesets, the cost model,
    the variables' ranges (for the signs of subterms) and the backstop."""

    rules: tuple[str | Path, ...]
    rulesets: tuple[str, ...]
    model: CostModel
    ranges: Mapping[str, tuple[float, float]]
    stop: Backstop

    def round(self, expr: Expr, limits: Limits, points: Sample,
              assumed: Mapping[Expr, set[str]] | None = None
              ) -> tuple[Candidate, list[Candidate], RunReport]:
        """One fresh e-graph from expr, its subterms with the signs the domain's bounds
        prove (intervals.py), and those `assumed` (true at the points): saturate, then the
        accuracy-guided search."""
        model = self.model
        expr = _over_numbers_as_products(expr)
        with engine(self.rules).session(rulesets=self.rulesets) as session:
            handle = session.add(expr)
            session.add_equal(self.seeds(expr))
            for subterm, facts in [*proven_facts(expr, self.ranges).items(),
                                   *(assumed or {}).items()]:
                session.add_facts(subterm, facts)
            report = session.run(self.rulesets, replace(limits, seconds=limits.seconds / 2))
            snapshot = session.snapshot([handle])
            extractor = TreeExtractor(snapshot, model, session.symbol)
        if report.stop_reason == StopReason.CONTRADICTION:
            return Candidate(expr, mean_bits(expr, points), model.tree_cost(expr)), [], report
        found, measured = most_accurate(snapshot, snapshot.roots[handle], extractor, points,
                                        model, backstop=self.stop)
        shown = display_order(_shown(found.expr))
        shown_bits = mean_bits(shown, points)
        if shown_bits <= found.bits:
            found = Candidate(shown, shown_bits, model.tree_cost(shown))
        return found, measured, report

    def seeds(self, expr: Expr) -> list[tuple[Expr, Expr]]:
        """Subterms of expr, each with what one rule for accuracy (_direct_rules) makes of
        it where it takes a sum's operands in another grouping (rules/direct.py's
        regroupings: log(exp(a) + c) at each exponential of a longer sum), which an e-graph
        reaches only by reordering, and one near its node limit may not; each with its
        exponentials spread over sums and combined (algebra/exponentials.spread: a +
        log1p(c*exp(-a)) with the terms of c each times exp(-a), as one exponential), which
        the e-graph would reach only after as many more steps; and each difference of square
        roots as a quotient by their sum (algebra/conjugates.py), its radicands' difference
        reduced, which the rules reach only by expanding both; and each sum of exponentials
        as 1 + a sum of expm1s (algebra/exponentials.near_one: exp(x) - exp(y) + exp(z),
        which the rules take apart one difference at a time), and each log of one as the
        logaddexp of its added terms, less those subtracted by log1mexp (log_sums); and each
        log of a product as a sum of logs of magnitudes (algebra/logarithms.py: a rule for it
        in the e-graph took nodes from the search); and each power times an exponential with
        the power's base multiplied in a factor at a time (powers_into_exponential:
        x^3*exp(-x^2/2), where pow-exp-split's guard a != 0 is not proven). At most MAX_SEEDS
        regroupings; none in a term of more than MAX_SETTLED_NODES nodes (its views take time
        quadratic in a sum's length)."""
        if tree_size(expr) > MAX_SETTLED_NODES:
            return []
        found = itertools.islice(regroupings(expr, _direct_rules(self.rules, self.rulesets)),
                                 MAX_SEEDS)
        cost = self.model.remembering_tree_cost()

        def combined(rational: Expr) -> Expr:
            return normalise(rational, cost).forms[0]

        return list(dict.fromkeys([*((node, spread(made, combined)) for node, made in found),
                                   *conjugates(expr, combined), *near_one(expr),
                                   *log_sums(expr), *log_products(expr),
                                   *powers_into_exponential(expr)]))

    def seeded(self, expr: Expr) -> list[Expr]:
        """expr with each of its seeds in place, as written: an e-graph puts a seed in the
        class of the subterm it equals, whose other forms extraction may take instead at
        every level (x*(x*(x*(x*(x*exp(-x))))), finite where x^2 overflows and exp(-x)
        underflows, came back as x^2*(x*(x^2*exp(-x))): 11.3 bits, the seed 0.07)."""
        written = _over_numbers_as_products(expr)
        return [written.subs({node: form}) for node, form in self.seeds(written)]

    def localized(self, best: Candidate, limits: Limits, points: Sample, floor: float
                  ) -> tuple[Candidate, list[Candidate]]:
        """A step of Herbie's main loop: the operations of the best form that lose the most
        bits by themselves (localize.py; up to LOCATIONS of them, more than LOCAL_BITS
        each), each stabilized alone, a fresh e-graph of that subterm searched on its own
        true values (one of the whole stops at its node limit before it reaches them in a
        large term), and put back wherever the whole is then better, and nowhere wrong
        (_wrong_somewhere). Returns the best and every whole measured."""
        measured: list[Candidate] = []
        if best.bits <= LOCAL_BITS:  # (too little left to gain to be worth the searches)
            return best, measured
        for bits, location in local_errors(best.expr, points)[:LOCATIONS]:
            if bits <= LOCAL_BITS or self.stop.passed():
                break
            if location == best.expr:  # (the whole was searched as a whole)
                continue
            own = _own_sample(location, points)
            if own is None:
                continue
            found, _, report = self.round(location, limits, own)
            if report.stop_reason == StopReason.TIME:
                self.stop.cut = True
            whole = best.expr.subs({location: found.expr})
            if whole == best.expr:
                continue
            candidate = Candidate(whole, mean_bits(whole, points), self.model.tree_cost(whole))
            measured.append(candidate)
            if better(candidate, best, floor) and \
                    not _wrong_somewhere(whole, best.expr, points):
                best, floor = candidate, min(floor, candidate.bits)
        return best, measured

    def case_split(self, best: Candidate, limits: Limits, points: Sample, floor: float
                   ) -> tuple[Candidate, list[Candidate]]:
        """Herbie rewrites a power through its log whatever the sign of its base; eqsat's
        rules need it positive (pow-minus-one: a^b - 1 => expm1(b*log(a)) if a > 0), and
        where the domain does not prove it (1 + i/n over every float) they never apply. So
        the best form is searched again with its powers' bases assumed positive, on the
        points where they are, and what it finds is offered there: where(a > 0, found, best),
        equal to the input everywhere, as a where is defined where the branch it takes is.
        Returns the best and the whole measured."""
        bases = _unproven_bases(best.expr, self.ranges)
        if not bases or best.bits <= LOCAL_BITS:
            return best, []
        with np.errstate(all="ignore"):
            held = np.logical_and.reduce([values_at(base, points) > 0 for base in bases])
        if not np.any(held):
            return best, []
        own = Sample({n: v[held] for n, v in points.values.items()}, points.truth[held],
                     points.dtype)
        found, _, report = self.round(best.expr, limits, own, dict.fromkeys(bases, POSITIVE))
        if report.stop_reason == StopReason.TIME:
            self.stop.cut = True
        if found.expr == best.expr:
            return best, []
        condition = chained("mul", [make("gt", base, number(0)) for base in bases])
        whole = make("where", condition, found.expr, best.expr)
        candidate = Candidate(whole, mean_bits(whole, points), self.model.tree_cost(whole))
        if better(candidate, best, floor) and not _wrong_somewhere(whole, best.expr, points):
            return candidate, [candidate]
        return best, [candidate]


POSITIVE = {"Pos", "NonNeg", "NonZero"}  # the sign facts of a positive term
MAX_CASE_BASES = 2  # the powers' bases a case split assumes positive at once


def _unproven_bases(term: Expr, ranges: Mapping[str, tuple[float, float]]) -> list[Expr]:
    """The bases of the term's powers to a non-integer or varying exponent that neither the
    domain nor the symbols' signs prove positive (up to MAX_CASE_BASES, in the term's order)."""
    proven = proven_facts(term, ranges)
    found: list[Expr] = []
    for node in postorder(term):
        if node.op != "pow" or node.args[0].is_number or node.args[0] in found:
            continue
        base, exponent = node.args
        if exponent.is_number and exponent.number.denominator == 1:
            continue
        positive = "positive" in base.assumptions or ranges.get(base.name, (0, 0))[0] > 0 \
            if base.is_symbol else "Pos" in proven.get(base, ())
        if not positive:
            found.append(base)
    return found[:MAX_CASE_BASES]


def _over_numbers_as_products(term: Expr) -> Expr:
    """The term with each quotient by a nonzero number a/c written (1/c)*a, as div-canon and
    folding would make it: an e-graph of a/c spends its nodes on the quotient's forms
    (div-canon, mul-div, div-div) before the rules reach what lies above it
    (1 - (x - y/3)/sqrt((x - y/3)^2 + 2) stopped at 8.6 bits; written so, 0.5)."""
    def written(node: Expr, args: list[Expr]) -> Expr:
        if node.op == "div" and args[1].is_number and args[1].number != 0:
            return make("mul", number(1 / args[1].number), args[0])
        return make(node.op, *args) if node.args else node

    return rebuild(term, written)


def _shown(term: Expr) -> Expr:
    """The term with each product (1/k)*a, k a whole number, written a/k (the inverse of
    _over_numbers_as_products), and identity elements left out (a + 0, which an e-graph
    stopped at its node limit may leave: see tidy), as it is shown, offered where it is as
    accurate."""
    def written(node: Expr, args: list[Expr]) -> Expr:
        if node.op == "mul" and args[0].is_number and args[0].number.numerator == 1 and \
                args[0].number.denominator > 1:
            return make("div", args[1], number(args[0].number.denominator))
        return tidy(node.op, args) if node.args else node

    return rebuild(term, written)


@lru_cache(maxsize=8)
def _direct_rules(rules: tuple[str | Path, ...], rulesets: tuple[str, ...]) -> DirectRules:
    """The rules of these rulesets but [simplify] that change a term's view, shrinking or
    not, as rules/direct.py applies them (made once per rules and rulesets): the rewrites
    for accuracy (an e-graph finds those of [simplify] as it needs them; put in, they took
    its nodes from the search: (a*c + b*d)/(c*c + d*d) went from 0.3 to 8.7 bits)."""
    return DirectRules.of((r for r in engine(rules).rules.rules
                           if r.ruleset in rulesets and r.ruleset != "simplify"), None)


def _wrong_somewhere(form: Expr, replaced: Expr, points: Sample) -> bool:
    """Whether the form is wrong at a point beside the one it would replace (wrong_where: far
    off where that one is close): a wrong answer there, however much better on average (a subterm
    scaled by hypot(c, d) against overflow can underflow where the input did not)."""
    with np.errstate(all="ignore"):
        return bool(np.any(wrong_where(bits_at(form, points), bits_at(replaced, points))))


# the draws a form is checked on (where_they_differ), each (a seed offset, how drawn): four
# over the domain, one at moderate magnitudes and two at extremes (a split that passed two
# was often wrong; a form wrong where c is near the largest float and b tiny passed one
# draw at extremes)
DRAWS: tuple[tuple[int, Drawn], ...] = (
    (3, "floats"), (3, "moderate"), (3, "extremes"), (4, "floats"), (4, "extremes"),
    (5, "floats"), (6, "floats"))
BRANCH_SEED, BRANCH_DRAWS = 8, 4096  # refuse_split's draws: the seed offset, per branch
EDGE_SEED, EDGE_DRAWS = 9, 1024  # about a subterm's overflow (edges.py)
ZERO_SEED, ZERO_DRAWS = 10, 64  # a variable at 0, each (sampling.zero_points)


@dataclass
class _WrongPoints:
    """Points to refuse a wrong answer at: a form far off where the input is close
    (_wrong_somewhere) on the sample, or at the points of the domain where the two are far
    apart in floats (where_they_differ), drawn over the domain, at moderate magnitudes, at
    extremes, about where a subterm of the form over- or underflows (edges.py) and where a
    variable is 0. A form can be wrong at a few points in a thousand, none of them in the
    sample (d/hypot(c, d)*a underflows for a tiny d and a huge c where (b*c - a*d)/(c*c +
    d*d) does not), only where every variable is moderate, which draws over every float
    seldom meet (exp(y)^log(y/(z + y)) at y = -6792), or where a moderate one meets tiny and
    huge others (x + z*(y/a) overflows at y = 1e10, z = 1e-305, a = 1e-300 where x + y*z/a
    is 1e5); the points one form was wrong at are kept, to refuse the forms like it at
    once."""

    start: Expr
    domain: Domain
    seed: int
    samples: list[Sample]
    stop: Backstop  # past it, a form not yet checked is refused (the report says time)

    @cached_property
    def ranges(self) -> dict[str, tuple[float, float]]:
        """Each variable of the input's range in the domain."""
        return domain_bounds(self.domain, sorted(s.name for s in self.start.free_symbols()))

    def refuse(self, form: Expr) -> bool:
        if form == self.start:
            return False
        if self.stop.passed():  # (never taken unchecked)
            return True
        if any(_wrong_somewhere(form, self.start, points) for points in self.samples):
            return True
        dtype = self.samples[0].dtype
        if any(self.stop.passed() or self._wrong_among(form, where_they_differ(
                self.start, form, self.domain, dtype, self.seed + seed, FAR_BITS,
                drawn_as=drawn_as)) for seed, drawn_as in DRAWS):
            return True  # (wrong somewhere, or not checked in time: never taken unchecked)
        # and about where its subterms pass the largest float or the smallest normal one, or 0;
        # and where a variable is 0
        edges = edge_points(self.start, form, self.ranges, dtype, self.seed + EDGE_SEED,
                            EDGE_DRAWS, self.stop.passed)
        zeros = zero_points(self.ranges, ZERO_DRAWS, dtype, self.seed + ZERO_SEED)
        return any(self.stop.passed() or self._wrong_among(form, where_they_differ_at(
            self.start, form, drawn, self.domain, dtype, FAR_BITS)) for drawn in (edges, zeros))

    def refuse_split(self, regimes: Regimes) -> bool:
        """refuse, and at points inside each branch of the split (within.branch_points): a
        branch's form can be wrong in a corner of its range that draws over the domain seldom
        meet (x + y*(z/a) where |y*z| < 3e-323 is NaN at y = 0, z = 1e300, a = 1e-300)."""
        branched = regimes.expr()
        if self.refuse(branched):
            return True
        dtype = self.samples[0].dtype
        drawn = branch_points(regimes, self.ranges, dtype, self.seed + BRANCH_SEED,
                              BRANCH_DRAWS)
        return self._wrong_among(branched, where_they_differ_at(
            self.start, branched, drawn, self.domain, dtype, FAR_BITS))

    def _wrong_among(self, form: Expr, differ: Sample | None) -> bool:
        """Whether the form is wrong at some of these points (then kept, to refuse the forms
        like it at once)."""
        if differ is None or not _wrong_somewhere(form, self.start, differ):
            return False
        self.samples.append(differ)
        return True


def _own_sample(term: Expr, points: Sample) -> Sample | None:
    """The sample's points where the subterm has a finite true value, with that value."""
    names = sorted(s.name for s in term.free_symbols())
    return sample_at(term, [{n: float(points.values[n][i]) for n in names}
                            for i in range(points.size)], points.dtype)


def _with_regimes(best: Candidate, forms: Mapping[Expr, float], start: Expr, domain: Domain,
                  points: Sample, seed: int, stop: Backstop, wrong: _WrongPoints,
                  ahead: Sequence[Expr] = ()) -> Candidate:
    """Branches where different forms win on different ranges of one variable or
    subexpression (see regimes.py): the forms found, those `ahead` and then the most
    accurate on average first (regimes.py also takes those that are the most accurate
    somewhere, worse on average as they may be, of the first MAX_GIVEN), and truncated
    series of the input at 0 and +-infinity in each variable (series.py), chosen on the
    sample and the points where `wrong` refused a form (a refused form can still win a
    branch that keeps it from them: regimes.py counts a form far off where the input is
    close as worse than any other there). Kept if they beat the best single form there and
    again on a fresh sample (a split that only fits the sample is not kept), and are nowhere
    wrong (_WrongPoints.refuse_split: over the domain and inside each branch); else the next
    one, chosen again with the points a refusal found, among them the refused split kept
    off the points where it was wrong (_repaired), REGIMES_TRIED of them at most."""
    ranked = [*ahead, *(f for f in sorted(forms, key=forms.__getitem__) if f not in ahead)]
    # half the time left: their work budget (series.SERIES_WORK) takes up to ~0.9 s here, and
    # a quarter cut the clustering case on a busy machine (an answer that followed the load)
    expansions = series.candidates(start, stop.within(stop.seconds_left() / 2))
    fresh: Sample | None = None

    def nowhere_wrong(regimes: Regimes, fresh: Sample, single: float) -> Candidate | None:
        """The split as a candidate, if it beats the best single form (`single` bits) on the
        fresh sample and is nowhere wrong."""
        branched = regimes.expr()
        saving = GAIN_PER_BRANCH / 2 * regimes.branches
        if mean_bits(branched, fresh) > single - saving or wrong.refuse_split(regimes):
            return None
        return Candidate(branched, mean_bits(branched, points), CostModel().tree_cost(branched))

    splits: list[tuple[Regimes, bool]] = []  # each with whether it is a refused one repaired
    repairs: list[Regimes] = []  # refused splits kept off where they were wrong, to rank
    tried: set[Regimes] = set()
    chosen_with = 0  # the samples of `wrong` the splits were chosen on
    for _ in range(REGIMES_TRIED):
        if stop.passed():
            return best
        if len(wrong.samples) > chosen_with:  # (a refusal found points: choose again)
            chosen_with = len(wrong.samples)
            at = joined(wrong.samples, 2 * points.size)  # (the regimes take time n^2)
            splits = [(r, False) for r in ranked_regimes(
                [best.expr, *ranked], at, expansions, start, domain, seed + 2,
                stop.within(stop.seconds_left() / 3)) if r not in tried]
        splits = sorted([*splits, *((replace(r, bits=mean_bits(r.expr(), at)), True)
                                    for r in repairs)], key=lambda s: s[0].bits)
        repairs = []
        if not splits:
            break
        if fresh is None:
            try:
                fresh = sample(start, domain, points.size, points.dtype, seed + 1,
                               backstop=stop)  # (the last stage: all the time left)
            except EqsatError:
                return best
            single = mean_bits(best.expr, fresh)
        regimes, repaired = splits.pop(0)
        regimes = refine(regimes, start, at, stop.passed)
        tried.add(regimes)
        if (found := nowhere_wrong(regimes, fresh, single)) is not None:
            return found
        # repaired once: kept off more points each time, a split would be chosen by the
        # check's draws rather than by the function
        if not repaired and (made := _repaired(regimes, start, best.expr, wrong.samples)):
            repairs.append(made)
    # and the splits left that give another form only the points where an operation of the
    # input overflowed (there it is infinite), however much less they gain
    for regimes, _ in splits:
        if regimes.past_overflow and fresh is not None and not stop.passed() and \
                (found := nowhere_wrong(regimes, fresh, single)) is not None:
            return found
    return best


def _repaired(regimes: Regimes, start: Expr, fallback: Expr, samples: list[Sample]
              ) -> Regimes | None:
    """A refused split kept off the points of the samples where it is wrong (far off where the
    input is close: see Regimes.without), its other branches keeping their gain; None where
    nothing changes or one form is left."""
    branched = regimes.expr()
    with np.errstate(all="ignore"):
        wrong = [Sample({n: v[at] for n, v in points.values.items()}, points.truth[at],
                        points.dtype)
                 for points in samples
                 if np.any(at := wrong_where(bits_at(branched, points), bits_at(start, points)))]
    if not wrong:
        return None
    repaired = regimes.without(joined(wrong, sum(w.size for w in wrong)), fallback)
    return None if repaired == regimes else repaired


def _regime_spans(result: Stabilized, name: str, where: np.ndarray, ranked: bool
                  ) -> list[tuple[float, float]]:
    """The plotted ranges between the points where the result's branches change."""
    at = result.regimes.get(name, [])
    if not at:
        return []
    placed = [float(v) for v in float_ordinals(np.array(at), "float64")] if ranked else at
    bounds = [float(np.min(where)), *placed, float(np.max(where))]
    return [(low, high) for low, high in itertools.pairwise(bounds) if low < high]


def _pinned(term: Expr, ranges: Mapping[str, tuple[float, float]]) -> Expr:
    """The term with each variable that the domain holds at one value (x == 77617) as that
    value: on the domain, the same function."""
    values = {}
    for symbol in term.free_symbols():
        low, high = ranges.get(symbol.name, (-math.inf, math.inf))
        if low == high and math.isfinite(low):
            values[symbol] = number(Fraction(low))
    return term.subs(values) if values else term


def _with_domain(assume: Mapping[str, str | Iterable[str]] | None,
                 ranges: Mapping[str, tuple[float, float]]) -> dict[str, list[str]]:
    """The assumptions plus the signs the domain gives (x in 1e-9..1e-3 is positive), so that
    rules guarded by them apply: the result is then equal to the input on the domain."""
    held = {name: [flags] if isinstance(flags, str) else list(flags)
            for name, flags in (assume or {}).items()}
    for name, (low, high) in ranges.items():
        sign = "positive" if low > 0 else "nonnegative" if low >= 0 else \
            "negative" if high < 0 else None
        if sign is not None and sign not in held.get(name, []):
            held.setdefault(name, []).append(sign)
    return held


def stabilize(expr: ExprInput, domain: Domain = None, **options: Any) -> Expr:
    """The most accurate equal form found (see stabilize_report for options). A tensor
    expression is not measured: the [stability] rules and the cost model pick its form
    (logsumexp for log(sum(exp(x))), softmax, log_softmax)."""
    given = to_expr(expr, shapes=options.pop("shapes", None))
    if is_tensor(given):
        return simplify(given, rulesets=RULESETS, rules=options.get("rules", ()),
                        limits=options.get("limits"), assume=options.get("assume"))
    return stabilize_report(given, domain, **options).expr


def plot_error(result: Stabilized, path: str | Path) -> Path:
    """Draw bits of error against the first variable, before and after, into an image."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise EqsatError("plotting needs matplotlib: pip install 'eqsat[plot]'") from None
    names = sorted(result.sample.values)
    if not names:
        raise EqsatError(f"{result.original} has no variable to plot the error against")
    axis = np.asarray(result.sample.values[names[0]], dtype=np.float64)
    # points drawn from every float (no domain) span hundreds of orders of magnitude, of
    # both signs: placed by their rank among the floats (as Herbie does), labelled by value
    spread = np.abs(axis[axis != 0]) if np.any(axis != 0) else np.ones(1)
    ranked = bool(np.log10(spread.max()) - np.log10(spread.min()) > 6)
    where = np.asarray(float_ordinals(axis, "float64"), dtype=np.float64) if ranked else axis
    figure, ax = plt.subplots(figsize=(7, 4))
    for expr, label, marker in ((result.original, "before", "o"), (result.expr, "after", "x")):
        ax.scatter(where, bits_at(expr, result.sample), s=12, marker=marker,
                   label=f"{label}: {abbreviated(expr, width=48)} "
                         f"({mean_bits(expr, result.sample):.2f} bits)")
    if ranked:
        order = np.argsort(where)
        ticks = order[np.linspace(0, len(order) - 1, 5).astype(int)]
        ax.set_xticks(where[ticks], [f"{value:.0e}" for value in axis[ticks]])
    for k, (low, high) in enumerate(_regime_spans(result, names[0], where, ranked)):
        ax.axvspan(low, high, color="tab:gray", alpha=0.08 if k % 2 else 0.18, lw=0,
                   label="regimes (branches of the result)" if k == 0 else None)
    ax.set_xlabel(names[0] + (" (placed by rank among the floats)" if ranked else ""))
    ax.set_ylabel(f"bits of error ({result.sample.dtype})")
    # below the axes, so that no point is hidden behind it
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.16), frameon=False)
    figure.tight_layout()
    target = Path(path)
    figure.savefig(target, bbox_inches="tight")
    plt.close(figure)
    return target
