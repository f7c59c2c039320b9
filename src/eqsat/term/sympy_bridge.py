"""Conversion between Expr and SymPy expressions (symbols are real, with their assumptions)."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import Any

import sympy

from ..errors import ArgumentError, EqsatError
from .expr import Expr, make, number, symbol
from .ops import OPS, ROWS
from .parse import parse
from .walks import postorder

_DIRECT: dict[str, Any] = {op.name: getattr(sympy, op.sympy) for op in ROWS
                           if op.sympy and op.arity}  # (pi and E: in _arithmetic)
_RELATIONS = {"lt": sympy.Lt, "le": sympy.Le, "gt": sympy.Gt, "ge": sympy.Ge, "eq": sympy.Eq,
              "ne": sympy.Ne}
# SymPy functions that are eqsat ops (Min and Max, which take any number of arguments, and
# sqrt, a power in SymPy, are converted on their own)
_FROM_FUNCTION = {function: name for name, function in _DIRECT.items()
                  if name not in ("min", "max", "sqrt")}


@cache
def _definition(op: str) -> tuple[Any, tuple[Any, ...]]:
    """An op SymPy has no function for, by its definition in other ops: the SymPy form, and
    the SymPy symbols standing for its operands."""
    spec = OPS[op]
    operands = tuple(symbol(name) for name in spec.operands)
    defined = to_sympy(parse(spec.defined_as, operands))
    return defined, tuple(map(_sympy_symbol, operands))


def _defined(op: str, args: list[Any]) -> Any:
    if op == "where":  # no definition in other ops
        return sympy.Piecewise((args[1], sympy.Ne(args[0], 0)), (args[2], True))
    defined, operands = _definition(op)
    return defined.xreplace(dict(zip(operands, args, strict=True)))


def _sympy_symbol(node: Expr) -> Any:
    flags = {a: True for a in node.assumptions}
    return sympy.Symbol(node.name, real=True, **flags)


def to_sympy(expr: Expr) -> Any:
    """The SymPy expression of an Expr; an equation becomes sympy.Eq."""
    if not isinstance(expr, Expr):
        raise ArgumentError(f"to_sympy takes an eqsat Expr, not {type(expr).__name__}")
    done: dict[Expr, Any] = {}
    for node in postorder(expr):
        args = [done[a] for a in node.args]
        if node.is_symbol:
            done[node] = _sympy_symbol(node)
        elif node.is_number:
            done[node] = sympy.Rational(node.number.numerator, node.number.denominator)
        elif node.op in _DIRECT:
            done[node] = _DIRECT[node.op](*args)
        elif OPS.get(node.op) is not None and (OPS[node.op].defined_as or node.op == "where"):
            done[node] = _defined(node.op, args)
        elif node.op in _RELATIONS:
            done[node] = sympy.Piecewise((1, _RELATIONS[node.op](*args)), (0, True))
        else:
            done[node] = _arithmetic(node.op, args)
    return done[expr]


def _arithmetic(op: str, args: list[Any]) -> Any:
    if op == "add":
        return args[0] + args[1]
    if op == "sub":
        return args[0] - args[1]
    if op == "mul":
        return args[0] * args[1]
    if op == "div":
        return args[0] / args[1]
    if op == "pow":
        return args[0] ** args[1]
    if op == "neg":
        return -args[0]
    if op == "equation":
        return sympy.Eq(args[0], args[1], evaluate=False)
    if op == "diff":
        return sympy.Derivative(args[0], args[1])
    if op == "fmod":  # (SymPy's Mod takes the sign of b)
        return sympy.sign(args[0]) * sympy.Mod(abs(args[0]), abs(args[1]))
    if op == "pi":
        return sympy.pi
    if op == "E":
        return sympy.E
    if op == "oo":
        return sympy.oo
    if op == "O":
        return _order(args[0])
    raise EqsatError(f"no SymPy form for {op}")


def _order(size: Any) -> Any:
    """SymPy's Order of an order term's argument, at the point where that vanishes: the
    root of its base (x - a)^k, or oo for x^-k."""
    base, exponent = size.as_base_exp()
    symbols = sorted(base.free_symbols, key=str)
    if len(symbols) != 1 or not base.is_polynomial(symbols[0]) or \
            sympy.degree(base, symbols[0]) != 1:
        return sympy.Order(size)
    x = symbols[0]
    point = -base.subs(x, 0) / sympy.diff(base, x) if exponent.is_positive else sympy.oo
    return sympy.Order(size, (x, point))


def from_sympy(value: Any) -> Expr:
    """An Expr from a SymPy expression (numbers exact; Float by its shortest decimal)."""
    try:
        converted = sympy.sympify(value, strict=not isinstance(value, str))
    except (sympy.SympifyError, TypeError, SyntaxError) as error:
        raise ArgumentError(f"from_sympy takes a SymPy expression, not "
                            f"{type(value).__name__} {str(value)[:40]!r} ({error})") from None
    stack: list[tuple[Any, bool]] = [(converted, False)]
    done: dict[Any, Expr] = {}
    while stack:
        node, ready = stack.pop()
        if node in done:
            continue
        if isinstance(node, sympy.Derivative):  # its arguments hold (variable, count) pairs
            done[node] = _derivative(node)
            continue
        if isinstance(node, sympy.Piecewise):  # its arguments hold (value, condition) pairs
            done[node] = _piecewise(node)
            continue
        if isinstance(node, sympy.Order):  # its arguments hold the point
            done[node] = make("O", from_sympy(node.expr))
            continue
        if not ready and node.args:
            if not isinstance(node, _COMPOUND):  # named here, not at an argument of it
                raise _unconvertible(node)
            stack.append((node, True))
            stack.extend((a, False) for a in node.args)
            continue
        done[node] = _from_node(node, [done[a] for a in node.args])
    return done[sympy.sympify(value)]


_COMPARED = {sympy.StrictLessThan: "lt", sympy.LessThan: "le", sympy.StrictGreaterThan: "gt",
             sympy.GreaterThan: "ge", sympy.Equality: "eq", sympy.Unequality: "ne"}

# the compound SymPy objects _from_node builds from their converted arguments
_COMPOUND = (sympy.Add, sympy.Mul, sympy.Pow, sympy.Min, sympy.Max, sympy.Eq, *_COMPARED,
             *_FROM_FUNCTION)


def _derivative(node: Any) -> Expr:
    result = from_sympy(node.expr)
    for variable, count in node.variable_count:
        for _ in range(int(count)):
            result = make("diff", result, from_sympy(variable))
    return result



def _piecewise(node: Any) -> Expr:
    """where(c1, e1, where(c2, e2, ... en)) of Piecewise((e1, c1), (e2, c2), ..., (en, True)),
    each condition a comparison's value (1 where it holds, 0 elsewhere)."""
    pieces = [(from_sympy(value), condition) for value, condition in node.args]
    result, last = pieces[-1]
    if last is not sympy.true:
        raise EqsatError(f"cannot convert SymPy Piecewise {str(node)[:60]} to eqsat: it has no "
                         "value where none of its conditions holds (add (value, True))")
    for value, condition in reversed(pieces[:-1]):
        test = _condition(condition)
        if value.is_number and value.number == 1 and result.is_number and result.number == 0:
            result = test  # Piecewise((1, x < y), (0, True)): the comparison itself
        elif test.op == "ne" and test.args[1].is_number and test.args[1].number == 0:
            result = make("where", test.args[0], value, result)  # c != 0: where's own test
        else:
            result = make("where", test, value, result)
    return result


def _condition(condition: Any) -> Expr:
    """A SymPy condition as a value, 1 where it holds and 0 elsewhere."""
    for kind, op in _COMPARED.items():
        if isinstance(condition, kind):
            return make(op, *(from_sympy(side) for side in condition.args))
    parts = [_condition(part) for part in getattr(condition, "args", ())]
    if isinstance(condition, sympy.And):
        return _fold("mul", parts)
    if isinstance(condition, sympy.Or):
        return _fold("max", parts)
    if isinstance(condition, sympy.Not):
        return make("sub", number(1), parts[0])
    raise EqsatError(f"cannot convert the SymPy condition {str(condition)[:60]} to eqsat")


def _fold(op: str, items: list[Expr]) -> Expr:
    result = items[0]
    for item in items[1:]:
        result = make(op, result, item)
    return result


def _from_node(node: Any, args: list[Expr]) -> Expr:
    if isinstance(node, sympy.Symbol):
        facts = node.assumptions0
        held = {a: True for a in ("positive", "negative", "integer") if facts.get(a)}
        if facts.get("nonnegative") and not facts.get("positive"):
            held["nonnegative"] = True
        if facts.get("nonzero") and not (facts.get("positive") or facts.get("negative")):
            held["nonzero"] = True
        return symbol(node.name, **held)
    if isinstance(node, sympy.Rational):
        return number(Fraction(int(node.p), int(node.q)))
    if isinstance(node, sympy.Float):
        return number(Fraction(repr(float(node))))
    if node is sympy.pi:
        return make("pi")
    if node is sympy.E:
        return make("E")
    if node is sympy.oo:
        return make("oo")
    if node is sympy.S.NegativeInfinity:
        return make("neg", make("oo"))
    if isinstance(node, sympy.Add):
        return _fold("add", args)
    if isinstance(node, sympy.Mul):
        return _fold("mul", args)
    if isinstance(node, sympy.Pow):
        if args[1].is_number and args[1].number == Fraction(1, 2):
            return make("sqrt", args[0])
        return make("pow", *args)
    if isinstance(node, (sympy.Min, sympy.Max)):
        return _fold("min" if isinstance(node, sympy.Min) else "max", args)
    if isinstance(node, sympy.Eq):
        return make("equation", *args)
    if type(node) in _COMPARED:
        return make(_COMPARED[type(node)], *args)
    for function, name in _FROM_FUNCTION.items():
        if isinstance(node, function):
            return make(name, *args)
    raise _unconvertible(node)


def _unconvertible(node: Any) -> EqsatError:
    return EqsatError(f"cannot convert SymPy {type(node).__name__} {str(node)[:60]} to eqsat: "
                      "it has no such operation")
