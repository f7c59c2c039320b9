"""The progress line: shown in a terminal for long runs, silent otherwise."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Iterator

import pytest

import eqsat
from eqsat.cli import main
from eqsat.limits import progress

# its e-graph keeps growing (sines and exponentials of sums, by their addition theorems)
# (its terms share z: one problem, not sixty independent ones)
LONG = " + ".join(f"sin(x{i} + z)*exp(x{i} - z)" for i in range(60))


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def immediate(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every run counts as long, and progress is on, as the CLI leaves it by default."""
    monkeypatch.setattr(progress, "DELAY", 0.0)
    eqsat.set_progress(True)
    yield
    eqsat.set_progress(True)


def test_a_terminal_gets_a_live_line_cleared_at_the_end(immediate: None) -> None:
    stream = Terminal()
    line = progress.Progress(1000, 5.0, stream)
    line.update(3, 1234)
    shown = stream.getvalue()
    assert shown.startswith("\r") and "iteration 3" in shown and "1,234 e-nodes" in shown
    assert "limit 1,000" in shown and "limit 5 s" in shown
    line.finish()
    assert stream.getvalue().endswith("\r\x1b[K")


def test_silent_when_not_a_terminal(immediate: None) -> None:
    stream = io.StringIO()
    line = progress.Progress(1000, 5.0, stream)
    line.update(3, 1234)
    line.finish()
    assert stream.getvalue() == ""


def test_silent_when_turned_off(immediate: None) -> None:
    eqsat.set_progress(False)
    stream = Terminal()
    progress.Progress(1000, 5.0, stream).update(3, 1234)
    assert stream.getvalue() == ""


def test_silent_for_short_runs() -> None:
    stream = Terminal()
    progress.Progress(1000, 5.0, stream).update(3, 1234)  # well under a second in
    assert stream.getvalue() == ""


def test_runs_report_to_a_terminal(immediate: None, monkeypatch: pytest.MonkeyPatch) -> None:
    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    eqsat.simplify(LONG, limits=eqsat.Limits(iterations=3))
    shown = stream.getvalue()
    assert "iteration 1," in shown and "e-nodes" in shown
    assert shown.endswith("\r\x1b[K")  # the line is gone when the run ends


def test_runs_stay_silent_when_stderr_is_captured(immediate: None,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    eqsat.simplify(LONG, limits=eqsat.Limits(iterations=3))
    assert capsys.readouterr().err == ""


def test_cli_quiet_turns_it_off(immediate: None, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    assert main(["simplify", LONG, "--iterations", "3", "--quiet"]) == 0
    assert "\r" not in stream.getvalue()  # only what stopped the run: no progress line
    assert stream.getvalue().startswith("eqsat: the iteration limit stopped the rules")


def test_cli_in_a_pipe_prints_no_progress() -> None:
    """A real run past a second, with stderr a pipe: not a character of progress."""
    done = subprocess.run([sys.executable, "-m", "eqsat.cli", "simplify", LONG,
                           "--timeout", "2", "--node-limit", "100000", "--iterations", "1000"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr  # only what stopped the run: no progress line
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("eqsat: the ")
