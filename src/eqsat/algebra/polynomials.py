"""Rational functions as python-flint polynomials over atoms, and back to terms."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..term.expr import Expr, make, number

if TYPE_CHECKING:
    from flint import fmpq_mpoly

MAX_TERMS = 400  # a part whose polynomials would pass this many terms is left as written
Terms = dict[tuple[int, ...], Fraction]  # a polynomial: exponents of the atoms -> coefficient


class Unreduced(Exception):
    """The part cannot be reduced: it divides by zero everywhere, or would grow too large."""


class DividesByZero(Unreduced):
    """The part divides by a term that is 0 as a rational function: it is defined nowhere."""

    def __init__(self, zero: Expr) -> None:
        super().__init__(str(zero))
        self.zero = zero  # the divisor


def squares_lowered(poly: Any, squares: dict[int, Any]) -> Any:
    """poly with each power v^k of an atom v = squares' index written
    v^(k mod 2) * square^(k div 2); None where that would pass MAX_TERMS. Terms are grouped
    by the squares they take, so each group is multiplied out once."""
    context = poly.context()
    groups: dict[tuple[int, ...], dict[tuple[int, ...], Any]] = {}
    for exponents, coefficient in zip(poly.monoms(), poly.coeffs(), strict=True):
        kept = list(map(int, exponents))
        taken = tuple(kept[i] // 2 for i in squares)
        for i in squares:
            kept[i] %= 2
        groups.setdefault(taken, {})[tuple(kept)] = coefficient
    result = context.from_dict({})
    for taken, terms in groups.items():
        group = context.from_dict(terms)
        for square, times in zip(squares.values(), taken, strict=True):
            if times:
                group *= square**times
        result += group
        if len(result) > MAX_TERMS:
            return None
    return result


def flint_number(value: Fraction) -> Any:
    """A rational as python-flint's fmpq."""
    from flint import fmpq

    return fmpq(value.numerator, value.denominator)


def reduced_pair(num: fmpq_mpoly, den: fmpq_mpoly) -> tuple[Any, Any]:
    if len(num) > MAX_TERMS or len(den) > MAX_TERMS:
        raise Unreduced
    if num.is_zero():
        return num, one_like(den)
    common = num.gcd(den)
    if not common.is_one():
        num, den = num / common, den / common
    return num, den


def one_like(poly: fmpq_mpoly) -> Any:
    return poly.context().from_dict({(0,) * poly.context().nvars(): 1})


def applied(op: str, args: list[tuple[Any, Any]], node: Expr) -> tuple[Any, Any]:
    if op == "neg":
        return -args[0][0], args[0][1]
    if op == "pow":
        exponent = int(node.args[1].number)
        if exponent < 0 and args[0][0].is_zero():
            raise DividesByZero(node.args[0])
        return powered(args[0], exponent)
    (an, ad), (bn, bd) = args
    if op in ("add", "sub"):
        if op == "sub":
            bn = -bn
        if ad == bd:
            return reduced_pair(an + bn, ad)
        check_product(an, bd)
        check_product(bn, ad)
        return reduced_pair(an * bd + bn * ad, ad * bd)
    if op == "div":
        if bn.is_zero():
            raise DividesByZero(node.args[1])
        bn, bd = bd, bn
    check_product(an, bn)
    check_product(ad, bd)
    return reduced_pair(an * bn, ad * bd)


def check_product(a: fmpq_mpoly, b: fmpq_mpoly) -> None:
    if len(a) * len(b) > MAX_TERMS * MAX_TERMS // 4:
        raise Unreduced


def powered(base: tuple[Any, Any], exponent: int) -> tuple[Any, Any]:
    num, den = base
    if exponent == 0:  # as the rule pow-zero: a^0 => 1
        return one_like(num), one_like(num)
    if exponent < 0:  # (of a nonzero base: see applied)
        num, den, exponent = den, num, -exponent
    for poly in (num, den):  # the most terms a power of a polynomial of n terms can have
        if math.comb(len(poly) + exponent - 1, exponent) > MAX_TERMS:
            raise Unreduced
    return num**exponent, den**exponent


def normalised_pair(num: fmpq_mpoly, den: fmpq_mpoly) -> tuple[Any, Any]:
    """The denominator with integer coefficients, no common factor, and a positive leading one."""
    coefficients = [Fraction(int(c.p), int(c.q)) for c in den.coeffs()]
    scale = Fraction(math.lcm(*(c.denominator for c in coefficients)),
                     math.gcd(*(c.numerator for c in coefficients)))
    if coefficients[0] < 0:
        scale = -scale
    factor = flint_number(scale)
    return num * factor, den * factor


def terms_of(poly: fmpq_mpoly) -> Terms:
    return {tuple(map(int, exponents)): Fraction(int(c.p), int(c.q))
            for exponents, c in zip(poly.monoms(), poly.coeffs(), strict=True)}


def expanded_form(poly: fmpq_mpoly, atoms: list[Expr]) -> Expr:
    """A polynomial as a sum of terms, largest degree first."""
    return sum_form(terms_of(poly), atoms)


def collectable(terms: Terms) -> bool:
    """Whether collected_form differs from sum_form: an atom in two terms or more, or one
    coefficient other than 1 and -1 (up to sign) in two terms or more."""
    seen: set[int] = set()
    for exponents in terms:
        found = {i for i, power in enumerate(exponents) if power}
        if seen & found:
            return True
        seen |= found
    sizes = [abs(value) for value in terms.values() if abs(value) != 1]
    return len(set(sizes)) < len(sizes)


def collected_form(terms: Terms, atoms: list[Expr]) -> Expr:
    """A polynomial with the atom found in most terms factored out of those terms (by its
    least power there), and so on for the rest and inside what it multiplies; terms no atom
    joins are grouped by their coefficients: x*y + x*z + w as x*(y + z) + w,
    x*(4*y + 4*z + w) as x*(4*(y + z) + w) (a greedy multivariate Horner form)."""
    def count(i: int) -> int:
        return sum(1 for exponents in terms if exponents[i])

    in_most = max(range(len(atoms)), key=count, default=0)
    if len(terms) < 2 or count(in_most) < 2:
        return _by_coefficient(terms, atoms)
    power = min(e[in_most] for e in terms if e[in_most])
    lowered: Terms = {}
    rest: Terms = {}
    for exponents, value in terms.items():
        if exponents[in_most]:
            less = (*exponents[:in_most], exponents[in_most] - power, *exponents[in_most + 1:])
            lowered[less] = value
        else:
            rest[exponents] = value
    atom = atoms[in_most] if power == 1 else make("pow", atoms[in_most], number(power))
    product = make("mul", atom, collected_form(lowered, atoms))
    if not rest:
        return product
    return plus(product, collected_form(rest, atoms))


def _by_coefficient(terms: Terms, atoms: list[Expr]) -> Expr:
    """The terms added, those whose coefficients are c or -c (c other than 1) as c times
    their sum: 4*x + 4*y - 4*z + w as 4*(x + y - z) + w; as sum_form where none share one."""
    groups: dict[Fraction, Terms] = {}
    for exponents, value in terms.items():
        groups.setdefault(abs(value), {})[exponents] = value
    if all(len(group) < 2 or size == 1 for size, group in groups.items()):
        return sum_form(terms, atoms)
    parts: list[tuple[bool, Expr]] = []  # (negative, written)
    for size, group in groups.items():
        if len(group) < 2 or size == 1:
            parts += [(value < 0, term_form(abs(value), exponents, atoms))
                      for exponents, value in group.items()]
            continue
        negative = all(value < 0 for value in group.values())
        inside = sum_form({e: (-value if negative else value) / size
                           for e, value in group.items()}, atoms)
        parts.append((negative, make("mul", number(size), inside)))
    parts.sort(key=lambda part: part[0])  # a positive part leading
    found = make("neg", parts[0][1]) if parts[0][0] else parts[0][1]
    for negative, written in parts[1:]:
        found = make("sub" if negative else "add", found, written)
    return found


def plus(first: Expr, second: Expr) -> Expr:
    """first + second, as first - c where second is -c."""
    if second.op == "neg":
        return make("sub", first, second.args[0])
    if second.is_number and second.number < 0:
        return make("sub", first, number(-second.number))
    return make("add", first, second)


def sum_form(terms: Terms, atoms: list[Expr]) -> Expr:
    """The terms added, largest first but a positive one leading (7 - x, not -x + 7)."""
    found: Expr | None = None
    leading = next((e for e, value in terms.items() if value > 0), None)
    ordered = list(terms.items())
    if leading is not None:
        ordered.sort(key=lambda item: item[0] != leading)
    for exponents, value in ordered:
        if found is None:
            found = term_form(value, exponents, atoms)
        elif value < 0:
            found = make("sub", found, term_form(-value, exponents, atoms))
        else:
            found = make("add", found, term_form(value, exponents, atoms))
    return found if found is not None else number(0)


def factored_form(poly: fmpq_mpoly, atoms: list[Expr], factored: Any = None) -> Expr:
    """A polynomial as its content times its irreducible factors: symbols first, then other
    single atoms, then the rest, each kind in the order of the first atom in it
    (x*y*exp(x)*(x - 1), not y*x*(x - 1)*exp(x); FLINT's order among the rest). factored:
    poly.factor(), where the caller has it."""
    def kind(factor: fmpq_mpoly) -> tuple[bool, bool, int]:
        first = _first_atom(factor)
        return len(factor) > 1, not atoms[first].is_symbol, first

    content, factors = factored or poly.factor()
    found: Expr | None = None
    for factor, power in sorted(factors, key=lambda pair: kind(pair[0])):
        written = expanded_form(factor, atoms)
        if power > 1:
            written = make("pow", written, number(int(power)))
        found = written if found is None else make("mul", found, written)
    value = Fraction(int(content.p), int(content.q))
    if found is None:
        return number(value)
    if value == -1:
        return make("neg", found)
    return found if value == 1 else make("mul", number(value), found)


def _first_atom(poly: fmpq_mpoly) -> int:
    """The index of the first atom the polynomial has in it."""
    return min(i for i, degree in enumerate(poly.degrees()) if degree)


def term_form(coefficient: Fraction, exponents: tuple[int, ...], atoms: list[Expr]) -> Expr:
    """coefficient * product of atoms to their exponents."""
    product: Expr | None = None
    for atom, power in zip(atoms, exponents, strict=True):
        if power:
            factor = atom if power == 1 else make("pow", atom, number(int(power)))
            product = factor if product is None else make("mul", product, factor)
    if product is None:
        return number(coefficient)
    if coefficient == -1:
        return make("neg", product)
    return product if coefficient == 1 else make("mul", number(coefficient), product)
