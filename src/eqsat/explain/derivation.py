"""Step-by-step derivations: paths of single rule applications inside a saturated e-graph.

egglog 13.2 records no proofs, so a derivation is searched for afterwards. Every term on the
path lies in the e-graph. To turn a term into another of its e-class, a cheapest chain of
rewrites among the class's e-nodes is planned (an edge is a rule whose left side matches at
one e-node and whose right side is another, with its guards proven by the e-graph's
analyses; constant folding is an edge too; an edge costs its step plus the steps likely
needed to bring the arguments into the form the rule wants, from what is known of their
roots), then carried out: before a rule applies, the subterms its side needs are brought
into shape the same way, one class down. Terms whose roots agree are derived argument by
argument.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from ..errors import EqsatError
from ..limits.budget import Snapshot
from ..rules.guards import GUARDS
from ..rules.model import Guard, Rule
from ..term.expr import Expr, make, number
from ..term.ops import OPS, folded
from ..term.walks import postorder

Node = tuple[str, tuple[int, ...], Fraction | str | None]
Binding = dict[Expr, int]  # pattern variable -> e-class
FOLD = "fold constants"
ANY = ("*", (), None)  # the target of a rule whose right side is a variable: that subterm
REVERSE_COST = 2  # a rule used right to left costs more than one used as written
MAX_REPLANS = 300  # plans tried in one class before giving up
MAX_DEPTH = 60  # nested rewrites (subterms brought into shape for a rule) at most
UNREACHABLE = 50  # the planned cost of an argument form no chain of edges reaches
MAX_PLAN_WORK = 40_000  # rewrites weighed and e-nodes searched while planning a derivation


@dataclass(frozen=True)
class Step:
    """One rewrite: at `path` (argument indices from the root), `before` became `after` by
    `rule` (used right to left if `reverse`); `term` is the whole expression after it."""

    rule: str
    path: tuple[int, ...]
    before: Expr
    after: Expr
    term: Expr
    reverse: bool = False

    def __str__(self) -> str:
        how = f"{self.rule} (right to left)" if self.reverse else self.rule
        return f"{how}: {self.before} => {self.after}"


@dataclass(frozen=True)
class _Edge:
    source: Node  # ANY: from any e-node of the class (a rule reversed whose right side is a var)
    target: Node  # ANY: to the subterm the rule's right side names
    rule: Rule | None  # None: constant folding
    binding: Binding
    reverse: bool

    @property
    def cost(self) -> int:
        return REVERSE_COST if self.reverse else 1


RawStep = tuple[tuple[int, ...], Expr, Expr, str, bool]  # path, before, after, rule, reverse
_State = tuple[Node, "tuple[Node | None, ...] | None"]  # an e-node, and its arguments' roots
Placed = tuple[Literal["node"], Node] | tuple[Literal["arg"], int] | tuple[Literal["self"]] | None


@dataclass(frozen=True)
class _Distances:
    """The fewest edges from e-nodes of a class to a goal: those counted one by one, and the
    rest of the class's members all `beyond` (reached at once from an edge from ANY)."""

    counted: dict[Node, int]
    members: frozenset[Node]  # (empty where no edge from ANY was met)
    beyond: int

    def get(self, node: Node, default: int) -> int:
        found = self.counted.get(node)
        if found is not None:
            return found
        return self.beyond if node in self.members else default


class OutOfBudget(Exception):
    """The search used up its steps or its time."""


class Stuck(OutOfBudget):
    """One rewrite could not be carried out; the search tries others."""


class Deriver:
    """Derivations between terms of one saturated e-graph (a Snapshot with its facts)."""

    def __init__(self, snapshot: Snapshot, rules: Sequence[Rule],
                 representative: Callable[[int], Expr],
                 max_steps: int = 5000, seconds: float = 2.0) -> None:
        self.snapshot = snapshot
        self.rules = rules  # a left side is never a lone variable (the loader refuses it)
        self.representative = representative  # a term of an e-class (built when asked)
        self.class_of_node = {node: c for c, nodes in snapshot.classes.items() for node in nodes}
        self._edges: dict[int, list[_Edge]] = {}
        self._classes: dict[Expr, int | None] = {}
        self.max_steps = max_steps
        self.deadline = time.perf_counter() + seconds
        self.steps_taken = 0
        self.plan_work = 0  # edges weighed by _plan, against MAX_PLAN_WORK
        self._active: set[tuple[Expr, Node]] = set()  # rewrites under way (no regress)
        self._distance_cache: dict[tuple[int, Node], _Distances] = {}
        self._member_sets: dict[int, frozenset[Node]] = {}
        self._sources: dict[int, tuple[dict[Node, set[Node]], set[Node]]] = {}
        self._shapes: dict[int, tuple[tuple[Node | None, ...], tuple[Placed, ...]]] = {}

    # --- the e-graph -----------------------------------------------------------------------
    def class_of(self, term: Expr) -> int | None:
        """The e-class of a term, or None if one of its nodes is not in the e-graph."""
        if term not in self._classes:  # children first, without recursion (deep terms)
            for node in postorder(term, into=lambda n: n not in self._classes):
                if node not in self._classes:
                    self._classes[node] = self._lookup(self._key(node))
        return self._classes[term]

    def _key(self, term: Expr) -> Node | None:
        if term.is_number:
            return ("num", (), term.number)
        if term.is_symbol:
            return ("sym", (), term.name)
        children = [self.class_of(a) for a in term.args]
        if any(c is None for c in children):
            return None
        return (term.op, tuple(c for c in children if c is not None), None)

    def _lookup(self, key: Node | None) -> int | None:
        return None if key is None else self.class_of_node.get(key)

    def root(self, term: Expr) -> Node:
        key = self._key(term)
        if key is None or key not in self.class_of_node:
            raise EqsatError(f"internal: {term} left the e-graph during a derivation")
        return key

    def _match(self, pattern: Expr, eclass: int, binding: Binding) -> Iterator[Binding]:
        if pattern.is_symbol:
            bound = binding.get(pattern)
            if bound is None:
                yield {**binding, pattern: eclass}
            elif bound == eclass:
                yield binding
            return
        for node in self.snapshot.classes[eclass]:
            yield from self._match_node(pattern, node, binding)

    def _match_node(self, pattern: Expr, node: Node, binding: Binding) -> Iterator[Binding]:
        if pattern.is_number:
            if node == ("num", (), pattern.number):
                yield binding
            return
        if node[0] != pattern.op:
            return
        partial = [binding]
        for sub, child in zip(pattern.args, node[1], strict=True):
            partial = [b for p in partial for b in self._match(sub, child, p)]
        yield from partial

    def _instance_class(self, pattern: Expr, binding: Binding) -> int | None:
        if pattern.is_symbol:
            return binding.get(pattern)
        return self._lookup(self._instance_key(pattern, binding))

    def _instance_key(self, pattern: Expr, binding: Binding) -> Node | None:
        if pattern.is_number:
            return ("num", (), pattern.number)
        children = [self._instance_class(a, binding) for a in pattern.args]
        if any(c is None for c in children):
            return None
        return (pattern.op, tuple(c for c in children if c is not None), None)

    def _guards_hold(self, rule: Rule, binding: Binding) -> bool:
        for guard in rule.guards:
            subject = self._instance_class(guard.subject, binding)
            if subject is None:
                return False
            nodes = self.snapshot.classes[subject]

            def free(guard: Guard = guard, subject: int = subject) -> bool | None:
                """Whether the subject's class is free of the guard's argument."""
                assert guard.argument is not None
                variable = self._instance_class(guard.argument, binding)
                names = [n[2] for n in self.snapshot.classes.get(variable or -1, [])
                         if n[0] == "sym"]
                mask = self.snapshot.free_vars.get(subject)
                bit = self.snapshot.var_bits.get(str(names[0])) if names else None
                return None if mask is None or bit is None else mask & bit == 0

            held = GUARDS[guard.kind].on_snapshot(nodes, self.snapshot.facts.get(subject, set()),
                                                  free)
            if not held:
                return False
        return True

    def edges(self, eclass: int) -> list[_Edge]:
        """Every rewrite between e-nodes of a class, as written and reversed, and folds."""
        if eclass in self._edges:
            return self._edges[eclass]
        found: list[_Edge] = []
        for node in self.snapshot.classes[eclass]:
            for rule in self.rules:
                for binding in self._match_node(rule.lhs, node, {}):
                    if time.perf_counter() > self.deadline:  # (a node can match many ways)
                        raise OutOfBudget("out of time while planning")
                    target = ANY if rule.rhs.is_symbol else self._instance_key(rule.rhs, binding)
                    reached = binding.get(rule.rhs) if target == ANY else \
                        self._lookup(target)
                    if target is None or reached != eclass or \
                            not self._guards_hold(rule, binding):
                        continue  # the e-graph did not (or could not) apply it here
                    found.append(_Edge(node, target, rule, binding, False))
                    found.append(_Edge(target, node, rule, binding, True))
            folded = self._fold(node)
            if folded is not None and self.class_of_node.get(folded) == eclass:
                found.append(_Edge(node, folded, None, {}, False))
        self._edges[eclass] = found
        return found

    def _fold(self, node: Node) -> Node | None:
        """The number node exact constant folding unions with this node, if any."""
        op, children, _ = node
        spec = OPS.get(op)
        if spec is None or spec.fold is None or not children:
            return None
        values: list[Fraction] = []
        for child in children:
            numbers = [n[2] for n in self.snapshot.classes[child]
                       if n[0] == "num" and isinstance(n[2], Fraction)]
            if not numbers:
                return None
            values.append(numbers[0])
        value = folded(op, values)
        return None if value is None else ("num", (), value)

    def _distances(self, eclass: int, goal: Node) -> _Distances:
        """For each e-node of a class, the fewest edges from it to goal (backwards,
        breadth-first; an edge from ANY leaves every e-node, so the first one met gives
        every e-node not yet reached the next distance at once)."""
        if (eclass, goal) in self._distance_cache:
            return self._distance_cache[(eclass, goal)]
        into, everywhere = self._edge_sources(eclass)
        distance = {goal: 0}
        frontier = [goal]
        beyond: int | None = None
        self._plan_tick(len(into) + 1)  # the search's work, in e-nodes visited, level by level
        while frontier and beyond is None:
            reached = []
            for node in frontier:
                if time.perf_counter() > self.deadline:
                    raise OutOfBudget("out of time while planning")
                if node in everywhere:
                    beyond = distance[node] + 1  # (the level's other sources are that far too)
                    break
                for source in into.get(node, ()):
                    if source not in distance:
                        distance[source] = distance[node] + 1
                        reached.append(source)
            frontier = reached
            self._plan_tick(len(reached))
        found = _Distances(distance, self._members(eclass) if beyond is not None
                           else frozenset(), beyond or 0)
        self._distance_cache[(eclass, goal)] = found
        return found

    def _members(self, eclass: int) -> frozenset[Node]:
        if eclass not in self._member_sets:
            self._member_sets[eclass] = frozenset(self.snapshot.classes[eclass])
        return self._member_sets[eclass]

    def _edge_sources(self, eclass: int) -> tuple[dict[Node, set[Node]], set[Node]]:
        """The class's edges reversed, once: each e-node's sources, and the targets of
        edges from ANY (which every e-node reaches)."""
        if eclass not in self._sources:
            into: dict[Node, set[Node]] = {}
            everywhere: set[Node] = set()
            for edge in self.edges(eclass):
                if edge.source == ANY:
                    everywhere.add(edge.target)
                else:
                    into.setdefault(edge.target, set()).add(edge.source)
            self._sources[eclass] = into, everywhere
        return self._sources[eclass]

    def _shape(self, edge: _Edge) -> tuple[tuple[Node | None, ...], tuple[Placed, ...]]:
        """What an edge's rule side requires of each argument (an e-node; None: any term),
        and what the other side puts in each of its arguments (or, when it is a lone
        variable, in its place): ("arg", i) the term bound at argument i, ("self",) the
        whole term, ("node", n) a term rooted at n, None not known."""
        if id(edge) in self._shapes:
            return self._shapes[id(edge)]
        assert edge.rule is not None
        side, other = (edge.rule.rhs, edge.rule.lhs) if edge.reverse else \
            (edge.rule.lhs, edge.rule.rhs)
        required = tuple(None if sub.is_symbol else self._instance_key(sub, edge.binding)
                         for sub in side.args)

        def placed(sub: Expr) -> Placed:
            if not sub.is_symbol:
                found = self._instance_key(sub, edge.binding)
                return None if found is None else ("node", found)
            if side.is_symbol:
                return ("self",) if sub == side else None
            at = [i for i, arg in enumerate(side.args) if arg == sub]
            return ("arg", at[0]) if at else None

        targets = (other,) if other.is_symbol else other.args
        shape = required, tuple(placed(sub) for sub in targets)
        self._shapes[id(edge)] = shape
        return shape

    def _fit_cost(self, edge: _Edge, kids: tuple[Node | None, ...] | None) -> int:
        """The steps a rule's side likely needs to bring the arguments into shape: for each
        argument it requires in a given form, the e-node distance from the argument's
        current root (one step where that is not known)."""
        cost = 0
        for index, required in enumerate(self._shape(edge)[0]):
            if required is None:
                continue
            current = kids[index] if kids is not None else None
            if current is None:
                cost += 1
            elif current != required:
                child = edge.source[1][index]
                cost += self._distances(child, required).get(current, UNREACHABLE)
        return cost

    def _after(self, edge: _Edge, state: _State) -> _State | None:
        """The e-node and argument roots after an edge; None where the edge leads to a
        subterm whose root is not known until it is carried out."""
        node, kids = state
        _, placed = self._shape(edge)
        assert edge.rule is not None

        def root_of(where: Placed) -> Node | None:
            if where is None:
                return None
            if where[0] == "self":
                return node
            if where[0] == "node":
                return where[1]
            return None if kids is None else kids[where[1]]

        lone = (edge.rule.lhs if edge.reverse else edge.rule.rhs).is_symbol
        if lone:
            reached = root_of(placed[0])
            if reached is None:
                return None
            return state if reached == node else (reached, None)
        return edge.target, tuple(root_of(where) for where in placed)

    def _plan(self, eclass: int, term: Expr, goal: Node,
              banned: set[int]) -> list[_Edge] | None:
        """The cheapest chain of edges from term's root to goal (Dijkstra over e-nodes with
        what is known of their arguments' roots, each edge costing its own step plus the
        steps its fitting likely takes); a chain may end in an edge whose end is not known
        until carried out, after which planning resumes from where it led."""
        edges = self.edges(eclass)
        ahead = self._distances(eclass, goal)  # A*: no chain is shorter than this
        far = len(self.snapshot.classes[eclass])
        start: _State = (self.root(term), tuple(self.root(arg) for arg in term.args))
        best: dict[_State, int] = {start: 0}
        queue: list[tuple[int, int, int, _State, list[_Edge]]] = [(0, 0, 0, start, [])]
        tie = 0
        while queue:
            if time.perf_counter() > self.deadline:  # (each state meets every edge)
                raise OutOfBudget("out of time while planning")
            _, _, cost, state, path = heapq.heappop(queue)
            node, kids = state
            if node in (goal, ANY):
                return path
            if cost > best.get(state, cost):
                continue
            for edge in edges:
                if edge.source not in (node, ANY) or edge.target == node or id(edge) in banned:
                    continue
                self._plan_tick()
                if edge.rule is None:  # a fold: each argument must become its number
                    after: _State | None = (edge.target, ())
                    total = cost + 1 + sum(kid is None or kid[0] != "num" for kid in kids or ())
                else:
                    after = self._after(edge, state)
                    total = cost + edge.cost + self._fit_cost(edge, kids)
                if after is None:  # known only once carried out: plan again from there
                    after = (ANY, None)
                    total += 2
                if total < best.get(after, total + 1):
                    best[after] = total
                    tie += 1
                    estimate = 0 if after[0] == ANY else ahead.get(after[0], far)
                    heapq.heappush(queue, (total + estimate, tie, total, after, [*path, edge]))
        return None

    # --- carrying out ----------------------------------------------------------------------
    def derive(self, start: Expr, goal: Expr) -> list[RawStep]:
        """Rewrites (path, before, after, rule, reverse) turning start into goal, which must
        be in one e-class; OutOfBudget when the search gives up."""
        steps, reached = self._solve(start, goal, 0)
        assert reached == goal
        return steps

    def _plan_tick(self, work: int = 1) -> None:
        """Work done while planning (an edge weighed, e-nodes searched): the work budget,
        and the time as a backstop."""
        before, self.plan_work = self.plan_work, self.plan_work + work
        if self.plan_work > MAX_PLAN_WORK:
            raise OutOfBudget(f"planning took more than {MAX_PLAN_WORK:,} steps of work")
        if before // 256 != self.plan_work // 256 and time.perf_counter() > self.deadline:
            raise OutOfBudget("out of time while planning")

    def _tick(self, depth: int) -> None:
        self.steps_taken += 1
        if self.steps_taken > self.max_steps or depth > MAX_DEPTH or \
                time.perf_counter() > self.deadline:
            raise OutOfBudget(f"more than {self.max_steps} steps, {depth} deep, or out of time")

    def _solve(self, term: Expr, goal: Expr, depth: int) -> tuple[list[RawStep], Expr]:
        if term == goal:
            return [], goal
        steps, term = self._reach(term, self.root(goal), depth)
        args = []
        for index, (arg, wanted) in enumerate(zip(term.args, goal.args, strict=True)):
            inner, reached = self._solve(arg, wanted, depth + 1)
            steps += _under(index, inner)
            args.append(reached)
        return steps, make(goal.op, *args) if args else goal

    def _reach(self, term: Expr, goal: Node, depth: int) -> tuple[list[RawStep], Expr]:
        """Rewrite term (in goal's class) until its root is the e-node goal.

        A plan ending in an edge to ANY is planned on from where it led. An edge that cannot
        be carried out (bringing its subterms into shape gets stuck, or asks for this very
        rewrite again), or an edge to ANY that leads back to a term seen before, is undone
        and left out of the plans from then on."""
        if (term, goal) in self._active:
            raise Stuck(f"{term} would have to be rewritten into itself")
        self._active.add((term, goal))
        try:
            return self._reach_planned(term, goal, depth)
        finally:
            self._active.discard((term, goal))

    def _reach_planned(self, term: Expr, goal: Node, depth: int) -> tuple[list[RawStep], Expr]:
        steps: list[RawStep] = []
        seen = {term}
        banned: set[int] = set()
        eclass = self.class_of_node[goal]
        for _ in range(MAX_REPLANS):
            if self.root(term) == goal:
                return steps, term
            plan = self._plan(eclass, term, goal, banned)
            if plan is None:
                break
            undo = (len(steps), term)
            for edge in plan:
                self._tick(depth)
                try:
                    done, term = self._apply(term, edge, depth)
                except Stuck:
                    banned.add(id(edge))
                    break
                steps += done
            else:
                if plan[-1].target != ANY or term not in seen:
                    seen.add(term)
                    continue
                banned.add(id(plan[-1]))
            del steps[undo[0]:]
            term = undo[1]
        raise Stuck(f"no chain of rewrites turns {term} into the form {goal[0]}(...)")

    def _apply(self, term: Expr, edge: _Edge, depth: int) -> tuple[list[RawStep], Expr]:
        """One edge at the root of term: bring term into the shape of the rule's side, then
        rewrite."""
        if edge.rule is None:  # folding: every argument becomes its number first
            steps: list[RawStep] = []
            args = []
            for index, (arg, child) in enumerate(zip(term.args, edge.source[1], strict=True)):
                number_node = next(n for n in self.snapshot.classes[child] if n[0] == "num")
                inner, reached = self._reach(arg, number_node, depth + 1)
                steps += _under(index, inner)
                args.append(reached)
            fitted = make(term.op, *args)
            after = number(edge.target[2])  # type: ignore[arg-type]
            return [*steps, ((), fitted, after, FOLD, False)], after
        source, target = (edge.rule.rhs, edge.rule.lhs) if edge.reverse else \
            (edge.rule.lhs, edge.rule.rhs)
        concrete: dict[Expr, Expr] = {}
        steps, fitted = self._fit(term, source, edge.binding, concrete, depth)
        for variable in target.free_symbols() - concrete.keys():  # only on one side
            concrete[variable] = self.representative(edge.binding[variable])
        after = target.subs(concrete)
        return [*steps, ((), fitted, after, edge.rule.name, edge.reverse)], after

    def _fit(self, term: Expr, pattern: Expr, binding: Binding, concrete: dict[Expr, Expr],
             depth: int) -> tuple[list[RawStep], Expr]:
        """Rewrite term until it is an instance of pattern; variables seen again must be
        the same term as where they were first seen."""
        if pattern.is_symbol:
            if pattern not in concrete:
                concrete[pattern] = term
                return [], term
            return self._solve(term, concrete[pattern], depth + 1)
        key = self._instance_key(pattern, binding)
        if key is None:
            raise EqsatError(f"internal: {pattern} has no instance in the e-graph")
        steps, term = self._reach(term, key, depth + 1)
        if pattern.is_number:
            return steps, term
        args = []
        for index, (arg, sub) in enumerate(zip(term.args, pattern.args, strict=True)):
            inner, fitted = self._fit(arg, sub, binding, concrete, depth + 1)
            steps += _under(index, inner)
            args.append(fitted)
        return steps, make(term.op, *args)


def _under(index: int, steps: list[RawStep]) -> list[RawStep]:
    return [((index, *path), before, after, rule, reverse)
            for path, before, after, rule, reverse in steps]


