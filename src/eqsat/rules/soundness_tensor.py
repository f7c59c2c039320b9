"""Numeric soundness check of a tensor rule: random arrays of many shapes (broadcasting
included) for identities, finite differences for the gradient (vjp) rules."""

from __future__ import annotations

import random
import zlib
from collections.abc import Mapping

import numpy as np

from ..errors import ShapeError
from ..term.expr import Expr, number, shaped_symbol, symbol
from ..term.numeric import evaluate
from ..term.sampling import uniform_array
from ..term.shape import ALL_AXES, AXIS_OPS, Shape, shape_of, show
from ..term.walks import postorder
from .guards import GUARDS
from .model import Guard, Rule
from .verdict import Verdict, smooth_function

# sizes 3 and 4 make most products fit and some not; 1 broadcasts
SHAPES: tuple[Shape, ...] = ((), (), (1,), (3,), (3,), (4,), (3, 3), (3, 3), (3, 4), (4, 3),
                             (3, 1), (1, 3))
AXES = (ALL_AXES, 0, 1)
STEP = 1e-6  # relative step of the central differences
IDENTITY_TOLERANCE = 1e-9
GRADIENT_TOLERANCE = 1e-5  # central differences in float64 are good to about 1e-9 here
ENOUGH = 40  # points that fit: evidence enough for one rule (each costs many evaluations)


def check_tensor_rule(rule: Rule, points: int = 300, needed: int = 12) -> Verdict:
    """Sample shapes, axes and arrays; unsound if the right side does not fit, has another
    shape, or another value anywhere the left side is defined and the guards hold."""
    rng = random.Random(zlib.crc32(rule.name.encode()))
    gradient = rule.lhs.op == "vjp"
    tested = 0
    for _ in range(points * 3):  # many sampled shapes do not fit: try more
        if tested >= ENOUGH:
            break
        instance = _gradient_instance(rule, rng) if gradient else _instance(rule, rng)
        if instance is None:
            continue
        lhs, rhs, guards, shapes = instance
        values = {name: uniform_array(rng, shape) for name, shape in shapes.items()}
        if not _guards_hold(guards, values):
            continue
        left = _value(lhs, values)
        if left is None:
            continue
        tested += 1
        where = ", ".join(f"{name}: {show(shape)}" for name, shape in sorted(shapes.items()))
        try:
            fits = shape_of(rhs) == shape_of(lhs) or gradient
        except ShapeError as error:
            return Verdict(rule, tested, {}, f"the right side does not fit ({error}) with {where}")
        if not fits:
            return Verdict(rule, tested, {}, f"the right side has shape {show(shape_of(rhs))}, "
                                             f"the left {show(shape_of(lhs))}, with {where}")
        right = _value(rhs, values)
        tolerance = GRADIENT_TOLERANCE if gradient else IDENTITY_TOLERANCE
        if right is None or not _close(left, right, tolerance):
            shown = "undefined" if right is None else np.round(right, 9).tolist()
            return Verdict(rule, tested, {}, f"left side {np.round(left, 9).tolist()}, right "
                                             f"side {shown} with {where}")
    if tested < needed:
        return Verdict(rule, tested, {}, f"only {tested} of {points} sampled shapes and points "
                                         f"fit the left side and the guards")
    return Verdict(rule, tested)


Instance = tuple[Expr, Expr, list[Guard], dict[str, Shape]]


def _axis_variables(rule: Rule) -> set[Expr]:
    return {n.args[-1] for side in (rule.lhs, rule.rhs) for n in postorder(side)
            if n.op in AXIS_OPS and n.args[-1].is_symbol}


def _substituted(rule: Rule, mapping: dict[Expr, Expr]) -> tuple[Expr, Expr, list[Guard]]:
    guards = [Guard(g.kind, g.subject.subs(mapping),
                    None if g.argument is None else g.argument.subs(mapping))
              for g in rule.guards]
    return rule.lhs.subs(mapping), rule.rhs.subs(mapping), guards


def _instance(rule: Rule, rng: random.Random) -> Instance | None:
    """Pattern variables become arrays of random shapes, axis variables random axes."""
    axes = _axis_variables(rule)
    shapes = {v.name: rng.choice(SHAPES) for v in rule.variables() - axes}
    mapping = {v: number(rng.choice(AXES)) for v in axes}
    mapping |= {symbol(name): shaped_symbol(name, shape, {}) for name, shape in shapes.items()}
    lhs, rhs, guards = _substituted(rule, mapping)
    try:
        shape_of(lhs)
    except ShapeError:
        return None
    return lhs, rhs, guards, shapes


def _gradient_instance(rule: Rule, rng: random.Random) -> Instance | None:
    """vjp(e, c, x): x an array of a random shape; each other variable a random smooth
    function of x, or (where a guard says `free of x`, and at random elsewhere) an array
    of its own random shape; the cotangent an array shaped like e."""
    _, cotangent, variable = rule.lhs.args
    axes = _axis_variables(rule)
    constant = {g.subject for g in rule.guards if g.kind == "free of"}
    x_shape = rng.choice(SHAPES)
    x = shaped_symbol("x", x_shape, {})
    shapes = {"x": x_shape}
    mapping: dict[Expr, Expr] = {v: number(rng.choice(AXES)) for v in axes}
    mapping[variable] = x
    for v in sorted(rule.variables() - axes - {cotangent, variable}, key=lambda v: v.name):
        if v in constant or rng.random() < 0.3:
            shapes[v.name] = rng.choice(SHAPES)
            mapping[v] = shaped_symbol(v.name, shapes[v.name], {})
        else:
            mapping[v] = smooth_function(rng, x)
    try:  # the cotangent keeps its rule's name (vjp-where's condition is called c)
        shapes[cotangent.name] = shape_of(rule.lhs.args[0].subs(mapping))
    except ShapeError:
        return None
    mapping[cotangent] = shaped_symbol(cotangent.name, shapes[cotangent.name], {})
    lhs, rhs, guards = _substituted(rule, mapping)
    return lhs, rhs, guards, shapes




def _guards_hold(guards: list[Guard], values: Mapping[str, np.ndarray]) -> bool:
    return all(GUARDS[g.kind].on_arrays(g.subject, g.argument, lambda e: _value(e, values))
               for g in guards)


def _value(expr: Expr, values: Mapping[str, np.ndarray]) -> np.ndarray | None:
    """The value in float64, each vjp(...) by central differences; None where undefined."""
    found = {**values}
    for node in postorder(expr):
        if node.op == "vjp":
            gradient = _vjp(node, found)
            if gradient is None:
                return None
            name = f"_vjp{len(found)}"
            found[name] = gradient
            expr = expr.subs({node: shaped_symbol(name[1:] + "_", shape_of(node), {})})
            found[name[1:] + "_"] = gradient
    try:
        result = np.asarray(evaluate(expr, found), dtype=np.float64)
    except ShapeError:
        return None
    return result if np.all(np.isfinite(result)) else None


def _vjp(node: Expr, values: Mapping[str, np.ndarray]) -> np.ndarray | None:
    """The gradient of sum(c * e) in x at the point, by central differences."""
    body, cotangent, variable = node.args
    c = _value(cotangent, values)
    point = np.array(values[variable.name], dtype=np.float64)
    if c is None:
        return None
    gradient = np.zeros_like(point)
    for index in np.ndindex(point.shape):
        step = STEP * max(1.0, abs(float(point[index])))
        sides = []
        for sign in (1, -1):
            moved = point.copy()
            moved[index] += sign * step
            value = _value(body, {**values, variable.name: moved})
            if value is None:
                return None
            sides.append(float(np.sum(c * value)))
        gradient[index] = (sides[0] - sides[1]) / (2 * step)
    return gradient


def _close(left: np.ndarray, right: np.ndarray, tolerance: float) -> bool:
    try:
        left, right = np.broadcast_arrays(left, right)
    except ValueError:
        return False
    scale = max(1.0, float(np.max(np.abs(left), initial=0.0)))
    return bool(np.all(np.abs(left - right) <= tolerance * scale))
