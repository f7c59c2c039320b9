"""Solution: what solve found, under which conditions, and the cases it split off."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import SolveError
from ..expr import Expr

KINDS = ("unique", "several", "none", "infinite")


@dataclass(frozen=True)
class Discarded:
    """A candidate that failed the check by substitution, and why."""

    values: Mapping[str, Expr]
    reason: str

    def __str__(self) -> str:
        shown = ", ".join(f"{k} = {v}" for k, v in self.values.items())
        return f"discarded {shown}: {self.reason}"


@dataclass(frozen=True)
class Case:
    """The solution where `conditions` hold instead; None where it was not analysed."""

    conditions: tuple[Expr, ...]
    solution: Solution | None
    note: str = ""


@dataclass(frozen=True)
class Solution:
    """kind: "unique", "several" (finitely many), "none" or "infinite".

    solutions: each a mapping from unknown to value (free unknowns map to themselves);
    conditions: relations on the parameters under which this holds; cases: what holds
    where a condition fails; free: the unknowns left free in an infinite family.
    """

    kind: str
    unknowns: tuple[str, ...]
    solutions: tuple[Mapping[str, Expr], ...] = ()
    free: tuple[str, ...] = ()
    conditions: tuple[Expr, ...] = ()
    cases: tuple[Case, ...] = ()
    discarded: tuple[Discarded, ...] = ()
    reason: str = ""
    method: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown solution kind {self.kind!r}")

    def __getitem__(self, unknown: str | Expr) -> Expr:
        name = unknown if isinstance(unknown, str) else unknown.name
        if name not in self.unknowns:
            raise SolveError(f"{name} is not one of the unknowns {list(self.unknowns)}")
        if self.kind == "none":
            raise SolveError(f"there is no solution{': ' + self.reason if self.reason else ''}")
        if self.kind == "several":
            shown = " or ".join(str(s[name]) for s in self.solutions)
            raise SolveError(f"{name} has {len(self.solutions)} values ({shown}): use "
                             f".values({name!r}) or .solutions")
        return self.solutions[0][name]

    def values(self, unknown: str | Expr) -> list[Expr]:
        """Every value of the unknown, one per solution."""
        name = unknown if isinstance(unknown, str) else unknown.name
        return [s[name] for s in self.solutions]

    def __str__(self) -> str:
        return "\n".join(self._lines(0))

    def _lines(self, indent: int) -> list[str]:
        pad = "  " * indent
        when = f", if {' and '.join(map(str, self.conditions))}" if self.conditions else ""
        lines = [pad + self._summary() + when]
        for case in self.cases:
            lines.append(f"{pad}if {' and '.join(map(str, case.conditions))}:")
            if case.solution is None:
                lines.append(f"{pad}  not analysed{': ' + case.note if case.note else ''}")
            else:
                lines += case.solution._lines(indent + 1)
        lines += [pad + str(d) for d in self.discarded]
        return lines

    def _summary(self) -> str:
        if self.kind == "none":
            return "no solution" + (f" ({self.reason})" if self.reason else "")
        determined = [u for u in self.unknowns if u not in self.free]
        if self.kind == "infinite" and not determined:
            return f"every {', '.join(self.free)}"
        shown = [", ".join(f"{u} = {s[u]}" for u in determined) for s in self.solutions]
        text = " or ".join(shown)
        if self.kind == "infinite":
            text += f" for every {', '.join(self.free)}"
        return text
