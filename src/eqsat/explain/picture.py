"""Pictures of a saturated e-graph: Graphviz dot with the extracted term highlighted."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path

from ..egraph.per_thread import engine
from ..errors import EqsatError
from ..extract import CostModel, TreeExtractor
from ..extract.tree import Node
from ..limits.budget import Limits, Snapshot
from ..term.expr import Expr
from ..term.inputs import ExprInput, to_expr
from ..term.ops import OPS, OpKind
from ..term.shape import is_tensor
from ..term.walks import postorder

MAX_DRAWN_NODES = 3000  # Graphviz takes minutes past this; lower the limits instead
SHOWN_CLASSES = 10  # by default: the result's term, then the classes nearest to it...
SHOWN_PER_CLASS = 3  # ...with at most this many e-nodes each (the extracted one first)
HIGHLIGHT = 'style="filled,bold", fillcolor="#ffd54f", color="#e65100"'
HIGHLIGHT_EDGE = 'color="#e65100", penwidth=2'


def egraph_dot(expr: ExprInput, *, rules: Iterable[str | Path] = (),
               rulesets: Sequence[str] = ("simplify",), limits: Limits | None = None,
               assume: Mapping[str, str | Iterable[str]] | None = None,
               whole: bool = False, result: ExprInput | None = None) -> str:
    """Graphviz dot source of the e-graph saturated from expr: each e-class a dashed box of
    its e-nodes, an edge from an e-node to each argument's e-class; the e-nodes of the
    extracted (cheapest) term filled, and their edges drawn bold. Save it with save_dot.

    By default only the neighbourhood of the result is drawn: the extracted term's classes,
    then the nearest others up to SHOWN_CLASSES, each with at most SHOWN_PER_CLASS e-nodes;
    a caption says what was left out. whole=True draws every e-class and e-node.

    result: the answer simplify gave (its normal forms may reach what this one e-graph
    does not): put in the input's e-class, and highlighted instead of the cheapest term."""
    start = to_expr(expr, assume)
    if is_tensor(start):
        raise EqsatError("egraph_dot draws scalar expressions; this one has tensors")
    answer = None if result is None else to_expr(result, assume)
    with engine(rules).session(rulesets=rulesets) as session:
        handle = session.add(start)
        if answer is not None:
            session.add_equal([(start, answer)])
        parts = {} if answer is None else {t: session.add(t) for t in postorder(answer)}
        session.run(rulesets, Limits.of(limits))
        snapshot = session.snapshot([handle, *parts.values()])
    size = sum(len(nodes) for nodes in snapshot.classes.values())
    if size > MAX_DRAWN_NODES:
        raise EqsatError(f"the e-graph has {size} e-nodes, too many to draw (at most "
                         f"{MAX_DRAWN_NODES}): lower the limits, e.g. Limits(nodes=500)")
    extractor = TreeExtractor(snapshot, CostModel(), session.symbol)
    root = snapshot.roots[handle]
    chosen = _extracted(snapshot, extractor, root) if answer is None else \
        _term_nodes(snapshot, {t: snapshot.roots[h] for t, h in parts.items()})
    if whole:
        return _dot(snapshot, root, chosen, "")
    shown = _neighbourhood(snapshot, root, chosen)
    drawn = sum(len(nodes) for nodes in shown.classes.values())
    caption = "" if drawn == size else (
        f"{len(shown.classes)} of {len(snapshot.classes)} e-classes and {drawn} of {size} "
        "e-nodes, around the result (egraph_dot(..., whole=True) draws them all)")
    return _dot(shown, root, chosen, caption)


def _neighbourhood(snapshot: Snapshot, root: int, chosen: dict[int, int]) -> Snapshot:
    """The extracted term's classes, then others breadth first from the result, up to
    SHOWN_CLASSES; in each, the extracted e-node and others whose arguments are all drawn,
    up to SHOWN_PER_CLASS (so that every e-node drawn has all its edges)."""
    order = list(chosen)
    queue, seen = [root], {root}
    while queue and len(order) < SHOWN_CLASSES:
        eclass = queue.pop(0)
        if eclass not in order:
            order.append(eclass)
        for _, children, _ in snapshot.classes[eclass]:
            queue.extend(c for c in children if c not in seen)
            seen.update(children)
    drawn = set(order)
    while True:  # a class left with no e-node whose arguments are all drawn is not drawn
        kept = {eclass: _kept(snapshot.classes[eclass], chosen.get(eclass), drawn)
                for eclass in order if eclass in drawn}
        empty = {eclass for eclass, indices in kept.items() if not indices}
        if not empty:
            break
        drawn -= empty
    for eclass, indices in kept.items():
        if eclass in chosen:
            chosen[eclass] = indices.index(chosen[eclass])
    return Snapshot({eclass: [snapshot.classes[eclass][i] for i in indices]
                     for eclass, indices in kept.items()}, snapshot.roots)


def _kept(nodes: Sequence[Node], first: int | None, drawn: set[int]) -> list[int]:
    """The extracted e-node, then others whose arguments are all drawn, SHOWN_PER_CLASS
    in all."""
    others = [i for i, node in enumerate(nodes) if i != first and set(node[1]) <= drawn]
    leading = [first] if first is not None else []
    return sorted([*leading, *others][:SHOWN_PER_CLASS])


def _term_nodes(snapshot: Snapshot, classes: Mapping[Expr, int]) -> dict[int, int]:
    """e-class -> index of the e-node of a given term there (each subterm's class given)."""
    chosen: dict[int, int] = {}
    for term, eclass in classes.items():
        children = tuple(classes[a] for a in term.args)
        value = term.number if term.is_number else term.name if term.is_symbol else None
        found = next((i for i, (op, args, payload) in enumerate(snapshot.classes[eclass])
                      if op == term.op and args == children and
                      (value is None or payload == value)), None)
        if found is None:
            raise EqsatError(f"internal error: {term} is not in the e-class it was put in")
        chosen[eclass] = found
    return chosen


def _extracted(snapshot: Snapshot, extractor: TreeExtractor, root: int) -> dict[int, int]:
    """e-class -> index of the e-node the extracted term takes there."""
    chosen: dict[int, int] = {}
    stack = [root]
    while stack:
        eclass = stack.pop()
        if eclass in chosen:
            continue
        node = extractor.best[eclass][1]
        chosen[eclass] = next(i for i, candidate in enumerate(snapshot.classes[eclass])
                              if candidate == node)
        stack.extend(node[1])
    return chosen


def _label(op: str, value: object) -> str:
    if op == "num":
        assert isinstance(value, Fraction)
        text = str(value)
    elif op == "sym":
        text = str(value)
    else:
        spec = OPS[op]
        text = spec.symbol if spec.kind in (OpKind.INFIX, OpKind.PREFIX, OpKind.RELATION) else op
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _dot(snapshot: Snapshot, root: int, chosen: dict[int, int], caption: str) -> str:
    lines = ["digraph egraph {", "  compound=true;", "  clusterrank=local;",
             *([f'  label="{caption}"; labelloc=b; fontname="Helvetica"; fontsize=10;']
               if caption else []),
             '  node [shape=box, style=rounded, fontname="Helvetica"];',
             '  edge [arrowsize=0.6];']
    for eclass, nodes in sorted(snapshot.classes.items()):
        style = "solid, bold" if eclass == root else "dashed"
        lines.append(f'  subgraph cluster_{eclass} {{ style="{style}"; color=gray50; '
                     f'label="{"result" if eclass == root else ""}";')
        for index, (op, _, value) in enumerate(nodes):
            extra = f", {HIGHLIGHT}" if chosen.get(eclass) == index else ""
            lines.append(f'    n{eclass}_{index} [label="{_label(op, value)}"{extra}];')
        lines.append("  }")
    for eclass, nodes in sorted(snapshot.classes.items()):
        for index, (_, children, _) in enumerate(nodes):
            on_term = chosen.get(eclass) == index
            for position, child in enumerate(children):
                if child not in snapshot.classes:
                    continue  # outside the drawn neighbourhood
                # an e-node whose argument is its own class: Graphviz cannot clip at the box
                attributes = [] if child == eclass else [f"lhead=cluster_{child}"]
                if len(children) > 1:
                    attributes.append(f'taillabel="{position}", labelfontsize=8')
                if on_term:
                    attributes.append(HIGHLIGHT_EDGE)
                lines.append(f"  n{eclass}_{index} -> n{child}_0 [{', '.join(attributes)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def save_dot(dot: str, path: str | Path) -> Path:
    """Write a picture: SVG (or PNG, PDF by the suffix) when Graphviz's `dot` program is
    installed; otherwise the .dot source next to it. Returns the path written."""
    target = Path(path)
    program = shutil.which("dot")
    if target.suffix == ".dot" or program is None:
        written = target.with_suffix(".dot")
        written.write_text(dot, encoding="utf-8")
        return written
    kind = target.suffix.lstrip(".") or "svg"
    try:
        subprocess.run([program, f"-T{kind}", "-o", str(target)], input=dot.encode(),
                       check=True, capture_output=True, timeout=120)
    except subprocess.CalledProcessError as error:
        said = [line for line in error.stderr.decode(errors="replace").splitlines()
                if not line.startswith("Warning")]
        raise EqsatError(f"Graphviz could not draw {target}: {' '.join(said).strip()}") \
            from None
    except subprocess.TimeoutExpired:
        raise EqsatError(f"Graphviz took over 120 s to draw {target}: lower the limits") \
            from None
    return target
