"""E-graph pictures: the dot source parses, and the extracted term's nodes are highlighted."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

import eqsat
from eqsat.cli import main
from eqsat.explain import picture as drawing

NODE = re.compile(r'^\s+(n\d+_\d+) \[label="((?:[^"\\]|\\.)*)"(.*)\];$', re.M)
EDGE = re.compile(r"^\s+(n\d+_\d+) -> (n\d+_\d+) \[(.*)\];$", re.M)
needs_graphviz = pytest.mark.skipif(shutil.which("dot") is None,
                                    reason="Graphviz's dot program is not installed")


def _highlighted(dot: str) -> tuple[list[str], list[tuple[str, str]]]:
    nodes = {name: (label, "fillcolor" in rest) for name, label, rest in NODE.findall(dot)}
    filled = sorted(label for label, on in nodes.values() if on)
    bold = [(nodes[a][0], b) for a, b, rest in EDGE.findall(dot) if "penwidth" in rest]
    return filled, bold


def test_extracted_term_is_highlighted() -> None:
    dot = eqsat.egraph_dot("x*y/x + 2*3")
    assert str(eqsat.simplify("x*y/x + 2*3")) == "y + 6"
    filled, bold = _highlighted(dot)
    assert filled == ["+", "6", "y"]  # the e-nodes of y + 6, one per e-class
    assert sorted(label for label, _ in bold) == ["+", "+"]  # the + node's two arguments
    clusters = re.findall(r"subgraph cluster_(\d+)", dot)
    assert len(clusters) == len(set(clusters)) >= 3
    assert 'label="result"' in dot


def test_every_edge_points_into_a_drawn_class() -> None:
    dot = eqsat.egraph_dot("sin(x)^2 + cos(x)^2", limits=eqsat.Limits(iterations=2))
    names = {name for name, _, _ in NODE.findall(dot)}
    for source, target, rest in EDGE.findall(dot):
        assert source in names and target in names
        head, tail = target.split("_")[0][1:], source.split("_")[0][1:]
        # into the argument's class box, except from inside it (Graphviz cannot clip there)
        assert (f"lhead=cluster_{head}" in rest) == (head != tail)


@needs_graphviz
def test_dot_output_parses_and_renders_svg(tmp_path: Path) -> None:
    dot = eqsat.egraph_dot("exp(log(x)) * 1", assume={"x": "positive"})
    checked = subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True,
                             check=True)
    assert checked.stderr == b""  # not even a warning
    root = ElementTree.fromstring(checked.stdout)
    assert root.tag.endswith("svg")
    written = eqsat.save_dot(dot, tmp_path / "g.svg")
    assert written == tmp_path / "g.svg"
    assert ElementTree.parse(written).getroot().tag.endswith("svg")


def test_without_graphviz_the_dot_file_is_written(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(drawing.shutil, "which", lambda name: None)
    dot = eqsat.egraph_dot("x + 0")
    written = eqsat.save_dot(dot, tmp_path / "g.svg")
    assert written == tmp_path / "g.dot"
    assert written.read_text() == dot


def test_labels_with_quotes_are_escaped() -> None:
    assert drawing._label("sym", 'a"b') == 'a\\"b'


def test_too_large_an_egraph_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(drawing, "MAX_DRAWN_NODES", 5)
    with pytest.raises(eqsat.EqsatError, match="too many to draw"):
        eqsat.egraph_dot("(x + 1)^2 - (x^2 + 2x + 1)")


def test_cli_egraph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "e.svg"
    assert main(["simplify", "x*1", "--egraph", str(target)]) == 0
    printed = capsys.readouterr()
    assert printed.out == "x\n"
    written = Path(printed.err.split("e-graph: ")[1].strip())
    assert written.exists() and written.suffix in (".svg", ".dot")


def test_the_default_picture_is_the_neighbourhood_of_the_result_and_says_so() -> None:
    # the README's example (x*1 + 0) drew 54 classes in a ribbon 27,385 pt wide; folded
    # constants no longer feed the rules, and its whole e-graph is 3 classes: a larger one
    dot = eqsat.egraph_dot("sinh(x) + 1")
    clusters = dot.count("subgraph cluster_")
    assert clusters <= drawing.SHOWN_CLASSES
    drawn = set(re.findall(r"^\s+(n\d+_\d+) \[label=", dot, re.M))
    targets = set(re.findall(r"-> (n\d+_\d+)", dot))
    assert targets <= drawn  # every edge ends at a drawn e-node
    assert re.search(r'label="\d+ of \d+ e-classes and \d+ of \d+ e-nodes, around the result',
                     dot)
    whole = eqsat.egraph_dot("sinh(x) + 1", whole=True)
    assert whole.count("subgraph cluster_") > clusters and "around the result" not in whole


def test_the_picture_highlights_the_answer_simplify_printed() -> None:
    # the normal forms reach x + 2; the input's e-graph alone reached (x^2 - 1)/(x - 1) + 1,
    # which the picture highlighted while the command printed x + 2
    text = "(x^2 - 1)/(x - 1) + sin(x)^2 + cos(x)^2"
    answer = eqsat.simplify(text)
    filled, _ = _highlighted(drawing.egraph_dot(text, result=answer))
    assert str(answer) == "x + 2" and filled == ["+", "2", "x"]
