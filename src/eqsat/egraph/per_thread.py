"""Each thread's compiled engines, one per set of rule files: one engine runs one query at a
time, and egglog lets go of Python's lock while it runs, so threads query in parallel."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..limits.budget import setup
from ..term import arguments

if TYPE_CHECKING:  # egglog loads with the first engine, not with eqsat
    from .engine import Engine

ENGINES_PER_THREAD = 8
_per_thread = threading.local()


def _engine(rule_files: tuple[tuple[str, float], ...], trust: bool) -> Engine:
    """This thread's engine for these rule file versions (the last 8 used are kept)."""
    cache: OrderedDict[tuple[object, ...], Engine] = _per_thread.__dict__.setdefault(
        "engines", OrderedDict())
    key = (rule_files, trust)
    if key in cache:
        cache.move_to_end(key)
    else:
        with setup():
            from .engine import Engine  # egglog loads with the first engine, not with eqsat

            cache[key] = Engine([path for path, _ in rule_files], trust=trust)
        while len(cache) > ENGINES_PER_THREAD:
            cache.popitem(last=False)
    return cache[key]


_TRUSTED: set[tuple[str, float]] = set()  # rule file versions loaded with trust=True


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return -1.0  # loading it will say what is wrong


def engine(rules: Iterable[str | Path] = (), trust: bool = False) -> Engine:
    """This thread's engine for the shipped library plus these rule files.

    Compiled once per thread and set of files, and again when a file changes. A file's
    rules must pass the numeric soundness check (RuleError otherwise) unless trust=True; a
    file version loaded with trust stays trusted, so later calls with rules=[...] find it.
    """
    files = tuple((str(Path(r)), _modified(Path(r))) for r in arguments.rule_files(rules))
    if trust:
        _TRUSTED.update(files)
    return _engine(files, all(f in _TRUSTED for f in files))
