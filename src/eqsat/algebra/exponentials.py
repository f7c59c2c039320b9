"""Exponentials of multiples of one term as powers of one exponential, and back: exp(2*x)
and exp(3*x) as exp(x)^2 and exp(x)^3, so that the rational normal forms see their relation."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from ..term.expr import Expr, chained, make, number, signed_sum, tidy
from ..term.walks import multiplicands, postorder, rebuild, summands


def as_powers(root: Expr) -> Expr:
    """root with each exp(c*u) (c a rational number, u not a number) written exp(g*u)^(c/g),
    g the greatest common divisor of the multiples c of the same u met in root, wherever two
    differ: 1/exp(2*x) + 1/exp(3*x) as 1/exp(x)^2 + 1/exp(x)^3. exp(k*v) = exp(v)^k for every
    integer k and real v."""
    multiples: dict[Expr, set[Fraction]] = {}
    for node in postorder(root):
        if node.op == "exp" and (found := _multiple(node.args[0])) is not None:
            multiples.setdefault(found[1], set()).add(found[0])
    units = {term: _divisor(found) for term, found in multiples.items() if len(found) > 1}
    if not units:
        return root

    def build(node: Expr, args: list[Expr]) -> Expr:
        made = make(node.op, *args) if node.args else node
        if node.op != "exp" or (before := _multiple(node.args[0])) is None or \
                before[1] not in units:
            return made
        after = _multiple(args[0])
        assert after is not None  # the same multiple, its term rebuilt
        unit = units[before[1]]
        power = make("exp", _times(unit, after[1]))
        return power if after[0] == unit else make("pow", power, number(after[0] / unit))

    return rebuild(root, build)


def as_exponentials(root: Expr) -> Expr:
    """root with each exp(v)^k (k an integer) written exp(k*v): as_powers undone."""
    def build(node: Expr, args: list[Expr]) -> Expr:
        made = make(node.op, *args) if node.args else node
        if made.op != "pow" or made.args[0].op != "exp" or not made.args[1].is_number or \
                made.args[1].number.denominator != 1:
            return made
        inner = made.args[0].args[0]
        found = _multiple(inner)
        scale, term = found if found is not None else (Fraction(1), inner)
        return make("exp", _times(scale * made.args[1].number, term))

    return rebuild(root, build)


def spread(root: Expr, combine: Callable[[Expr], Expr]) -> Expr:
    """root with each product of exponentials made one exponential, its exponent their
    exponents' sum put through combine (normal forms), and a product of one sum (or
    difference) with exponentials distributed over the sum first where a term of it has one
    as a factor: (-exp(y) - exp(x - 5))*exp(-(x - 1)) as -exp(y - x + 1) - exp(-4), (w -
    exp(x))*exp(-x) as w*exp(-x) - 1 (exp(x) alone overflows where neither term does).
    exp(a)*exp(b) = exp(a + b) and distributing are identities wherever the product is
    defined."""
    def build(node: Expr, args: list[Expr]) -> Expr:
        made = make(node.op, *args) if node.args else node
        if made.op != "mul":
            return made
        factors = multiplicands(made)
        exponents = [f.args[0] for f in factors if f.op == "exp"]
        sums = [f for f in factors if f.op in ("add", "sub", "neg")]
        if not exponents or len(sums) > 1 or (not sums and len(exponents) < 2) or \
                (sums and not any(any(f.op == "exp" for f in multiplicands(term))
                                  for term, _ in summands(sums[0]))):
            return made
        rest = [f for f in factors if f.op != "exp" and f not in sums]
        if not sums:
            return _product([*rest, _exp(combine(chained("add", exponents)))])
        return _product([*rest, _spread_over(sums[0], chained("add", exponents), combine)])

    return rebuild(root, build)


def near_one(root: Expr) -> list[tuple[Expr, Expr]]:
    """(sum, its form) for each sum in root of two or more exponentials (each alone or times
    a number), each written 1 + expm1 of its exponent and the sum's numbers added first:
    exp(x) - exp(y) + exp(z) as 1 + (expm1(x) - expm1(y) + expm1(z)), which cancels nowhere
    where the exponents are tiny (its log is then log1p's). exp(a) = 1 + expm1(a) for every
    a."""
    inner = {arg for node in postorder(root) if node.op in ("add", "sub", "neg")
             for arg in node.args if arg.op in ("add", "sub", "neg")}
    forms = []
    for node in postorder(root):
        if node.op not in ("add", "sub") or node in inner:
            continue
        parts = [(term, sign, _scaled_exp(term)) for term, sign in summands(node)]
        if sum(found is not None for _, _, found in parts) < 2:
            continue
        total, rest = Fraction(0), []
        for term, sign, found in parts:
            if term.is_number:
                total += sign * term.number
            elif found is None:
                rest.append((term, sign))
            else:
                total += sign * found[0]
                rest.append((_times(found[0], make("expm1", found[1])), sign))
        written = signed_sum(rest)
        forms.append((node, written if total == 0 else make("add", number(total), written)))
    return forms


def log_sums(root: Expr) -> list[tuple[Expr, Expr]]:
    """(log, its form) for each log in root of a sum of three or more exponentials (each
    alone or times a number), some of them subtracted: the log of the others' sum, L, by
    logaddexp one term at a time, plus log1mexp of the subtracted ones' less L:
    log(exp(a) + exp(b) - exp(c) - exp(d)) as logaddexp(a, b) + log1mexp(logaddexp(c, d) -
    logaddexp(a, b)), where no exponential over- or underflows alone. Equal where the log
    is defined (the sum positive: the subtracted ones' log is less than L); k*exp(a) (k > 0)
    is exp(a + log(k))."""
    forms = []
    for node in postorder(root):
        if node.op != "log" or node.args[0].op not in ("add", "sub"):
            continue
        kept: list[Expr] = []
        taken: list[Expr] = []
        for term, sign in summands(node.args[0]):
            found = _scaled_exp(term)
            if found is None:
                break
            scale, exponent = found
            if abs(scale) != 1:
                exponent = make("add", exponent, make("log", number(abs(scale))))
            (kept if sign * scale > 0 else taken).append(exponent)
        else:
            if len(kept) + len(taken) < 3 or not kept:
                continue
            total = _logaddexp(kept)
            forms.append((node, total if not taken else make(
                "add", total, make("log1mexp", make("sub", _logaddexp(taken), total)))))
    return forms


MOST_FACTORS = 8  # an integer power taken into an exponential's product a factor at a time


def powers_into_exponential(root: Expr) -> list[tuple[Expr, Expr]]:
    """(product, its form) for each product in root of an exponential and a power to a whole
    exponent from 2 to MOST_FACTORS: the power's base multiplied in one factor at a time,
    x^3*exp(-x^2/2) as x*(x*(x*exp(-x^2/2))), each partial product in range where x^3
    overflows and the exponential underflows (their product, inf*0, is NaN). a^n*e =
    a*(a^(n - 1)*e) for every a when n >= 2."""
    forms = []
    for node in postorder(root):
        if node.op != "mul":
            continue
        factors = multiplicands(node)
        exponential = next((f for f in factors if f.op == "exp"), None)
        power = next((f for f in factors if f.op == "pow" and f.args[1].is_number
                      and f.args[1].number.denominator == 1
                      and 2 <= f.args[1].number <= MOST_FACTORS), None)
        if exponential is None or power is None:
            continue
        found = exponential
        for _ in range(int(power.args[1].number)):
            found = make("mul", power.args[0], found)
        rest = [f for f in factors if f is not exponential and f is not power]
        forms.append((node, _product([*rest, found]) if rest else found))
    return forms


def _logaddexp(exponents: list[Expr]) -> Expr:
    """log(exp(a) + exp(b) + ...) as logaddexp(a, logaddexp(b, ...)); a alone is a."""
    found = exponents[-1]
    for exponent in reversed(exponents[:-1]):
        found = make("logaddexp", exponent, found)
    return found


def _scaled_exp(term: Expr) -> tuple[Fraction, Expr] | None:
    """(c, a) where term is c*exp(a) (c a nonzero number: exp(a), 2*exp(a), exp(a)/2, -exp(a));
    None otherwise."""
    found = _multiple(term)
    return (found[0], found[1].args[0]) if found is not None and found[1].op == "exp" else None


def _spread_over(sum_: Expr, exponent: Expr, combine: Callable[[Expr], Expr]) -> Expr:
    """The sum with each term times exp(exponent), exponentials combined (see spread)."""
    if sum_.op in ("add", "sub"):
        return make(sum_.op, *(_spread_over(term, exponent, combine) for term in sum_.args))
    if sum_.op == "neg":
        return make("neg", _spread_over(sum_.args[0], exponent, combine))
    factors = multiplicands(sum_)
    exponents = [f.args[0] for f in factors if f.op == "exp"]
    return _product([*(f for f in factors if f.op != "exp"),
                     _exp(combine(chained("add", [*exponents, exponent])))])


def _exp(exponent: Expr) -> Expr:
    return number(1) if exponent.is_number and exponent.number == 0 else make("exp", exponent)


def _product(factors: list[Expr]) -> Expr:
    found = factors[0]
    for factor in factors[1:]:
        found = tidy("mul", [found, factor])
    return found


def _multiple(argument: Expr) -> tuple[Fraction, Expr] | None:
    """(c, u) with argument = c*u, c a rational number and u not a number; None for a
    number (exp(3) is its own atom)."""
    if argument.is_number:
        return None
    scale, term = Fraction(1), argument
    while True:
        if term.op == "neg":
            scale, term = -scale, term.args[0]
        elif term.op == "mul" and term.args[0].is_number:
            scale, term = scale * term.args[0].number, term.args[1]
        elif term.op == "mul" and term.args[1].is_number:
            scale, term = scale * term.args[1].number, term.args[0]
        elif term.op == "div" and term.args[1].is_number and term.args[1].number != 0:
            scale, term = scale / term.args[1].number, term.args[0]
        else:
            break
    return None if scale == 0 or term.is_number else (scale, term)


def _divisor(values: set[Fraction]) -> Fraction:
    """The greatest rational dividing each value an integer number of times."""
    return Fraction(math.gcd(*(v.numerator for v in values)),
                    math.lcm(*(v.denominator for v in values)))


def _times(scale: Fraction, term: Expr) -> Expr:
    """scale*term as written by hand: x, -x, 3*x, x/2, 3*x/2."""
    if scale.denominator != 1:
        return make("div", _times(Fraction(scale.numerator), term), number(scale.denominator))
    if scale == 1:
        return term
    if scale == -1:
        return make("neg", term)
    return make("mul", number(scale), term)
