"""THE operator table: one row per op; parsing, printing, evaluation and the e-graph use it."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

import mpmath

from ..limits.budget import MAX_FOLD_BITS, MAX_FOLD_EXPONENT
from .bounds import absolute, clipped, divided, iv, monotone, powered

Reference = Callable[..., mpmath.mpf]


class OpKind(StrEnum):
    """How an op is written, and whether it computes a value (each equals its text)."""

    INFIX = "infix"  # a + b
    PREFIX = "prefix"  # -a
    FUNCTION = "function"  # sin(a)
    CONSTANT = "constant"  # pi
    RELATION = "relation"  # lhs = rhs: a statement
    OPERATOR = "operator"  # diff, solve, vjp: statements about terms
    TENSOR = "tensor"  # sum(a, axis=k), softmax(a), expand(c, a): shapes matter


SCALAR_KINDS = (OpKind.INFIX, OpKind.PREFIX, OpKind.FUNCTION)  # values, written as such


class Sign(StrEnum):
    """What an op does to the sign of its operand, where that is all there is to say (other
    sign facts, such as sqrt's or max's, are its row's `signs`, case by case)."""

    ANY = "any"  # nothing in general
    POSITIVE = "positive"  # f(a) > 0 for every a
    KEEPS_SIGN = "keeps sign"  # odd and increasing: f(a) has the sign of a (f(0) = 0)


@dataclass(frozen=True)
class Fold:
    """Exact constant folding of an op on numbers: one definition for the e-graph's folding
    rules, the normal forms, display order and the derivations. egglog: BigRat's primitive
    for it (for a comparison, those that hold when it is true and when it is false; "=" is
    the e-graph's equality). exact: the same on Fractions (a comparison gives a bool), None
    where it is undefined. small: whether its operands must be below MAX_FOLD_BITS (the ops
    that can make a number larger than theirs). divides: undefined where the second operand
    is 0."""

    egglog: tuple[str, ...]
    exact: Callable[..., Any]
    small: bool = True
    compare: bool = False
    divides: bool = False


def _divided(a: Fraction, b: Fraction) -> Fraction | None:
    return a / b if b != 0 else None


def _power(base: Fraction, exponent: Fraction) -> Fraction | None:
    """An integer power with an exponent up to MAX_FOLD_EXPONENT (a negative one: of a
    nonzero base); others are not folded."""
    if exponent.denominator != 1 or abs(exponent) > MAX_FOLD_EXPONENT or \
            (exponent < 0 and base == 0):
        return None
    return Fraction(base) ** int(exponent)


def _small(value: Fraction) -> bool:
    return max(abs(value.numerator).bit_length(), value.denominator.bit_length()) < MAX_FOLD_BITS


def folded(op: str, values: Sequence[Fraction]) -> Fraction | None:
    """The exact value of op on these numbers (a comparison's: 1 or 0), as the e-graph folds
    it; None where the op has no fold, is undefined there or an operand is too large."""
    fold = OPS[op].fold if op in OPS else None
    if fold is None or (fold.small and not all(map(_small, values))):
        return None
    value = fold.exact(*values)
    return Fraction(int(value)) if fold.compare else value


_RELATION_TEXT = {"gt": ">", "ge": ">=", "lt": "<", "le": "<="}


def _domain_text(defined: tuple[tuple[str, int], ...]) -> str:
    """-1 <= x <= 1 from (("ge", -1), ("le", 1)); x > 0 from (("gt", 0),)."""
    if len(defined) == 2:
        (low, lower), (high, upper) = defined
        return f"{lower} {_RELATION_TEXT[low].replace('>', '<')} x {_RELATION_TEXT[high]} {upper}"
    relation, bound = defined[0]
    return f"x {_RELATION_TEXT[relation]} {bound}"


# (the fact required of each operand or None, the fact concluded): the e-graph's sign
# analysis, where the op is defined
SignRule = tuple[tuple[str | None, ...], str]
_SUM_SIGNS: tuple[SignRule, ...] = (
    (("Pos", "NonNeg"), "Pos"), (("NonNeg", "Pos"), "Pos"), (("NonNeg", "NonNeg"), "NonNeg"),
    (("Neg", "NonPos"), "Neg"), (("NonPos", "Neg"), "Neg"), (("NonPos", "NonPos"), "NonPos"))
_DIFFERENCE_SIGNS: tuple[SignRule, ...] = (
    (("Pos", "NonPos"), "Pos"), (("NonNeg", "Neg"), "Pos"), (("NonNeg", "NonPos"), "NonNeg"),
    (("Neg", "NonNeg"), "Neg"), (("NonPos", "Pos"), "Neg"), (("NonPos", "NonNeg"), "NonPos"))
_PRODUCT_SIGNS: tuple[SignRule, ...] = (  # a product's, and a quotient's
    (("Pos", "Pos"), "Pos"), (("Neg", "Neg"), "Pos"), (("Pos", "Neg"), "Neg"),
    (("Neg", "Pos"), "Neg"), (("NonNeg", "NonNeg"), "NonNeg"), (("NonPos", "NonPos"), "NonNeg"),
    (("NonNeg", "NonPos"), "NonPos"), (("NonPos", "NonNeg"), "NonPos"),
    (("NonZero", "NonZero"), "NonZero"))
_NEGATED_SIGNS: tuple[SignRule, ...] = (
    (("Pos",), "Neg"), (("Neg",), "Pos"), (("NonNeg",), "NonPos"), (("NonPos",), "NonNeg"),
    (("NonZero",), "NonZero"))
_POWER_SIGNS: tuple[SignRule, ...] = (
    (("Pos", None), "Pos"), (("NonNeg", None), "NonNeg"), (("NonZero", None), "NonZero"))
_MAX_SIGNS: tuple[SignRule, ...] = (
    (("Pos", None), "Pos"), ((None, "Pos"), "Pos"), (("NonNeg", None), "NonNeg"),
    ((None, "NonNeg"), "NonNeg"), (("Neg", "Neg"), "Neg"), (("NonPos", "NonPos"), "NonPos"))
_MIN_SIGNS: tuple[SignRule, ...] = (
    (("Neg", None), "Neg"), ((None, "Neg"), "Neg"), (("NonPos", None), "NonPos"),
    ((None, "NonPos"), "NonPos"), (("Pos", "Pos"), "Pos"), (("NonNeg", "NonNeg"), "NonNeg"))
_SIGN_OF_SIGNS: tuple[SignRule, ...] = (
    (("Pos",), "Pos"), (("Neg",), "Neg"), (("NonNeg",), "NonNeg"), (("NonPos",), "NonPos"),
    (("NonZero",), "NonZero"), ((None,), "IsInt"))
# a fact that facts of the same term imply: fact => fact, and pairs of facts => fact
SIGN_IMPLIED: tuple[tuple[tuple[str, ...], str], ...] = (
    (("Pos",), "NonNeg"), (("Pos",), "NonZero"), (("Neg",), "NonPos"), (("Neg",), "NonZero"),
    (("Zero",), "NonNeg"), (("Zero",), "NonPos"), (("NonNeg", "NonPos"), "Zero"),
    (("NonNeg", "NonZero"), "Pos"), (("NonPos", "NonZero"), "Neg"))
KEPT_SIGNS = ("Pos", "Neg", "NonNeg", "NonPos", "NonZero")  # the facts a KEEPS_SIGN op keeps


# the names of an op's operands in its derivative and definition, by arity
OPERANDS = {1: ("a",), 2: ("a", "b"), 3: ("c", "a", "b")}


@dataclass(frozen=True)
class Op:
    """One operator: how it is written, evaluated, differentiated, compiled and costed.

    derivative: d/dx of the op applied to its operands (a; a, b; c, a, b), written with
    diff(a, x), ...: the op's [diff] rule and its [grad] rule are made from it. sympy: the
    name of SymPy's function for it; defined_as: else its definition in other ops. latex: a
    LaTeX command for its name (else \\operatorname). numpy_cost: time per element of its
    NumPy code (add = 1), the NumPy target's cost model; every op with a reference has one.
    """

    name: str
    arity: int
    kind: OpKind
    reference: Reference | None  # mpmath ground truth of a scalar op; None for the others
    numpy: str  # "np.<ufunc>" or the name of a helper in eqsat.numeric
    cuda: tuple[str, str]  # (float, double) C names; "" for ops printed inline
    cost: int = 20  # extraction cost; a symbol costs 10 and a number 5
    domain: str = "all reals"
    symbol: str = ""  # infix / prefix spelling
    precedence: int = 100  # binding strength when printed infix
    derivative: str = ""
    sympy: str = ""
    defined_as: str = ""
    latex: str = ""
    sign: Sign = Sign.ANY
    numpy_cost: float | None = None
    fold: Fold | None = None
    defined: tuple[tuple[str, int], ...] = ()  # where its operand must lie: ("ge", 0), ...
    absorbs: int = 0  # k where f(a) = f(0) + O(a^k) near 0: a tiny argument is absorbed
    exponential: bool = False  # exponentiates an argument (astronomically large values)
    periodic: bool = False  # its first operand reduced modulo a period (pi, 2, fmod's b): its
    # true value needs digits by that operand's magnitude
    bounds: Callable[..., Any] | None = None  # its values' interval from its operands' (bounds.py)
    signs: tuple[SignRule, ...] = ()  # sign facts case by case, beyond `sign`
    integral: bool = False  # an integer wherever its operands are integers
    # its derivative is unbounded at points where it is defined (sqrt at 0, asin at 1): where
    # its operands are flat (min(x, 0) for x > 0), the chain rule's inf*0 is no value
    steep: bool = False
    # the op on python-flint arb balls (term/balls.py): a ball holding the true value, NaN
    # where these balls cannot decide it, None where it is undefined for certain
    ball: Callable[..., Any] | None = None

    def __post_init__(self) -> None:
        if self.defined:  # its domain in words, from the data
            object.__setattr__(self, "domain", _domain_text(self.defined))
        if self.reference is not None and self.numpy_cost is None:
            raise ValueError(f"op {self.name}: an op with a reference needs its numpy_cost")

    @property
    def is_value(self) -> bool:
        """Whether it computes a value (equations, diff, solve and vjp are statements)."""
        return self.kind not in (OpKind.RELATION, OpKind.OPERATOR)

    @property
    def grows_past_floats(self) -> bool:
        """Whether an argument beyond every float can make its exact value take mpmath
        minutes (an exponential's, a periodic function's): see reference.astronomical."""
        return self.exponential or self.periodic

    @property
    def egg(self) -> str:
        """The egglog constructor name."""
        return "Op" + self.name[0].upper() + self.name[1:]

    @property
    def operands(self) -> tuple[str, ...]:
        """The names of its operands in its derivative and definition."""
        return OPERANDS.get(self.arity, ())


def _truth(flag: bool) -> mpmath.mpf:
    return mpmath.mpf(1) if flag else mpmath.mpf(0)


def _where(c: mpmath.mpf, a: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    return a if c != 0 else b


def _log1mexp(a: mpmath.mpf) -> mpmath.mpf:
    return mpmath.log(-mpmath.expm1(a))


def _flint() -> Any:
    import flint  # (only when balls are asked for: importing it takes 50 ms)

    return flint


def _ball_truth(certain: bool, certainly_not: bool, like: Any) -> Any:
    """A comparison of balls: 1 or 0 where they decide it, else NaN."""
    kind = type(like)
    return kind(1) if certain else kind(0) if certainly_not else kind.nan()


def _ball_div(a: Any, b: Any) -> Any:
    return None if b.is_zero() else a / b


def _ball_pow(a: Any, b: Any) -> Any:
    """a^b as mpmath.power takes it in the reals: any base to an integer (0 to a negative
    one is undefined), else a positive base (0 to a positive power is 0)."""
    if b.is_exact() and b.is_integer():
        n = int(b.unique_fmpz())
        return None if n < 0 and a.is_zero() else _ball_integer_power(a, n)
    if a > 0:
        return a ** b
    if a < 0 or (a.is_zero() and b < 0):
        return None
    return type(a)(0) if a.is_zero() and b > 0 else type(a).nan()


def _ball_integer_power(a: Any, n: int) -> Any:
    """a^n by squaring (arb's own power gives NaN for a ball around 0, any n); a huge n (a
    float such as 1e195 is an integer) as exp(n log|a|), its sign by n's parity."""
    if abs(n) > 2**16 and not a.is_zero():
        magnitude = (abs(a).log() * n).exp()  # (NaN where the ball holds 0: undecided)
        return -magnitude if n % 2 and a < 0 else magnitude
    result, factor, k = type(a)(1), a, abs(n)
    while k:
        if k & 1:
            result *= factor
        k >>= 1
        if k:
            factor *= factor
    return 1 / result if n < 0 else result


def _ball_sign(a: Any) -> Any:
    kind = type(a)
    return kind(1) if a > 0 else kind(-1) if a < 0 else kind(0) if a.is_zero() else kind.nan()


def _fmod(a: Any, b: Any) -> Any:
    """C's fmod: a less b times the integer part of a/b (the sign of a; mpmath's fmod takes
    b's)."""
    if b == 0:
        raise ZeroDivisionError("fmod by 0")
    return mpmath.sign(a) * mpmath.fmod(abs(a), abs(b))


def _ball_fmod(a: Any, b: Any) -> Any:
    """fmod where the integer part of |a/b| is known exactly (NaN where the ball meets a
    jump, or the sign of a is not known)."""
    whole = (abs(a) / abs(b)).floor()
    if not whole.is_exact() or not (a > 0 or a < 0 or a.is_zero()):
        return type(a).nan()
    left = abs(a) - abs(b) * whole
    return -left if a < 0 else left


_ERFCX_SERIES_FROM = 10**6  # erfcx by its asymptotic series past it (exp(a^2) is 10^(4e11))


def _erfcx(a: Any) -> Any:
    """exp(a^2)*erfc(a) in mpmath; past _ERFCX_SERIES_FROM by the asymptotic series
    1/(a*sqrt(pi))*sum((-1)^k (2k - 1)!!/(2a^2)^k) to the working precision (mpmath's erfc
    fails on 1e200)."""
    if a <= _ERFCX_SERIES_FROM:
        return mpmath.exp(a * a) * mpmath.erfc(a)
    t, total, term, k = 1 / (2 * a * a), mpmath.mpf(0), mpmath.mpf(1), 0
    while abs(term) > mpmath.eps * abs(total) / 4 or not total:
        total += term
        k += 1
        term = -term * (2 * k - 1) * t
    return total / (a * mpmath.sqrt(mpmath.pi))


def _ball_erfcx(a: Any) -> Any:
    """erfcx's ball; past _ERFCX_SERIES_FROM (arb's exp(a^2)*erfc(a) is [+/- inf] at 1e200)
    eleven terms of its series, the twelfth bounding what is left (the terms alternate and
    shrink)."""
    kind = type(a)
    if not a > _ERFCX_SERIES_FROM:
        return (a * a).exp() * a.erfc()
    t, total, term = 1 / (2 * a * a), kind(0), kind(1)
    for k in range(1, 12):
        total += term
        term = -term * (2 * k - 1) * t
    return (total + kind(0, abs(term).upper())) / (a * kind.pi().sqrt())


def _ball_where(c: Any, a: Any, b: Any) -> Any:
    return a if c != 0 else b if c.is_zero() else type(a).nan()


_P_EQUATION, _P_COMPARE, _P_ADD, _P_MUL, _P_NEG, _P_POW = 1, 5, 10, 20, 25, 30

ROWS: list[Op] = [
    # arithmetic (pow's derivative is two rules with guards, in diff.rules)
    Op("add", 2, OpKind.INFIX, lambda a, b: a + b, "np.add", ("", ""), 10, symbol="+",
       precedence=_P_ADD, derivative="diff(a, x) + diff(b, x)", numpy_cost=1,
       fold=Fold(("+",), operator.add),
       bounds=lambda a, b: a + b,
       signs=_SUM_SIGNS, integral=True,
       ball=lambda a, b: a + b),
    Op("sub", 2, OpKind.INFIX, lambda a, b: a - b, "np.subtract", ("", ""), 10, symbol="-",
       precedence=_P_ADD, derivative="diff(a, x) - diff(b, x)", numpy_cost=1,
       fold=Fold(("-",), operator.sub),
       bounds=lambda a, b: a - b,
       signs=_DIFFERENCE_SIGNS, integral=True,
       ball=lambda a, b: a - b),
    Op("mul", 2, OpKind.INFIX, lambda a, b: a * b, "np.multiply", ("", ""), 11, symbol="*",
       precedence=_P_MUL, derivative="diff(a, x)*b + a*diff(b, x)", numpy_cost=1,
       fold=Fold(("*",), operator.mul),
       bounds=lambda a, b: a * b,
       signs=_PRODUCT_SIGNS, integral=True,
       ball=lambda a, b: a * b),
    Op("div", 2, OpKind.INFIX, lambda a, b: a / b, "np.divide", ("", ""), 10, "denominator != 0",
       symbol="/", precedence=_P_MUL, derivative="(diff(a, x)*b - a*diff(b, x))/b^2",
       numpy_cost=1,
       fold=Fold(("/",), _divided, divides=True),
       bounds=divided,
       signs=_PRODUCT_SIGNS,
       ball=_ball_div),
    Op("pow", 2, OpKind.INFIX, mpmath.power, "np.power", ("powf", "pow"), 11,
       "base > 0, or integer exponent (base != 0 if negative)", symbol="^", precedence=_P_POW,
       numpy_cost=3,
       fold=Fold(("pow",), _power),
       exponential=True, steep=True,
       bounds=powered,
       signs=_POWER_SIGNS,
       ball=_ball_pow),
    Op("neg", 1, OpKind.PREFIX, lambda a: -a, "np.negative", ("", ""), 10, symbol="-",
       precedence=_P_NEG, derivative="-diff(a, x)", numpy_cost=0.7,
       fold=Fold(("neg",), operator.neg, small=False),
       bounds=lambda a: -a,
       signs=_NEGATED_SIGNS, integral=True,
       ball=lambda a: -a),
    # comparisons: 1 where true, 0 where false; piecewise constant, so their derivative is 0
    # wherever it exists
    Op("lt", 2, OpKind.INFIX, lambda a, b: _truth(a < b), "np.less", ("", ""), 10, symbol="<",
       precedence=_P_COMPARE, derivative="0", numpy_cost=0.6,
       fold=Fold(("<", ">="), operator.lt, small=False, compare=True),
       ball=lambda a, b: _ball_truth(a < b, a >= b, a)),
    Op("le", 2, OpKind.INFIX, lambda a, b: _truth(a <= b), "np.less_equal", ("", ""), 10,
       symbol="<=", precedence=_P_COMPARE, derivative="0", numpy_cost=0.6,
       fold=Fold(("<=", ">"), operator.le, small=False, compare=True),
       ball=lambda a, b: _ball_truth(a <= b, a > b, a)),
    Op("gt", 2, OpKind.INFIX, lambda a, b: _truth(a > b), "np.greater", ("", ""), 10, symbol=">",
       precedence=_P_COMPARE, derivative="0", numpy_cost=0.6,
       fold=Fold((">", "<="), operator.gt, small=False, compare=True),
       ball=lambda a, b: _ball_truth(a > b, a <= b, a)),
    Op("ge", 2, OpKind.INFIX, lambda a, b: _truth(a >= b), "np.greater_equal", ("", ""), 10,
       symbol=">=", precedence=_P_COMPARE, derivative="0", numpy_cost=0.6,
       fold=Fold((">=", "<"), operator.ge, small=False, compare=True),
       ball=lambda a, b: _ball_truth(a >= b, a < b, a)),
    Op("eq", 2, OpKind.INFIX, lambda a, b: _truth(a == b), "np.equal", ("", ""), 10, symbol="==",
       precedence=_P_COMPARE, derivative="0", numpy_cost=0.6,
       fold=Fold(("=", "!="), operator.eq, small=False, compare=True),
       ball=lambda a, b: _ball_truth(a == b, a != b, a)),
    Op("ne", 2, OpKind.INFIX, lambda a, b: _truth(a != b), "np.not_equal", ("", ""), 10,
       symbol="!=", precedence=_P_COMPARE, derivative="0", numpy_cost=0.6,
       fold=Fold(("!=", "="), operator.ne, small=False, compare=True),
       ball=lambda a, b: _ball_truth(a != b, a == b, a)),
    # an equation `lhs = rhs`: a statement to solve, not a value
    Op("equation", 2, OpKind.RELATION, None, "", ("", ""), 10, "not a value", symbol="=",
       precedence=_P_EQUATION),
    # elementary functions
    Op("sqrt", 1, OpKind.FUNCTION, mpmath.sqrt, "np.sqrt", ("sqrtf", "sqrt"), 15,
       derivative="diff(a, x)/(2*sqrt(a))", sympy="sqrt", numpy_cost=2.5,
       defined=(("ge", 0),), steep=True,
       bounds=clipped(0, iv.sqrt),
       signs=(((None,), "NonNeg"), (("Pos",), "Pos")),
       ball=lambda a: a.sqrt()),
    Op("exp", 1, OpKind.FUNCTION, mpmath.exp, "np.exp", ("expf", "exp"), 20,
       derivative="exp(a)*diff(a, x)", sympy="exp", sign=Sign.POSITIVE, numpy_cost=1.8,
       absorbs=1, exponential=True,
       bounds=iv.exp,
       ball=lambda a: a.exp()),
    Op("log", 1, OpKind.FUNCTION, mpmath.log, "np.log", ("logf", "log"), 20,
       derivative="diff(a, x)/a", sympy="log", latex="\\log", numpy_cost=1.8,
       defined=(("gt", 0),),
       bounds=clipped(0, iv.log),
       ball=lambda a: a.log()),
    Op("sin", 1, OpKind.FUNCTION, mpmath.sin, "np.sin", ("sinf", "sin"), 20,
       derivative="cos(a)*diff(a, x)", sympy="sin", latex="\\sin", numpy_cost=19,
       periodic=True,
       bounds=iv.sin,
       ball=lambda a: a.sin()),
    Op("cos", 1, OpKind.FUNCTION, mpmath.cos, "np.cos", ("cosf", "cos"), 20,
       derivative="-sin(a)*diff(a, x)", sympy="cos", latex="\\cos", numpy_cost=20,
       absorbs=2, periodic=True,
       bounds=iv.cos,
       ball=lambda a: a.cos()),
    Op("sinpi", 1, OpKind.FUNCTION, mpmath.sinpi, "sinpi", ("eqsat_sinpif", "eqsat_sinpi"), 20,
       derivative="pi*cospi(a)*diff(a, x)", defined_as="sin(pi*a)", numpy_cost=30,
       periodic=True,
       bounds=lambda a: iv.sin(a * iv.pi),
       ball=lambda a: a.sin_pi()),
    Op("cospi", 1, OpKind.FUNCTION, mpmath.cospi, "cospi", ("eqsat_cospif", "eqsat_cospi"), 20,
       derivative="-pi*sinpi(a)*diff(a, x)", defined_as="cos(pi*a)", numpy_cost=30,
       absorbs=2, periodic=True,
       bounds=lambda a: iv.cos(a * iv.pi),
       ball=lambda a: a.cos_pi()),
    Op("tan", 1, OpKind.FUNCTION, mpmath.tan, "np.tan", ("tanf", "tan"), 20, "cos(x) != 0",
       derivative="(1 + tan(a)^2)*diff(a, x)", sympy="tan", latex="\\tan", numpy_cost=3,
       periodic=True,
       ball=lambda a: a.tan()),
    Op("asin", 1, OpKind.FUNCTION, mpmath.asin, "np.arcsin", ("asinf", "asin"), 20,
       derivative="diff(a, x)/sqrt(1 - a^2)", sympy="asin", latex="\\arcsin",
       sign=Sign.KEEPS_SIGN, numpy_cost=12,
       defined=(("ge", -1), ("le", 1)), steep=True,
       ball=lambda a: a.asin()),
    Op("acos", 1, OpKind.FUNCTION, mpmath.acos, "np.arccos", ("acosf", "acos"), 20,
       derivative="-diff(a, x)/sqrt(1 - a^2)", sympy="acos", latex="\\arccos", numpy_cost=13,
       defined=(("ge", -1), ("le", 1)), absorbs=1, steep=True,
       signs=(((None,), "NonNeg"),),
       ball=lambda a: a.acos()),
    Op("atan", 1, OpKind.FUNCTION, mpmath.atan, "np.arctan", ("atanf", "atan"), 20,
       derivative="diff(a, x)/(1 + a^2)", sympy="atan", latex="\\arctan", sign=Sign.KEEPS_SIGN,
       numpy_cost=2.7,
       bounds=monotone(mpmath.atan),
       ball=lambda a: a.atan()),
    Op("atan2", 2, OpKind.FUNCTION, mpmath.atan2, "np.arctan2", ("atan2f", "atan2"), 20,
       "not both 0", derivative="(b*diff(a, x) - a*diff(b, x))/(a^2 + b^2)", sympy="atan2",
       numpy_cost=5,
       ball=lambda a, b: type(a).atan2(a, b)),
    Op("sinh", 1, OpKind.FUNCTION, mpmath.sinh, "np.sinh", ("sinhf", "sinh"), 20,
       derivative="cosh(a)*diff(a, x)", sympy="sinh", latex="\\sinh", sign=Sign.KEEPS_SIGN,
       numpy_cost=2.6,
       exponential=True,
       bounds=monotone(mpmath.sinh),
       ball=lambda a: a.sinh()),
    Op("cosh", 1, OpKind.FUNCTION, mpmath.cosh, "np.cosh", ("coshf", "cosh"), 20,
       derivative="sinh(a)*diff(a, x)", sympy="cosh", latex="\\cosh", sign=Sign.POSITIVE,
       numpy_cost=2.1,
       absorbs=2, exponential=True,
       ball=lambda a: a.cosh()),
    Op("tanh", 1, OpKind.FUNCTION, mpmath.tanh, "np.tanh", ("tanhf", "tanh"), 20,
       derivative="(1 - tanh(a)^2)*diff(a, x)", sympy="tanh", latex="\\tanh",
       sign=Sign.KEEPS_SIGN, numpy_cost=3.8,
       exponential=True,
       bounds=monotone(mpmath.tanh),
       ball=lambda a: a.tanh()),
    Op("asinh", 1, OpKind.FUNCTION, mpmath.asinh, "np.arcsinh", ("asinhf", "asinh"), 20,
       derivative="diff(a, x)/sqrt(a^2 + 1)", sympy="asinh", sign=Sign.KEEPS_SIGN,
       numpy_cost=4.6,
       bounds=monotone(mpmath.asinh),
       ball=lambda a: a.asinh()),
    Op("acosh", 1, OpKind.FUNCTION, mpmath.acosh, "np.arccosh", ("acoshf", "acosh"), 20,
       derivative="diff(a, x)/sqrt(a^2 - 1)", sympy="acosh", numpy_cost=14.5,
       defined=(("ge", 1),), steep=True,
       signs=(((None,), "NonNeg"),),
       ball=lambda a: a.acosh()),
    Op("atanh", 1, OpKind.FUNCTION, mpmath.atanh, "np.arctanh", ("atanhf", "atanh"), 20,
       derivative="diff(a, x)/(1 - a^2)", sympy="atanh", sign=Sign.KEEPS_SIGN,
       numpy_cost=11,
       defined=(("gt", -1), ("lt", 1)),
       ball=lambda a: a.atanh()),
    Op("abs", 1, OpKind.FUNCTION, mpmath.fabs, "np.abs", ("fabsf", "fabs"), 12,
       derivative="sign(a)*diff(a, x)", sympy="Abs", numpy_cost=0.6,
       fold=Fold(("abs",), abs, small=False),
       bounds=absolute,
       signs=(((None,), "NonNeg"), (("NonZero",), "Pos")), integral=True,
       ball=abs),
    # the remainder of a/b truncated toward 0, as C's fmod: exact in floats (a sine in
    # degrees reduced by it loses nothing of a huge angle)
    Op("fmod", 2, OpKind.FUNCTION, _fmod, "np.fmod", ("fmodf", "fmod"), 20, "b != 0",
       derivative="diff(a, x) - (a - fmod(a, b))/b*diff(b, x)", numpy_cost=4,
       periodic=True,
       ball=_ball_fmod),
    Op("sign", 1, OpKind.FUNCTION, mpmath.sign, "np.sign", ("eqsat_signf", "eqsat_sign"), 12,
       derivative="0", sympy="sign", numpy_cost=0.6,
       signs=_SIGN_OF_SIGNS,
       ball=_ball_sign),
    Op("log1p", 1, OpKind.FUNCTION, mpmath.log1p, "np.log1p", ("log1pf", "log1p"), 20,
       derivative="diff(a, x)/(1 + a)", defined_as="log(1 + a)", sign=Sign.KEEPS_SIGN,
       numpy_cost=2.5,
       defined=(("gt", -1),),
       bounds=clipped(-1, iv.log1p),
       ball=lambda a: a.log1p()),
    Op("expm1", 1, OpKind.FUNCTION, mpmath.expm1, "np.expm1", ("expm1f", "expm1"), 20,
       derivative="exp(a)*diff(a, x)", defined_as="exp(a) - 1", sign=Sign.KEEPS_SIGN,
       numpy_cost=3.1,
       exponential=True,
       bounds=monotone(mpmath.expm1),  # (iv.expm1 of a wide interval takes 0.2 s)
       ball=lambda a: a.expm1()),
    Op("hypot", 2, OpKind.FUNCTION, mpmath.hypot, "np.hypot", ("hypotf", "hypot"), 20,
       derivative="(a*diff(a, x) + b*diff(b, x))/hypot(a, b)", defined_as="sqrt(a^2 + b^2)",
       numpy_cost=35, steep=True,
       signs=(((None, None), "NonNeg"),),
       ball=lambda a, b: (a * a + b * b).sqrt()),
    Op("erf", 1, OpKind.FUNCTION, mpmath.erf, "erf", ("erff", "erf"), 20,
       derivative="2/sqrt(pi)*exp(-a^2)*diff(a, x)", sympy="erf", sign=Sign.KEEPS_SIGN,
       numpy_cost=200,
       bounds=monotone(mpmath.erf),
       ball=lambda a: a.erf()),
    Op("erfc", 1, OpKind.FUNCTION, mpmath.erfc, "erfc", ("erfcf", "erfc"), 20,
       derivative="-2/sqrt(pi)*exp(-a^2)*diff(a, x)", sympy="erfc", sign=Sign.POSITIVE,
       numpy_cost=200,
       absorbs=1, exponential=True,
       bounds=monotone(mpmath.erfc, increasing=False),
       ball=lambda a: a.erfc()),
    # erfc scaled by exp(a^2): finite where erfc underflows (log(erfc(a)) is log(erfcx(a)) -
    # a^2), as SciPy's erfcx
    Op("erfcx", 1, OpKind.FUNCTION, _erfcx, "erfcx", ("eqsat_erfcxf", "eqsat_erfcx"), 20,
       derivative="(2*a*erfcx(a) - 2/sqrt(pi))*diff(a, x)", defined_as="exp(a^2)*erfc(a)",
       sign=Sign.POSITIVE, numpy_cost=220,
       absorbs=1, exponential=True,  # (decreasing: its derivative 2a*erfcx(a) - 2/sqrt(pi) < 0)
       bounds=monotone(_erfcx, increasing=False),
       ball=_ball_erfcx),
    Op("sigmoid", 1, OpKind.FUNCTION, lambda a: 1 / (1 + mpmath.exp(-a)), "sigmoid",
       ("eqsat_sigmoidf", "eqsat_sigmoid"), 20,
       derivative="sigmoid(a)*(1 - sigmoid(a))*diff(a, x)", defined_as="1/(1 + exp(-a))",
       sign=Sign.POSITIVE, numpy_cost=40,
       absorbs=1, exponential=True,
       ball=lambda a: 1 / (1 + (-a).exp())),
    Op("softplus", 1, OpKind.FUNCTION, lambda a: mpmath.log1p(mpmath.exp(a)), "softplus",
       ("eqsat_softplusf", "eqsat_softplus"), 20, derivative="sigmoid(a)*diff(a, x)",
       defined_as="log(1 + exp(a))", sign=Sign.POSITIVE, numpy_cost=36,
       absorbs=1, exponential=True,
       ball=lambda a: a.exp().log1p()),
    Op("log1mexp", 1, OpKind.FUNCTION, _log1mexp, "log1mexp",
       ("eqsat_log1mexpf", "eqsat_log1mexp"), 20, derivative="-diff(a, x)/expm1(-a)",
       defined_as="log(1 - exp(a))", numpy_cost=19,
       defined=(("lt", 0),), exponential=True,
       ball=lambda a: (-a.expm1()).log()),
    Op("logaddexp", 2, OpKind.FUNCTION, lambda a, b: mpmath.log(mpmath.exp(a) + mpmath.exp(b)),
       "np.logaddexp", ("eqsat_logaddexpf", "eqsat_logaddexp"), 20,
       derivative="sigmoid(a - b)*diff(a, x) + sigmoid(b - a)*diff(b, x)",
       defined_as="log(exp(a) + exp(b))", numpy_cost=36,
       exponential=True,
       ball=lambda a, b: (a.exp() + b.exp()).log()),
    Op("min", 2, OpKind.FUNCTION, min, "np.minimum", ("fminf", "fmin"), 12,
       derivative="where(a < b, diff(a, x), diff(b, x))", sympy="Min", latex="\\min",
       numpy_cost=1,
       fold=Fold(("min",), min),
       signs=_MIN_SIGNS, integral=True,
       ball=lambda a, b: a.min(b)),
    Op("max", 2, OpKind.FUNCTION, max, "np.maximum", ("fmaxf", "fmax"), 12,
       derivative="where(a > b, diff(a, x), diff(b, x))", sympy="Max", latex="\\max",
       numpy_cost=1,
       fold=Fold(("max",), max),
       signs=_MAX_SIGNS, integral=True,
       ball=lambda a, b: a.max(b)),
    Op("where", 3, OpKind.FUNCTION, _where, "np.where", ("", ""), 12,
       derivative="where(c, diff(a, x), diff(b, x))", numpy_cost=1.8,
       ball=_ball_where),
    # the derivative of the first argument in the second (a symbol); rules push it inward
    # and its prohibitive cost keeps it out of every extracted result
    Op("diff", 2, OpKind.OPERATOR, None, "", ("", ""), 100_000,
       "the first argument differentiable in the second"),
    # the values of the symbol (second argument) that satisfy the equation (first); the
    # [solve] rules rewrite the equation until the symbol stands alone on one side
    Op("solve", 2, OpKind.OPERATOR, None, "", ("", ""), 100_000,
       "an equation and the symbol to solve it for"),
    # tensors (see shape.py): the last argument of a reduction is its axis, a number, -1
    # meaning every axis; matmul, dot and transpose take vectors and matrices
    Op("matmul", 2, OpKind.INFIX, None, "np.matmul", ("", ""), 30, "inner dimensions equal",
       symbol="@", precedence=_P_MUL),
    Op("transpose", 1, OpKind.TENSOR, None, "np.transpose", ("", ""), 12, "a vector or matrix"),
    Op("dot", 2, OpKind.TENSOR, None, "np.dot", ("", ""), 30, "inner dimensions equal"),
    Op("outer", 2, OpKind.TENSOR, None, "np.outer", ("", ""), 20, "two vectors"),
    Op("sum", 2, OpKind.TENSOR, None, "np.sum", ("", ""), 20, "all reals", latex="\\sum"),
    Op("mean", 2, OpKind.TENSOR, None, "np.mean", ("", ""), 21, "all reals"),
    Op("prod", 2, OpKind.TENSOR, None, "np.prod", ("", ""), 20, "all reals", latex="\\prod"),
    Op("amax", 2, OpKind.TENSOR, None, "np.max", ("", ""), 20, "all reals", latex="\\max"),
    Op("amin", 2, OpKind.TENSOR, None, "np.min", ("", ""), 20, "all reals", latex="\\min"),
    Op("logsumexp", 2, OpKind.TENSOR, None, "logsumexp", ("", ""), 25, "all reals"),
    Op("softmax", 2, OpKind.TENSOR, None, "softmax", ("", ""), 30, "all reals"),
    Op("log_softmax", 2, OpKind.TENSOR, None, "log_softmax", ("", ""), 30, "all reals"),
    # gradients: vjp(e, c, x) is the vector-Jacobian product of e in x with cotangent c
    # (rules push it inward, like diff); expand(c, a, axis) repeats c, a reduction of a
    # tensor of a's shape over axis, back to a's shape; sum_to(c, a) sums c down to a's
    # shape (undoing a broadcast). The second argument of both only lends its shape.
    Op("vjp", 3, OpKind.OPERATOR, None, "", ("", ""), 100_000,
       "a scalar-valued expression's gradient"),
    Op("expand", 3, OpKind.TENSOR, None, "expand", ("", ""), 12, "all reals"),
    Op("sum_to", 2, OpKind.TENSOR, None, "sum_to", ("", ""), 12, "all reals"),
    # irrational constants stay symbolic
    Op("pi", 0, OpKind.CONSTANT, lambda: +mpmath.pi, "np.pi", ("", ""), 10, latex="\\pi",
       sympy="pi", sign=Sign.POSITIVE, numpy_cost=0,
       ball=lambda: _flint().arb.pi()),
    Op("E", 0, OpKind.CONSTANT, lambda: mpmath.e + 0, "np.e", ("", ""), 10, latex="e",
       sympy="E", sign=Sign.POSITIVE, numpy_cost=0,
       ball=lambda: _flint().arb.const_e()),
    # what series and limit give that is not a real number (the verbs that take values refuse
    # it): infinity, and an order term, the terms a series leaves out (each as small as O's
    # argument near the point where that vanishes)
    Op("oo", 0, OpKind.CONSTANT, None, "", ("", ""), 10, "not a value",
       latex="\\infty", sympy="oo", sign=Sign.POSITIVE, numpy_cost=0),
    Op("O", 1, OpKind.OPERATOR, None, "", ("", ""), 100_000, "not a value",
       latex="\\mathcal{O}"),
]

OPS: dict[str, Op] = {op.name: op for op in ROWS}
NOT_VALUES = frozenset({"oo", "O"})  # (see their rows)

# other spellings accepted by the parser (FPBench, PyTensor, SymPy names)
ALIASES: dict[str, str] = {
    "fabs": "abs",
    "log1pexp": "softplus",
    "switch": "where",
    "arctan2": "atan2",
    "minimum": "min",
    "maximum": "max",
    "ln": "log",
}

# max and min with one argument (and an optional axis) reduce; with two they compare
REDUCING = {"max": "amax", "min": "amin"}

INFIX: dict[str, Op] = {op.symbol: op for op in ROWS if op.kind in (OpKind.INFIX, OpKind.RELATION)}
FUNCTIONS: dict[str, Op] = {op.name: op for op in ROWS if op.kind == OpKind.FUNCTION}
CONSTANTS: dict[str, Op] = {op.name: op for op in ROWS if op.kind == OpKind.CONSTANT}
COMPARISONS = frozenset({"lt", "le", "gt", "ge", "eq", "ne"})
JUMPS = COMPARISONS | {"sign", "where", "fmod"}  # piecewise constant or piecewise: they jump


def add_row(op: Op) -> None:
    """Extend the table with a new op, as a row added to ROWS would: only before any other
    eqsat module loads (they read the table as they load). For trying out an op; a shipped op
    is a row of ROWS."""
    if op.name in OPS or op.name in ALIASES:
        raise ValueError(f"op {op.name!r} is already in the table")
    if op.kind not in (*SCALAR_KINDS, OpKind.CONSTANT):
        raise ValueError(f"op {op.name!r}: only scalar ops can be added this way")
    ROWS.append(op)
    OPS[op.name] = op
    if op.kind in (OpKind.INFIX, OpKind.RELATION):
        INFIX[op.symbol] = op
    tables = {OpKind.FUNCTION: FUNCTIONS, OpKind.CONSTANT: CONSTANTS}
    if op.kind in tables:
        tables[op.kind][op.name] = op


def lookup(name: str) -> Op | None:
    """The op a function or constant name denotes, following aliases."""
    return OPS.get(ALIASES.get(name, name))


TENSOR_OPS = frozenset(op.name for op in ROWS if op.kind == OpKind.TENSOR) | {"matmul"}
