"""The e-graph's internal analyses: exact bounded constant folding, sign facts, free variables."""

from __future__ import annotations

from fractions import Fraction

from egglog import bindings

from ..encoding import commands as t
from ..encoding.shape_analysis import SHAPE_RULESET
from ..limits.budget import MAX_FOLD_BITS, MAX_FOLD_EXPONENT
from ..rules.guards import SIGN_FACTS
from ..term.ops import KEPT_SIGNS, ROWS, SIGN_IMPLIED, Sign

FOLD_RULESET = "fold"  # exact constant folding: unions numbers with their computations
SIGN_RULESET = "signs"  # sign and integer facts that guards consult
FREE_VARS_RULESET = "freevars"  # run only for rulesets whose guards ask `free of`
CONTRADICTION_RULESET = "contradictions"  # run before every folding iteration (see below)
# An e-class holding two different numbers or symbols: rules that extend a domain (a/a => 1,
# 0/a => 0) are each sound, but on a term defined nowhere (0/0) their unions chain into 0 = 1.
# A run that derives this stops, and its results are not used. Folding must stop at once: an
# e-class holding n numbers feeds n^2 folds of each op above it, all unioned back into one
# class, so the numbers multiply without end (a single egglog step that never returned).
CONTRADICTION = "Contradiction"

# (op, fact required of each argument or None, fact concluded): the op table's sign facts
_SIGN_TABLE: list[tuple[str, tuple[str | None, ...], str]] = []
for _spec in ROWS:
    _SIGN_TABLE += [(_spec.name, needs, concluded) for needs, concluded in _spec.signs]
    if _spec.sign == Sign.POSITIVE:
        _SIGN_TABLE.append((_spec.name, (None,) * _spec.arity, "Pos"))
    elif _spec.sign == Sign.KEEPS_SIGN:
        _SIGN_TABLE += [(_spec.name, (fact,), fact)
                        for fact in KEPT_SIGNS]
    if _spec.integral:
        _SIGN_TABLE.append((_spec.name, ("IsInt",) * _spec.arity, "IsInt"))


# the folds of the op table (term/ops.py): pow's, bounded in its exponent, has rules of its own
_FOLDED = [spec for spec in ROWS if spec.fold is not None and spec.name != "pow"]

ZERO = t.bigrat(Fraction(0))
ONE = t.num(Fraction(1))
FALSE = t.num(Fraction(0))


def declarations(free_vars: bool) -> list[object]:
    """The relations and functions analyses fill, and the ruleset that fills them."""
    commands: list[object] = [bindings.Relation(t.SPAN, fact, [t.SORT])
                              for fact in (*SIGN_FACTS, CONTRADICTION)]
    if free_vars:  # bitmasks: a symbol's bit comes from VarBit, set per query
        intersect = t.call("&", t.var("old"), t.var("new"))
        commands += [
            bindings.FunctionCommand(t.SPAN, "VarBit", bindings.Schema(["String"], "i64"),
                                     intersect),
            bindings.FunctionCommand(t.SPAN, "FreeVars", bindings.Schema([t.SORT], "i64"),
                                     intersect),
        ]
        commands.append(bindings.AddRuleset(t.SPAN, FREE_VARS_RULESET))
    commands += [bindings.AddRuleset(t.SPAN, name)
                 for name in (FOLD_RULESET, CONTRADICTION_RULESET, SIGN_RULESET)]
    return commands


def _small(value: object) -> list[object]:
    limit = t.call("bigint", t.integer(MAX_FOLD_BITS))
    return [t.fact(t.call("<", t.call("bits", t.call(part, value)), limit))
            for part in ("numer", "denom")]


def _args(arity: int) -> list[object]:
    return [t.var(f"a{i}") for i in range(arity)]


def _folding_rules() -> list[object]:
    e, a, b = t.var("e"), t.var("x"), t.var("y")
    rules = []
    for spec in _FOLDED:
        assert spec.fold is not None
        name, operands = spec.name, [a, b][:spec.arity]
        match = t.equal(e, t.op(name, *(t.call("Num", v) for v in operands)))
        if spec.fold.compare:  # 1 where the primitive that holds when true holds, else 0
            for holds, value, suffix in zip(spec.fold.egglog, (ONE, FALSE), ("true", "false"),
                                            strict=True):
                test = t.equal(a, b) if holds == "=" else t.fact(t.call(holds, a, b))
                rules.append(t.rule(f"fold-{name}-{suffix}", FOLD_RULESET, [match, test],
                                    [t.union(e, value)]))
            continue
        body = [match]
        if spec.fold.small:
            body += [fact for v in operands for fact in _small(v)]
        if spec.fold.divides:  # undefined where the divisor is 0
            body.append(t.fact(t.call("!=", b, ZERO)))
        rules.append(t.rule(f"fold-{name}", FOLD_RULESET, body,
                            [t.union(e, t.call("Num", t.call(spec.fold.egglog[0], *operands))),
                             t.subsume(name, *(t.call("Num", v) for v in operands))]))
    # integer powers with a bounded exponent; a negative one needs a nonzero base
    bound = MAX_FOLD_EXPONENT
    pow_match = [t.equal(e, t.op("pow", t.call("Num", a), t.call("Num", b))), *_small(a),
                 t.equal(t.call("denom", b), t.call("bigint", t.integer(1))),
                 t.fact(t.call("<=", b, t.bigrat(Fraction(bound)))),
                 t.fact(t.call(">=", b, t.bigrat(Fraction(-bound))))]
    result = [t.union(e, t.call("Num", t.call("pow", a, b))),
              t.subsume("pow", t.call("Num", a), t.call("Num", b))]
    rules.append(t.rule("fold-pow", FOLD_RULESET, [*pow_match, t.fact(t.call(">=", b, ZERO))],
                        result))
    rules.append(t.rule("fold-pow-negative", FOLD_RULESET,
                        [*pow_match, t.fact(t.call("<", b, ZERO)), t.fact(t.call("!=", a, ZERO))],
                        result))
    return rules


def _sign_rules() -> list[object]:
    e, n = t.var("e"), t.var("n")
    rules = []
    number = t.equal(e, t.call("Num", n))
    for fact, test in (("Pos", t.call(">", n, ZERO)), ("Neg", t.call("<", n, ZERO))):
        rules.append(t.rule(f"sign-num-{fact}", SIGN_RULESET, [number, t.fact(test)],
                            [t.action(t.call(fact, e))]))
    rules.append(t.rule("sign-num-Zero", SIGN_RULESET, [number, t.equal(n, ZERO)],
                        [t.action(t.call("Zero", e))]))
    rules.append(t.rule("int-num", SIGN_RULESET,
                        [number, t.equal(t.call("denom", n), t.call("bigint", t.integer(1)))],
                        [t.action(t.call("IsInt", e))]))
    half = t.call("/", n, t.bigrat(Fraction(2)))
    rules.append(t.rule("sign-even-power", SIGN_RULESET,
                        [t.equal(e, t.op("pow", t.var("a"), t.call("Num", n))),
                         t.equal(t.call("floor", half), half)],
                        [t.action(t.call("NonNeg", e))]))
    rules.append(t.rule("int-power", SIGN_RULESET,
                        [t.equal(e, t.op("pow", t.var("a"), t.call("Num", n))),
                         t.fact(t.call("IsInt", t.var("a"))),
                         t.equal(t.call("denom", n), t.call("bigint", t.integer(1))),
                         t.fact(t.call(">=", n, ZERO))],
                        [t.action(t.call("IsInt", e))]))
    for index, (name, needs, concluded) in enumerate(_SIGN_TABLE):
        args = _args(len(needs))
        body = [t.equal(e, t.op(name, *args))]
        body += [t.fact(t.call(need, arg)) for need, arg in zip(needs, args, strict=True) if need]
        rules.append(t.rule(f"sign-{name}-{index}", SIGN_RULESET, body,
                            [t.action(t.call(concluded, e))]))
    for needs_all, concluded in SIGN_IMPLIED:
        body = [t.fact(t.call(need, e)) for need in needs_all]
        rules.append(t.rule(f"imply-{'-'.join(needs_all)}-{concluded}", SIGN_RULESET, body,
                            [t.action(t.call(concluded, e))]))
    return rules


def _free_var_rules() -> list[object]:
    """FreeVars(e): the bits of the symbols e depends on; an e-class keeps the intersection
    over its e-nodes, since equal terms depend on no symbol that one of them lacks."""
    e = t.var("e")
    rules = [
        t.rule("free-sym", FREE_VARS_RULESET,
               [t.equal(e, t.call("Sym", t.var("s"))),
                t.equal(t.var("bit"), t.call("VarBit", t.var("s")))],
               [bindings.Set(t.SPAN, "FreeVars", [e], t.var("bit"))]),
        t.rule("free-num", FREE_VARS_RULESET, [t.equal(e, t.call("Num", t.var("n")))],
               [bindings.Set(t.SPAN, "FreeVars", [e], t.integer(0))]),
    ]
    for spec in ROWS:
        args = _args(spec.arity)
        masks = [t.var(f"m{i}") for i in range(spec.arity)]
        body = [t.equal(e, t.op(spec.name, *args))]
        body += [t.equal(m, t.call("FreeVars", a)) for m, a in zip(masks, args, strict=True)]
        value = t.integer(0)
        for mask in masks:
            value = t.call("|", value, mask)
        rules.append(t.rule(f"free-{spec.name}", FREE_VARS_RULESET, body,
                            [bindings.Set(t.SPAN, "FreeVars", [e], value)]))
    return rules


def _contradiction_rules() -> list[object]:
    e, a, b = t.var("e"), t.var("a"), t.var("b")
    flag = [t.action(t.call(CONTRADICTION, e))]
    return [
        t.rule("contradiction-numbers", CONTRADICTION_RULESET,
               [t.equal(e, t.call("Num", a)), t.equal(e, t.call("Num", b)),
                t.fact(t.call("!=", a, b))], flag),
        t.rule("contradiction-symbols", CONTRADICTION_RULESET,
               [t.equal(e, t.call("Sym", a)), t.equal(e, t.call("Sym", b)),
                t.fact(t.call("!=", a, b))], flag),
        t.rule("contradiction-symbol-number", CONTRADICTION_RULESET,
               [t.equal(e, t.call("Sym", a)), t.equal(e, t.call("Num", b))], flag),
    ]


def contradicted() -> t.Term:
    """The fact that some e-class is contradictory (a `:until` condition)."""
    return t.call(CONTRADICTION, t.var("e"))


def folding() -> t.Term:
    """Fold constants to a fixpoint, looking for a contradiction before every iteration and
    stopping at the first (egglog checks `:until` before each iteration of a run)."""
    look = t.call("run", t.var(CONTRADICTION_RULESET))
    fold = t.call("run", t.var(FOLD_RULESET), t.var(":until"), contradicted())
    return t.call("saturate", t.call("seq", look, fold))


def saturated(free_vars: bool, tensor: bool, folding_too: bool = True) -> t.Term:
    """Saturate the analyses guards consult (free-variable sets where some guard of the
    rulesets run asks `free of`; shapes for tensor queries), constant folding first."""
    names = [SIGN_RULESET, *([FREE_VARS_RULESET] if free_vars else []),
             *([SHAPE_RULESET] if tensor else [])]
    steps = [folding()] if folding_too else []
    return t.call("seq", *steps, *(t.call("saturate", t.call("run", t.var(n))) for n in names))


def rules(free_vars: bool) -> list[object]:
    """Every analysis rule; free-variable sets only when some guard needs them."""
    return [*_folding_rules(), *_contradiction_rules(), *_sign_rules(),
            *(_free_var_rules() if free_vars else [])]

