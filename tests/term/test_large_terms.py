"""Terms that are deep, or small as a DAG and huge as a tree: every entry point works on the
DAG (or stops with a LimitError), never exhausting memory or the stack."""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pytest

import eqsat
from eqsat.term.printing import ELLIPSIS, MAX_PRINTED_NODES, shown_part
from eqsat.term.walks import MAX_DEPTH, postorder, tree_size


def _doubling(levels: int) -> eqsat.Expr:
    """e = sin(e)*e, `levels` times: 2*levels + 1 distinct nodes, about 3*2^levels as a tree."""
    e = eqsat.parse("x")
    for _ in range(levels):
        e = eqsat.sin(e) * e
    return e


def test_a_deep_term_is_extracted_without_recursion_and_past_the_limit_refused() -> None:
    # 33,000 levels once overflowed egglog's extraction stack (SIGSEGV)
    deep = "x^" * 33_000 + "x"
    assert eqsat.simplify(deep) == eqsat.parse(deep)
    e = eqsat.parse("x")
    for _ in range(MAX_DEPTH):
        e = eqsat.sin(e)
    assert eqsat.simplify(e) is e  # no rule can start from it: no e-graph, no depth limit
    e = eqsat.parse("x")
    for _ in range(MAX_DEPTH):
        e = eqsat.exp(e)  # (exp(a) => E^a can)
    with pytest.raises(eqsat.LimitError, match=f"nested {MAX_DEPTH + 1:,} levels deep"):
        eqsat.simplify(e)


def test_adding_a_long_chain_takes_time_in_proportion_to_it() -> None:
    # one egglog global per subterm made 100,000 of them take 52 s (quadratic)
    e = eqsat.parse("x")
    for _ in range(20_000):
        e = eqsat.sin(e)
    with eqsat.engine().session() as session:
        session.add(e)
        assert session.node_count() == 20_001
        assert len(session._names) < 20_000 // 16  # named one level in INLINE_DEPTH


def test_printing_a_dag_shows_a_bounded_part() -> None:
    e = _doubling(40)
    assert len(postorder(e)) == 81 and tree_size(e) > 2**40
    text = str(e)
    assert ELLIPSIS in text and len(text) < 10 * MAX_PRINTED_NODES
    assert "\\ldots" in eqsat.latex(e)
    assert len(eqsat.pretty(e)) < 10 * MAX_PRINTED_NODES
    assert hash(e) == hash(_doubling(40))  # hash-consed: the same object, found in O(nodes)


def test_a_term_within_the_print_budget_prints_whole_and_reads_back() -> None:
    e = _doubling(12)
    assert shown_part(e) is e
    assert eqsat.parse(str(e)) == e


def test_the_part_shown_keeps_the_top_of_the_term() -> None:
    shown = shown_part(_doubling(10), budget=7)
    assert tree_size(shown) <= 7
    assert str(shown) == "sin(…)*(sin(…)*…)"  # breadth first: the top levels are whole


def test_a_deep_nest_prints_in_memory_near_its_size() -> None:
    e = eqsat.parse("x")
    for _ in range(30_000):
        e = eqsat.sin(e)
    tracemalloc.start()
    text = eqsat.latex(e)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert text.count("\\sin") == 30_000
    assert peak < 100 * len(text)  # 12 GB once: every level's string was kept


def test_compile_evaluates_a_dag_with_one_line_per_distinct_node() -> None:
    e = _doubling(40)
    kernel = eqsat.compile(e, ["x"], optimize=None)
    source = kernel.source
    tile = source[source.index("def _kernel_tile"):source.index("def kernel(")]
    assert len(tile.splitlines()) < 100  # 81 distinct nodes, each a line
    points = np.linspace(0.1, 0.9, 5)
    assert np.allclose(kernel(points), eqsat.evaluate(e, x=points))


def test_simplify_and_diff_of_a_dag_work_on_the_dag() -> None:
    e = _doubling(30)
    simplified = eqsat.simplify(e)
    assert np.isclose(eqsat.evaluate(simplified, x=0.7), eqsat.evaluate(e, x=0.7))
    derivative = eqsat.diff(_doubling(12), "x")
    step = 1e-6
    slope = (eqsat.evaluate(_doubling(12), x=0.7 + step)
             - eqsat.evaluate(_doubling(12), x=0.7 - step)) / (2 * step)
    assert np.isclose(eqsat.evaluate(derivative, x=0.7), slope, rtol=1e-5)
    big = eqsat.diff(e, "x")  # extracted on eqsat's side: egglog's tree would not fit
    assert "diff" not in {node.op for node in postorder(big)}


def test_a_gradient_that_grows_without_bound_stops_with_a_limit_error() -> None:
    # reverse mode by rewriting multiplies seeds along every path of the DAG
    with pytest.raises(eqsat.LimitError, match="grew the e-graph past"):
        eqsat.grad(eqsat.sum(_doubling(30)), "x", shapes={"x": (3,)})


def test_a_scalar_gradient_is_the_derivative_taken_once_per_shared_subterm() -> None:
    # (by reverse mode's rewriting, the scalar's gradient grew past the limit too)
    assert eqsat.grad(_doubling(12), "x") == eqsat.diff(_doubling(12), "x")


def test_compiling_a_long_chain_takes_time_in_proportion_to_it() -> None:
    # reachability per node, free symbols per node and greedy DAG extraction were each
    # quadratic: a 5,000-node expression took 16 s with optimize=None and 126 s without
    names = [eqsat.parse(f"y{i}") for i in range(20)]
    e = eqsat.parse("x")
    for i in range(2_500):
        e = eqsat.sin(e) + names[i % 20] if i % 2 else e * names[i % 20]
    began = time.perf_counter()
    kernel = eqsat.compile(e, optimize=None)
    plain = time.perf_counter() - began
    optimized = eqsat.compile(e, limits=eqsat.Limits(seconds=2))
    assert plain < 15 and time.perf_counter() - began < 30  # about 1 s each, measured
    values = [0.3] + [0.9] * 20
    assert np.isclose(kernel(*values), optimized(*values))


def test_an_input_too_large_for_the_time_limit_comes_back_unchanged_and_says_so() -> None:
    e = eqsat.parse("x")
    for _ in range(50_000):
        e = eqsat.sin(e) + 0
    result = eqsat.simplify_report(e, limits=eqsat.Limits(seconds=1.0))
    assert result.report.stop_reason == "time" and result.report.iterations == 0
    assert result.expr == e  # not begun: adding and showing it alone would pass the limit
