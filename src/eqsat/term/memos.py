"""What is kept on terms between queries (their shapes, walks, costs, free symbols), and
forgetting it all at once, as SymPy's clear_cache: a benchmark calls it before each timed call,
so a repeat measures work."""

from __future__ import annotations

import weakref
from typing import Any

_KEPT: list[weakref.WeakKeyDictionary[Any, Any]] = []


def kept_on_terms() -> weakref.WeakKeyDictionary[Any, Any]:
    """A memo keyed by terms, each entry gone with its term and all of them with clear_cache.
    Its values must not refer to their key (that would keep the term alive)."""
    memo: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
    _KEPT.append(memo)
    return memo


def clear_cache() -> None:
    """Forget everything kept on terms; answers do not change, only their time."""
    for memo in _KEPT:
        memo.clear()
