"""The eqsat command: results on stdout, one-line errors with exit code 2, rule checks."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest


def eqsat(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eqsat.cli", *args], capture_output=True,
                          text=True, timeout=120)


def test_simplify_prints_the_result() -> None:
    done = eqsat("simplify", "x*y/x")
    assert (done.returncode, done.stdout) == (0, "y\n")


def test_simplify_with_report_assumptions_and_limits() -> None:
    done = eqsat("simplify", "exp(log(x))", "--assume", "x=positive", "--report",
                 "--timeout", "2", "--node-limit", "500")
    assert done.stdout == "x\n"
    assert done.stderr.startswith("stopped: ")
    assert re.search(r"^setup: [0-9.]+ s \(compiling the rules", done.stderr, re.MULTILINE)


@pytest.mark.parametrize(("args", "message"), [
    (("simplify", "3x + * 2"), "unexpected '*'"),
    (("simplify", "f(x)"), "unknown function 'f'"),
    (("simplify", "x", "--rules", "missing.rules"), "cannot read rule file"),
    (("simplify", "x", "--assume", "x"), "--assume takes NAME=ASSUMPTION"),
    (("simplify", "x", "--assume", "x=purple"), "unknown assumption"),
    (("eval", "log(x)", "--subs", "x=-1"), "log(-1) is undefined or not finite"),
    (("eval", "sin(x)"), "N needs a value for 'x'"),
    (("eval", "x", "--subs", "x"), "--subs takes NAME=VALUE"),
])
def test_user_errors_are_one_message_and_exit_2(args: tuple[str, ...], message: str) -> None:
    done = eqsat(*args)
    assert done.returncode == 2
    assert done.stderr.startswith("eqsat: error: ") and message in done.stderr
    assert "Traceback" not in done.stderr


def test_rules_check_passes_sound_files_and_fails_unsound_ones(tmp_path: Path) -> None:
    good = tmp_path / "good.rules"
    good.write_text("[simplify]\nmy-double-angle: 2*cos(a)^2 - 1 => cos(2*a)\n"
                    "check: 2*cos(t)^2 - 1 == cos(2*t)\n")
    done = eqsat("rules", "check", str(good))
    assert done.returncode == 0 and done.stdout.strip().endswith("2 passed, 0 failed")
    bad = tmp_path / "bad.rules"
    bad.write_text("[simplify]\nsqrt-sq: sqrt(a^2) => a\n")
    done = eqsat("rules", "check", str(bad))
    assert done.returncode == 1
    assert "FAIL  sqrt-sq at " in done.stdout and "0 passed, 1 failed" in done.stdout


def test_a_time_limit_message_names_the_limit_given(tmp_path: Path) -> None:
    """The command's start-up is spent from the limit; the message still names the one the
    user gave (it said "the time limit of 0.18857 s")."""
    given = tmp_path / "minus.txt"
    given.write_text("-" * 99_990 + "x")
    done = eqsat("simplify", f"@{given}", "--timeout", "0.5")
    assert done.returncode == 2
    assert "the time limit of 0.5 s was reached while reading the input" in done.stderr


def test_the_longest_input_read_is_a_limit(tmp_path: Path) -> None:
    given = tmp_path / "sum.txt"
    given.write_text("x+" * 600 + "x")
    done = eqsat("simplify", f"@{given}", "--char-limit", "1000")
    assert done.returncode == 2 and "1,201 characters is longer than the limit of 1,000" in \
        done.stderr
    assert eqsat("simplify", f"@{given}", "--char-limit", "2000").stdout == "601*x\n"


def test_broken_rule_file_names_its_position(tmp_path: Path) -> None:
    broken = tmp_path / "broken.rules"
    broken.write_text("[simplify]\nr: a + => a\n")
    done = eqsat("rules", "check", str(broken))
    assert done.returncode == 2 and f"{broken}:2:8: unexpected '=>'" in done.stderr


def test_eval_prints_the_digits_asked_for() -> None:
    done = eqsat("eval", "sqrt(2)*pi", "--digits", "30")
    assert (done.returncode, done.stdout) == (0, "4.44288293815836624701588099006\n")
    done = eqsat("eval", "x^2 + y", "--subs", "x=3", "y=1/3", "--digits", "10")
    assert done.stdout == "9.333333333\n"


def test_factor_and_cancel_print_one_fraction() -> None:
    done = eqsat("factor", "(x^5 - x^3 - x^2 + 1)/(x^2 - y^2)")
    assert done.stdout == "(x + 1)*(x^2 + x + 1)*(x - 1)^2/((x - y)*(x + y))\n"
    assert eqsat("cancel", "(x^2 - 1)/(x - 1)").stdout == "x + 1\n"
    assert eqsat("expand", "(x - 1)^3").stdout == "x^3 - 3*x^2 + 3*x - 1\n"
    assert eqsat("apart", "y/((x + 1)*(x + 2))", "x").stdout == "y/(x + 1) - y/(x + 2)\n"


def test_series_and_limit_print_their_results_and_refuse_clearly() -> None:
    assert eqsat("series", "exp(x)", "x", "-n", "3").stdout == "1 + x + x^2/2 + O(x^3)\n"
    assert eqsat("series", "atan(x)", "x", "--at=-oo", "-n", "2").stdout == \
        "-pi/2 - 1/x + O(1/x^2)\n"
    assert eqsat("limit", "(1 + 1/x)^x", "x", "--at", "oo").stdout == "E\n"
    assert eqsat("limit", "1/x", "x", "--at", "0", "--dir=-").stdout == "-oo\n"
    refused = eqsat("limit", "sin(1/x)", "x", "--at", "0")
    assert refused.returncode == 2 and "cannot decide" in refused.stderr


def test_ops_lists_the_table() -> None:
    done = eqsat("ops")
    assert done.returncode == 0 and "log1mexp" in done.stdout


def test_demo_runs() -> None:
    done = eqsat("demo")
    assert done.returncode == 0, done.stderr
    assert "FAIL  sqrt-square-wrong" in done.stdout and "x*y/x" in done.stdout
    assert "target='dask', four chunks: 4 tasks" in done.stdout  # the test extra has Dask


def test_diff_prints_derivatives_and_mixed_partials() -> None:
    assert eqsat("diff", "2*x^3 + 8", "--wrt", "x", "--order", "2").stdout == "12*x\n"
    assert eqsat("diff", "x^2*y", "--wrt", "x,y").stdout == "2*x\n"
    assert eqsat("diff", "x^x", "--wrt", "x").stdout == "x^x*(log(x) + 1)\n"
    done = eqsat("diff", "x^2", "--wrt", "x", "--order", "0")
    assert done.returncode == 2 and "positive integer" in done.stderr


def test_rules_check_accepts_the_shipped_library() -> None:
    library = Path(__file__).resolve().parents[1] / "rules"
    done = eqsat("rules", "check", str(library / "simplify.rules"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("0 failed")


def test_solve_prints_the_answer() -> None:
    done = eqsat("solve", "3x + 1 = 2(2x - 6)", "--for", "x")
    assert (done.returncode, done.stdout) == (0, "x = 13\n")


def test_solve_a_system_and_its_cases() -> None:
    done = eqsat("solve", "x + y = 3", "x - y = 1", "--for", "x", "y")
    assert done.stdout == "x = 2, y = 1\n"
    cases = eqsat("solve", "a*x = b", "--for", "x", "--report")
    assert cases.stdout.splitlines()[:2] == ["x = b/a, if a != 0", "if a == 0:"]
    assert cases.stderr.splitlines()[0] == "solved by: linear"
    assert cases.stderr.splitlines()[1].startswith("setup: ")


def test_solve_failure_is_one_line_with_exit_code_2() -> None:
    done = eqsat("solve", "x^4 + x = 1", "--for", "x")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "eqsat: error: the rules cannot isolate x; left: x^4 + x = 1\n"


@pytest.mark.parametrize("args", [
    ("compile", "exp(x) - 1", "-o", "{missing}/kernel.py"),
    ("stabilize", "exp(x) - 1", "--plot", "{missing}/error.png"),
    ("simplify", "x*1", "--egraph", "{missing}/egraph.svg"),
])
def test_a_file_that_cannot_be_written_is_one_message(args: tuple[str, ...],
                                                      tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder"
    done = eqsat(*(a.format(missing=missing) for a in args))
    assert done.returncode == 2
    error = [line for line in done.stderr.splitlines() if line.startswith("eqsat:")]
    assert len(error) == 1 and error[0].startswith("eqsat: error: ")
    assert str(missing) in error[0] and "Traceback" not in done.stderr


def test_ops_into_a_closed_pipe_stops_quietly() -> None:
    done = subprocess.run(f"{sys.executable} -m eqsat.cli ops | head -1", shell=True,
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.startswith("add") and done.stderr == ""


def test_version_and_help_with_defaults() -> None:
    done = eqsat("--version")
    assert done.returncode == 0 and done.stdout.startswith("eqsat ")
    shown = " ".join(eqsat("simplify", "--help").stdout.split())
    for default in ("(default 5)", "(default 1,000", "(default 30)"):
        assert default in shown


def test_batch_mode_reads_one_expression_a_line_and_goes_on_after_an_error() -> None:
    done = subprocess.run([sys.executable, "-m", "eqsat.cli", "simplify", "-"],
                          input="x*y/x\n\n3x + * 2\nx + 0\n", capture_output=True, text=True,
                          timeout=120)
    assert done.stdout == "y\nx\n"
    assert done.returncode == 2
    assert done.stderr.startswith("eqsat: error: line 3: ")


@pytest.mark.parametrize(("command", "lines", "expected"), [
    (("factor", "-"), "x^2 - 1\n1/0\nx*y - y\n", "(x - 1)*(x + 1)\ny*(x - 1)\n"),
    (("expand", "-"), "(x + 1)^2\n", "x^2 + 2*x + 1\n"),
    (("limit", "-", "x", "--at", "0"), "sin(x)/x\n", "1\n"),
    (("eval", "-", "--digits", "5"), "sqrt(2)\npi\n", "1.4142\n3.1416\n"),
])
def test_every_verb_of_one_expression_reads_a_batch(command: tuple[str, ...], lines: str,
                                                    expected: str) -> None:
    done = subprocess.run([sys.executable, "-m", "eqsat.cli", *command], input=lines,
                          capture_output=True, text=True, timeout=120)
    assert done.stdout == expected
    assert done.returncode == (2 if "1/0" in lines else 0), done.stderr
    if "1/0" in lines:
        assert done.stderr.startswith("eqsat: error: line 2: factor: 1/0 divides by 0")


def test_an_expression_from_a_file(tmp_path: Path) -> None:
    source = tmp_path / "big.txt"
    source.write_text("x*y/x + " + " + ".join(["0"] * 20_000) + "\n")  # 80 KB
    done = eqsat("simplify", f"@{source}", "--quiet")
    assert (done.returncode, done.stdout) == (0, "y\n")
    missing = eqsat("simplify", f"@{tmp_path / 'none.txt'}")
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_a_run_cut_short_by_a_limit_says_so_on_stderr() -> None:
    # (x*y ties the two quotients: one problem)
    done = eqsat("simplify", "abs(x)/abs(x^2) + abs(y)/abs(y^3) + x*y", "--node-limit", "300")
    assert done.returncode == 0 and done.stdout
    assert "the node limit stopped the rules" in done.stderr
    assert "--node-limit" in done.stderr
    assert eqsat("simplify", "x*y/x").stderr == ""  # saturated: nothing to say


def test_a_one_line_simplify_loads_neither_sympy_nor_numpy() -> None:
    """The start-up a user waits for: the CLI answers x*y/x (a normal form) without loading
    SymPy, NumPy or egglog, and without looking up its own version."""
    probe = ("import sys\nfrom eqsat.cli import main\nmain(['simplify', 'x*y/x'])\n"
             "print(sorted({m.split('.')[0] for m in sys.modules} & "
             "{'sympy', 'numpy', 'egglog', 'importlib_metadata'}), "
             "'importlib.metadata' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["y", "[] False"]


def test_lazily_loaded_names_are_the_functions_after_their_modules_load() -> None:
    import eqsat.explain.steps
    import eqsat.verbs.stabilize  # submodules named as the functions

    assert callable(eqsat.stabilize) and eqsat.stabilize.__name__ == "stabilize"
    assert callable(eqsat.explain) and eqsat.explain.__name__ == "explain"
    assert eqsat.compile("x + 1", ["x"])(2.0) == 3.0


@pytest.mark.parametrize(("content", "message"), [
    (b"x + \xff", "byte 0xff at offset 4 is not UTF-8 text"),
    (b"x\ny\n", "a line break inside an expression"),  # was x*y
])
def test_a_file_that_is_no_expression_is_a_user_error(tmp_path: Path, content: bytes,
                                                      message: str) -> None:
    source = tmp_path / "f.txt"
    source.write_bytes(content)
    done = eqsat("simplify", f"@{source}")
    assert done.returncode == 2 and done.stderr.startswith("eqsat: error: ")
    assert message in done.stderr and "internal error" not in done.stderr


def test_an_expression_that_starts_with_a_minus() -> None:
    assert eqsat("simplify", "-(-(x))").stdout == "x\n"
    assert eqsat("simplify", "-2x + 3x").stdout == "x\n"
    assert eqsat("simplify", "--", "-x").stdout == "-x\n"
    alone = eqsat("simplify", "-x")
    assert alone.returncode == 2 and "goes after '--'" in alone.stderr


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--node-limit", "0", "must be a positive integer, not '0'"),
    ("--iterations", "0", "must be a positive integer, not '0'"),
    ("--char-limit", "0", "must be a positive integer, not '0'"),
    ("--timeout", "0", "must be a positive number of seconds, not '0'"),
    ("--timeout", "nan", "must be a positive number of seconds, not 'nan'"),
])
def test_a_limit_that_cannot_be_honoured_is_refused(option: str, value: str,
                                                    message: str) -> None:
    done = eqsat("simplify", "x", option, value)
    assert done.returncode == 2 and message in done.stderr and not done.stdout


def test_a_node_limit_given_is_the_limit() -> None:
    # the default is 1,000 e-nodes or 8 times the input's; a number given is the limit
    done = eqsat("simplify", "sin(x)^2 + cos(x)^2 + 2*(1/n - cos(n*pi)/n)/pi", "--node-limit",
                 "10", "--report")
    assert "the node limit stopped the rules" in done.stderr
    nodes = int(done.stderr.split(" e-nodes at most")[0].split()[-1])
    assert nodes <= 2 * 10  # the input's own e-nodes, and one step past the limit at most


def test_dir_lists_the_names_loaded_on_first_use() -> None:
    import eqsat

    listed = dir(eqsat)
    for name in ("compile", "stabilize", "to_sympy", "explain", "exp", "log1p", "where",
                 "Engine", "TruthValueError"):
        assert name in listed
