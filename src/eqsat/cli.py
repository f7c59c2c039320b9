"""The `eqsat` command: simplify, diff, grad, solve, stabilize, compile, rule checks, ops,
demo."""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import NoReturn

from .egraph.engines import engine
from .errors import EqsatError
from .extract.cost import REPRESENTATIVE_SIZE
from .limits.budget import Limits
from .limits.progress import set_progress
from .limits.report import RunReport, StopReason
from .limits.watchdog import hard_stop
from .rules import load_rules
from .term.display import pretty
from .term.expr import Expr
from .term.inputs import to_expr
from .term.ops import ROWS
from .term.shape import is_tensor
from .verbs.check_rules import check_rules
from .verbs.diff import diff_report, grad
from .verbs.simplify import prove_equal, simplify_report
from .verbs.solve import solve


def _assumptions(pairs: Sequence[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for pair in pairs:
        name, sep, flags = pair.partition("=")
        if not sep or not name or not flags:
            raise EqsatError(f"--assume takes NAME=ASSUMPTION[,ASSUMPTION], not {pair!r}")
        found.setdefault(name.strip(), []).extend(f.strip() for f in flags.split(","))
    return found


def _shapes(pairs: Sequence[str]) -> dict[str, tuple[int | str, ...]]:
    """--shape A=n,m (a matrix), --shape v=3 (a vector), --shape s= (a scalar)."""
    found: dict[str, tuple[int | str, ...]] = {}
    for pair in pairs:
        name, sep, dims = pair.partition("=")
        if not sep or not name.strip():
            raise EqsatError(f"--shape takes NAME=DIM[,DIM...], such as A=n,m or v=3, "
                             f"not {pair!r}")
        found[name.strip()] = tuple(int(d) if d.strip().isdigit() else d.strip()
                                    for d in dims.split(",") if d.strip())
    return found


def _sizes(pairs: Sequence[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for pair in pairs:
        name, _, size = pair.partition("=")
        if not size.strip().isdigit():
            raise EqsatError(f"--size takes NAME=INTEGER, such as n=1000, not {pair!r}")
        found[name.strip()] = int(size)
    return found


def _trusted(args: argparse.Namespace) -> None:
    """With --trust, the rule files load even where the soundness check fails."""
    if getattr(args, "trust", False):
        engine(args.rules, trust=True)


def _timeout(args: argparse.Namespace) -> float:
    """The time limit as given (--timeout, or the default)."""
    return float(Limits().seconds if args.timeout is None else args.timeout)


def _limits(args: argparse.Namespace) -> Limits:
    """The limits for a call: the time limit less what starting the process took (the
    limit is for the whole command; in batch mode, for each line)."""
    defaults, given = Limits(), _timeout(args)
    # starting Python, imports, reading the input: the processor time this process has used
    # (its wall time would count the waits of a busy machine against the call)
    spent = 0.0 if args.batch else time.process_time()
    seconds = max(given - spent, given / 2)
    if args.node_limit is None:
        nodes, per_input = defaults.nodes, defaults.nodes_per_input
    else:  # the number given (a run cannot hold fewer e-nodes than its input)
        nodes, per_input = args.node_limit, 1
    return Limits(iterations=defaults.iterations if args.iterations is None else args.iterations,
                  nodes=nodes, nodes_per_input=per_input, seconds=seconds)


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


def _shown(expr: Expr, args: argparse.Namespace) -> str:
    """The text to print: parseable by default, Unicode with --pretty."""
    return pretty(expr) if args.pretty else str(expr)


_RAISED_BY = {StopReason.NODES: ("node limit", "--node-limit"),
              StopReason.TIME: ("time limit", "--timeout"),
              StopReason.ITERATIONS: ("iteration limit", "--iterations")}


def _say_what_stopped(report: RunReport, args: argparse.Namespace) -> None:
    """One line on stderr when a limit cut the rules short: the answer may not be the
    simplest they can reach."""
    if not report.stop_reason.is_limit:
        return
    what, option = _RAISED_BY[report.stop_reason]
    if report.stop_reason == StopReason.TIME:  # of the whole call (the run's own is less)
        what += f" of {_timeout(args):g} s"
    if report.iterations == 0:
        print(f"eqsat: the {what} was reached before the rules began (the input alone takes "
              f"that long to handle); raise it with {option}", file=sys.stderr)
        return
    print(f"eqsat: the {what} stopped the rules before they were done ({report.nodes:,} "
          f"e-nodes after {report.iterations} iterations); raise it with {option}",
          file=sys.stderr)


def _expressions(given: str) -> list[str]:
    """The expression argument: `-` reads one expression a line from standard input (batch
    mode, blank lines skipped), `@FILE` reads one expression from a file."""
    if given == "-":
        raw = sys.stdin.buffer.read()
        try:
            return raw.decode("utf-8").splitlines()
        except UnicodeDecodeError as error:
            line = raw.count(b"\n", 0, error.start) + 1
            raise EqsatError(f"cannot read standard input: byte {raw[error.start]:#04x} on "
                             f"line {line} is not UTF-8 text") from None
    if given.startswith("@") and len(given) > 1:
        try:
            return [Path(given[1:]).read_text(encoding="utf-8").strip()]
        except OSError as error:
            raise EqsatError(f"cannot read {given[1:]}: {error.strerror}") from None
        except UnicodeDecodeError as error:
            raise EqsatError(f"cannot read {given[1:]}: byte {error.object[error.start]:#04x} "
                             f"at offset {error.start} is not UTF-8 text") from None
    return [given]


def _each(args: argparse.Namespace, answer: Callable[[str], None]) -> int:
    """Run answer on every expression given; in batch mode an error on one line is said
    (with its line number) and the others still run, and the exit status is 2."""
    given = _expressions(args.expression)
    if args.expression != "-":
        for text in given:
            answer(text)
        return 0
    failed = 0
    for number, text in enumerate(given, 1):
        if not text.strip():
            continue
        try:
            with hard_stop(_timeout(args)):  # each line has the whole limit
                answer(text)
        except EqsatError as error:
            print(f"eqsat: error: line {number}: {error}", file=sys.stderr)
            failed += 1
        sys.stdout.flush()  # the answers so far are out, should a later line be stopped
    return 2 if failed else 0


def _simplify(args: argparse.Namespace) -> int:
    return _each(args, lambda text: _simplify_one(text, args))


def _simplify_one(text: str, args: argparse.Namespace) -> None:
    result = simplify_report(text, rules=args.rules, limits=_limits(args),
                             assume=_assumptions(args.assume), cost=args.cost,
                             shapes=_shapes(args.shape), sizes=_sizes(args.size))
    print(_shown(result.expr, args))
    _say_what_stopped(result.report, args)
    if args.report:
        print(result.report, file=sys.stderr)
        print(f"cost {result.cost_before:g} -> {result.cost_after:g}", file=sys.stderr)
    if args.explain:
        from .explain.steps import explain

        derivation = explain(text, result.expr, rules=args.rules,
                             limits=_limits(args), assume=_assumptions(args.assume))
        print(derivation)
    if args.egraph:
        from .explain.picture import egraph_dot, save_dot

        dot = egraph_dot(text, rules=args.rules, limits=_limits(args),
                         assume=_assumptions(args.assume))
        print(f"e-graph: {save_dot(dot, args.egraph)}", file=sys.stderr)


def _scalars_only(args: argparse.Namespace) -> None:
    if args.shape:
        raise EqsatError(f"{args.command} takes scalar expressions; for tensors use "
                         "`eqsat grad`, `eqsat simplify` or `eqsat compile`")


def _diff(args: argparse.Namespace) -> int:
    _scalars_only(args)
    variables = [v.strip() for given in args.wrt for v in given.split(",") if v.strip()]
    if not variables:
        raise EqsatError("--wrt names the symbol(s) to differentiate in")
    wrt = variables[0] if len(variables) == 1 else variables

    def answer(text: str) -> None:
        result = diff_report(text, wrt, args.order, rules=args.rules,
                             limits=_limits(args), assume=_assumptions(args.assume))
        print(_shown(result.expr, args))
        _say_what_stopped(result.report, args)
        if args.report:
            print(result.report, file=sys.stderr)

    return _each(args, answer)


def _grad(args: argparse.Namespace) -> int:
    variables = [v.strip() for given in args.wrt for v in given.split(",") if v.strip()]
    if not variables:
        raise EqsatError("--wrt names the symbol(s) to take the gradient in")
    found = grad(args.expression, variables, rules=args.rules, limits=_limits(args),
                 assume=_assumptions(args.assume), shapes=_shapes(args.shape))
    for variable, gradient in zip(variables, found, strict=True):
        shown = _shown(gradient, args)
        print(shown if len(variables) == 1 else f"{variable}: {shown}")
    return 0


def _solve(args: argparse.Namespace) -> int:
    _scalars_only(args)
    unknowns = [u.strip() for given in args.unknowns or [] for u in given.split(",")
                if u.strip()]
    solution = solve(args.equations, unknowns or None, rules=args.rules, limits=_limits(args),
                     assume=_assumptions(args.assume), method=args.method)
    print(solution.format(pretty_print=args.pretty))
    if args.report:
        print(f"solved by: {solution.method}", file=sys.stderr)
    return 0


def _domain(text: str | None) -> dict[str, tuple[float, float]] | str | None:
    """--domain "x=1e-9:1e-3,y=0:1" gives ranges; any other text is a precondition."""
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",")]
    if not all("=" in p and ":" in p and "==" not in p for p in parts):
        return text
    ranges = {}
    for part in parts:
        name, _, bounds = part.partition("=")
        low, _, high = bounds.partition(":")
        try:
            ranges[name.strip()] = (float(low), float(high))
        except ValueError:
            raise EqsatError(f"--domain takes NAME=LOW:HIGH[,NAME=LOW:HIGH] or a precondition "
                             f"such as '0 < x < 1', not {text!r}") from None
    return ranges


def _stabilize(args: argparse.Namespace) -> int:
    from .verbs.stabilize import plot_error, stabilize, stabilize_report  # they load NumPy

    given = to_expr(args.expression, _assumptions(args.assume), _shapes(args.shape))
    if is_tensor(given):  # picked by the rules, not measured
        print(_shown(stabilize(given, rules=args.rules, limits=_limits(args)), args))
        return 0
    result = stabilize_report(args.expression, _domain(args.domain), points=args.points,
                              dtype=args.dtype, rules=args.rules, limits=_limits(args),
                              assume=_assumptions(args.assume))
    print(_shown(result.expr, args))
    print(f"bits of error ({result.sample.dtype}, {result.sample.size} points): "
          f"{result.bits_before:.2f} before, {result.bits_after:.2f} after", file=sys.stderr)
    for line in result.regime_lines():
        print(line, file=sys.stderr)
    if result.report.stop_reason == StopReason.TIME:  # the backstop, not a work budget
        print(f"eqsat: the time limit of {_timeout(args):g} s cut the search short (on a "
              "faster or less busy machine it may find a more accurate form); raise it with "
              "--timeout", file=sys.stderr)
    if args.report:
        print(result.report, file=sys.stderr)
    if args.plot:
        print(f"plot: {plot_error(result, args.plot)}", file=sys.stderr)
    return 0


def _compile(args: argparse.Namespace) -> int:
    from .verbs.compile import compile

    names = [a.strip() for given in args.args or [] for a in given.split(",") if a.strip()]
    kernel = compile(args.expressions, names or None, target=args.target, dtype=args.dtype,
                     optimize=None if args.optimize == "none" else args.optimize,
                     rules=args.rules, limits=_limits(args), name=args.name,
                     shapes=_shapes(args.shape), sizes=_sizes(args.size),
                     domain=_domain(args.domain))
    if args.output:
        print(f"wrote {kernel.save(args.output)}", file=sys.stderr)
    else:
        print(kernel.source, end="")
    return 0


def _rules_check(args: argparse.Namespace) -> int:
    failures = 0
    for verdict in check_rules(args.files, points=args.points):
        if not verdict.sound or args.verbose:
            print(verdict)
        failures += not verdict.sound
    loaded = load_rules(args.files)
    for check in loaded.checks:
        proven = prove_equal(check.lhs, check.rhs, rules=args.files,
                             rulesets=loaded.rulesets() or ["simplify"])
        if not proven or args.verbose:
            status = "ok  " if proven else "FAIL"
            print(f"{status}  check {check.lhs} == {check.rhs} at {check.origin}")
        failures += not proven
    total = len(loaded.rules) + len(loaded.checks)
    print(f"{total - failures} passed, {failures} failed")
    return 1 if failures else 0


def _ops(args: argparse.Namespace) -> int:
    for spec in ROWS:
        spelling = spec.symbol or spec.name
        print(f"{spec.name:10} {spec.arity}  {spelling:9} cost {spec.cost:>3}  {spec.domain}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    run_demo()
    return 0


def _query_options(command: argparse.ArgumentParser, subject: str = "expression") -> None:
    if subject == "expression":
        command.add_argument("expression", help="the expression; - reads one a line from "
                             "standard input, @FILE reads one from a file")
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
    defaults = Limits()
    command.add_argument("--timeout", type=_positive(float), metavar="SECONDS",
                         help=f"for the whole run (default {defaults.seconds:g})")
    command.add_argument("--node-limit", type=_positive(int), metavar="N", help="e-nodes per "
                         "saturation round, at least the input's own (default "
                         f"{defaults.nodes:,}, or {defaults.nodes_per_input} times the input's "
                         "e-nodes if more)")
    command.add_argument("--iterations", type=_positive(int), metavar="N", help="iterations "
                         f"per saturation round (default {defaults.iterations})")


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
    simplify.set_defaults(run=_simplify)

    diff = commands.add_parser("diff", help="differentiate, then simplify")
    _query_options(diff)
    diff.add_argument("--wrt", action="append", required=True, metavar="X",
                      help="the symbol; several (--wrt x --wrt y, or x,y) for mixed partials")
    diff.add_argument("--order", type=int, default=1, help="n-th derivative (default 1)")
    diff.set_defaults(run=_diff)

    grad_ = commands.add_parser("grad", help="the gradient of a scalar-valued (tensor) "
                                "expression, by reverse mode")
    _query_options(grad_)
    grad_.add_argument("--wrt", action="append", required=True, metavar="X",
                       help="the symbol; several (--wrt A --wrt B, or A,B) for each gradient")
    grad_.set_defaults(run=_grad)

    solve_ = commands.add_parser("solve", help="solve equations: exact answers, every case")
    solve_.add_argument("equations", nargs="+", metavar="EQUATION",
                        help="lhs = rhs, or an expression meaning expression = 0")
    solve_.add_argument("--for", dest="unknowns", nargs="+", metavar="X",
                        help="the unknowns (default: every symbol)")
    solve_.add_argument("--method", choices=["auto", "rules"], default="auto",
                        help="rules: the [solve] rules first, even for polynomial equations "
                        "(default auto)")
    _query_options(solve_, subject="equations")
    solve_.set_defaults(run=_solve)

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
    stabilize.set_defaults(run=_stabilize)

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
    compile_.set_defaults(run=_compile)

    rules = commands.add_parser("rules", help="work with .rules files")
    rules_commands = rules.add_subparsers(dest="rules_command", required=True)
    check = rules_commands.add_parser("check", help="load rule files and check every rule "
                                      "numerically, and every check: line by proof")
    check.add_argument("files", nargs="+")
    check.add_argument("--points", type=int, default=300, help="sampled points per rule "
                       "(default 300)")
    check.add_argument("--verbose", "-v", action="store_true", help="list passing rules too")
    check.set_defaults(run=_rules_check)

    commands.add_parser("ops", help="list the operator table").set_defaults(run=_ops)
    commands.add_parser("demo", help="a tour of what eqsat does").set_defaults(run=_demo)
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
        _trusted(args)
        with hard_stop(_timeout(args)) if timed else nullcontext():
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
