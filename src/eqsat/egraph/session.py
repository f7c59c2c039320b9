"""One query's e-graph: terms added, runs under limits, extraction, snapshots."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from egglog import bindings

from ..encoding import commands as t
from ..encoding.shape_analysis import ShapeTable, shape_fact
from ..errors import EqsatError, LimitError
from ..limits.budget import Limits, Snapshot
from ..limits.progress import Progress
from ..limits.report import RunReport, StopReason
from ..rules.guards import SIGN_FACTS
from ..term.expr import Expr, check_same_symbol
from ..term.shape import is_tensor, shape_of
from ..term.walks import check_depth, depth, postorder, tree_size
from . import analysis
from .decode import BY_CONSTRUCTOR, CONSTRUCTORS, term_to_expr

if TYPE_CHECKING:  # an Engine makes each Session
    from .engine import Engine


# egglog's extraction builds the term as a tree, recursively: a DAG of 61 nodes, 2^30 as a
# tree, aborted the process on a 4 GB allocation; a term 33,000 levels deep overflowed its
# stack. Past these, terms are extracted on eqsat's side (Session.needs_snapshot).
MAX_EXTRACTED_TREE = 100_000


MAX_EXTRACTED_DEPTH = 2_000


INLINE_DEPTH = 32  # levels of a term sent to egglog as one nested term between named ones


SATURATE_NODES = 200_000  # the most a run without a time limit (Session.saturate) may grow to


NODE_SLACK = 1.1  # a step that leaves more than this times the node limit is undone


STEP_NODE_GROWTH = 8  # the most one step is taken to multiply the e-nodes by


MAX_SNAPSHOTS = 4  # steps guarded by a push in one session


STEP_GROWTH = 2.0  # the next step's time, as a multiple of the last one's (steps grow)...


MAX_STEP_GROWTH = 4.0  # ...or as the last grew on the one before, up to this multiple


PLANNED_SHARE = 0.9  # a run plans to end by this share of its time limit (noise takes the rest)


SECONDS_PER_NODE_AFTER = 1.5e-5  # extraction and pop, per e-node (0.2 s for 20,000, with margin)


MAX_VARIABLE_BITS = 62


_ASSUMPTION_FACTS = {"positive": "Pos", "nonnegative": "NonNeg", "negative": "Neg",
                     "nonzero": "NonZero", "integer": "IsInt"}


def run_commands(egraph: bindings.EGraph, *commands: Any) -> list[Any]:
    """Run commands; egglog's errors and panics (a BaseException) become EqsatError."""
    try:
        return list(egraph.run_program(*commands))
    except bindings.EggSmolError as error:
        raise EqsatError(f"e-graph error: {error.context}") from None
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as error:  # pyo3's PanicException derives from BaseException
        raise EqsatError(f"e-graph engine failure: {error}") from None


class Session:
    """Terms added to one scratch e-graph, saturated, and read back."""

    def __init__(self, engine: Engine, egraph: bindings.EGraph, tensor: bool,
                 rulesets: frozenset[str]) -> None:
        self.engine = engine
        self.egraph = egraph
        self.tensor = tensor  # whether shapes matter: then the shape analysis runs
        self.rulesets = rulesets  # those compiled into its e-graph
        self._free_vars = bool(engine._asks_free_vars & rulesets)  # a `free of` guard among them
        self.closed = False
        self._names: dict[Expr, str] = {}
        self._symbols: dict[str, Expr] = {}
        self._bits: dict[str, int] = {}
        self._shapes = ShapeTable()
        self._pushes = 0  # egglog push levels of its own, popped with the session
        self.nodes = 0  # the most e-nodes a run of it reported (its e-graph's ageing)
        self.needs_snapshot = False  # a term added is too large or deep for egglog's extract

    def add(self, expr: Expr) -> str:
        """Put a term in the e-graph; returns its handle (a global name). A tensor
        expression's shapes are checked first (ShapeError)."""
        self._check_open()
        run_commands(self.egraph, *self._added(expr))
        return self._names[expr]

    def add_equal(self, pairs: Iterable[tuple[Expr, Expr]]) -> None:
        """Put each pair of terms in the e-graph in one e-class, in one program: the caller
        knows them equal (a rewrite by a rule, made outside the e-graph)."""
        self._check_open()
        commands: list[object] = []
        for first, second in pairs:
            commands += self._added(first) + self._added(second)
            commands.append(bindings.ActionCommand(
                t.union(t.var(self._names[first]), t.var(self._names[second]))))
        if commands:
            run_commands(self.egraph, *commands)

    def _added(self, expr: Expr) -> list[object]:
        """The commands that put a term in the e-graph (see add), its handle named."""
        check_depth(expr)
        if tree_size(expr) > MAX_EXTRACTED_TREE or depth(expr) > MAX_EXTRACTED_DEPTH:
            self.needs_snapshot = True
        commands: list[object] = []
        order = postorder(expr)
        if self.tensor:
            commands += self._shapes.add(shape_of(node) for node in order)
        elif is_tensor(expr):
            raise EqsatError(f"{expr} has tensors: it needs a session opened with tensor=True")
        named = _named(order, expr, self.tensor)
        terms: dict[Expr, t.Term] = {n: t.var(self._names[n]) for n in order if n in self._names}
        for node in order:
            if node in terms:
                continue
            if node.is_symbol:
                term = t.sym(node.name)
                check_same_symbol(self._symbols, node)
                commands += self._variable_bit(node.name)
            elif node.is_number:
                term = t.num(node.number)
            else:
                term = t.op(node.op, *(terms[a] for a in node.args))
            if node not in named:
                terms[node] = term
                continue
            name = f"$e{len(self._names)}"
            commands.append(bindings.ActionCommand(bindings.Let(t.SPAN, name, term)))
            self._names[node] = name
            terms[node] = t.var(name)
            if node.is_symbol:  # facts about a symbol follow its definition
                commands += self._facts(node, name)
                if self.tensor:
                    commands.append(shape_fact(name, self._shapes.id_of(node.shape)))
        return commands

    def add_facts(self, expr: Expr, facts: Iterable[str]) -> None:
        """Put a term in the e-graph with sign facts known of it (from a domain's bounds),
        for the guards that ask about it and the analysis that builds on it."""
        name = self.add(expr)
        run_commands(self.egraph, *(bindings.ActionCommand(t.action(t.call(fact, t.var(name))))
                            for fact in sorted(facts) if fact in SIGN_FACTS))

    def _variable_bit(self, name: str) -> list[object]:
        """The symbol's bit for `free of` guards; past 62 symbols they share one bit, which
        only makes `free of` more cautious."""
        if not self._free_vars or name in self._bits:
            return []
        self._bits[name] = 1 << min(len(self._bits), MAX_VARIABLE_BITS)
        return [bindings.ActionCommand(bindings.Set(t.SPAN, "VarBit", [t.string(name)],
                                                    t.integer(self._bits[name])))]

    def _facts(self, node: Expr, name: str) -> list[object]:
        return [bindings.ActionCommand(t.action(t.call(_ASSUMPTION_FACTS[a], t.var(name))))
                for a in sorted(node.assumptions)]

    def run(self, rulesets: Sequence[str], limits: Limits | None = None,
            shrinking_only: bool = False, reorder: bool = True) -> RunReport:
        """Saturate with the rulesets until a fixpoint or a limit; says which stopped it.
        shrinking_only: only their rules that make a term smaller (see Rule.shrinks), a cheap
        first stage that always ends. reorder=False: without the rules that only reorder sums
        and products (see Rule.reorders), for a caller that takes terms modulo them.

        While the e-graph is small, each iteration applies every match (cheap, exact
        saturation test). Past `limits.plain_nodes` e-nodes, iterations run in chunks under
        egglog's back-off scheduler, which holds back a rule whose matches exceed the match
        limit; a chunk that grows nothing doubles the limit for the next.
        """
        limits = Limits.of(limits)
        self._check_open()
        ruleset = self._ruleset(rulesets, shrinking_only, reorder)
        expected = self.engine.rule_names(rulesets)
        analyse = self._analyses(rulesets)
        run_commands(self.egraph, bindings.UserDefined(t.SPAN, "run-schedule", [analyse]))
        nodes, contradiction = self._sizes()
        report = RunReport(StopReason.CONTRADICTION if contradiction else StopReason.ITERATIONS,
                           nodes=nodes)
        if contradiction:
            return report
        node_limit = max(limits.nodes, limits.nodes_per_input * report.nodes)
        progress = Progress(node_limit, limits.seconds)
        try:
            self._steps(report, limits, ruleset, expected, analyse, node_limit, progress)
        finally:
            progress.finish()
            self.nodes = max(self.nodes, report.nodes, *report.node_history)
        return report

    def _steps(self, report: RunReport, limits: Limits, ruleset: str, expected: set[str],
               analyse: t.Term, node_limit: int, progress: Progress) -> None:
        """Run steps until a fixpoint or a limit, filling in the report (see run)."""
        start = progress.began
        match_limit = limits.match_limit
        last_step = 0.0
        growth_factor = 1.0  # e-nodes after the last step over those before it
        while report.iterations < limits.iterations:
            before = report.nodes
            # no rule runs on a contradicted e-graph: its classes of many numbers feed
            # endless folds (the run stops after the step; a chunk would go on inside it)
            until = (t.var(":until"), analysis.contradicted())
            plain = before < limits.plain_nodes
            if plain:
                steps = 1
                schedule = [t.call("run", t.var(ruleset), *until), analyse]
            else:
                steps = min(limits.chunk, limits.iterations - report.iterations)
                scheduler = t.call("back-off", t.var(":match-limit"), t.integer(match_limit),
                                   t.var(":ban-length"), t.integer(limits.ban_length))
                step = t.call("seq", t.call("run-with", t.var("bo"), t.var(ruleset), *until),
                              analyse)
                schedule = [t.call("let-scheduler", t.var("bo"), scheduler),
                            t.call("repeat", t.integer(steps), step)]
            # growth speeds up from step to step: a step applying every match that would
            # multiply the e-nodes at least as the last did, and so end past the limit, is
            # not taken (it would be undone, after costing more than all the steps before)
            if plain and before * growth_factor > node_limit * NODE_SLACK:
                report.seconds = time.perf_counter() - start
                report.stop_reason = StopReason.NODES
                break
            began = time.perf_counter()
            # a step that could pass the node limit is undone if it does (one step has
            # grown an e-graph 5-fold); a push costs a few ms, so only those at risk
            # (each push keeps a copy of the e-graph until the session ends: a few at most; a
            # step at risk once they are spent could not be undone, so it is not taken)
            guarded = before * STEP_NODE_GROWTH > node_limit
            if guarded and self._pushes >= MAX_SNAPSHOTS:
                report.seconds = time.perf_counter() - start
                report.stop_reason = StopReason.NODES
                break
            if guarded:
                run_commands(self.egraph, bindings.Push(1))
                self._pushes += 1
            output = run_commands(self.egraph, bindings.UserDefined(t.SPAN, "run-schedule",
                                                            schedule))[0].report
            step_before, last_step = last_step, time.perf_counter() - began
            if guarded and self._sizes()[0] > node_limit * NODE_SLACK:
                run_commands(self.egraph, bindings.Pop(t.SPAN, 1))  # undone: the e-graph before it
                self._pushes -= 1
                report.seconds = time.perf_counter() - start
                report.stop_reason = StopReason.NODES
                break
            report.iterations += steps
            for name, count in output.num_matches_per_rule.items():
                if name in expected:
                    report.rule_matches[name] = report.rule_matches.get(name, 0) + count
            report.nodes, contradiction = self._sizes()
            growth_factor = report.nodes / max(before, 1)
            report.node_history.append(report.nodes)
            report.seconds = time.perf_counter() - start
            progress.update(report.iterations, report.nodes)
            if contradiction:
                report.stop_reason = StopReason.CONTRADICTION
                break
            if output.can_stop:  # nothing changed and no rule is held back: a fixpoint
                report.stop_reason = StopReason.SATURATED
                break
            if report.nodes >= node_limit:
                report.stop_reason = StopReason.NODES
                break
            # stop before a step that would likely end past the time limit: the next grows on
            # the last as the last grew on the one before (at least STEP_GROWTH-fold), and
            # what follows a run (extraction, discarding the e-graph) takes time in
            # proportion to its size
            trend = last_step / step_before if step_before else 0.0
            growth = min(max(trend, STEP_GROWTH), MAX_STEP_GROWTH)
            ahead = last_step * growth + report.nodes * SECONDS_PER_NODE_AFTER
            if report.seconds + ahead >= limits.seconds * PLANNED_SHARE:
                report.stop_reason = StopReason.TIME
                break
            if steps > 1 and report.nodes == before:
                match_limit *= 2

    def _analyses(self, rulesets: Sequence[str], folding: bool = True) -> t.Term:
        """Saturate the analyses these rulesets' guards consult, and constant folding."""
        return analysis.saturated(bool(self.engine._asks_free_vars.intersection(rulesets)),
                                  self.tensor, folding)

    def saturate(self, rulesets: Sequence[str]) -> RunReport:
        """Run to a fixpoint without a time limit: only for rulesets that terminate (as [diff]
        does, pushing diff strictly inward). One iteration a command, so that a run whose
        e-graph grows past SATURATE_NODES (vjp seeds multiply along every path of a term
        with shared subterms) stops with a LimitError instead of exhausting memory.

        Constant folding stays off: it puts 1^2 in the e-class of 1, and rules that
        descend into subterms (as diff's do) would follow such cycles without end.
        """
        self._check_open()
        ruleset = self._ruleset(rulesets)
        analyse = self._analyses(rulesets, folding=False)
        step = t.call("seq", analyse, t.call("run", t.var(ruleset)), analyse)
        expected = self.engine.rule_names(rulesets)
        report = RunReport(StopReason.SATURATED)
        start = time.perf_counter()
        while True:
            output = run_commands(self.egraph, bindings.UserDefined(t.SPAN, "run-schedule",
                                                            [step]))[0].report
            report.iterations += 1
            for name, count in output.num_matches_per_rule.items():
                if name in expected:
                    report.rule_matches[name] = report.rule_matches.get(name, 0) + count
            report.nodes = self.node_count()
            if output.can_stop:
                break
            if report.nodes > SATURATE_NODES:
                raise LimitError(f"the [{', '.join(rulesets)}] rules grew the e-graph past "
                                 f"{SATURATE_NODES:,} e-nodes")
        report.seconds = time.perf_counter() - start
        report.node_history.append(report.nodes)
        self.nodes = max(self.nodes, report.nodes)
        return report

    def node_count(self) -> int:
        """E-nodes of the term sort in the e-graph."""
        return self._sizes()[0]

    def _sizes(self) -> tuple[int, bool]:
        """E-nodes of the term sort, and whether a contradiction was derived."""
        sizes = dict(run_commands(self.egraph, bindings.PrintSize(t.SPAN, None))[0].sizes)
        nodes = sum(size for name, size in sizes.items() if name in CONSTRUCTORS)
        return nodes, sizes.get(analysis.CONTRADICTION, 0) > 0

    def same(self, first: str, second: str) -> bool:
        """Whether two handles are in one e-class."""
        self._check_open()
        try:
            self.egraph.run_program(bindings.Check(t.SPAN, [t.equal(t.var(first),
                                                                     t.var(second))]))
        except bindings.EggSmolError:
            return False
        return True

    def extract(self, handle: str) -> tuple[Expr, int]:
        """The term of least tree cost in a handle's e-class, and that cost, by egglog; a
        LimitError where a term added is too large or deep for it (see needs_snapshot: the
        extractors over snapshot() work on the DAG, without recursion)."""
        self._check_open()
        if self.needs_snapshot:
            raise LimitError(f"the expression is larger than {MAX_EXTRACTED_TREE:,} nodes "
                             "when its shared subterms are written out, or nested deeper "
                             f"than {MAX_EXTRACTED_DEPTH:,} levels, for egglog's extraction")
        best = run_commands(self.egraph,
                            bindings.UserDefined(t.SPAN, "extract", [t.var(handle)]))[0]
        return term_to_expr(best.termdag, best.term, self.symbol), best.cost

    def snapshot(self, handles: Sequence[str], facts: bool = False) -> Snapshot:
        """Every e-node, grouped by e-class, for extractors that need the whole graph; with
        facts, also what the analyses proved (sign facts, free variables) for guards."""
        self._check_open()
        frozen = self.egraph.freeze()
        ids: dict[object, int] = {}

        def class_of(value: object) -> int:
            return ids.setdefault(value, len(ids))

        classes: dict[int, list[tuple[str, tuple[int, ...], Fraction | str | None]]] = {}
        roots: dict[str, int] = {}
        snapshot = Snapshot(classes, roots)
        for name, function in frozen.functions.items():
            if function.is_let_binding and name in handles:
                roots[name] = class_of(function.rows[0].output)
            if name not in CONSTRUCTORS:
                continue
            for row in function.rows:
                node: tuple[str, tuple[int, ...], Fraction | str | None]
                if name == "Num":
                    node = ("num", (), self.egraph.value_to_bigrat(row.inputs[0]))
                elif name == "Sym":
                    node = ("sym", (), self.egraph.value_to_string(row.inputs[0]))
                else:
                    node = (BY_CONSTRUCTOR[name], tuple(class_of(v) for v in row.inputs), None)
                classes.setdefault(class_of(row.output), []).append(node)
        if facts:
            self._read_facts(frozen, snapshot, class_of)
        return snapshot

    def _read_facts(self, frozen: Any, snapshot: Snapshot,
                    class_of: Callable[[object], int]) -> None:
        """The sign facts, FreeVars masks and symbol bits, into the snapshot."""
        for name, function in frozen.functions.items():
            if name in SIGN_FACTS:
                for row in function.rows:
                    snapshot.facts.setdefault(class_of(row.inputs[0]), set()).add(name)
            elif name == "FreeVars":
                snapshot.free_vars.update((class_of(row.inputs[0]),
                                           self.egraph.value_to_i64(row.output))
                                          for row in function.rows)
        snapshot.var_bits.update(self._bits)

    def symbol(self, name: str) -> Expr:
        """The symbol of that name added in this session (with its assumptions)."""
        return self._symbols.get(name) or Expr("sym", (), name)

    def _ruleset(self, rulesets: Sequence[str], shrinking_only: bool = False,
                 reorder: bool = True) -> str:
        self.engine.check_rulesets(rulesets)
        missing = sorted(set(rulesets) - self.rulesets)
        if missing:
            raise EqsatError(f"internal: ruleset(s) {missing} were not named when this "
                             "session was opened")
        return self.engine._ruleset(self.egraph, rulesets, shrinking_only, reorder)

    def _check_open(self) -> None:
        if self.closed:
            raise EqsatError("this e-graph session has ended")


def _named(order: Sequence[Expr], root: Expr, tensor: bool) -> set[Expr]:
    """The subterms that get a global name in the e-graph: the root, symbols with facts
    (assumptions, shapes), subterms used twice, and one level in INLINE_DEPTH, so that the
    rest go to egglog as nested terms (one global per subterm made adding 100,000 of them
    take 52 s, growing quadratically) that are never deeper than INLINE_DEPTH."""
    uses: dict[Expr, int] = {}
    for node in order:
        for arg in node.args:
            uses[arg] = uses.get(arg, 0) + 1
    named = {root}
    height: dict[Expr, int] = {}
    for node in order:
        height[node] = 1 + max((height[a] for a in node.args if a not in named), default=0)
        facts = node.is_symbol and (bool(node.assumptions) or tensor)
        if facts or uses.get(node, 0) > 1 or height[node] >= INLINE_DEPTH:
            named.add(node)
    return named
