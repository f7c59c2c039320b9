"""Printing: the printer base, and the text form that eqsat.parse reads back to the same Expr."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from ..limits.gc_pause import collector_paused
from .ops import OPS, REDUCING, OpKind
from .shape import ALL_AXES, AXIS_OPS
from .walks import postorder, tree_size

if TYPE_CHECKING:
    from .expr import Expr

ATOM = 1000
_RIGHT_ASSOCIATIVE = frozenset({"pow"})
_REDUCING_NAMES = {op: name for name, op in REDUCING.items()}
_NON_ASSOCIATIVE = frozenset({"lt", "le", "gt", "ge", "eq", "ne", "equation"})


def _number_text(value: Fraction) -> tuple[str, int]:
    """The shortest exact text: "3", "-3/4", "0.0094", "3.42e153" (a decimal where the
    denominator divides a power of ten and it is shorter than the fraction; an exponent
    where it saves SCIENTIFIC_SAVING characters)."""
    text = str(value)  # "3", "-3", "3/4", "-3/4"
    decimal = _decimal_text(value)
    if decimal is not None and len(decimal) < len(text):
        text = decimal
    elif value.denominator != 1:
        return text, OPS["div"].precedence
    return text, OPS["neg"].precedence if value < 0 else ATOM


SCIENTIFIC_SAVING = 5  # characters an exponent must save over plain digits


def _decimal_text(value: Fraction) -> str | None:
    """value as a decimal (plain, or with an exponent if that is much shorter); None where
    its denominator does not divide a power of ten."""
    rest, counts = value.denominator, {2: 0, 5: 0}
    for prime in counts:
        while rest % prime == 0:
            rest //= prime
            counts[prime] += 1
    if rest != 1:
        return None
    places = max(counts.values())  # digits after the point
    digits = str(abs(value.numerator * 10 ** places // value.denominator))
    sign = "-" if value < 0 else ""
    trimmed = digits.rstrip("0") or "0"
    exponent = len(digits) - len(trimmed) - places  # value = trimmed * 10^exponent
    if places:
        plain = digits.rjust(places + 1, "0")
        plain = f"{plain[:-places]}.{plain[-places:]}"
    else:
        plain = digits
    mantissa = trimmed if len(trimmed) == 1 else f"{trimmed[0]}.{trimmed[1:]}"
    scientific = f"{mantissa}e{exponent + len(trimmed) - 1}"
    if len(scientific) + SCIENTIFIC_SAVING <= len(plain):
        return sign + scientific
    return sign + plain


class Rope:
    """Text joined in constant time: the pieces are kept and written out once (str()), so a
    printout of a term nested 100,000 deep takes time in proportion to its length."""

    __slots__ = ("first", "pieces")
    first: str  # its first character ("" if empty)

    def __init__(self, *pieces: str | Rope) -> None:
        self.pieces = pieces
        self.first = ""
        for piece in pieces:
            if piece:
                self.first = piece[0] if isinstance(piece, str) else piece.first
                break

    def __bool__(self) -> bool:
        return bool(self.first)

    def __add__(self, other: str | Rope) -> Rope:
        return Rope(self, other)

    def __radd__(self, other: str) -> Rope:
        return Rope(other, self)

    def startswith(self, prefix: str) -> bool:
        """Whether it starts so (prefixes of one character only: what the printers ask)."""
        if len(prefix) != 1:
            raise ValueError("a Rope answers startswith for one character")
        return self.first == prefix

    def __str__(self) -> str:
        out: list[str] = []
        stack: list[str | Rope] = [self]
        while stack:
            piece = stack.pop()
            if isinstance(piece, str):
                out.append(piece)
            else:
                stack.extend(reversed(piece.pieces))
        return "".join(out)


Text = str | Rope
T = TypeVar("T", bound=Text)
R = TypeVar("R")  # what a printer makes of a node


def _round(text: str) -> str:
    return f"({text})"


def needs_parentheses(text: Text, prec: int, parent: int, right: bool, op: str) -> bool:
    """Whether an operand of an infix op needs parentheses to keep its shape."""
    if op in _RIGHT_ASSOCIATIVE:
        needs = prec <= parent if not right else prec < parent
    elif op in _NON_ASSOCIATIVE:
        needs = prec <= parent
    else:
        needs = prec < parent or (right and prec == parent)
    if right and text.startswith("-") and op not in _NON_ASSOCIATIVE:
        needs = True  # a - (-1), a^(-1); but x = -1
    return needs


def parenthesized(text: str, prec: int, parent: int, right: bool, op: str,
                  paren: Callable[[str], str] = _round) -> str:
    """An operand of an infix op, in parentheses where its shape needs them."""
    return paren(text) if needs_parentheses(text, prec, parent, right, op) else text


MAX_PRINTED_NODES = 200_000  # past this many nodes as a tree, the printers show a part
ELLIPSIS = "…"  # the name of a symbol standing for a subterm left out (not parseable)
Shown = tuple[str, int]  # text and the precedence of its outermost operator


def shown_part(root: Expr, budget: int = MAX_PRINTED_NODES) -> Expr:
    """The expression itself if it has at most `budget` nodes as a tree; else its top
    `budget` nodes, breadth first, with each subterm below them written as an ellipsis (a
    term with shared subterms can be exponentially larger as a tree than as a DAG). Takes
    time in proportion to the smaller of the tree and the budget."""
    positions: list[tuple[Expr, int]] = [(root, -1)]  # (subterm, index of its parent)
    expanded: list[bool] = []
    for index, (node, _parent) in enumerate(positions):
        fits = len(positions) + len(node.args) <= budget
        expanded.append(fits)
        if fits:
            positions.extend((arg, index) for arg in node.args)
    if all(expanded):
        return root
    node_type = type(root)  # Expr: printing sits below it, in expr.py's __str__
    children: dict[int, list[Expr]] = {}
    for index in range(len(positions) - 1, -1, -1):
        node, parent = positions[index]
        if not node.args:
            built = node
        elif expanded[index]:
            built = node_type(node.op, tuple(reversed(children.pop(index))))
        else:
            built = node_type("sym", (), ELLIPSIS)
        children.setdefault(parent, []).append(built)
    return children[-1][0]


def render[T: Text](root: Expr, node_text: Callable[[Expr, list[tuple[T, int]]], tuple[T, int]],
           budget: int = MAX_PRINTED_NODES) -> str:
    """Bottom-up over distinct subterms (of the part shown_part keeps); a subterm's text is
    dropped once its last parent has used it, so memory stays near the output's size."""
    with collector_paused():
        order = postorder(shown_part(root, budget))
        uses: dict[Expr, int] = {}
        for node in order:
            for arg in set(node.args):
                uses[arg] = uses.get(arg, 0) + 1
        done: dict[Expr, tuple[T, int]] = {}
        for node in order:
            done[node] = node_text(node, [done[a] for a in node.args])
            for arg in set(node.args):
                uses[arg] -= 1
                if not uses[arg]:
                    del done[arg]
        return str(done[order[-1]][0])


def to_text(root: Expr, budget: int = MAX_PRINTED_NODES) -> str:
    """Parseable text for an expression, with the fewest parentheses that keep its shape
    (an expression of more than `budget` nodes is shown in part: see shown_part)."""
    return TextPrinter().doprint(root, budget)


def abbreviated(*exprs: Expr, width: int = 60) -> str:
    """Expressions as text cut to `width` characters (in time that grows with the width,
    not the expressions), safe inside a C comment and a Python docstring."""
    return _cut(", ".join(to_text(e, budget=width) for e in exprs), width)


def _cut(text: str, width: int) -> str:
    text = text.replace("*/", "* /").replace('"""', "'''")
    return text if len(text) <= width else text[: width - 3] + "..."


class Texts:
    """to_text of many terms that share subterms: each distinct subterm is printed once, from
    its arguments' texts (kept whole, or to their first `kept` characters)."""

    def __init__(self, kept: int | None = None) -> None:
        self.kept = kept
        self.printer = TextPrinter()
        self.done: dict[Expr, tuple[str, int]] = {}

    def __call__(self, expr: Expr) -> str:
        if self.kept is None and tree_size(expr) > MAX_PRINTED_NODES:
            return to_text(expr)  # shown in part
        for node in postorder(expr, lambda n: n not in self.done):
            if node not in self.done:
                text, precedence = self.printer.node(node, [self.done[a] for a in node.args])
                self.done[node] = (str(text)[: self.kept], precedence)
        return self.done[expr][0]


class Abbreviations(Texts):
    """abbreviated() for many subterms of one program (a comment per line): each subterm's
    text is made once, from its arguments' texts kept to a few widths (which is enough to
    make the first `width` characters exact), so a program of n nodes takes time in n."""

    def __init__(self, width: int = 60) -> None:
        super().__init__(kept=4 * width)
        self.width = width

    def __call__(self, expr: Expr) -> str:
        return _cut(super().__call__(expr), self.width)


class Printer[R]:
    """The one printer base: a node's printed form from its arguments', by the printer's
    `_print_<op>` method where it has one (the special cases), else by `default` (tables and
    the op table). Subclasses: the infix printers below (text, LaTeX, Unicode), and the code
    printers of each target (NumPy calls, CUDA C expressions)."""

    _specials: ClassVar[frozenset[str]] = frozenset()  # the ops with a _print_<op> method

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        cls._specials = frozenset(name.removeprefix("_print_") for name in dir(cls)
                                  if name.startswith("_print_"))

    def node(self, node: Expr, args: list[R]) -> R:
        if node.op in self._specials:
            special: Callable[[Expr, list[R]], R] = getattr(self, f"_print_{node.op}")
            return special(node, args)
        return self.default(node, args)

    def default(self, node: Expr, args: list[R]) -> R:
        raise NotImplementedError


class InfixPrinter(Printer[tuple[Any, int]]):
    """Terms written for reading, each node as (text, precedence of its outermost operator),
    bottom-up over distinct subterms (see render). Tables: infix separators, function and
    constant names; hooks: how symbols, numbers, parentheses, calls and reductions look."""

    infix: ClassVar[dict[str, str]] = {}
    functions: ClassVar[dict[str, str]] = {}
    constants: ClassVar[dict[str, str]] = {}

    def doprint(self, root: Expr, budget: int = MAX_PRINTED_NODES) -> str:
        return render(root, self.node, budget)

    def node(self, node: Expr, args: list[tuple[Any, int]]) -> tuple[Any, int]:
        if node.is_symbol:
            return self._symbol(node.name), ATOM
        if node.is_number:
            return self._number(node.number)
        return super().node(node, args)

    def default(self, node: Expr, args: list[tuple[Any, int]]) -> tuple[Any, int]:
        spec = OPS[node.op]
        if spec.kind == OpKind.CONSTANT:
            return self.constants.get(node.op, node.op), ATOM
        if spec.kind in (OpKind.INFIX, OpKind.RELATION):
            return self._infix(node, args, self.infix.get(node.op, f" {spec.symbol} "))
        if node.op in AXIS_OPS:
            return self._reduction(node, args)
        return self._call(self.functions.get(node.op, node.op), [text for text, _ in args])

    def _infix(self, node: Expr, args: list[tuple[Any, int]], separator: str
               ) -> tuple[Any, int]:
        precedence = OPS[node.op].precedence
        (left, lp), (right, rp) = args
        left = parenthesized(left, lp, precedence, False, node.op, self._paren)
        right = parenthesized(right, rp, precedence, True, node.op, self._paren)
        return self._join(left, separator, right), precedence

    def _prefix(self, node: Expr, args: list[tuple[Any, int]], symbol: str
                ) -> tuple[Any, int]:
        """-a: its operand in parentheses if it binds looser or starts with a minus."""
        (text, prec), = args
        precedence = OPS[node.op].precedence
        inner = self._paren(text) if prec < precedence or text.startswith("-") else text
        return self._join(symbol, inner), precedence

    def _axis(self, node: Expr) -> Any | None:
        """The axis a reduction or softmax names, or None for every axis."""
        axis = node.args[-1]
        if axis.is_number and axis.number == ALL_AXES:
            return None
        return str(axis)

    def _symbol(self, name: str) -> Any:
        return name

    def _join(self, *pieces: Any) -> Any:
        """Pieces of text as one."""
        return "".join(pieces)

    def _number(self, value: Fraction) -> tuple[Any, int]:
        raise NotImplementedError

    def _paren(self, text: Any) -> Any:
        raise NotImplementedError

    def _call(self, name: str, args: list[Any]) -> tuple[Any, int]:
        raise NotImplementedError

    def _reduction(self, node: Expr, args: list[tuple[Any, int]]) -> tuple[Any, int]:
        raise NotImplementedError


class TextPrinter(InfixPrinter):
    """The text eqsat.parse reads back to the same Expr, with the fewest parentheses that
    keep its shape; in Ropes, so that a term nested 100,000 deep prints in linear time."""

    # `a + b`, `a < b`, `x = 1` spaced; `a*b`, `a/b`, `a^b`, `A@B` not
    infix: ClassVar[dict[str, str]] = {
        op.name: f" {op.symbol} " if op.precedence <= OPS["add"].precedence else op.symbol
        for op in OPS.values() if op.kind in (OpKind.INFIX, OpKind.RELATION)}

    def _number(self, value: Fraction) -> tuple[Any, int]:
        return _number_text(value)

    def _paren(self, text: Any) -> Any:
        return Rope("(", text, ")")

    def _join(self, *pieces: Any) -> Any:
        return Rope(*pieces)

    def _call(self, name: str, args: list[Any]) -> tuple[Any, int]:
        listed: list[Text] = []
        for index, text in enumerate(args):
            listed += [", ", text] if index else [text]
        return Rope(name, "(", *listed, ")"), ATOM

    def _reduction(self, node: Expr, args: list[tuple[Any, int]]) -> tuple[Any, int]:
        shown = [text for text, _ in args[:-1]]
        if self._axis(node) is not None:
            shown.append(Rope("axis=", args[-1][0]))
        return self._call(_REDUCING_NAMES.get(node.op, node.op), shown)

    def _print_neg(self, node: Expr, args: list[tuple[Any, int]]) -> tuple[Any, int]:
        return self._prefix(node, args, OPS["neg"].symbol)

    def _print_transpose(self, node: Expr, args: list[tuple[Any, int]]) -> tuple[Any, int]:
        text, prec = args[0]
        bare = prec == ATOM and not node.args[0].is_number
        return Rope(text if bare else self._paren(text), ".T"), ATOM
