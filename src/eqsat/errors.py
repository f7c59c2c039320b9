"""The errors eqsat raises on purpose; every one derives from EqsatError."""

from __future__ import annotations


class EqsatError(Exception):
    """Base of every error eqsat raises on purpose."""


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
            caret = " " * max(column - 1, 0) + "^"
            message = f"{source}:{line}:{column}: {message}\n  {src_line}\n  {caret}"
        super().__init__(message)


class RuleError(EqsatError):
    """A broken rule file or rule: names the file, line and column."""


class EvaluationError(EqsatError):
    """An expression that cannot be evaluated as asked (missing value, equation)."""


class SolveError(EqsatError):
    """An equation the rules cannot solve."""


class ShapeError(EqsatError):
    """Tensor shapes that do not fit an operation."""


class ShapeParseError(ParseError, ShapeError):
    """Text whose shapes do not fit, with the position of the op: both a ParseError and a
    ShapeError."""


class LimitError(EqsatError):
    """A resource limit (size, depth, numbers) that an input goes past."""
