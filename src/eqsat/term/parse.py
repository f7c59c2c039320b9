"""Safe parser: text -> Expr through the shipped Lark grammar; never eval."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction
from functools import lru_cache
from importlib import resources
from typing import Any

from lark import Lark, Token, Transformer_NonRecursive, Tree
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)

from ..errors import EqsatError, LimitError, ParseError, ShapeError, ShapeParseError
from ..limits.budget import MAX_INPUT_CHARACTERS
from ..limits.gc_pause import collector_paused
from ..limits.stored import stored_path
from .expr import MAX_NUMBER_DIGITS, Expr, make, number, symbol
from .ops import INFIX, OPS, REDUCING, OpKind, lookup
from .shape import AXIS_OPS, shape_of
from .tensors import with_axis

MAX_NESTING = 200
NODES_PER_CLOCK_READ = 4096  # the lexer and the builder read the clock once per this many
# (time.perf_counter() by which a parse must be done, the time limit it comes from)
_READ_BY: ContextVar[tuple[float, float, int]] = ContextVar(
    "read_by", default=(math.inf, math.inf, MAX_INPUT_CHARACTERS))
_NUMBER_PARTS = re.compile(r"(?P<mantissa>[\d.]+)(?:[eE](?P<exponent>[-+]?\d+))?\Z")
# A number (not inside a name) and what follows it: text that would lex as a number and then
# something else, but that a reader takes for one number (1.2.3, 1_000, 0x10, 1e, 2e+x)
_NUMBER_TAIL = re.compile(r"(?<![\w.])(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
                          r"(?P<tail>[.\d_]|[eE](?![A-Za-z0-9_])|[eE][-+](?!\d)"
                          r"|(?<=\b0)[xXbBoO][0-9A-Fa-f])?")
# an operand (a name, a number, a parenthesis) and then a number, with no operator between:
# juxtaposition multiplies by a name or a parenthesis, never by a number ("1 000", "2 3")
_NUMBER_AFTER_OPERAND = re.compile(r"(?:[\w.][ \t]+|\)[ \t]*)(?=\.?\d)")
_IMAGINARY = re.compile(r"(?<![\w.])(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[jJ](?!\w)")  # 1j
_NAME_THEN_DECIMAL = re.compile(r"(?:[A-Za-z_]\w*|\))(?=\.\d)")  # x1.5: not x1 * 0.5
_MALFORMED = {".": "a number has one decimal point", "_": "digits cannot be grouped with '_'",
              "e": "an exponent needs digits (1e5, 1e-5)",
              "x": "only decimal numbers are read (no 0x, 0b or 0o prefixes)"}
_TOKEN_NAMES = {
    "NAME": "a name", "NUMBER": "a number", "LPAR": "'('", "RPAR": "')'", "COMMA": "','",
    "PLUS": "'+'", "MINUS": "'-'", "STAR": "'*'", "SLASH": "'/'", "POW": "'^'",
    "EQUAL": "'='", "COMPARE": "a comparison", "$END": "end of input", "AT": "'@'",
    "TRANSPOSE": "'.T'", "AXIS": "'axis='",
}


# names that mean a constant in SymPy (or another CAS) which eqsat's real numbers do not have,
# or spell one of eqsat's otherwise: read as a symbol, they would answer silently otherwise
_FOREIGN_NAMES = {
    "I": "is the imaginary unit in SymPy, and eqsat's numbers are real",
    "zoo": "is SymPy's complex infinity, and eqsat's numbers are real (oo and -oo are its "
           "infinities)",
    "Pi": "is pi in eqsat",
    "Infinity": "is oo in eqsat",
}


@contextmanager
def reading_by(deadline: float, seconds: float,
               characters: int = MAX_INPUT_CHARACTERS) -> Iterator[None]:
    """Parses inside stop with a LimitError once time.perf_counter() passes the deadline (a
    call's time limit of `seconds` covers reading its input, which may be 100,000 nodes), and
    refuse a text longer than `characters` (the call's Limits.characters)."""
    token = _READ_BY.set((deadline, seconds, characters))
    try:
        yield
    finally:
        _READ_BY.reset(token)


def _check_reading_time() -> None:
    deadline, seconds, _ = _READ_BY.get()
    if time.perf_counter() > deadline:
        raise LimitError(f"the time limit of {seconds:g} s was reached while reading the input")


_STEPS = [0]  # tokens read and nodes built, in all threads (it only spaces clock readings)


def _step() -> None:
    _STEPS[0] += 1
    if _STEPS[0] % NODES_PER_CLOCK_READ == 0:
        _check_reading_time()


def _token_read(token: Token) -> Token:
    """The lexer's call for every token."""
    _step()
    return token


class _TimedTree(Tree[Any]):
    """The parser's tree nodes, each a step of reading (a chain of prefix minus signs is
    read first, then built)."""

    def __init__(self, data: str, children: list[Any], meta: Any = None) -> None:
        _step()
        super().__init__(data, children, meta)


@lru_cache(maxsize=2)
def grammar(positions: bool = False) -> Lark:
    """The shared LALR parser; its entry points serve expressions and .rules lines. With
    positions, every node of the tree knows where it was written (a parse takes twice as
    long: it is the parse that finds where a node the builder refused is)."""
    text = resources.files("eqsat.term").joinpath("grammar.lark").read_text(encoding="utf-8")
    # Lark keeps its LALR tables there, checked against the grammar and options it is given
    tables = stored_path(f"grammar-{'positions' if positions else 'plain'}.lark-tables")
    return Lark(text, parser="lalr", propagate_positions=positions,
                start=["expression", "rule_line", "check_line", "section_line"],
                lexer_callbacks=dict.fromkeys(_TOKEN_NAMES.keys() - {"$END"}, _token_read),
                tree_class=_TimedTree, cache=False if tables is None else str(tables))


class _Located(EqsatError):
    """An error found while building, with the position of the offending token."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.line, self.column = line, column


def exact_number(text: str, line: int = 1, column: int = 1) -> Fraction:
    """A decimal or scientific literal as an exact rational, refusing huge exponents."""
    match = _NUMBER_PARTS.match(text)
    if match is None:
        raise _Located(f"malformed number {text!r}", line, column)
    exponent = int(match["exponent"] or 0)
    if abs(exponent) > MAX_NUMBER_DIGITS or len(match["mantissa"]) > MAX_NUMBER_DIGITS:
        raise _Located(f"number {text!r} is too large to hold exactly", line, column)
    return Fraction(match["mantissa"]) * Fraction(10) ** exponent


class _Axis:
    """An `axis=k` argument, with where it was written."""

    def __init__(self, value: Expr, line: int, column: int) -> None:
        self.value, self.line, self.column = value, line, column

    def integer(self) -> int:
        value = self.value
        if not value.is_number or value.number.denominator != 1:
            raise _Located(f"an axis is an integer, not {value}", self.line, self.column)
        return int(value.number)


class _Builder(Transformer_NonRecursive[Token, Any]):
    """Parse tree -> Expr. Names resolve to constants, known symbols, or new symbols."""

    def __init__(self, known: dict[str, Expr], shapes: bool) -> None:
        super().__init__()
        self.known = known
        self.shapes = shapes  # check shapes node by node (not in rules: pattern variables)

    def _fitted(self, result: Expr) -> Expr:
        _step()
        if self.shapes:
            shape_of(result)  # a ShapeError here gets the node's position
        return result

    def _operands(self, op: str, args: list[Expr]) -> Expr:
        for arg in args:
            if arg.op == "equation":
                raise EqsatError(f"an equation cannot be an operand of {op!r}")
        return self._fitted(make(op, *args))

    def number(self, children: list[Token]) -> Expr:
        token = children[0]
        return number(exact_number(str(token), token.line or 1, token.column or 1))

    def name(self, children: list[Token]) -> Expr:
        token = children[0]
        text = str(token)
        if text in self.known:
            return self.known[text]
        if text in _FOREIGN_NAMES:
            raise _Located(f"{text!r} {_FOREIGN_NAMES[text]}; a symbol of that name is "
                           f"declared: assume={{{text!r}: 'real'}} (--assume {text}=real) or "
                           f"symbols=[eqsat.symbol({text!r})]", token.line or 1,
                           token.column or 1)
        spec = lookup(text)
        if spec is not None and spec.kind == OpKind.CONSTANT:
            return make(spec.name)
        if spec is not None:
            raise _Located(f"{text!r} is a function: call it as {text}(...)",
                           token.line or 1, token.column or 1)
        return symbol(text)

    def call(self, children: list[object]) -> Expr:
        token, arguments = children
        assert isinstance(token, Token)
        where = token.line or 1, token.column or 1
        given: list[Any] = list(arguments.children) if isinstance(arguments, Tree) else []
        args = [a for a in given if isinstance(a, Expr)]
        axes = [a for a in given if isinstance(a, _Axis)]
        spec = lookup(str(token))
        if spec is None or spec.kind == OpKind.CONSTANT:
            raise _Located(f"unknown function {str(token)!r}", *where)
        if spec.is_value and any(a.op == "equation" for a in args):  # exp(x=1): no keyword
            raise _Located(f"an equation cannot be an argument of {token}() (only a "
                           "reduction takes a keyword, axis=k)", *where)
        name = REDUCING.get(str(token), spec.name) if len(args) == 1 else spec.name
        if name in AXIS_OPS:
            if len(args) != OPS[name].arity - 1 or len(axes) > 1:
                raise _Located(f"{token}() takes {OPS[name].arity - 1} argument(s) and an "
                               "optional axis=k", *where)
            if axes and axes[0].value.is_symbol:  # a pattern variable, in a rule
                return make(name, *args, axes[0].value)
            return self._fitted(with_axis(name, args, axes[0].integer() if axes else None))
        if axes:
            raise _Located(f"{token}() takes no axis", axes[0].line, axes[0].column)
        if len(args) != spec.arity:
            raise _Located(f"{token}() takes {spec.arity} argument(s), got {len(args)}", *where)
        return self._fitted(make(spec.name, *args))

    def arguments(self, children: list[Any]) -> Tree[Any]:
        return Tree("arguments", children)

    def axis(self, children: list[Any]) -> _Axis:
        token, value = children
        return _Axis(value, token.line or 1, token.column or 1)

    def matmul(self, children: list[Expr]) -> Expr:
        return self._operands("matmul", children)

    def transpose(self, children: list[Any]) -> Expr:
        return self._operands("transpose", children[:1])

    def equation(self, children: list[Expr]) -> Expr:
        return self._operands("equation", children)

    def compare(self, children: list[object]) -> Expr:
        left, token, right = children
        assert isinstance(left, Expr) and isinstance(right, Expr)
        return self._operands(INFIX[str(token)].name, [left, right])

    def pow(self, children: list[object]) -> Expr:
        base, _, exponent = children
        assert isinstance(base, Expr) and isinstance(exponent, Expr)
        return self._operands("pow", [base, exponent])

    def add(self, children: list[Expr]) -> Expr:
        return self._operands("add", children)

    def sub(self, children: list[Expr]) -> Expr:
        return self._operands("sub", children)

    def mul(self, children: list[Expr]) -> Expr:
        return self._operands("mul", children)

    implicit_mul = mul

    def div(self, children: list[Expr]) -> Expr:
        return self._operands("div", children)

    def neg(self, children: list[Expr]) -> Expr:
        return self._operands("neg", children)


def _at(message: str, text: str, index: int, source: str = "<input>") -> ParseError:
    """A ParseError at a character index of the text (its line and column)."""
    line = text.count("\n", 0, index) + 1
    return ParseError(message, text, line, index - (text.rfind("\n", 0, index) + 1) + 1,
                      source)


def _check_numbers(text: str, source: str) -> None:
    """A ParseError at a number written so that it would be read as something else."""
    for match in _NUMBER_TAIL.finditer(text):
        tail = match["tail"]
        if tail is None:
            continue
        kind = "." if tail in "." or tail.isdigit() else tail[0].lower()
        kind = "x" if kind in "xbo" else kind
        raise _at(f"malformed number: {_MALFORMED[kind]}", text, match.start(), source)
    if found := _NAME_THEN_DECIMAL.search(text):
        raise _at("a decimal point right after a name or ')' (write x*1.5, or x1_5 for a name)",
                  text, found.end(), source)
    if found := _IMAGINARY.search(text):
        raise _at("an imaginary number: eqsat's expressions are real (write 1*j for a symbol "
                  "j)", text, found.start(), source)
    if found := _NUMBER_AFTER_OPERAND.search(text):
        raise _at("a number right after another operand: write the operator (2*3, not 2 3; "
                  "no spaces inside numbers)", text, found.end(), source)


def _check_bounds(text: str, source: str) -> None:
    characters = _READ_BY.get()[2]
    if len(text) > characters:
        raise ParseError(f"input of {len(text):,} characters is longer than the limit of "
                         f"{characters:,} (raise it with Limits(characters=N), or "
                         "--char-limit N)", text, 1, 1, source)
    depth = 0
    line, column = 1, 0
    for char in text:
        column += 1
        if char == "\n":
            line, column = line + 1, 0
        elif char == "(":
            depth += 1
            if depth > MAX_NESTING:
                raise ParseError(f"parentheses nested deeper than {MAX_NESTING}", text, line,
                                 column, source)
        elif char == ")":
            depth -= 1


def _expected(error: UnexpectedInput) -> str:
    names = sorted({_TOKEN_NAMES.get(t, t.lower()) for t in getattr(error, "expected", ())
                    if not t.startswith("__")})
    return f"; expected {', '.join(names[:6])}" if names else ""


def parse_with(text: str, start: str, known: Iterable[Expr] = (), source: str = "<input>",
               line_offset: int = 0) -> Tree[object] | Expr:
    """Parse text from one grammar entry point; every failure is a ParseError with a caret."""
    if not isinstance(text, str):
        raise ParseError(f"expected text to parse, got {type(text).__name__}")
    _check_bounds(text, source)
    _check_numbers(text, source)
    where = text if line_offset == 0 else "\n" * line_offset + text
    names = {s.name: s for s in known}
    try:
        try:
            return _built(text, start, names, positions=False)
        except VisitError as refused:  # parsed again to find where the refused node is
            if isinstance(refused.orig_exc, LimitError):
                raise refused.orig_exc from None
            return _built(text, start, names, positions=True)
    except UnexpectedCharacters as error:
        raise ParseError(f"unexpected character {error.char!r}", where,
                         error.line + line_offset, error.column, source) from None
    except (UnexpectedEOF, UnexpectedToken) as error:
        if isinstance(error, UnexpectedEOF) or error.token.type == "$END":
            lines = text.splitlines() or [""]
            raise ParseError(f"unexpected end of input{_expected(error)}", where,
                             len(lines) + line_offset, len(lines[-1]) + 1, source) from None
        raise ParseError(f"unexpected {str(error.token)!r}{_expected(error)}", where,
                         error.line + line_offset, error.column, source) from None
    except VisitError as error:
        cause = error.orig_exc
        meta = getattr(error.obj, "meta", None)
        line, column = (cause.line, cause.column) if isinstance(cause, _Located) else \
            (getattr(meta, "line", 1), getattr(meta, "column", 1))
        if isinstance(cause, ShapeError):
            raise ShapeParseError(str(cause), where, line + line_offset, column,
                                  source) from None
        if isinstance(cause, EqsatError):
            raise ParseError(str(cause), where, line + line_offset, column, source) from None
        raise


def _built(text: str, start: str, known: dict[str, Expr],
           positions: bool) -> Tree[object] | Expr:
    with collector_paused():
        tree = grammar(positions).parse(text, start=start)
        builder = _Builder(known, shapes=start == "expression")
        built: Tree[object] | Expr = builder.transform(tree)
    return built


def parse(text: str | Expr, symbols: Iterable[Expr] = ()) -> Expr:
    """Text -> Expr. Names in `symbols` take those symbols (and their assumptions)."""
    if isinstance(text, Expr):
        return text
    if isinstance(text, str) and not text.strip():
        raise ParseError("empty expression", text, 1, 1)
    inner = re.search(r"[\r\n]", text.strip()) if isinstance(text, str) else None
    if inner is not None:
        raise _at("a line break inside an expression: an expression is one line (batch mode "
                  "reads one a line; @FILE holds one)", text,
                  len(text) - len(text.lstrip()) + inner.start())
    result = parse_with(text, "expression", symbols)
    assert isinstance(result, Expr)
    return result
