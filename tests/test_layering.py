"""The package's modules import each other without circles, even through imports inside
functions (only imports under TYPE_CHECKING, which never run, are left out), and never up a
layer."""

from __future__ import annotations

import ast
from pathlib import Path

import eqsat

SOURCE = Path(eqsat.__file__).parent


def _module_name(path: Path) -> str:
    parts = ("eqsat", *path.relative_to(SOURCE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _run_time_nodes(tree: ast.Module) -> list[ast.AST]:
    """Every node of a module but those under `if TYPE_CHECKING:` (type hints only)."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and \
                node.test.id == "TYPE_CHECKING":
            stack += node.orelse
            continue
        found.append(node)
        stack += ast.iter_child_nodes(node)
    return found


def _imports(anywhere: bool = False) -> dict[str, set[str]]:
    """Each module, and the package modules its `from . import` lines load when it runs (at
    module level and inside functions; anywhere: under TYPE_CHECKING too)."""
    modules = {_module_name(path): path for path in SOURCE.rglob("*.py")}
    found: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        wanted: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree) if anywhere else _run_time_nodes(tree):
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
    """Not even through an import inside a function: a lazy import is still a dependence."""
    graph = _imports()
    assert len(graph) > 40 and "eqsat.rules.soundness" in graph["eqsat.egraph.engine"]
    assert "eqsat.term.printing" in graph["eqsat.term.expr"]
    assert "eqsat.term.expr" not in graph["eqsat.term.printing"]  # its hints only
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


# The layers, lowest first: each is a package of src/eqsat (docs/architecture.md draws them),
# and packages on one line are one layer (side by side: none needs another's layer above it).
# A module imports from its own layer and those below, never from one above. Top-level
# modules are the front (cli, demo, the package), but errors.py, which every layer raises.
LAYERS: list[tuple[str, ...]] = [
    ("limits",), ("term",), ("algebra",), ("encoding",), ("rules",), ("egraph",), ("extract",),
    ("accuracy", "solving", "codegen"), ("verbs",), ("explain",)]
BASE = "errors"  # below every layer: it imports nothing of eqsat


def _layer_of(module: str) -> int:
    """A module's layer, from the folder it is in."""
    parts = module.split(".")[1:]
    if parts == [BASE]:
        return -1
    found = [index for index, packages in enumerate(LAYERS) if parts and parts[0] in packages]
    return found[0] if found else len(LAYERS)  # the package itself, cli, demo: the front


def _layer_name(module: str) -> str:
    layer = _layer_of(module)
    return BASE if layer < 0 else "front" if layer == len(LAYERS) else "/".join(LAYERS[layer])


def test_every_module_is_in_a_layer_package() -> None:
    """Only the front and errors.py sit at the top; every other module is in its layer's
    folder, and each layer's package says what it holds in a docstring."""
    top = sorted(path.stem for path in SOURCE.glob("*.py"))
    assert top == ["__init__", "cli", "commands", "demo", BASE]
    packages = {path.parent.name for path in SOURCE.glob("*/__init__.py")}
    assert packages == {name for layer in LAYERS for name in layer}
    for name in packages:
        assert ast.get_docstring(ast.parse((SOURCE / name / "__init__.py").read_text())), name
    assert not _imports(anywhere=True)["eqsat.errors"]


def test_lower_layers_never_import_higher_ones() -> None:
    """Not even inside a function: a lazy import is still a dependence."""
    graph = _imports(anywhere=True)
    upward = [f"{module} ({_layer_name(module)}) imports {imported} ({_layer_name(imported)})"
              for module, imports in graph.items() for imported in imports
              if _layer_of(imported) > _layer_of(module)]
    assert not upward, "\n".join(upward)
