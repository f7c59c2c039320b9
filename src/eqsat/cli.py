"""The eqsat command line: its arguments, and the run of a command with clear errors."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from typing import NoReturn

from .commands import (
    run_apart,
    run_compile,
    run_demo,
    run_diff,
    run_eval,
    run_grad,
    run_limit,
    run_ops,
    run_rational,
    run_rules_check,
    run_series,
    run_simplify,
    run_solve,
    run_stabilize,
    time_limit,
    trust_rules_if_asked,
)
from .errors import EqsatError
from .extract.cost import REPRESENTATIVE_SIZE
from .limits.budget import Limits
from .limits.progress import set_progress
from .limits.watchdog import hard_stop


def _positive(kind: type[int] | type[float]) -> Callable[[str], float]:
    """An argparse type: a positive number of the kind, else one clear message."""
    def read(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            value = 0
        if not 0 < value < float("inf"):
            noun = "a positive integer" if kind is int else "a positive number of seconds"
            raise argparse.ArgumentTypeError(f"must be {noun}, not {text!r}")
        return value

    read.__name__ = kind.__name__
    return read


EXPRESSION_HELP = "the expression; - reads one a line from standard input, @FILE one from a file"


def _query_options(command: argparse.ArgumentParser, subject: str = "expression") -> None:
    if subject == "expression":
        command.add_argument("expression", help=EXPRESSION_HELP)
    command.add_argument("--rules", action="append", default=[], metavar="FILE",
                         help="also load this .rules file (repeatable)")
    command.add_argument("--assume", action="append", default=[], metavar="NAME=FLAGS",
                         help="e.g. x=positive or x=nonnegative,integer")
    command.add_argument("--shape", action="append", default=[], metavar="NAME=DIMS",
                         help="a tensor: A=n,m (sizes are names or integers; repeatable)")
    command.add_argument("--size", action="append", default=[], metavar="DIM=N",
                         help="a named dimension's representative size for the costs "
                         f"(default {REPRESENTATIVE_SIZE})")
    command.add_argument("--trust", action="store_true", help="load --rules files even if "
                         "some rule fails the numeric soundness check")
    command.add_argument("--report", action="store_true", help="print the run report")
    command.add_argument("--pretty", action="store_true", help="print results in Unicode "
                         "(x², √x, ≤) instead of text eqsat parses")
    command.add_argument("--quiet", action="store_true", help="no progress line, even for "
                         "runs longer than a second in a terminal")
    if subject == "expression":
        command.add_argument("--jobs", type=_positive(int), default=1, metavar="N",
                             help="with EXPR -, run the lines in N worker processes (the "
                             "output in the order of the lines; default 1)")
    defaults = Limits()
    command.add_argument("--timeout", type=_positive(float), metavar="SECONDS",
                         help=f"for the whole run (default {defaults.seconds:g})")
    command.add_argument("--node-limit", type=_positive(int), metavar="N", help="e-nodes per "
                         "saturation round, at least the input's own (default "
                         f"{defaults.nodes:,}, or {defaults.nodes_per_input} times the input's "
                         "e-nodes if more)")
    command.add_argument("--iterations", type=_positive(int), metavar="N", help="iterations "
                         f"per saturation round (default {defaults.iterations})")
    command.add_argument("--char-limit", type=_positive(int), metavar="N", help="the longest "
                         f"input read, in characters (default {defaults.characters:,})")


def parser() -> argparse.ArgumentParser:
    top = _Parser(prog="eqsat", description="Symbolic algebra by equality "
                                  "saturation on e-graphs.")
    top.add_argument("--version", action=_ShowVersion)
    commands = top.add_subparsers(dest="command", required=True)

    simplify = commands.add_parser("simplify", help="simplify an expression")
    _query_options(simplify)
    simplify.add_argument("--cost", choices=["tree", "dag"], default="tree",
                          help="tree: every use of a subterm counts; dag: once (default tree)")
    simplify.add_argument("--explain", action="store_true", help="also print a derivation: "
                          "one rule application a step, each checked numerically")
    simplify.add_argument("--egraph", metavar="FILE.svg", help="draw the saturated e-graph, "
                          "the result highlighted (SVG with Graphviz installed, else .dot)")
    simplify.set_defaults(run=run_simplify)

    diff = commands.add_parser("diff", help="differentiate, then simplify")
    _query_options(diff)
    diff.add_argument("--wrt", action="append", required=True, metavar="X",
                      help="the symbol; several (--wrt x --wrt y, or x,y) for mixed partials")
    diff.add_argument("--order", type=int, default=1, help="n-th derivative (default 1)")
    diff.set_defaults(run=run_diff)

    grad_ = commands.add_parser("grad", help="the gradient of a scalar-valued (tensor) "
                                "expression, by reverse mode")
    _query_options(grad_)
    grad_.add_argument("--wrt", action="append", required=True, metavar="X",
                       help="the symbol; several (--wrt A --wrt B, or A,B) for each gradient")
    grad_.set_defaults(run=run_grad)

    solve_ = commands.add_parser("solve", help="solve equations: exact answers, every case")
    solve_.add_argument("equations", nargs="+", metavar="EQUATION",
                        help="lhs = rhs, or an expression meaning expression = 0")
    solve_.add_argument("--for", dest="unknowns", nargs="+", metavar="X",
                        help="the unknowns (default: every symbol)")
    solve_.add_argument("--method", choices=["auto", "rules"], default="auto",
                        help="rules: the [solve] rules first, even for polynomial equations "
                        "(default auto)")
    _query_options(solve_, subject="equations")
    solve_.set_defaults(run=run_solve)

    stabilize = commands.add_parser("stabilize", help="the most accurate form in floating point")
    _query_options(stabilize)
    stabilize.add_argument("--domain", help="ranges, x=1e-9:1e-3,y=0:1, or a precondition "
                           "such as '0 < x < 1 and y > 2' (default: every float)")
    stabilize.add_argument("--points", type=int, default=256, help="sampled points "
                           "(default 256)")
    stabilize.add_argument("--dtype", choices=["float64", "float32"], default="float64",
                           help="the precision measured (default float64)")
    stabilize.add_argument("--plot", metavar="FILE.png", help="draw bits of error before and "
                           "after against the first variable (needs matplotlib)")
    stabilize.set_defaults(run=run_stabilize)

    compile_ = commands.add_parser("compile", help="generate a kernel (a NumPy or Dask "
                                   "module, or CUDA C with a CuPy launcher)")
    compile_.add_argument("expressions", nargs="+", metavar="EXPR",
                          help="one or more outputs, computed together")
    compile_.add_argument("--target", default="numpy", help="numpy (the default: tiled, "
                          "threaded), dask (chunked arrays, a task per chunk and output), "
                          "or cupy (a fused CUDA kernel launched by CuPy)")
    compile_.add_argument("--args", nargs="+", metavar="X", help="argument order (default: "
                          "every symbol, sorted by name)")
    compile_.add_argument("--dtype", choices=["float32", "float64"], help="cast every input "
                          "(default: numpy and dask keep float inputs as they are; cupy "
                          "float32)")
    compile_.add_argument("--optimize", choices=["simplify", "stabilize", "none"],
                          default="simplify", help="default simplify")
    compile_.add_argument("--domain", help="where the kernel will be called, as for "
                          "stabilize: the accuracy of its forms is measured there (default: "
                          "every float)")
    compile_.add_argument("--name", default="kernel", help="the function's name (default "
                          "kernel)")
    compile_.add_argument("-o", "--output", metavar="FILE", help="write the module here (for "
                          "cupy: kernel.py, the launcher; kernel.cu, the CUDA source)")
    _query_options(compile_, subject="expressions")
    compile_.set_defaults(run=run_compile)

    rules = commands.add_parser("rules", help="work with .rules files")
    rules_commands = rules.add_subparsers(dest="rules_command", required=True)
    check = rules_commands.add_parser("check", help="load rule files and check every rule "
                                      "numerically, and every check: line by proof")
    check.add_argument("files", nargs="+")
    check.add_argument("--points", type=int, default=300, help="sampled points per rule "
                       "(default 300)")
    check.add_argument("--verbose", "-v", action="store_true", help="list passing rules too")
    check.set_defaults(run=run_rules_check)

    eval_ = commands.add_parser("eval", help="the value of an expression to any number of "
                                "digits (mpmath)")
    eval_.add_argument("expression", help=f"{EXPRESSION_HELP}; give its symbols values with "
                       "--subs")
    eval_.add_argument("--digits", type=_positive(int), default=15, metavar="N",
                       help="significant digits (default 15)")
    eval_.add_argument("--subs", nargs="+", default=[], metavar="NAME=VALUE",
                       help="values (numbers, exact as written, or expressions) for symbols")
    eval_.set_defaults(run=run_eval)

    for verb, said in (("expand", "products and integer powers of sums multiplied out"),
                       ("factor", "one fraction, numerator and denominator factored over the "
                                  "rationals"),
                       ("cancel", "one fraction in lowest terms, numerator and denominator "
                                  "expanded"),
                       ("together", "one fraction in lowest terms, the numerator expanded, "
                                    "the denominator factored")):
        written = commands.add_parser(verb, help=said)
        written.add_argument("expression", help=EXPRESSION_HELP)
        written.set_defaults(run=run_rational)
    apart = commands.add_parser("apart", help="partial fractions in one variable over the "
                                "rationals")
    apart.add_argument("expression", help=EXPRESSION_HELP)
    apart.add_argument("variable", nargs="?",
                       help="the variable (where the expression has more than one symbol)")
    apart.set_defaults(run=run_apart)

    series = commands.add_parser("series", help="the expansion in one variable near a point "
                                 "(Taylor, Laurent, Puiseux), with its order term")
    series.add_argument("expression", help=EXPRESSION_HELP)
    series.add_argument("variable")
    series.add_argument("--at", default="0", metavar="POINT", help="a number, an expression, "
                        "oo or -oo (write --at=-oo); default 0")
    series.add_argument("-n", type=_positive(int), default=6, metavar="N",
                        help="powers of (x - POINT) below N, of 1/x at oo (default 6)")
    series.add_argument("--dir", choices=["+", "-"], default="+",
                        help="from above (+, the default) or below (-)")
    series.set_defaults(run=run_series)
    limit = commands.add_parser("limit", help="where an expression tends as a variable tends "
                                "to a point")
    limit.add_argument("expression", help=EXPRESSION_HELP)
    limit.add_argument("variable")
    limit.add_argument("--at", required=True, metavar="POINT", help="a number, an expression, "
                       "oo or -oo (write --at=-oo)")
    limit.add_argument("--dir", choices=["+", "-", "+-"], default="+",
                       help="from above (+, the default), below (-) or both (+-)")
    limit.set_defaults(run=run_limit)

    commands.add_parser("ops", help="list the operator table").set_defaults(run=run_ops)
    commands.add_parser("demo", help="a tour of what eqsat does").set_defaults(run=run_demo)
    return top


class _ShowVersion(argparse.Action):
    """--version: the installed version, looked up only when asked (importlib.metadata
    takes 10 ms to load)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **_: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(f"eqsat {_version()}")
        parser.exit()


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("eqsat")
    except metadata.PackageNotFoundError:  # run from a source tree that is not installed
        return "(not installed)"


_NEGATIVE_NUMBER = re.compile(r"-\d+\Z|-\d*\.\d+\Z")  # what argparse takes for one


def _expressions_first(argv: Sequence[str]) -> list[str]:
    """An argument that starts with '-' but can be no option ('-(-(x))', '-2x', '-.5*y') is
    an expression: a leading space keeps argparse from reading it as an option (the parser
    skips it). One that starts like an option ('-x') goes after '--'."""
    return [f" {arg}" if len(arg) > 1 and arg[0] == "-" and not arg[1].isalpha() and
            arg[1] != "-" and " " not in arg and not _NEGATIVE_NUMBER.match(arg) else arg
            for arg in argv]  # (argparse takes one with a space for a value already)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors are one line as eqsat's are (exit status 2), and whose
    message for a missing expression says where one that starts with '-' goes."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.split()[-1]
        if "required: expression" in message or "unrecognized arguments: -" in message:
            message += f" (an expression that starts with '-' goes after '--': eqsat {command} " \
                       "-- -x)"
        where = "" if command == "eqsat" else f"{command}: "
        self.exit(2, f"eqsat: error: {where}{message} (see {self.prog} --help)\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Exit status 0, 2 for bad input (one line on stderr), 1 for an internal error (one
    line too: a bug to report), 124 when a call ran far past its time limit (see
    watchdog), 130 when interrupted, 141 when the output pipe closed; never a traceback."""
    args = parser().parse_args(_expressions_first(sys.argv[1:] if argv is None else argv))
    set_progress(not getattr(args, "quiet", False))
    # a command with a time limit ends, saying so, if it runs far past it (see watchdog);
    # in batch mode each line is timed on its own
    batch = getattr(args, "expression", None) == "-"
    timed = hasattr(args, "timeout") and not batch
    args.batch = batch  # (each line of a batch has the whole limit)
    try:
        trust_rules_if_asked(args)
        with hard_stop(time_limit(args)) if timed else nullcontext():
            code: int = args.run(args)
    except EqsatError as error:
        print(f"eqsat: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("eqsat: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (eqsat ops | head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as error:  # a file the user named (-o, --plot, --egraph) cannot be written
        if error.filename is None:
            return _internal_error(error)
        print(f"eqsat: error: {error.filename}: {error.strerror}", file=sys.stderr)
        return 2
    except Exception as error:  # a bug: say so in one line, without a traceback
        return _internal_error(error)
    return code


def _internal_error(error: Exception) -> int:
    print(f"eqsat: internal error ({type(error).__name__}: {error}); please report it "
          "with the command line", file=sys.stderr)
    return 1


def run() -> NoReturn:
    """The `eqsat` command: main's exit status, without tearing down what the call built
    (a large e-graph and its terms take a tenth of the time limit to free, and the process
    ends anyway); the output is flushed first."""
    code = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = 141
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    run()
