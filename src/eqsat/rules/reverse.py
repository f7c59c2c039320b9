"""Reverse-mode rules made from the derivative rules: each op's derivative is written once.

A [diff] rule `diff(f(a, b), x) => D` is linear in the diff(a, x), diff(b, x) it mentions,
so D with diff(a, x) = 1 and the others 0 is the partial derivative in a. The [grad] rule
made from it hands each operand the cotangent times its partial, summed back to the
operand's shape where it was broadcast (sum_to):

    vjp(f(a, b), g, x) => vjp(a, sum_to(g*D_a, a), x) + vjp(b, sum_to(g*D_b, b), x)

with the [diff] rule's guards. An operand whose partial is 0 is left out (a pow's constant
exponent); an op of one operand needs no sum_to (its shape is the operand's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..term.expr import Expr, make, number, symbol
from .model import Rule

DIFF_RULESET = "diff"
GRAD_RULESET = "grad"
_COTANGENT_NAMES = ("c", "g", "cotangent")


def vjp_rules(diff_rules: Sequence[Rule]) -> list[Rule]:
    """A [grad] rule for each [diff] rule of an op applied to distinct pattern variables (and
    numbers, which take no share: 0^b)."""
    made = []
    for rule in diff_rules:
        applied, variable = rule.lhs.args
        operands = applied.args
        variables = [a for a in operands if a.is_symbol]
        if not operands or not all(a.is_symbol or a.is_number for a in operands) or \
                len(set(variables)) != len(variables):
            continue  # d-self, d-const: written by hand in tensor.rules
        cotangent = next(symbol(n) for n in _COTANGENT_NAMES
                         if symbol(n) not in rule.variables())
        shares = []
        for operand in variables:
            partial = _tidy(_partial(rule.rhs, operand, operands, variable))
            if partial.is_number and partial.number == 0:
                continue
            share = _tidy(make("mul", cotangent, partial))
            if len(operands) > 1:
                share = make("sum_to", share, operand)
            shares.append(make("vjp", operand, share, variable))
        rhs = shares[0] if shares else number(0)
        for share in shares[1:]:
            rhs = make("add", rhs, share)
        name = "vjp-" + rule.name.removeprefix("d-")
        made.append(replace(rule, name=name, lhs=make("vjp", applied, cotangent, variable),
                            rhs=rhs, ruleset=GRAD_RULESET))
    return made


def _partial(term: Expr, operand: Expr, operands: Sequence[Expr], variable: Expr) -> Expr:
    """The term with diff(operand, x) = 1 and every other operand's diff(., x) = 0."""
    if term.op == "diff" and term.args[1] == variable and term.args[0] in operands:
        return number(1 if term.args[0] == operand else 0)
    if not term.args:
        return term
    return make(term.op, *(_partial(a, operand, operands, variable) for a in term.args))


def _tidy(term: Expr) -> Expr:
    """Drop the 0s and 1s that setting derivatives to constants leaves (0*e is 0: that only
    removes points where e is undefined, as a rule may)."""
    if not term.args:
        return term
    args = [_tidy(a) for a in term.args]
    op = term.op

    def value(e: Expr) -> object:
        return e.number if e.is_number else None

    left = value(args[0])
    right = value(args[1]) if len(args) > 1 else None
    if op == "mul":
        if left == 0 or right == 0:
            return number(0)
        if left == 1:
            return args[1]
        if right == 1:
            return args[0]
        if right == -1:
            return _tidy(make("neg", args[0]))
        if left == -1:
            return _tidy(make("neg", args[1]))
    if op == "add":
        if left == 0:
            return args[1]
        if right == 0:
            return args[0]
    if op == "sub":
        if right == 0:
            return args[0]
        if left == 0:
            return _tidy(make("neg", args[1]))
    if op == "div":
        if left == 0:
            return number(0)
        if right == 1:
            return args[0]
    if op == "neg" and args[0].op == "neg":
        return args[0].args[0]
    if op == "where" and args[1] == args[2]:  # where(p, 0, 0): the condition's share is 0
        return args[1]
    return make(op, *args)
