"""solve: equations and systems, by polynomial elimination where they are polynomial in the
unknowns and by the [solve] rules otherwise; every answer checked by substitution."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import TYPE_CHECKING

from ..algebra.linear import clear_denominators, eliminate
from ..algebra.normal import (
    as_fraction,
    decided_comparisons,
    divides_by_zero,
    divisor_of,
    normalise,
    polynomial_factors,
)
from ..algebra.poly import FlintForm, NotPolynomial, Poly, Ring
from ..errors import EqsatError, SolveError
from ..extract import CostModel, display_order
from ..limits.budget import Budget, Limits
from ..term.expr import Expr, make, number, symbol
from ..term.reference import reference
from ..term.walks import postorder
from .change_of_variable import in_one_function
from .forms import content, quadratic_roots, quotient
from .isolate import Isolation, isolate
from .parameters import real_zeros, stated
from .problem import MAX_CASE_DEPTH, Problem
from .solution import Case, Discarded, Solution, SolutionKind
from .substitution import (
    CHECK_DIGITS,
    TOLERANCE,
    check_candidates,
    check_family,
    definedness,
    holds_somewhere,
)

if TYPE_CHECKING:  # the e-graph layer loads egglog: only when a query runs
    from ..egraph.engine import Engine

MAX_FORMS_CHANGED = 12  # forms of an equation the rules reached tried for a change of variable
TREE_COST = CostModel().tree_cost


def solve_problem(problem: Problem, depth: int = 0) -> Solution:
    """The solution, with the cases where a symbolic coefficient vanishes, and what the
    equations' domain requires of the parameters (parameters.py)."""
    return stated(problem, _solved(problem, depth), depth, solve_problem)


def _solved(problem: Problem, depth: int) -> Solution:
    if problem.method == "auto":
        try:  # (over its denominator first: x^2/a = 1 as x^2 - a = 0, not in an atom 1/a)
            cleared = _over_its_denominator(problem)
            if cleared is not None:
                return _recheck(problem, _polynomial(cleared, depth), method=None)
        except NotPolynomial:
            pass
        try:
            return _polynomial(problem, depth)
        except NotPolynomial:
            pass
    return _by_rules(problem, depth)


def _over_its_denominator(problem: Problem) -> Problem | None:
    """One equation in one unknown whose sides are rational in it, as its difference's
    numerator in lowest terms = 0 (u + 1/u = 4 as u^2 - 4*u + 1 = 0: a zero of the
    denominator is no solution, and the check by substitution discards it; x^2/a = 1 as
    x^2 - a = 0, where the domain a != 0 is the parameters' to state); None for another
    problem."""
    if len(problem.equations) != 1 or len(problem.unknowns) != 1:
        return None
    ((lhs, rhs),) = problem.equations
    fraction = as_fraction(make("sub", lhs, rhs), factored=(False, False))
    if fraction is None or fraction.op != "div" or fraction.args[1].is_number:
        return None
    return problem.with_equation(make("equation", fraction.args[0], number(0)))


# --- polynomial systems ---------------------------------------------------------------------

def _residuals(problem: Problem) -> tuple[Ring, list[Poly]]:
    ring = Ring(problem.unknowns)
    residuals = []
    for lhs, rhs in problem.equations:
        problem.check_time()
        residuals.append(ring.to_poly(make("sub", lhs, rhs)))
    return ring, residuals


def _polynomial(problem: Problem, depth: int) -> Solution:
    """Linear systems by elimination; one quadratic in one unknown by its formula, one of
    higher degree by its factors; where the equations' opaque parameters (sqrt(a), 1/b,
    log(3 - 4)) are defined."""
    ring, residuals = _residuals(problem)
    opaque = [v for v in ring.variables[ring.unknown_count:] if not v.is_symbol]
    constants = dict.fromkeys(node for atom in opaque for node in postorder(atom)
                              if not node.is_number and not node.free_symbols())
    for constant in constants:  # (inside an atom too: atanh(-1) in (y > atanh(-1)))
        if reference(constant, {}, CHECK_DIGITS) is None:
            return Solution(SolutionKind.NONE, problem.names, method="linear",
                            reason=f"the equations are undefined: {constant} has no real "
                                   f"value")
    solution = _by_degree(problem, ring, residuals, depth)
    domain = tuple(dict.fromkeys(c for atom in opaque for c in definedness(atom)))
    if not domain or solution.kind == SolutionKind.NONE:
        return solution
    return replace(solution, conditions=(*domain, *solution.conditions))


def _by_degree(problem: Problem, ring: Ring, residuals: list[Poly], depth: int) -> Solution:
    unknowns = range(len(problem.unknowns))
    degrees = [max((sum(e for i, e in m if i in unknowns) for m in r.terms), default=0)
               for r in residuals]
    if max(degrees, default=0) <= 1:
        return _linear(problem, ring, residuals, depth)
    if len(problem.unknowns) == 1 and len(residuals) == 1:
        if degrees[0] == 2:
            return _quadratic(problem, ring, residuals[0], depth)
        return _factored(problem, ring, residuals[0], depth)
    raise NotPolynomial("a nonlinear system")


def _factored(problem: Problem, ring: Ring, residual: Poly, depth: int) -> Solution:
    """A polynomial of degree 3 or more in one unknown: the roots of each of its irreducible
    factors over the rationals, each of degree 1 or 2 in the unknown or a binomial
    a*x^n + b of numbers, where a factor free of the unknown is nonzero (split as _split
    does). NotPolynomial where a factor of higher degree remains, or a factor's roots hold
    only under conditions (they are not one answer for the product)."""
    unknown = problem.unknowns[0]
    factors = polynomial_factors(ring.to_expr(residual))
    if factors is None:
        raise NotPolynomial(f"a polynomial in {unknown} too large to factor")
    free, candidates = Poly.constant(1), list[Mapping[str, Expr]]()
    for factor, _ in factors:
        poly = ring.to_poly(factor)
        degree = poly.degree(0)
        if degree == 0:
            free = free * poly
            continue
        if degree > 2:
            roots = _power_roots(problem, ring, poly, depth) or \
                _cubic_roots(problem, poly) or _binomial_roots(problem, poly, factor)
            candidates += [{problem.names[0]: root} for root in roots]
            continue
        part = _by_degree(problem.with_equation(make("equation", factor, number(0))), ring,
                          [poly], depth)
        if part.conditions or part.cases or part.kind == SolutionKind.INFINITE:
            raise NotPolynomial(f"the roots of {factor} hold under conditions")
        candidates += part.solutions
    kept, discarded = check_candidates(problem.equations, problem.unknowns, candidates)
    if not any(k[problem.names[0]].free_symbols() for k in kept):  # numbers: from the least
        kept.sort(key=lambda k: reference(k[problem.names[0]], {}, CHECK_DIGITS) or 0)
    kind = _kind_of(kept)
    solution = Solution(kind, problem.names, tuple(kept), discarded=tuple(discarded),
                        method="factored", reason="" if kept else "no factor has a real root")
    if free.constant_value() is None:  # a*(x^3 - 1) = 0: every x where a = 0
        return _split(problem, depth, ring, free, solution)
    return solution


def _power_roots(problem: Problem, ring: Ring, poly: Poly, depth: int) -> list[Expr]:
    """The real roots of a factor of degree 2 in x^k, k >= 2 (x^4 - 5*x^2 + 4, x^6 + x^3 -
    1): x^k = u at each root u of the quadratic in u, its coefficients numbers; x = +-u^(1/k)
    (k even, u > 0), x = u^(1/k) or -(-u)^(1/k) (k odd); [] where the factor is not such."""
    exponents = {dict(m).get(0, 0) for m in poly.terms}
    k = math.gcd(*exponents)
    if k < 2 or poly.degree(0) != 2 * k or \
            any(i != 0 for m in poly.terms for i, _ in m):  # (a parameter in it)
        return []
    quadratic = Poly({tuple((i, e // k if i == 0 else e) for i, e in m): c
                      for m, c in poly.terms.items()})
    inner = _by_degree(problem.with_equation(make("equation", ring.to_expr(quadratic),
                                                   number(0))), ring, [quadratic], depth)
    if inner.conditions or inner.cases:
        return []
    roots = []
    for solved in inner.solutions:
        u = solved[problem.names[0]]
        value = reference(u, {}, CHECK_DIGITS)
        if value == 0:
            roots.append(number(0))
        if value is None or value == 0 or (value < 0 and k % 2 == 0):
            continue
        magnitude = problem.tidy(make("pow", u if value > 0 else make("neg", u),
                                        number(Fraction(1, k))))
        roots += [magnitude, make("neg", magnitude)] if k % 2 == 0 else \
            [magnitude if value > 0 else make("neg", magnitude)]
    return roots


def _cubic_roots(problem: Problem, poly: Poly) -> list[Expr]:
    """The real roots of a cubic factor with numbers for coefficients (irreducible: it has
    no rational root), by Cardano's formula for t^3 + p*t + q, x = t - a/3 (x^3 + a*x^2 +
    b*x + c): one root, a sum of two cube roots, where 4*p^3 + 27*q^2 > 0; else three, as
    2*sqrt(-p/3)*cos(acos(3*q/(2*p)*sqrt(-3/p))/3 - 2*pi*k/3) for k = 0, 1, 2 (p < 0).
    [] for any other factor."""
    coefficients = [poly.coefficient(0, k).constant_value() for k in range(4)]
    if poly.degree(0) != 3 or None in coefficients or \
            any(i != 0 for m in poly.terms for i, _ in m):
        return []
    c, b, a, _ = (value / coefficients[3] for value in coefficients)  # type: ignore[operator]
    if a == b == 0:  # x^3 + c: _binomial_roots' (one cube root)
        return []
    p, q = b - a * a / 3, 2 * a**3 / 27 - a * b / 3 + c
    shift = number(-a / 3)
    if 4 * p**3 + 27 * q**2 > 0:
        root = make("sqrt", number(q * q / 4 + p**3 / 27))
        parts = [_real_cube_root(make(op, number(-q / 2), root)) for op in ("add", "sub")]
        return [problem.tidy(make("add", make("add", *parts), shift))]
    scale = make("mul", number(2), make("sqrt", number(-p / 3)))
    cosine = make("sqrt", number(-27 * q * q / (4 * p**3)))  # 3*q/(2*p)*sqrt(-3/p)
    angle = make("div", make("acos", cosine if q * p > 0 else make("neg", cosine)), number(3))
    return [problem.tidy(make("add", make("mul", scale, make("cos", make(
        "sub", angle, make("mul", number(Fraction(2 * k, 3)), make("pi"))))), shift))
        for k in range(3)]


def _real_cube_root(value: Expr) -> Expr:
    """value^(1/3) where the value is positive, else -(-value)^(1/3): the real cube root."""
    found = reference(value, {}, CHECK_DIGITS)
    third = number(Fraction(1, 3))
    if found is not None and found < 0:
        return make("neg", make("pow", make("neg", value), third))
    return make("pow", value, third)


def _binomial_roots(problem: Problem, poly: Poly, factor: Expr) -> list[Expr]:
    """The real roots of a*x^n + b with numbers a and b (n odd: one; n even: two where
    -b/a > 0, else none), each x = +-(-b/a)^(1/n); NotPolynomial for any other factor."""
    degree = poly.degree(0)
    lead, constant = (poly.coefficient(0, k).constant_value() for k in (degree, 0))
    if lead is None or constant is None or \
            not (poly - poly.coefficient(0, degree) * Poly.variable(0, degree)
                 - poly.coefficient(0, 0)).is_zero():
        raise NotPolynomial(f"{factor} is of degree {degree} in {problem.unknowns[0]}")
    value = -constant / lead
    magnitude = make("pow", number(abs(value)), number(Fraction(1, degree)))
    if degree % 2:
        return [magnitude if value > 0 else make("neg", magnitude)]
    return [magnitude, make("neg", magnitude)] if value > 0 else []


def _linear(problem: Problem, ring: Ring, residuals: list[Poly], depth: int) -> Solution:
    columns = len(problem.unknowns)
    rows = []
    for residual in residuals:
        problem.check_time()
        constant = residual
        row = []
        for j in range(columns):
            row.append(residual.coefficient(j, 1))
            constant = constant.coefficient(j, 0)
        rows.append(clear_denominators([*row, -constant]))
    reduced = eliminate(rows, columns, problem.check_time)
    for rhs in reduced.leftover:
        value = rhs.constant_value()
        if value is not None and value != 0:
            return Solution(SolutionKind.NONE, problem.names, method="linear",
                            reason=f"the equations are inconsistent (elimination leaves 0 = "
                                   f"{value})")
    open_leftovers = [rhs for rhs in reduced.leftover if rhs.constant_value() is None]
    if open_leftovers:  # 0 = p(parameters): no solution unless p vanishes
        return _split(problem, depth, ring, open_leftovers[0],
                      Solution(SolutionKind.NONE, problem.names, method="linear",
                               reason="the equations are inconsistent"))
    determinant = reduced.determinant
    free = [problem.unknowns[c] for c in reduced.free_columns]
    numerators: dict[int, Poly] = {c: determinant * Poly.variable(c)
                                   for c in reduced.free_columns}
    for (r, c) in reduced.pivots:
        row = reduced.rows[r]
        numerator = row[columns]
        for f in reduced.free_columns:
            numerator = numerator - row[f] * Poly.variable(f)
        numerators[c] = numerator
    _verify_linear(rows, numerators, determinant, columns)
    values = {}
    for j, u in enumerate(problem.unknowns):
        problem.check_time()  # (a symbolic 5x5 system's quotients take 0.1 s each)
        values[u.name] = quotient(ring, numerators[j], determinant)
    kind = SolutionKind.INFINITE if free else SolutionKind.UNIQUE
    solution = Solution(kind, problem.names, (values,), tuple(f.name for f in free),
                        method="linear")
    if determinant.constant_value() is None:
        return _split(problem, depth, ring, determinant, solution)
    return solution


def _verify_linear(rows: list[list[Poly]], numerators: dict[int, Poly], determinant: Poly,
                   columns: int) -> None:
    """Substitution, exactly: every equation times the determinant holds identically (in
    python-flint: a symbolic 5x5 system's products take seconds as Polys)."""
    form = FlintForm([determinant, *numerators.values(), *(e for row in rows for e in row)])
    scale = form.to_flint(determinant)
    values = [form.to_flint(numerators[j]) for j in range(columns)]
    for number_, row in enumerate(rows, 1):
        entries = [form.to_flint(entry) for entry in row]
        total = -(entries[columns] * scale)
        for j in range(columns):
            total += entries[j] * values[j]
        if not total.is_zero():
            raise EqsatError(f"internal error: the elimination result fails equation "
                             f"{number_} on substitution")


def _quadratic(problem: Problem, ring: Ring, residual: Poly, depth: int) -> Solution:
    """a*x^2 + b*x + c = 0: both roots, (-b +- sqrt(b^2 - 4*a*c))/(2*a), checked."""
    a, b, c = (residual.coefficient(0, k) for k in (2, 1, 0))
    discriminant = b * b - a * c.scale(Fraction(4))
    name = problem.names[0]
    known = discriminant.constant_value()
    conditions: tuple[Expr, ...] = ()
    if known is not None and known < 0:
        solution = Solution(SolutionKind.NONE, problem.names, method="quadratic",
                            reason=f"the discriminant is {known} < 0: no real root")
    else:
        square = discriminant.square_root()
        roots = quadratic_roots(ring, a, b, discriminant, square)
        if known is None and square is None:  # a square is never negative
            scaled = discriminant.scale(1 / abs(content(ring, [discriminant], discriminant)))
            conditions = (make("ge", ring.to_expr(scaled), number(0)),)
        kept, discarded = check_candidates(problem.equations, problem.unknowns,
                                           [{name: r} for r in roots])
        kind = _kind_of(kept)
        solution = Solution(kind, problem.names, tuple(kept), conditions=conditions,
                            discarded=tuple(discarded), method="quadratic",
                            reason="" if kept else "no root satisfies the equation")
    if a.constant_value() is None:
        return _split(problem, depth, ring, a, solution)
    return solution


# --- case analysis ----------------------------------------------------------------------------

def _split(problem: Problem, depth: int, ring: Ring, vanishing: Poly,
           solution: Solution) -> Solution:
    """`solution` holds where `vanishing` (a polynomial in the parameters) is nonzero; the
    cases where it is zero are solved again with a parameter substituted. A constant such
    as E or pi - 3 is decided numerically instead; where it is too close to 0 to tell, the
    equations are solved again with their constant parts that the [simplify] rules make
    numbers (sinh(0), sqrt(2)^2 - 2) replaced by them."""
    vanishing = vanishing.scale(1 / content(ring, [vanishing], vanishing))
    if not any(ring.variables[i].free_symbols() for i in vanishing.variables()):
        constant = ring.to_expr(vanishing)
        value = reference(constant, {}, CHECK_DIGITS)
        if value is not None and abs(value) > TOLERANCE:
            return solution
        numbers = _constants_as_numbers(problem)
        if not numbers or depth >= MAX_CASE_DEPTH:
            raise SolveError(f"cannot decide whether {constant} is zero")
        return solve_problem(problem.substituted(numbers), depth + 1)
    problem.check_time()
    factors = polynomial_factors(ring.to_expr(vanishing)) or [(ring.to_expr(vanishing), 1)]
    conditions, cases = [], []
    for factor, _ in factors:  # the product vanishes where one of its factors does
        problem.check_time()
        zeros = _zeros_of(problem, ring, factor, depth)
        if zeros is None:
            conditions.append(make("ne", factor, number(0)))
            cases.append(Case((make("eq", factor, number(0)),), None,
                              "no parameter can be isolated in it"))
            continue
        for parameter, value in zeros:
            conditions.append(make("ne", parameter, value))
            if _outside_domain(problem, parameter, value):  # a/d with d = 0: not a case
                continue
            when = make("eq", parameter, value)
            if depth >= MAX_CASE_DEPTH:
                cases.append(Case((when,), None, "case analysis depth limit reached"))
                continue
            try:
                cases.append(Case((when,), solve_problem(
                    problem.substituted({parameter: value}), depth + 1)))
            except SolveError as error:  # the answer where the factor is nonzero stands
                cases.append(Case((when,), None, str(error)))
    return replace(solution, conditions=(*solution.conditions, *conditions),
                   cases=solution.cases + tuple(cases))


def _outside_domain(problem: Problem, parameter: Expr, value: Expr) -> bool:
    """Whether the equations are undefined everywhere once parameter = value (a condition
    of their domain, such as d != 0 for q/d, becomes false)."""
    for lhs, rhs in problem.equations:
        for condition in definedness(make("sub", lhs, rhs)):
            closed = normalise(condition.subs({parameter: value}), TREE_COST).forms[0]
            if closed.free_symbols():
                continue
            holds = reference(closed, {}, CHECK_DIGITS)
            if holds is not None and holds == 0:
                return True
    return False


def _constants_as_numbers(problem: Problem) -> dict[Expr, Expr]:
    """Each largest part of the equations free of symbols that is not a number but that the
    [simplify] rules make one, with that number (a proof: each rule holds where its left
    side is defined)."""
    found: dict[Expr, Expr] = {}
    for side in (side for pair in problem.equations for side in pair):
        for node in _largest_constants(side):
            if node not in found and (made := problem.tidy(node)).is_number:
                found[node] = made  # (E > 6 is 0: tidy decides comparisons of constants)
    return found


def _largest_constants(term: Expr) -> list[Expr]:
    """The largest subterms free of symbols that are not numbers."""
    if not term.free_symbols():
        return [] if term.is_number else [term]
    return [found for arg in term.args for found in _largest_constants(arg)]


def _zeros_of(problem: Problem, ring: Ring, factor: Expr, depth: int
              ) -> list[tuple[Expr, Expr]] | None:
    """Where a factor in the parameters vanishes, as parameter = value pairs: a parameter
    it is linear in (a - 2*b: a = 2*b), or the real zeros of a factor in one parameter
    (log(a): a = 1; a^2 + 1: none); None where neither finds them."""
    zero = _linear_zero(ring, ring.to_poly(factor))
    if zero is not None:
        return [zero]
    symbols = factor.free_symbols()
    if len(symbols) != 1:
        return None
    (parameter,) = symbols
    found = real_zeros(problem, factor, parameter, depth + 1, solve_problem)
    return None if found is None else [(parameter, value) for value in found]


def _linear_zero(ring: Ring, factor: Poly) -> tuple[Expr, Expr] | None:
    """parameter = value where the factor vanishes, for a symbol it is linear in with a
    number for coefficient (a - 2*b: a = 2*b); None if it has no such symbol."""
    for index in sorted(factor.variables()):
        variable = ring.variables[index]
        if not variable.is_symbol or factor.degree(index) != 1:
            continue
        coefficient = factor.coefficient(index, 1).constant_value()
        if coefficient is None:
            continue
        value = factor.coefficient(index, 0).scale(-1 / coefficient)
        return variable, display_order(ring.to_expr(value))
    return None


# --- the rules path ----------------------------------------------------------------------------

def _by_rules(problem: Problem, depth: int) -> Solution:
    """Isolate one unknown in one equation by the rules, substitute it everywhere, repeat;
    a single equation the rules leave polynomial goes to the polynomial path."""
    if len(problem.equations) == 1 and len(problem.unknowns) == 1:
        return _single_by_rules(problem, depth)
    found: dict[Expr, Expr] = {}
    remaining = list(problem.equations)
    unknowns = list(problem.unknowns)
    while remaining:
        step = _isolate_any(problem, remaining, unknowns)
        if step is None:
            break
        index, unknown, value = step
        del remaining[index]
        unknowns.remove(unknown)
        mapping = {unknown: value}
        remaining = [(lhs.subs(mapping), rhs.subs(mapping)) for lhs, rhs in remaining]
        found = {u: v.subs(mapping) for u, v in found.items()}
        found[unknown] = value
    left = [pair for pair in remaining if set(unknowns) & _symbols(pair)]
    if left:
        shown = ", ".join(f"{lhs} = {rhs}" for lhs, rhs in left)
        raise SolveError(f"the rules cannot isolate any of {', '.join(map(str, unknowns))} "
                         f"in: {shown}")
    values = {u.name: problem.tidy(found[u]) if u in found else u for u in problem.unknowns}
    free = tuple(u.name for u in problem.unknowns if u not in found)
    if free:
        return _family(problem, Solution(SolutionKind.INFINITE, problem.names, (values,), free,
                                         method="rules"))
    kept, discarded = check_candidates(problem.equations, problem.unknowns, [values])
    return Solution(SolutionKind.UNIQUE if kept else SolutionKind.NONE, problem.names,
                    tuple(kept),
                    discarded=tuple(discarded), method="rules",
                    reason="" if kept else "the candidate fails the check")


def _symbols(pair: tuple[Expr, Expr]) -> frozenset[Expr]:
    return pair[0].free_symbols() | pair[1].free_symbols()


def _isolate_any(problem: Problem, equations: list[tuple[Expr, Expr]],
                 unknowns: list[Expr]) -> tuple[int, Expr, Expr] | None:
    """The first (equation, unknown) the rules isolate, fewest unknowns first."""
    order = sorted(range(len(equations)), key=lambda i: len(_symbols(equations[i])))
    for index in order:
        lhs, rhs = equations[index]
        for unknown in unknowns:
            if unknown in _symbols(equations[index]):
                found = isolate(problem.engine, lhs, rhs, unknown, problem.remaining())
                if found.solved is not None:
                    return index, unknown, found.solved
    return None


def _single_by_rules(problem: Problem, depth: int) -> Solution:
    """x = rhs from the rules, or else a form of the equation they reached that is
    polynomial of degree at most 2 in x, solved by the polynomial path."""
    ((lhs, rhs),) = problem.equations
    (unknown,) = problem.unknowns
    found = isolate(problem.engine, lhs, rhs, unknown, problem.remaining(),
                    lambda f: f.solved is not None or _polynomial_form(problem, f) is not None)
    if found.solved is not None:
        candidate = {unknown.name: problem.tidy(found.solved)}
        kept, discarded = check_candidates(problem.equations, problem.unknowns, [candidate])
        if kept:
            return Solution(SolutionKind.UNIQUE, problem.names, tuple(kept), method="rules",
                            conditions=definedness(kept[0][unknown.name]))
        if problem.parameters and holds_somewhere(problem.equations, problem.unknowns,
                                                  candidate):
            if len(problem.parameters) > 1:  # (sqrt(x) = a: x = a^2 where a >= 0)
                raise SolveError(f"{unknown} = {candidate[unknown.name]} solves the equation "
                                 "for some values of the parameters and not for others, "
                                 "which eqsat cannot state")
            # one parameter: where it holds is stated piece by piece (parameters.py)
            return Solution(SolutionKind.UNIQUE, problem.names, (candidate,), method="rules",
                            conditions=definedness(candidate[unknown.name]))
        return Solution(SolutionKind.NONE, problem.names, discarded=tuple(discarded),
                        method="rules",
                        reason="every solution would equal the candidate, which fails")
    form = _polynomial_form(problem, found)
    if form is not None:
        # its constant parts that the rules make numbers, as numbers: log(x) + log(x - 1) =
        # log(6) gave x^2 - x = exp(log(6)), and roots in exp(log(6))
        rewritten = problem.with_equation(form)
        numbers = _constants_as_numbers(rewritten)
        if numbers:
            rewritten = rewritten.substituted(numbers)
        return _recheck(problem, _polynomial(rewritten, depth))
    for form in [make("equation", lhs, rhs), *found.forms[:MAX_FORMS_CHANGED]]:
        changed = _by_change_of_variable(problem, form, depth)
        if changed is not None:
            return changed
    best = found.forms[0] if found.forms else make("equation", lhs, rhs)
    limit = f" ({found.report.stop_reason} limit reached)" \
        if found.report.stop_reason.is_limit else ""
    raise SolveError(f"the rules cannot isolate {unknown}{limit}; left: {best}")


def _by_change_of_variable(problem: Problem, equation: Expr, depth: int) -> Solution | None:
    """The problem's equation in one form of it (the rules' forms too), of degree 2 or more
    in one function g of the unknown, or of any degree in sqrt(x) and x (see
    change_of_variable.py): solved for u = g, then g = u for the unknown at each root u,
    every candidate checked in the problem's equation; None where it is not one, or where
    a step has no plain answer (conditions, cases, a family, a SolveError)."""
    if depth >= MAX_CASE_DEPTH:
        return None
    (unknown,) = problem.unknowns
    difference = make("sub", *equation.args)
    taken = {s.name for s in difference.free_symbols()}
    fresh = symbol(next(n for n in ("u", "v", "w", *(f"u{i}" for i in range(9))) if n not in taken))
    found = in_one_function(difference, unknown, fresh)
    if found is None:
        return None
    function, residual, squared = found
    try:  # (of degree 1 in g alone, it is g = c: the rules' to isolate)
        if not squared and Ring((fresh,)).to_poly(residual).degree(0) < 2:
            return None
    except NotPolynomial:  # (u + 1/u = 4: the rules' to multiply out)
        pass
    try:
        inner = _plain(solve_problem(replace(problem, equations=((residual, number(0)),),
                                             unknowns=(fresh,)), depth + 1))
        candidates: list[Mapping[str, Expr]] = []
        for root in inner.solutions:
            outer = _plain(solve_problem(problem.with_equation(
                make("equation", function, root[fresh.name])), depth + 1))
            candidates += outer.solutions
    except (SolveError, NotPolynomial, _NotPlain):
        return None
    kept, discarded = check_candidates(problem.equations, problem.unknowns, candidates)
    kind = _kind_of(kept)
    return Solution(kind, problem.names, tuple(kept), discarded=tuple(discarded),
                    method="substitution",
                    reason="" if kept else f"no root in {function} gives a solution")


def _kind_of(kept: Sequence[Mapping[str, Expr]]) -> SolutionKind:
    """What a list of checked solutions is: none, unique or several."""
    return SolutionKind.NONE if not kept else \
        SolutionKind.UNIQUE if len(kept) == 1 else SolutionKind.SEVERAL


class _NotPlain(Exception):
    """A solution with conditions, cases or free unknowns: not one set of values."""


def _plain(solution: Solution) -> Solution:
    if solution.kind == SolutionKind.INFINITE or solution.conditions or solution.cases:
        raise _NotPlain
    return solution


def _polynomial_form(problem: Problem, found: Isolation) -> Expr | None:
    """The cheapest equation form of degree at most 2 in the unknown."""
    for form in found.forms:
        try:
            _ring, (residual,) = _residuals(problem.with_equation(form))
        except NotPolynomial:
            continue
        if residual.degree(0) <= 2:
            return form
    return None


def _recheck(problem: Problem, solution: Solution, method: str | None = "rules") -> Solution:
    """A solution of a rewritten equation, checked against the original one (rewrites may
    add solutions: a zero of a denominator, a root of a squared side); `method` says how it
    was found (None: as the solution says)."""
    method = method or solution.method
    if solution.kind == SolutionKind.INFINITE:
        return _family(problem, replace(solution, method=method))
    kept, discarded = check_candidates(problem.equations, problem.unknowns, solution.solutions)
    kept_kind = SolutionKind.SEVERAL if len(kept) > 1 else \
        solution.kind if kept else SolutionKind.NONE
    if solution.kind == SolutionKind.SEVERAL and len(kept) == 1:
        kept_kind = SolutionKind.UNIQUE
    return replace(solution, kind=kept_kind, solutions=tuple(kept),
                   discarded=solution.discarded + tuple(discarded), method=method,
                   reason=solution.reason or ("" if kept else "every candidate fails"))


def _family(problem: Problem, solution: Solution) -> Solution:
    """An infinite family (free unknowns), stated where it solves the original equations:
    their domain (x >= 0 for sqrt(x)^2 = x), and a sign condition on the free unknown where it
    holds on one side of 0 only (x >= 0 for sqrt(x^2) = x). A family that holds on a set
    eqsat cannot state is a SolveError, never "no solution"."""
    (candidate,) = solution.solutions
    family = check_family(problem.equations, problem.unknowns, candidate)
    if family.conditions is None:
        if family.somewhere:
            raise SolveError(f"the solutions form a set eqsat cannot state: {family.reason}")
        return Solution(SolutionKind.NONE, problem.names,
                        discarded=(Discarded(candidate, family.reason),),
                        method=solution.method, reason="every candidate fails")
    conditions = []
    for condition in dict.fromkeys((*solution.conditions, *family.conditions)):
        tidy = problem.tidy(condition)
        if tidy == number(0):
            return Solution(SolutionKind.NONE, problem.names, method=solution.method,
                            reason=f"the equations are defined nowhere ({condition} never "
                            "holds)")
        if tidy != number(1):
            conditions.append(condition)
    return replace(solution, conditions=tuple(conditions))


def solve(equations: Sequence[Expr], unknowns: Sequence[Expr], engine: Engine,
          limits: Limits, method: str = "auto", began: float | None = None) -> Solution:
    """Solve equations (Exprs: `lhs = rhs` equations, `lhs == rhs`, or e meaning e = 0)."""
    if method not in ("auto", "rules"):
        raise EqsatError(f"unknown method {method!r}: use 'auto' or 'rules'")
    pairs = []
    for equation in equations:
        if equation.op in ("equation", "eq"):
            pairs.append((equation.args[0], equation.args[1]))
        else:
            pairs.append((equation, number(0)))
    # comparisons of constants as their truth (E > 6 is 0); a divisor that is then 0 is
    # named as written
    decided = [(decided_comparisons(lhs), decided_comparisons(rhs)) for lhs, rhs in pairs]
    problem = Problem(tuple(pairs), tuple(unknowns), engine, Budget.start(limits, began), method)
    for number_, pair in enumerate(pairs, 1):
        # (not filter(None, ...): a divisor such as pi < 3 is a false Expr)
        zero = next((found for side in pair
                     if (found := _zero_divisor(problem, side)) is not None), None)
        if zero is not None:
            return Solution(SolutionKind.NONE, problem.names,
                            reason=f"equation {number_} is defined nowhere: it "
                                   f"{divides_by_zero(zero)}")
    return solve_problem(replace(problem, equations=tuple(decided)))


def _zero_divisor(problem: Problem, side: Expr) -> Expr | None:
    """A divisor free of symbols that is 0 (sinh(0) in x/sinh(0)), or too close to 0 for 60
    digits to tell and made 0 by the [simplify] rules (sin(pi)): the side is defined nowhere,
    and no candidate can be checked where it is (0/sinh(0) would pass as 0 = 0). A
    SolveError where one is too close to 0 to tell and the rules do not make it 0."""
    for node in postorder(side):
        divisor = divisor_of(node)
        if divisor is None or divisor.free_symbols():
            continue
        value = reference(divisor, {}, CHECK_DIGITS)
        if value == 0:
            return divisor
        if value is not None and abs(value) <= TOLERANCE:
            if problem.tidy(divisor) == number(0):
                return divisor
            raise SolveError(f"cannot decide whether {divisor} is zero")
    return None
