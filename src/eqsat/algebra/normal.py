"""Rational normal forms: the + - * / and integer-power parts of a term as reduced fractions of
polynomials over Q (python-flint), and the equal forms written from them."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, partial
from typing import TYPE_CHECKING, Any

from ..errors import EqsatError, LimitError
from ..term.expr import Expr, make, number
from ..term.ops import COMPARISONS, OPS
from ..term.reference import reference
from ..term.shape import is_tensor
from ..term.walks import postorder, rebuild
from .polynomials import (
    DividesByZero,
    Unreduced,
    applied,
    collectable,
    collected_form,
    expanded_form,
    factored_form,
    flint_number,
    normalised_pair,
    one_like,
    plus,
    reduced_pair,
    squares_lowered,
    sum_form,
    terms_of,
)

if TYPE_CHECKING:
    from flint import fmpq_mpoly

Cost = Callable[[Expr], float]

RATIONAL_OPS = frozenset({"add", "sub", "mul", "div", "neg"})
MAX_POWER = 32  # a larger integer power stays an atom (x^1000 is not expanded)
MAX_WHOLE_POWER = 1_000  # as_fraction's: y^35 is y to a power (its terms are still bounded)
MAX_FACTORED_TERMS = 60  # polynomials factored (to offer the factored forms)
MAX_PART_NODES = 200_000  # a larger rational part is left as written (its atoms still reduced)
MAX_ATOMS = 2_000  # a part in more atoms than this is left as written (a sum of 15,000 symbols
# took 1.7 s to reduce, only to pass MAX_TERMS; the benchmarks' 2,127-node sum has 665 atoms)
# parts up to this size with a quotient in them also try their arguments' best forms (a/b +
# c/d kept apart where one fraction is larger); a polynomial's own forms cover its pieces
MAX_PIECEWISE_NODES = 64




_SQUARED = frozenset({"sin", "cos", "sinh", "cosh", "sqrt"})  # the atoms squares_reduced acts on


@cache
def _generators(count: int) -> tuple[tuple[Any, ...], Any]:
    """The generators of polynomials over Q in count variables, and their 1 (see one_like); flint
    loads with the first rational part."""
    from flint import fmpq_mpoly_ctx

    context = fmpq_mpoly_ctx.get(tuple(f"v{i}" for i in range(count)), "deglex")
    return tuple(context.gens()), context.from_dict({(0,) * count: 1})


def divisor_of(node: Expr) -> Expr | None:
    """What a node divides by: b of a/b, a of a^(-k) (k a number); None for other nodes."""
    if node.op == "div":
        return node.args[1]
    if node.op == "pow" and node.args[1].is_number and node.args[1].number < 0:
        return node.args[0]
    return None


def is_rational_node(node: Expr, max_power: int = MAX_POWER) -> bool:
    """Whether a node is + - * /, an integer power (up to max_power), a number or a symbol."""
    if node.op in RATIONAL_OPS or node.op == "num":
        return True
    if node.op == "sym":
        return not node.shape
    if node.op == "pow":
        exponent = node.args[1]
        return (exponent.is_number and exponent.number.denominator == 1
                and abs(exponent.number) <= max_power)
    return False


@dataclass(frozen=True)
class Normalised:
    """A term's normal forms, and whether every rational part in it was reduced (none was
    too large, none divides by zero everywhere)."""

    forms: list[Expr]
    complete: bool


def normalise(root: Expr, cost: Cost, deadline: float = math.inf) -> Normalised:
    """Terms equal to root (where root is defined), cheapest first, root as written among
    them: each rational part (the whole term, and those inside function arguments) reduced
    to one fraction with common factors cancelled, then written expanded, collected,
    factored or split, whichever costs least. Cancelling a factor only removes points where
    root is undefined. Tensor expressions are returned as they are, and so is root where
    time.perf_counter() passes the deadline (not complete)."""
    if is_tensor(root):
        return Normalised([root], False)
    nodes = postorder(root)
    if not any(node.args and is_rational_node(node) for node in nodes):
        return Normalised([root], True)  # its rational parts are its leaves: nothing to reduce
    reducer = _Reducer(cost)
    folded = rebuild(root, _fold_numbers) if any(map(_foldable, nodes)) else root
    for node in postorder(folded):
        if time.perf_counter() > deadline:
            return Normalised([root], False)
        if not is_rational_node(node):
            reducer.add_atom(node)
    if not is_rational_node(folded):
        forms = [root, reducer.atom_forms[folded]]
    else:
        forms = [root, *reducer.forms(folded)]
    return Normalised(_cheapest_first(forms, cost), reducer.complete)


def in_lowest_terms(root: Expr) -> bool:
    """Whether root is a linear polynomial written as its own cheapest normal form, so that
    normalise would put it first: a chain of + and - (each right operand a term) of distinct
    generators (scalar symbols, or ops of symbols alone: see _leaf_atom), each alone or times
    an integer of 2 or more, and at most one nonzero integer, the coefficients with no common
    factor and no two generators with one coefficient (x + 1, 2*x - 3*y + 1, log(c) + 1; not
    2*x + 2, -x + 1, x + x, 3*x + 3*y + z), or a monomial (see _monomial_factors), its
    negation without a number, or one over another with no factor in common (cos(x)/sin(x))."""
    if root.op in ("mul", "pow"):
        return _monomial_factors(root) is not None
    if root.op == "neg":  # -sin(x), -x*y (not -2*x: -2 is one number)
        return _monomial_factors(root.args[0], coefficient=False) is not None
    if root.op == "div":  # 2/x, y/x^2, 1/(x*y): a positive integer or a monomial over one
        top, bottom = root.args
        above = set() if top.is_number and top.number.denominator == 1 and \
            top.number > 0 else _monomial_factors(top, coefficient=False)
        below = _monomial_factors(bottom, coefficient=False)
        return above is not None and below is not None and not above & below
    terms: list[Expr] = []
    node = root
    while node.op in ("add", "sub"):
        node, term = node.args
        terms.append(term)
    terms.append(node)
    scaled: dict[Expr, int] = {}  # each generator's coefficient
    constants = [abs(int(t.number)) for t in terms if t.is_number]
    for term in terms:
        if term.is_number:
            if term.number.denominator != 1 or term.number == 0:
                return False
            continue
        value = Fraction(1)
        if term.op == "mul" and term.args[0].is_number:
            value, term = term.args[0].number, term.args[1]
            if value.denominator != 1 or value < 2:
                return False
        if not _generator(term) or term in scaled:
            return False
        scaled[term] = int(value)
    multiples = [c for c in scaled.values() if c > 1]  # c*x + c*y: c*(x + y) is cheaper
    return len(terms) > 1 and len(constants) <= 1 and \
        math.gcd(*scaled.values(), *constants) == 1 and len(set(multiples)) == len(multiples)


def _monomial_factors(root: Expr, coefficient: bool = True) -> set[Expr] | None:
    """The factors of root where it is a product, left to right, of an optional integer of 2
    or more (unless not coefficient) and then distinct generators (see _generator), each
    alone or, a symbol, to an integer power of 2 or more (2*x, x^2*y, 3*x*y^4, cos(x)*y;
    not x*2, x*x, x^1, 1/2*x, sin(x)^2): its own cheapest normal form; else None."""
    factors: list[Expr] = []
    node = root
    while node.op == "mul":
        node, factor = node.args
        factors.append(factor)
    factors.append(node)  # (the leftmost last)
    if factors[-1].is_number and coefficient:
        number = factors.pop().number
        if number.denominator != 1 or number < 2 or not factors:
            return None
    found: set[Expr] = set()
    for factor in factors:
        if factor.op == "pow":
            exponent = factor.args[1]
            if not (exponent.is_number and exponent.number.denominator == 1 and
                    exponent.number >= 2 and factor.args[0].op == "sym"):
                return None
            factor = factor.args[0]
        if not _generator(factor) or factor in found:
            return None
        found.add(factor)
    return found


def _generator(node: Expr) -> bool:
    """Whether the normal forms take the node as one generator, as written: a scalar symbol,
    or an op that is not + - * / or a power (nor a square root: squares_reduced acts on
    those of numbers) of scalar symbols alone (sin(x), log(c), atan2(y, x)), whose key is
    itself. Powers of such an op are left out: sin(x)^2 meets the identities of squares."""
    if node.op == "sym":
        return not node.shape
    return bool(node.args) and not is_rational_node(node) and node.op != "sqrt" and \
        all(a.op == "sym" and not a.shape for a in node.args) and not is_tensor(node)


def polynomial_factors(poly: Expr) -> list[tuple[Expr, int]] | None:
    """The irreducible factors of a polynomial (over the rationals, in its symbols and
    non-rational subterms), each with its multiplicity, numbers left out; None where poly
    is not a polynomial or is too large to factor."""
    fraction = _whole_fraction(poly, is_rational_node)
    if fraction is None or not fraction.den.is_constant() or \
            len(fraction.num) > MAX_FACTORED_TERMS:
        return None
    _, factors = fraction.num.factor()
    return [(expanded_form(factor, fraction.atoms), int(power)) for factor, power in factors]


def as_fraction(root: Expr, *, factored: tuple[bool, bool]) -> Expr | None:
    """root as one fraction in lowest terms over the rationals, its symbols and non-rational
    subterms the variables: numerator and denominator each written expanded, or (factored,
    for each) as its content times its irreducible factors. None where root is not a rational
    function of them (a tensor, or beyond the normal forms' limits). Equal to root wherever
    root is defined (cancelling a common factor only removes points where it is not)."""
    found = fraction_polynomials(root)
    if found is None:
        return None
    num, den, atoms = found
    top, bottom = ((factored_form if chosen else expanded_form)(poly, atoms)
                   for chosen, poly in zip(factored, (num, den), strict=True))
    return top if bottom.is_number and bottom.number == 1 else make("div", top, bottom)


def fraction_polynomials(root: Expr) -> tuple[fmpq_mpoly, fmpq_mpoly, list[Expr]] | None:
    """root as num/den in lowest terms, polynomials with integer coefficients in its atoms
    (its symbols and non-rational subterms, the list gives them in the polynomials' order);
    None where root is not a rational function of them."""
    folded = rebuild(root, _fold_numbers)
    # y^35 a power of y where its terms stay bounded, else an atom as in the normal forms
    fraction = _whole_fraction(folded, partial(is_rational_node, max_power=MAX_WHOLE_POWER)) \
        or _whole_fraction(folded, is_rational_node)
    if fraction is None:
        return None
    num, den = _integral(fraction.num, fraction.den)
    return num, den, fraction.atoms


def why_unreduced(root: Expr) -> str:
    """Why as_fraction gives no fraction for a scalar root, as the end of a sentence naming
    it: a divisor that is 0 as a rational function (root is defined nowhere), or its size."""
    zero = zero_divisor(root)
    if zero is not None:
        return f"{divides_by_zero(zero)}: it is defined nowhere"
    return "is too large for the normal forms"


def divisor_zero_everywhere(root: Expr) -> Expr | None:
    """A divisor of root that is 0 wherever it is evaluated (1/0, x/(x - x)), outside any
    `where` (every other op is undefined where an operand is: root is then defined nowhere);
    None where there is none."""
    for node in postorder(root, into=lambda n: n.op != "where"):
        divisor = divisor_of(node)
        if divisor is None or is_tensor(divisor):
            continue
        if divisor.free_symbols():
            if as_fraction(divisor, factored=(False, False)) == number(0):
                return divisor
        elif reference(divisor, {}) == 0:
            return divisor
    return None


def divides_by_zero(divisor: Expr) -> str:
    """How a message says that a term divides by a divisor that is 0 (by 0 itself, or by
    x - x, which is 0)."""
    return "divides by 0" if divisor == number(0) else f"divides by {divisor}, which is 0"


def check_defined_somewhere(root: Expr, verb: str, given: Expr | None = None) -> None:
    """An EqsatError where root is defined nowhere (divisor_zero_everywhere): no answer of a
    verb would mean anything. given: the input root was found equal to (simplify's
    x/sin(pi) as x/0), named instead."""
    divisor = divisor_zero_everywhere(root)
    if divisor is None:
        return
    if given is not None:
        raise EqsatError(f"{verb}: {given} is defined nowhere: it equals {root}, which "
                         f"{divides_by_zero(divisor)}")
    raise EqsatError(f"{verb}: {root} {divides_by_zero(divisor)}: it is defined nowhere")


def zero_divisor(root: Expr) -> Expr | None:
    """A divisor of root's rational part that is 0 as a rational function (root is defined
    nowhere: x/(x - x)), if one is found within the normal forms' limits."""
    folded = rebuild(root, _fold_numbers)
    nodes = postorder(folded, into=is_rational_node)
    if len(nodes) <= MAX_PART_NODES:
        try:
            _Fraction.of(nodes, folded, {}, {})
        except DividesByZero as error:
            return error.zero
        except Unreduced:
            pass
    return None


def _whole_fraction(root: Expr, rational: Callable[[Expr], bool]) -> _Fraction | None:
    """The reduced fraction of the whole term, the nodes `rational` refuses its atoms; None
    for a tensor, or where it is too large for the normal forms."""
    nodes = postorder(root, into=rational)
    if is_tensor(root) or len(nodes) > MAX_PART_NODES:
        return None
    try:
        return _Fraction.of(nodes, root, {}, {}, rational=rational)
    except Unreduced:
        return None


def _integral(num: fmpq_mpoly, den: fmpq_mpoly) -> tuple[fmpq_mpoly, fmpq_mpoly]:
    """num/den scaled so that both have integer coefficients with no common factor (and the
    denominator's leading one positive): (5/2*y + 1/2)/(x*y) as (5*y + 1)/(2*x*y)."""
    coefficients = [Fraction(int(c.p), int(c.q)) for c in [*num.coeffs(), *den.coeffs()]]
    scale = Fraction(math.lcm(*(c.denominator for c in coefficients)),
                     math.gcd(*(c.numerator for c in coefficients)) or 1)
    if den.coeffs() and den.coeffs()[0] < 0:
        scale = -scale
    factor = flint_number(scale)
    return num * factor, den * factor


MAX_ROOT_DIVISOR = 1000  # square factors d^2 of a number under a root: by trial division


def square_free(value: Fraction) -> tuple[Fraction, int]:
    """A positive value as outside^2 * inside, inside an integer without the square factors
    d^2 (d <= MAX_ROOT_DIVISOR) found in it, or 1 where the rest is a square; outside
    rational (sqrt(p/q) = sqrt(p*q)/q)."""
    inside, outside = value.numerator * value.denominator, 1
    for divisor in range(2, MAX_ROOT_DIVISOR + 1):
        if divisor * divisor > inside:
            break
        while inside % (divisor * divisor) == 0:
            inside, outside = inside // (divisor * divisor), outside * divisor
    if math.isqrt(inside) ** 2 == inside:
        inside, outside = 1, outside * math.isqrt(inside)
    return Fraction(outside, value.denominator), inside


def square_root_of(value: Fraction) -> Expr | None:
    """sqrt(value) of a positive rational as k*sqrt(m) by square_free: sqrt(8) is
    2*sqrt(2), sqrt(1/8) is sqrt(2)/4, sqrt(9/4) is 3/2; None where that is sqrt(value)
    itself."""
    if value <= 0:
        return None
    scale, inside = square_free(value)
    if inside == value:
        return None
    if inside == 1:
        return number(scale)
    root = make("sqrt", number(inside))
    top = root if scale.numerator == 1 else make("mul", number(scale.numerator), root)
    return top if scale.denominator == 1 else make("div", top, number(scale.denominator))


def decided_comparisons(term: Expr) -> Expr:
    """The term with each comparison of constants that bool() decides as the number it is
    (pi > 3 is 1), which the e-graph's sign analysis does not prove."""
    if not any(node.op in COMPARISONS and not node.free_symbols() for node in postorder(term)):
        return term

    def decided(node: Expr, args: list[Expr]) -> Expr:
        made = make(node.op, *args) if node.args else node
        if made.op in COMPARISONS and not made.free_symbols():
            try:
                return number(int(bool(made)))
            except EqsatError:  # too close to tell, or a side undefined
                pass
        return made

    return rebuild(term, decided)


def _foldable(node: Expr) -> bool:
    """Whether _fold_numbers may change the node: an op of numbers alone (x^(2 - 1) has an
    integer power once folded)."""
    return bool(node.args) and all(a.op == "num" for a in node.args)


def _fold_numbers(node: Expr, args: list[Expr]) -> Expr:
    """A + - * / or integer power of numbers as its number, where it is defined; the square
    root of a number with its square factors taken out (square_root_of)."""
    if not node.args:
        return node
    built = make(node.op, *args)
    if built.op == "sqrt" and args[0].is_number:
        return square_root_of(args[0].number) or built
    if not (built.op in RATIONAL_OPS and all(a.is_number for a in args)):
        return built
    fold = OPS[built.op].fold
    assert fold is not None  # every rational op folds
    value = fold.exact(*(a.number for a in args))
    if value is None:  # a division by 0
        return built
    try:
        return number(value)
    except LimitError:  # too many digits: left as written
        return built


def _cheapest_first(found: Iterable[Expr], cost: Cost) -> list[Expr]:
    distinct = list(dict.fromkeys(found))
    return sorted(distinct, key=cost)  # stable: root stays first among equals


class _Reducer:
    """Reduces the rational parts of one term; atoms are reduced before the parts above them."""

    def __init__(self, cost: Cost) -> None:
        self.cost = cost
        self.atom_forms: dict[Expr, Expr] = {}  # a non-rational node, its arguments reduced
        self.atom_keys: dict[Expr, Expr] = {}  # a non-rational node, its arguments canonical
        self._canonical: dict[Expr, Expr] = {}
        self.complete = True  # every part reduced so far
        self._best: dict[Expr, Expr] = {}

    def add_atom(self, node: Expr) -> None:
        """A non-rational node whose arguments have been met: its reduced form, and its key
        (equal for atoms whose arguments are equal as rational functions)."""
        self.atom_forms[node] = make(node.op, *map(self.best, node.args)) if node.args else node
        self.atom_keys[node] = make(node.op, *map(self.canonical, node.args)) \
            if node.args else node

    def canonical(self, node: Expr) -> Expr:
        """One form for all terms equal as rational functions of the same atoms: the reduced
        fraction expanded, over atoms in an order of their keys (a key, never shown)."""
        if not is_rational_node(node):
            return self.atom_keys[node]
        if not node.args:  # a symbol or a number is its own
            return node
        if node not in self._canonical:
            nodes = postorder(node, into=is_rational_node)
            try:
                if len(nodes) > MAX_PART_NODES:
                    raise Unreduced
                fraction = _Fraction.of(nodes, node, self.atom_keys, self.atom_keys, True)
                top = expanded_form(fraction.num, fraction.atoms)
                self._canonical[node] = top if fraction.den.is_one() else \
                    make("div", top, expanded_form(fraction.den, fraction.atoms))
            except (Unreduced, LimitError):
                self._canonical[node] = _as_written(nodes, node, self.atom_keys)
        return self._canonical[node]

    def best(self, node: Expr) -> Expr:
        """The cheapest form of a node whose atoms have been reduced."""
        if not is_rational_node(node):
            return self.atom_forms[node]
        if not node.args or in_lowest_terms(node):  # its own cheapest form
            return node
        if node not in self._best:
            self._best[node] = _cheapest_first(self.forms(node), self.cost)[0]
        return self._best[node]

    def forms(self, part: Expr) -> list[Expr]:
        """The rational part as written (atoms reduced), with its arguments in their best
        forms (small parts with a quotient), and its normal forms."""
        nodes = postorder(part, into=is_rational_node)  # atoms are its leaves
        found = [_as_written(nodes, part, self.atom_forms)]
        if len(nodes) <= MAX_PIECEWISE_NODES and part.args and \
                any(node.op == "div" for node in nodes):
            found.append(make(part.op, *map(self.best, part.args)))
        if len(nodes) > MAX_PART_NODES:
            self.complete = False
            return found
        try:
            fraction = _Fraction.of(nodes, part, self.atom_keys, self.atom_forms)
        except Unreduced:
            self.complete = False
            return found
        variants = [fraction, *fraction.squares_reduced()]
        return [*found, *(form for variant in variants for form in variant.written())]


def _as_written(nodes: list[Expr], part: Expr, atoms: dict[Expr, Expr]) -> Expr:
    """The part (nodes: its postorder, atoms as leaves) with each atom replaced as given."""
    done: dict[Expr, Expr] = {}
    for node in nodes:
        if not is_rational_node(node):
            done[node] = atoms[node]
        elif node.args:
            done[node] = make(node.op, *(done[a] for a in node.args))
        else:
            done[node] = node
    return done[part]


class _Fraction:
    """A reduced fraction num/den of polynomials in the atoms of a part."""

    def __init__(self, num: fmpq_mpoly, den: fmpq_mpoly, atoms: list[Expr],
                 keys: list[Expr]) -> None:
        self.num, self.den, self.atoms = num, den, atoms
        self.keys = keys  # each atom's key (see _Reducer.add_atom)

    @classmethod
    def of(cls, nodes: list[Expr], part: Expr, keys: dict[Expr, Expr],
           shown: dict[Expr, Expr], canonical: bool = False,
           rational: Callable[[Expr], bool] = is_rational_node) -> _Fraction:
        """The reduced fraction of a part (nodes: its postorder, atoms as leaves). An atom
        is one generator per key (sin(2*x) and sin(x*2) are one), written as shown;
        canonical: generators in an order of the keys alone (their hashes), not as met;
        rational: which nodes are parts of the fraction (the others are atoms)."""
        written: dict[Expr, Expr] = {}  # key -> the atom as shown
        for n in nodes:
            if n.op == "sym" or not rational(n):
                written.setdefault(keys.get(n, n), shown.get(n, n))
        # by hash, not by str: str writes a term with shared subterms out as a tree
        if len(written) > MAX_ATOMS:
            raise Unreduced
        order = sorted(written, key=hash) if canonical else list(written)
        gens, one = _generators(len(order))
        generators = dict(zip(order, gens, strict=True))
        values: dict[Expr, tuple[Any, Any]] = {}
        for node in nodes:
            if node.is_number:
                values[node] = (one * flint_number(node.number), one)
            elif node.op == "sym" or not rational(node):
                values[node] = (generators[keys.get(node, node)], one)
            else:
                values[node] = applied(node.op, [values[a] for a in node.args], node)
        num, den = values[part]
        num, den = normalised_pair(num, den)
        return cls(num, den, [written[key] for key in order], order)

    def squares_reduced(self) -> list[_Fraction]:
        """The fraction reduced by identities of squares among its atoms: sin(u)^2 +
        cos(u)^2 = 1 and cosh(u)^2 - sinh(u)^2 = 1 for each such pair (once with the first
        of each pair squared replaced, sin(u)^2 by 1 - cos(u)^2, once the second), and
        sqrt(c)^2 = c for a positive number c. Each holds for every real u. Empty where no
        identity applies or a polynomial would grow too large."""
        if not any(key.op in _SQUARED for key in self.keys):
            return []
        found = []
        radicals = self._radicals()
        for side in (0, 1):
            squares = {squared: 1 - sign * other**2 if side == 0 else sign * (1 - other**2)
                       for squared, other, sign in self._pairs(side)}
            squares.update(radicals)
            if not squares or (side == 1 and len(squares) == len(radicals)):
                continue  # the radicals alone: once is enough
            num, den = (squares_lowered(p, squares) for p in (self.num, self.den))
            if num is None or den is None or (num, den) == (self.num, self.den) or \
                    den.is_zero():  # (0 by the identities: a form defined nowhere)
                continue
            try:
                found.append(_Fraction(*normalised_pair(*reduced_pair(num, den)), self.atoms,
                                       self.keys))
            except Unreduced:
                continue
        return found

    def _radicals(self) -> dict[int, Any]:
        """For each atom sqrt(c) with c a positive number: its index, and c as a polynomial."""
        one = one_like(self.num)
        return {i: one * flint_number(key.args[0].number) for i, key in enumerate(self.keys)
                if key.op == "sqrt" and key.args[0].is_number and key.args[0].number > 0}

    def _pairs(self, side: int) -> list[tuple[int, Any, int]]:
        """(index of the atom whose square goes, the other atom's generator, sign) of each
        pair f, g with f^2 + sign*g^2 = 1: sign +1 for sin/cos, -1 for cosh/sinh. Side 0
        replaces f^2 by 1 - sign*g^2, side 1 replaces g^2 by sign*(1 - f^2)."""
        where = {key: i for i, key in enumerate(self.keys)}
        generators = self.num.context().gens()
        pairs = []
        for (first, second), sign in ((("sin", "cos"), 1), (("cosh", "sinh"), -1)):
            for atom, i in where.items():
                if atom.op != first:
                    continue
                j = where.get(make(second, *atom.args))
                if j is not None:
                    gone, kept = (i, j) if side == 0 else (j, i)
                    pairs.append((gone, generators[kept], sign))
        return pairs

    def written(self) -> list[Expr]:
        """The fraction written as one (top and bottom expanded, collected or factored), as a
        polynomial plus a proper fraction, and term by term over a monomial bottom."""
        try:
            tops = self._ways(self.num)
            if self.den.is_one():  # and over the coefficients' common denominator: (x + 1)/3
                common = math.lcm(*(c.denominator for c in terms_of(self.num).values()))
                if common > 1 and not self.num.is_constant():
                    tops += [make("div", top, number(common))
                             for top in self._ways(self.num * common)]
                return tops
            bottoms = self._ways(self.den)
            forms = [make("div", top, bottom) for top in tops for bottom in bottoms]
            quotient, remainder = divmod(self.num, self.den)
            if not quotient.is_zero() and not remainder.is_zero():
                forms += [plus(whole, make("div", part, bottom))
                          for whole in self._ways(quotient)
                          for part in self._ways(remainder) for bottom in bottoms]
            if len(self.den) == 1 and len(self.num) > 1:
                forms.append(self._term_by_term())
            return forms
        except LimitError:  # a coefficient too long to write
            return []

    def _term_by_term(self) -> Expr:
        """Each term of the top over the (monomial) bottom, reduced: (x^2 + 1)/x as x + 1/x."""
        found: Expr | None = None
        for exponents, value in terms_of(self.num).items():
            term = self.num.context().from_dict({exponents: flint_number(abs(value))})
            common = term.gcd(self.den)
            top = expanded_form(term / common, self.atoms)
            bottom = self.den / common
            part = top if bottom.is_one() else make("div", top, expanded_form(bottom, self.atoms))
            if found is None:
                found = make("neg", part) if value < 0 else part
            else:
                found = make("sub" if value < 0 else "add", found, part)
        assert found is not None  # the top has terms
        return found

    def _ways(self, poly: fmpq_mpoly) -> list[Expr]:
        terms = terms_of(poly)
        ways = [sum_form(terms, self.atoms)]  # expanded
        if collectable(terms):  # (else it is the sum)
            ways.append(collected_form(terms, self.atoms))
        if 1 < len(poly) <= MAX_FACTORED_TERMS:  # (a monomial is its own factored form)
            factored = poly.factor()
            content, factors = factored
            if content != 1 or len(factors) > 1 or factors[0][1] > 1:  # (else the sum's)
                ways.append(factored_form(poly, self.atoms, factored))
        return ways


