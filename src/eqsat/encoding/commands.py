"""egglog program pieces built as data (bindings objects): no user text becomes program text."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from egglog import bindings

from ..term.ops import OPS

# egglog-python 14 copies a span's file name into memory it never frees each time it converts a
# command (conversions.rs: Box::leak of the name): an empty name copies nothing
SPAN = bindings.RustSpan("", 0, 0)
SORT = "Math"
Term = Any  # bindings.Call | bindings.Var | bindings.Lit


def call(name: str, *args: Term) -> Term:
    return bindings.Call(SPAN, name, list(args))


def var(name: str) -> Term:
    return bindings.Var(SPAN, name)


def string(text: str) -> Term:
    return bindings.Lit(SPAN, bindings.String(text))


def integer(value: int) -> Term:
    return bindings.Lit(SPAN, bindings.Int(value))


def _bigint(value: int) -> Term:
    if -(2**62) < value < 2**62:
        return call("bigint", integer(value))
    return call("from-string", string(str(value)))


def bigrat(value: Fraction) -> Term:
    return call("bigrat", _bigint(value.numerator), _bigint(value.denominator))


def num(value: Fraction) -> Term:
    """The e-graph term of an exact constant."""
    return call("Num", bigrat(value))


def sym(name: str) -> Term:
    return call("Sym", string(name))


def op(name: str, *args: Term) -> Term:
    return call(OPS[name].egg, *args)


def fact(term: Term) -> Term:
    return bindings.Fact(term)


def equal(left: Term, right: Term) -> Term:
    return bindings.Eq(SPAN, left, right)


def rule(name: str, ruleset: str, body: list[Term], head: list[Term]) -> Term:
    return bindings.RuleCommand(bindings.Rule(SPAN, head, body, name, ruleset))


def union(left: Term, right: Term) -> Term:
    return bindings.Union(SPAN, left, right)


def subsume(name: str, *args: Term) -> Term:
    """Hide the e-node op(args) from later matching and extraction (it stays in its class)."""
    return bindings.Change(SPAN, bindings.Subsume(), OPS[name].egg, list(args))


def action(term: Term) -> Term:
    return bindings.Expr_(SPAN, term)
