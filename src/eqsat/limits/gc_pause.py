"""Python's cycle collector paused around work that makes many objects in no cycle."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Parsing or printing a 100 KB term makes 10^5 to 10^6 objects, and each batch of them
    starts a collection that scans every object ever loaded: a fifth to two fifths of the
    work. None of them is in a cycle, so nothing is left for the collector to find later.
    (Another thread's pause may overlap this one: the collector is back on once the first
    pause that found it on has ended.)"""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
