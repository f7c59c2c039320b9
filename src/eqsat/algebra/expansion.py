"""Expansion: products and integer powers of sums multiplied out into a sum of terms, each a
rational number times powers of bases (symbols, calls, radicals and inverses of sums), with
the power and log rewrites that the symbols' assumptions make sound."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from fractions import Fraction

import mpmath

from ..errors import LimitError
from ..term.expr import Expr, make, number
from ..term.ops import OPS, Sign
from ..term.printing import Texts
from ..term.reference import reference
from ..term.walks import postorder

MAX_TERMS = 10_000  # terms an expansion may make (and its intermediate sums)
MAX_POWER = 1_000  # the largest integer power of a sum multiplied out
MAX_WORK = 200_000  # products of two terms an expansion may make (seconds, at most)

Monomial = frozenset[tuple[Expr, Fraction]]  # each base with its (nonzero) exponent
Terms = dict[Monomial, Fraction]  # a sum: each monomial with its (nonzero) coefficient
ONE: Monomial = frozenset()


def expand(root: Expr, *, deep: bool = True, power: bool = True, log: bool = True) -> Expr:
    """root multiplied out. deep: function arguments too; power: exp(a + b) as exp(a)*exp(b),
    a^(b + c) as a^b*a^c and (a*b)^c as a^c*b^c where a is proven positive; log: log(a*b)
    as log(a) + log(b) and log(a^c) as c*log(a) where a and b are proven positive. A
    LimitError past MAX_TERMS."""
    return Expander(deep, power, log).written(root)


class Expander:
    """One expansion's options, and the sums of the subterms met so far."""

    def __init__(self, deep: bool, power: bool, log: bool) -> None:
        self.deep, self.power, self.log = deep, power, log
        self.done: dict[Expr, Terms] = {}
        self.text = Texts()
        self.work = 0  # products of two terms made so far

    def written(self, root: Expr) -> Expr:
        """The expansion as a term: its terms by falling total degree, those with fewer
        bases that are not symbols first (x before sin(x)), then by text."""
        terms = self.terms(root)
        ordered = sorted(terms.items(), key=lambda item: (
            -sum(e for _, e in item[0]), sum(not b.is_symbol for b, _ in item[0]),
            [self.text(b) for b, _ in _sorted(item[0], self.text)]))
        if not ordered:
            return number(0)
        (monomial, coefficient), rest = ordered[0], ordered[1:]
        total = _term(coefficient, monomial, self.text)
        for monomial, coefficient in rest:  # x - y, not x + (-y)
            total = make("add" if coefficient > 0 else "sub", total,
                         _term(abs(coefficient), monomial, self.text))
        return total

    def terms(self, node: Expr) -> Terms:
        """The node's sum, its subterms' made first (children first, without recursion: a
        sum of 10,000 terms is a chain that deep)."""
        found = self.done.get(node)
        if found is None:
            for part in postorder(node, into=lambda n: n not in self.done):
                if part not in self.done:
                    self.done[part] = self._settled(self._terms(part))
            found = self.done[node]
        return found

    def product(self, first: Terms, second: Terms) -> Terms:
        """The product of two sums, its pairs of terms counted against MAX_WORK."""
        self.work += len(first) * len(second)
        if self.work > MAX_WORK:
            raise LimitError(f"expand: multiplying out takes more than {MAX_WORK:,} products "
                             "of terms")
        return _product(first, second)

    def power_of(self, terms: Terms, exponent: int) -> Terms:
        """A sum to a positive integer power, by repeated squaring."""
        if exponent > MAX_POWER:
            raise LimitError(f"expand: the power {exponent} of a sum is too large to multiply "
                             "out")
        result: Terms = {ONE: Fraction(1)}
        square = terms
        while exponent:
            if exponent & 1:
                result = self.product(result, square)
            exponent >>= 1
            if exponent:
                square = self.product(square, square)
        return result

    def _settled(self, terms: Terms) -> Terms:
        """Where a product made a sum's whole power (sqrt(x + y)^2 is x + y), that power
        multiplied out, or its inverse's base multiplied out ((x + 1)^-2 as 1/(x^2 + 2*x + 1))."""
        def unsettled(base: Expr, exponent: Fraction) -> bool:
            return exponent.denominator == 1 and not -1 <= exponent < 1 and \
                base.op in ("add", "sub")

        if not any(unsettled(b, e) for monomial in terms for b, e in monomial):
            return terms
        total: Terms = {}
        for monomial, coefficient in terms.items():
            part: Terms = {ONE: coefficient}
            for base, exponent in monomial:
                part = self.product(part, self.powered(base, exponent) if unsettled(base, exponent)
                                else {frozenset({(base, exponent)}): Fraction(1)})
            total = _sum(total, part)
        return total

    def _terms(self, node: Expr) -> Terms:
        op, args = node.op, node.args
        if node.is_number:
            return {ONE: node.number} if node.number else {}
        if op == "add":
            return _sum(self.terms(args[0]), self.terms(args[1]))
        if op == "sub":
            return _sum(self.terms(args[0]), _scaled(self.terms(args[1]), Fraction(-1)))
        if op == "neg":
            return _scaled(self.terms(args[0]), Fraction(-1))
        if op == "mul":
            return self.product(self.terms(args[0]), self.terms(args[1]))
        if op == "div":
            return self.product(self.terms(args[0]), self.powered(args[1], Fraction(-1)))
        if op == "sqrt":
            return self.powered(args[0], Fraction(1, 2))
        if op == "pow" and args[1].is_number:
            return self.powered(args[0], args[1].number)
        if op == "pow" and self.power:
            return self._symbolic_power(node)
        if op == "log" and self.log:
            return self._log(node)
        if op == "exp" and self.power:  # exp(a + b) is exp(a)*exp(b) everywhere
            return self._exp(node)
        return _base(self._inside(node), Fraction(1))

    def _inside(self, node: Expr) -> Expr:
        """A node kept as a base: its arguments expanded where deep."""
        if not (self.deep and node.args):
            return node
        return make(node.op, *(self.written(a) for a in node.args))

    def powered(self, base: Expr, exponent: Fraction) -> Terms:
        """base^exponent: a sum to a positive integer power multiplied out; a monomial's
        exponents scaled (a negative base's root left as it is); else a base of its own."""
        terms = self.terms(base)
        if not exponent:  # x^0 is 1 (where x = 0 too, as eqsat defines it)
            return {ONE: Fraction(1)}
        if not terms:
            return {} if exponent > 0 else _base(base, exponent)  # 0^-1 stays undefined
        whole = math.floor(exponent)
        if len(terms) == 1:
            (monomial, coefficient), = terms.items()
            scaled = _scaled_monomial(monomial, exponent)
            if scaled is not None:
                return self.product(_number_power(coefficient, exponent), {scaled[0]: scaled[1]})
        if exponent.denominator == 1 and exponent > 0:
            return self.power_of(terms, int(exponent))
        written = self.written(base)
        if exponent > 1:  # (x + y)^(3/2) is (x + y)*(x + y)^(1/2) wherever it is defined
            return self.product(self.power_of(terms, whole), _base(written, exponent - whole))
        if exponent.denominator == 1:  # 1/(x + 1)^2 as 1/(x^2 + 2*x + 1)
            return _base(self.written(make("pow", written, number(-exponent))), Fraction(-1))
        return _base(written, exponent)

    def _symbolic_power(self, node: Expr) -> Terms:
        """a^(b + c) as a^b*a^c, and (a*b)^c as a^c*b^c, where a is proven positive."""
        base, exponent = node.args
        if exponent.op in ("add", "sub") and is_positive(base):
            right = exponent.args[1] if exponent.op == "add" else make("neg", exponent.args[1])
            return self.product(self.terms(make("pow", base, exponent.args[0])),
                            self.terms(make("pow", base, right)))
        if base.op == "mul" and any(map(is_positive, base.args)):
            return self.product(self.terms(make("pow", base.args[0], exponent)),
                            self.terms(make("pow", base.args[1], exponent)))
        return _base(self._inside(node), Fraction(1))

    def _exp(self, node: Expr) -> Terms:
        """exp of a sum as a product, exp(log(a)) as a (a > 0 where it is defined), and
        exp(k*log(a)) as a^k for a number k and a proven positive (exp(2*log(2)), which
        log(4) expands to, is 4)."""
        argument = self._inside(node).args[0]
        if argument.op == "log":
            return self.terms(argument.args[0])
        if argument.op == "mul" and argument.args[0].is_number and \
                argument.args[1].op == "log" and is_positive(argument.args[1].args[0]):
            return self.terms(make("pow", argument.args[1].args[0], argument.args[0]))
        if argument.op != "add":
            return _base(make("exp", argument), Fraction(1))
        return self.product(self.terms(make("exp", argument.args[0])),
                        self.terms(make("exp", argument.args[1])))

    def _log(self, node: Expr) -> Terms:
        """log of a product or quotient as a sum of logs where all its factors but one are
        proven positive (then both sides are defined where the other is positive: log(8*x)
        is log(x) + 3*log(2)), log(a^c) as c*log(a) for a positive a, log(sqrt(a)) as
        log(a)/2 (both defined where a > 0), and a rational's log as SymPy writes it:
        log(p/q) as log(p) - log(q), an integer's as k*log(b) for the largest k with b^k
        the integer (log(9) is 2*log(3); log(6) stays whole)."""
        argument = self._inside(node).args[0]
        if argument.op in ("mul", "div") and \
                sum(not is_positive(a) for a in argument.args) <= 1:
            first, second = (make("log", a) for a in argument.args)
            return _sum(self.terms(first), _scaled(self.terms(second),
                                                   Fraction(1 if argument.op == "mul" else -1)))
        if argument.op == "pow" and is_positive(argument.args[0]):
            return self.terms(make("mul", argument.args[1], make("log", argument.args[0])))
        if argument.op == "sqrt":
            return _scaled(self.terms(make("log", argument.args[0])), Fraction(1, 2))
        if argument.is_number and argument.number > 0:
            value = argument.number
            parts = [(value.numerator, 1), (value.denominator, -1)]
            total: Terms = {}
            for whole, sign in parts:
                base, power = _perfect_power(whole)
                if base > 1:
                    total = _sum(total, _scaled(_base(make("log", number(base)), Fraction(1)),
                                                Fraction(sign * power)))
            return total
        return _base(make("log", argument), Fraction(1))


MAX_PERFECT_POWER_BITS = 1_000  # a larger integer's log is not taken apart


def _perfect_power(whole: int) -> tuple[int, int]:
    """(b, k) with b^k == whole and k the largest (k = 1 where there is none; a whole of
    more than MAX_PERFECT_POWER_BITS bits is its own base)."""
    if whole < 4 or whole.bit_length() > MAX_PERFECT_POWER_BITS:
        return whole, 1
    for power in range(whole.bit_length(), 1, -1):
        guess = round(whole ** (1 / power))
        for base in (guess - 1, guess, guess + 1):
            if base > 1 and base ** power == whole:
                return base, power
    return whole, 1


def is_positive(term: Expr) -> bool:
    """Whether the term is proven > 0 wherever it is defined: from the symbols' assumptions,
    the ops that are always positive, and the value of a constant."""
    if not term.free_symbols():
        value = reference(term, {}, digits=30)
        return value is not None and value > mpmath.mpf(10) ** -20
    if term.is_symbol:
        return "positive" in term.assumptions
    spec = OPS.get(term.op)
    if spec is not None and spec.sign == Sign.POSITIVE:
        return True
    if term.op in ("mul", "div", "add"):
        return all(map(is_positive, term.args))
    if term.op == "pow":  # a non-integer power of a negative base is undefined
        return is_positive(term.args[0])
    return term.op == "sqrt" and is_positive(term.args[0])


def _sorted(monomial: Monomial, text: Callable[[Expr], str]) -> list[tuple[Expr, Fraction]]:
    return sorted(monomial, key=lambda pair: (text(pair[0]), pair[1]))


def _term(coefficient: Fraction, monomial: Monomial, text: Callable[[Expr], str]) -> Expr:
    """coefficient * the bases with positive exponents / those with negative ones."""
    above = [_powered(b, e) for b, e in _sorted(monomial, text) if e > 0]
    below = [_powered(b, -e) for b, e in _sorted(monomial, text) if e < 0]
    top = _chain(above) if above else None
    if top is not None and coefficient.numerator == -1:
        top = make("neg", top)
    elif top is None or coefficient.numerator != 1:
        whole = number(coefficient.numerator)
        top = whole if top is None else make("mul", whole, top)
    bottom_factors = ([number(coefficient.denominator)] if coefficient.denominator != 1
                      else []) + below
    return make("div", top, _chain(bottom_factors)) if bottom_factors else top


def _chain(factors: list[Expr]) -> Expr:
    product = factors[0]
    for factor in factors[1:]:
        product = make("mul", product, factor)
    return product


def _powered(base: Expr, exponent: Fraction) -> Expr:
    if exponent == 1:
        return base
    if exponent == Fraction(1, 2):
        return make("sqrt", base)
    return make("pow", base, number(exponent))


def _base(base: Expr, exponent: Fraction) -> Terms:
    if base.is_number and base.number > 0 and exponent.denominator == 1:
        return _number_power(base.number, exponent)
    return {frozenset({(base, exponent)}): Fraction(1)}


def _number_power(value: Fraction, exponent: Fraction) -> Terms:
    """value^exponent: exact where the exponent is an integer (or the value 1); else the
    integer part of the exponent folded and its root a base of its own."""
    whole = math.floor(exponent)
    if abs(whole) > MAX_POWER:
        raise LimitError(f"expand: a number to the power {whole} is too large to multiply out")
    folded, part = value ** whole, exponent - whole
    root = _exact_root(value, part.denominator) if value > 0 else None
    if exponent == whole or value == 1:
        return {ONE: folded}
    if root is not None:  # 4^(3/2) is 8
        return {ONE: folded * root ** part.numerator}
    return {frozenset({(number(value), part)}): folded}


def _exact_root(value: Fraction, degree: int) -> Fraction | None:
    """The positive rational r with r^degree = value, where there is one."""
    found = []
    for whole in (value.numerator, value.denominator):
        try:
            guess = round(whole ** (1 / degree))
        except OverflowError:
            return None
        near = [g for g in (guess - 1, guess, guess + 1) if g > 0 and g ** degree == whole]
        if not near:
            return None
        found.append(near[0])
    return Fraction(found[0], found[1])


def _scaled_monomial(monomial: Monomial, exponent: Fraction
                     ) -> tuple[Monomial, Fraction] | None:
    """Each exponent times `exponent` ((b^r)^n is b^(r*n) for an integer n, and for any n
    where b >= 0, which a root's base is wherever it is defined); None where that does not
    hold (x^2 to the power 1/2 is |x|)."""
    if exponent.denominator != 1 and any(e.denominator == 1 and not is_positive(b)
                                         for b, e in monomial):
        return None
    return _monomial([(b, e * exponent) for b, e in monomial])


def _monomial(pairs: Iterable[tuple[Expr, Fraction]]) -> tuple[Monomial, Fraction]:
    """The pairs with each base's exponents added, and the number a number base's whole
    power folds to (sqrt(2)*sqrt(2) is 2)."""
    exponents: dict[Expr, Fraction] = {}
    for base, exponent in pairs:
        exponents[base] = exponents.get(base, Fraction(0)) + exponent
    factor, kept = Fraction(1), []
    for base, exponent in exponents.items():
        if base.is_number and base.number and exponent.denominator == 1:
            factor *= _number_power(base.number, exponent)[ONE]
        elif exponent:
            kept.append((base, exponent))
    return frozenset(kept), factor


def _sum(first: Terms, second: Terms) -> Terms:
    total = dict(first)
    for monomial, coefficient in second.items():
        kept = total.get(monomial, Fraction(0)) + coefficient
        if kept:
            total[monomial] = kept
        else:
            total.pop(monomial, None)
    return _bounded(total)


def _scaled(terms: Terms, factor: Fraction) -> Terms:
    return {m: c * factor for m, c in terms.items()}


def _product(first: Terms, second: Terms) -> Terms:
    total: Terms = {}
    for m1, c1 in first.items():
        for m2, c2 in second.items():
            product, factor = _multiplied(m1, m2)
            kept = total.get(product, Fraction(0)) + c1 * c2 * factor
            if kept:
                total[product] = kept
            else:
                total.pop(product, None)
    return _bounded(total)


def _multiplied(first: Monomial, second: Monomial) -> tuple[Monomial, Fraction]:
    if not first or not second:
        return first or second, Fraction(1)
    if {b for b, _ in first} & {b for b, _ in second}:
        return _monomial([*first, *second])
    return first | second, Fraction(1)


def _bounded(terms: Terms) -> Terms:
    if len(terms) > MAX_TERMS:
        raise LimitError(f"expand: the expansion has more than {MAX_TERMS:,} terms")
    return terms
