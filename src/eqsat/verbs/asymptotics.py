"""series and limit: an expression's expansion near a point, and where it tends there
(algebra/series.py: the expansions stabilize's regimes use too)."""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import mpmath
import sympy

from ..algebra.expander import Expander, factors
from ..algebra.growth import Exponential, Value, as_series, sign_of
from ..algebra.normal import normalise
from ..algebra.series import LOG_T, Allowance, NoSeries, Series, allowance, sign_near
from ..errors import ArgumentError, EqsatError, LimitError
from ..extract import CostModel
from ..extract.order import display_order
from ..limits.budget import Backstop, Limits
from ..term import arguments
from ..term.expr import Expr, as_expr, make, number
from ..term.inputs import ExprInput, Variable, to_expr
from ..term.ops import JUMPS, OPS
from ..term.reference import reference
from ..term.shape import is_tensor
from ..term.sympy_bridge import from_sympy, to_sympy
from ..term.walks import has_non_values, postorder, sizes, summands
from .derivatives import variable_in
from .simplify import simplify

SERIES_WORK = 200_000  # coefficient operations one series or limit may spend
LARGEST_COEFFICIENT = 4_000  # operations in one coefficient
TRIES = 4  # expansions, each to more terms, before a series or a limit gives up
MAX_DEPTH = 200  # nesting of an expression expanded (the expansion recurses)
Point = Expr | str | int | float | Fraction
BOUNDED = frozenset({"sin", "cos", "tanh", "atan", "erf", "erfc", "sigmoid"})  # on all reals

_INFINITE = {"oo": sympy.oo, "+oo": sympy.oo, "-oo": -sympy.oo}


def series(expr: ExprInput, x: Variable, x0: Point = 0, n: int = 6, dir: str = "+", *,
           order: bool = True, assume: Mapping[str, str | Iterable[str]] | None = None,
           limits: Limits | None = None) -> Expr:
    """The terms of expr's expansion in x near x0 with powers of (x - x0) below n, and the
    order term O((x - x0)^n) for the rest, as SymPy's series: series("exp(x)", "x", 0, 3) is
    1 + x + x^2/2 + O(x^3). At x0 = "oo" or "-oo" the powers are of 1/x. Taylor, Laurent
    and Puiseux terms with exact coefficients, log(x - x0) where it appears (x*log(x)); dir:
    "+" from above, "-" from below (abs(x) at 0 from below is -x). order=False: the terms
    alone. An EqsatError where there is no such expansion (sin(1/x) at 0). The work is
    bounded by counts; the time limit (limits.seconds) is a backstop, a LimitError where it
    cuts the expansion short (exact coefficients such as tan(1)'s can grow slowly)."""
    parsed, variable, point = _arguments(expr, x, x0, assume)
    count = arguments.count(n, "n, the order of a series")
    side = _side(dir, point, both=False)
    if variable not in parsed.free_symbols():
        return make("add", parsed, _order_term(variable, point, side, count)) if order \
            else parsed
    limits = Limits.of(limits)
    with _timed("series", limits) as stop:
        found = _expanded(parsed, variable, point, side, count,
                          lambda s: isinstance(s, Exponential) or s.order >= count, stop)
    if isinstance(found, Exponential) and found.grows:
        raise EqsatError(f"no series of {parsed} in {variable} at {_near(point, side)}: it "
                         "grows faster than every power")
    return _assembled(as_series(found, "a series"), variable, point, side, count, order)


def limit(expr: ExprInput, x: Variable, x0: Point, dir: str = "+", *,
          assume: Mapping[str, str | Iterable[str]] | None = None,
          limits: Limits | None = None) -> Expr:
    """Where expr tends as x tends to x0, as SymPy's limit: limit("sin(x)/x", "x", 0) is 1;
    dir "+" from above, "-" from below, "+-" both (an error where they differ); x0 may be
    "oo" or "-oo"; the limit may be oo or -oo (an Expr that is not a value). Through the
    expansion at x0 (algebra/expander.py: series, and exponentials whose fastest growth
    decides), or a bounded factor times one tending to 0; an EqsatError saying why where
    that does not decide it (never a guess). The time limit is a backstop, as series'."""
    parsed, variable, point = _arguments(expr, x, x0, assume)
    if variable not in parsed.free_symbols():
        return parsed
    with _timed("limit", Limits.of(limits)) as stop:
        if dir == "+-" and point not in (sympy.oo, -sympy.oo):
            above, below = (_one_sided(parsed, variable, point, side, stop) for side in (1, -1))
            if above != below:
                raise EqsatError(f"limit: {parsed} tends to {below} from below {x0} and to "
                                 f"{above} from above: no two-sided limit")
            found = above
        else:
            found = _one_sided(parsed, variable, point, _side(dir, point, both=True), stop)
    return found if has_non_values(found) else simplify(found)


@contextmanager
def _timed(verb: str, limits: Limits) -> Iterator[Backstop]:
    """The backstop of a series' or a limit's expansions; an EqsatError raised after it has
    cut them short becomes a LimitError that says so."""
    stop = Backstop(time.perf_counter() + limits.seconds)
    try:
        yield stop
    except EqsatError as error:
        if stop.cut:
            raise LimitError(f"{verb}: the time limit of {limits.stated_seconds:g} s ran out while "
                             "expanding (exact coefficients grow); raise it with "
                             "limits=eqsat.Limits(seconds=...)") from error
        raise


def _arguments(expr: ExprInput, x: Variable, x0: Point,
               assume: Mapping[str, str | Iterable[str]] | None) -> tuple[Expr, Expr, Any]:
    parsed = to_expr(expr, assume)
    if is_tensor(parsed):
        raise EqsatError(f"series and limit take a scalar expression, not {parsed}")
    if sizes(parsed)[1] > MAX_DEPTH:
        raise LimitError(f"series and limit expand expressions nested at most {MAX_DEPTH} "
                         f"deep; this one is {sizes(parsed)[1]}")
    variable = variable_in(parsed, x)
    return parsed, variable, _point(x0, variable, assume)


def _point(x0: Point, variable: Expr, assume: Mapping[str, str | Iterable[str]] | None) -> Any:
    """The point as a SymPy value free of the variable, or +-oo."""
    if isinstance(x0, str) and x0.strip() in _INFINITE:
        return _INFINITE[x0.strip()]
    if isinstance(x0, bool) or not isinstance(x0, (Expr, str, numbers.Real)):
        raise ArgumentError(f"the point is a number, text or an Expr, not "
                            f"{type(x0).__name__} {x0!r:.40}")
    if isinstance(x0, numbers.Real) and not math.isfinite(float(x0)):
        return sympy.oo if float(x0) > 0 else -sympy.oo
    found = as_expr(x0) if isinstance(x0, numbers.Real) else to_expr(x0, assume, non_values=True)
    if found.op == "oo" or (found.op == "neg" and found.args[0].op == "oo"):
        return sympy.oo if found.op == "oo" else -sympy.oo
    if variable in found.free_symbols():
        raise ArgumentError(f"the point {found} depends on {variable}")
    return to_sympy(to_expr(found))


def _side(dir: str, point: Any, both: bool) -> int:
    if dir not in ("+", "-") and not (both and dir == "+-"):
        raise ArgumentError(f"dir is '+' (from above), '-' (from below) or, for a limit, "
                            f"'+-' (both), not {dir!r}")
    if point in (sympy.oo, -sympy.oo):
        return 1  # (x = +-1/t, t > 0 either way)
    return 1 if dir == "+" else -1


def _expanded(expr: Expr, variable: Expr, point: Any, side: int, wanted: int,
              enough: Callable[[Value], bool], stop: Backstop) -> Value:
    """The expansion (a series, or a value growing faster than every power), to more terms
    until `enough` says it has what is wanted (at most TRIES times); an EqsatError saying why
    where there is none."""
    precision = wanted + 4
    try:
        with allowance(Allowance(SERIES_WORK, stop, precision=precision, exact=True,
                                 largest=LARGEST_COEFFICIENT)) as spent:
            for _ in range(TRIES):
                spent.precision = precision
                found = Expander(variable.name, point, side, asymptotic=True).value(expr)
                if enough(found):
                    return found
                assert isinstance(found, Series)
                known = found.order if found.order != math.inf else precision
                precision += max(int(wanted - known), 0) + 8
    except NoSeries as reason:
        raise EqsatError(f"no series of {expr} in {variable} at {_near(point, side)}: "
                         f"{reason}") from None
    except RecursionError:
        raise LimitError(f"{expr} is nested too deep to expand") from None
    raise EqsatError(f"no series of {expr} in {variable} at {_near(point, side)} was found "
                     f"within {TRIES} expansions: every term it found cancels")


def _near(point: Any, side: int) -> str:
    return str(point) if point in (sympy.oo, -sympy.oo) else \
        f"{point} from {'above' if side > 0 else 'below'}"


def _log_t(variable: Expr, point: Any, side: int) -> Any:
    """log(t), t the expansion variable (see algebra/series.py), as SymPy's in x."""
    x = to_sympy(variable)
    if point in (sympy.oo, -sympy.oo):
        return -sympy.log(x if point == sympy.oo else -x)
    return sympy.log(x - point if side > 0 else point - x)


def _assembled(found: Series, variable: Expr, point: Any, side: int, n: int,
               order: bool) -> Expr:
    """The terms below n in increasing powers of t, then O(t^n); each written as a
    coefficient times a power of x - x0 (of 1/x at infinity), a negative one subtracted."""
    log_t = _log_t(variable, point, side)
    total: Expr | None = None
    for power, coefficient in sorted(found.coefficients.items()):
        if power >= n:
            break
        base, exponent, sign = _base(variable, point, side, power)
        signed = sign * coefficient.xreplace({LOG_T: log_t})
        negative, magnitude = _term(signed, base, exponent)
        if total is None:
            total = _negated(magnitude) if negative else magnitude
        else:
            total = make("sub" if negative else "add", total, magnitude)
    if order:
        tail = _order_term(variable, point, side, n)
        return tail if total is None else make("add", total, tail)
    return total if total is not None else number(0)


def _negated(magnitude: Expr) -> Expr:
    """-magnitude, the sign on its first factor: -pi/2, not -(pi/2)."""
    if magnitude.op in ("mul", "div"):
        return make(magnitude.op, _negated(magnitude.args[0]), magnitude.args[1])
    return make("neg", magnitude)


def _base(variable: Expr, point: Any, side: int, power: Fraction) -> tuple[Expr, Fraction, int]:
    """t^power as sign * base^exponent, base in x: x - x0 (x0 - x for a fractional power
    from below), x at +oo and -x at -oo for a fractional power (t = 1/x, -1/x)."""
    integer = power.denominator == 1
    if point in (sympy.oo, -sympy.oo):
        negated = point == -sympy.oo
        if negated and not integer:
            return make("neg", variable), -power, 1
        return variable, -power, -1 if negated and int(power) % 2 else 1
    near = from_sympy(point)
    if point == 0:
        base = variable if side > 0 or integer else make("neg", variable)
    else:
        base = make("sub", variable, near) if side > 0 or integer else \
            make("sub", near, variable)
    return base, power, -1 if side < 0 and integer and int(power) % 2 else 1


def _term(coefficient: Any, base: Expr, exponent: Fraction) -> tuple[bool, Expr]:
    """coefficient * base^exponent as (whether it is subtracted, its magnitude): 2*x^3/3,
    1/(5*x^5), x^2*log(x)^2/2, sin(a)*(x - 1)^2, log(x)/x."""
    ratio, rest = coefficient.as_coeff_Mul()  # a rational number times the rest
    negative = bool(ratio < 0)
    ratio = abs(ratio)
    if exponent == 0:
        return negative, _shown(ratio * rest)
    raised = base if exponent in (1, -1) else make("sqrt", base) if abs(exponent) == \
        Fraction(1, 2) else make("pow", base, number(abs(exponent)))
    top, bottom = number(int(ratio.p)), number(int(ratio.q))
    factor = None if rest == 1 else _shown(rest)
    if exponent < 0:  # p*rest/(q*b^k)
        above = factor if factor is not None and ratio.p == 1 else \
            top if factor is None else make("mul", top, factor)
        under = raised if ratio.q == 1 else make("mul", bottom, raised)
        return negative, make("div", above, under)
    above = raised if factor is None else make("mul", raised, factor)
    above = above if ratio.p == 1 else make("mul", top, above)
    return negative, above if ratio.q == 1 else make("div", above, bottom)


def _shown(value: Any) -> Expr:
    """A SymPy value as eqsat writes it: its cheapest normal form, in display order."""
    return display_order(normalise(from_sympy(value), CostModel().tree_cost).forms[0])


def _order_term(variable: Expr, point: Any, side: int, n: int) -> Expr:
    if point in (sympy.oo, -sympy.oo):
        return make("O", make("div", number(1), make("pow", variable, number(n))))
    near = variable if point == 0 else make("sub", variable, from_sympy(point))
    return make("O", make("pow", near, number(n)))


def _one_sided(expr: Expr, variable: Expr, point: Any, side: int, stop: Backstop) -> Expr:
    """The limit from one side: the value at a finite point where expr is continuous (see
    _continuous_at), else from the leading term of the series (in t -> 0+), or 0 for a
    bounded factor times one that tends to 0 (see _squeezed)."""
    if point not in (sympy.oo, -sympy.oo) and \
            (value := _continuous_at(expr, variable, from_sympy(point))) is not None:
        return simplify(value)  # (as the series' leading coefficient is: abs(0) is 0)
    try:
        found = _expanded(expr, variable, point, side, 2,
                          lambda s: isinstance(s, Exponential) or bool(s.coefficients)
                          or s.flat, stop)
    except EqsatError as error:
        if stop.cut:  # (the time is out: no other way is tried)
            raise
        if _squeezed(expr, variable, point, side, stop):
            return number(0)
        if (summed := _term_by_term(expr, variable, point, side, stop)) is not None:
            return summed
        from_parts = _power_limit(expr, variable, point, side, stop) if expr.op == "pow" \
            else _monotone_limit(expr, variable, point, side, stop) \
            if expr.op in AT_INFINITIES or expr.op == "neg" else None
        if from_parts is not None:
            return from_parts
        raise EqsatError(f"limit: cannot decide where {expr} tends as {variable} -> "
                         f"{_near(point, side)}; {error}") from None
    if isinstance(found, Exponential):  # beyond every power
        if not found.grows:
            return number(0)
        return _infinity(_known(sign_of(found), found.factor.leading()[1], expr))
    if found.flat:  # smaller than every power of t
        return number(0)
    power, coefficient = found.leading()
    if power > 0:
        return number(0)
    if power < 0:
        return _infinity(_known(sign_of(found), coefficient, expr))
    return _at_log_t(coefficient, expr)


def _continuous_at(expr: Expr, variable: Expr, near: Expr) -> Expr | None:
    """expr at the point, where each of its ops is continuous at its operands' values there
    (each well inside the op's domain, CLEAR of its edges, poles and jumps, as values to
    REFERENCE_DIGITS show them; a power whose exponent varies, of a positive base): there
    the limit is the value, and an expansion of coefficients such as tan(1) only costs
    time. None where one is not, or may not be."""
    at = expr.subs({variable: near})
    if at.free_symbols() or has_non_values(at):
        return None
    values: dict[Expr, Any] = {}
    with mpmath.workdps(REFERENCE_DIGITS):
        for node in postorder(expr):
            if node.args:
                varies = node.op == "pow" and variable in node.args[1].free_symbols()
                found = _continuous_value(node.op, [values[a] for a in node.args], varies)
            else:
                found = reference(near if node == variable else node, {}, REFERENCE_DIGITS)
            if found is None:
                return None
            values[node] = found
    return at


def _continuous_value(op: str, args: list[Any], varies: bool) -> Any:
    """The op's value at these operands where it is continuous there (see _continuous_at);
    varies: an exponent that varies near the point."""
    spec = OPS.get(op)
    if spec is None or spec.reference is None or op in JUMPS or any(
            not _clear(args[0], bound) or not _inside(relation, args[0], bound)
            for relation, bound in spec.defined):
        return None
    if op == "div" and not _clear(args[1], 0):
        return None
    if op == "pow" and not (args[0] > 0 and _clear(args[0], 0)) and \
            (varies or args[1] != int(args[1]) or not _clear(args[0], 0)):
        return None
    if op == "tan" and not _clear(mpmath.cos(args[0]), 0):
        return None
    if op == "atan2" and not (args[1] > 0 or _clear(args[0], 0)):  # (its cut: y = 0, x <= 0)
        return None
    try:
        found = spec.reference(*args)
    except (ZeroDivisionError, ValueError, OverflowError):
        return None
    return found if isinstance(found, mpmath.mpf) and mpmath.isfinite(found) else None


REFERENCE_DIGITS = 60
CLEAR = mpmath.mpf(10) ** -30  # the least distance from an edge taken as certain


def _clear(value: Any, bound: int) -> bool:
    return bool(abs(value - bound) > CLEAR * max(1, abs(bound)))


def _inside(relation: str, value: Any, bound: int) -> bool:
    return bool(value > bound if relation in ("gt", "ge") else value < bound)


def _term_by_term(expr: Expr, variable: Expr, point: Any, side: int, stop: Backstop
                  ) -> Expr | None:
    """The sum of the terms' limits where expr is a sum (or a product or quotient of one,
    distributed) and each term's limit is known, finite or of one sign of infinity, as the
    limit of a sum is ((cos(x) - x)/x at oo: cos(x)/x tends to 0, squeezed, and x/x to 1);
    a term bounded everywhere (see _bounded) beside one tending to infinity also counts
    (x + sin(x) at oo). None where a term's is not known or two tend to infinities of
    opposite signs."""
    terms = _terms(expr)
    if len(terms) < 2:
        return None
    total, infinite, bounded = number(0), set(), False
    for term, sign in terms:
        try:
            found = _one_sided(term, variable, point, side, stop)
        except EqsatError:
            if not _bounded(term):
                return None
            bounded = True
            continue
        if found.op == "oo" or (found.op == "neg" and found.args[0].op == "oo"):
            infinite.add(sign if found.op == "oo" else -sign)
        else:
            total = make("add" if sign > 0 else "sub", total, found)
    if len(infinite) > 1 or (bounded and not infinite):
        return None
    return _infinity(infinite.pop()) if infinite else simplify(total)


def _terms(expr: Expr) -> list[tuple[Expr, int]]:
    """The terms of a sum, each with its sign (summands); of a product or quotient with a
    sum as a factor (the first such), that sum's terms times the other factor."""
    if expr.op in ("mul", "div"):
        for at, factor in enumerate(expr.args):
            if factor.op in ("add", "sub", "neg") and not (expr.op == "div" and at == 1):
                other = expr.args[1 - at]
                return [(make(expr.op, *((term, other) if at == 0 else (other, term))), s)
                        for term, s in summands(factor)]
    return summands(expr)


def _squeezed(expr: Expr, variable: Expr, point: Any, side: int, stop: Backstop) -> bool:
    """Whether expr is a product of factors bounded everywhere (sin, cos, atan, ...: no
    series where their argument has a pole) and of others that tend to 0 together, so that
    it tends to 0 (abs(x)*sin(1/x) at 0)."""
    found = list(factors(expr))
    rest = [(factor, sign) for factor, sign in found if not (sign > 0 and _bounded(factor))]
    if len(rest) == len(found) or not rest:
        return False
    product = number(1)
    for factor, sign in rest:
        product = make("mul" if sign > 0 else "div", product, factor)
    try:
        tends = _one_sided(product, variable, point, side, stop)
    except EqsatError:
        return False
    return tends.is_number and tends.number == 0


# continuous increasing functions on all reals, with their limits at -oo and at oo
AT_INFINITIES = {"exp": ("0", "oo"), "atan": ("-pi/2", "pi/2"), "tanh": ("-1", "1"),
                 "erf": ("-1", "1"), "sigmoid": ("0", "1"), "sinh": ("-oo", "oo")}


def _monotone_limit(expr: Expr, variable: Expr, point: Any, side: int, stop: Backstop
                    ) -> Expr | None:
    """f(u) for f continuous and increasing on all reals (AT_INFINITIES), or -u: f's limit at
    -oo or oo where u tends there, f(U) where u tends to a number U (exp(-exp(x)) tends to 0
    as x tends to oo, where its series has no terms); None where u's limit is not found."""
    try:
        inner = _one_sided(expr.args[0], variable, point, side, stop)
    except EqsatError:
        return None
    infinite = inner.op == "oo" or (inner.op == "neg" and inner.args[0].op == "oo")
    if expr.op == "neg":  # (decreasing: -oo where u tends to oo)
        return _infinity(-1 if inner.op == "oo" else 1) if infinite else \
            simplify(make("neg", inner))
    if infinite:
        tends = AT_INFINITIES[expr.op][1 if inner.op == "oo" else 0]
        return to_expr(tends, non_values=True) if tends.endswith("oo") else simplify(tends)
    if inner.free_symbols() or has_non_values(inner):
        return None
    return simplify(make(expr.op, inner))


def _power_limit(expr: Expr, variable: Expr, point: Any, side: int, stop: Backstop
                 ) -> Expr | None:
    """The limit of b^e from those of b and e where the power has no series (e tends to an
    irrational number): where b is positive near the point and tends to 0, 0 if e tends to
    a positive number and oo if to a negative one; B^E where b tends to a positive number B
    and e to a number E (the power is continuous there); None otherwise."""
    base, exponent = expr.args
    try:
        below, above = (_one_sided(a, variable, point, side, stop) for a in (base, exponent))
    except EqsatError:
        return None
    power = _constant_sign(above)
    if power is None:
        return None
    if below.is_number and below.number == 0:
        try:  # b's sign near the point: its leading coefficient's
            found = _expanded(base, variable, point, side, 1,
                              lambda s: isinstance(s, Exponential) or bool(s.coefficients),
                              stop)
        except EqsatError:
            return None
        if sign_of(found) != 1:  # (a negative base to such powers is undefined)
            return None
        return number(0) if power > 0 else make("oo")
    if _constant_sign(below) == 1:
        return make("pow", below, above)  # (limit simplifies what it returns)
    return None


def _constant_sign(value: Expr) -> int | None:
    """The sign of a constant (a number, or an expression in pi, E, ...) where SymPy proves
    it; None for 0, oo, a value with symbols, or a sign SymPy cannot prove."""
    if value.free_symbols() or has_non_values(value):
        return None
    return sign_near(to_sympy(value))


def _bounded(term: Expr) -> bool:
    """Whether a term is bounded on all reals: a BOUNDED op, or its abs or natural power."""
    if term.op == "pow":
        exponent = term.args[1]
        return exponent.is_number and exponent.number.denominator == 1 and \
            exponent.number > 0 and _bounded(term.args[0])
    return term.op in BOUNDED or (term.op == "abs" and _bounded(term.args[0]))


def _at_log_t(coefficient: Any, expr: Expr) -> Expr:
    """Where a leading coefficient tends as log(t) tends to -oo."""
    if not coefficient.has(LOG_T):
        return _shown(coefficient)
    top, bottom = sympy.fraction(sympy.cancel(coefficient))
    if not (top.is_polynomial(LOG_T) and bottom.is_polynomial(LOG_T)):
        found = _at_minus_infinity(coefficient)
        if found is None:
            raise EqsatError(f"limit: cannot decide the limit of {expr}: its leading term "
                             f"{coefficient} is neither a ratio of polynomials in log(t) nor "
                             "a function of it whose limit SymPy finds")
        return found
    high, low = sympy.Poly(top, LOG_T), sympy.Poly(bottom, LOG_T)
    if high.degree() < low.degree():
        return number(0)
    if high.degree() == low.degree():
        return _shown(sympy.cancel(high.LC() / low.LC()))
    return _infinity(_known(sign_near(coefficient), coefficient, expr))


def _known(sign: int | None, coefficient: Any, expr: Expr) -> int:
    if sign is None:
        raise EqsatError(f"limit: {expr} is unbounded near the point, and the sign of its "
                         f"leading coefficient {coefficient} is not known")
    return sign


MAX_COEFFICIENT_OPS = 40  # a larger leading coefficient in log(t) is not handed to SymPy


def _at_minus_infinity(coefficient: Any) -> Expr | None:
    """Where a leading coefficient that is a function of log(t) alone, but not a ratio of
    polynomials in it, tends as log(t) tends to -oo, by SymPy's limit in that one variable
    (atan(log(t)) tends to -pi/2); None where the coefficient is large or SymPy finds no
    number or infinity."""
    if coefficient.free_symbols - {LOG_T} or sympy.count_ops(coefficient) > MAX_COEFFICIENT_OPS:
        return None
    value = sympy.limit(coefficient, LOG_T, -sympy.oo)
    if value in (sympy.oo, -sympy.oo):
        return _infinity(1 if value == sympy.oo else -1)
    if isinstance(value, sympy.AccumBounds) or value.free_symbols or \
            not (value.is_real and value.is_finite):
        return None  # (a value that oscillates, nan, or a Limit left unevaluated)
    return _shown(value)


def _infinity(sign: int) -> Expr:
    return make("oo") if sign > 0 else make("neg", make("oo"))

