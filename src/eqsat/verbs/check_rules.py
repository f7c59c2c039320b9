"""check_rules: the soundness verdict of each rule in .rules files."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..rules import load_rules
from ..term import arguments

if TYPE_CHECKING:  # loaded when used
    from ..rules.verdict import Verdict


def check_rules(paths: Iterable[str | Path], points: int = 300) -> list[Verdict]:
    """Load rule files and check every rule numerically; unsound ones carry a counterexample."""
    from ..rules.soundness import check_rule

    points = arguments.count(points, "points")
    return [check_rule(rule, points) for rule in load_rules(arguments.rule_files(paths)).rules]
