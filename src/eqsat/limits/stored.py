"""What a process's setup makes, kept on disk for the next processes: the shipped rules and
simplify's indexes of them, made once per version of the files they come from, then loaded
in a few milliseconds (making them takes a process 0.3-0.6 s), and the parser's tables."""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

FORMAT = "eqsat-stored-1"  # changes when what is stored changes shape
CACHE_VARIABLE = "EQSAT_CACHE_DIR"  # a folder for the stored files; empty: store nothing


def cache_folder() -> Path | None:
    """Where stored files go: $EQSAT_CACHE_DIR (empty turns storing off), else eqsat/ in
    $XDG_CACHE_HOME or ~/.cache."""
    given = os.environ.get(CACHE_VARIABLE)
    if given is not None:
        return Path(given) if given else None
    try:
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    except RuntimeError:  # no home folder to be found: nothing is stored
        return None
    return Path(base) / "eqsat"


def stored_path(name: str) -> Path | None:
    """A file in the cache folder for a library that keeps its own (it checks what is in it);
    None where storing is off or the folder cannot be made."""
    folder = cache_folder()
    if folder is None:
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return None
    return folder / name


def package_sources() -> list[Path]:
    """eqsat's own source files (the parser, the op table, the rule model): what the parsed
    rules depend on besides the rule files."""
    here = Path(__file__).resolve().parents[1]
    return sorted([*here.rglob("*.py"), *here.rglob("*.lark")])


@dataclass(frozen=True)
class Sources:
    """What a stored value is made from: files (each one's path, size and modification time
    count) and a text (what the process holds besides: a row added to the op table at run
    time)."""

    files: Sequence[Path]
    text: str = ""


def stored[T](name: str, sources: Sources, make: Callable[[], T], kind: type[T]) -> T:
    """make()'s result, read from the cache folder where a process stored it for the same
    sources (and Python version), else made and stored there. A stored file that cannot be
    read is made again; a folder that cannot be written stores nothing."""
    folder = cache_folder()
    if folder is None:
        return make()
    # one file per name and place of its sources (two checkouts keep one each), per version
    place = hashlib.sha256(" ".join(sorted({str(f.parent) for f in sources.files})).encode())
    path = folder / f"{name}-{place.hexdigest()[:8]}-{_key(sources)}.pickle"
    try:
        with path.open("rb") as file:
            found = pickle.load(file)
        if isinstance(found, kind):
            return found
    except Exception:  # absent, cut short or from another layout: made again below
        pass
    made = make()
    _store(path, made, name)
    return made


def _key(sources: Sources) -> str:
    digest = hashlib.sha256(f"{FORMAT} {sys.version} {pickle.HIGHEST_PROTOCOL}".encode())
    for source in sources.files:
        status = source.stat()
        digest.update(f"\n{source} {status.st_size} {status.st_mtime_ns}".encode())
    digest.update(sources.text.encode())
    return digest.hexdigest()[:20]


def _store(path: Path, value: object, name: str) -> None:
    """Written whole or not at all (another process may read it meanwhile); the files this
    name stored for other sources are removed."""
    written: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with tempfile.NamedTemporaryFile("wb", dir=path.parent, prefix=f".{name}-",
                                         delete=False) as file:
            written = Path(file.name)
            pickle.dump(value, file, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(written, path)
        written = None
        place = path.name.split("-")[-2]
        for older in path.parent.glob(f"{name}-{place}-*.pickle"):
            if older != path:
                older.unlink(missing_ok=True)
    except OSError:  # a read-only or full disk: the next process parses them again
        pass
    finally:
        if written is not None:
            written.unlink(missing_ok=True)
