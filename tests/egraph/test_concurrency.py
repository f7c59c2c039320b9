"""eqsat from threads and from process pools: the same answers as one thread, or a clear error."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import get_context

import pytest

import eqsat
from eqsat.egraph import engine as egraph
from eqsat.egraph.engine import Engine

CASES = ["x*y/x", "(x + 1)^2 - (x^2 + 2x + 1)", "sin(x)^2 + cos(x)^2", "2*x - x",
         "x/x + y*0", "exp(log(x))", "sqrt(x^2)*x^3", "log(1 + x) - log1p(x)"]


def _answer(text: str) -> str:
    return str(eqsat.simplify(text))


def test_eight_threads_give_the_single_threaded_answers() -> None:
    expected = {text: _answer(text) for text in CASES}  # the main thread's engine first
    calls = [CASES[i % len(CASES)] for i in range(8 * 50)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(_answer, calls))
    assert answers == [expected[text] for text in calls]
    assert _answer(CASES[0]) == expected[CASES[0]]  # and the main thread still works


def test_diff_solve_and_compile_from_threads() -> None:
    derivatives = {text: str(eqsat.diff(text, "x")) for text in CASES[:4]}
    with ThreadPoolExecutor(max_workers=4) as pool:
        found = dict(zip(CASES[:4], pool.map(lambda t: str(eqsat.diff(t, "x")), CASES[:4]),
                         strict=True))
        assert found == derivatives
        solved = pool.submit(eqsat.solve, "3x + 1 = 2(2x - 6)", "x").result()
        kernel = pool.submit(eqsat.compile, "x*y/x + 1").result()
    assert solved["x"] == eqsat.parse("13")
    assert kernel(2.0, 3.0) == 4.0


def test_an_engine_made_in_another_thread_is_usable_here() -> None:
    # egglog 14's e-graphs move between threads (13.2's panicked: "unsendable")
    made: list[Engine] = []
    worker = threading.Thread(target=lambda: made.append(Engine()))
    worker.start()
    worker.join()
    with made[0].session() as session:
        session.add(eqsat.parse("x"))
        assert session.run(["simplify"]).stop_reason == "saturated"


def test_a_failed_push_leaves_the_engine_free(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = Engine()
    real = egraph.run_commands
    failures = []

    def failing_once(graph: object, *commands: object) -> list[object]:
        if not failures and any(type(c).__name__ == "Push" for c in commands):
            failures.append(commands)
            raise eqsat.EqsatError("e-graph engine failure: simulated")
        return real(graph, *commands)  # type: ignore[arg-type]

    monkeypatch.setattr(egraph, "run_commands", failing_once)
    with pytest.raises(eqsat.EqsatError, match="simulated"), engine.session():
        pass
    with engine.session() as session:  # not "already running a query"
        handle = session.add(eqsat.parse("x*1"))
        session.run(["simplify"])
        assert str(session.extract(handle)[0]) == "x"


def test_a_spawn_process_pool_gives_the_same_answers() -> None:
    expected = [_answer(text) for text in CASES[:4]]
    with ProcessPoolExecutor(max_workers=2, mp_context=get_context("spawn")) as pool:
        assert list(pool.map(_answer, CASES[:4])) == expected


FORKED = textwrap.dedent("""
    import multiprocessing, os
    import eqsat

    def work(text):
        try:
            return str(eqsat.simplify(text))
        except eqsat.EqsatError as error:
            return "error: " + str(error)

    if __name__ == "__main__":
        with multiprocessing.get_context("fork").Pool(2) as pool:  # before any query: works
            print(pool.map(work, ["tan(x)*cos(x)", "tan(z)*cos(z)"]))
        print(work("abs(y)/abs(y^2)"))  # the rules run in an e-graph: egglog loads
        with multiprocessing.get_context("fork").Pool(2) as pool:
            print(pool.map(work, ["abs(x)/abs(x^2)", "abs(z)/abs(z^2)"]))
        pid = os.fork()  # a child that exits normally does not hang at exit either
        if pid == 0:
            print(work("abs(2*x)/abs(4*x^2)"))
            raise SystemExit(0)
        os.waitpid(pid, 0)
""")


def test_fork_children_work_before_the_first_query_and_say_why_after() -> None:
    done = subprocess.run([sys.executable, "-c", FORKED], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "['sin(x)', 'sin(z)']"  # import eqsat loads no egglog: forking works
    assert lines[1] == "1/abs(y)"
    assert lines[2].count("eqsat cannot run in a process forked") == 2
    assert "'spawn'" in lines[2]
    assert lines[3].startswith("error: eqsat cannot run in a process forked")


def test_importing_eqsat_loads_no_egglog() -> None:
    # egglog starts worker threads as it loads; a fork before the first query must find none
    done = subprocess.run([sys.executable, "-c", "import sys, eqsat; x = eqsat.parse('x + 1');"
                           "print(sorted(m for m in sys.modules if m.startswith('egglog')))"],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stderr
