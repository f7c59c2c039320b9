"""The errors eqsat raises on purpose; every one derives from EqsatError."""

from __future__ import annotations

MAX_MESSAGE_LINE = 240  # characters of one line of a message: an expression in it is cut


class EqsatError(Exception):
    """Base of every error eqsat raises on purpose. A long line of its message (a large
    expression quoted in it) is cut in the middle, so no message floods a terminal."""

    def __init__(self, *args: object) -> None:
        if args and isinstance(args[0], str):
            args = ("\n".join(map(_bounded_line, args[0].split("\n"))), *args[1:])
        super().__init__(*args)


def _bounded_line(line: str) -> str:
    if len(line) <= MAX_MESSAGE_LINE:
        return line
    head, tail = MAX_MESSAGE_LINE * 3 // 4, MAX_MESSAGE_LINE // 4 - 5
    return f"{line[:head]} ... {line[-tail:]}"


class ParseError(EqsatError):
    """Malformed expression text, with its position and a caret line."""

    def __init__(self, message: str, text: str = "", line: int = 0, column: int = 0,
                 source: str = "<input>") -> None:
        self.reason = message
        self.text = text
        self.line = line
        self.column = column
        self.source = source
        if line:
            src_line = text.splitlines()[line - 1] if text.splitlines() else ""
            shown, at = _window(src_line, max(column - 1, 0))
            message = f"{source}:{line}:{column}: {message}\n  {shown}\n  {' ' * at}^"
        super().__init__(message)


SHOWN_CHARS = 80  # of a long line, the part around the error


def _window(line: str, index: int) -> tuple[str, int]:
    """The part of a long line around index, marked with '...' where cut, and where index
    falls in it."""
    if len(line) <= SHOWN_CHARS:
        return line, index
    start = max(0, min(index - SHOWN_CHARS // 2, len(line) - SHOWN_CHARS))
    end = start + SHOWN_CHARS
    head = "..." if start > 0 else ""
    tail = "..." if end < len(line) else ""
    return head + line[start:end] + tail, index - start + len(head)


class ArgumentError(EqsatError, TypeError):
    """An argument of the wrong type or form, named in the message (also a TypeError)."""


class TruthValueError(EqsatError, TypeError):
    """bool() of a comparison or an equation whose truth depends on its symbols' values
    (also a TypeError, as SymPy's "cannot determine truth value of Relational")."""


class RuleError(EqsatError):
    """A broken rule file or rule: names the file, line and column."""


class EvaluationError(EqsatError):
    """An expression that cannot be evaluated as asked (missing value, equation)."""


class ConversionError(EvaluationError, TypeError):
    """float() or int() of an expression without one value (free symbols, undefined): also
    a TypeError, which float(), NumPy and libraries that try a conversion expect (as
    SymPy's "Cannot convert expression to float")."""


class SolveError(EqsatError):
    """An equation the rules cannot solve."""


class ShapeError(EqsatError):
    """Tensor shapes that do not fit an operation."""


class ShapeParseError(ParseError, ShapeError):
    """Text whose shapes do not fit, with the position of the op: both a ParseError and a
    ShapeError."""


class LimitError(EqsatError):
    """A resource limit (size, depth, numbers) that an input goes past."""
