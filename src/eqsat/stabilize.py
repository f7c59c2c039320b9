"""stabilize and error_bits: the most accurate equal form, found in the e-graph and measured."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from .api import ExprInput, engine, expand_derivatives, to_expr
from .egraph import Limits, RunReport
from .errors import EqsatError
from .expr import Expr
from .extract import CostModel, TreeExtractor, display_order
from .extract.accuracy import Domain, Sample, bits_at, mean_bits, sample
from .extract.search import most_accurate

RULESETS = ("simplify", "stability")


@dataclass(frozen=True)
class Stabilized:
    """The most accurate form found, with the mean bits of error before and after on the
    same sampled points, and the rules that fired."""

    expr: Expr
    original: Expr
    bits_before: float
    bits_after: float
    report: RunReport
    candidates: int  # distinct forms measured
    sample: Sample

    @property
    def rules_fired(self) -> dict[str, int]:
        return {name: n for name, n in self.report.rule_matches.items() if n}

    def __str__(self) -> str:
        return (f"{self.expr}\n  bits of error ({self.sample.dtype}, {self.sample.size} "
                f"points): {self.bits_before:.2f} -> {self.bits_after:.2f}")


def error_bits(expr: ExprInput, domain: Domain = None, points: int = 256,
               dtype: str = "float64", seed: int = 0) -> float:
    """Mean bits of error of expr in floating point (Herbie's measure): log2(1 + floats
    between the computed and the correctly rounded true value), over sampled points where
    the true value is finite. domain: {"x": (low, high)}, a precondition such as
    "0 < x < 1 and y > 2", or None for every float bit pattern."""
    start = to_expr(expr)
    return mean_bits(start, sample(start, domain, points, dtype, seed))


def stabilize_report(expr: ExprInput, domain: Domain = None, *, points: int = 256,
                     dtype: str = "float64", rules: Iterable[str | Path] = (),
                     limits: Limits | None = None,
                     assume: Mapping[str, str | Iterable[str]] | None = None,
                     seed: int = 0) -> Stabilized:
    """Saturate with the [simplify] and [stability] rules, then search the e-graph for the
    form with the fewest bits of error on sampled points (ties go to the cheaper). Never
    less accurate than the input on those points: it is the first candidate."""
    limits = limits or Limits()
    start = to_expr(expr, assume)
    expanded, _ = expand_derivatives(start, rules)
    points_ = sample(expanded, domain, points, dtype, seed)
    model = CostModel()
    with engine(rules).session() as session:
        handle = session.add(expanded)
        report = session.run(RULESETS, limits)
        snapshot = session.snapshot([handle])
        extractor = TreeExtractor(snapshot, model, session.symbol)
    before = mean_bits(start, points_)
    best, tried = start, 1
    if report.stop_reason != "contradiction":
        found, measured = most_accurate(snapshot, snapshot.roots[handle], extractor, points_,
                                        model, seconds=limits.seconds)
        tried += len(measured)
        shown = display_order(found.expr)
        if mean_bits(shown, points_) <= found.bits:
            found = replace(found, expr=shown)
        keeps_cost = model.tree_cost(found.expr) < model.tree_cost(start)
        if found.bits < before or (found.bits == before and keeps_cost):
            best = found.expr
    return Stabilized(best, start, before, mean_bits(best, points_), report, tried, points_)


def stabilize(expr: ExprInput, domain: Domain = None, **options: object) -> Expr:
    """The most accurate equal form found (see stabilize_report for options)."""
    return stabilize_report(expr, domain, **options).expr  # type: ignore[arg-type]


def plot_error(result: Stabilized, path: str | Path) -> Path:
    """Draw bits of error against the first variable, before and after, into an image."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise EqsatError("plotting needs matplotlib: pip install 'eqsat[plot]'") from None
    names = sorted(result.sample.values)
    if not names:
        raise EqsatError(f"{result.original} has no variable to plot the error against")
    axis = result.sample.values[names[0]]
    figure, ax = plt.subplots(figsize=(7, 4))
    for expr, label, marker in ((result.original, "before", "o"), (result.expr, "after", "x")):
        ax.scatter(axis, bits_at(expr, result.sample), s=12, marker=marker,
                   label=f"{label}: {expr} ({mean_bits(expr, result.sample):.2f} bits)")
    if axis.min() > 0 and axis.max() / axis.min() > 1e3:
        ax.set_xscale("log")
    elif axis.min() < 0 < axis.max() and max(abs(axis.min()), axis.max()) > 1e3:
        ax.set_xscale("symlog")
    ax.set_xlabel(names[0])
    ax.set_ylabel(f"bits of error ({result.sample.dtype})")
    ax.legend(fontsize="small")
    figure.tight_layout()
    target = Path(path)
    figure.savefig(target)
    plt.close(figure)
    return target
