"""The true value of a term at a point as a python-flint arb ball (each op's `ball`), the
precision raised until the ball decides what a caller needs, as Herbie's Rival does: a ball
always holds the true value, so what it decides is right; and arb keeps hundreds of digits,
and arguments like exp(1e270), fast where mpmath takes milliseconds (reference.py)."""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable, Mapping
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from .ops import OPS
from .reference import astronomical
from .walks import postorder

if TYPE_CHECKING:
    from .expr import Expr

BITS = (96, 192, 384, 768, 1536, 3072, 6400)  # precisions tried in turn (the last ~ 1920 digits)
# each relation of an op's `defined` (its operand ge 0, ...), and the comparison that breaks it
_VIOLATED = {"ge": operator.lt, "gt": operator.le, "le": operator.gt, "lt": operator.ge}
# ops whose value at two identical operands is known whatever they are: balls forget that
# both are one value (pi - pi is a ball around 0, pi < pi undecided), so these are read off
_SAME_OPERANDS = {"sub": 0, "lt": 0, "gt": 0, "ne": 0, "le": 1, "ge": 1, "eq": 1}
_ONE_PRECISION = threading.Lock()  # python-flint's working precision (see decided_value)


class NoBall(Exception):
    """The term has an op with no ball form (diff): ask mpmath (reference.py)."""


def decided_value(expr: Expr, point: Mapping[str, float],
                  decide: Callable[[Any], tuple[bool, Any]]) -> Any:
    """decide(ball) -> (decided, answer) at each precision of BITS in turn, until it decides;
    None where the term is undefined at the point for certain (an operand outside an op's
    domain, a division by exactly 0, or astronomically large: see reference.astronomical),
    and where no precision decides: a value that no 6400 bits resolve (on the edge of a
    domain, as sqrt(sin(pi)), or 1 - 1/(1 + exp(-1e154)) raised to 1e173) is not known, and
    a point where it is not known says nothing about an error. NoBall where an op has no
    ball form."""
    import flint  # (50 ms to import: only when a true value is asked for)

    for bits in BITS:
        # (a ball's ends, too, are read at it; python-flint's precision is one for the
        # process: another thread's would change this one's balls, and what they decide)
        with _ONE_PRECISION, flint.ctx.workprec(bits):
            ball = _ball(expr, point, flint.arb)
            if ball is None:
                return None
            done, answer = decide(ball)
        if done:
            return answer
    return None


def _ball(expr: Expr, point: Mapping[str, float], arb: Any) -> Any:
    """The ball of expr at the working precision; None where it is undefined for certain
    (NaN where these balls cannot tell). A where is undefined only where the branch it takes
    is (an undefined branch not taken leaves it defined)."""
    done: dict[Expr, Any] = {}
    nodes, lazy = _walk(expr)
    for node in nodes:
        result = _node_ball(node, done, point, arb)
        if result is None and not lazy:
            return None
        done[node] = result
    return done[expr]


@lru_cache(maxsize=8)
def _walk(expr: Expr) -> tuple[tuple[Expr, ...], bool]:
    """The term's nodes, operands first, and whether a where is among them: walked once for
    the many points and precisions a true value is asked at."""
    nodes = tuple(postorder(expr))
    return nodes, any(node.op == "where" for node in nodes)


def _node_ball(node: Expr, done: Mapping[Expr, Any], point: Mapping[str, float],
               arb: Any) -> Any:
    """The node's ball from its operands' balls; None where it is undefined for certain."""
    if node.is_symbol:
        return arb(point[node.name])  # (a float: exact)
    if node.is_number:
        return arb(node.number.numerator) / node.number.denominator
    spec = OPS[node.op]
    if spec.ball is None:
        raise NoBall(f"{node.op} has no ball form")
    args = [done[a] for a in node.args]
    if node.op == "where" and args[0] is not None:
        condition, taken, other = args
        if condition != 0 or condition.is_zero():  # decided: the branch it takes
            return taken if condition != 0 else other
        return arb.nan() if taken is None or other is None else spec.ball(*args)
    if any(a is None for a in args):
        return None
    if (spec.defined and _outside(spec.defined, args)) or \
            (spec.grows_past_floats and astronomical(node.op, args, _beyond_floats(arb), _log)):
        return None
    if node.op in _SAME_OPERANDS and node.args[0] == node.args[1]:
        return arb(_SAME_OPERANDS[node.op])
    return spec.ball(*args)


def _outside(defined: tuple[tuple[str, int], ...], args: list[Any]) -> bool:
    """Whether the operand lies outside the op's domain for certain."""
    return any(_VIOLATED[relation](args[0], bound) for relation, bound in defined)


def _log(value: Any) -> Any:
    return value.log()


@cache
def _beyond_floats(arb: Any) -> Any:
    """10^308, exactly (reference.ASTRONOMICAL as a ball)."""
    return arb(10**308)
