"""The package's modules import each other without circles (at module level: imports inside
functions and under TYPE_CHECKING load later, by design)."""

from __future__ import annotations

import ast
from pathlib import Path

import eqsat

SOURCE = Path(eqsat.__file__).parent


def _module_name(path: Path) -> str:
    parts = ("eqsat", *path.relative_to(SOURCE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports_at_module_level(anywhere: bool = False) -> dict[str, set[str]]:
    """Each module, and the package modules its top-level `from . import` lines load
    (anywhere: its imports inside functions and under TYPE_CHECKING too)."""
    modules = {_module_name(path): path for path in SOURCE.rglob("*.py")}
    found: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        wanted: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree) if anywhere else tree.body:
            if not (isinstance(node, ast.ImportFrom) and node.level):
                continue
            base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
            wanted |= {t for t in [target, *(f"{target}.{a.name}" for a in node.names)]
                       if t in modules and t != "eqsat"}  # the package itself: no module
        found[name] = wanted
    return found


def _a_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """Some cycle of imports, or None (depth-first, colouring the modules)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in graph:
        if state.get(start):
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            following = next(stack[-1], None)
            if following is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(following) == 1:
                return [*path[path.index(following):], following]
            elif not state.get(following):
                state[following] = 1
                path.append(following)
                stack.append(iter(sorted(graph[following])))
    return None


def test_no_module_imports_itself_in_a_circle() -> None:
    graph = _imports_at_module_level()
    assert len(graph) > 40 and "eqsat.rules.check" in graph["eqsat.api"] | graph["eqsat.egraph"]
    cycle = _a_cycle(graph)
    assert cycle is None, " -> ".join(cycle)


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _a_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _a_cycle({"a": {"b"}, "b": set()}) is None


def test_no_module_branches_on_a_target_name() -> None:
    """What differs between compile targets is in their registry (codegen/targets.py): no
    other module compares a value with a target's name."""
    from eqsat.codegen.targets import TARGETS

    found = []
    for path in SOURCE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and any(
                    isinstance(side, ast.Constant) and side.value in TARGETS
                    for side in (node.left, *node.comparators)):
                found.append(f"{path.relative_to(SOURCE)}:{node.lineno}")
    assert not found, f"branches on a target name: {found}"


# The layers, lowest first (docs/architecture.md draws them): a module imports from its own
# layer and those below, never from one above.
LAYERS: list[tuple[str, set[str]]] = [
    ("foundation", {"errors", "limits", "report", "rounds", "progress", "collector",
                    "watchdog"}),
    ("terms", {"ops", "expr", "shape", "parse", "printing", "display", "numeric",
               "sympy_bridge", "arguments", "inputs"}),
    ("algebra", {"normal", "intervals", "solving.poly", "solving.linear"}),
    ("egglog terms", {"egglog_terms", "shape_analysis"}),
    ("rules", {"rules", "rules.*", "derivative"}),
    ("e-graph", {"analysis", "egraph", "engines"}),
    ("extraction", {"extract", "extract.*"}),
    ("solving", {"solving", "solving.*"}),
    ("code generation", {"codegen", "codegen.*"}),
    ("verbs", {"api", "derivation", "explain", "picture", "stabilize", "compiler"}),
    ("front", {"cli", "demo", ""}),
]


def _layer_of(module: str) -> int:
    name = module.removeprefix("eqsat").removeprefix(".")
    named = [index for index, (_, members) in enumerate(LAYERS) if name in members]
    package = [index for index, (_, members) in enumerate(LAYERS)
               if f"{name.split('.')[0]}.*" in members]
    found = named or package  # solving.poly is named in algebra: not solving's
    assert found, f"{module} is in no layer: add it to LAYERS and docs/architecture.md"
    return found[0]


def test_lower_layers_never_import_higher_ones() -> None:
    """Not even inside a function: a lazy import is still a dependence."""
    graph = _imports_at_module_level(anywhere=True)
    upward = [f"{module} ({LAYERS[_layer_of(module)][0]}) imports {imported} "
              f"({LAYERS[_layer_of(imported)][0]})"
              for module, imports in graph.items() for imported in imports
              if _layer_of(imported) > _layer_of(module)]
    assert not upward, "\n".join(upward)
