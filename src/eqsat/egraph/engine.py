"""Engines: a rule library compiled once into an egglog e-graph, each query a Session in it."""

from __future__ import annotations

import ctypes
import os
import weakref
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from egglog import bindings

from ..encoding import commands as t
from ..encoding import shape_analysis
from ..errors import EqsatError, RuleError
from ..limits.budget import NUMBER_COST, SYMBOL_COST, setup
from ..rules import RuleFile, library_paths, load_rules, shipped_rules
from ..rules.compile import dropped, needs_free_vars, rewrite_command
from ..rules.derivative import DiffRules
from ..rules.loader import check_unique
from ..rules.model import Rule
from ..rules.reverse import DIFF_RULESET
from ..rules.soundness import check_rule
from ..term import arguments
from ..term.ops import ROWS
from . import analysis
from .session import Session, run_commands

# egglog's pop keeps the ids its e-classes took, so each push copies more: a compiled e-graph
# is dropped (and compiled again, ~70 ms) once its sessions have made this many e-nodes, which
# keeps a push under ~2.5 ms (measured: +0.15 ms per 1,000 e-nodes made)...
GRAPH_LIFETIME_NODES = 10_000
# ...and a session counts this many more: each push and pop ages it beyond the e-nodes it
# reports (300 sessions of 19 e-nodes made one 1.18x slower than a fresh one, 1,500 1.69x;
# in a bare egglog e-graph, 9,000 pushes of a number made each push 10x slower), so that
# small queries renew it every ~100 sessions
SESSION_NODES = 100


def shrinking(ruleset: str) -> str:
    """The name of the ruleset holding a ruleset's shrinking rules (see Rule.shrinks)."""
    return f"{ruleset}:shrinking"


def growing(ruleset: str) -> str:
    """The name of the ruleset holding a ruleset's rules that grow terms, but for those that
    only reorder sums and products (see reordering)."""
    return f"{ruleset}:growing"


def reordering(ruleset: str) -> str:
    """The name of the ruleset holding a ruleset's rules that only regroup or reorder the
    operands of sums and products (see Rule.reorders)."""
    return f"{ruleset}:reordering"


def unordered(ruleset: str) -> str:
    """The name of the ruleset running a ruleset's rules but for those that only reorder."""
    return f"{ruleset}:unordered"


CHECK_POINTS = 200  # sampled points per user rule when an Engine loads it
_LIVE_ENGINES: weakref.WeakSet[Engine] = weakref.WeakSet()
_FORKED = False  # this process was forked from one that had loaded egglog (this module)


def _after_fork_in_child() -> None:
    """egglog's worker threads, started when it loads, do not survive fork: in the child any
    e-graph work, even dropping an e-graph, waits on them for ever. The parent's e-graphs
    are kept (never dropped, not even at exit) and every engine refuses work, saying why."""
    global _FORKED
    _FORKED = True
    kept = [engine._graphs for engine in _LIVE_ENGINES]
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(kept))  # a reference nothing releases


os.register_at_fork(after_in_child=_after_fork_in_child)
FORK_MESSAGE = ("eqsat cannot run in a process forked from one that had already run a query "
                "(egglog's worker threads do not survive fork): use a 'spawn' or "
                "'forkserver' process pool (multiprocessing.get_context('spawn')), or fork "
                "before the first query")


def _warm_up(rulesets: Sequence[str], free_vars: bool, tensor: bool) -> object:
    """A run of the analyses and of each ruleset on the empty e-graph, as a query runs them:
    egglog prepares each rule on its first run, and a session's pop would throw that away
    (measured: 5 ms less a session, its push 0.2 ms more)."""
    until = (t.var(":until"), analysis.contradicted())
    runs = [t.call("run", t.var(part), *until)
            for name in rulesets for part in (name, shrinking(name), unordered(name))]
    return bindings.UserDefined(t.SPAN, "run-schedule",
                                [analysis.saturated(free_vars, tensor), *runs])


def _refuse_unsound(rules: Sequence[Rule]) -> None:
    """A RuleError naming every rule the numeric check finds unsound or cannot check."""
    verdicts = [check_rule(rule, CHECK_POINTS) for rule in rules]
    failed = [verdict for verdict in verdicts if not verdict.sound]
    if failed:
        listed = "\n".join(f"  {verdict}" for verdict in failed)
        raise RuleError(f"{len(failed)} rule(s) failed the soundness check:\n{listed}\n"
                        "fix them, or load them anyway: trust=True, or --trust after the "
                        "command (eqsat simplify --trust ...)")


class Engine:
    """A rule library compiled once into an e-graph; each query runs inside push/pop.

    Two e-graphs, each compiled on first use: one for scalar queries (the rules as written,
    no shape analysis), one for tensor queries (every rule; a rule that drops a variable
    needs it scalar, see rules.compile.dropped; the shape analysis). Scalar queries pay
    nothing for tensors: egglog's push/pop grows with the rules compiled.
    """

    def __init__(self, rules: Iterable[str | Path] = (), *, library: bool = True,
                 trust: bool = False) -> None:
        """Compile the shipped library (unless library=False) and these rule files. Each
        rule of these files is checked numerically first (the library's are checked by the
        test suite): a RuleError lists those that fail, unless trust=True."""
        self._graphs: dict[tuple[bool, frozenset[str]], bindings.EGraph] = {}
        self._check_usable()
        rules = arguments.rule_files(rules)
        loaded = RuleFile()
        if library:  # a shipped file named again is not loaded twice
            shipped = library_paths()
            loaded.extend(shipped_rules())
            rules = [r for r in rules if Path(r).resolve() not in {p.resolve() for p in shipped}]
        mine = load_rules(rules)
        if not trust:
            _refuse_unsound(mine.rules)
        loaded.extend(mine)
        check_unique(loaded.rules)
        self.rules = loaded
        self.diff_rules = DiffRules.of(loaded.in_ruleset(DIFF_RULESET))  # for term derivatives
        self._rule_names: dict[str, set[str]] = {}
        for rule in loaded.rules:
            self._rule_names.setdefault(rule.ruleset, set()).add(rule.name)
        self._combined: dict[tuple[str, ...], str] = {}
        self._made: dict[tuple[bool, frozenset[str]], int] = {}  # e-nodes made, per graph
        self.compiled = 0  # e-graphs compiled (each is compiled again when it has aged)
        self._busy = False
        _LIVE_ENGINES.add(self)
        self._asks_free_vars = {r.ruleset for r in loaded.rules if needs_free_vars([r])}
        if mine.rules:  # a broken rule file fails here, not in a later query
            self._graph(False, frozenset(rule.ruleset for rule in mine.rules))

    def _check_usable(self) -> None:
        """An EqsatError, rather than a hang or egglog's panic, where this engine cannot run."""
        if _FORKED:
            raise EqsatError(FORK_MESSAGE)

    def _graph(self, tensor: bool, rulesets: frozenset[str]) -> bindings.EGraph:
        """The e-graph compiled for scalar or for tensor queries that run these rulesets.

        Each ruleset `r` is three, `r:shrinking`, `r:growing` and `r:reordering` (see
        Rule.shrinks and Rule.reorders); `r` runs them together, `r:unordered` the first
        two; no rule is compiled twice."""
        self.check_rulesets(sorted(rulesets))
        key = (tensor, rulesets)
        if key in self._graphs:
            return self._graphs[key]
        free_vars = bool(self._asks_free_vars & rulesets)
        variants = [bindings.Variant(t.SPAN, "Num", ["BigRat"], NUMBER_COST),
                    bindings.Variant(t.SPAN, "Sym", ["String"], SYMBOL_COST)]
        variants += [bindings.Variant(t.SPAN, spec.egg, [t.SORT] * spec.arity, spec.cost)
                     for spec in ROWS]
        commands: list[object] = [bindings.Datatype(t.SPAN, t.SORT, variants)]
        commands += analysis.declarations(free_vars)
        if tensor:
            commands += shape_analysis.declarations()
        for name in sorted(rulesets):
            parts = [shrinking(name), growing(name), reordering(name)]
            commands += [bindings.AddRuleset(t.SPAN, part) for part in parts]
            commands.append(bindings.UnstableCombinedRuleset(t.SPAN, name, parts))
            commands.append(bindings.UnstableCombinedRuleset(t.SPAN, unordered(name),
                                                             parts[:2]))
        commands += analysis.rules(free_vars)
        if tensor:
            commands += shape_analysis.rules()
        chosen = [rule for rule in self.rules.rules if rule.ruleset in rulesets]
        for rule in chosen:
            if not tensor and rule.about_tensors:  # it could never match a scalar query
                continue
            part = shrinking(rule.ruleset) if rule.shrinks else \
                reordering(rule.ruleset) if rule.reorders else growing(rule.ruleset)
            commands.append(rewrite_command(replace(rule, ruleset=part),
                                            dropped(rule) if tensor else []))
        egraph = bindings.EGraph()
        with setup():  # compiled once (and again as it ages): not a query's work
            run_commands(egraph, *commands)
            run_commands(egraph, _warm_up(sorted(rulesets), free_vars, tensor))
        self._graphs[key] = egraph
        self.compiled += 1
        return egraph

    @property
    def rulesets(self) -> list[str]:
        return list(self._rule_names)

    def rule_names(self, rulesets: Sequence[str]) -> set[str]:
        """The names of the rules in these rulesets."""
        return set().union(*(self._rule_names.get(n, set()) for n in rulesets))

    def check_rulesets(self, names: Sequence[str]) -> None:
        """An EqsatError naming those that are not loaded."""
        unknown = [n for n in names if n not in self._rule_names]
        if unknown:
            raise EqsatError(f"unknown ruleset(s) {unknown}; loaded: {self.rulesets}")

    def _ruleset(self, egraph: bindings.EGraph, names: Sequence[str],
                 shrinking_only: bool = False, reorder: bool = True) -> str:
        """The name of one ruleset running these together (all their rules, or only those
        that shrink, or all but those that only reorder); a combination made here goes with
        the session's pop. The names are checked by the session that asks
        (Session._ruleset)."""
        if len(set(names)) == 1:
            return shrinking(names[0]) if shrinking_only else \
                names[0] if reorder else unordered(names[0])
        parts = [shrinking(n) for n in names]
        if not shrinking_only:
            parts += [growing(n) for n in names]
            parts += [reordering(n) for n in names] if reorder else []
        key = tuple(sorted(set(parts)))
        if key not in self._combined:
            name = "combined_" + "_".join(key)
            run_commands(egraph, bindings.UnstableCombinedRuleset(t.SPAN, name, list(key)))
            self._combined[key] = name
        return self._combined[key]

    @contextmanager
    def session(self, tensor: bool = False,
                rulesets: Iterable[str] | None = None) -> Iterator[Session]:
        """A scratch e-graph over the compiled rules, discarded on exit; tensor: for
        expressions with shapes (see shape.is_tensor); rulesets: those the session will run
        (all by default). egglog's push copies every compiled rule, so a session that names
        its rulesets starts faster."""
        self._check_usable()
        if self._busy:
            raise EqsatError("this Engine is already running a query")
        chosen = frozenset(self._rule_names if rulesets is None else rulesets)
        egraph = self._graph(tensor, chosen)
        run_commands(egraph, bindings.Push(1))
        self._busy = True  # only once the push has worked: a failed one leaves it free
        session = Session(self, egraph, tensor, chosen)
        try:
            yield session
        finally:
            session.closed = True
            self._busy = False
            self._combined.clear()  # combined rulesets made in the session go with its pop
            run_commands(egraph, bindings.Pop(t.SPAN, 1 + session._pushes))
            self._aged((tensor, chosen), session.nodes + SESSION_NODES)

    def _aged(self, key: tuple[bool, frozenset[str]], nodes: int) -> None:
        """Count a session's e-nodes against its e-graph's lifetime; drop the e-graph when
        that is spent (see GRAPH_LIFETIME_NODES): the next session compiles a fresh one."""
        self._made[key] = self._made.get(key, 0) + nodes
        if self._made[key] >= GRAPH_LIFETIME_NODES:
            self._graphs.pop(key, None)
            self._made[key] = 0


