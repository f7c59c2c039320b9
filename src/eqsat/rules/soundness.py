"""Numeric soundness check of a rule: sampled points where its guards hold, in mpmath."""

from __future__ import annotations

import random
import zlib
from dataclasses import replace
from fractions import Fraction

import mpmath

from ..term.expr import Expr, number
from ..term.reference import reference
from ..term.sampling import spread
from ..term.walks import postorder
from .guards import DEPENDENCE_GUARDS, GUARDS
from .model import Rule
from .soundness_tensor import check_tensor_rule
from .verdict import Verdict, smooth_function

DIGITS = 60
RAISED_DIGITS = (120, 480, 1920)
SOLVE_MAGNITUDE = 500
TOLERANCE = mpmath.mpf(10) ** -25  # relative, far above the working precision's rounding




def _close(left: mpmath.mpf, right: mpmath.mpf) -> bool:
    with mpmath.workdps(RAISED_DIGITS[-1]):
        scale = max(mpmath.mpf(1), abs(left), abs(right))
        return bool(abs(left - right) <= TOLERANCE * scale)


def _stable(expr: Expr, values: dict[str, mpmath.mpf]) -> mpmath.mpf | None:
    """The value at raised precision, trusted only while no intermediate exceeds 10^(d/3).

    Cancellation (cosh(a)^2 - sinh(a)^2 at large a) eats working digits, so a mismatch at
    the first precision is only a counterexample if it survives this; None if no precision
    tried is enough.
    """
    for digits in RAISED_DIGITS:
        value = reference(expr, values, digits, max_magnitude=digits // 3)
        if value is not None:
            return value
    return None


def _undefined_branch(rhs: Expr, values: dict[str, mpmath.mpf]) -> Expr | None:
    """A branch of a where(...) on the right side that is undefined at the point, taken or
    not (None if none is). The e-graph holds both branches and takes sign facts from every
    term it holds: a branch sqrt(b) where b < 0 would make b nonnegative wherever b occurs."""
    for node in postorder(rhs):
        if node.op != "where":
            continue
        for branch in node.args[1:]:
            if reference(branch, values, DIGITS) is None and \
                    reference(branch, values, RAISED_DIGITS[-1]) is None:
                return branch
    return None


def _guards_hold(rule: Rule, values: dict[str, mpmath.mpf]) -> bool:
    for guard in rule.guards:
        value = reference(guard.subject, values, DIGITS)
        if value is None or not GUARDS[guard.kind].holds(value):
            return False
    return True


def _as_difference(rule: Rule) -> Rule:
    """A solve rule as the values lhs - rhs of its two equations: where the left one is 0
    (the equation holds), the right one must be defined and 0."""
    (left, right), (new_left, new_right) = rule.lhs.args[0].args, rule.rhs.args[0].args
    return replace(rule, lhs=left - right, rhs=new_left - new_right)


def _constant(rng: random.Random) -> Expr:
    """A random constant, an integer half the time (where powers of negatives are defined)."""
    if rng.random() < 0.5:
        return number(rng.choice([-2, -1, 1, 2, 3]))
    return number(Fraction(rng.randint(-30, 30), 10))


def _instance(rule: Rule, rng: random.Random) -> Rule:
    """For rules about diff(., x): pattern variables become random functions of x, so both
    sides can be evaluated by differentiation. A variable is a constant where a guard says
    `free of x`, and half the time where it is an exponent no guard says `depends on x`:
    which power rule holds depends on it. (A constant elsewhere is d-const's case; a
    function's derivative formula may be 0/0 where a constant inner function sits on its
    singular point, e.g. acos(1).)"""
    differentiated = {n.args[1] for n in postorder(rule.lhs) if n.op == "diff"}
    if not differentiated:
        return rule
    constant = {g.subject for g in rule.guards if g.kind == "free of"}
    varying = {g.subject for g in rule.guards if g.kind == "depends on"}
    exponents = {n.args[1] for n in postorder(rule.lhs) if n.op == "pow"} - varying
    constant |= {v for v in exponents if rng.random() < 0.5}
    (variable, *_) = sorted(differentiated, key=lambda v: v.name)
    mapping = {v: _constant(rng) if v in constant else smooth_function(rng, variable)
               for v in rule.variables() - differentiated}
    guards = tuple(replace(g, subject=g.subject.subs(mapping)) for g in rule.guards
                   if g.kind not in DEPENDENCE_GUARDS)
    return replace(rule, lhs=rule.lhs.subs(mapping), rhs=rule.rhs.subs(mapping), guards=guards)


def _equation_holds(rule: Rule, values: dict[str, mpmath.mpf]) -> bool:
    """For a solve rule: set the lone variable on the right of its left equation to the
    value of that equation's left side, so that the equation holds; False if undefined.
    The value is computed at a raised precision, and only for inputs up to 500 in
    magnitude, so that it stays distinct from its limits: tanh(a) from 1, expm1(a) from -1."""
    if any(abs(v) > SOLVE_MAGNITUDE for v in values.values()):
        return False
    left, right = rule.lhs.args[0].args
    value = reference(left, values, RAISED_DIGITS[-1])
    if value is None:
        return False
    values[right.name] = value
    return True


def check_rule(rule: Rule, points: int = 300, needed: int = 12) -> Verdict:
    """Sample until `points` tries; unsound if the right side is undefined or differs anywhere.

    A rule about derivatives is checked on random instances, each side evaluated with
    mpmath's numerical differentiation. A rule about solve(...) is checked at points where
    its left equation holds: there its right equation must hold too.
    """
    if rule.about_tensors:
        return check_tensor_rule(rule, points, needed)
    rng = random.Random(zlib.crc32(rule.name.encode()))
    integers = {g.subject for g in rule.guards if g.kind == "is integer"}
    zeros = {g.subject for g in rule.guards if g.kind == "== 0"}
    tested = 0
    original = rule
    for _ in range(points):
        rule = _instance(original, rng)
        variables: list[Expr] = sorted(rule.variables(), key=lambda v: v.name)
        values = {v.name: mpmath.mpf(spread(rng, v in integers, v in zeros)) for v in variables}
        if rule.lhs.op == "solve":
            if not _equation_holds(rule, values):
                continue
            rule = _as_difference(rule)
        if not _guards_hold(rule, values):
            continue
        left = reference(rule.lhs, values, DIGITS)
        if left is None:
            continue
        tested += 1
        right = reference(rule.rhs, values, DIGITS)
        if right is None:  # rounding can fake a singularity: atanh(tanh(50)) at 60 digits
            right = reference(rule.rhs, values, RAISED_DIGITS[-1])
        point = {k: float(v) for k, v in values.items()}
        if right is None:
            return Verdict(original, tested, point, f"left side is {float(left):.6g} but the right "
                                                f"side is undefined")
        if (branch := _undefined_branch(rule.rhs, values)) is not None:
            return Verdict(original, tested, point, f"left side is {float(left):.6g} but the right "
                                                f"side's branch {branch} is undefined")
        if not _close(left, right):
            left, right = _stable(rule.lhs, values), _stable(rule.rhs, values)
            if left is None or right is None:
                tested -= 1  # no precision settles it here: not evidence either way
                continue
            if not _close(left, right):
                return Verdict(original, tested, point, f"left side is {float(left):.17g}, right "
                                                    f"side is {float(right):.17g}")
    rule = original
    if tested < needed:
        return Verdict(rule, tested, {}, f"only {tested} of {points} sampled points satisfy the "
                                         f"guards with the left side defined")
    return Verdict(rule, tested)
