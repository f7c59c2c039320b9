"""Partial fractions in one variable over the rationals (python-flint): a polynomial part and,
for each irreducible factor p of the denominator to the power e, numerators of p, p^2, ...,
p^e of lower degree than p; other symbols may appear in the numerator, as a factor of the
denominator free of the variable, and in the one factor of a denominator with one."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

from flint import fmpq, fmpq_poly

from ..errors import EqsatError
from ..term.expr import Expr, make, number
from .expansion import Expander, Monomial, Terms
from .normal import as_fraction, divides_by_zero, fraction_polynomials, why_unreduced
from .polynomials import expanded_form

if TYPE_CHECKING:
    from flint import fmpq_mpoly

Grouped = dict[Monomial, fmpq_poly]  # each monomial of the other symbols with its poly in x


def apart(root: Expr, variable: Expr) -> Expr:
    """root as a sum of a polynomial in the variable and proper fractions over powers of the
    irreducible factors of its denominator; an EqsatError where it is not a rational function
    of the variable, or where the denominator's coefficients in it depend on other symbols and
    the partial fractions would divide by a polynomial in them (see _over_one_factor)."""
    fraction = as_fraction(root, factored=(False, False))
    if fraction is None:
        raise EqsatError(f"apart: {root} {why_unreduced(root)}")
    top, bottom = fraction.args if fraction.op == "div" else (fraction, number(1))
    expander = Expander(deep=False, power=False, log=False)
    numerators = _grouped(expander.terms(top), variable, root)
    below = expander.terms(bottom)
    if not below:  # (sqrt(2)^2 - 2: 0 once multiplied out)
        raise EqsatError(f"apart: {root} {divides_by_zero(bottom)}: it is defined nowhere")
    rational = _content(_grouped(below, variable, root))
    if rational is None:
        return _over_one_factor(root, variable)
    content, denominator = rational
    whole: dict[int, Expr] = {}  # each power of the variable with its coefficient
    proper: dict[tuple[str, int], Expr] = {}  # each (factor, power) with its numerator
    factors: dict[str, fmpq_poly] = {}  # each factor by its text (a poly is not hashable)
    for monomial, numerator in numerators.items():
        quotient, parts = _proper_parts(numerator, denominator)
        weight = _written(monomial)
        for power, coefficient in enumerate(quotient.coeffs()):
            if coefficient:
                _add(whole, power, _times(weight, _rational(coefficient)))
        for factor, power, part in parts:
            factors[str(factor)] = factor
            _add(proper, (str(factor), power), _times(weight, _poly(part, variable)))
    terms = [_times(_reduced(make("div", coefficient, content)), _power(variable, power))
             for power, coefficient in sorted(whole.items(), reverse=True)]
    terms += [_reduced(make("div", part, make("mul", content, _power(
        _poly(factors[factor], variable), power))))
        for (factor, power), part in sorted(proper.items(), key=lambda item: (
            factors[item[0][0]].degree(), item[0][0], item[0][1]))]
    return _summed(terms)


def _summed(terms: list[Expr]) -> Expr:
    total = terms[0] if terms else number(0)
    for term in terms[1:]:  # a - 1/x, not a + (-1/x)
        negative = str(term).startswith("-")
        total = make("sub", total, _reduced(make("neg", term))) if negative else \
            make("add", total, term)
    return total


def _reduced(term: Expr) -> Expr:
    """One fraction in lowest terms, its denominator factored."""
    found = as_fraction(term, factored=(False, True))
    if found is None:
        raise EqsatError(f"apart: {term} {why_unreduced(term)}")
    return found


def _grouped(terms: Terms, variable: Expr, root: Expr) -> Grouped:
    """A polynomial's terms as polys in the variable, one for each monomial of the others."""
    found: dict[Monomial, dict[int, Fraction]] = {}
    for monomial, coefficient in terms.items():
        degree, others = 0, []
        for base, exponent in monomial:
            if base is variable and exponent.denominator == 1 and exponent > 0:
                degree = int(exponent)
            elif variable in base.free_symbols() or exponent.denominator != 1:
                raise EqsatError(f"apart: {root} is not a rational function of {variable}")
            else:
                others.append((base, exponent))
        coefficients = found.setdefault(frozenset(others), {})
        coefficients[degree] = coefficients.get(degree, Fraction(0)) + coefficient
    return {monomial: fmpq_poly([fmpq(c.numerator, c.denominator) for c in
                                 (by_degree.get(k, Fraction(0))
                                  for k in range(max(by_degree) + 1))])
            for monomial, by_degree in found.items()}


def _content(grouped: Grouped) -> tuple[Expr, fmpq_poly] | None:
    """The denominator as (a factor free of the variable) * (a poly in it over the
    rationals), or None where it is not one."""
    polys = list(grouped.values())
    first = polys[0]
    lead = first.coeffs()[-1]
    shape = first / lead
    content = number(0)
    for monomial, poly in grouped.items():
        scale = poly.coeffs()[-1]
        if poly != shape * scale:
            return None
        content = make("add", content, make("mul", _rational(scale), _written(monomial)))
    return content, shape


def _over_one_factor(root: Expr, variable: Expr) -> Expr:
    """Partial fractions where the denominator's coefficients in the variable hold other
    symbols: sound (equal to root wherever root is defined, for every value of those symbols)
    only where the denominator is c * p^e, c free of the variable and p one irreducible
    factor whose leading coefficient in it is a number, so that dividing by p divides by
    that number alone; (x + y)/(2*x - y) in x is 1/2 + 3*y/(2*(2*x - y)). With two such
    factors the answer divides by their resultant, which vanishes where they share a root
    (1/((x + a)*(x + b)) = (1/(x + b) - 1/(x + a))/(a - b), undefined at a = b): an
    EqsatError saying so, as where p's leading coefficient is not a number and its degree
    does not exceed the numerator's."""
    found = fraction_polynomials(root)
    if found is None:
        raise EqsatError(f"apart: {root} {why_unreduced(root)}")
    num, den, atoms = found
    at = atoms.index(variable)
    scale, factors = den.factor()
    moving = [(factor, power) for factor, power in factors if factor.degrees()[at]]
    content = math.prod((factor ** power for factor, power in factors
                         if not factor.degrees()[at]), start=scale * num.context().constant(1))
    if len(moving) > 1:
        first, second = (expanded_form(factor, atoms) for factor, _ in moving[:2])
        resultant = moving[0][0].resultant(moving[1][0], _name_at(num, at))
        if resultant.is_constant():
            raise EqsatError(f"apart: {root} has several factors in {variable} whose "
                             "coefficients hold other symbols; apart splits over one such "
                             "factor only")
        raise EqsatError(f"apart: the partial fractions of {root} in {variable} over {first} "
                         f"and {second} are undefined where {expanded_form(resultant, atoms)}"
                         " = 0, where it is defined")
    factor, power = moving[0]
    if num.degrees()[at] < factor.degrees()[at]:
        return _reduced(root)
    lead = _lead(factor, at)
    if not lead.is_constant():
        raise EqsatError(f"apart: the partial fractions of {root} in {variable} divide by "
                         f"{expanded_form(lead, atoms)}, which may be 0 where it is defined")
    below, written = expanded_form(content, atoms), expanded_form(factor, atoms)
    quotient, share = _divided(num, factor ** power, at)
    terms = [_reduced(make("div", expanded_form(part, atoms), below))
             for part in _by_power(quotient, at)]
    for k in range(power, 0, -1):
        share, digit = _divided(share, factor, at)
        if not digit.is_zero():
            terms.append(_reduced(make("div", expanded_form(digit, atoms),
                                       make("mul", below, _power(written, k)))))
    return _summed(terms)


def _name_at(poly: fmpq_mpoly, at: int) -> str:
    return str(poly.context().names()[at])


def _lead(poly: fmpq_mpoly, at: int) -> fmpq_mpoly:
    """poly's coefficient of its highest power of the variable at index at."""
    degree = poly.degrees()[at]
    return poly.context().from_dict({
        tuple(0 if i == at else e for i, e in enumerate(exponents)): coefficient
        for exponents, coefficient in poly.to_dict().items() if exponents[at] == degree})


def _divided(num: fmpq_mpoly, den: fmpq_mpoly, at: int) -> tuple[fmpq_mpoly, fmpq_mpoly]:
    """(quotient, remainder) of num by den as polynomials in the variable at index at, den's
    leading coefficient in it a number: the remainder of lower degree in it than den."""
    gen = num.context().gens()[at]
    lead, degree = _lead(den, at), den.degrees()[at]
    quotient = num.context().constant(0)
    while not num.is_zero() and num.degrees()[at] >= degree:
        term = _lead(num, at) / lead * gen ** (num.degrees()[at] - degree)
        quotient, num = quotient + term, num - term * den
    return quotient, num


def _by_power(poly: fmpq_mpoly, at: int) -> list[fmpq_mpoly]:
    """poly's terms grouped by their power of the variable at index at, highest first."""
    groups: dict[int, dict[tuple[int, ...], fmpq]] = {}
    for exponents, coefficient in poly.to_dict().items():
        groups.setdefault(exponents[at], {})[exponents] = coefficient
    return [poly.context().from_dict(groups[k]) for k in sorted(groups, reverse=True)]


def _proper_parts(numerator: fmpq_poly, denominator: fmpq_poly
                  ) -> tuple[fmpq_poly, list[tuple[fmpq_poly, int, fmpq_poly]]]:
    """numerator/denominator as a quotient plus (factor, power, part) terms, part/factor^power
    with deg part < deg factor: each factor's share by the Chinese remainder theorem
    (the inverse of the rest of the denominator modulo factor^e), then its factor-adic
    digits."""
    quotient, remainder = divmod(numerator, denominator)
    parts: list[tuple[fmpq_poly, int, fmpq_poly]] = []
    if remainder.is_zero():
        return quotient, parts
    _, factors = denominator.factor()
    for factor, multiplicity in factors:
        power = factor ** multiplicity
        rest = denominator / power
        _, inverse, _ = rest.xgcd(power)
        share = (remainder * inverse) % power
        for k in range(multiplicity, 0, -1):
            share, digit = divmod(share, factor)
            if not digit.is_zero():
                parts.append((factor, k, digit))
    return quotient, parts


def _add[K](found: dict[K, Expr], key: K, term: Expr) -> None:
    found[key] = make("add", found[key], term) if key in found else term


def _written(monomial: Monomial) -> Expr:
    product = number(1)
    for base, exponent in monomial:
        product = _times(product, _power(base, int(exponent)))
    return product


def _times(first: Expr, second: Expr) -> Expr:
    if first.is_number and first.number == 1:
        return second
    if second.is_number and second.number == 1:
        return first
    return make("mul", first, second)


def _power(base: Expr, exponent: int) -> Expr:
    return number(1) if exponent == 0 else base if exponent == 1 else \
        make("pow", base, number(exponent))


def _rational(value: fmpq) -> Expr:
    return number(Fraction(int(value.p), int(value.q)))


def _poly(poly: fmpq_poly, variable: Expr) -> Expr:
    total = number(0)
    for power, coefficient in enumerate(poly.coeffs()):
        if coefficient:
            total = make("add", total, _times(_rational(coefficient), _power(variable, power)))
    return total
