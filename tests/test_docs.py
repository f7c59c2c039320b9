"""Every code block in README.md and docs/ runs, and shows what it really prints.

python blocks run as written; console blocks run each `$ eqsat ...` command and compare what
it prints (stdout, then stderr) with the lines shown under it; rules blocks load, and every
rule in them passes the soundness check and every check: line is proven. A block whose first
line is `# file: NAME` is also written to NAME for the console blocks (a broken rule file is
shown as text). bash blocks are the install commands, which CI itself runs (.ci/run); text
blocks are synopses, tables and such files.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

import eqsat
from eqsat.cli import main
from eqsat.rules.soundness import check_rule

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
KNOWN = {"python", "console", "rules", "bash", "text"}


def _blocks() -> list[tuple[str, str, str]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{page.name}:{line}", match.group(1), match.group(2)))
    return found


BLOCKS = _blocks()
# blocks whose first line is `# file: NAME` are files the console blocks read
FILES = {match[1]: code for _, _, code in BLOCKS
         if (match := re.match(r"# file: (\S+)\n", code))}


def test_every_block_says_what_it_is() -> None:
    untagged = [where for where, kind, _ in BLOCKS if kind not in KNOWN]
    assert not untagged, f"code blocks without a known language tag: {untagged}"


def test_the_docs_have_the_pages_users_need() -> None:
    names = {page.name for page in PAGES}
    assert {"tutorial.md", "rules.md", "cli.md", "semantics.md"} <= names


@pytest.mark.parametrize(("where", "code"), [(w, c) for w, k, c in BLOCKS if k == "python"],
                         ids=lambda value: value if ".md:" in str(value) else "")
def test_python_block_runs(where: str, code: str, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(code, where, "exec"), {"__name__": "__docs__"})


def _sessions(block: str) -> list[tuple[str, list[str]]]:
    """Each `$ command` with the lines shown under it."""
    sessions: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            sessions.append((line[2:], []))
        elif sessions:
            sessions[-1][1].append(line)
    return sessions


CONSOLE = [(f"{where} {command.split('#')[0].strip()}", command, shown)
           for where, kind, block in BLOCKS if kind == "console"
           for command, shown in _sessions(block)]


@pytest.mark.parametrize(("where", "command", "shown"), CONSOLE, ids=[c[0] for c in CONSOLE])
def test_console_block_prints_what_it_shows(where: str, command: str, shown: list[str],
                                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    argv = shlex.split(command, comments=True)
    assert argv[0] == "eqsat", f"{where}: a console block runs eqsat commands only"
    status = main(argv[1:])
    printed = capsys.readouterr()
    lines = (printed.out + printed.err).rstrip("\n").splitlines()
    assert lines == shown, f"{where}: printed\n" + "\n".join(lines)
    failed = any(line.startswith("FAIL") for line in shown)  # rules check: 1
    erred = any(line.startswith("eqsat: error") for line in shown)  # bad input: 2
    assert status == (2 if erred else 1 if failed else 0)


@pytest.mark.parametrize(("where", "text"), [(w, c) for w, k, c in BLOCKS if k == "rules"],
                         ids=lambda value: value if ".md:" in str(value) else "")
def test_rules_block_loads_and_is_sound(where: str, text: str, tmp_path: Path) -> None:
    path = tmp_path / "block.rules"
    path.write_text(text, encoding="utf-8")
    loaded = eqsat.load_rules([path])
    assert loaded.rules, f"{where}: a rules block with no rule"
    for rule in loaded.rules:
        verdict = check_rule(rule, 100)
        assert verdict.sound, f"{where}: {verdict}"
    for check in loaded.checks:
        assert eqsat.prove_equal(check.lhs, check.rhs, rules=[path],
                                 rulesets=loaded.rulesets()), \
            f"{where}: check {check.lhs} == {check.rhs} is not proven"
