"""THE operator table: one row per op; parsing, printing, evaluation and the e-graph use it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import mpmath

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


@dataclass(frozen=True)
class Op:
    """One operator: how it is written, evaluated, compiled and costed."""

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

    @property
    def is_value(self) -> bool:
        """Whether it computes a value (equations, diff, solve and vjp are statements)."""
        return self.kind not in (OpKind.RELATION, OpKind.OPERATOR)

    @property
    def egg(self) -> str:
        """The egglog constructor name."""
        return "Op" + self.name[0].upper() + self.name[1:]


def _truth(flag: bool) -> mpmath.mpf:
    return mpmath.mpf(1) if flag else mpmath.mpf(0)


def _where(c: mpmath.mpf, a: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    return a if c != 0 else b


def _log1mexp(a: mpmath.mpf) -> mpmath.mpf:
    return mpmath.log(-mpmath.expm1(a))


_P_EQUATION, _P_COMPARE, _P_ADD, _P_MUL, _P_NEG, _P_POW = 1, 5, 10, 20, 25, 30

ROWS: list[Op] = [
    # arithmetic
    Op("add", 2, OpKind.INFIX, lambda a, b: a + b, "np.add", ("", ""), 10, symbol="+",
       precedence=_P_ADD),
    Op("sub", 2, OpKind.INFIX, lambda a, b: a - b, "np.subtract", ("", ""), 10, symbol="-",
       precedence=_P_ADD),
    Op("mul", 2, OpKind.INFIX, lambda a, b: a * b, "np.multiply", ("", ""), 11, symbol="*",
       precedence=_P_MUL),
    Op("div", 2, OpKind.INFIX, lambda a, b: a / b, "np.divide", ("", ""), 10, "denominator != 0",
       symbol="/", precedence=_P_MUL),
    Op("pow", 2, OpKind.INFIX, mpmath.power, "np.power", ("powf", "pow"), 11,
       "base > 0, or integer exponent (base != 0 if negative)", symbol="^", precedence=_P_POW),
    Op("neg", 1, OpKind.PREFIX, lambda a: -a, "np.negative", ("", ""), 10, symbol="-",
       precedence=_P_NEG),
    # comparisons: 1 where true, 0 where false
    Op("lt", 2, OpKind.INFIX, lambda a, b: _truth(a < b), "np.less", ("", ""), 10, symbol="<",
       precedence=_P_COMPARE),
    Op("le", 2, OpKind.INFIX, lambda a, b: _truth(a <= b), "np.less_equal", ("", ""), 10,
       symbol="<=", precedence=_P_COMPARE),
    Op("gt", 2, OpKind.INFIX, lambda a, b: _truth(a > b), "np.greater", ("", ""), 10, symbol=">",
       precedence=_P_COMPARE),
    Op("ge", 2, OpKind.INFIX, lambda a, b: _truth(a >= b), "np.greater_equal", ("", ""), 10,
       symbol=">=", precedence=_P_COMPARE),
    Op("eq", 2, OpKind.INFIX, lambda a, b: _truth(a == b), "np.equal", ("", ""), 10, symbol="==",
       precedence=_P_COMPARE),
    Op("ne", 2, OpKind.INFIX, lambda a, b: _truth(a != b), "np.not_equal", ("", ""), 10,
       symbol="!=", precedence=_P_COMPARE),
    # an equation `lhs = rhs`: a statement to solve, not a value
    Op("equation", 2, OpKind.RELATION, None, "", ("", ""), 10, "not a value", symbol="=",
       precedence=_P_EQUATION),
    # elementary functions
    Op("sqrt", 1, OpKind.FUNCTION, mpmath.sqrt, "np.sqrt", ("sqrtf", "sqrt"), 15, "x >= 0"),
    Op("exp", 1, OpKind.FUNCTION, mpmath.exp, "np.exp", ("expf", "exp"), 20),
    Op("log", 1, OpKind.FUNCTION, mpmath.log, "np.log", ("logf", "log"), 20, "x > 0"),
    Op("sin", 1, OpKind.FUNCTION, mpmath.sin, "np.sin", ("sinf", "sin"), 20),
    Op("cos", 1, OpKind.FUNCTION, mpmath.cos, "np.cos", ("cosf", "cos"), 20),
    Op("tan", 1, OpKind.FUNCTION, mpmath.tan, "np.tan", ("tanf", "tan"), 20, "cos(x) != 0"),
    Op("asin", 1, OpKind.FUNCTION, mpmath.asin, "np.arcsin", ("asinf", "asin"), 20, "-1 <= x <= 1"),
    Op("acos", 1, OpKind.FUNCTION, mpmath.acos, "np.arccos", ("acosf", "acos"), 20, "-1 <= x <= 1"),
    Op("atan", 1, OpKind.FUNCTION, mpmath.atan, "np.arctan", ("atanf", "atan"), 20),
    Op("atan2", 2, OpKind.FUNCTION, mpmath.atan2, "np.arctan2", ("atan2f", "atan2"), 20,
       "not both 0"),
    Op("sinh", 1, OpKind.FUNCTION, mpmath.sinh, "np.sinh", ("sinhf", "sinh"), 20),
    Op("cosh", 1, OpKind.FUNCTION, mpmath.cosh, "np.cosh", ("coshf", "cosh"), 20),
    Op("tanh", 1, OpKind.FUNCTION, mpmath.tanh, "np.tanh", ("tanhf", "tanh"), 20),
    Op("asinh", 1, OpKind.FUNCTION, mpmath.asinh, "np.arcsinh", ("asinhf", "asinh"), 20),
    Op("acosh", 1, OpKind.FUNCTION, mpmath.acosh, "np.arccosh", ("acoshf", "acosh"), 20, "x >= 1"),
    Op("atanh", 1, OpKind.FUNCTION, mpmath.atanh, "np.arctanh", ("atanhf", "atanh"), 20,
       "-1 < x < 1"),
    Op("abs", 1, OpKind.FUNCTION, mpmath.fabs, "np.abs", ("fabsf", "fabs"), 12),
    Op("sign", 1, OpKind.FUNCTION, mpmath.sign, "np.sign", ("eqsat_signf", "eqsat_sign"), 12),
    Op("log1p", 1, OpKind.FUNCTION, mpmath.log1p, "np.log1p", ("log1pf", "log1p"), 20, "x > -1"),
    Op("expm1", 1, OpKind.FUNCTION, mpmath.expm1, "np.expm1", ("expm1f", "expm1"), 20),
    Op("hypot", 2, OpKind.FUNCTION, mpmath.hypot, "np.hypot", ("hypotf", "hypot"), 20),
    Op("erf", 1, OpKind.FUNCTION, mpmath.erf, "erf", ("erff", "erf"), 20),
    Op("erfc", 1, OpKind.FUNCTION, mpmath.erfc, "erfc", ("erfcf", "erfc"), 20),
    Op("sigmoid", 1, OpKind.FUNCTION, lambda a: 1 / (1 + mpmath.exp(-a)), "sigmoid",
       ("eqsat_sigmoidf", "eqsat_sigmoid"), 20),
    Op("softplus", 1, OpKind.FUNCTION, lambda a: mpmath.log1p(mpmath.exp(a)), "softplus",
       ("eqsat_softplusf", "eqsat_softplus"), 20),
    Op("log1mexp", 1, OpKind.FUNCTION, _log1mexp, "log1mexp",
       ("eqsat_log1mexpf", "eqsat_log1mexp"), 20, "x < 0"),
    Op("logaddexp", 2, OpKind.FUNCTION, lambda a, b: mpmath.log(mpmath.exp(a) + mpmath.exp(b)),
       "np.logaddexp", ("eqsat_logaddexpf", "eqsat_logaddexp"), 20),
    Op("min", 2, OpKind.FUNCTION, min, "np.minimum", ("fminf", "fmin"), 12),
    Op("max", 2, OpKind.FUNCTION, max, "np.maximum", ("fmaxf", "fmax"), 12),
    Op("where", 3, OpKind.FUNCTION, _where, "np.where", ("", ""), 12),
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
    Op("sum", 2, OpKind.TENSOR, None, "np.sum", ("", ""), 20, "all reals"),
    Op("mean", 2, OpKind.TENSOR, None, "np.mean", ("", ""), 21, "all reals"),
    Op("prod", 2, OpKind.TENSOR, None, "np.prod", ("", ""), 20, "all reals"),
    Op("amax", 2, OpKind.TENSOR, None, "np.max", ("", ""), 20, "all reals"),
    Op("amin", 2, OpKind.TENSOR, None, "np.min", ("", ""), 20, "all reals"),
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
    Op("pi", 0, OpKind.CONSTANT, lambda: +mpmath.pi, "np.pi", ("", ""), 10),
    Op("E", 0, OpKind.CONSTANT, lambda: mpmath.e + 0, "np.e", ("", ""), 10),
]

OPS: dict[str, Op] = {op.name: op for op in ROWS}

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


def lookup(name: str) -> Op | None:
    """The op a function or constant name denotes, following aliases."""
    return OPS.get(ALIASES.get(name, name))


TENSOR_OPS = frozenset(op.name for op in ROWS if op.kind == OpKind.TENSOR) | {"matmul"}
