"""The shrinking rules applied to a term itself, modulo the canonical forms (modulo.py): each
term that one rule makes of it, where the rule's guards are decided true on the term. What
this cannot settle goes to an e-graph.

A left side matches a view as in an e-graph of it: a sum or product pattern at the matched
node takes some of its operands (the others stay beside the right side), one inside it all
of them; a variable takes one operand, or the last variable all that remain.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache

from ..term.expr import Expr, make, number
from ..term.printing import Texts
from .guards import GUARDS
from .model import Guard, Rule
from .modulo import (
    N_ARY,
    View,
    canonical,
    num,
    power_part,
    split_operands,
    split_powers,
    subviews,
    views,
)

MAX_REWRITE_STEPS = 4_000  # tries of matching, over all rules and nodes of one term
ViewMatch = dict[str, View]


@dataclass(frozen=True)
class DirectRules:
    """The rules a term is rewritten by: those that shrink it (or, see of, grow it) and
    change its view, none
    with a `free of` or `depends on` guard (the term alone does not decide those), each with
    its left side's view, by the op at the root of that view."""

    by_op: dict[str, list[tuple[Rule, View]]]

    @classmethod
    def of(cls, rules: Iterable[Rule], shrinking: bool | None = True) -> DirectRules:
        """shrinking=False: the rules that grow a term instead (the expansions an e-graph
        explores: tan(a) => sin(a)/cos(a), exp(a + b) => ..., (a*b)^c => a^c*b^c if c is
        integer); None: both."""
        by_op: dict[str, list[tuple[Rule, View]]] = {}
        for rule in rules:
            left, right = views(rule.lhs)[rule.lhs], views(rule.rhs)[rule.rhs]
            chosen = shrinking is None or rule.shrinks == shrinking
            if chosen and left != right and \
                    all(guard.argument is None for guard in rule.guards):
                by_op.setdefault(left.op, []).append((rule, left))
        return cls(by_op)

    @cached_property
    def guarded(self) -> frozenset[str]:
        """The names of those with a guard."""
        return frozenset(rule.name for listed in self.by_op.values() for rule, _ in listed
                         if rule.guards)

    def only(self, names: Iterable[str]) -> DirectRules:
        """These rules alone."""
        wanted = set(names)
        return DirectRules({op: [(r, v) for r, v in listed if r.name in wanted]
                            for op, listed in self.by_op.items()})


def rewrites(term: Expr, rules: DirectRules, bounded: bool = False, assumed: bool = False,
             quotients: bool = False) -> Iterator[tuple[str, Expr]]:
    """(rule name, the term it makes) for each rewrite of one node of the term by one rule,
    its guards decided true here (bounded: by interval analysis too, see
    guards.SignGuard.bounded_on_term; assumed: or not decided, a look-ahead's what-if whose
    terms may be unequal to this one and are never answers); outer nodes first.
    quotients: the terms written with quotients and differences (a/b, a - b, -a) where
    their views have negative powers and coefficients -1, as an answer is shown."""
    sites = _Sites(term, rules, Made(quotients))
    for site in sites:
        if _holds(site, bounded, assumed):
            yield site.rule.name, sites.rewritten(site)


def regroupings(term: Expr, rules: DirectRules) -> Iterator[tuple[Expr, Expr]]:
    """(subterm, what one rule makes of it) for each rewrite of one node of the term that
    takes a sum's or a product's operands in another grouping than the term's (some of
    them, or a variable bound to several of them that no subterm sums): what an e-graph
    reaches only by associativity and commutativity. Its guards decided true here, by
    interval analysis and the op table's sign rules too (log(exp(x) - exp(y) + exp(z)) as
    log(a - exp(y)) with a = exp(x) + exp(z) > 0); outer nodes first."""
    sites = _Sites(term, rules)
    written: dict[View, Expr] = {}
    for subterm, view in sites.views.items():
        written.setdefault(view, subterm)
    for site in sites:
        node = written.get(site.node)
        regrouped = bool(site.left_over) or \
            any(view.op in N_ARY and view not in written for view in site.bound)
        if node is not None and regrouped and _holds(site, bounded=True):
            yield node, sites.term_of(sites.replacement(site))


def guard_verdicts(term: Expr, rules: DirectRules) -> dict[str, set[bool | None]]:
    """For each rule, what its guards are decided to be at each of its matches in the term
    (interval analysis included): True (all hold), False (one fails), None (not decided on
    the term)."""
    sites = _Sites(term, rules)
    verdicts: dict[str, set[bool | None]] = {}
    for site in sites:
        decided = [_decided(guard, site.values, True) for guard in site.rule.guards]
        verdict = False if False in decided else None if None in decided else True
        verdicts.setdefault(site.rule.name, set()).add(verdict)
    if sites.steps[0] > MAX_REWRITE_STEPS:  # not every match was seen
        verdicts.setdefault("", set()).add(None)
    return verdicts


@dataclass(frozen=True)
class _Site:
    """One match of a rule's left side at a node: its variables' values, and the operands
    of a sum or product (or factors of a power) it left over."""

    rule: Rule
    node: View
    values: dict[Expr, Expr]
    left_over: list[View]
    bound: tuple[View, ...]  # the views its variables took


class _Sites:
    """The matches of some rules' left sides in a term, outer nodes first, at most
    MAX_REWRITE_STEPS tries of matching in all."""

    def __init__(self, term: Expr, rules: DirectRules, built: Made | None = None) -> None:
        self.views = views(term)  # of every subterm
        self.root = self.views[term]
        self.symbols = {s.name: s for s in term.free_symbols()}
        self.rules, self.steps, self.built = rules, [0], built or Made()

    def __iter__(self) -> Iterator[_Site]:
        for node in subviews(self.root):
            for rule, pattern in self.rules.by_op.get(node.op, ()):
                variables = _variables(rule.lhs)
                for binding, left_over in _matches(pattern, node, self.steps):
                    yield _Site(rule, node, {variables[name]: self.term_of(view)
                                             for name, view in binding.items()}, left_over,
                                tuple(binding.values()))
                if self.steps[0] > MAX_REWRITE_STEPS:
                    return

    def term_of(self, view: View) -> Expr:
        return from_view(view, self.symbols, self.built)

    def replacement(self, site: _Site) -> View:
        """The view the site's node is rewritten to by its rule."""
        right = site.rule.rhs.subs(site.values)
        replacement = views(right)[right]
        if site.left_over:  # beside the rewritten operands of a sum or product, or factors
            replacement = canonical("mul" if site.node.op == "pow" else site.node.op, None,
                                    (*site.left_over, replacement))  # of a power
        return replacement

    def rewritten(self, site: _Site) -> Expr:
        """The whole term with the site's node rewritten by its rule."""
        return self.term_of(_replaced(self.root, site.node, self.replacement(site)))


@lru_cache(maxsize=4096)
def _variables(pattern: Expr) -> dict[str, Expr]:
    """A left side's variables by name (asked at every node a rewrite is sought)."""
    return {v.name: v for v in pattern.free_symbols()}


def _holds(site: _Site, bounded: bool = False, assumed: bool = False) -> bool:
    """Whether the site's guards are all decided true (bounded: by interval analysis too;
    assumed: or not decided), see rewrites."""
    decided = [_decided(guard, site.values, bounded) for guard in site.rule.guards]
    return all(verdict is True or (assumed and verdict is None) for verdict in decided)


def _decided(guard: Guard, values: dict[Expr, Expr], bounded: bool) -> bool | None:
    subject, kind = guard.subject.subs(values), GUARDS[guard.kind]
    return kind.bounded_on_term(subject) if bounded else kind.on_term(subject, lambda _: True)


def ruled_out(rule: Rule, pattern: View, node: View, symbols: Mapping[str, Expr]) -> bool:
    """Whether a guard fails at every match of the rule's left side (its view: pattern) at
    the node that could be found, and one was: a sign guard on a variable bound to a number
    that fails it, or to a symbol whose assumptions do not prove it (in a term no other rule
    changes, a symbol's e-class holds nothing else that could prove a sign)."""
    if not rule.guards:
        return False
    steps, found = [0], False
    for binding, _ in _matches(pattern, node, steps):
        found = True
        if not any(_fails(guard, binding, symbols) for guard in rule.guards):
            return False
    return found and steps[0] <= MAX_REWRITE_STEPS


def _fails(guard: Guard, binding: ViewMatch, symbols: Mapping[str, Expr]) -> bool:
    bound = binding.get(guard.subject.name) if guard.subject.is_symbol else None
    if bound is None or bound.op not in ("num", "sym") or guard.argument is not None:
        return False
    return GUARDS[guard.kind].on_term(from_view(bound, symbols), lambda _: True) is not True


def _replaced(view: View, old: View, new: View) -> View:
    if view == old:
        return new
    if not view.args:
        return view
    return canonical(view.op, view.value, tuple(_replaced(a, old, new) for a in view.args))


class Made:
    """The terms of the views already met, and their texts (the rewrites of one term share
    most of their parts); quotients: whether they are written with quotients and
    differences (see rewrites)."""

    def __init__(self, quotients: bool = False) -> None:
        self.terms: dict[View, Expr] = {}
        self.text = Texts()
        self.quotients = quotients


def from_view(view: View, symbols: Mapping[str, Expr], built: Made | None = None) -> Expr:
    """A term with this view: sums and products nested to the left, their operands in the
    order of their text (a + b, x*y), numbers last (display_order moves them). built: what
    was made before for the same term's rewrites."""
    built = Made() if built is None else built
    found = built.terms.get(view)
    if found is None:
        found = built.terms[view] = _from_view(view, symbols, built)
    return found


def _from_view(view: View, symbols: Mapping[str, Expr], built: Made) -> Expr:
    if view.op == "num":
        assert not isinstance(view.value, str) and view.value is not None
        return number(view.value)
    if view.op == "sym":
        return symbols[str(view.value)]
    if built.quotients and (shown := _negation_or_quotient(view, symbols, built)):
        return shown
    args = [from_view(a, symbols, built) for a in view.args]
    if view.op in N_ARY:
        args.sort(key=lambda arg: (arg.is_number, built.text(arg)))
        differences = built.quotients and view.op == "add"
        if differences:  # a - b, not a + -b
            args.sort(key=lambda arg: arg.op == "neg")
        chained = args[0]
        for arg in args[1:]:
            chained = make("sub", chained, arg.args[0]) if differences and arg.op == "neg" \
                else make(view.op, chained, arg)
        return chained
    if view.op == "pow" and args[1].is_number and args[1].number == Fraction(1, 2):
        return make("sqrt", args[0])
    return make(view.op, *args)


def _negation_or_quotient(view: View, symbols: Mapping[str, Expr], built: Made
                          ) -> Expr | None:
    """-a for a product with the coefficient -1; a/b for a product or power with factors of
    negative exponents (b: those factors with their exponents negated); else None."""
    if view.op == "mul" and num(-1) in view.args:
        rest = canonical("mul", None, tuple(a for a in view.args if a != num(-1)))
        return make("neg", from_view(rest, symbols, built))
    factors = view.args if view.op == "mul" else (view,) if view.op == "pow" else ()
    exponents = [f.args[1].value if f.op == "pow" and f.args[1].op == "num" else None
                 for f in factors]
    below = tuple(canonical("pow", None, (f.args[0], num(-e))) for f, e in
                  zip(factors, exponents, strict=True) if isinstance(e, Fraction) and e < 0)
    if not below:
        return None
    above = canonical("mul", None, tuple(f for f, e in zip(factors, exponents, strict=True)
                                         if not (isinstance(e, Fraction) and e < 0)))
    return make("div", from_view(above, symbols, built),
                from_view(canonical("mul", None, below), symbols, built))


def _matches(pattern: View, term: View, steps: list[int]
             ) -> Iterator[tuple[ViewMatch, list[View]]]:
    """(binding, operands left over) for each match of the pattern at the term."""
    if pattern.op in N_ARY and pattern.op == term.op:
        yield from _take(pattern.op, list(pattern.args), list(term.args), {}, True, steps)
        split = split_operands(term) if pattern.op == "mul" else list(term.args)
        if len(split) > len(term.args):
            yield from _take(pattern.op, list(pattern.args), split, {}, True, steps)
    elif pattern.op == "mul" and term.op == "pow" and len(split := split_powers([term])) > 1:
        yield from _take(pattern.op, list(pattern.args), split, {}, True, steps)
    elif left := power_part(pattern, term):
        for binding in _exact(pattern.args[0], term.args[0], {}, steps):
            yield binding, [View("pow", None, (term.args[0], num(left)))]
        for binding in _exact(pattern, term, {}, steps):
            yield binding, []
    else:
        for binding in _exact(pattern, term, {}, steps):
            yield binding, []


def _exact(pattern: View, term: View, binding: ViewMatch, steps: list[int]
           ) -> Iterator[ViewMatch]:
    steps[0] += 1
    if steps[0] > MAX_REWRITE_STEPS:
        return
    if pattern.op == "sym":
        yield from _bound(str(pattern.value), term, binding)
    elif pattern.op == "num" or not pattern.args:
        if pattern == term:
            yield binding
    elif pattern.op == "mul" and term.op == "pow" and len(split := split_powers([term])) > 1:
        for found, _ in _take(pattern.op, list(pattern.args), split, binding, False, steps):
            yield found
    elif pattern.op != term.op:
        return
    elif pattern.op in N_ARY:
        for found, _ in _take(pattern.op, list(pattern.args), list(term.args), binding, False,
                              steps):
            yield found
        split = split_operands(term) if pattern.op == "mul" else []
        if len(split) > len(term.args):  # (x^-2 is x^-1*x^-1, as at the top)
            for found, _ in _take(pattern.op, list(pattern.args), split, binding, False, steps):
                yield found
    elif len(pattern.args) == len(term.args):
        yield from _exact_args(pattern.args, term.args, binding, steps)


def _bound(name: str, term: View, binding: ViewMatch) -> Iterator[ViewMatch]:
    if name not in binding:
        yield {**binding, name: term}
    elif binding[name] == term:
        yield binding


def _exact_args(patterns: tuple[View, ...], terms: tuple[View, ...], binding: ViewMatch,
                steps: list[int]) -> Iterator[ViewMatch]:
    if not patterns:
        yield binding
        return
    for found in _exact(patterns[0], terms[0], binding, steps):
        yield from _exact_args(patterns[1:], terms[1:], found, steps)


def _take(op: str, patterns: list[View], terms: list[View], binding: ViewMatch,
          leave: bool, steps: list[int]) -> Iterator[tuple[ViewMatch, list[View]]]:
    """Pattern operands matched to term operands, each its own (fixed ones first; the last
    variable may take all that remain); leave: whether operands may be left over."""
    steps[0] += 1
    if steps[0] > MAX_REWRITE_STEPS:
        return
    if not patterns:
        if leave or not terms:
            yield binding, terms
        return
    fixed = [p for p in patterns if p.op != "sym"]
    # (one operand: the two of a + a are one view)
    at = patterns.index(fixed[0]) if fixed else 0
    first, rest = patterns[at], patterns[:at] + patterns[at + 1:]
    for index, term in enumerate(terms):
        others = terms[:index] + terms[index + 1:]
        for found in _exact(first, term, binding, steps):
            yield from _take(op, rest, others, found, leave, steps)
    if not fixed and len(patterns) == 1 and len(terms) > 1:  # the last variable takes all
        for found in _bound(str(first.value), canonical(op, None, tuple(terms)), binding):
            yield found, []
