"""What a saturation run may spend (Limits), and the plain data the e-graph layer hands up
(Snapshot, the costs of leaves): nothing here loads egglog, so importing eqsat does not."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from fractions import Fraction

from ..errors import ArgumentError, EqsatError

SYMBOL_COST = 10
NUMBER_COST = 5
MAX_FOLD_BITS = 1024  # operands of a fold stay below this many bits (numerator and denominator)
MAX_FOLD_EXPONENT = 64
MAX_INPUT_CHARACTERS = 4_000_000  # the longest text read by default: generated code's size
_SETUP_SECONDS = [0.0]  # the process's one-time setup so far, in all threads (see setup)
_IN_SETUP = threading.local()  # whether this thread is inside a setup


@contextmanager
def setup() -> Iterator[None]:
    """Count the time inside as the process's one-time setup (loading egglog, compiling the
    rules): a time limit running meanwhile is extended by it, so that the first query of a
    process gets the answer a later one gets (in another thread's query, too: a backstop is
    only ever extended)."""
    outermost = not getattr(_IN_SETUP, "inside", False)  # (a setup inside one is in it)
    _IN_SETUP.inside = True
    began = time.perf_counter()
    try:
        yield
    finally:
        if outermost:
            _IN_SETUP.inside = False
            _SETUP_SECONDS[0] += time.perf_counter() - began


def setup_seconds() -> float:
    """The one-time setup this process has done so far, in seconds."""
    return _SETUP_SECONDS[0]


def _extended(given: float, setup_before: float) -> float:
    """A deadline given when the setup stood at setup_before, with the setup done since."""
    return given + setup_seconds() - setup_before


@dataclass(frozen=True)
class Limits:
    """Bounds on one saturation run, and the backoff scheduler's settings."""

    iterations: int = 30
    nodes: int = 1_000  # e-nodes per run, or nodes_per_input times the input's, if more
    nodes_per_input: int = 8
    seconds: float = 5.0
    plain_nodes: int = 2_000  # below this many e-nodes an iteration applies every match
    match_limit: int = 500  # past it, a rule matching more in one iteration is held back
    ban_length: int = 2
    chunk: int = 2  # iterations per back-off command
    characters: int = MAX_INPUT_CHARACTERS  # the longest input text read
    # the time limit as it was given, where `seconds` is what was left of it when the call
    # began (a command's start-up, an earlier stage of a call): messages name this one
    given_seconds: float | None = None

    def __post_init__(self) -> None:
        counts = {"iterations": self.iterations, "nodes": self.nodes,
                  "nodes_per_input": self.nodes_per_input, "match_limit": self.match_limit,
                  "chunk": self.chunk, "characters": self.characters}
        for name, value in counts.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise EqsatError(f"the {name} limit is a positive integer, not {value!r}")
        if not isinstance(self.seconds, (int, float)) or isinstance(self.seconds, bool) or \
                not self.seconds >= 0 or self.seconds == float("inf"):  # NaN fails too
            raise EqsatError(f"the time limit is a number of seconds, not {self.seconds!r}")
        if self.given_seconds is not None and not (
                isinstance(self.given_seconds, (int, float)) and self.given_seconds > 0):
            raise EqsatError(f"the time limit given is a positive number of seconds, not "
                             f"{self.given_seconds!r}")

    @property
    def stated_seconds(self) -> float:
        """The time limit a message names: as given (given_seconds), else seconds."""
        return self.seconds if self.given_seconds is None else self.given_seconds

    @classmethod
    def of(cls, value: object) -> Limits:
        """The limits a function was given: the defaults for None."""
        if value is None:
            return _DEFAULT_LIMITS
        if not isinstance(value, Limits):
            raise ArgumentError(f"limits is an eqsat.Limits(...), not {type(value).__name__} "
                                f"{value!r:.40}")
        return value


_DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class Budget:
    """The time limit of a whole call, carried through its rounds and stages: a deadline,
    and for each run the limits with the seconds that are left."""

    limits: Limits
    given: float  # time.perf_counter() by which the call should be done, setup left out
    setup_before: float = field(default_factory=setup_seconds)

    @classmethod
    def start(cls, limits: Limits, began: float | None = None,
              setup_before: float | None = None) -> Budget:
        """A budget of limits.seconds from `began` (now, if not given); setup_before: the
        setup done by then (setup_seconds() at `began`), so that setup since is left out."""
        given = (time.perf_counter() if began is None else began) + limits.seconds
        return cls(limits, given, setup_seconds() if setup_before is None else setup_before)

    @property
    def deadline(self) -> float:
        """When the call should be done: the time given, and the setup done since."""
        return _extended(self.given, self.setup_before)

    def seconds_left(self) -> float:
        return max(self.deadline - time.perf_counter(), 0.0)

    def left(self, iterations: int | None = None) -> Limits:
        """The limits for the next run: the seconds that are left (and fewer iterations,
        if given)."""
        limits = replace(self.limits, seconds=self.seconds_left(),
                         given_seconds=self.limits.stated_seconds)
        return limits if iterations is None else replace(limits, iterations=iterations)


@dataclass
class Backstop:
    """The time limit as a backstop behind work budgets: each stage's work is bounded by
    counts (points, terms, candidates, steps), so the same input and limits give the same
    answer on any machine; only a slow or busy one reaches this deadline, and then `cut`
    remembers that it cut work short (the report says time). A part of it (within) has a
    nearer deadline and sets the whole's `cut`."""

    given: float  # a time.perf_counter() value, setup left out
    whole: Backstop | None = None
    cut: bool = False
    setup_before: float = field(default_factory=setup_seconds)

    @property
    def deadline(self) -> float:
        """The time given, and the one-time setup done since (see setup)."""
        return _extended(self.given, self.setup_before)

    def passed(self) -> bool:
        """Whether the deadline has passed: the work that asks is then cut short."""
        if time.perf_counter() <= self.deadline:
            return False
        self.cut = True
        if self.whole is not None:
            self.whole.cut = True
        return True

    def within(self, seconds: float) -> Backstop:
        """A part that ends `seconds` from now, or with the whole if sooner."""
        root = self.whole or self
        return Backstop(min(self.deadline, time.perf_counter() + seconds), root)

    def seconds_left(self) -> float:
        return max(self.deadline - time.perf_counter(), 0.0)


@dataclass(frozen=True)
class Snapshot:
    """A frozen e-graph: each e-class's e-nodes as (op, children) or (leaf, value)."""

    classes: dict[int, list[tuple[str, tuple[int, ...], Fraction | str | None]]]
    roots: dict[str, int]  # handle -> e-class
    facts: dict[int, set[str]] = field(default_factory=dict)  # sign facts proven per e-class
    free_vars: dict[int, int] = field(default_factory=dict)  # e-class -> FreeVars bit mask
    var_bits: dict[str, int] = field(default_factory=dict)  # symbol -> its bit
