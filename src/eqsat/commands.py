"""What each eqsat command does with its parsed arguments: one function per command."""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack, nullcontext, redirect_stderr, redirect_stdout
from pathlib import Path

from .egraph.per_thread import engine
from .errors import EqsatError
from .limits.budget import Limits, setup_seconds
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


def _named(pair: str, usage: str, value_needed: bool = True) -> tuple[str, str]:
    """NAME=VALUE of an option, both stripped; the option's usage where it is not that."""
    name, sep, value = pair.partition("=")
    if not sep or not name.strip() or (value_needed and not value.strip()):
        raise EqsatError(f"{usage}, not {pair!r}")
    return name.strip(), value.strip()


def _assumptions(pairs: Sequence[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for pair in pairs:
        name, flags = _named(pair, "--assume takes NAME=ASSUMPTION[,ASSUMPTION]")
        found.setdefault(name, []).extend(f.strip() for f in flags.split(","))
    return found


def _shapes(pairs: Sequence[str]) -> dict[str, tuple[int | str, ...]]:
    """--shape A=n,m (a matrix), --shape v=3 (a vector), --shape s= (a scalar)."""
    found: dict[str, tuple[int | str, ...]] = {}
    for pair in pairs:
        name, dims = _named(pair, "--shape takes NAME=DIM[,DIM...], such as A=n,m or v=3",
                            value_needed=False)
        found[name] = tuple(int(d) if d.strip().isdigit() else d.strip()
                            for d in dims.split(",") if d.strip())
    return found


def _sizes(pairs: Sequence[str]) -> dict[str, int]:
    usage = "--size takes NAME=INTEGER, such as n=1000"
    found: dict[str, int] = {}
    for pair in pairs:
        name, size = _named(pair, usage)
        if not size.isdigit():
            raise EqsatError(f"{usage}, not {pair!r}")
        found[name] = int(size)
    return found


def trust_rules_if_asked(args: argparse.Namespace) -> None:
    """With --trust, the rule files load even where the soundness check fails."""
    if getattr(args, "trust", False):
        engine(args.rules, trust=True)


def time_limit(args: argparse.Namespace) -> float:
    """The time limit as given (--timeout, or the default)."""
    return float(Limits().seconds if args.timeout is None else args.timeout)


def _limits(args: argparse.Namespace) -> Limits:
    """The limits for a call: the time limit less what starting the process took (the
    limit is for the whole command; in batch mode, for each line)."""
    defaults, given = Limits(), time_limit(args)
    # starting Python, imports, reading the input: the processor time this process has used
    # (its wall time would count the waits of a busy machine against the call)
    spent = 0.0 if args.batch else time.process_time()
    seconds = max(given - spent, given / 2)
    if args.node_limit is None:
        nodes, per_input = defaults.nodes, defaults.nodes_per_input
    else:  # the number given (a run cannot hold fewer e-nodes than its input)
        nodes, per_input = args.node_limit, 1
    return Limits(iterations=defaults.iterations if args.iterations is None else args.iterations,
                  nodes=nodes, nodes_per_input=per_input, seconds=seconds, given_seconds=given,
                  characters=defaults.characters if args.char_limit is None
                  else args.char_limit)


def _print_report(report: RunReport) -> None:
    """--report: the run report and the setup line, on stderr."""
    print(report, file=sys.stderr)
    _print_setup()


def _print_setup() -> None:
    print(f"setup: {setup_seconds():.2f} s (compiling the rules this process used, once; "
          "outside the time limit)", file=sys.stderr)


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
        what += f" of {time_limit(args):g} s"
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


LINES_PER_TASK = 16  # lines of a batch a worker takes at a time (a task costs a round trip)


def _each(args: argparse.Namespace, answer: Callable[[str, argparse.Namespace], None]) -> int:
    """Run answer on every expression given; in batch mode an error on one line is said
    (with its line number) and the others still run, and the exit status is 2; with --jobs
    N, the lines run in N worker processes and their output comes out in order."""
    given = _expressions(args.expression)
    if args.expression != "-":
        for text in given:
            answer(text, args)
        return 0
    lines = [(number, text) for number, text in enumerate(given, 1) if text.strip()]
    jobs = getattr(args, "jobs", 1)
    if jobs > 1 and len(lines) > 1:
        from .verbs.batch import in_processes

        size = max(1, min(LINES_PER_TASK, len(lines) // (4 * jobs)))  # (4 tasks a worker)
        texts = [text for _, text in lines]
        outputs = (output for chunk in in_processes(
            jobs, _captured_lines, [(answer, texts[i:i + size], args)
                                    for i in range(0, len(texts), size)]) for output in chunk)
    else:
        outputs = (_captured(answer, text, args, capture=False) for _, text in lines)
    failed = 0
    for (number, _), (out, err, error) in zip(lines, outputs, strict=True):
        sys.stdout.write(out)
        sys.stderr.write(err)
        if error is not None:
            print(f"eqsat: error: line {number}: {error}", file=sys.stderr)
            failed += 1
        sys.stdout.flush()  # the answers so far are out, should a later line be stopped
    return 2 if failed else 0


def _captured_lines(answer: Callable[[str, argparse.Namespace], None], texts: list[str],
                    args: argparse.Namespace) -> list[tuple[str, str, str | None]]:
    """Lines of a batch in a worker, each as _captured."""
    return [_captured(answer, text, args) for text in texts]


def _captured(answer: Callable[[str, argparse.Namespace], None], text: str,
              args: argparse.Namespace, capture: bool = True) -> tuple[str, str, str | None]:
    """One line of a batch, with the whole time limit: what it printed on stdout and stderr
    (passed through as it comes where not captured) and its error's message, if any."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with ExitStack() as stack:
            if capture:
                stack.enter_context(redirect_stdout(out))
                stack.enter_context(redirect_stderr(err))
            with hard_stop(time_limit(args)) if hasattr(args, "timeout") else nullcontext():
                answer(text, args)
    except EqsatError as error:
        return out.getvalue(), err.getvalue(), str(error)
    return out.getvalue(), err.getvalue(), None


def run_simplify(args: argparse.Namespace) -> int:
    return _each(args, _simplify_one)


def _simplify_one(text: str, args: argparse.Namespace) -> None:
    result = simplify_report(text, rules=args.rules, limits=_limits(args),
                             assume=_assumptions(args.assume), cost=args.cost,
                             shapes=_shapes(args.shape), sizes=_sizes(args.size))
    print(_shown(result.expr, args))
    _say_what_stopped(result.report, args)
    if args.report:
        _print_report(result.report)
        print(f"cost {result.cost_before:g} -> {result.cost_after:g}", file=sys.stderr)
    if args.explain:
        from .explain.steps import explain

        derivation = explain(text, result.expr, rules=args.rules,
                             limits=_limits(args), assume=_assumptions(args.assume))
        print(derivation)
    if args.egraph:
        from .explain.picture import egraph_dot, save_dot

        dot = egraph_dot(text, rules=args.rules, limits=_limits(args),
                         assume=_assumptions(args.assume), result=result.expr)
        print(f"e-graph: {save_dot(dot, args.egraph)}", file=sys.stderr)


def _scalars_only(args: argparse.Namespace) -> None:
    if args.shape:
        raise EqsatError(f"{args.command} takes scalar expressions; for tensors use "
                         "`eqsat grad`, `eqsat simplify` or `eqsat compile`")


def run_diff(args: argparse.Namespace) -> int:
    _scalars_only(args)
    variables = [v.strip() for given in args.wrt for v in given.split(",") if v.strip()]
    if not variables:
        raise EqsatError("--wrt names the symbol(s) to differentiate in")
    args.variables = variables[0] if len(variables) == 1 else variables
    return _each(args, _diff_one)


def _diff_one(text: str, args: argparse.Namespace) -> None:
    result = diff_report(text, args.variables, args.order, rules=args.rules,
                         limits=_limits(args), assume=_assumptions(args.assume))
    print(_shown(result.expr, args))
    _say_what_stopped(result.report, args)
    if args.report:
        _print_report(result.report)


def run_grad(args: argparse.Namespace) -> int:
    variables = [v.strip() for given in args.wrt for v in given.split(",") if v.strip()]
    if not variables:
        raise EqsatError("--wrt names the symbol(s) to take the gradient in")
    found = grad(args.expression, variables, rules=args.rules, limits=_limits(args),
                 assume=_assumptions(args.assume), shapes=_shapes(args.shape))
    for variable, gradient in zip(variables, found, strict=True):
        shown = _shown(gradient, args)
        print(shown if len(variables) == 1 else f"{variable}: {shown}")
    return 0


def run_solve(args: argparse.Namespace) -> int:
    _scalars_only(args)
    unknowns = [u.strip() for given in args.unknowns or [] for u in given.split(",")
                if u.strip()]
    solution = solve(args.equations, unknowns or None, rules=args.rules, limits=_limits(args),
                     assume=_assumptions(args.assume), method=args.method)
    print(solution.format(pretty_print=args.pretty))
    if args.report:
        print(f"solved by: {solution.method}", file=sys.stderr)
        _print_setup()
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


def run_stabilize(args: argparse.Namespace) -> int:
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
        print(f"eqsat: the time limit of {time_limit(args):g} s cut the search short (on a "
              "faster or less busy machine it may find a more accurate form); raise it with "
              "--timeout", file=sys.stderr)
    if args.report:
        _print_report(result.report)
    if args.plot:
        print(f"plot: {plot_error(result, args.plot)}", file=sys.stderr)
    return 0


def run_compile(args: argparse.Namespace) -> int:
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


def run_rules_check(args: argparse.Namespace) -> int:
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


def run_eval(args: argparse.Namespace) -> int:
    from .verbs.values import N

    values = dict(_named(pair, "--subs takes NAME=VALUE, such as x=3 or y=pi/2")
                  for pair in args.subs)
    return _each(args, lambda text, args: print(N(text, args.digits, values)))


def run_rational(args: argparse.Namespace) -> int:
    from .verbs.polynomials import cancel, expand, factor, together

    verbs: dict[str, Callable[[str], object]] = {"expand": expand, "factor": factor,
                                                 "cancel": cancel, "together": together}
    return _each(args, lambda text, args: print(verbs[args.command](text)))


def run_apart(args: argparse.Namespace) -> int:
    from .verbs.polynomials import apart

    return _each(args, lambda text, args: print(apart(text, args.variable)))


def run_series(args: argparse.Namespace) -> int:
    from .verbs.asymptotics import series

    return _each(args, lambda text, args: print(series(text, args.variable, args.at, args.n,
                                                        args.dir)))


def run_limit(args: argparse.Namespace) -> int:
    from .verbs.asymptotics import limit

    return _each(args, lambda text, args: print(limit(text, args.variable, args.at, args.dir)))


def run_ops(args: argparse.Namespace) -> int:
    for spec in ROWS:
        spelling = spec.symbol or spec.name
        print(f"{spec.name:10} {spec.arity}  {spelling:9} cost {spec.cost:>3}  {spec.domain}")
    return 0


def run_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    run_demo()
    return 0
