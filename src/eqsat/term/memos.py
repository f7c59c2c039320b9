"""What is kept on terms between queries (their shapes, walks, costs, free symbols), and
forgetting it all at once, as SymPy's clear_cache: a benchmark calls it before each timed call,
so a repeat measures work."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_FORGETTING: list[Callable[[], None]] = []  # what clear_cache calls (see forget_with)


class Kept[V]:
    """A memo keyed by terms. Its entries live in a dict on each term (the slot Expr._kept,
    one entry per memo), so a lookup is an attribute read and a dict lookup (a weak-keyed
    dict made a weak reference at each), and each entry goes with its term. A value must
    not refer to its own term (that would keep it alive until a collection)."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name  # its key in each term's dict: one name per memo

    def get(self, term: Any, default: V | None = None) -> V | None:
        kept = term._kept
        return default if kept is None else kept.get(self._name, default)

    def __contains__(self, term: Any) -> bool:
        kept = term._kept
        return kept is not None and self._name in kept

    def __getitem__(self, term: Any) -> V:
        kept = term._kept
        if kept is None:
            raise KeyError(term)
        found: V = kept[self._name]
        return found

    def __setitem__(self, term: Any, value: V) -> None:
        kept = term._kept
        if kept is None:
            kept = {}
            object.__setattr__(term, "_kept", kept)
        kept[self._name] = value


def forget_with(forget: Callable[[], None]) -> None:
    """Have clear_cache call forget (the term table registers how to empty every term's
    memos: this module cannot import it)."""
    _FORGETTING.append(forget)


def clear_cache() -> None:
    """Forget everything kept on terms; answers do not change, only their time."""
    for forget in _FORGETTING:
        forget()
