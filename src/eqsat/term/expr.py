"""Expr: immutable, hash-consed terms (op + args; leaves are symbols and exact numbers)."""

from __future__ import annotations

import keyword
import math
import numbers
import os
import re
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, ClassVar, Union

from ..errors import ArgumentError, ConversionError, EqsatError, LimitError, TruthValueError
from .display import latex
from .memos import Kept, forget_with
from .ops import OPS, folded, lookup
from .printing import to_text
from .reference import reference
from .shape import shape_of
from .walks import postorder, rebuild, tree_leaves, tree_size

ASSUMPTIONS = ("positive", "nonnegative", "negative", "nonzero", "integer")
# each compound term's symbols, kept while it lives (a query asks for them again and again)
_free_symbols: Kept[frozenset[Expr]] = Kept("free symbols")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_0-9]*\Z")
MAX_NUMBER_DIGITS = 2000  # bound on an exact constant written or folded
_BITS_SURELY_SHORT = int(MAX_NUMBER_DIGITS * math.log2(10)) - 1  # fewer bits: fewer digits
NOT_REAL = frozenset({"inf", "infinity", "nan", "oo"})  # names refused as symbols

_RELATIONS = frozenset({"lt", "le", "gt", "ge", "eq", "ne", "equation"})
ExprLike = Union["Expr", int, float, Fraction, numbers.Real]


class Expr:
    """A term. Structurally equal terms are the same object, so `==` is identity and the hash
    is the object's own (C-level: a query hashes terms hundreds of times)."""

    __slots__ = ("__weakref__", "_kept", "_sizes", "args", "assumptions", "op", "shape",
                 "value")
    _table: ClassVar[weakref.WeakValueDictionary[tuple[object, ...], Expr]] = (
        weakref.WeakValueDictionary())
    _table_lock: ClassVar[threading.Lock] = threading.Lock()  # one object per term, threads too

    op: str  # "sym", "num", or a name in ops.OPS
    args: tuple[Expr, ...]
    value: str | Fraction | None  # the name of a symbol, the value of a number
    assumptions: frozenset[str]
    shape: tuple[int | str, ...]  # a symbol's declared shape; () for a scalar (see shape.py)
    _sizes: tuple[int, int, bool, bool] | None  # see sizes(): filled in when first asked
    _kept: dict[str, object] | None

    def __new__(cls, op: str, args: tuple[Expr, ...] = (), value: str | Fraction | None = None,
                assumptions: frozenset[str] = frozenset(),
                shape: tuple[int | str, ...] = ()) -> Expr:
        # a number's key holds its numerator and denominator, not the Fraction: a term freed
        # at interpreter exit, after the fractions module's globals are gone, leaves the table
        # by its key's hash, and Fraction's hash needs those globals
        key = (op, args, (value.numerator, value.denominator) if type(value) is Fraction
               else value, assumptions, shape)
        found = cls._table.get(key)
        if found is not None:
            return found
        with cls._table_lock:
            found = cls._table.get(key)
            if found is None:
                found = cls._made(key, value)
        return found

    @classmethod
    def _made(cls, key: tuple[object, ...], value: str | Fraction | None) -> Expr:
        op, args, _, assumptions, shape = key
        self = super().__new__(cls)
        object.__setattr__(self, "op", op)
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "assumptions", assumptions)
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "_sizes", None)
        object.__setattr__(self, "_kept", None)  # the memos of memos.Kept
        cls._table[key] = self
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Expr is immutable")

    def __reduce__(self) -> tuple[object, ...]:
        return (Expr, (self.op, self.args, self.value, self.assumptions, self.shape))

    # --- leaves -------------------------------------------------------------------------------
    @property
    def is_symbol(self) -> bool:
        return self.op == "sym"

    @property
    def is_number(self) -> bool:
        return self.op == "num"

    @property
    def name(self) -> str:
        if not isinstance(self.value, str):
            raise EqsatError(f"{self} is not a symbol")
        return self.value

    @property
    def number(self) -> Fraction:
        if not isinstance(self.value, Fraction):
            raise EqsatError(f"{self} is not a number")
        return self.value

    # --- operators ----------------------------------------------------------------------------
    def __add__(self, other: ExprLike) -> Expr:
        return _fitted(make("add", self, as_expr(other)))

    def __radd__(self, other: ExprLike) -> Expr:
        return _fitted(make("add", as_expr(other), self))

    def __sub__(self, other: ExprLike) -> Expr:
        return _fitted(make("sub", self, as_expr(other)))

    def __rsub__(self, other: ExprLike) -> Expr:
        return _fitted(make("sub", as_expr(other), self))

    def __mul__(self, other: ExprLike) -> Expr:
        return _fitted(make("mul", self, as_expr(other)))

    def __rmul__(self, other: ExprLike) -> Expr:
        return _fitted(make("mul", as_expr(other), self))

    def __truediv__(self, other: ExprLike) -> Expr:
        return _fitted(make("div", self, as_expr(other)))

    def __rtruediv__(self, other: ExprLike) -> Expr:
        return _fitted(make("div", as_expr(other), self))

    def __pow__(self, other: ExprLike) -> Expr:
        return _fitted(make("pow", self, as_expr(other)))

    def __rpow__(self, other: ExprLike) -> Expr:
        return _fitted(make("pow", as_expr(other), self))

    def __matmul__(self, other: ExprLike) -> Expr:
        return _fitted(make("matmul", self, as_expr(other)))

    def __rmatmul__(self, other: ExprLike) -> Expr:
        return _fitted(make("matmul", as_expr(other), self))

    @property
    def T(self) -> Expr:
        """The transpose of a vector or matrix."""
        return _fitted(make("transpose", self))

    def __neg__(self) -> Expr:
        return make("neg", self)

    def __pos__(self) -> Expr:
        return self

    def __lt__(self, other: ExprLike) -> Expr:
        return _fitted(make("lt", self, as_expr(other)))

    def __le__(self, other: ExprLike) -> Expr:
        return _fitted(make("le", self, as_expr(other)))

    def __gt__(self, other: ExprLike) -> Expr:
        return _fitted(make("gt", self, as_expr(other)))

    def __ge__(self, other: ExprLike) -> Expr:
        return _fitted(make("ge", self, as_expr(other)))

    def __abs__(self) -> Expr:
        return _fitted(make("abs", self))

    # --- truth and numbers --------------------------------------------------------------------
    def __bool__(self) -> bool:
        """A comparison of constants is its truth; a comparison or an equation with symbols
        has none until they have values: `if x < 1:`, `max(x, y)` and `0 < x < 1` raise a
        TruthValueError (a TypeError), as SymPy does. A number is true when not zero; any
        other term is true (an object, as in SymPy)."""
        if self.op in _RELATIONS:
            return _truth(self)
        return self.value != 0 if self.is_number else True

    def __float__(self) -> float:
        """The float nearest a constant's value; an EqsatError naming the free symbols."""
        return float(_constant_value(self, "float"))  # an mpmath number rounds as a float

    def __int__(self) -> int:
        """A constant's value rounded toward zero, as int() of a float."""
        return int(_constant_value(self, "int"))

    # --- display ------------------------------------------------------------------------------
    def __str__(self) -> str:
        return to_text(self)

    def __repr__(self) -> str:
        return f"Expr({str(self)!r})"

    def _repr_latex_(self) -> str:
        """Jupyter renders an Expr as typeset math."""
        return f"${latex(self)}$"

    # --- structure ----------------------------------------------------------------------------
    def free_symbols(self) -> frozenset[Expr]:
        if self.op == "sym":  # (kept for compound terms only: a symbol's would name itself)
            return frozenset((self,))
        if not self.args:
            return frozenset()
        found = _free_symbols.get(self)
        if found is not None:
            return found
        # from the operands' where they are known (a term rebuilt bottom up asks each node
        # after its operands: a walk each made that quadratic in time), else by one walk
        # (kept for this term alone: every subterm's would be quadratic in memory)
        found = _free_symbols[self] = _operand_symbols(self) if all(
            not a.args or a in _free_symbols for a in self.args) else \
            frozenset(n for n in postorder(self) if n.op == "sym")
        return found

    def count_ops(self) -> int:
        """Operations in the tree, repeated subterms counted each time they appear."""
        return tree_size(self) - tree_leaves(self)

    def subs(self, mapping: dict[Expr, Expr]) -> Expr:
        """Replace subterms (symbols, usually) by other terms."""
        if not self.args:
            return mapping.get(self, self)

        def build(node: Expr, args: list[Expr]) -> Expr:
            if node in mapping:
                return mapping[node]
            return make(node.op, *args) if node.args else node

        return rebuild(self, build)


def _new_table_lock() -> None:
    """A fork child's lock starts free (the parent's may have been held by another thread)."""
    type.__setattr__(Expr, "_table_lock", threading.Lock())


os.register_at_fork(after_in_child=_new_table_lock)


def _operand_symbols(node: Expr) -> frozenset[Expr]:
    """The free symbols of a compound term whose compound operands' are known."""
    return frozenset().union(*((a,) if a.op == "sym" else _free_symbols[a] if a.args else ()
                               for a in node.args))


def _forget_kept() -> None:
    """Empty the memos kept on every live term (clear_cache); the table is read under its
    lock, as another thread may be adding to it."""
    with Expr._table_lock:
        terms = list(Expr._table.values())
    for term in terms:
        object.__setattr__(term, "_kept", None)


forget_with(_forget_kept)


def _fitted(result: Expr) -> Expr:
    """An expression built by an operator, its shapes checked as NumPy would (ShapeError)."""
    shape_of(result)
    return result


def _constant_value(expr: Expr, wanted: str) -> Any:
    """An expression's value when it has no symbols: a Fraction for a number, else an
    mpmath number at 50 digits."""
    names = sorted(s.name for s in expr.free_symbols())
    if names:
        raise ConversionError(f"{wanted}() needs a constant, but {expr} has the free "
                              f"symbol(s) {', '.join(names)}: give them values with subs or "
                              "evaluate")
    if expr.is_number:
        return expr.number
    value = reference(expr, {}, digits=50)
    if value is None:
        raise ConversionError(f"{wanted}() of {expr}: it is undefined or not finite")
    return value


def _truth(relation: Expr) -> bool:
    """The truth of a comparison of two constants (exact for numbers, by mpmath at 50 and
    100 digits otherwise); a TruthValueError for one with symbols, an equation, or constants
    whose difference the digits do not settle (sin(pi) == 0, which is true)."""
    if relation.op == "equation" or relation.free_symbols():
        raise TruthValueError(
            f"cannot determine the truth value of {relation}: it depends on the values of "
            f"{', '.join(sorted(s.name for s in relation.free_symbols())) or 'its sides'}; "
            "compare numbers, or use eqsat.where(...) for a value that depends on it "
            "(== compares expressions structurally)")
    left, right = (_constant_value(side, "bool") for side in relation.args)
    if not (isinstance(left, Fraction) and isinstance(right, Fraction)):
        import mpmath

        # their difference at 50 and at 100 digits: one that shrinks with the digits is
        # rounding (sin(pi) - 0 is 1e-50, then 1e-100), one that agrees is its value
        difference = make("sub", *relation.args)
        rough, fine = (reference(difference, {}, digits) for digits in (50, 100))
        if rough is None or fine is None or fine == 0 or \
                abs(rough - fine) > abs(fine) * mpmath.mpf(10) ** -20:
            raise TruthValueError(f"cannot determine the truth value of {relation}: its "
                                  "sides agree to all the digits computed (100)")
        left, right = fine, 0
    compare: dict[str, Callable[[Any, Any], bool]] = {
        "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
        "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}
    return bool(compare[relation.op](left, right))


def check_same_symbol(held: dict[str, Expr], node: Expr) -> None:
    """An EqsatError where the symbol `node` differs in assumptions or shape from the one of
    its name in `held` (one query, one meaning per name); else it is recorded there."""
    first = held.setdefault(node.name, node)
    if first.assumptions != node.assumptions:
        raise EqsatError(f"symbol {node.name!r} appears with different assumptions: "
                         f"{sorted(first.assumptions)} and {sorted(node.assumptions)}")
    if first.shape != node.shape:
        raise EqsatError(f"symbol {node.name!r} appears with different shapes: "
                         f"{first.shape} and {node.shape}")


# --- construction -------------------------------------------------------------------------------
def number(value: int | Fraction | str) -> Expr:
    """An exact rational constant."""
    frac = value if isinstance(value, Fraction) else Fraction(value)
    # (digits counted only where the bits say there may be too many: str is slow)
    if max(abs(frac.numerator), frac.denominator).bit_length() > _BITS_SURELY_SHORT and \
            max(len(str(abs(frac.numerator))), len(str(frac.denominator))) > MAX_NUMBER_DIGITS:
        raise LimitError(f"number with more than {MAX_NUMBER_DIGITS} digits")
    return Expr("num", (), frac)


def as_expr(value: ExprLike) -> Expr:
    """Python and NumPy numbers become exact constants (a float by its shortest decimal form
    in its own precision: np.float32(0.1) is 1/10)."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, bool):
        return number(int(value))
    if isinstance(value, numbers.Integral):
        return number(int(value))
    if isinstance(value, numbers.Rational):
        return number(Fraction(int(value.numerator), int(value.denominator)))
    if isinstance(value, numbers.Real):
        if not math.isfinite(value):
            raise EqsatError(f"{value} is not a finite number")
        plain = isinstance(value, float) and type(value).__module__ == "builtins"
        return number(Fraction(repr(value) if plain else str(value)))
    raise EqsatError(f"cannot use {type(value).__name__} {value!r} in an expression")


def make(op: str, *args: Expr) -> Expr:
    """Build op(args); literal negation and literal ratios become numbers (how they print)."""
    spec = OPS.get(op)
    if spec is None:
        raise EqsatError(f"unknown operation {op!r}")
    if len(args) != spec.arity:
        raise EqsatError(f"{op} takes {spec.arity} argument(s), got {len(args)}")
    if op in ("diff", "solve") and not args[1].is_symbol:
        raise EqsatError(f"{op} needs a symbol as its second argument, not {args[1]}")
    if op == "vjp" and not args[2].is_symbol:
        raise EqsatError(f"vjp needs a symbol as its third argument, not {args[2]}")
    if op == "solve" and args[0].op != "equation":
        raise EqsatError(f"solve needs an equation as its first argument, not {args[0]}")
    if op == "neg" and args[0].is_number:
        return number(-args[0].number)
    if op == "div" and args[0].is_number and args[1].is_number and args[1].number != 0:
        return number(args[0].number / args[1].number)
    return Expr(op, tuple(args))


def symbol(name: str, **assumptions: bool) -> Expr:
    """One symbol; assumptions: positive, nonnegative, negative, nonzero, integer."""
    if not isinstance(name, str):
        raise ArgumentError(f"a symbol's name is text, not {type(name).__name__}")
    return shaped_symbol(name, (), assumptions)


def shaped_symbol(name: str, shape: tuple[int | str, ...],
                  assumptions: Mapping[str, bool]) -> Expr:
    """A symbol with a shape (already checked: see shape.tensor); its assumptions hold for
    every element."""
    if not _IDENTIFIER.match(name) or keyword.iskeyword(name):
        raise EqsatError(f"symbol name {name!r} is not an identifier")
    if lookup(name) is not None:
        raise EqsatError(f"{name!r} names an operation, not a symbol")
    if name.lower() in NOT_REAL:
        raise EqsatError(f"{name!r} is not a real number, and too easily read as one to be a "
                         "symbol: eqsat's expressions are real-valued (use a bound such as "
                         "1e300, or a limit, instead)")
    unknown = set(assumptions) - set(ASSUMPTIONS)
    if unknown:
        raise EqsatError(f"unknown assumption(s) {sorted(unknown)}; known: {list(ASSUMPTIONS)}")
    held = frozenset(k for k, v in assumptions.items() if v)
    if {"positive", "negative"} <= held or {"nonnegative", "negative"} <= held:
        raise EqsatError(f"contradictory assumptions for {name}: {sorted(held)}")
    return Expr("sym", (), name, held, shape)


def symbols(names: str | Iterable[str], **assumptions: bool) -> Any:
    """Symbols from a space- or comma-separated string, as SymPy's: symbols("x") is one
    symbol, symbols("x y") and symbols("x,") a tuple; a list of names gives a tuple."""
    if isinstance(names, str):
        single = "," not in names and len(names.split()) == 1
        listed = names.replace(",", " ").split()
    elif isinstance(names, Iterable):
        single, listed = False, list(names)
    else:
        raise ArgumentError(f"symbols() takes names as text or a list, not "
                            f"{type(names).__name__}")
    found = tuple(symbol(n, **assumptions) for n in listed)
    if not found:
        raise EqsatError("symbols() needs at least one name")
    return found[0] if single else found


def constant(name: str) -> Expr:
    """pi or E."""
    return make(name)


_IDENTITY = {"mul": 1, "add": 0}  # a*1 and a + 0 are a, defined exactly where a is


def tidy(op: str, args: list[Expr]) -> Expr:
    """op(args) with an identity element left out (the chain rule's cos(x)*diff(x, x) is
    cos(x), not cos(x)*1; a - 0 and a/1 are a), a product with 0 folded to 0 (defined at more
    points than 0*a: sound), numbers folded (x^(2 - 1) is x^1) and a first power its base
    (x). Where the values are finite, each computes what the term does in floating point
    (a folded number: its exact value, rounded once)."""
    if all(a.is_number for a in args) and (value := folded(op, [a.number for a in args])) \
            is not None:
        return number(value)
    if op in ("pow", "sub", "div") and args[1].is_number and args[1].number == _UNCHANGING[op]:
        return args[0]
    if op == "mul" and any(a.is_number and a.number == 0 for a in args):
        return number(0)
    if op in _IDENTITY and len(args) == 2:
        for kept, other in (args, args[::-1]):
            if other.is_number and other.number == _IDENTITY[op]:
                return kept
    return make(op, *args)


_UNCHANGING = {"pow": 1, "sub": 0, "div": 1}  # a^1, a - 0, a/1 are a


def chained(op: str, items: Sequence[Expr]) -> Expr:
    """The binary op over the items from the left (a + b + c as (a + b) + c); at least one."""
    found = items[0]
    for item in items[1:]:
        found = make(op, found, item)
    return found


def signed_sum(terms: Sequence[tuple[Expr, int]]) -> Expr:
    """The terms added from the left, each with its sign (+1 or -1): a - b + c, -a + b; at
    least one (summands' inverse)."""
    first, sign = terms[0]
    found = first if sign > 0 else make("neg", first)
    for term, sign in terms[1:]:
        found = make("add" if sign > 0 else "sub", found, term)
    return found


def call(name: str, *args: ExprLike) -> Expr:
    """Apply a named op (aliases allowed) to arguments."""
    spec = lookup(name)
    if spec is None:
        raise EqsatError(f"unknown function {name!r}")
    return make(spec.name, *(as_expr(a) for a in args))
