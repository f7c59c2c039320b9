"""Pictures of a saturated e-graph: Graphviz dot with the extracted term highlighted."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path

from .api import ExprInput, engine, to_expr
from .egraph import Limits, Snapshot
from .errors import EqsatError
from .extract import CostModel, TreeExtractor
from .ops import OPS
from .shape import is_tensor

MAX_DRAWN_NODES = 3000  # Graphviz takes minutes past this; lower the limits instead
HIGHLIGHT = 'style="filled,bold", fillcolor="#ffd54f", color="#e65100"'
HIGHLIGHT_EDGE = 'color="#e65100", penwidth=2'


def egraph_dot(expr: ExprInput, *, rules: Iterable[str | Path] = (),
               rulesets: Sequence[str] = ("simplify",), limits: Limits | None = None,
               assume: Mapping[str, str | Iterable[str]] | None = None) -> str:
    """Graphviz dot source of the e-graph saturated from expr: each e-class a dashed box of
    its e-nodes, an edge from an e-node to each argument's e-class; the e-nodes of the
    extracted (cheapest) term filled, and their edges drawn bold. Save it with save_dot."""
    start = to_expr(expr, assume)
    if is_tensor(start):
        raise EqsatError("egraph_dot draws scalar expressions; this one has tensors")
    with engine(rules).session() as session:
        handle = session.add(start)
        session.run(rulesets, Limits.of(limits))
        snapshot = session.snapshot([handle])
    size = sum(len(nodes) for nodes in snapshot.classes.values())
    if size > MAX_DRAWN_NODES:
        raise EqsatError(f"the e-graph has {size} e-nodes, too many to draw (at most "
                         f"{MAX_DRAWN_NODES}): lower the limits, e.g. Limits(nodes=500)")
    extractor = TreeExtractor(snapshot, CostModel(), session.symbol)
    chosen = _extracted(snapshot, extractor, snapshot.roots[handle])
    return _dot(snapshot, snapshot.roots[handle], chosen)


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
        text = spec.symbol if spec.kind in ("infix", "prefix", "relation") else op
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _dot(snapshot: Snapshot, root: int, chosen: dict[int, int]) -> str:
    lines = ["digraph egraph {", "  compound=true;", "  clusterrank=local;",
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
