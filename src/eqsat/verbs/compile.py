"""compile: expressions -> an optimized program (shared subterms once) -> a Kernel."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..accuracy.measure import Domain, domain_bounds
from ..algebra.normal import check_defined_somewhere
from ..codegen import Kernel
from ..codegen.guard import no_less_accurate
from ..codegen.horner import horner
from ..codegen.numpy import MODULE_NAMES, check_python_names
from ..codegen.targets import target_named
from ..egraph.per_thread import engine
from ..errors import EqsatError
from ..extract import CostModel, TensorCost, display_order, extract_dag
from ..extract.tree import class_shapes
from ..limits.budget import Backstop, Budget, Limits
from ..limits.report import StopReason
from ..term import arguments
from ..term.expr import Expr, make
from ..term.inputs import ExprInput, Shapes, Variable, to_expr
from ..term.ops import OPS
from ..term.parse import reading_by
from ..term.shape import is_tensor
from ..term.walks import postorder, rebuild
from .derivatives import expand_derivatives
from .simplify import simplify_report
from .stabilize import stabilize

OPTIMIZE = ("simplify", "stabilize", None)
# printing a program and compiling its source, per node it computes: the part of the time
# limit the accuracy guard leaves for printing the largest program it may keep (the input)
PRINT_SECONDS_PER_NODE = 1e-4


def compile(exprs: ExprInput | Sequence[ExprInput], args: Sequence[Variable] | None = None,
            target: str = "numpy", dtype: str | None = None,
            optimize: str | None = "simplify", *, rules: Iterable[str | Path] = (),
            limits: Limits | None = None, name: str = "kernel",
            shapes: Shapes | None = None, sizes: Mapping[str, int] | None = None,
            domain: Domain = None) -> Kernel:
    """A Kernel computing the expression (or several, sharing their common subterms).

    args: the argument order (default: every symbol, sorted by name). optimize: "simplify"
    (one e-graph for all outputs, DAG-cost extraction, polynomials by Horner's scheme; an
    output whose cheapest form is less accurate than the input on sampled points, in the
    kernel's float type, is kept as given or as stabilize writes it), "stabilize" (each
    output's most accurate form) or None (as given). dtype: cast every input ("float32",
    "float64"), or None to keep float inputs as they are (numpy; the cupy target defaults to
    float32). Every output of an elementwise kernel has the broadcast shape of all the
    arguments, a constant one too. domain: where the kernel will be called, as stabilize
    takes it ({"x": (0, 1)} or "0 < x < 1"): accuracy is measured there (default: every
    float).
    target "numpy" (tiled, threaded NumPy; out= for the results), "dask" (Dask arrays: a
    task per chunk and output) or "cupy" (one fused CUDA kernel, launched through
    cupy.RawKernel); see codegen/targets.py. shapes: make
    symbols tensors ({"A": ("n", "m")}); sizes: representative sizes of named dimensions
    for the costs (a matrix chain's order depends on them).
    """
    spec = target_named(target)
    if optimize not in OPTIMIZE:
        raise EqsatError(f"optimize is 'simplify', 'stabilize' or None, not {optimize!r}")
    if dtype not in (None, "float32", "float64"):
        raise EqsatError(f"dtype is 'float32', 'float64' or None, not {dtype!r}")
    dtype = dtype or spec.default_dtype
    check_python_names([], MODULE_NAMES, name)
    limits = Limits.of(limits)
    budget = Budget.start(limits)  # one budget for every stage, parsing to printing
    listed = list(exprs) if isinstance(exprs, (list, tuple)) else [exprs]
    given = [arguments.expression(e) for e in listed]
    sizes = arguments.mapping(sizes, "sizes")
    if args is not None:
        args = arguments.names(args, "args", empty=True)  # a constant's kernel takes none
    if not given:
        raise EqsatError("compile needs at least one expression")
    domain = arguments.domain(domain)
    with reading_by(budget.deadline, limits.stated_seconds, limits.characters):
        read = [to_expr(e, shapes=shapes) for e in given]
    parsed = [expand_derivatives(e, rules)[0] for e in read]
    for expr in parsed:
        check_defined_somewhere(expr, "compile")
        statement = next((n for n in postorder(expr) if n.op in OPS and
                          not OPS[n.op].is_value), None)
        if statement is not None:
            raise EqsatError(f"compile takes values; {statement} is not one ({statement.op})")
    names = sorted({s.name for e in parsed for s in e.free_symbols()}) if args is None else \
        [a.name if isinstance(a, Expr) else a for a in args]
    if len(set(names)) != len(names):
        raise EqsatError(f"an argument is named twice in {names}")
    domain_bounds(domain, names)  # a malformed domain is an error whatever is measured
    if optimize == "simplify":
        simplified = _simplified(parsed, rules, budget, spec.costs, sizes or {})
        cost = CostModel(spec.costs).dag_cost
        # polynomial parts by Horner's scheme where cheaper; and a cheaper form may cancel or
        # overflow where the input does not: each choice measured, the accurate one last
        choices = [list(dict.fromkeys([horner(e, cost), e, _numbers_last(e)]))
                   for e in simplified]
        measured = dtype or "float64"
        printing = PRINT_SECONDS_PER_NODE * len({n for e in parsed for n in postorder(e)})
        guard = Backstop(budget.deadline - printing)
        program = no_less_accurate(
            choices, parsed, names, measured, domain,
            lambda e: stabilize(e, domain, rules=rules, dtype=measured,
                                limits=replace(budget.limits, seconds=guard.seconds_left())),
            guard)
    elif optimize == "stabilize":
        program = [stabilize(e, domain, rules=rules, limits=budget.left(),
                             dtype=dtype or "float64") for e in parsed]
    else:
        program = parsed
    source, module = spec.print(program, names, name, dtype)
    return Kernel(source, name, names, program, spec.name, module)


def _numbers_last(expr: Expr) -> Expr:
    """Each product led by a number with the number applied last, k*(a*b) for (k*a)*b: where
    a is huge and b tiny, k*a can overflow where a*b does not (display order groups products
    from the left)."""
    def regrouped(node: Expr, args: list[Expr]) -> Expr:
        led = args[0] if node.op == "mul" else None
        if led is not None and led.op == "mul" and led.args[0].is_number and \
                not is_tensor(node):
            return make("mul", led.args[0], make("mul", led.args[1], args[1]))
        return make(node.op, *args) if node.args else node

    return rebuild(expr, regrouped)


def _simplified(exprs: list[Expr], rules: Iterable[str | Path], budget: Budget,
                costs: Mapping[str, float], sizes: Mapping[str, int]) -> list[Expr]:
    """Each output simplified as simplify does (normal forms, rounds of rules) with the
    target's op costs, by DAG cost, in a third of the time left; then, for several outputs,
    all in one e-graph, extracted together (shared subterms once) in a sixth. The other half
    leaves room for measuring the choices' accuracy and printing the program."""
    limits = budget.left()
    share = replace(limits, seconds=limits.seconds / 3 / len(exprs))
    alone = [simplify_report(e, rules=rules, limits=share, cost="dag", costs=costs,
                             sizes=sizes).expr for e in exprs]
    joint = budget.seconds_left() - limits.seconds * 5 / 6  # what is left for the shared pass
    if len(alone) == 1 or joint <= 0:
        return alone
    tensors = any(is_tensor(e) for e in alone)
    model = TensorCost(costs, sizes) if tensors else CostModel(costs)
    with engine(rules).session(tensors, ["simplify"]) as session:
        handles = [session.add(e) for e in alone]
        report = session.run(["simplify"], replace(limits, seconds=joint))
        if report.stop_reason == StopReason.CONTRADICTION:
            return alone
        snapshot = session.snapshot(handles)
        if isinstance(model, TensorCost):
            model.class_shapes.update(class_shapes(snapshot, session.symbol))
        found = extract_dag(snapshot, handles, model, session.symbol)
    chosen = [display_order(e) for e in found]
    return chosen if model.dag_cost(*chosen) <= model.dag_cost(*alone) else alone


class Function:
    """Theano style: f = function([a, b], expr); f(1.5, 2.5), arrays broadcasting. Compiled
    once, after simplification, by the NumPy backend."""

    def __init__(self, args: Sequence[Variable], expr: ExprInput) -> None:
        self.expr = to_expr(expr)
        self.args = [a.name if isinstance(a, Expr) else a for a in args]
        self.kernel = compile(self.expr, self.args, name="function")

    def __call__(self, *values: Any) -> Any:
        if len(values) != len(self.args):
            raise EqsatError(f"expected {len(self.args)} argument(s) {self.args}, "
                             f"got {len(values)}")
        return self.kernel(*values)

    def __repr__(self) -> str:
        return f"Function({self.args}, {self.expr})"


def function(args: Sequence[Variable], expr: ExprInput) -> Function:
    """Theano style: f = function([a, b], expr); f(1.5, 2.5) runs the compiled kernel."""
    return Function(args, expr)
