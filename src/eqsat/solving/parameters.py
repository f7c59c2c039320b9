"""Solutions with parameters: the equations' domain in them is part of the answer, and with
one parameter the real line is cut where a condition, a candidate or the domain can change,
each piece stated with the solutions that hold on it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

import mpmath

from ..algebra.normal import decided_comparisons, divides_by_zero, divisor_zero_everywhere
from ..algebra.poly import NotPolynomial, Ring
from ..errors import SolveError
from ..term.expr import Expr, make, number
from ..term.reference import reference
from .forms import content
from .problem import MAX_CASE_DEPTH, Problem
from .solution import Case, Solution, SolutionKind
from .substitution import CHECK_DIGITS, TOLERANCE, check_candidates, definedness, holds_at

Solver = Callable[[Problem, int], Solution]
MAX_CUT_TERMS = 24  # terms whose zeros cut the parameter's line, at most
MAX_CUTS = 16  # points the line is cut at, at most
# past the last cut, where an unbounded piece is checked: not at whole numbers (log(1) is
# 0), nor far (exp(exp(a)) at a = 1000 is out of every reference's reach)
UNBOUNDED_STEPS = (Fraction(1, 3), Fraction(7, 3), Fraction(20, 3))


def stated(problem: Problem, solution: Solution, depth: int, solve: Solver) -> Solution:
    """The solution with what the equations' domain requires of the parameters: with one
    parameter, every piece of its line stated (a > 0; if a < 0: no solution, ...); with
    more, the domain's conditions added and each case checked against the equations."""
    parameters = problem.parameters
    if not parameters or solution.kind == SolutionKind.INFINITE:
        return solution  # (a family's conditions already hold its domain: check_family)
    solution = replace(solution, cases=tuple(_checked_case(problem, case, depth, solve)
                                             for case in solution.cases))
    if len(parameters) == 1:
        pieces = _Line(problem, solution, parameters[0], depth, solve).stated()
        if pieces is not None:
            return pieces
    stated_ = _with_domain(problem, solution)
    if len(parameters) == 1 and not _holds_where_stated(problem, stated_, parameters[0]):
        raise SolveError("a candidate holds for some values of "
                         f"{parameters[0]} and not for others, which eqsat cannot state")
    return stated_


def _holds_where_stated(problem: Problem, solution: Solution, parameter: Expr) -> bool:
    """Whether each candidate solves the equations at every sampled value of the parameter
    where the solution's conditions hold (a candidate of a squared equation can fail on a
    part of the line that no condition names: sqrt(x)/sqrt(a) = a - 1 below a = 1)."""
    for point in _points_between(None, None) + [Fraction(k, 7) for k in range(-35, 36, 3)]:
        at = {parameter: number(point)}
        if not all(reference(c.subs(at), {}, CHECK_DIGITS) for c in solution.conditions):
            continue
        for values in solution.solutions:
            put = {u: values[u.name].subs(at) for u in problem.unknowns}
            if holds_at([(lhs.subs(at).subs(put), rhs.subs(at).subs(put))
                         for lhs, rhs in problem.equations], {}) is False:
                return False  # (where a side is undefined, not decided here)
    return True


def real_zeros(problem: Problem, term: Expr, parameter: Expr, depth: int, solve: Solver
               ) -> list[Expr] | None:
    """The real zeros of a term in one parameter (log(a): a = 1; a^2 + 1: none); None where
    the solver cannot find them all (a piece with a zero missed inside would be stated
    wrong; a case split on the factor would miss one)."""
    if term.is_number:
        return []
    problem.check_time()
    try:
        found = solve(problem.for_unknown((term, number(0)), parameter), depth)
    except SolveError:
        return None
    if found.kind not in (SolutionKind.NONE, SolutionKind.UNIQUE, SolutionKind.SEVERAL) or \
            found.conditions or found.cases:
        return None
    return found.values(parameter.name)


def undefined_equation(problem: Problem) -> str | None:
    """Why the equations are defined nowhere (one divides by 0, or a condition of its
    domain free of symbols is false), or None."""
    for number_, (lhs, rhs) in enumerate(problem.equations, 1):
        difference = make("sub", lhs, rhs)
        if (divisor := divisor_zero_everywhere(difference)) is not None:
            return f"equation {number_} is undefined: it {divides_by_zero(divisor)}"
        for condition in definedness(difference):
            if not condition.free_symbols() and _decided(problem, condition) is False:
                return f"equation {number_} is undefined: {condition} fails"
    return None


def _checked_case(problem: Problem, case: Case, depth: int, solve: Solver) -> Case:
    """A case whose conditions give parameters values (a == -b), stated against the
    equations with those values: a case of a rewritten problem (cleared of a denominator)
    may lie where the equations are undefined."""
    if case.solution is None:
        return case
    mapping = {}
    for condition in case.conditions:
        if condition.op != "eq" or not condition.args[0].is_symbol:
            return case
        mapping[condition.args[0]] = condition.args[1]
    substituted = problem.substituted(mapping)
    reason = undefined_equation(substituted)
    if reason is not None:
        return Case(case.conditions, Solution(SolutionKind.NONE, problem.names, reason=reason,
                                              method=case.solution.method))
    return Case(case.conditions, stated(substituted, case.solution, depth + 1, solve),
                case.note)


def _with_domain(problem: Problem, solution: Solution) -> Solution:
    """The solution with the conditions its values need for the equations to be defined:
    the denominators, logarithms and roots of the equations once each value is put in."""
    if not solution.solutions:
        found = _domain_at(problem, {})
        if found is None:
            return replace(solution, reason="the equations are defined nowhere")
        needs: list[tuple[Expr, ...]] = [found]
    else:
        kept = [(values, need) for values in solution.solutions
                if (need := _domain_at(problem, values)) is not None]
        if not kept:  # (the candidates' domains never hold)
            return Solution(SolutionKind.NONE, problem.names, discarded=solution.discarded,
                            method=solution.method,
                            reason="the equations are undefined wherever a candidate is")
        if len(kept) < len(solution.solutions):
            solution = replace(solution, solutions=tuple(v for v, _ in kept),
                               kind=SolutionKind.UNIQUE if len(kept) == 1 else solution.kind)
        needs = [need for _, need in kept]
    if any(set(need) != set(needs[0]) for need in needs):
        raise SolveError("the solutions hold under different conditions on the parameters, "
                         "which eqsat cannot state together")
    stated_already = {_canonical(c) for c in solution.conditions}
    added = []
    for condition in needs[0]:
        if _canonical(condition) not in stated_already:
            stated_already.add(_canonical(condition))
            added.append(condition)
    return replace(solution, conditions=(*solution.conditions, *added))


def _canonical(condition: Expr) -> tuple[str, Expr]:
    """A comparison as its sides' difference, a polynomial scaled to integer coefficients
    with a positive leading one (only a positive scale for an inequality): 2*a != 0 and
    a != 0 alike."""
    difference = make("sub", *condition.args)
    ring = Ring(sorted(difference.free_symbols(), key=lambda s: s.name))
    try:
        poly = ring.to_poly(difference)
    except NotPolynomial:
        return condition.op, difference
    if poly.is_zero():
        return condition.op, number(0)
    scale = content(ring, [poly], poly)
    if condition.op not in ("eq", "ne"):
        scale = abs(scale)
    return condition.op, ring.to_expr(poly.scale(1 / scale))


def _domain_at(problem: Problem, values: Mapping[str, Expr]) -> tuple[Expr, ...] | None:
    """The conditions on the parameters for every equation to be defined at the values of
    the unknowns (simplified; those always true left out); None where one is never true."""
    mapping = {u: values[u.name] for u in problem.unknowns if u.name in values}
    found = []
    for lhs, rhs in problem.equations:
        for condition in definedness(make("sub", lhs.subs(mapping), rhs.subs(mapping))):
            if set(problem.unknowns) & condition.free_symbols():
                continue
            tidy = problem.tidy_condition(condition)
            if tidy == number(0):
                return None
            if tidy != number(1) and tidy not in found:
                found.append(tidy)
    return tuple(found)


def _decided(problem: Problem, condition: Expr) -> bool | None:
    """Whether a condition free of symbols holds: at 60 digits, or (too close to tell) by
    the [simplify] rules; None where neither decides."""
    value = reference(condition, {}, CHECK_DIGITS)
    if value is None:
        tidy = decided_comparisons(condition)
        if not tidy.is_number:
            tidy = problem.tidy(condition)
        if not tidy.is_number:
            return None
        value = mpmath.mpf(tidy.number.numerator)
    return bool(value != 0)


# --- one parameter: its line in pieces --------------------------------------------------------

@dataclass(frozen=True)
class _Verdict:
    """What holds at a point: `holds` the candidates (by index) that solve the equations
    there, or `none` why nothing does; `case` the problem solved again at a cut (its
    solution, or None with a note); `unknown` where a condition is too close to tell or the
    points of a piece disagree; `again` at a cut where a condition of the solver's fails
    (there its derivation does not hold: the problem is solved again)."""

    holds: frozenset[int] | None = None
    none: str = ""
    case: Case | None = None
    unknown: bool = False
    again: bool = False


class _Line:
    """The parameter's real line cut at the zeros of every condition, candidate and side
    that can change what holds; each open piece checked at several points, each cut at its
    exact value (or solved again there)."""

    def __init__(self, problem: Problem, solution: Solution, parameter: Expr, depth: int,
                 solve: Solver) -> None:
        self.problem, self.solution, self.parameter = problem, solution, parameter
        self.depth, self.solve = depth, solve
        self.domain = [(c, n) for n, (lhs, rhs) in enumerate(problem.equations, 1)
                       for c in definedness(make("sub", lhs, rhs))
                       if not set(problem.unknowns) & c.free_symbols()]

    def stated(self) -> Solution | None:
        """The solution piece by piece; None where the cuts cannot be found."""
        cuts = self._cuts()
        if cuts is None:
            return None
        verdicts, points = [], []
        for index in range(2 * len(cuts) + 1):
            if index % 2:
                points.append(cuts[index // 2][0])
                verdicts.append(self._at_cut(points[-1]))
            else:
                below = cuts[index // 2 - 1][1] if index else None
                above = cuts[index // 2][1] if index // 2 < len(cuts) else None
                inside = _points_between(below, above)
                points.append(number(inside[0]))
                verdicts.append(self._on_piece(inside))
        return self._assembled(cuts, verdicts, points)

    # the cuts

    def _cuts(self) -> list[tuple[Expr, mpmath.mpf]] | None:
        """The points where what holds may change, in increasing order, each with its value:
        the zeros of the conditions' sides and where those are defined; where a candidate
        holds on a part of the line only, the zeros of the equations' sides it makes too."""
        terms: dict[Expr, None] = {}
        conditions = [c for c, _ in self.domain] + list(self.solution.conditions)
        kept, _ = check_candidates(self.problem.equations, self.problem.unknowns,
                                   self.solution.solutions)
        partial = len(kept) < len(self.solution.solutions)  # (one that holds on a part only)
        for values in self.solution.solutions:
            mapping = {u: values[u.name] for u in self.problem.unknowns}
            for value in values.values():
                conditions += definedness(value)
            for lhs, rhs in self.problem.equations:
                for side in (lhs.subs(mapping), rhs.subs(mapping)):
                    if partial:  # where it starts or stops to hold: sqrt(x) = a at a = 0
                        terms[side] = None
                    conditions += definedness(side)
        for condition in conditions:
            terms[make("sub", *condition.args)] = None
            conditions_inside = definedness(make("sub", *condition.args))
            terms.update(dict.fromkeys(make("sub", *c.args) for c in conditions_inside))
        for case in self.solution.cases:
            for condition in case.conditions:
                if condition.op == "eq" and condition.args[0] == self.parameter:
                    terms[make("sub", *condition.args)] = None
        found: list[tuple[Expr, mpmath.mpf]] = []
        relevant = [t for t in terms if self.parameter in t.free_symbols()]
        if len(relevant) > MAX_CUT_TERMS:
            return None
        for term in relevant:
            zeros = real_zeros(self.problem, term, self.parameter, self.depth, self.solve)
            if zeros is None:
                return None
            for zero in zeros:
                where = reference(zero, {}, CHECK_DIGITS)
                if where is not None and not any(
                        abs(where - v) <= TOLERANCE * max(1, abs(v)) for _, v in found):
                    found.append((zero, where))
        if len(found) > MAX_CUTS:
            return None
        return sorted(found, key=lambda cut: cut[1])

    # what holds

    def _on_piece(self, inside: Sequence[Fraction]) -> _Verdict:
        """The verdict of an open piece between two cuts, the same at each of its points."""
        verdicts = {self._verdict(number(point), exact=False) for point in inside}
        return verdicts.pop() if len(verdicts) == 1 else _Verdict(unknown=True)

    def _at_cut(self, value: Expr) -> _Verdict:
        """At a cut: what holds there, where each condition is decided; else the problem
        with the parameter's value put in, solved again (or an earlier case at that value)."""
        verdict = self._verdict(value, exact=True)
        if not (verdict.again or verdict.unknown):
            return verdict
        when = make("eq", self.parameter, value)
        for case in self.solution.cases:
            if len(case.conditions) == 1 and \
                    _same_value(case.conditions[0], self.parameter, value):
                return _Verdict(case=Case((when,), case.solution, case.note))
        if self.depth >= MAX_CASE_DEPTH:
            return _Verdict(case=Case((when,), None, "case analysis depth limit reached"))
        substituted = self.problem.substituted({self.parameter: value})
        reason = undefined_equation(substituted)
        if reason is not None:
            return _Verdict(none=reason)
        try:
            return _Verdict(case=Case((when,), self.solve(substituted, self.depth + 1)))
        except SolveError as error:
            return _Verdict(case=Case((when,), None, str(error)))

    def _verdict(self, point: Expr, exact: bool) -> _Verdict:
        """Which candidates solve the equations with the parameter at point (a constant);
        undecided (`unknown`) where a condition is too close to tell."""
        at = {self.parameter: point}
        for condition, number_ in self.domain:
            holds = self._holds(condition.subs(at), exact)
            if holds is None:
                return _Verdict(unknown=True)
            if not holds:
                return _Verdict(none=f"equation {number_} is undefined there")
        for condition in self.solution.conditions:
            holds = self._holds(condition.subs(at), exact)
            if holds is None:
                return _Verdict(unknown=True)
            if not holds:  # (where a condition of the solver's fails on a piece: no solution)
                return _Verdict(none=f"it needs {condition}", again=exact)
        holding, defined = [], False
        for index, values in enumerate(self.solution.solutions):
            put = {u: values[u.name].subs(at) for u in self.problem.unknowns}
            if any(reference(v, {}, CHECK_DIGITS) is None for v in put.values()):
                continue
            defined = True
            if holds_at([(lhs.subs(at).subs(put), rhs.subs(at).subs(put))
                         for lhs, rhs in self.problem.equations], {}):
                holding.append(index)
        if holding or not self.solution.solutions:
            return _Verdict(holds=frozenset(holding), none=self.solution.reason)
        shown = " or ".join(", ".join(f"{k} = {v}" for k, v in values.items())
                            for values in self.solution.solutions)
        return _Verdict(holds=frozenset(), none=f"{shown} does not solve it there" if defined
                        else f"{shown} is undefined there")

    def _holds(self, condition: Expr, exact: bool) -> bool | None:
        if exact:
            return _decided(self.problem, condition)
        value = reference(condition, {}, CHECK_DIGITS)
        return None if value is None else bool(value != 0)

    # the answer

    def _assembled(self, cuts: Sequence[tuple[Expr, mpmath.mpf]],
                   verdicts: Sequence[_Verdict], points: Sequence[Expr]) -> Solution:
        """The pieces with the most solutions as the answer, the others as cases in the
        line's order. The answer's pieces are stated by the conditions of the solver and the
        domain where those hold on exactly them (a^2 - 1 >= 0), else as the longest stretch
        of them (a > 0; cuts inside it where they do not hold: a != 1)."""
        chosen = max((v for v in verdicts if v.case is None and not v.unknown),
                     key=lambda v: (len(v.holds or ()), v.holds is not None,
                                    sum(1 for w in verdicts if w == v)),
                     default=None)
        if chosen is None:
            return replace(self.solution, cases=())  # (every piece a case: not reached)
        first, last = _stretch(verdicts, chosen)
        mine = [first <= i <= last and verdicts[i] == chosen for i in range(len(verdicts))]
        conditions = _bounds(self.parameter, cuts, first, last) + tuple(
            make("ne", self.parameter, cuts[i // 2][0])
            for i in range(first, last + 1) if not mine[i])
        if sum(mine) < sum(1 for v in verdicts if v == chosen):
            described = self._described([v == chosen for v in verdicts], points)
            if described is not None:
                conditions, mine = described, [v == chosen for v in verdicts]
        cases = []
        index = 0
        while index < len(verdicts):
            if mine[index]:
                index += 1
                continue
            end = index
            while end + 1 < len(verdicts) and verdicts[end + 1] == verdicts[index] and \
                    verdicts[index].case is None and not mine[end + 1]:
                end += 1
            cases.append(self._case(cuts, index, end, verdicts[index]))
            index = end + 1
        main = self._solution(chosen)
        return replace(main, conditions=conditions, cases=tuple(cases),
                       discarded=self.solution.discarded)

    def _described(self, wanted: Sequence[bool], points: Sequence[Expr]
                   ) -> tuple[Expr, ...] | None:
        """The solver's and the domain's conditions, simplified, where they hold on exactly
        the wanted pieces; None where they do not."""
        conditions: list[Expr] = []
        for condition in [*self.solution.conditions, *(c for c, _ in self.domain)]:
            tidy = self.problem.tidy_condition(condition)
            if tidy != number(1) and tidy not in conditions:
                conditions.append(tidy)
        for index, (want, point) in enumerate(zip(wanted, points, strict=True)):
            truths = [self._holds(c.subs({self.parameter: point}), exact=bool(index % 2))
                      for c in conditions]
            if None in truths or all(truths) != want:
                return None
        return tuple(conditions)

    def _case(self, cuts: Sequence[tuple[Expr, mpmath.mpf]], first: int, last: int,
              verdict: _Verdict) -> Case:
        if verdict.case is not None:
            return verdict.case
        conditions = _bounds(self.parameter, cuts, first, last)
        if verdict.unknown:
            return Case(conditions, None, "the candidates' checks disagree there")
        return Case(conditions, self._solution(verdict))

    def _solution(self, verdict: _Verdict) -> Solution:
        if not verdict.holds:
            return Solution(SolutionKind.NONE, self.problem.names, method=self.solution.method,
                            reason=verdict.none or self.solution.reason)
        kept = tuple(self.solution.solutions[i] for i in sorted(verdict.holds))
        return Solution(SolutionKind.UNIQUE if len(kept) == 1 else SolutionKind.SEVERAL,
                        self.problem.names, kept, method=self.solution.method)


def _stretch(verdicts: Sequence[_Verdict], chosen: _Verdict) -> tuple[int, int]:
    """The run of pieces with the most of the chosen verdict whose open pieces all have it
    (the cuts inside it may differ: they are left out), from and to one that has it."""
    best, start = (0, -1), 0
    for index in range(len(verdicts) + 1):
        if index < len(verdicts) and (index % 2 or verdicts[index] == chosen):
            continue
        run = [i for i in range(start, index) if verdicts[i] == chosen]
        if run and sum(1 for i in range(run[0], run[-1] + 1) if verdicts[i] == chosen) > \
                sum(1 for i in range(best[0], best[1] + 1) if verdicts[i] == chosen):
            best = (run[0], run[-1])
        start = index + 1
    return best


def _bounds(parameter: Expr, cuts: Sequence[tuple[Expr, mpmath.mpf]], first: int,
            last: int) -> tuple[Expr, ...]:
    """The comparisons that hold on pieces first..last (even indices open pieces, odd ones
    the cuts between them)."""
    if first == last and first % 2:
        return (make("eq", parameter, cuts[first // 2][0]),)
    found = []
    if first > 0:
        found.append(make("ge" if first % 2 else "gt", parameter, cuts[(first - 1) // 2][0]))
    if last < 2 * len(cuts):
        found.append(make("le" if last % 2 else "lt", parameter, cuts[last // 2][0]))
    return tuple(found)


def _points_between(below: mpmath.mpf | None, above: mpmath.mpf | None) -> list[Fraction]:
    """Rationals inside an open piece, the simplest first."""
    if below is None:
        if above is None:
            return [Fraction(1, 2), Fraction(-7, 3), Fraction(5)]
        return [Fraction(int(mpmath.floor(above))) - step for step in UNBOUNDED_STEPS] + \
            [_rational_inside(above - 1, above, 0.9)]
    if above is None:
        return [Fraction(int(mpmath.ceil(below))) + step for step in UNBOUNDED_STEPS] + \
            [_rational_inside(below, below + 1, 0.1)]
    return [_rational_inside(below, above, share) for share in (0.5, 0.25, 0.8)]


def _rational_inside(below: mpmath.mpf, above: mpmath.mpf, share: float) -> Fraction:
    """A rational strictly between below and above, near below + share*(above - below),
    with the smallest denominator that fits."""
    with mpmath.workdps(CHECK_DIGITS):
        target = below + (above - below) * share
        room = (above - below) * min(share, 1 - share) / 2
        exact = Fraction(mpmath.nstr(target, CHECK_DIGITS))
        for bound in (1, 10, 100, 10**4, 10**8, 10**16, 10**32):
            candidate = exact.limit_denominator(bound)
            if abs(mpmath.mpf(candidate.numerator) / candidate.denominator - target) < room:
                return candidate
    return exact


def _same_value(condition: Expr, parameter: Expr, value: Expr) -> bool:
    if condition.op != "eq" or condition.args[0] != parameter:
        return False
    found = reference(make("sub", condition.args[1], value), {}, CHECK_DIGITS)
    return found is not None and abs(found) <= TOLERANCE
