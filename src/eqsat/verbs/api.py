"""The public functions, composed from the layers below (parse, rules, e-graph, extract)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from ..algebra.normal import Normalised, in_lowest_terms, is_rational_node, normalise
from ..egraph.engines import engine
from ..errors import EqsatError, LimitError, ShapeError
from ..extract import CostModel, TensorCost, TreeExtractor, display_order, extract_dag
from ..extract.tree import class_shapes
from ..limits.budget import Budget, Limits
from ..limits.report import RunReport, StopReason
from ..limits.rounds import Round, in_rounds
from ..rules import load_rules, shipped_rules
from ..rules.derivative import derivative
from ..rules.direct import DirectRules, rewrites
from ..rules.matching import ViewSides, blockers, left_sides, untouched, view_sides
from ..rules.model import Rule
from ..rules.reverse import DIFF_RULESET, GRAD_RULESET
from ..term import arguments
from ..term.expr import (
    Expr,
    check_depth,
    check_same_symbol,
    make,
    number,
    postorder,
    rebuild,
    symbol,
)
from ..term.inputs import ExprInput, Shapes, Variable, to_expr
from ..term.ops import COMPARISONS
from ..term.shape import ALL_AXES, is_tensor, shape_of, show

if TYPE_CHECKING:  # the e-graph layer loads egglog, the others NumPy: only when used
    from ..egraph.engine import Engine
    from ..egraph.session import Session
    from ..rules.verdict import Verdict
    from ..solving import Solution

@dataclass(frozen=True)
class Simplified:
    """A simplified expression with the report of the run that produced it."""

    expr: Expr
    report: RunReport
    cost_before: float
    cost_after: float


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
MAX_LOOKAHEAD = 24  # normal forms an expansion's look-ahead may take (see expansions_settle)
MAX_CHAINED_EXPANSIONS = 4  # expansions in a row it follows


def expand_derivatives(expr: Expr, rules: Iterable[str | Path] = ()) -> tuple[Expr, RunReport]:
    """Replace every diff(e, x) in expr by its complete derivative, innermost first."""
    total = RunReport(StopReason.SATURATED)

    def build(node: Expr, args: list[Expr]) -> Expr:
        if node.op != "diff":
            return make(node.op, *args) if node.args else node
        derivative, report = _differentiate(args[0], args[1], rules)
        total.absorb(report)
        return derivative

    if not any(node.op == "diff" for node in postorder(expr)):
        return expr, total
    return rebuild(expr, build), total


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
    if rules or list(rulesets) != ["simplify"]:  # a broken rule file or an unknown ruleset
        engine(rules).check_rulesets(rulesets)     # is an error even where no rule runs
    indexes = _indexes(rules, rulesets)  # before the time limit: the library's, once per
    began = time.perf_counter()  # process, take 0.8 s; the limit covers everything from here
    start = to_expr(expr, assume, shapes)
    held: dict[str, Expr] = {}  # one meaning per name, as a query's e-graph would insist
    for found in start.free_symbols():
        check_same_symbol(held, found)
    costs = arguments.op_costs(costs)
    model = TensorCost(costs, sizes or {}) if is_tensor(start) else CostModel(costs)
    query = _Query(rules, list(rulesets), cost, model, quick, indexes)
    measure = query.measure
    expanded, total = expand_derivatives(start, rules)
    budget = Budget.start(limits, began)
    work = len(postorder(expanded)) * SECONDS_PER_NORMALISED_NODE
    if work > budget.seconds_left():  # its normal forms alone would pass
        total.stop_reason = StopReason.TIME  # the limit: not begun
        before = measure(start)  # (a deep input's costs take a while: measured once)
        return Simplified(expanded, total, before,
                          before if expanded is start else measure(expanded))
    if expanded.args and query.settled(expanded):  # the normal forms would change nothing
        total.stop_reason = StopReason.SATURATED
        return Simplified(expanded, total, measure(start), measure(expanded))
    best, complete = expanded, False
    if query.reduce:
        normalised = query.normal_forms(expanded, budget.deadline)
        best, complete = normalised.forms[0], normalised.complete
    best, _ = in_rounds((best, complete), query.round, budget, rounds, total)
    total.absorb(RunReport(total.stop_reason, rule_matches=query.applied), new_round=False)
    best = display_order(best)
    return Simplified(best, total, measure(start), measure(best))


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
    # the tree cost of every subterm measured in the query, once (see remembering_tree_cost)
    _tree_cost: Callable[[Expr], float] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_tree_cost", self.model.remembering_tree_cost())

    @property
    def reduce(self) -> bool:
        """Whether normal forms take part (they are [simplify]'s)."""
        return "simplify" in self.rulesets

    def settled(self, term: Expr) -> bool:
        """Whether no rule can fire anywhere in the term: an e-graph would give it back as
        it is (and it has no rational part the normal forms could reduce: a sum, product,
        difference, quotient or negation is matched by the rules that canonicalise them)."""
        return not is_tensor(term) and untouched(term, self.indexes.left)

    def settled_modulo(self, term: Expr) -> bool:
        """Whether an e-graph could find nothing cheaper than a term whose rational parts
        are in normal form: no rule can fire modulo associativity, commutativity and the
        canonical forms, none of those makes a part cheaper (rules/modulo.py), or the only
        ones that can are expansions that lead nowhere (see expansions_settle)."""
        if is_tensor(term):
            return False
        found = blockers(term, self.indexes.views, self._tree_cost)
        if found is None or any(rule.shrinks or rule.guards for rule in found):
            return False
        return not found or self.expansions_settle(term, [rule.name for rule in found])

    def expansions_settle(self, term: Expr, names: list[str]) -> bool:
        """Whether every rewrite of the term by these expansion rules (unguarded rules that
        grow a term), taken with its normal forms and then with each one rewrite by a
        shrinking rule, and up to MAX_CHAINED_EXPANSIONS of them in a row, costs no less than
        the term: a look-ahead standing in for what an e-graph would find through them
        (tan(x) is settled: sin(x)/cos(x) leads back to it; tan(x)*cos(x) is not:
        sin(x)/cos(x)*cos(x) is sin(x)). At most MAX_LOOKAHEAD normal forms; past that, not
        settled."""
        expansions, shrinking = self.indexes.expansions.only(names), self.indexes.shrinking
        before, tried = self.measure(term), [0]

        def cheaper(made: Expr) -> bool:  # or past the look-ahead's work
            tried[0] += 1
            normalised = self.normal_forms(made)
            return tried[0] > MAX_LOOKAHEAD or not normalised.complete or \
                self.measure(normalised.forms[0]) < before

        used: set[str] = set()
        for name, expanded in rewrites(term, expansions):  # each site, then a shrinking rule
            used.add(name)
            if any(cheaper(made) for made in
                   [expanded, *(made for _, made in rewrites(expanded, shrinking))]):
                return False
        chained = term  # and every site in turn, as cosh(x) + sinh(x) needs for exp(x)
        for _ in range(MAX_CHAINED_EXPANSIONS):
            chained = next((made for _, made in rewrites(chained, expansions)), chained)
            if cheaper(chained):
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

    def directly(self, term: Expr, deadline: float) -> Expr | None:
        """A cheaper term, made by the shrinking rules on the term itself (rules/direct.py),
        that no e-graph could improve on (settled_modulo); None where they find none within
        MAX_DIRECT_REWRITES rewrites, each the cheapest of MAX_DIRECT_CANDIDATES tries."""
        rules = self.indexes.shrinking
        current, applied = term, dict[str, int]()
        for _ in range(MAX_DIRECT_REWRITES):
            best: tuple[float, str, Expr] | None = None  # the cheapest of the tries
            least = self.measure(current)
            for name, candidate in islice(rewrites(current, rules), MAX_DIRECT_CANDIDATES):
                normalised = self.normal_forms(candidate, deadline)
                found = normalised.forms[0]
                if normalised.complete and (measured := self.measure(found)) < least:
                    best, least = (measured, name, found), measured
            if best is None:
                return None
            _, name, current = best
            applied[name] = applied.get(name, 0) + 1
            if self.settled(current) or self.settled_modulo(current):
                for name, count in applied.items():
                    self.applied[name] = self.applied.get(name, 0) + count
                return current
        return None

    def round(self, state: tuple[Expr, bool], limits: Limits) -> Round[tuple[Expr, bool]]:
        """One fresh e-graph from the best term so far (and whether its normal forms are
        complete), unless the term is already the answer or would not fit in the time."""
        best, complete = state
        budget = Budget.start(limits)  # this round's share of the limit (setup left out)
        if not best.args:  # no term costs less than a number or a symbol: no rule need run
            return Round(state, done=True, stop=StopReason.OPTIMAL)
        nodes = postorder(best)
        if complete and not self.rules and all(map(is_rational_node, nodes)):
            # a rational function of symbols: the least costly of its normal forms is the answer
            return Round(state, done=True, stop=StopReason.NORMAL_FORM)
        if self.settled(best) or (complete and self.reduce and self.settled_modulo(best)):
            return Round(state, done=True, stop=StopReason.SATURATED)
        direct = self.directly(best, budget.deadline) if complete and self.reduce else None
        if direct is not None:  # nothing is cheaper than a number or a symbol
            return Round((direct, True), done=True,
                         stop=StopReason.SATURATED if direct.args else StopReason.OPTIMAL)
        check_depth(best)  # what reaches egglog (said before the time it would take)
        if len(nodes) * SECONDS_PER_INPUT_NODE > limits.seconds:
            # adding and extracting it alone would pass the limit
            return Round(state, done=True, stop=StopReason.TIME)
        found, report = _saturate_once(best, self.rules, self.rulesets, limits, self.cost,
                                       self.model, self.quick)
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
    views: ViewSides
    shrinking: DirectRules
    expansions: DirectRules

    @classmethod
    def of(cls, rules: list[Rule]) -> _Indexes:
        return cls(left_sides(rules), view_sides(rules), DirectRules.of(rules),
                   DirectRules.of(rules, shrinking=False))


def _indexes(rules: list[str | Path], rulesets: Sequence[str]) -> _Indexes:
    """Those of these rulesets: the shipped library's made once per process (without
    loading egglog), those with the user's files once per query."""
    if rules:
        return _Indexes.of([r for r in engine(rules).rules.rules if r.ruleset in rulesets])
    return _shipped_indexes(tuple(sorted(rulesets)))


@cache
def _shipped_indexes(rulesets: tuple[str, ...]) -> _Indexes:
    return _Indexes.of([r for r in shipped_rules().rules if r.ruleset in rulesets])


def _saturate_once(expr: Expr, rules: Iterable[str | Path], rulesets: Sequence[str],
                   limits: Limits, cost: str, model: CostModel,
                   quick: bool = False) -> tuple[Expr, RunReport]:
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
            report.absorb(session.run(rulesets, budget.left()), new_round=False)
        if by_egglog:
            return session.extract(handle)[0], report
        snapshot = session.snapshot([handle])
    if isinstance(model, TensorCost):  # costs from the shapes of the classes
        model.class_shapes.update(class_shapes(snapshot, session.symbol))
    if cost == "tree":
        extractor = TreeExtractor(snapshot, model, session.symbol)
        return extractor.term(snapshot.roots[handle]), report
    return extract_dag(snapshot, [handle], model, session.symbol)[0], report


def _cheapest(session: Session, handle: str) -> Expr:
    """The handle's term of least tree cost with no diff or vjp left in it: by egglog, or
    on eqsat's side where the terms share so much that egglog's tree would not fit in memory,
    or where a derivative costs more as a tree than the diff statement (100,000)."""
    if not session.needs_snapshot:
        found = session.extract(handle)[0]
        if not any(node.op in ("diff", "vjp") for node in postorder(found)):
            return found
    snapshot = session.snapshot([handle])
    model = CostModel({"diff": math.inf, "vjp": math.inf})  # a statement left is no answer
    return TreeExtractor(snapshot, model, session.symbol).term(snapshot.roots[handle])


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


def _variable(expr: Expr, wrt: Variable) -> Expr:
    """The symbol to differentiate in: the one of that name in expr (with its assumptions)."""
    if isinstance(wrt, Expr):
        if not wrt.is_symbol:
            raise EqsatError(f"can only differentiate in a symbol, not in {wrt}")
        return wrt
    for found in expr.free_symbols():
        if found.name == wrt:
            return found
    return symbol(wrt)


def _differentiate(expr: Expr, wrt: Expr, rules: Iterable[str | Path]) -> tuple[Expr, RunReport]:
    """The complete derivative by the [diff] rules: applied to the term directly where that
    decides every step (see derivative.py), else saturated in an e-graph."""
    chosen = engine(rules)
    if not is_tensor(expr):
        direct = derivative(expr, wrt, chosen.rules.in_ruleset(DIFF_RULESET))
        if direct is not None:
            return direct[0], RunReport(StopReason.SATURATED, rule_matches=direct[1])
    return _saturated_derivative(expr, wrt, chosen)


def _saturated_derivative(expr: Expr, wrt: Expr, chosen: Engine) -> tuple[Expr, RunReport]:
    """The complete derivative, by saturating the [diff] rules (they always terminate)."""
    with chosen.session(is_tensor(expr), [DIFF_RULESET]) as session:
        session.add(wrt)  # first, so that it has a bit of its own for `free of` guards
        handle = session.add(make("diff", expr, wrt))
        report = session.saturate([DIFF_RULESET])
        result = _cheapest(session, handle)
    left = [node for node in postorder(result) if node.op == "diff"]
    if left:
        inner = left[0].args[0]
        hint = " (a power with a varying exponent needs a base known to be positive)" \
            if inner.op == "pow" else ""
        raise EqsatError(f"no derivative rule applies to {inner}{hint}")
    return result, report


def diff_report(expr: ExprInput, wrt: Variable | Sequence[Variable], n: int = 1, *,
                rules: Iterable[str | Path] = (), limits: Limits | None = None,
                assume: Mapping[str, str | Iterable[str]] | None = None) -> Simplified:
    """The n-th derivative in wrt (or mixed partials in a list of symbols, in order),
    simplified. The derivative is always complete; the limits bound its simplification,
    and the report says whether one cut it short. A LimitError when the time runs out
    before the last of several derivatives is begun."""
    start = to_expr(expr, assume)
    if is_tensor(start):
        raise ShapeError(f"diff differentiates scalar expressions; {start} has tensors: use grad")
    n = arguments.count(n, "the order of a derivative")
    given = arguments.names(wrt, "wrt")
    order = given * n if isinstance(wrt, (str, Expr)) else given
    limits = Limits.of(limits)
    budget = Budget.start(limits)
    # simplify first: the chain rule through sqrt(x - x) would give 0/0 where the
    # derivative of the simplified form, 0, is defined
    cleaned = simplify_report(start, rules=rules, limits=limits, rounds=1, quick=True)
    current, total = cleaned.expr, cleaned.report
    for done, variable in enumerate(order):
        if done and budget.seconds_left() <= 0:  # each derivative is complete, or none is
            raise LimitError(f"the time limit of {limits.seconds:g} s ran out after {done} of "
                             f"{len(order)} derivatives; raise the time limit")
        symbol_ = _variable(current, variable)
        if symbol_ not in current.free_symbols():
            current = number(0)  # a constant's derivatives are 0: no e-graph needed
            continue
        derivative, report = _differentiate(current, symbol_, rules)
        total.absorb(report)
        simplified = simplify_report(derivative, rules=rules, limits=budget.left())
        total.absorb(simplified.report)
        current = simplified.expr
    model = CostModel()
    return Simplified(current, total, model.tree_cost(start), model.tree_cost(current))


def diff(expr: ExprInput, wrt: Variable | Sequence[Variable], n: int = 1, **options: Any) -> Expr:
    """diff("2*x^3 + 8", "x") is 6*x^2; diff(e, "x", 2); diff(e, ["x", "y"]) for d/dx then d/dy."""
    return diff_report(expr, wrt, n, **options).expr


@overload
def grad(  # type: ignore[overload-overlap]
    expr: ExprInput, wrt: Variable, *, rules: Iterable[str | Path] = (),
    limits: Limits | None = None, assume: Mapping[str, str | Iterable[str]] | None = None,
    shapes: Shapes | None = None, stable: bool = True,
) -> Expr: ...


@overload
def grad(expr: ExprInput, wrt: Sequence[Variable], *, rules: Iterable[str | Path] = (),
         limits: Limits | None = None, assume: Mapping[str, str | Iterable[str]] | None = None,
         shapes: Shapes | None = None, stable: bool = True) -> list[Expr]: ...


def grad(expr: ExprInput, wrt: Variable | Sequence[Variable], *,
         rules: Iterable[str | Path] = (), limits: Limits | None = None,
         assume: Mapping[str, str | Iterable[str]] | None = None,
         shapes: Shapes | None = None, stable: bool = True) -> Expr | list[Expr]:
    """The gradient of a scalar-valued expression in a symbol (shaped like it), or a list of
    them for a list of symbols: grad(sum(A @ B), A) is ones @ B.T. Reverse mode: the [grad]
    rules push vjp(f, 1, x) inward. With stable (the default) the [stability] rules apply to
    f and to the gradient (the gradient of logsumexp is a softmax)."""
    f = to_expr(expr, assume, shapes)
    if shape_of(f):
        raise ShapeError(f"grad takes a scalar-valued expression; {f} has shape "
                         f"{show(shape_of(f))}")
    rulesets = ("simplify", "stability") if stable else ("simplify",)
    limits = Limits.of(limits)
    f = simplify_report(f, rules=rules, limits=limits, rulesets=rulesets, rounds=1).expr
    variables = arguments.names(wrt, "wrt")
    found = []
    for wanted in variables:
        variable = _variable(f, wanted)
        gradient = _reverse_mode(f, variable, rules)
        gradient = simplify_report(gradient, rules=rules, limits=limits,
                                   rulesets=rulesets).expr
        if shape_of(gradient) != variable.shape:  # a constant gradient: fill the shape
            gradient = make("expand", gradient, variable, number(ALL_AXES))
        found.append(gradient)
    return found[0] if isinstance(wrt, (str, Expr)) else found


def _reverse_mode(f: Expr, variable: Expr, rules: Iterable[str | Path]) -> Expr:
    """vjp(f, 1, x) with the [grad] rules saturated (they always terminate), extracted."""
    with engine(rules).session(tensor=True, rulesets=[GRAD_RULESET]) as session:
        session.add(variable)  # first, so that it has a bit of its own for `free of` guards
        handle = session.add(make("vjp", f, number(1), variable))
        session.saturate([GRAD_RULESET])
        result = _cheapest(session, handle)
    left = [node for node in postorder(result) if node.op == "vjp"]
    if left:
        inner = left[0].args[0]
        raise EqsatError(f"no gradient rule applies to {inner}")
    return result


def solve(equations: ExprInput | Sequence[ExprInput],
          unknowns: Variable | Sequence[Variable] | None = None, *,
          rules: Iterable[str | Path] = (), limits: Limits | None = None,
          assume: Mapping[str, str | Iterable[str]] | None = None,
          method: str = "auto") -> Solution:
    """solve("3x + 1 = 2(2x - 6)", "x")["x"] is 13; solve(["x + y = 3", "x - y = 1"],
    ["x", "y"]). An equation is `lhs = rhs`, `lhs == rhs`, or e meaning e = 0; unknowns
    default to every symbol. method "auto" eliminates polynomial systems exactly and uses
    the [solve] rules otherwise; "rules" goes to the rules first. The time limit covers the
    whole call, parsing included."""
    began = time.perf_counter()
    listed = list(equations) if isinstance(equations, (list, tuple)) else [equations]
    if not listed:
        raise EqsatError("solve needs at least one equation")
    parsed = [to_expr(arguments.expression(e, "an equation"), assume) for e in listed]
    for number_, equation in enumerate(parsed, 1):
        if is_tensor(equation):
            raise ShapeError(f"equation {number_} has tensors: solve takes scalar equations")
        if equation.op in COMPARISONS - {"eq"}:
            raise EqsatError(f"equation {number_} is the comparison {equation}: solve takes "
                             "equations (lhs = rhs, lhs == rhs, or e meaning e = 0)")
        inner = equation.args if equation.op in ("equation", "eq") else (equation,)
        if any(node.op == "equation" for side in inner for node in postorder(side)):
            raise EqsatError(f"equation {number_} holds an equation inside: {equation}")
    if unknowns is None:
        names = sorted({s.name for e in parsed for s in e.free_symbols()})
        if not names:
            raise EqsatError("the equations have no symbol to solve for")
        wanted: list[Variable] = list(names)
    else:
        wanted = arguments.names(unknowns, "unknowns")
    symbols_ = [_unknown(parsed, w) for w in wanted]
    if len(set(symbols_)) != len(symbols_):
        raise EqsatError(f"an unknown is named twice in {[str(s) for s in symbols_]}")
    from ..solving import solve as solve_problems

    return solve_problems(parsed, symbols_, engine(rules), Limits.of(limits), method, began)


def _unknown(equations: Sequence[Expr], wanted: Variable) -> Expr:
    """The symbol of that name in the equations (with its assumptions)."""
    if isinstance(wanted, Expr):
        if not wanted.is_symbol:
            raise EqsatError(f"can only solve for a symbol, not for {wanted}")
        return wanted
    for equation in equations:
        for found in equation.free_symbols():
            if found.name == wanted:
                return found
    return symbol(wanted)


def evaluate(expr: ExprInput, values: Mapping[str, Any] | None = None, **named: Any) -> Any:
    """NumPy evaluation: evaluate("x*y/x", {"x": 2.0, "y": 3.0}) or evaluate(e, x=2.0, y=3.0)."""
    from ..term.numeric import evaluate as evaluate_numpy

    return evaluate_numpy(to_expr(expr), {**arguments.mapping(values, "values"), **named})


def check_rules(paths: Iterable[str | Path], points: int = 300) -> list[Verdict]:
    """Load rule files and check every rule numerically; unsound ones carry a counterexample."""
    from ..rules.check import check_rule

    points = arguments.count(points, "points")
    return [check_rule(rule, points) for rule in load_rules(arguments.rule_files(paths)).rules]
