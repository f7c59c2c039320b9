"""Terms as an e-graph of the rules sees them: modulo associativity, commutativity and the
canonical forms (a - b is a + -1*b, a/b is a*b^-1, sqrt(a) is a^(1/2), E^a is exp(a)), and
a matcher that says whether a left side could match such a view.

A view (View) is a number, a symbol, or an op with arguments; a sum or a product is flat,
its operands in one fixed order, its numbers folded into one (a product's equal factors
gathered into an integer power). `could_match` errs on the side of a match: it is
asked whether an e-graph could find something to do, and a wrong "no" would lose an answer.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterator
from fractions import Fraction
from functools import cache, lru_cache
from itertools import combinations

import mpmath

from ..term.expr import Expr
from ..term.ops import OPS
from ..term.walks import postorder

N_ARY = ("add", "mul")
MAX_MATCH_STEPS = 2_000  # past this many tries, a left side is taken to match...
MAX_CHECK_STEPS = 20_000  # ...and past this many in all, a term is taken to have a match
MAX_NAMED_OPERANDS = 6  # a variable takes each sub-sum of up to this many operands by name
MAX_VALUED_OPERANDS = 8  # past this many operands their 2^n sub-sums are not valued: any could


class View:
    """A term modulo the canonical forms: an op, a number's value or a symbol's name, and
    arguments (a sum's or a product's in one fixed order). Its hash is computed once, the
    same in every process (strings by CRC-32, not Python's salted hash), so that the order
    of operands, and with it every search over them, is too."""

    __slots__ = ("_at_point", "_hash", "_split", "args", "op", "value")
    _hash: int
    _split: list[View] | None  # its operands with powers split (split_operands), once
    _at_point: float | None  # its value at the point of _could_make, once

    def __init__(self, op: str, value: Fraction | str | None = None,
                 args: tuple[View, ...] = ()) -> None:
        self.op, self.value, self.args = op, value, args
        self._split = self._at_point = None
        shown = zlib.crc32(value.encode()) if isinstance(value, str) else hash(value)
        self._hash = hash((_op_hash(op), shown, *(a._hash for a in args)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, View) and self._hash == other._hash
                                 and self.op == other.op and self.value == other.value
                                 and self.args == other.args)

    def __repr__(self) -> str:
        shown = self.value if self.value is not None else ", ".join(map(repr, self.args))
        return f"{self.op}({shown})"


ViewBinding = dict[str, View | None]  # None: bound to part of a sum or product (any value)


@cache
def _op_hash(op: str) -> int:
    return zlib.crc32(op.encode())


@lru_cache(maxsize=1024)
def num(value: Fraction | int) -> View:
    return View("num", Fraction(value))


def split_operands(view: View) -> list[View]:
    """split_powers of the view's operands (kept on the view: matching asks again and again)."""
    if view._split is None:
        view._split = split_powers(list(view.args))
    return view._split


def views(root: Expr) -> dict[Expr, View]:
    """The view of every subterm of root."""
    found: dict[Expr, View] = {}
    for node in postorder(root):
        found[node] = _view(node, [found[a] for a in node.args])
    return found


def canonical(op: str, value: Fraction | str | None, args: tuple[View, ...]) -> View:
    """The view of an op of views (a sum of sums flattened, numbers folded, ...)."""
    match op:
        case "add":
            return _sum(list(args))
        case "mul":
            return _product(list(args))
        case "pow" if args[0].op == "E":
            return View("exp", None, (args[1],))
        case "pow":
            return _power(args[0], args[1])
    return View(op, value, args)


def _view(node: Expr, args: list[View]) -> View:
    if node.is_number:
        return num(node.number)
    if node.is_symbol:
        return View("sym", node.name)
    match node.op:
        case "sub":
            return _sum([args[0], _product([num(-1), args[1]])])
        case "neg":
            return _product([num(-1), args[0]])
        case "div":
            return _product([args[0], _power(args[1], num(-1))])
        case "sqrt":
            return _power(args[0], num(Fraction(1, 2)))
    return canonical(node.op, None, tuple(args))


def _operands(op: str, args: list[View]) -> list[View]:
    flat: list[View] = []
    for arg in args:
        flat.extend(arg.args if arg.op == op else [arg])
    return flat


def _ordered(op: str, operands: list[View]) -> View:
    if len(operands) == 1:
        return operands[0]
    return View(op, None, tuple(sorted(operands, key=hash)))


def _sum(args: list[View]) -> View:
    operands = _operands("add", args)
    total = sum((o.value for o in operands if isinstance(o.value, Fraction)
                 and o.op == "num"), Fraction(0))
    has_number = any(o.op == "num" for o in operands)
    rest = [o for o in operands if o.op != "num"]
    if has_number and (total != 0 or not rest):
        rest.append(num(total))
    return _ordered("add", rest) if rest else num(0)


def _product(args: list[View]) -> View:
    operands = _operands("mul", args)
    coefficient = Fraction(1)
    powers: dict[View, list[View]] = {}  # base -> the factors with that base
    for operand in operands:
        if operand.op == "num" and isinstance(operand.value, Fraction):
            coefficient *= operand.value
        else:
            base = operand.args[0] if _integer_exponent(operand) is not None else operand
            powers.setdefault(base, []).append(operand)
    factors: list[View] = []
    for base, listed in powers.items():
        exponent = sum(1 if (e := _integer_exponent(f)) is None else e for f in listed)
        if len(listed) > 1 and exponent != 0:  # a*a is a^2; a*a^-1 stays (a/a is a rule's)
            factors.append(_power(base, num(exponent)))
        else:
            factors.extend(listed)
    if coefficient != 1 or not factors:
        factors.append(num(coefficient))
    return _ordered("mul", factors)


def _integer_exponent(view: View) -> int | None:
    """The exponent of an integer power, else None."""
    return _integer(view.args[1]) if view.op == "pow" else None


def _power(base: View, exponent: View) -> View:
    """base^exponent; an integer power of a nonzero integer power is one power ((a^2)^-1 is
    a^-2, as pow-pow-int makes it)."""
    outer, inner = _integer(exponent), _integer_exponent(base)
    if outer is not None and inner:
        base, exponent = base.args[0], num(inner * outer)
    if exponent == num(1):
        return base
    return View("pow", None, (base, exponent))


def _integer(view: View) -> int | None:
    value = view.value
    if view.op == "num" and isinstance(value, Fraction) and value.denominator == 1:
        return int(value)
    return None


def subviews(view: View) -> Iterator[View]:
    """Every node of a view, once each."""
    stack, seen = [view], {view}
    while stack:
        node = stack.pop()
        yield node
        for arg in node.args:
            if arg not in seen:
                seen.add(arg)
                stack.append(arg)


def operand_needs(pattern: View) -> frozenset[object]:
    """What the operands of a sum or product must show for a sum or product pattern to
    match there (see operand_tokens): each of its operands that is not a variable takes an
    operand of its own op (a number: of its value); empty for other patterns."""
    if pattern.op not in N_ARY:
        return frozenset()
    return frozenset(_token(p) for p in pattern.args if p.op != "sym")


def operand_tokens(view: View) -> frozenset[object]:
    """The ops (numbers: values) among a sum's or product's operands, its powers split as
    _match splits them, and "mul" where a power splits (a product pattern takes a^2 as a*a)."""
    operands = [*view.args, *split_operands(view)] if view.op == "mul" else \
        list(view.args)
    tokens = {_token(o) for o in operands}
    if any(len(split_powers([o])) > 1 for o in view.args):
        tokens.add("mul")
    return frozenset(tokens)


def _token(view: View) -> object:
    return ("num", view.value) if view.op == "num" else view.op


class Steps:
    """The tries a check of many left sides may take in all (see MAX_CHECK_STEPS)."""

    def __init__(self, limit: int = MAX_CHECK_STEPS) -> None:
        self.left = limit


def could_match(pattern: View, term: View, budget: Steps | None = None,
                result: View | None = None) -> bool:
    """Whether the pattern (a left side's view; its symbols are its variables) could match
    the term in an e-graph where the term's class holds every equal view: a sum or product
    pattern matches any of the term's operands it names (the others are a sub-sum that
    associativity makes), a variable among them any one or more of them. result: the
    rule's right side (a view), where only a match that the rule changes counts (pow-add
    at a^-1*a^-1 makes a^-2, the view the term has). Past MAX_MATCH_STEPS tries, or past
    what the budget has left, the answer is yes."""
    budget = budget or Steps()
    steps = [0]
    try:
        return any(result is None or _changed(pattern, result, binding)
                   for binding in _match(pattern, term, {}, steps, top=True))
    except _TooLong:
        return True
    finally:
        budget.left -= steps[0]


def _changed(pattern: View, result: View, binding: ViewBinding) -> bool:
    """Whether the rewrite from pattern to result under the binding changes the view (yes
    where a variable is bound to part of a sum or product, whose view is not known)."""
    if None in binding.values():
        return True
    return _instance(pattern, binding) != _instance(result, binding)


def _instance(view: View, binding: ViewBinding) -> View | None:
    """The view with its variables replaced by their bindings."""
    if view.op == "sym":
        return binding.get(str(view.value))
    if not view.args:
        return view
    args = tuple(_instance(a, binding) for a in view.args)
    return None if None in args else canonical(view.op, view.value, args)  # type: ignore[arg-type]


def tried_out(budget: Steps) -> bool:
    """Whether the budget is spent."""
    return budget.left <= 0


class _TooLong(Exception):
    """The search passed MAX_MATCH_STEPS."""


def _match(pattern: View, term: View, binding: ViewBinding, steps: list[int],
           top: bool = False) -> Iterator[ViewBinding]:
    """The bindings under which the pattern matches the term; top: the term is where the
    rule would fire, so a sum or product pattern may match a sub-sum (sub-product) of it.
    Below the top a pattern matches a whole class: its operands take all of the term's."""
    steps[0] += 1
    if steps[0] > MAX_MATCH_STEPS:
        raise _TooLong
    if pattern.op == "sym":
        yield from _bind(str(pattern.value), term, binding)
    elif pattern.op == "num" or not pattern.args:
        if pattern == term:
            yield binding
    elif pattern.op == "mul" and term.op != "mul":  # a^2 is a*a (square), a^3 a*a*a ...
        split = split_powers([term]) if term.op == "pow" else []
        if len(split) > 1:
            yield from _match_operands("mul", list(pattern.args), split, binding, steps, top)
    elif pattern.op != term.op:
        return
    elif pattern.op in N_ARY:
        yield from _match_operands(pattern.op, list(pattern.args), list(term.args), binding,
                                   steps, top)
        split = split_operands(term) if pattern.op == "mul" else list(term.args)
        if len(split) > len(term.args):
            yield from _match_operands(pattern.op, list(pattern.args), split, binding, steps,
                                       top)
    elif len(pattern.args) == len(term.args):
        yield from _match_args(pattern.args, term.args, binding, steps)
        if power_part(pattern, term):  # a^4 holds a^2 (times a^2)
            yield from _match(pattern.args[0], term.args[0], binding, steps)


MAX_SPLIT_POWER = 4  # a product's factor a^n, |n| up to this, may stand for |n| factors


def power_part(pattern: View, term: View) -> int:
    """Where the pattern is a^k and the term b^n, n > k >= 2 integers: n - k, the power of b
    left over when a^k matches part of it; else 0."""
    k, n = _integer_exponent(pattern), _integer_exponent(term)
    return n - k if k is not None and n is not None and 2 <= k < n else 0


def split_powers(factors: list[View]) -> list[View]:
    """The factors with each small integer power written as that many factors (a^-2 and
    (a^2)^-1 as two factors a^-1)."""
    split: list[View] = []
    for factor in factors:
        exponent = _integer_exponent(factor)
        base = factor.args[0] if exponent is not None else factor
        inner = _integer_exponent(base)  # (b^n)^m is b^(n*m) for integers n and m
        if exponent is not None and inner is not None:
            base, exponent = base.args[0], inner * exponent
        if exponent is None or not 2 <= abs(exponent) <= MAX_SPLIT_POWER:
            split.append(factor)
            continue
        split += [base if exponent > 0 else _power(base, num(-1))] * abs(exponent)
    return split


def _bind(name: str, term: View | None, binding: ViewBinding) -> Iterator[ViewBinding]:
    if name not in binding:
        yield {**binding, name: term}
    elif binding[name] is None or term is None or binding[name] == term:
        yield binding


def _match_args(patterns: tuple[View, ...], terms: tuple[View, ...],
                binding: ViewBinding, steps: list[int]) -> Iterator[ViewBinding]:
    if not patterns:
        yield binding
        return
    for found in _match(patterns[0], terms[0], binding, steps):
        yield from _match_args(patterns[1:], terms[1:], found, steps)


def _match_operands(op: str, patterns: list[View], terms: list[View], binding: ViewBinding,
                    steps: list[int], leftovers: bool) -> Iterator[ViewBinding]:
    """Each pattern operand takes a term operand of its own (variables last: one may take
    several). With leftovers, operands may be left over (a sub-sum); without, they may not,
    and a lone variable takes exactly the sum (product) of those the others left."""
    fixed = [p for p in patterns if p.op != "sym"]
    # variables bound before first: one bound to y in y*x*c must take y, the next x*c
    variables = sorted((p for p in patterns if p.op == "sym"),
                       key=lambda p: str(p.value) not in binding)
    if len(patterns) > len(terms):
        return
    if fixed:
        first, rest = fixed[0], fixed[1:] + variables
        for index, term in enumerate(terms):
            for found in _match(first, term, binding, steps):
                yield from _match_operands(op, rest, terms[:index] + terms[index + 1:], found,
                                           steps, leftovers)
        return
    if not variables:
        if leftovers or not terms:
            yield binding
        return
    first_name = str(variables[0].value)
    if not leftovers and len(variables) == 1:
        yield from _bind(first_name, terms[0] if len(terms) == 1 else
                         _sum(terms) if op == "add" else _product(terms), binding)
        return
    for index, term in enumerate(terms):
        for found in _bind(first_name, term, binding):
            yield from _match_operands(op, variables[1:], terms[:index] + terms[index + 1:],
                                       found, steps, leftovers)
    if first_name not in binding and len(terms) <= MAX_NAMED_OPERANDS:
        # it takes each sub-sum (product) of two or more, the others one or more of the rest
        for size in range(2, len(terms) - len(variables) + 2):
            for chosen in combinations(range(len(terms)), size):
                steps[0] += 1
                if steps[0] > MAX_MATCH_STEPS:
                    raise _TooLong
                taken = [terms[i] for i in chosen]
                whole = _sum(taken) if op == "add" else _product(taken)
                yield from _match_operands(op, variables[1:],
                                           [t for i, t in enumerate(terms) if i not in chosen],
                                           {**binding, first_name: whole}, steps, leftovers)
        return
    bound = binding.get(first_name)
    if len(terms) > len(variables) and (bound is None or (bound.op != "num" and
                                                          _could_make(op, bound, terms))):
        # it takes a sub-sum (product) of several operands; not where it is bound to a
        # number: numbers are folded into one operand, and the others are not numbers (a
        # product of them that rules make a number, as x*x^-1, is those rules' match);
        # nor where no sum (product) of them has its term's value at a point
        for found in _bind(first_name, None, binding):
            yield from _match_operands(op, variables[1:], terms[len(variables):], found,
                                       steps, True)


def _could_make(op: str, bound: View, operands: list[View]) -> bool:
    """Whether a sum (op "add") or product of two or more of the operands could be in the
    e-class of the bound term: an e-class holds only equal terms (the rules are sound), so
    not where each such sum or product has a value unlike the term's at one point (each
    symbol a number drawn from its name); where a value is undefined there, it could."""
    if len(operands) > MAX_VALUED_OPERANDS:
        return True
    wanted = _value(bound)
    found = [_value(operand) for operand in operands]
    if not all(map(math.isfinite, [wanted, *found])):
        return True
    combine = math.fsum if op == "add" else math.prod
    return any(math.isclose(combine(chosen), wanted, rel_tol=1e-6, abs_tol=1e-9)
               for size in range(2, len(found) + 1) for chosen in combinations(found, size))


def _value(view: View) -> float:
    """The view's value at the point of _could_make (nan where undefined or not real)."""
    if view._at_point is not None:
        return view._at_point
    if view.op == "num":
        found = float(view.value)  # type: ignore[arg-type]
    elif view.op == "sym":
        found = 0.2 + 0.7 * (zlib.crc32(str(view.value).encode()) % 1000) / 1000
    else:
        args = [_value(a) for a in view.args]
        reference = OPS[view.op].reference if view.op in OPS else None
        if view.op in N_ARY:
            found = math.fsum(args) if view.op == "add" else math.prod(args)
        elif reference is None or not all(map(math.isfinite, args)):
            found = math.nan
        else:
            try:
                found = float(reference(*map(mpmath.mpf, args)))
            except (TypeError, ValueError, ArithmeticError):  # complex, or undefined
                found = math.nan
    view._at_point = found
    return found
