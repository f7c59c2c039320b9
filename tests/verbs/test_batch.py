"""batch: one verb over many inputs, in order, in this process, in worker processes and on a
Dask cluster; the command line's --jobs."""

from __future__ import annotations

import subprocess
import sys

import pytest

import eqsat

ITEMS = [*(f"tan(x{i})*cos(x{i}) + log(y{i}*z{i}) - log(z{i})" for i in range(20)),
         "1/0", "x +", "sin(x)^2 + cos(x)^2"]


def _shown(results: list[object]) -> list[str]:
    return [f"{type(r).__name__}: {r}" if isinstance(r, eqsat.EqsatError) else str(r)
            for r in results]


def test_each_item_gets_its_result_or_its_error_in_order() -> None:
    results = eqsat.batch("simplify", ITEMS, workers=1)
    assert [str(r) for r in results[:2]] == ["sin(x0) + log(y0)", "sin(x1) + log(y1)"]
    assert isinstance(results[20], eqsat.EqsatError) and "defined nowhere" in str(results[20])
    assert isinstance(results[21], eqsat.ParseError)
    assert str(results[22]) == "1"
    assert eqsat.batch(eqsat.diff, [("sin(x)^2", "x"), ("x^3", "x")], workers=1) == [
        eqsat.parse("sin(2*x)"), eqsat.parse("3*x^2")]


def test_worker_processes_give_this_process_s_answers() -> None:
    here = _shown(eqsat.batch("simplify", ITEMS, workers=1))
    assert _shown(eqsat.batch(eqsat.simplify, ITEMS, workers=2)) == here


def test_a_dask_cluster_gives_this_process_s_answers() -> None:
    distributed = pytest.importorskip("distributed", reason="dask.distributed is an extra")
    here = _shown(eqsat.batch("simplify", ITEMS, workers=1))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        assert _shown(eqsat.batch("simplify", ITEMS, client=client)) == here


def test_a_wrong_verb_or_worker_count_is_refused() -> None:
    for verb in ["simplyfy", print, len]:
        with pytest.raises(eqsat.ArgumentError, match="batch runs one of eqsat's verbs"):
            eqsat.batch(verb, ITEMS)  # type: ignore[arg-type]
    for workers in [0, -1, 1.5, True]:
        with pytest.raises(eqsat.ArgumentError, match="workers is a positive number"):
            eqsat.batch("simplify", ITEMS, workers=workers)  # type: ignore[arg-type]
    with pytest.raises(eqsat.ArgumentError, match=r"client is a dask\.distributed Client"):
        eqsat.batch("simplify", ITEMS, client=object())


def test_the_command_line_runs_lines_in_jobs_in_their_order() -> None:
    lines = "\n".join(ITEMS) + "\n"

    def run(jobs: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "eqsat.cli", "simplify", "-", "--jobs",
                               jobs], input=lines, capture_output=True, text=True, timeout=300)

    one, two = run("1"), run("2")
    assert one.returncode == two.returncode == 2  # (two lines fail)
    assert two.stdout == one.stdout
    assert one.stdout.splitlines()[:2] == ["sin(x0) + log(y0)", "sin(x1) + log(y1)"]
    assert two.stderr == one.stderr and "line 21" in one.stderr and "line 22" in one.stderr
