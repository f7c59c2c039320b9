"""The command line's last resort: the process ends, saying why, when a call runs far past
its time limit."""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# the limits are kept by stopping between steps of the e-graph engine (measured within 1.1x);
# a step itself cannot be stopped from inside (egglog checks no clock or signal while it
# runs), so a step that ran away would hold a call for ever: past this, the process ends
HARD_STOP_FACTOR = 2.0
HARD_STOP_GRACE = 1.0  # seconds, on top (startup and printing on a busy machine)
EXIT_HARD_STOP = 124  # as timeout(1) exits


def _give_up(seconds: float, after: float) -> None:
    """Said on stderr with one write (the main thread may hold Python's stream locks)."""
    message = (f"eqsat: error: still running {after:g} s into a call with a time limit of "
               f"{seconds:g} s, inside one step of the e-graph engine, which cannot be "
               "stopped from inside: ended with no answer (please report the input)\n")
    os.write(2, message.encode())
    os._exit(EXIT_HARD_STOP)


@contextmanager
def hard_stop(seconds: float) -> Iterator[None]:
    """Within the block, the process ends (exit status 124, one line on stderr) once
    HARD_STOP_FACTOR times the limit plus HARD_STOP_GRACE have passed. egglog lets go of
    Python's lock while it runs, so the timer's thread gets to run."""
    if not 0 < seconds < math.inf:  # no limit to keep (a bad one is refused elsewhere)
        yield
        return
    after = seconds * HARD_STOP_FACTOR + HARD_STOP_GRACE
    timer = threading.Timer(after, _give_up, (seconds, after))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
