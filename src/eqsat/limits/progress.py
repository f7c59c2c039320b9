"""A live progress line on stderr for long saturation runs (only in a terminal)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

DELAY = 1.0  # seconds a run goes before its line appears
_enabled = True


def set_progress(enabled: bool) -> None:
    """Show (the default) or hide the progress line of runs longer than about a second; it
    never shows when stderr is not a terminal (a pipe, a file, a notebook)."""
    global _enabled
    _enabled = bool(enabled)


class Progress:
    """One run's status line: iteration, e-nodes, elapsed time and the limits, rewritten in
    place; cleared when the run ends."""

    def __init__(self, node_limit: int, seconds: float, stream: TextIO | None = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.node_limit = node_limit
        self.seconds = seconds
        self.began = time.perf_counter()
        self.shown = False
        self.live = _enabled and _is_terminal(self.stream)

    def update(self, iteration: int, nodes: int) -> None:
        elapsed = time.perf_counter() - self.began
        if not self.live or elapsed < DELAY:
            return
        line = (f"eqsat: iteration {iteration}, {nodes:,} e-nodes (limit {self.node_limit:,}), "
                f"{elapsed:.1f} s (limit {self.seconds:g} s)")
        self.stream.write(f"\r{line}\x1b[K")
        self.stream.flush()
        self.shown = True

    def finish(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
