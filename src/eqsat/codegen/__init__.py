"""Code generation: printers from an extracted program to source, and the compiled Kernel."""

from .kernel import Kernel
from .numpy import print_numpy

__all__ = ["Kernel", "print_numpy"]
