"""The README's Python tour runs as written (in a temporary folder: it writes pictures)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_block_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    block = re.search(r"## Python\n\n```python\n(.*?)```", README.read_text(), re.S)
    assert block is not None
    namespace: dict[str, object] = {}
    exec(compile(block.group(1), str(README), "exec"), namespace)
    assert str(namespace["e"]) == "3*x + 1 = 2*(2*x - 6)"


def test_readme_tensor_block_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    block = re.search(r"### Tensors\n\n```python\n(.*?)```", README.read_text(), re.S)
    assert block is not None
    namespace: dict[str, object] = {}
    exec(compile(block.group(1), str(README), "exec"), namespace)
    assert str(namespace["k"].outputs[0]) == "X.T@softmax(X@W, axis=1)"  # type: ignore[attr-defined]
