"""Solution: what solve found, under which conditions, and the cases it split off."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from ..errors import SolveError
from ..term.display import latex, latex_text, pretty
from ..term.expr import Expr

Show = Callable[[Expr], str]


@dataclass(frozen=True)
class Discarded:
    """A candidate that failed the check by substitution, and why."""

    values: Mapping[str, Expr]
    reason: str

    def __str__(self) -> str:
        return self.format(str)

    def format(self, show: Show) -> str:
        shown = ", ".join(f"{k} = {show(v)}" for k, v in self.values.items())
        return f"discarded {shown}: {self.reason}"


@dataclass(frozen=True)
class Case:
    """The solution where `conditions` hold instead; None where it was not analysed."""

    conditions: tuple[Expr, ...]
    solution: Solution | None
    note: str = ""

    @property
    def unanalysed(self) -> str:
        """What to say of a case left unanalysed."""
        return "not analysed" + (f": {self.note}" if self.note else "")


class SolutionKind(StrEnum):
    """How many solutions (each compares equal to its text)."""

    UNIQUE = "unique"
    SEVERAL = "several"  # finitely many
    NONE = "none"
    INFINITE = "infinite"  # a family: some unknowns are free


@dataclass(frozen=True)
class Solution:
    """kind: how many solutions there are (see SolutionKind).

    solutions: each a mapping from unknown to value (free unknowns map to themselves);
    conditions: relations on the parameters under which this holds; cases: what holds
    where a condition fails; free: the unknowns left free in an infinite family.
    """

    kind: SolutionKind
    unknowns: tuple[str, ...]
    solutions: tuple[Mapping[str, Expr], ...] = ()
    free: tuple[str, ...] = ()
    conditions: tuple[Expr, ...] = ()
    cases: tuple[Case, ...] = ()
    discarded: tuple[Discarded, ...] = ()
    reason: str = ""
    method: str = ""

    def __post_init__(self) -> None:
        if self.kind not in tuple(SolutionKind):
            raise ValueError(f"unknown solution kind {self.kind!r}")
        object.__setattr__(self, "kind", SolutionKind(self.kind))  # "unique" given as text

    def __getitem__(self, unknown: str | Expr) -> Expr:
        name = unknown if isinstance(unknown, str) else unknown.name
        if name not in self.unknowns:
            raise SolveError(f"{name} is not one of the unknowns {list(self.unknowns)}")
        if self.kind == SolutionKind.NONE:
            raise SolveError(f"there is no solution{': ' + self.reason if self.reason else ''}")
        if self.kind == SolutionKind.SEVERAL:
            shown = " or ".join(str(s[name]) for s in self.solutions)
            raise SolveError(f"{name} has {len(self.solutions)} values ({shown}): use "
                             f".values({name!r}) or .solutions")
        return self.solutions[0][name]

    def values(self, unknown: str | Expr) -> list[Expr]:
        """Every value of the unknown, one per solution."""
        name = unknown if isinstance(unknown, str) else unknown.name
        return [s[name] for s in self.solutions]

    def __str__(self) -> str:
        return "\n".join(self._lines(0, str))

    def format(self, pretty_print: bool = False) -> str:
        """The text str() gives, or with pretty_print its Unicode rendering (x², √x)."""
        return "\n".join(self._lines(0, pretty if pretty_print else str))

    def __repr__(self) -> str:
        lines = self._lines(0, str)
        if len(lines) == 1:
            return f"<Solution {self.kind}: {lines[0]}>"
        return f"<Solution {self.kind}:\n  " + "\n  ".join(lines) + ">"

    def _repr_latex_(self) -> str:
        """Jupyter shows the values with their conditions, and each case below, indented."""
        return "$\\begin{aligned}" + " \\\\ ".join(self._latex_lines(0)) + "\\end{aligned}$"

    def _latex_lines(self, depth: int) -> list[str]:
        pad = "\\quad " * depth
        if self.kind == SolutionKind.NONE:
            head = f"\\text{{{latex_text(self._summary(str))}}}"
        elif self.kind == SolutionKind.INFINITE and set(self.free) == set(self.unknowns):
            head = f"\\text{{every }} {', '.join(self.free)}"
        else:
            determined = [u for u in self.unknowns if u not in self.free]
            head = " \\ \\text{or}\\ ".join(
                ",\\ ".join(f"{u} = {latex(s[u])}" for u in determined) for s in self.solutions)
            if self.kind == SolutionKind.INFINITE:
                head += f" \\ \\text{{for every }} {', '.join(self.free)}"
        if self.conditions:
            head += " \\quad \\text{if } " + " \\wedge ".join(map(latex, self.conditions))
        lines = [pad + head]
        for case in self.cases:
            conditions = " \\wedge ".join(map(latex, case.conditions))
            lines.append(f"{pad}\\text{{if }} {conditions}\\text{{:}}")
            if case.solution is None:
                lines.append(f"{pad}\\quad \\text{{{latex_text(case.unanalysed)}}}")
            else:
                lines += case.solution._latex_lines(depth + 1)
        lines += [f"{pad}\\text{{{latex_text(str(d))}}}" for d in self.discarded]
        return lines

    def _lines(self, indent: int, show: Show) -> list[str]:
        pad = "  " * indent
        when = f", if {' and '.join(map(show, self.conditions))}" if self.conditions else ""
        lines = [pad + self._summary(show) + when]
        for case in self.cases:
            lines.append(f"{pad}if {' and '.join(map(show, case.conditions))}:")
            if case.solution is None:
                lines.append(f"{pad}  {case.unanalysed}")
            else:
                lines += case.solution._lines(indent + 1, show)
        lines += [pad + d.format(show) for d in self.discarded]
        return lines

    def _summary(self, show: Show) -> str:
        if self.kind == SolutionKind.NONE:
            return "no solution" + (f" ({self.reason})" if self.reason else "")
        determined = [u for u in self.unknowns if u not in self.free]
        if self.kind == SolutionKind.INFINITE and not determined:
            return f"every {', '.join(self.free)}"
        shown = [", ".join(f"{u} = {show(s[u])}" for u in determined) for s in self.solutions]
        text = " or ".join(shown)
        if self.kind == SolutionKind.INFINITE:
            text += f" for every {', '.join(self.free)}"
        return text
