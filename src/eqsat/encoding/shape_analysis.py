"""The e-graph's shape analysis, run only for tensor queries: ShapeOf(e) is the id of e's
shape in a table of the shapes the query can reach, filled from Python per session."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from fractions import Fraction

from egglog import bindings

from ..errors import ShapeError
from ..term.ops import ROWS, TENSOR_OPS, OpKind
from ..term.shape import ALL_AXES, AXISWISE, REDUCTIONS, Shape, broadcast, matmul
from . import commands as t

SHAPE_RULESET = "shapes"
SHAPE_OF = "ShapeOf"  # e-class -> shape id; 0 is the scalar shape ()
MAX_SHAPES = 64  # the table stops growing here: a term of a shape beyond it has no ShapeOf,
# and the guards that ask for shapes then do not hold (safe, only less eager)
_BINARY_TABLES = ("Broadcast", "Matmul", "Outer")
_RANK_RELATIONS = {1: "VectorShape", 2: "MatrixShape"}


def declarations() -> list[object]:
    """The functions and relations of the analysis, and its ruleset."""
    keep_first = t.call("min", t.var("old"), t.var("new"))
    commands: list[object] = [
        bindings.FunctionCommand(t.SPAN, SHAPE_OF, bindings.Schema([t.SORT], "i64"), keep_first),
        bindings.FunctionCommand(t.SPAN, "Transpose", bindings.Schema(["i64"], "i64"),
                                 keep_first),
        bindings.FunctionCommand(t.SPAN, "Reduced", bindings.Schema(["i64", "BigRat"], "i64"),
                                 keep_first),
    ]
    commands += [bindings.FunctionCommand(t.SPAN, name, bindings.Schema(["i64", "i64"], "i64"),
                                          keep_first) for name in _BINARY_TABLES]
    commands += [bindings.Relation(t.SPAN, name, ["i64"]) for name in _RANK_RELATIONS.values()]
    commands.append(bindings.AddRuleset(t.SPAN, SHAPE_RULESET))
    return commands


def _shape(term: t.Term) -> t.Term:
    return t.call(SHAPE_OF, term)


def _set(e: t.Term, value: t.Term) -> bindings.Set:
    return bindings.Set(t.SPAN, SHAPE_OF, [e], value)


def rules() -> list[object]:
    """ShapeOf of every op from its arguments' through the tables."""
    e, a, b, c = t.var("e"), t.var("a"), t.var("b"), t.var("c")
    sa, sb, sc = t.var("sa"), t.var("sb"), t.var("sc")
    found = [t.rule("shape-num", SHAPE_RULESET, [t.equal(e, t.call("Num", t.var("n")))],
                    [_set(e, t.integer(0))])]
    for spec in ROWS:
        name = spec.name
        if spec.kind == OpKind.CONSTANT:
            body, value = [t.equal(e, t.op(name))], t.integer(0)
        elif name in REDUCTIONS:
            axis = t.var("axis")
            body = [t.equal(e, t.op(name, a, t.call("Num", axis))), t.equal(sa, _shape(a))]
            value = t.call("Reduced", sa, axis)
        elif name in AXISWISE:
            body, value = [t.equal(e, t.op(name, a, b)), t.equal(sa, _shape(a))], sa
        elif name in ("matmul", "dot", "outer"):
            body = [t.equal(e, t.op(name, a, b)), t.equal(sa, _shape(a)), t.equal(sb, _shape(b))]
            value = t.call("Outer" if name == "outer" else "Matmul", sa, sb)
        elif name == "transpose":
            body, value = [t.equal(e, t.op(name, a)), t.equal(sa, _shape(a))], \
                t.call("Transpose", sa)
        elif name == "expand":  # the shape of the witness, its second argument
            body, value = [t.equal(e, t.op(name, a, b, c)), t.equal(sb, _shape(b))], sb
        elif name == "sum_to":
            body, value = [t.equal(e, t.op(name, a, b)), t.equal(sb, _shape(b))], sb
        elif name in TENSOR_OPS or not spec.is_value:
            continue  # vjp: its class gets a shape from the terms the rules find for it
        elif spec.arity == 1:
            body, value = [t.equal(e, t.op(name, a)), t.equal(sa, _shape(a))], sa
        elif spec.arity == 2:
            body = [t.equal(e, t.op(name, a, b)), t.equal(sa, _shape(a)), t.equal(sb, _shape(b))]
            value = t.call("Broadcast", sa, sb)
        else:  # where
            body = [t.equal(e, t.op(name, a, b, c)), t.equal(sa, _shape(a)),
                    t.equal(sb, _shape(b)), t.equal(sc, _shape(c))]
            value = t.call("Broadcast", t.call("Broadcast", sa, sb), sc)
        out = t.var("out")  # a table lookup binds in the body; actions only set it
        found.append(t.rule(f"shape-{name}", SHAPE_RULESET, [*body, t.equal(out, value)],
                            [_set(e, out)]))
    return found


class ShapeTable:
    """The shapes one query can reach (closed under the tensor ops, up to MAX_SHAPES), with
    ids, and the facts that tell the e-graph how the ops combine them."""

    def __init__(self) -> None:
        self.ids: dict[Shape, int] = {(): 0}
        self._emitted = 0

    def id_of(self, shape: Shape) -> int:
        return self.ids[shape]

    def add(self, shapes: Iterable[Shape]) -> list[object]:
        """Take in new shapes (and what the ops make of them); the facts not yet given."""
        frontier = [s for s in dict.fromkeys(shapes) if s not in self.ids]
        while frontier and len(self.ids) < MAX_SHAPES:
            shape = frontier.pop()
            if shape in self.ids:
                continue
            self.ids[shape] = len(self.ids)
            frontier += [s for s in self._made_from(shape) if s not in self.ids]
        return self._facts()

    def _made_from(self, shape: Shape) -> list[Shape]:
        made: list[Shape] = [tuple(reversed(shape))] if len(shape) <= 2 else []
        made += [shape[:k] + shape[k + 1:] for k in range(len(shape))]
        for other in list(self.ids):
            for first, second in ((shape, other), (other, shape)):
                for combine in (broadcast, matmul, _outer):
                    with contextlib.suppress(ShapeError):
                        made.append(combine("", first, second))
        return made

    def _facts(self) -> list[object]:
        """Every table row among the known shapes (egglog keeps rows it already has)."""
        if len(self.ids) == self._emitted:
            return []
        self._emitted = len(self.ids)
        rows: list[bindings._Action] = []
        for shape, index in self.ids.items():
            rank = len(shape)
            if rank in _RANK_RELATIONS:
                rows.append(t.action(t.call(_RANK_RELATIONS[rank], t.integer(index))))
            if rank <= 2 and tuple(reversed(shape)) in self.ids:
                rows.append(self._row("Transpose", [t.integer(index)],
                                      self.ids[tuple(reversed(shape))]))
            rows.append(self._row("Reduced", [t.integer(index), t.bigrat(Fraction(ALL_AXES))],
                                  0))
            for k in range(rank):
                reduced = shape[:k] + shape[k + 1:]
                if reduced in self.ids:
                    rows.append(self._row("Reduced", [t.integer(index), t.bigrat(Fraction(k))],
                                          self.ids[reduced]))
            for other, second in self.ids.items():
                for name, combine in (("Broadcast", broadcast), ("Matmul", matmul),
                                      ("Outer", _outer)):
                    try:
                        result = combine("", shape, other)
                    except ShapeError:
                        continue
                    if result in self.ids:
                        rows.append(self._row(name, [t.integer(index), t.integer(second)],
                                              self.ids[result]))
        return [bindings.ActionCommand(row) for row in rows]

    @staticmethod
    def _row(name: str, inputs: list[t.Term], result: int) -> bindings.Set:
        return bindings.Set(t.SPAN, name, inputs, t.integer(result))


def _outer(op: str, first: Shape, second: Shape) -> Shape:
    if len(first) != 1 or len(second) != 1:
        raise ShapeError(f"{op}: outer takes vectors")
    return first + second


def shape_fact(handle: str, shape_id: int) -> object:
    """ShapeOf of a symbol's e-class."""
    return bindings.ActionCommand(_set(t.var(handle), t.integer(shape_id)))
