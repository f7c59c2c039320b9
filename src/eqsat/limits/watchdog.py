"""The command line's last resort: the process ends, saying why, when a call runs far past
its time limit."""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

# the limits are kept by stopping between steps of the e-graph engine (measured within 1.1x);
# a step itself cannot be stopped from inside (egglog checks no clock or signal while it
# runs), so a step that ran away would hold a call for ever: past this much processor time of
# the calling thread (where egglog's steps run), the process ends; a busy machine's waits are
# not counted (a wall-clock timer ended a 2 s call that had 1.5 s of work left at 5 s on a
# machine shared with a test run)
HARD_STOP_FACTOR = 2.0
HARD_STOP_GRACE = 1.0  # seconds, on top (startup and printing)
WAITING_FACTOR = 10.0  # ... and past this many times the limit (plus the grace) in wall-clock
# time: a call waiting on something that never comes uses no processor time
POLL_SECONDS = 0.05
EXIT_HARD_STOP = 124  # as timeout(1) exits


def _give_up(seconds: float, after: float, clock: str) -> None:
    """Said on stderr with one write (the main thread may hold Python's stream locks)."""
    message = (f"eqsat: error: still running {after:g} s ({clock}) into a call with a time "
               f"limit of {seconds:g} s, inside one step of the e-graph engine, which cannot "
               "be stopped from inside: ended with no answer (please report the input)\n")
    os.write(2, message.encode())
    os._exit(EXIT_HARD_STOP)


@contextmanager
def hard_stop(seconds: float) -> Iterator[None]:
    """Within the block, the process ends (exit status 124, one line on stderr) once the
    calling thread has spent HARD_STOP_FACTOR times the limit plus HARD_STOP_GRACE of
    processor time, or WAITING_FACTOR times it plus the grace of wall-clock time. egglog lets
    go of Python's lock while it runs, so the watching thread gets to run."""
    if not 0 < seconds < math.inf:  # no limit to keep (a bad one is refused elsewhere)
        yield
        return
    working = seconds * HARD_STOP_FACTOR + HARD_STOP_GRACE
    waiting = seconds * WAITING_FACTOR + HARD_STOP_GRACE
    clock = time.pthread_getcpuclockid(threading.get_ident())
    began = time.clock_gettime(clock), time.monotonic()
    done = threading.Event()

    def watch() -> None:
        while not done.wait(POLL_SECONDS):
            if time.clock_gettime(clock) - began[0] > working:
                _give_up(seconds, working, "processor time")
            if time.monotonic() - began[1] > waiting:
                _give_up(seconds, waiting, "wall-clock time")

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
