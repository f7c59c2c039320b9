"""batch: one verb over many inputs, in worker processes (each with its own warm engine) or on
a Dask cluster; one result or error per input, in order."""

from __future__ import annotations

import importlib
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..errors import ArgumentError, EqsatError

# the verbs a batch runs by name, each with the module it lives in (loaded in the worker)
VERBS = {"simplify": "simplify", "simplify_report": "simplify", "diff": "diff",
         "diff_report": "diff", "grad": "diff", "solve": "solve", "stabilize": "stabilize",
         "stabilize_report": "stabilize", "error_bits": "stabilize", "expand": "polynomials",
         "factor": "polynomials", "cancel": "polynomials", "together": "polynomials",
         "apart": "polynomials", "series": "asymptotics", "limit": "asymptotics",
         "N": "values", "subs": "values", "evaluate": "evaluate", "latex": "render",
         "pretty": "render", "prove_equal": "simplify"}
CHUNK = 16  # items a worker takes at a time (a task's round trip costs about a millisecond)


def batch(verb: str | Callable[..., Any], items: Iterable[Any], *, workers: int | None = None,
          client: Any = None, progress: bool = False, **options: Any) -> list[Any]:
    """verb(item, **options) for each item, in order: its result, or the EqsatError it raised
    in its place (the batch goes on). An item that is a tuple or list is the verb's
    positional arguments (("sin(x)^2", "x") for diff). workers: processes, each with one warm
    engine (None: one per core; 1: in this process); client: a dask.distributed Client, whose
    workers run the items in partitions instead. progress: a progress bar on stderr (tqdm's,
    where it is installed). Limits apply per item."""
    name = _verb_name(verb)
    given = list(items)
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or
                                workers < 1):
        raise ArgumentError(f"workers is a positive number of processes, not {workers!r}")
    chunks = [given[i:i + CHUNK] for i in range(0, len(given), CHUNK)]
    shown = _Progress(len(given), progress)
    if client is not None:
        done = _on_dask(client, name, chunks, options)
    elif workers == 1 or len(chunks) <= 1:
        done = (run_chunk(name, chunk, options) for chunk in chunks)
    else:
        done = in_processes(workers or os.cpu_count() or 1, run_chunk,
                            [(name, chunk, options) for chunk in chunks])
    results: list[Any] = []
    for answers in done:
        results += answers
        shown.advance(len(answers))
    shown.close()
    return results


def run_chunk(name: str, chunk: Sequence[Any], options: dict[str, Any]) -> list[Any]:
    """What a worker does with one partition: each item's result or EqsatError."""
    verb = getattr(importlib.import_module(f"eqsat.verbs.{VERBS[name]}"), name)
    answers: list[Any] = []
    for item in chunk:
        arguments = item if isinstance(item, (tuple, list)) else (item,)
        try:
            answers.append(verb(*arguments, **options))
        except EqsatError as error:
            answers.append(error)
    return answers


def _verb_name(verb: str | Callable[..., Any]) -> str:
    """The name of one of eqsat's verbs, given as its name or as the function."""
    name = verb if isinstance(verb, str) else getattr(verb, "__name__", None)
    if name not in VERBS or (not isinstance(verb, str) and
                             getattr(verb, "__module__", "") != f"eqsat.verbs.{VERBS[name]}"):
        raise ArgumentError(f"batch runs one of eqsat's verbs ({', '.join(sorted(VERBS))}), "
                            f"given by name or as the function, not {verb!r:.60}")
    return name


def in_processes(workers: int, task: Callable[..., Any], arguments: list[tuple[Any, ...]]
                 ) -> Iterator[Any]:
    """task(*each) for each of the arguments in a pool of at most `workers` spawned processes
    (a forked one cannot use egglog), the results in order as they are ready."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max(1, min(workers, len(arguments))), mp_context=context) as pool:
        futures = [pool.submit(task, *each) for each in arguments]
        for future in futures:
            try:
                yield future.result()
            except BrokenProcessPool:
                raise EqsatError("a worker process of the batch ended abruptly (killed, out "
                                 "of memory, or it could not start: a spawned worker runs "
                                 "the main script again, so a script read from standard "
                                 "input or without `if __name__ == \"__main__\":` cannot "
                                 "start one)") from None


def _on_dask(client: Any, name: str, chunks: list[list[Any]], options: dict[str, Any]
             ) -> Iterator[list[Any]]:
    """The chunks as tasks of a Dask cluster (the items and answers are plain Python values:
    nothing egglog holds is sent); results in the order of the items."""
    if not callable(getattr(client, "map", None)):
        raise ArgumentError(f"client is a dask.distributed Client, not {type(client).__name__}")
    futures = client.map(run_chunk, [name] * len(chunks), chunks, [options] * len(chunks),
                         pure=False)
    for future in futures:
        yield future.result()


class _Progress:
    """A progress bar on stderr for a batch: tqdm's where it is installed, else a line."""

    def __init__(self, total: int, shown: bool) -> None:
        self.total, self.done, self.bar = total, 0, None
        self.shown = shown
        if shown:
            try:
                from tqdm import tqdm  # type: ignore[import-untyped]
            except ImportError:
                return
            self.bar = tqdm(total=total, unit="item", file=sys.stderr)

    def advance(self, count: int) -> None:
        self.done += count
        if self.bar is not None:
            self.bar.update(count)
        elif self.shown:
            print(f"\rbatch: {self.done:,} of {self.total:,}", end="", file=sys.stderr,
                  flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.shown:
            print(file=sys.stderr)
