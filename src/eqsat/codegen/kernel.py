"""Kernel: generated source compiled into a callable, inspectable and saved as a module."""

from __future__ import annotations

import html
import itertools
import linecache
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import EqsatError
from ..term.expr import Expr
from .targets import TARGETS

_COUNTER = itertools.count()


class Kernel:
    """A compiled program: call it with the arguments in order. .source is its code (a
    Python module for "numpy" and "dask", CUDA C for "cupy"); .module is the Python module
    that runs it (the same text, or for "cupy" the CuPy launcher)."""

    def __init__(self, source: str, name: str, args: Sequence[str], outputs: Sequence[Expr],
                 target: str, module: str | None = None) -> None:
        self.source = source
        self.module = source if module is None else module
        self.name = name
        self.args = list(args)
        self.outputs = list(outputs)
        self.target = target
        self._function: Callable[..., Any] | None = None
        if TARGETS[target].loads_at_once:
            self._function = self._load()

    def _load(self) -> Callable[..., Any]:
        filename = f"<eqsat-kernel-{next(_COUNTER)}>"
        # registered so that inspect.getsource and tracebacks show the generated lines
        lines = self.module.splitlines(True)
        linecache.cache[filename] = (len(self.module), None, lines, filename)
        namespace: dict[str, Any] = {"__name__": f"eqsat_kernel_{self.name}"}
        try:
            exec(compile(self.module, filename, "exec"), namespace)
        except ImportError as error:
            raise EqsatError(f"the {self.target} target needs {error.name}: "
                             f"{TARGETS[self.target].install}") from None
        function: Callable[..., Any] = namespace[self.name]
        return function

    @property
    def function(self) -> Callable[..., Any]:
        """The Python function (for "cupy", loading CuPy on first use)."""
        if self._function is None:
            self._function = self._load()
        return self._function

    def __call__(self, *values: Any, **options: Any) -> Any:
        """The outputs for these arguments (an elementwise NumPy kernel also takes out=: the
        array, or tuple of arrays, its outputs are written into)."""
        return self.function(*values, **options)

    def save(self, path: str | Path) -> Path:
        """Write the module to a file (it imports only numpy and math, or cupy and numpy);
        for the "cupy" target, a path ending in .cu gets the CUDA source instead."""
        target = Path(path)
        cuda = TARGETS[self.target].language == "cuda"
        text = self.source if target.suffix == ".cu" and cuda else self.module
        target.write_text(text, encoding="utf-8")
        return target

    def __repr__(self) -> str:
        shown = ", ".join(str(o) for o in self.outputs)
        return f"Kernel({self.name}({', '.join(self.args)}) -> {shown}, target={self.target!r})"

    def _repr_html_(self) -> str:
        """Jupyter shows the signature and the source, highlighted (the CUDA C for "cupy")."""
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import CudaLexer, PythonLexer

        lexer = CudaLexer() if TARGETS[self.target].language == "cuda" else PythonLexer()
        body = highlight(self.source, lexer, HtmlFormatter(noclasses=True))
        return f"<p><code>{html.escape(repr(self))}</code></p>{body}"
