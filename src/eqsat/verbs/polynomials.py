"""expand, factor, cancel, together and apart: a product multiplied out, a rational function
as one fraction in lowest terms or as partial fractions (FLINT)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

from ..algebra import expansion, partial_fractions
from ..algebra.exponentials import as_exponentials, as_powers
from ..algebra.normal import (
    MAX_WHOLE_POWER,
    as_fraction,
    divides_by_zero,
    divisor_of,
    is_rational_node,
    why_unreduced,
    zero_divisor,
)
from ..errors import EqsatError, LimitError
from ..extract import CostModel
from ..extract.order import display_order
from ..term.expr import Expr, make, number
from ..term.inputs import ExprInput, Variable, to_expr
from ..term.shape import is_tensor
from ..term.walks import postorder, rebuild
from .derivatives import variable_in

# square roots of numbers factor and cancel adjoin (SymPy's algebraic fields): bounded, as
# factoring over an extension grows quickly with both
MAX_EXTENSION_ROOTS = 3
MAX_EXTENSION_NODES = 2_000
Extension = ExprInput | Sequence[ExprInput] | bool | None


def expand(expr: ExprInput, *, deep: bool = True, power: bool = True, log: bool = True,
           frac: bool = False, numer: bool = False, denom: bool = False,
           assume: Mapping[str, str | Iterable[str]] | None = None) -> Expr:
    """expr with its products and integer powers of sums multiplied out, as SymPy's expand:
    expand("(x + 1)^2") is x^2 + 2*x + 1, expand("(x + y)^(3/2)") is x*sqrt(x + y) +
    y*sqrt(x + y), a quotient's numerator is spread over its denominator, and that
    denominator multiplied out. deep: inside function arguments too. Where the assumptions
    prove a base positive (assume={"x": "positive"}), power: 2^(a + b) is 2^a*2^b and
    (2*y)^z is 2^z*y^z; log: log(x*y) is log(x) + log(y) and log(x^3) is 3*log(x). frac: the
    result as one fraction in lowest terms, numerator and denominator multiplied out
    (expand("(x + y)*y/x/(x + 1)", frac=True) is (x*y + y^2)/(x^2 + x)); numer or denom:
    only that one multiplied out, the other factored. Equal to expr wherever expr is
    defined; a LimitError past 10,000 terms."""
    parsed = to_expr(expr, assume)
    if is_tensor(parsed):
        raise EqsatError(f"expand takes a scalar expression, not {parsed}")
    expanded = expansion.expand(parsed, deep=deep, power=power, log=log)
    if any(node.op == "div" for node in postorder(expanded)) and \
            (zero := zero_divisor(parsed)) is not None:
        raise EqsatError(f"expand: {parsed} {divides_by_zero(zero)}: it is defined nowhere")
    if not (frac or numer or denom):
        return display_order(expanded)
    found = as_fraction(expanded, factored=(not (frac or numer), not (frac or denom)))
    if found is None:
        raise EqsatError(f"expand: {parsed} {why_unreduced(expanded)}")
    return display_order(found)


def apart(expr: ExprInput, x: Variable | None = None, *,
          assume: Mapping[str, str | Iterable[str]] | None = None) -> Expr:
    """Partial fractions in x over the rationals, as SymPy's apart: a polynomial in x plus
    a fraction over each power of each irreducible factor of the denominator, its numerator
    of lower degree than the factor: apart("1/(x^2 - 1)", "x") is 1/(2*(x - 1)) -
    1/(2*(x + 1)). x may be left out where the expression has one symbol. Other symbols may
    appear in the numerator, in a factor of the denominator free of x, and in its one factor
    in x whose leading coefficient is a number; an EqsatError where the partial fractions
    would divide by a polynomial in them (1/((x + a)*(x + b)): by a - b), or x is inside a
    function."""
    parsed = to_expr(expr, assume)
    if is_tensor(parsed):
        raise EqsatError(f"apart takes a scalar expression, not {parsed}")
    symbols = sorted(s.name for s in parsed.free_symbols())
    if x is None and len(symbols) > 1:
        raise EqsatError(f"apart: say which variable, one of {', '.join(symbols)}")
    if x is None and not symbols:
        return parsed
    variable = variable_in(parsed, x if x is not None else symbols[0])
    if variable not in parsed.free_symbols():  # a constant in it
        return parsed
    return display_order(partial_fractions.apart(parsed, variable))


def factor(expr: ExprInput, *, extension: Extension = None,
           assume: Mapping[str, str | Iterable[str]] | None = None) -> Expr:
    """expr as one fraction whose numerator and denominator are each a rational number times
    irreducible polynomials over the rationals, multivariate; symbols and non-rational
    subterms (sin(x), sqrt(y)) are its variables, and their arguments are factored too:
    factor("x^2 - 1") is (x - 1)*(x + 1), factor("1/x + 1/y") is (x + y)/(x*y). Where expr
    is a polynomial or rational function with square roots of numbers in its coefficients,
    over the rationals and those roots where that is smaller: factor("x^2 + 2*sqrt(2)*x + 2")
    is (x + sqrt(2))^2. extension: False for the rationals alone; True, or algebraic numbers
    to adjoin (SymPy's extension=, "sqrt(2)" or a list), for that field whatever the size."""
    parsed = to_expr(expr, assume)
    return _over_extension(parsed, _written(parsed, (True, True), "factor"), extension,
                           "factor")


def cancel(expr: ExprInput, *, extension: Extension = None,
           assume: Mapping[str, str | Iterable[str]] | None = None) -> Expr:
    """expr as one fraction in lowest terms, numerator and denominator expanded with integer
    coefficients (function arguments too): cancel("(x^2 - 1)/(x - 1)") is x + 1. Equal to
    expr wherever expr is defined. Square roots of numbers in the coefficients, and
    extension, as for factor: cancel("(x^2 - 2)/(x - sqrt(2))") is x + sqrt(2)."""
    parsed = to_expr(expr, assume)
    return _over_extension(parsed, _written(parsed, (False, False), "cancel"), extension,
                           "cancel")


def together(expr: ExprInput, *, assume: Mapping[str, str | Iterable[str]] | None = None,
             ) -> Expr:
    """expr over one common denominator, in lowest terms: the numerator expanded, the
    denominator factored (function arguments too): together("1/x + 2/y") is
    (2*x + y)/(x*y)."""
    return _written(to_expr(expr, assume), (False, True), "together")


def _written(parsed: Expr, factored: tuple[bool, bool], verb: str) -> Expr:
    if is_tensor(parsed):
        raise EqsatError(f"{verb} takes a scalar expression, not {parsed}")

    def inside(node: Expr, args: list[Expr]) -> Expr:  # function arguments written so too
        if not node.args or is_rational_node(node):
            return make(node.op, *args) if node.args else node
        written = [as_fraction(a, factored=factored) or a for a in args]
        if node.op == "pow" and _integer(node.args[1]):  # a power too large to multiply out
            return _raised(written[0], node.args[1].number)
        return make(node.op, *written)

    found = as_fraction(as_powers(rebuild(parsed, inside)), factored=factored)
    if found is None:
        raise EqsatError(f"{verb}: {parsed} {why_unreduced(parsed)}")
    if (power := _power_in_a_sum(found)) is not None:
        raise LimitError(f"{verb}: {parsed} holds {power}, a power above "
                         f"{MAX_WHOLE_POWER:,}, which the polynomials take as one variable: "
                         f"the sum it is in may not be {_DONE[verb]}")
    return display_order(as_exponentials(found))


def _integer(term: Expr) -> bool:
    return term.is_number and term.number.denominator == 1


def _raised(base: Expr, exponent: Fraction) -> Expr:
    """base^exponent for an integer exponent, taken into base's products, quotients and
    integer powers: ((x + 1)^2)^1000 is (x + 1)^2000 and (x*y)^n is x^n*y^n, as they are
    for integer powers wherever either side is defined."""
    if base.op in ("mul", "div"):
        return make(base.op, *(_raised(part, exponent) for part in base.args))
    if base.op == "pow" and _integer(base.args[1]):
        return make("pow", base.args[0], number(base.args[1].number * exponent))
    if base.op == "neg" and exponent % 2 == 0:
        return _raised(base.args[0], exponent)
    return make("pow", base, number(exponent))


_DONE = {"factor": "irreducible", "cancel": "in lowest terms", "together": "in lowest terms"}


def _power_in_a_sum(found: Expr) -> Expr | None:
    """A power of a term with symbols to an integer above MAX_WHOLE_POWER inside a sum of the
    result (x^10000 - 1: an irreducible polynomial in x^10000, not in x), or None."""
    nodes = postorder(found)
    inside_sums: set[Expr] = set()
    for node in reversed(nodes):  # (parents first: a sum inside one is walked with it)
        if node.op in ("add", "sub") and node not in inside_sums:
            inside_sums.update(postorder(node))
    return next((node for node in nodes if node in inside_sums and node.op == "pow" and
                 _integer(node.args[1]) and abs(node.args[1].number) > MAX_WHOLE_POWER and
                 node.args[0].free_symbols()), None)


def _over_extension(parsed: Expr, rational: Expr, extension: Extension, verb: str) -> Expr:
    """factor's or cancel's result over the rationals and the square roots of numbers in
    parsed (and any extension given), by SymPy's algebraic number fields, where parsed is a
    rational function of symbols and such roots: taken where it is smaller than the result
    over the rationals (rational), or always where an extension is asked for."""
    if extension is False:
        return rational
    asked = extension is not None
    listed: Sequence[ExprInput] = [] if extension is None or extension is True else \
        extension if isinstance(extension, (list, tuple)) else [extension]  # type: ignore[list-item]
    given = [to_expr(e) for e in listed]
    if any(g.free_symbols() for g in given):
        raise EqsatError(f"{verb}: an extension is an algebraic number, not "
                         f"{next(g for g in given if g.free_symbols())}")
    nodes = postorder(parsed)
    roots = [n for n in nodes if _root_of_number(n)]
    if not (roots or given) or len(nodes) > MAX_EXTENSION_NODES or \
            len(roots) + len(given) > MAX_EXTENSION_ROOTS or \
            not all(is_rational_node(n) or _root_of_number(n) or n.is_number for n in nodes):
        if asked and (roots or given):
            raise EqsatError(f"{verb}: over an extension takes a rational function of symbols "
                             f"and at most {MAX_EXTENSION_ROOTS} square roots of numbers, of "
                             f"at most {MAX_EXTENSION_NODES} nodes")
        return rational
    import sympy

    from ..term.sympy_bridge import from_sympy, to_sympy

    for node in nodes:  # SymPy's sqrt(2)^2 is 2: a divisor the rational forms kept
        if (divisor := divisor_of(node)) is not None and to_sympy(divisor) == 0:
            raise EqsatError(f"{verb}: {parsed} {divides_by_zero(divisor)}: it is defined "
                             "nowhere")
    field = [to_sympy(n) for n in dict.fromkeys([*roots, *given])]
    top, bottom = (from_sympy(part) for part in
                   sympy.fraction(getattr(sympy, verb)(to_sympy(parsed), extension=field)))
    if verb == "cancel":  # each expanded as the rational forms are written
        top, bottom = (as_fraction(part, factored=(False, False)) or part
                       for part in (top, bottom))
    found = display_order(top if bottom == number(1) else make("div", top, bottom))
    cost = CostModel().tree_cost
    return found if asked or cost(found) < cost(rational) else rational


def _root_of_number(node: Expr) -> bool:
    """sqrt(c) or c^(p/q) with c a positive rational number and q > 1."""
    if node.op == "sqrt":
        return node.args[0].is_number and node.args[0].number > 0
    return node.op == "pow" and node.args[0].is_number and node.args[0].number > 0 and \
        node.args[1].is_number and node.args[1].number.denominator > 1
