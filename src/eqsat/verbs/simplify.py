"""simplify: normal forms, the term-level rewrites, then rounds of e-graphs; prove_equal."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..algebra.branches import same_test_branches
from ..algebra.normal import (
    Normalised,
    check_defined_somewhere,
    decided_comparisons,
    in_lowest_terms,
    is_rational_node,
    normalise,
)
from ..egraph.per_thread import engine
from ..errors import EqsatError
from ..extract import CostModel, TensorCost, TreeExtractor, display_order, extract_dag
from ..extract.tree import class_shapes
from ..limits.budget import Budget, Limits, setup, setup_seconds
from ..limits.report import RunReport, StopReason
from ..limits.rounds import Round, in_rounds
from ..limits.stored import stored
from ..rules import shipped_rules
from ..rules.direct import DirectRules, guard_verdicts, rewrites
from ..rules.links import Links
from ..rules.matching import ViewSides, blockers, left_sides, untouched, view_sides
from ..rules.model import Rule
from ..rules.modulo import views
from ..rules.reverse import DIFF_RULESET
from ..rules.shipped import shipped_sources
from ..term import arguments
from ..term.expr import Expr, call, chained, check_same_symbol, symbol
from ..term.independent import independent_parts
from ..term.inputs import ExprInput, Shapes, to_expr
from ..term.ops import ROWS, SCALAR_KINDS
from ..term.parse import reading_by
from ..term.shape import is_tensor
from ..term.walks import check_depth, postorder, tree_size
from .derivatives import expand_derivatives

if TYPE_CHECKING:  # the e-graph layer loads egglog: only when used
    pass


@dataclass(frozen=True)
class Simplified:
    """A simplified expression with the report of the run that produced it; the costs of
    the input and of the answer are measured when first asked for (a deep input's take a
    tenth of a second, which a call that only wants the answer does not spend)."""

    expr: Expr
    report: RunReport
    start: Expr = field(repr=False)
    measure: Callable[[Expr], float] = field(repr=False, compare=False)

    @cached_property
    def cost_before(self) -> float:
        return self.measure(self.start)

    @cached_property
    def cost_after(self) -> float:
        return self.cost_before if self.expr is self.start else self.measure(self.expr)


# what one distinct node costs a simplify, measured on a 2-core machine: its normal forms
# (4-7 us on sums and chains of 60,000-100,000 nodes), and a round of rules outside their run
# (adding it, extracting, the normal forms of the result, ordering for display, printing:
# 45 us a node on a sum of 15,000 symbols)
SECONDS_PER_NORMALISED_NODE = 1e-5
SECONDS_PER_INPUT_NODE = 5e-5
# the term-level path (rules.direct): rewrites in a row, and rewrites of one term tried for one
# that is cheaper after its normal forms, before the e-graph is asked instead
MAX_DIRECT_REWRITES = 4
MAX_DIRECT_CANDIDATES = 12
MAX_LOOKAHEAD = 24  # terms an expansion's look-ahead may normalise (see expansions_settle)
MAX_LOOKAHEAD_NODES = 1_000  # and the nodes of the terms it normalises, all together
MAX_LOOKAHEAD_TERM = 100  # nodes of a term it looks ahead from (a larger one: the e-graph)
MAX_CHAINED_EXPANSIONS = 4  # expansions in a row it follows


def simplify_report(expr: ExprInput, *, rules: Iterable[str | Path] = (),
                    rulesets: Sequence[str] = ("simplify",), limits: Limits | None = None,
                    assume: Mapping[str, str | Iterable[str]] | None = None,
                    shapes: Shapes | None = None, sizes: Mapping[str, int] | None = None,
                    cost: str = "tree", rounds: int = 4, quick: bool = False,
                    costs: Mapping[str, float] | None = None) -> Simplified:
    """Saturate, extract the cheapest equal term, and report how it went.

    Runs in rounds: each saturates a fresh e-graph from the best term so far, under the
    limits (the time limit covers all rounds), and the next round starts from what it
    extracted. It stops when a round saturates (its result is optimal for the rules) or
    stops improving. A tensor expression's costs count elements and multiply-adds (sizes:
    representative sizes of named dimensions), so a matrix chain gets its cheap order.
    costs: each op's cost where it is not the op table's ({"sin": 19}: a target's own).
    quick: only normal forms and the rules that make terms smaller (a cleanup that never
    explores; stop reason "saturated" where those rules have all been applied).
    """
    if cost not in ("tree", "dag"):
        raise EqsatError(f"unknown cost {cost!r}: use 'tree' or 'dag'")
    rules = arguments.rule_files(rules)
    rulesets = arguments.strings(rulesets, "rulesets")
    rounds = arguments.count(rounds, "rounds")
    if DIFF_RULESET in rulesets:
        raise EqsatError("the [diff] rules run to completion of their own: use eqsat.diff, "
                         "or write diff(e, x) in the expression")
    limits = Limits.of(limits)
    began = time.perf_counter()  # the limit covers everything from here, but the setup
    setup_before = setup_seconds()
    if rules or list(rulesets) != ["simplify"]:  # a broken rule file or an unknown ruleset
        engine(rules).check_rulesets(rulesets)     # is an error even where no rule runs
    indexes = _indexes(rules, rulesets)
    budget = Budget.start(limits, began, setup_before)
    with reading_by(budget.deadline, limits.stated_seconds, limits.characters):
        start = to_expr(expr, assume, shapes)
    check_defined_somewhere(start, "simplify")
    held: dict[str, Expr] = {}  # one meaning per name, as a query's e-graph would insist
    for found in start.free_symbols():
        check_same_symbol(held, found)
    costs = arguments.op_costs(costs)
    model = TensorCost(costs, sizes or {}) if is_tensor(start) else CostModel(costs)
    query = _Query(rules, list(rulesets), cost, model, quick, indexes)
    cost_of = model.tree_cost if cost == "tree" else model.dag_cost  # (as query.measure)
    if budget.seconds_left() <= 0:  # reading took the time (each walk of 100,000 nodes
        return Simplified(start, RunReport(StopReason.TIME), start, cost_of)  # is 0.05 s)
    expanded, total = expand_derivatives(start, rules)
    expanded = decided_comparisons(expanded)  # (pi > 3 is 1: no analysis proves it)
    if budget.seconds_left() <= 0:
        total.stop_reason = StopReason.TIME
        return Simplified(expanded, total, start, cost_of)
    work = len(postorder(expanded)) * SECONDS_PER_NORMALISED_NODE
    settled = work <= budget.seconds_left() and bool(expanded.args) and \
        (_call_at_symbol(expanded) in indexes.settled_calls or
         query.settled(expanded, budget.deadline))  # nothing would change it
    if not settled and time.perf_counter() + work > budget.deadline:
        total.stop_reason = StopReason.TIME  # the limit: not begun (its normal forms would pass)
        return Simplified(expanded, total, start, cost_of)
    if settled:
        total.stop_reason = StopReason.SATURATED
        return Simplified(expanded, total, start, cost_of)
    best, complete = expanded, False
    if query.reduce:
        normalised = query.normal_forms(expanded, budget.deadline)
        best, complete = normalised.forms[0], normalised.complete
    parts = None if is_tensor(best) else independent_parts(best)
    cut: StopReason | None = None  # a limit that cut one of those parts short
    if parts is not None and query.answered(best, complete) is None:  # (rules are needed)
        options = {"rules": rules, "rulesets": rulesets, "cost": cost, "rounds": rounds,
                   "quick": quick, "costs": costs}
        best = _in_parts(*parts, best, query, budget, limits, total, options)
        if not _tied(best, indexes.links):  # (else a rule may combine the parts' answers:
            check_defined_somewhere(best, "simplify", start)  # the rounds run on them all)
            return Simplified(best, total, start, cost_of)
        cut, complete = total.stop_reason if total.stop_reason.is_limit else None, True
    best, _ = in_rounds((best, complete), query.round, budget, rounds, total)
    if cut is not None and not total.stop_reason.is_limit:
        total.stop_reason = cut
    total.absorb(RunReport(total.stop_reason, rule_matches=query.applied), new_round=False)
    best = display_order(same_test_branches(best))
    check_defined_somewhere(best, "simplify", start)  # (x/sin(pi) as x/0)
    return Simplified(best, total, start, cost_of)


def _in_parts(op: str, parts: list[Expr], whole: Expr, query: _Query, budget: Budget,
              limits: Limits, total: RunReport, options: dict[str, Any]) -> Expr:
    """The independent parts of a sum or product (term.independent) simplified each as a
    query of its own, with its own node and iteration limits and the time the call has left,
    and put together (with their normal forms, where cheaper; the whole as it was, where
    cheaper still); the report absorbs theirs, its stop reason the first limit that cut a
    part short."""
    answers, reasons = [], []
    for part in parts:
        left = budget.seconds_left()
        if left <= 0:  # (the limit: the rest as they are)
            answers.append(part)
            reasons.append(StopReason.TIME)
            continue
        found = simplify_report(part, limits=replace(limits, seconds=left), **options)
        total.absorb(found.report, new_round=False)
        answers.append(found.expr)
        reasons.append(found.report.stop_reason)
    together = chained(op, answers)
    if query.reduce:
        normalised = query.normal_forms(together, budget.deadline)
        if normalised.complete and query.measure(normalised.forms[0]) < query.measure(together):
            together = normalised.forms[0]
    together = display_order(together)
    total.stop_reason = _joint_reason(reasons, together)
    return together if query.measure(together) <= query.measure(whole) else whole


def _tied(term: Expr, links: Links) -> bool:
    """Whether a rule could combine operands of a sum or product that share no symbol (their
    groups by symbols and by what rules combine differ)."""
    apart, tied = independent_parts(term), independent_parts(term, links.keys)
    return apart is not None and (tied is None or len(tied[1]) < len(apart[1]))


def _joint_reason(reasons: list[StopReason], together: Expr) -> StopReason:
    """Why a query in parts stopped: a contradiction or the first limit that cut a part short;
    else the reason they share (optimal only where the answer is a number or a symbol), or
    saturated."""
    for reason in reasons:
        if reason == StopReason.CONTRADICTION or reason.is_limit:
            return reason
    if len(set(reasons)) == 1 and (reasons[0] != StopReason.OPTIMAL or not together.args):
        return reasons[0]
    return StopReason.OPTIMAL if not together.args else StopReason.SATURATED


@dataclass(frozen=True)
class _Query:
    """What each round of a simplify runs: its rules, rulesets and cost model."""

    rules: list[str | Path]
    rulesets: list[str]
    cost: str  # "tree" or "dag"
    model: CostModel
    quick: bool
    indexes: _Indexes
    applied: dict[str, int] = field(default_factory=dict)  # rules applied on the term itself
    # each term's normal forms, once a query (the look-ahead and the direct rewrites meet the
    # same terms again and again): only those no deadline cut short
    _normal: dict[Expr, Normalised] = field(default_factory=dict)
    # a cheaper term the look-ahead found equal to a term by rules without guards: a step of
    # the direct path (and the answer where it is a number or a symbol)
    _ahead: dict[Expr, tuple[Expr, tuple[str, ...]]] = field(default_factory=dict)
    # the tree cost of every subterm measured in the query, once (see remembering_tree_cost)
    _tree_cost: Callable[[Expr], float] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_tree_cost", self.model.remembering_tree_cost())

    @property
    def reduce(self) -> bool:
        """Whether normal forms take part (they are [simplify]'s)."""
        return "simplify" in self.rulesets

    def settled(self, term: Expr, deadline: float = math.inf) -> bool:
        """Whether no rule can fire anywhere in the term: an e-graph would give it back as
        it is (and it has no rational part the normal forms could reduce: a sum, product,
        difference, quotient or negation is matched by the rules that canonicalise them).
        False where the deadline passes first."""
        return not is_tensor(term) and untouched(term, self.indexes.left, deadline)

    def settled_modulo(self, term: Expr) -> bool:
        """Whether an e-graph could find nothing cheaper than a term whose rational parts
        are in normal form: no rule can fire modulo associativity, commutativity and the
        canonical forms, none of those makes a part cheaper (rules/modulo.py), or the only
        ones that can are expansions that lead nowhere (see expansions_settle), or the query
        is quick (its e-graph runs no expansion)."""
        if is_tensor(term):
            return False
        found = blockers(term, self.indexes.views, self._tree_cost)
        if found is None or any(rule.shrinks for rule in found):
            return False
        if self.quick:
            return True
        names = [rule.name for rule in found]
        if any(rule.guards for rule in found):  # followed where not decided false on the term
            verdicts = guard_verdicts(term, self.indexes.expansions.only(names))
            if None in verdicts.get("", ()):  # not every match was seen
                return False
            names = [name for name in names if verdicts.get(name) != {False}]
        return not names or self.expansions_settle(term, names)

    def expansions_settle(self, term: Expr, names: list[str]) -> bool:
        """Whether every rewrite of the term by these expansion rules (rules that grow a
        term, where their guards are not decided false on it: what an e-graph's analyses
        might prove is taken to hold), taken with its normal forms and
        then with each one rewrite by a shrinking rule, and up to MAX_CHAINED_EXPANSIONS of
        them in a row, costs no less than the term (than or as much, after a guarded rule:
        between equals the e-graph's extraction decides, as it did before such rules were
        followed here): a look-ahead standing in for what an e-graph would find through
        them (tan(x) is settled: sin(x)/cos(x) leads back to it; tan(x)*cos(x) is not:
        sin(x)/cos(x)*cos(x) is sin(x)). At most MAX_LOOKAHEAD distinct terms normalised, of
        MAX_LOOKAHEAD_NODES nodes in all, from a term of MAX_LOOKAHEAD_TERM nodes at most;
        past that, not settled."""
        if tree_size(term) > MAX_LOOKAHEAD_TERM:
            return False
        expansions, shrinking = self.indexes.expansions.only(names), self.indexes.shrinking
        before, shown = self.measure(term), display_order(term)
        tried: set[tuple[Expr, bool]] = set()
        nodes = [0]
        guarded = expansions.guarded | shrinking.guarded  # (the shrinking ones: made once)

        def cheaper(made: Expr, applied: tuple[str, ...], ties: bool = False) -> bool:
            # or past the look-ahead's work (applied: the rules that made it, in order)
            if (made, ties) in tried:  # (two sites or rules that make the same term)
                return False
            tried.add((made, ties))
            nodes[0] += tree_size(made)
            if len(tried) > MAX_LOOKAHEAD or nodes[0] > MAX_LOOKAHEAD_NODES:
                return True
            normalised = self.normal_forms(made)
            if not normalised.complete:
                return True
            found = normalised.forms[0]  # (a^(-1/2) is shown as 1/sqrt(a): the same answer)
            cost = self.measure(found)
            if (not found.args or cost < before) and not guarded.intersection(applied):
                self._ahead[term] = (found, applied)  # (tan(-x) + tan(x) is 0)
            return (cost < before or (ties and cost == before and
                                      views(found)[found] != views(term)[term])) and \
                display_order(found) != shown  # (a tie with the term itself, rewritten: none)

        def what_ifs(made: Expr, rules: DirectRules) -> Iterator[tuple[str, Expr]]:
            # guards decided by interval analysis too, as the e-graph's sign analysis would;
            # those it leaves open followed as if they held: a what-if, never an answer
            return rewrites(made, rules, bounded=True, assumed=True, quotients=True)

        used: set[str] = set()
        for name, expanded in what_ifs(term, expansions):  # each site, then a shrinking rule
            used.add(name)
            if any(cheaper(made, applied, name in guarded)
                   for applied, made in chain([((name,), expanded)],
                                              (((name, shrunk), made) for shrunk, made
                                               in what_ifs(expanded, shrinking)))):
                return False
        chained, followed = term, tuple[str, ...]()  # and every site in turn, as
        for _ in range(MAX_CHAINED_EXPANSIONS):       # cosh(x) + sinh(x) needs for exp(x)
            name, made = next(what_ifs(chained, expansions), ("", None))
            if made is None:  # no expansion left to follow
                break
            chained, followed = made, (*followed, name)
            if cheaper(chained, followed):
                return False
        return used == set(names)  # each rule was followed where it matches

    def measure(self, expr: Expr) -> float:
        return self._tree_cost(expr) if self.cost == "tree" else self.model.dag_cost(expr)

    def normal_forms(self, term: Expr, deadline: float = math.inf) -> Normalised:
        """normalise(term), remembered for the query where no deadline cut it short; only its
        cheapest form (the first) is right where the term is in lowest terms (in_lowest_terms:
        itself)."""
        found = self._normal.get(term)
        if found is None and in_lowest_terms(term):  # (its cheapest form: all a query uses)
            found = self._normal[term] = Normalised([term], True)
        if found is None:
            found = normalise(term, self._tree_cost, deadline)
            if found.complete or deadline == math.inf:
                self._normal[term] = found
        return found

    def directly(self, term: Expr, deadline: float) -> tuple[Expr, bool] | None:
        """A cheaper term, made by the shrinking rules on the term itself (rules/direct.py)
        or found by the look-ahead through expansions (expansions_settle), and whether no
        e-graph could improve on it (settled_modulo): the first such, or after
        MAX_DIRECT_REWRITES rewrites (each the cheapest of MAX_DIRECT_CANDIDATES tries) or
        where none is cheaper, the cheapest made; None where none was cheaper than the term."""
        rules = self.indexes.shrinking
        current, applied, settled = term, dict[str, int](), False
        for _ in range(MAX_DIRECT_REWRITES):
            best: tuple[float, tuple[str, ...], Expr] | None = None  # the cheapest try
            least = self.measure(current)
            if current in self._ahead:  # what the look-ahead found through expansions
                found, names = self._ahead[current]
                best, least = (self.measure(found), names, found), self.measure(found)
            for name, candidate in islice(rewrites(current, rules, quotients=True),
                                          MAX_DIRECT_CANDIDATES):
                normalised = self.normal_forms(candidate, deadline)
                found = normalised.forms[0]
                if normalised.complete and (measured := self.measure(found)) < least:
                    best, least = (measured, (name,), found), measured
            if best is None:
                break
            _, names, current = best
            for name in names:
                applied[name] = applied.get(name, 0) + 1
            settled = self.settled(current) or self.settled_modulo(current)
            if settled:
                break
        if current is term:
            return None
        for name, count in applied.items():
            self.applied[name] = self.applied.get(name, 0) + count
        return current, settled

    def answered(self, best: Expr, complete: bool) -> StopReason | None:
        """Why the best term so far (and whether its normal forms are complete) is already
        the answer, if it is: a number or a symbol, which no term costs less than; a rational
        function of symbols, whose least costly normal form is the answer; or a term no rule
        makes cheaper."""
        if not best.args:
            return StopReason.OPTIMAL
        if complete and not self.rules and all(map(is_rational_node, postorder(best))):
            return StopReason.NORMAL_FORM
        if self.settled(best) or (complete and self.reduce and self.settled_modulo(best)):
            return StopReason.SATURATED
        return None

    def round(self, state: tuple[Expr, bool], limits: Limits) -> Round[tuple[Expr, bool]]:
        """One fresh e-graph from the best term so far (and whether its normal forms are
        complete), unless the term is already the answer or would not fit in the time."""
        best, complete = state
        budget = Budget.start(limits)  # this round's share of the limit (setup left out)
        answered = self.answered(best, complete)
        if answered is not None:
            return Round(state, done=True, stop=answered)
        nodes = postorder(best)
        leaf, _ = self._ahead.get(best, (best, ()))
        if not leaf.args:  # an expansion led to a number or a symbol
            return Round((leaf, True), done=True, stop=StopReason.OPTIMAL)
        direct = self.directly(best, budget.deadline) if complete and self.reduce else None
        if direct is not None and direct[1]:  # nothing is cheaper than a number or a symbol
            return Round((direct[0], True), done=True,
                         stop=StopReason.SATURATED if direct[0].args else StopReason.OPTIMAL)
        if direct is not None:  # the e-graph starts from the cheaper term
            best, nodes = direct[0], postorder(direct[0])
            state = (best, True)
        check_depth(best)  # what reaches egglog (said before the time it would take)
        if len(nodes) * SECONDS_PER_INPUT_NODE > limits.seconds:
            # adding and extracting it alone would pass the limit
            return Round(state, done=True, stop=StopReason.TIME)
        # the rules are taken modulo associativity and commutativity on the term (the direct
        # path) and by the normal forms: the e-graph runs no rule that only reorders
        found, report = _saturate_once(best, self.rules, self.rulesets, limits, self.cost,
                                       self.model, self.quick,
                                       reorder=is_tensor(best) or not self.reduce)
        if report.stop_reason == StopReason.CONTRADICTION:  # it equated different numbers
            return Round(state, report, done=True)
        if self.reduce:
            normalised = self.normal_forms(found, budget.deadline)
            found, complete = normalised.forms[0], normalised.complete
        if self.measure(found) >= self.measure(best):  # no better: the next round would
            return Round(state, report, done=True)     # start from the same term
        ended = report.stop_reason in (StopReason.SATURATED, StopReason.TIME)
        return Round((found, complete), report, done=ended)


@dataclass(frozen=True)
class _Indexes:
    """What a query asks of its rules on the term, without an e-graph: the left sides by
    root op (untouched), the rules split by views (blockers), and the shrinking rules and the
    expansions that rules.direct applies."""

    left: dict[str, list[Expr]]
    shrinking_left: dict[str, list[Expr]]  # those of the rules that shrink a term
    views: ViewSides
    shrinking: DirectRules
    expansions: DirectRules
    links: Links  # operands its rules could combine (see term.independent)
    # the one-operand ops f for which f(x), x a symbol with no assumptions, is settled (no
    # rule makes it cheaper, modulo the canonical forms: see _Query.settled_modulo), the same
    # for every such symbol; decided once for the shipped library, for every op
    settled_calls: frozenset[str] = frozenset()

    @classmethod
    def of(cls, rules: list[Rule]) -> _Indexes:
        return cls(left_sides(rules), left_sides(r for r in rules if r.shrinks),
                   view_sides(rules), DirectRules.of(rules),
                   DirectRules.of(rules, shrinking=False), Links.of(rules))


def _indexes(rules: list[str | Path], rulesets: Sequence[str]) -> _Indexes:
    """Those of these rulesets: the shipped library's made once per process (without
    loading egglog), those with the user's files once per query."""
    if rules:
        return _Indexes.of([r for r in engine(rules).rules.rules if r.ruleset in rulesets])
    return _shipped_indexes(tuple(sorted(rulesets)))


@cache
def _shipped_indexes(rulesets: tuple[str, ...]) -> _Indexes:
    with setup():  # once per process, kept on disk for the next (0.1-0.2 s to make)
        return stored(f"indexes-{'-'.join(rulesets)}", shipped_sources(),
                      lambda: _made_indexes(rulesets), _Indexes)


def _made_indexes(rulesets: tuple[str, ...]) -> _Indexes:
    """The indexes of the shipped rules of these rulesets (and the settled calls)."""
    made = _Indexes.of([r for r in shipped_rules().rules if r.ruleset in rulesets])
    if "simplify" not in rulesets:
        return made
    query = _Query([], list(rulesets), "tree", CostModel(), False, made)
    at = symbol("x")
    settled = frozenset(
        op.name for op in ROWS if op.arity == 1 and op.kind in SCALAR_KINDS and
        (query.settled(call(op.name, at)) or query.settled_modulo(call(op.name, at))))
    return replace(made, settled_calls=settled)


def settled_at_a_symbol(term: Expr, rules: Sequence[str | Path] = ()) -> bool:
    """Whether the shipped rules leave the term as it is without a query: f(x) for a settled
    op f (see _Indexes.settled_calls) at a symbol with no assumptions."""
    return not rules and \
        _call_at_symbol(term) in _shipped_indexes(("simplify",)).settled_calls


def nothing_to_clean(term: Expr, rules: Sequence[str | Path] = ()) -> bool:
    """Whether differentiating the term as written gives what differentiating it cleaned
    (a quick simplify) would, up to the normal forms: no shrinking rule's left side matches
    a subterm as written (abs(a) => a if a >= 0 at abs(acos(u)): sign(acos(u)) would stay
    in the derivative) and no op has only numbers for arguments; and every argument of an
    op that is not + - * / or an integer power is a number, a symbol, such an op, or a
    rational part in lowest terms (in_lowest_terms): none is constant as written yet not a
    number (sqrt(x - x)), where the chain rule would give 0/0. The rational parts above
    them the derivative's normal forms reduce."""
    for node in postorder(term):
        if node.args and not is_rational_node(node) and \
                any(arg.args and is_rational_node(arg) and not in_lowest_terms(arg)
                    for arg in node.args):
            return False
    # (a user's rules: their left sides alone, not every index a query builds)
    sides = left_sides(r for r in engine(rules).rules.rules if r.ruleset == "simplify" and
                       r.shrinks) if rules else _shipped_indexes(("simplify",)).shrinking_left
    return untouched(term, sides)


def _call_at_symbol(term: Expr) -> str | None:
    """The op of a term f(x), x a scalar symbol with no assumptions; None for other terms."""
    if len(term.args) != 1:
        return None
    inner = term.args[0]
    return term.op if inner.is_symbol and not inner.assumptions and not inner.shape else None


def _saturate_once(expr: Expr, rules: Iterable[str | Path], rulesets: Sequence[str],
                   limits: Limits, cost: str, model: CostModel,
                   quick: bool = False, reorder: bool = True) -> tuple[Expr, RunReport]:
    """One e-graph of expr saturated with the rulesets (only their shrinking rules where
    quick; reorder=False: without those that only reorder sums and products), and the
    cheapest term in it."""
    budget = Budget.start(limits)
    with engine(rules).session(is_tensor(expr), rulesets) as session:
        handle = session.add(expr)  # its time comes out of the run's
        # egglog extracts by the op table's costs: a query's own costs need eqsat's extractor
        by_egglog = cost == "tree" and not session.tensor and not session.needs_snapshot \
            and type(model) is CostModel and not model.overrides
        # first the rules that shrink terms, which end soon; the others only if still needed
        report = session.run(rulesets, budget.left(), shrinking_only=True)
        if by_egglog and report.stop_reason == StopReason.SATURATED:
            found = session.extract(handle)[0]
            if not found.args:  # a number or a symbol: nothing is cheaper
                report.stop_reason = StopReason.OPTIMAL
                return found, report
        if report.stop_reason == StopReason.SATURATED and not quick:
            report.absorb(session.run(rulesets, budget.left(), reorder=reorder),
                          new_round=False)
        if by_egglog:
            return session.extract(handle)[0], report
        snapshot = session.snapshot([handle])
    if isinstance(model, TensorCost):  # costs from the shapes of the classes
        model.class_shapes.update(class_shapes(snapshot, session.symbol))
    if cost == "tree":
        extractor = TreeExtractor(snapshot, model, session.symbol)
        return extractor.term(snapshot.roots[handle]), report
    return extract_dag(snapshot, [handle], model, session.symbol)[0], report


def simplify(expr: ExprInput, **options: Any) -> Expr:
    """The simplest equal expression the rules find (see simplify_report for options)."""
    return simplify_report(expr, **options).expr


def prove_equal(first: ExprInput, second: ExprInput, *, rules: Iterable[str | Path] = (),
                rulesets: Sequence[str] = ("simplify",), limits: Limits | None = None,
                library: bool = True) -> bool:
    """Whether saturation puts both expressions in one e-class (a proof of equality)."""
    if library:
        chosen = engine(rules)
    else:
        from ..egraph.engine import Engine

        chosen = Engine(rules, library=False, trust=True)
    wanted = [name for name in rulesets if name != DIFF_RULESET] or ["simplify"]
    left, _ = expand_derivatives(to_expr(first), rules)
    right, _ = expand_derivatives(to_expr(second), rules)
    with chosen.session(is_tensor(left) or is_tensor(right), wanted) as session:
        a, b = session.add(left), session.add(right)
        report = session.run(wanted, Limits.of(limits))
        return report.stop_reason != StopReason.CONTRADICTION and session.same(a, b)


