"""Loading .rules files: sections, rules (=> and <=>), guards and checks, with located errors."""

from __future__ import annotations

import re
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from lark import Token, Tree

from ..errors import EqsatError, ParseError, RuleError
from ..term.expr import Expr, symbol
from ..term.ops import INFIX
from ..term.parse import parse_with
from .guards import GUARDS, describe
from .model import Check, Guard, Origin, Rule, RuleFile

_SECTION = re.compile(r"\s*\[")
_CHECK = re.compile(r"\s*check\s*:")


# a wheel carries the repository's rules/ folder as eqsat/library (pyproject's force-include);
# an editable install or a checkout on the path reads it where it is (docs/architecture.md)
_PACKAGED = "library"
_CHECKOUT = Path(__file__).resolve().parents[3] / "rules"  # src/eqsat/rules/loader.py


def library_folder() -> Path:
    """The folder of the rule files shipped with eqsat: in the installed package, else the
    top-level rules/ folder of the checkout this module runs from."""
    packaged = Path(str(resources.files("eqsat").joinpath(_PACKAGED)))
    for folder in (packaged, _CHECKOUT):
        if any(folder.glob("*.rules")):
            return folder
    raise EqsatError(f"eqsat's rule library is missing: no .rules files in {packaged} (an "
                     f"installed eqsat) or {_CHECKOUT} (a checkout); reinstall eqsat")


def library_paths() -> list[Path]:
    """The rule files shipped with eqsat."""
    return sorted(library_folder().glob("*.rules"))


def _fail(origin: Origin, message: str) -> RuleError:
    return RuleError(f"{origin}: {message}")


def _guard(tree: Tree[object], origin: Origin) -> Guard:
    parts = tree.children
    if tree.data == "compare_guard":
        subject, token, bound = parts
        assert isinstance(subject, Expr) and isinstance(bound, Expr)
        if not (bound.is_number and bound.number == 0):
            raise _fail(origin, f"a guard compares with 0 (write 'a - b {token} 0'), not {bound}")
        kind = f"{INFIX[str(token)].symbol} 0"
        if kind not in GUARDS:
            raise _fail(origin, f"unknown guard '{kind}'; known: {describe()}")
        return Guard(kind, subject)
    if tree.data == "is_guard":
        subject, _, word = parts
        assert isinstance(subject, Expr)
        kind = f"is {word}"
        if kind not in GUARDS:
            raise _fail(origin, f"unknown guard '{kind}'; known: {describe()}")
        return Guard(kind, subject)
    subject, *_, variable = parts  # free_guard, depends_guard, shaped_guard
    assert isinstance(subject, Expr) and isinstance(variable, Token)
    kind = {"free_guard": "free of", "depends_guard": "depends on"}.get(str(tree.data),
                                                                       "shaped like")
    try:
        return Guard(kind, subject, symbol(str(variable)))
    except EqsatError as error:
        raise _fail(origin, str(error)) from None


def _rule_lines(tree: Tree[object], section: str, origin: Origin) -> list[Rule]:
    name_token, lhs, arrow, rhs, *rest = tree.children
    assert isinstance(lhs, Expr) and isinstance(rhs, Expr)
    name = str(name_token)
    guards = tuple(_guard(g, origin) for g in rest if isinstance(g, Tree))
    rules = [Rule(name, lhs, rhs, guards, section, origin)]
    if str(arrow) == "<=>":
        rules.append(Rule(f"{name}-rev", rhs, lhs, guards, section, origin))
    for rule in rules:
        _validate(rule)
    return rules


def _validate(rule: Rule) -> None:
    origin = rule.origin
    if rule.lhs.is_symbol:
        raise _fail(origin, f"rule {rule.name}: a left side that is a bare variable "
                            f"({rule.lhs}) would match everything")
    if "solve" in (rule.lhs.op, rule.rhs.op):
        _validate_solve(rule)
    bound = rule.variables()
    unbound = rule.rhs.free_symbols() - bound
    if unbound:
        names = ", ".join(sorted(v.name for v in unbound))
        raise _fail(origin, f"rule {rule.name}: right side uses {names}, not bound by its "
                            f"left side {rule.lhs}")
    for guard in rule.guards:
        spec = GUARDS[guard.kind]
        loose = guard.subject.free_symbols() - bound
        if loose:
            raise _fail(origin, f"rule {rule.name}: guard '{guard}' uses "
                                f"{', '.join(sorted(v.name for v in loose))}, not in {rule.lhs}")
        if spec.on_variables_only and not guard.subject.is_symbol:
            raise _fail(origin, f"rule {rule.name}: guard '{guard.kind}' applies to a variable, "
                                f"not to {guard.subject}")
        if guard.argument is not None and guard.argument not in bound:
            raise _fail(origin, f"rule {rule.name}: '{guard.argument}' in '{guard}' is not "
                                f"bound by {rule.lhs}")


def _validate_solve(rule: Rule) -> None:
    """A rule about solve(...) rewrites one equation in one unknown into another; the right
    side of its left equation is a lone variable, which the soundness check sets to make
    the equation hold."""
    lhs, rhs = rule.lhs, rule.rhs
    if lhs.op != "solve" or rhs.op != "solve" or lhs.args[1] is not rhs.args[1]:
        raise _fail(rule.origin, f"rule {rule.name}: a solve rule rewrites solve(equation, x) "
                                 f"into solve(equation, x) with the same x")
    left, right = lhs.args[0].args
    if not right.is_symbol or right in left.free_symbols() or right is lhs.args[1]:
        raise _fail(rule.origin, f"rule {rule.name}: the right side of {lhs.args[0]} must be "
                                 f"a variable of its own, so that the rule can be checked")


def parse_rules(text: str, path: str = "<rules>") -> RuleFile:
    """Read the text of a .rules file."""
    result = RuleFile()
    section: str | None = None
    seen_sections: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0]
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        origin = Origin(path, number, indent + 1)
        if _SECTION.match(line):
            tree = _parse_line(line, "section_line", path, number)
            assert isinstance(tree, Tree)
            section = str(tree.children[0])
            if section in seen_sections:
                raise _fail(origin, f"section [{section}] appears twice in this file")
            seen_sections.add(section)
        elif _CHECK.match(line):
            tree = _parse_line(line, "check_line", path, number)
            assert isinstance(tree, Tree)
            _, lhs, relation, rhs = tree.children
            assert isinstance(lhs, Expr) and isinstance(rhs, Expr)
            if str(relation) != "==":
                raise _fail(origin, f"a check states an equality 'a == b', not '{relation}'")
            result.checks.append(Check(lhs, rhs, origin))
        else:
            tree = _parse_line(line, "rule_line", path, number)
            assert isinstance(tree, Tree)
            if section is None:
                raise _fail(origin, "rule before any [section] line")
            result.rules.extend(_rule_lines(tree, section, origin))
    check_unique(result.rules)
    return result


def _parse_line(line: str, start: str, path: str, number: int) -> Tree[object] | Expr:
    try:
        return parse_with(line, start, source=path, line_offset=number - 1)
    except ParseError as error:
        raise RuleError(str(error)) from None


def check_unique(rules: Iterable[Rule]) -> None:
    """Rule names are unique across everything loaded together."""
    first: dict[str, Rule] = {}
    for rule in rules:
        if rule.name in first:
            raise _fail(rule.origin, f"rule name {rule.name!r} is already used at "
                                     f"{first[rule.name].origin}")
        first[rule.name] = rule


def load_rules(paths: Iterable[str | Path]) -> RuleFile:
    """Load rule files; a missing or unreadable file is a RuleError naming it."""
    result = RuleFile()
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise RuleError(f"{path}: cannot read rule file: {error}") from None
        result.extend(parse_rules(text, str(path)))
    check_unique(result.rules)
    return result
