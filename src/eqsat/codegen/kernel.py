"""Kernel: generated source compiled into a callable, inspectable and saved as a module."""

from __future__ import annotations

import itertools
import linecache
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..expr import Expr

_COUNTER = itertools.count()


class Kernel:
    """A compiled program: call it with the arguments in order; .source is its module."""

    def __init__(self, source: str, name: str, args: Sequence[str], outputs: Sequence[Expr],
                 target: str) -> None:
        self.source = source
        self.name = name
        self.args = list(args)
        self.outputs = list(outputs)
        self.target = target
        filename = f"<eqsat-kernel-{next(_COUNTER)}>"
        # registered so that inspect.getsource and tracebacks show the generated lines
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace: dict[str, Any] = {"__name__": f"eqsat_kernel_{name}"}
        exec(compile(source, filename, "exec"), namespace)
        self.function: Callable[..., Any] = namespace[name]

    def __call__(self, *values: Any) -> Any:
        return self.function(*values)

    def save(self, path: str | Path) -> Path:
        """Write the module (it imports only numpy and math) to a file."""
        target = Path(path)
        target.write_text(self.source, encoding="utf-8")
        return target

    def __repr__(self) -> str:
        shown = ", ".join(str(o) for o in self.outputs)
        return f"Kernel({self.name}({', '.join(self.args)}) -> {shown}, target={self.target!r})"
