"""What setup makes, stored between processes: made once per version of its sources, made
again where a source changed, the file is damaged or storing is off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from eqsat.limits.stored import CACHE_VARIABLE, Sources, stored, stored_path


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "stored"))
    return tmp_path / "stored"


def _counted(made: list[int]) -> dict[str, int]:
    made.append(1)
    return {"value": len(made)}


def test_a_value_is_made_once_and_read_back_after(folder: Path, tmp_path: Path) -> None:
    source = tmp_path / "source.rules"
    source.write_text("a")
    made: list[int] = []
    first = stored("thing", Sources([source]), lambda: _counted(made), dict)
    again = stored("thing", Sources([source]), lambda: _counted(made), dict)
    assert first == again == {"value": 1} and len(made) == 1
    assert len(list(folder.glob("thing-*.pickle"))) == 1


def test_a_changed_source_makes_it_again_and_removes_the_old_file(folder: Path,
                                                                   tmp_path: Path) -> None:
    source = tmp_path / "source.rules"
    source.write_text("a")
    made: list[int] = []
    stored("thing", Sources([source]), lambda: _counted(made), dict)
    source.write_text("a longer text")
    assert stored("thing", Sources([source]), lambda: _counted(made), dict) == {"value": 2}
    assert len(list(folder.glob("thing-*.pickle"))) == 1


def test_a_damaged_or_foreign_file_is_made_again(folder: Path, tmp_path: Path) -> None:
    source = tmp_path / "source.rules"
    source.write_text("a")
    made: list[int] = []
    stored("thing", Sources([source]), lambda: _counted(made), dict)
    (path,) = folder.glob("thing-*.pickle")
    path.write_bytes(b"\x80\x05 cut short")
    assert stored("thing", Sources([source]), lambda: _counted(made), dict) == {"value": 2}
    path.write_bytes(b"\x80\x05K\x07.")  # a pickled 7: not the kind asked for
    assert stored("thing", Sources([source]), lambda: _counted(made), dict) == {"value": 3}
    assert stored("thing", Sources([source]), lambda: _counted(made), dict) == {"value": 3}


def test_a_different_text_is_a_different_source(folder: Path, tmp_path: Path) -> None:
    made: list[int] = []
    stored("thing", Sources([], "a row"), lambda: _counted(made), dict)
    assert stored("thing", Sources([], "another row"), lambda: _counted(made), dict) == \
        {"value": 2}
    assert stored("thing", Sources([], "another row"), lambda: _counted(made), dict) == \
        {"value": 2}


def test_storing_off_or_impossible_still_gives_the_value(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "source.rules"
    source.write_text("a")
    made: list[int] = []
    monkeypatch.setenv(CACHE_VARIABLE, "")
    assert stored("thing", Sources([source]), lambda: _counted(made), dict) == {"value": 1}
    assert stored("thing", Sources([source]), lambda: _counted(made), dict) == {"value": 2}
    assert stored_path("tables") is None
    blocked = tmp_path / "a file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(CACHE_VARIABLE, str(blocked / "stored"))
    assert stored("thing", Sources([source]), lambda: _counted(made), dict) == {"value": 3}
    assert stored_path("tables") is None
    assert not list(tmp_path.glob("**/*.pickle"))


_SHOW_RULES = """
import eqsat
from eqsat.limits.budget import setup_seconds
from eqsat.rules.shipped import _parse_shipped, shipped_rules
from eqsat.verbs.simplify import _made_indexes, _shipped_indexes
assert shipped_rules().rules == _parse_shipped().rules
assert _shipped_indexes(("simplify",)) == _made_indexes(("simplify",))
print(eqsat.simplify("x*y/x"), eqsat.simplify("sin(x)^2 + cos(x)^2 + exp(x)*exp(y)"))
"""


def test_a_later_process_reads_the_shipped_rules_a_first_one_stored(tmp_path: Path) -> None:
    environment = {**os.environ, CACHE_VARIABLE: str(tmp_path / "stored")}

    def run() -> tuple[subprocess.CompletedProcess[str], dict[str, tuple[int, int]]]:
        done = subprocess.run([sys.executable, "-c", _SHOW_RULES], capture_output=True,
                              text=True, env=environment, timeout=300)
        files = {path.name.split("-")[0]: (path.stat().st_ino, path.stat().st_mtime_ns)
                 for path in (tmp_path / "stored").iterdir()}
        return done, files

    (first, written), (second, after) = run(), run()
    assert (first.returncode, second.returncode) == (0, 0), first.stderr + second.stderr
    assert first.stdout == second.stdout == "y exp(x + y) + 1\n"
    assert sorted(written) == ["grammar", "indexes", "shipped"]
    assert after == written  # read, not made and written again


def test_two_places_keep_a_file_each(folder: Path, tmp_path: Path) -> None:
    made: list[int] = []
    sources = []
    for place in ("one", "two"):
        (tmp_path / place).mkdir()
        (tmp_path / place / "source.rules").write_text(place)
        sources.append(Sources([tmp_path / place / "source.rules"]))
    for _ in range(2):
        for each in sources:
            stored("thing", each, lambda: _counted(made), dict)
    assert len(made) == 2 and len(list(folder.glob("thing-*.pickle"))) == 2


def test_no_home_folder_stores_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv(CACHE_VARIABLE, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(Path, "home", no_home)
    made: list[int] = []
    assert stored("thing", Sources([]), lambda: _counted(made), dict) == {"value": 1}
    assert stored_path("tables") is None
