"""Partial fractions in one variable over the rationals (python-flint): a polynomial part and,
for each irreducible factor p of the denominator to the power e, numerators of p, p^2, ...,
p^e of lower degree than p; other symbols may appear in the numerator and as a factor of
the denominator free of the variable."""

from __future__ import annotations

from fractions import Fraction

from flint import fmpq, fmpq_poly

from ..errors import EqsatError
from ..term.expr import Expr, make, number
from .expansion import Expander, Monomial, Terms
from .normal import as_fraction

Grouped = dict[Monomial, fmpq_poly]  # each monomial of the other symbols with its poly in x


def apart(root: Expr, variable: Expr) -> Expr:
    """root as a sum of a polynomial in the variable and proper fractions over powers of the
    irreducible factors of its denominator; an EqsatError where it is not a rational function
    of the variable, or where the denominator's coefficients in it depend on other symbols."""
    fraction = as_fraction(root, factored=(False, False))
    if fraction is None:
        raise EqsatError(f"apart: {root} is too large for the normal forms")
    top, bottom = fraction.args if fraction.op == "div" else (fraction, number(1))
    expander = Expander(deep=False, power=False, log=False)
    numerators = _grouped(expander.terms(top), variable, root)
    content, denominator = _content(_grouped(expander.terms(bottom), variable, root), variable)
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
        raise EqsatError(f"apart: {term} is too large for the normal forms")
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


def _content(grouped: Grouped, variable: Expr) -> tuple[Expr, fmpq_poly]:
    """The denominator as (a factor free of the variable) * (a poly in it over the
    rationals), or an EqsatError where it is not one."""
    polys = list(grouped.values())
    first = polys[0]
    lead = first.coeffs()[-1]
    shape = first / lead
    content = number(0)
    for monomial, poly in grouped.items():
        scale = poly.coeffs()[-1]
        if poly != shape * scale:
            others = sorted({b.name for m in grouped for b, _ in m if b.is_symbol})
            raise EqsatError(f"apart: the denominator's coefficients in {variable} depend on "
                             f"{', '.join(others)}; apart works over the rationals")
        content = make("add", content, make("mul", _rational(scale), _written(monomial)))
    return content, shape


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
