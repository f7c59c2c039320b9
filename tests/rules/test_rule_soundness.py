"""Every shipped rule is sound at sampled points, and the checker catches unsound ones."""

from __future__ import annotations

from dataclasses import replace

import pytest

import eqsat
from eqsat.rules import Rule, parse_rules, shipped_rules
from eqsat.rules.soundness import check_rule

LIBRARY = shipped_rules()  # the files' rules, and the [grad] rules made from [diff] ones


@pytest.mark.parametrize("rule", LIBRARY.rules, ids=lambda r: r.name)
def test_shipped_rule_is_sound(rule: Rule) -> None:
    points = 100 if rule.ruleset == "diff" else 300  # each diff side is a numerical derivative
    verdict = check_rule(rule, points=points)
    assert verdict.sound, str(verdict)


@pytest.mark.parametrize("check", LIBRARY.checks, ids=lambda c: f"{c.lhs} == {c.rhs}")
def test_library_check_lines_are_proven(check: eqsat.rules.Check) -> None:
    assert eqsat.prove_equal(check.lhs, check.rhs, rulesets=LIBRARY.rulesets())


UNSOUND = """
[bad]
sqrt-square:   sqrt(a^2)   => a
log-product:   log(a * b)  => log(a) + log(b)
pow-pow:       (a^b)^c     => a^(b*c)
div-cancel:    a / a       => 1 + a
exp-log:       exp(log(a)) => a          if a < 0
d-sin:         diff(sin(a), x) => -cos(a)*diff(a, x)
d-pow:         diff(a^b, x)    => a^b*(diff(b, x)*log(a) + b*diff(a, x)/a)
d-chain:       diff(exp(a), x) => exp(a)
d-const:       diff(a, x)      => 0
solve-square:  solve(a^2 = c, x)   => solve(a = sqrt(c), x)
solve-divide:  solve(a * b = c, x) => solve(a = c / b, x)  if b free of x
solve-exp:     solve(exp(a) = c, x) => solve(a = exp(c), x)
"""


@pytest.mark.parametrize("rule", parse_rules(UNSOUND, "bad.rules").rules, ids=lambda r: r.name)
def test_unsound_rules_get_a_counterexample(rule: Rule) -> None:
    verdict = check_rule(rule)
    assert not verdict.sound
    assert str(verdict).startswith(f"FAIL  {rule.name} at bad.rules:")


def test_guards_make_rules_sound() -> None:
    fixed = parse_rules("""
[good]
sqrt-square:   sqrt(a^2)   => a               if a >= 0
log-product:   log(a * b)  => log(a) + log(b) if a > 0, b > 0
pow-pow:       (a^b)^c     => a^(b*c)         if c is integer
""", "good.rules")
    assert all(check_rule(rule).sound for rule in fixed.rules)


def test_a_branch_undefined_where_the_left_side_is_defined_is_unsound() -> None:
    """Equal where it is taken, but sqrt(b) with b < 0 in the branch not taken: the e-graph
    holds both branches and takes sign facts from each (b >= 0 wherever b occurs)."""
    rule = parse_rules("[bad]\nroot: sqrt(a^2 + b) => where(b < 0, sqrt(a^2 + b), "
                       "hypot(a, sqrt(b)))\n", "bad.rules").rules[0]
    verdict = check_rule(rule)
    assert not verdict.sound
    assert "branch hypot(a, sqrt(b)) is undefined" in str(verdict)


def test_solve_rules_must_keep_their_checkable_shape() -> None:
    with pytest.raises(eqsat.RuleError, match="a variable of its own"):
        parse_rules("[solve]\nbad: solve(a + b = 0, x) => solve(a = -b, x)\n", "s.rules")
    with pytest.raises(eqsat.RuleError, match="with the same x"):
        parse_rules("[solve]\nbad: solve(a = c, x) => a\n", "s.rules")


SIGN_GUARDS = ("> 0", ">= 0", "!= 0", "< 0", "<= 0")


@pytest.mark.parametrize("rule", [r for r in LIBRARY.rules if not r.about_tensors and
                                  any(g.kind in SIGN_GUARDS for g in r.guards)],
                         ids=lambda r: r.name)
def test_no_guard_is_implied_by_the_left_sides_domain(rule: Rule) -> None:
    # one policy (docs/semantics.md): a guard is needed only where the left side is defined
    # and the rule would be wrong there; exp(log(a)) => a needs no a > 0
    for guard in (g for g in rule.guards if g.kind in SIGN_GUARDS):
        without = replace(rule, guards=tuple(g for g in rule.guards if g is not guard))
        assert not check_rule(without, points=3000).sound, f"{guard} is implied: drop it"
