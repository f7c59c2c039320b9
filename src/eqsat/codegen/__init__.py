"""Code generation: printers from an extracted program to source, and the compiled Kernel."""

from .kernel import Kernel
from .numpy import COSTS, print_numpy

__all__ = ["COSTS", "Kernel", "print_numpy"]
