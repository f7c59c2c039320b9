"""Exact sparse polynomials in unknowns and parameters, read from and written back to Expr."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from flint import fmpq_mpoly_ctx  # (loaded with solve, whose one-time setup it is)
from flint.utils.flint_exceptions import DomainError

from ..errors import EqsatError
from ..term.expr import Expr, make, number
from ..term.walks import postorder, symbol_names
from .polynomials import flint_number

Monomial = tuple[tuple[int, int], ...]  # sorted (variable index, exponent), exponent != 0
MAX_TERMS = 4000  # a product that expands past this many terms is left unexpanded
MAX_POWER = 12  # the largest integer power expanded


class NotPolynomial(EqsatError):
    """An expression that is not a polynomial in the unknowns (names the subterm)."""


class Poly:
    """A polynomial with rational coefficients; parameters may carry negative exponents
    (1/d is d^-1), unknowns may not."""

    __slots__ = ("terms",)

    def __init__(self, terms: dict[Monomial, Fraction] | None = None) -> None:
        self.terms = {m: c for m, c in (terms or {}).items() if c != 0}

    @staticmethod
    def constant(value: Fraction | int) -> Poly:
        return Poly({(): Fraction(value)})

    @staticmethod
    def variable(index: int, exponent: int = 1) -> Poly:
        return Poly({((index, exponent),): Fraction(1)})

    def is_zero(self) -> bool:
        return not self.terms

    def constant_value(self) -> Fraction | None:
        """The value if this is a constant, else None."""
        if not self.terms:
            return Fraction(0)
        if len(self.terms) == 1 and () in self.terms:
            return self.terms[()]
        return None

    def __add__(self, other: Poly) -> Poly:
        terms = dict(self.terms)
        for m, c in other.terms.items():
            terms[m] = terms.get(m, Fraction(0)) + c
        return Poly(terms)

    def __neg__(self) -> Poly:
        return Poly({m: -c for m, c in self.terms.items()})

    def __sub__(self, other: Poly) -> Poly:
        return self + (-other)

    def __mul__(self, other: Poly) -> Poly:
        if len(self.terms) * len(other.terms) > MAX_TERMS * 4:
            raise NotPolynomial("the expansion is too large")
        terms: dict[Monomial, Fraction] = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in other.terms.items():
                m = _times(m1, m2)
                terms[m] = terms.get(m, Fraction(0)) + c1 * c2
        result = Poly(terms)
        if len(result.terms) > MAX_TERMS:
            raise NotPolynomial("the expansion is too large")
        return result

    def scale(self, factor: Fraction) -> Poly:
        return Poly({m: c * factor for m, c in self.terms.items()})

    def __pow__(self, exponent: int) -> Poly:
        result = Poly.constant(1)
        for _ in range(exponent):
            result = result * self
        return result

    def degree(self, index: int) -> int:
        return max((dict(m).get(index, 0) for m in self.terms), default=0)

    def variables(self) -> set[int]:
        return {i for m in self.terms for i, _ in m}

    def coefficient(self, index: int, power: int) -> Poly:
        """The polynomial multiplying variable^power (variable absent from it)."""
        terms = {}
        for m, c in self.terms.items():
            if dict(m).get(index, 0) == power:
                terms[tuple(p for p in m if p[0] != index)] = c
        return Poly(terms)

    def lowest_exponents(self) -> dict[int, int]:
        """Per variable, its smallest exponent over the terms (0 where a term lacks it)."""
        lowest: dict[int, int] = {}
        for i in self.variables():
            lowest[i] = min(dict(m).get(i, 0) for m in self.terms)
        return lowest

    def times_monomial(self, monomial: Monomial) -> Poly:
        return Poly({_times(m, monomial): c for m, c in self.terms.items()})

    def exact_quotient(self, divisor: Poly) -> Poly:
        """self / divisor, which must divide exactly (as in fraction-free elimination), by
        python-flint's exact division: both shifted to nonnegative exponents first (a
        parameter may appear as d^-1), the shift given back to the quotient."""
        if divisor.is_zero():
            raise EqsatError("division of a polynomial by zero")
        low, low_divisor = self.lowest_exponents(), divisor.lowest_exponents()
        if not (self.variables() | divisor.variables()):
            return Poly.constant(self.terms.get((), Fraction(0)) / divisor.terms[()])
        raised, raised_divisor = (p.times_monomial(_raising(lows))
                                  for p, lows in ((self, low), (divisor, low_divisor)))
        form = FlintForm([raised, raised_divisor])
        try:
            quotient = form.to_flint(raised) / form.to_flint(raised_divisor)
        except (ZeroDivisionError, ValueError, ArithmeticError):
            raise EqsatError("internal error: a fraction-free elimination step did not "
                             "divide exactly") from None
        lowered = {v: min(low.get(v, 0), 0) - min(low_divisor.get(v, 0), 0)
                   for v in form.variables}
        return form.to_poly(quotient).times_monomial(
            tuple(sorted((v, e) for v, e in lowered.items() if e)))

    def square_root(self) -> Poly | None:
        """The polynomial whose square this is, leading coefficient positive (python-flint),
        or None where there is none (or a variable has a negative power)."""
        if any(e < 0 for m in self.terms for _, e in m):
            return None
        if not self.variables():
            value = self.terms.get((), Fraction(0))
            root = Fraction(math.isqrt(value.numerator), math.isqrt(value.denominator)) \
                if value >= 0 else Fraction(-1)
            return Poly.constant(root) if root >= 0 and root * root == value else None
        form = FlintForm([self])
        try:
            return form.to_poly(form.to_flint(self).sqrt())
        except DomainError:  # not a perfect square
            return None

    def substitute(self, index: int, value: Poly) -> Poly:
        """Replace one variable (nonnegative exponents) by a polynomial."""
        result = Poly()
        for m, c in self.terms.items():
            exponent = dict(m).get(index, 0)
            rest = Poly({tuple(p for p in m if p[0] != index): c})
            result = result + rest * value**exponent
        return result


def _raising(lowest: dict[int, int]) -> Monomial:
    """The monomial that lifts every negative lowest exponent to 0."""
    return tuple(sorted((v, -e) for v, e in lowest.items() if e < 0))


class FlintForm:
    """Polynomials with nonnegative exponents as python-flint's, over one context of all
    their variables, and back: arithmetic in C where a Poly's dictionaries would take
    seconds (the entries of a symbolic system's elimination)."""

    def __init__(self, polys: Iterable[Poly]) -> None:
        self.variables = sorted(set().union(*(p.variables() for p in polys)))
        self._place = {v: k for k, v in enumerate(self.variables)}
        names = tuple(f"v{k}" for k in range(len(self.variables))) or ("v0",)
        self.context = fmpq_mpoly_ctx.get(names, "lex")

    def to_flint(self, poly: Poly) -> Any:
        width = max(len(self.variables), 1)
        terms = {}
        for monomial, c in poly.terms.items():
            exponents = [0] * width
            for v, e in monomial:
                if e < 0:
                    raise EqsatError("internal error: a negative exponent given to python-flint")
                exponents[self._place[v]] = e
            terms[tuple(exponents)] = flint_number(c)
        return self.context.from_dict(terms)

    def to_poly(self, value: Any) -> Poly:
        return Poly({tuple((v, int(e)) for v, e in zip(self.variables, exponents,
                                                       strict=False) if int(e)):
                     Fraction(int(c.p), int(c.q))
                     for exponents, c in zip(value.monoms(), value.coeffs(), strict=True)})


def _times(m1: Monomial, m2: Monomial) -> Monomial:
    if not m1:
        return m2
    if not m2:
        return m1
    exps = dict(m1)
    for i, e in m2:
        exps[i] = exps.get(i, 0) + e
    return tuple(sorted((i, e) for i, e in exps.items() if e != 0))


class Ring:
    """The variables of a family of polynomials: the unknowns first, then parameters
    (symbols, or opaque subterms free of the unknowns such as sin(a), pi or 1/(a + b))."""

    def __init__(self, unknowns: Sequence[Expr]) -> None:
        self.variables: list[Expr] = list(unknowns)
        self.unknown_count = len(self.variables)
        self._index = {v: i for i, v in enumerate(self.variables)}
        self._name_keys: dict[int, tuple[bool, str]] = {}  # (printing is slow: once each)

    def index(self, variable: Expr) -> int:
        if variable not in self._index:
            self._index[variable] = len(self.variables)
            self.variables.append(variable)
        return self._index[variable]

    def is_unknown(self, index: int) -> bool:
        return index < self.unknown_count

    def unknown_set(self) -> frozenset[Expr]:
        return frozenset(self.variables[: self.unknown_count])

    def to_poly(self, expr: Expr) -> Poly:
        """The expanded polynomial; NotPolynomial names what is not one in the unknowns.
        Children first, without recursion (a determinant of 720 terms is a sum 720 deep);
        a subterm free of the unknowns is one parameter unless its sums, products,
        quotients by monomials and small powers expand (_expanded_parameter), and a child's
        failure counts only where its parent needs it (n/(a + b) is one parameter whatever
        n is)."""
        unknowns = {u.name for u in self.unknown_set()}
        names = symbol_names([expr])  # each subterm's symbols, in one pass
        done: dict[Expr, Poly | NotPolynomial] = {}
        for node in postorder(expr, into=lambda n: bool(names[n] & unknowns) or
                              _expanded_parameter(n)):
            try:
                if not (names[node] & unknowns):
                    done[node] = self._parameter_node(node, done)
                else:
                    done[node] = self._combine(node, [_known(done[a]) for a in node.args])
            except NotPolynomial as failure:
                done[node] = failure
        return _known(done[expr])

    def _parameter_node(self, node: Expr, done: dict[Expr, Poly | NotPolynomial]) -> Poly:
        """A subterm free of the unknowns, its expanded operands' polynomials in `done`."""
        def of(arg: Expr) -> Poly:
            return _known(done[arg])

        if node.is_number:
            return Poly.constant(node.number)
        if node.op == "neg":
            return -of(node.args[0])
        if node.op in ("add", "sub", "mul"):
            left, right = (of(a) for a in node.args)
            return left + right if node.op == "add" else left - right if node.op == "sub" \
                else left * right
        if node.op == "div":
            inverse = _inverse_monomial(of(node.args[1]))
            if inverse is not None:
                return of(node.args[0]) * inverse
        if _expanded_parameter(node) and node.op == "pow":
            exponent = int(node.args[1].number)
            base = of(node.args[0])
            if exponent >= 0:
                return base ** exponent
            inverse = _inverse_monomial(base)
            if inverse is not None:
                return inverse ** -exponent
        return Poly.variable(self.index(node))

    def _combine(self, node: Expr, args: list[Poly]) -> Poly:
        op = node.op
        if node.is_symbol:
            return Poly.variable(self.index(node))
        if op == "add":
            return args[0] + args[1]
        if op == "sub":
            return args[0] - args[1]
        if op == "neg":
            return -args[0]
        if op == "mul":
            return args[0] * args[1]
        if op == "div":
            inverse = _inverse_monomial(args[1])
            if inverse is not None and not any(self.is_unknown(i) for i in args[1].variables()):
                return args[0] * inverse
            raise NotPolynomial(f"the unknowns appear in the denominator of {node}")
        if op == "pow" and node.args[1].is_number and not (node.args[1].free_symbols()):
            exponent = node.args[1].number
            if exponent.denominator == 1 and 0 <= exponent <= MAX_POWER:
                return args[0] ** int(exponent)
        raise NotPolynomial(f"{node} is not a polynomial in the unknowns")

    def to_expr(self, poly: Poly) -> Expr:
        """A sum of terms, highest degree first, subtracting negative terms (x^2 - 2*x + 1)."""
        if poly.is_zero():
            return number(0)
        ordered = sorted(poly.terms.items(), key=lambda t: self._term_key(t[0]))
        positive = next((k for k, (_, c) in enumerate(ordered) if c > 0), 0)
        ordered.insert(0, ordered.pop(positive))  # b^2 - 4*a*c, not -4*a*c + b^2
        result: Expr | None = None
        for m, c in ordered:
            if result is None:
                result = self._term(m, c)
            else:
                result = make("sub" if c < 0 else "add", result, self._term(m, abs(c)))
        assert result is not None
        return result

    def leading_coefficient(self, poly: Poly) -> Fraction:
        """The coefficient of the term to_expr writes first, if signs did not matter."""
        return min(poly.terms.items(), key=lambda t: self._term_key(t[0]))[1]

    def _term_key(self, m: Monomial) -> tuple[object, ...]:
        """Highest degree in the unknowns first, then highest degree, then by name."""
        degree = sum(e for i, e in m)
        in_unknowns = sum(e for i, e in m if self.is_unknown(i))
        return (-in_unknowns, -degree, [(self._name_key(i), -e) for i, e in self._by_name(m)])

    def _name_key(self, index: int) -> tuple[bool, str]:
        if index not in self._name_keys:
            self._name_keys[index] = (not self.is_unknown(index), str(self.variables[index]))
        return self._name_keys[index]

    def _by_name(self, m: Monomial) -> list[tuple[int, int]]:
        return sorted(m, key=lambda p: self._name_key(p[0]))

    def _term(self, m: Monomial, c: Fraction) -> Expr:
        """c * monomial as c.numerator * factors / (c.denominator * negative powers)."""
        m = tuple(self._by_name(m))
        numerator = [self._power(i, e) for i, e in m if e > 0]
        denominator = [self._power(i, -e) for i, e in m if e < 0]
        if c.numerator == -1 and numerator:
            numerator[0] = make("neg", numerator[0])
        shown = c.numerator not in (1, -1) or not numerator
        factors = ([number(c.numerator)] if shown else []) + numerator
        expr = _product(factors)
        below = _product(([number(c.denominator)] if c.denominator != 1 else []) + denominator)
        assert expr is not None  # the number alone when there are no factors
        return expr if below is None else make("div", expr, below)

    def _power(self, index: int, exponent: int) -> Expr:
        base = self.variables[index]
        return base if exponent == 1 else make("pow", base, number(exponent))


def _product(factors: Iterable[Expr]) -> Expr | None:
    result: Expr | None = None
    for factor in factors:
        result = factor if result is None else make("mul", result, factor)
    return result


def _known(found: Poly | NotPolynomial) -> Poly:
    """A polynomial made, or the failure that made none raised."""
    if isinstance(found, NotPolynomial):
        raise found
    return found


def _expanded_parameter(node: Expr) -> bool:
    """Whether a subterm free of the unknowns is expanded from its operands (else it is one
    parameter): sums, differences, negations, products, quotients, small integer powers."""
    if node.op in ("neg", "add", "sub", "mul", "div"):
        return True
    if node.op != "pow" or not node.args[1].is_number:
        return False
    exponent = node.args[1].number
    return exponent.denominator == 1 and abs(exponent) <= MAX_POWER


def _inverse_monomial(poly: Poly) -> Poly | None:
    """1/poly when poly is a nonzero constant times a product of parameter powers."""
    if len(poly.terms) != 1:
        return None
    ((m, c),) = poly.terms.items()
    return Poly({tuple((i, -e) for i, e in m): 1 / c})
