"""What is kept on terms: the same answers with and without it, nothing kept alive by it,
and clear_cache forgets all of it."""

from __future__ import annotations

import gc
import weakref

import eqsat
from eqsat.extract import CostModel
from eqsat.term.expr import Expr
from eqsat.term.walks import postorder


def _kept() -> int:
    """Entries kept on the live terms, over all memos."""
    return sum(len(term._kept or {}) for term in list(Expr._table.values()))


def test_clear_cache_forgets_every_kept_memo() -> None:
    eqsat.diff("sin(x)*exp(x)", "x")
    assert _kept() > 0
    eqsat.clear_cache()
    assert _kept() == 0


def test_a_kept_walk_is_the_walk_and_a_copy() -> None:
    term = eqsat.parse("sin(x)*x + cos(x)*sin(x)")
    first = postorder(term)
    first.append(term)  # the caller's list is its own
    again = postorder(term)
    eqsat.clear_cache()
    assert again == postorder(term) == first[:-1]


def test_kept_memos_do_not_keep_terms_alive() -> None:
    term = eqsat.parse("sin(kept_memo_a) + exp(kept_memo_b)^2")
    postorder(term)
    CostModel().tree_cost(term)
    eqsat.simplify(term)
    gone = weakref.ref(term)
    del term
    gc.collect()
    assert gone() is None


def test_answers_do_not_depend_on_what_is_kept() -> None:
    cases = [("x^2*sin(x)", "x"), ("sqrt(1 - x^2)", "x"), ("log(x^2 + 1)", "x")]
    warm = [eqsat.diff(text, v) for text, v in cases]
    cold = []
    for text, v in cases:
        eqsat.clear_cache()
        cold.append(eqsat.diff(text, v))
    assert warm == cold
