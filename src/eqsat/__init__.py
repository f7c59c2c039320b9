"""eqsat: symbolic algebra by equality saturation on e-graphs."""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from .egraph.per_thread import engine
from .errors import (
    ArgumentError,
    ConversionError,
    EqsatError,
    EvaluationError,
    LimitError,
    ParseError,
    RuleError,
    ShapeError,
    SolveError,
    TruthValueError,
)
from .limits.budget import Limits
from .limits.progress import set_progress
from .limits.report import RunReport, StopReason
from .rules import load_rules, parse_rules
from .term.expr import Expr, call, symbol, symbols
from .term.inputs import to_expr
from .term.memos import clear_cache
from .term.ops import OPS, OpKind, lookup
from .term.parse import parse
from .term.shape import shape_of
from .term.tensors import apply as apply_op
from .term.tensors import tensor
from .verbs.check_rules import check_rules
from .verbs.diff import diff, diff_report, grad
from .verbs.evaluate import evaluate
from .verbs.render import latex, pretty
from .verbs.simplify import Simplified, prove_equal, simplify, simplify_report
from .verbs.solve import solve

if TYPE_CHECKING:  # loaded when first asked for (see __getattr__)
    from .codegen import Kernel
    from .explain.picture import egraph_dot, save_dot
    from .explain.steps import Derivation, explain
    from .solving import Case, Discarded, Solution, SolutionKind
    from .verbs.asymptotics import limit, series
    from .verbs.batch import batch
    from .verbs.compile import Function, compile, function
    from .verbs.polynomials import apart, cancel, expand, factor, together
    from .verbs.stabilize import Stabilized, error_bits, stabilize, stabilize_report
    from .verbs.values import N, subs

# what a one-line simplify never needs (they load NumPy, among others): loaded on first use
_LAZY = {"Kernel": "codegen", "Function": "verbs.compile", "compile": "verbs.compile",
         "function": "verbs.compile", "Derivation": "explain.steps", "explain": "explain.steps",
         "egraph_dot": "explain.picture", "save_dot": "explain.picture", "Case": "solving",
         "Discarded": "solving", "Solution": "solving", "SolutionKind": "solving",
         "Stabilized": "verbs.stabilize", "error_bits": "verbs.stabilize",
         "stabilize": "verbs.stabilize", "stabilize_report": "verbs.stabilize",
         "N": "verbs.values", "subs": "verbs.values", "factor": "verbs.polynomials",
         "cancel": "verbs.polynomials", "together": "verbs.polynomials",
         "expand": "verbs.polynomials", "apart": "verbs.polynomials",
         "series": "verbs.asymptotics", "limit": "verbs.asymptotics", "batch": "verbs.batch"}


class _Package(types.ModuleType):
    """eqsat itself. Importing a subpackage sets an attribute of its package: eqsat.explain
    stays the function, not the package of the same name."""

    def __setattr__(self, name: str, value: Any) -> None:
        if not (isinstance(value, types.ModuleType) and name in _LAZY):
            super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

pi = call("pi")
E = call("E")
oo = call("oo")  # infinity: a limit, not a value (see verbs/asymptotics.py)

__all__ = [
    "OPS",
    "ArgumentError",
    "Case",
    "ConversionError",
    "Derivation",
    "Discarded",
    "E",
    "Engine",
    "EqsatError",
    "EvaluationError",
    "Expr",
    "Function",
    "Kernel",
    "LimitError",
    "Limits",
    "N",
    "ParseError",
    "RuleError",
    "RunReport",
    "ShapeError",
    "Simplified",
    "Solution",
    "SolutionKind",
    "SolveError",
    "Stabilized",
    "StopReason",
    "TruthValueError",
    "apart",
    "batch",
    "cancel",
    "check_rules",
    "clear_cache",
    "compile",
    "diff",
    "diff_report",
    "egraph_dot",
    "engine",
    "error_bits",
    "evaluate",
    "expand",
    "explain",
    "factor",
    "from_sympy",
    "function",
    "grad",
    "latex",
    "limit",
    "load_rules",
    "oo",
    "parse",
    "parse_rules",
    "pi",
    "pretty",
    "prove_equal",
    "save_dot",
    "series",
    "set_progress",
    "shape_of",
    "simplify",
    "simplify_report",
    "solve",
    "stabilize",
    "stabilize_report",
    "subs",
    "symbol",
    "symbols",
    "tensor",
    "to_expr",
    "to_sympy",
    "together",
]


def __dir__() -> list[str]:
    """Every public name, those loaded on first use and the op functions too."""
    ops = (op.name for op in OPS.values() if op.kind != OpKind.CONSTANT and op.is_value)
    return sorted({*globals(), *__all__, *_LAZY, "Engine", "to_sympy", "from_sympy", *ops})


def __getattr__(name: str) -> Any:
    """Every op in the table is also a function: eqsat.exp(x), eqsat.where(x > 0, x, 0);
    Engine loads egglog, to_sympy/from_sympy load SymPy, and the names of _LAZY their
    modules, when first asked for (import eqsat loads none of them)."""
    if name == "Engine":
        from .egraph.engine import Engine

        return Engine
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    if name in ("to_sympy", "from_sympy"):
        from .term import sympy_bridge

        return getattr(sympy_bridge, name)
    spec = lookup(name)
    if spec is None or spec.kind == OpKind.CONSTANT:
        raise AttributeError(f"module 'eqsat' has no attribute {name!r}")

    def apply(*args: Any, axis: int | None = None) -> Expr:
        return apply_op(name, *args, axis=axis)

    apply.__name__ = spec.name
    apply.__doc__ = f"{spec.name}: {spec.arity} argument(s), defined for {spec.domain}" + (
        "; reductions and softmaxes take axis=k" if spec.kind == OpKind.TENSOR else "")
    return apply
