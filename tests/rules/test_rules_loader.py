"""The .rules language: sections, arrows, guards, checks, and located load errors."""

from __future__ import annotations

from pathlib import Path

import pytest

import eqsat
from eqsat.rules import parse_rules
from eqsat.rules.loader import library_paths, load_rules


def test_a_small_file_loads_into_rules_and_checks() -> None:
    loaded = parse_rules("""
# comment
[simplify]
add-zero:  a + 0 => a          # trailing comment
pow-add:   a^b * a^c <=> a^(b + c)   if a > 0
d-const:   atan2(a, x) => atan(a/x) if a free of x, a is const, x > 0
[other]
int-rule:  a^2 => a*a          if a is integer, a - 1 >= 0
check: x*y/x == y
""", "mem.rules")
    names = [r.name for r in loaded.rules]
    assert names == ["add-zero", "pow-add", "pow-add-rev", "d-const", "int-rule"]
    assert [r.ruleset for r in loaded.rules] == ["simplify"] * 4 + ["other"]
    assert str(loaded.rules[1]) == "pow-add: a^b*a^c => a^(b + c) if a > 0"
    assert [g.kind for g in loaded.rules[3].guards] == ["free of", "is const", "> 0"]
    assert loaded.rules[4].guards[1].subject is eqsat.parse("a - 1")
    assert len(loaded.checks) == 1 and loaded.checks[0].origin.line == 9


# (file text, message fragment, line:column)
BROKEN = [
    ("[s]\nr: a + => a\n", "unexpected '=>'", "2:8"),
    ("[s]\nr: foo(a) => a\n", "unknown function 'foo'", "2:4"),
    ("[s]\nr: a => a + 1\n", "bare variable", "2:1"),
    ("[s]\nr: a + b => c\n", "right side uses c", "2:1"),
    ("[s]\nr: a + b => a if c > 0\n", "guard 'c > 0' uses c", "2:1"),
    ("[s]\nr: a + b => a if a > 1\n", "compares with 0", "2:1"),
    ("[s]\nr: a + b => a if a is odd\n", "unknown guard 'is odd'", "2:1"),
    ("[s]\nr: a + b => a if a + b is const\n", "applies to a variable", "2:1"),
    ("[s]\nr: a + 0 => a\nr: a * 1 => a\n", "already used at", "3:1"),
    ("[s]\nr: a + 0 => a\n[s]\n", "appears twice", "3:1"),
    ("r: a + 0 => a\n", "before any [section]", "1:1"),
    ("[s]\n  check: a < b\n", "states an equality", "2:3"),
    ("[s]\nr: a + 0 =>\n", "unexpected end of input", "2:12"),
    ("[s]\nx-rev: a + 0 => a\nx: a * 1 <=> a * 1\n", "already used", "3:1"),
]


@pytest.mark.parametrize(("text", "fragment", "where"), BROKEN)
def test_load_errors_name_file_line_and_column(text: str, fragment: str, where: str) -> None:
    with pytest.raises(eqsat.RuleError) as caught:
        parse_rules(text, "broken.rules")
    message = str(caught.value)
    assert fragment in message
    assert message.startswith(f"broken.rules:{where}:")


def test_unreadable_file_is_a_rule_error(tmp_path: Path) -> None:
    with pytest.raises(eqsat.RuleError, match="cannot read rule file"):
        load_rules([tmp_path / "missing.rules"])


def test_user_rule_names_may_not_clash_with_the_library(tmp_path: Path) -> None:
    mine = tmp_path / "mine.rules"
    mine.write_text("[simplify]\nadd-zero: a + 0 => a\n")
    with pytest.raises(eqsat.RuleError, match="already used"):
        eqsat.Engine([mine])


def test_the_library_loads() -> None:
    assert {p.name for p in library_paths()} >= {"simplify.rules"}
    assert len(load_rules(library_paths()).rules) > 100


def test_each_elementwise_derivative_is_written_once_and_reversed() -> None:
    """Every [diff] rule of an op becomes the [grad] rule of that op; none is written twice."""
    from eqsat.rules import shipped_rules
    from eqsat.rules.reverse import vjp_rules
    from eqsat.rules.shipped import OP_TABLE

    shipped = shipped_rules()
    made = {r.name for r in shipped.rules if r.ruleset == "grad"
            and (r.origin.path == OP_TABLE or r.origin.path.endswith("diff.rules"))}
    ops = {r.lhs.args[0].op for r in shipped.in_ruleset("diff") if r.lhs.args[0].args}
    assert {f"vjp-{r.name.removeprefix('d-')}" for r in shipped.in_ruleset("diff")
            if r.lhs.args[0].args} == made and len(ops) > 40
    written = load_rules([p for p in library_paths() if p.name == "tensor.rules"])
    assert not made & {r.name for r in written.rules}  # no hand-written twin left
    (rule,) = vjp_rules(parse_rules("[diff]\nd-f: diff(a*b - b, x) => 0\n"
                                    "d-g: diff(sin(a) + b, x) => 0\n"
                                    "d-h: diff(atan2(a, b), x) => "
                                    "(b*diff(a, x) - a*diff(b, x))/(a^2 + b^2)\n").rules[2:])
    assert str(rule) == ("vjp-h: vjp(atan2(a, b), c, x) => vjp(a, sum_to(c*(b/(a^2 + b^2)), a), "
                         "x) + vjp(b, sum_to(c*(-a/(a^2 + b^2)), b), x)")
